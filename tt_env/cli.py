"""Command-line options shared by ``tt-arena``, ``tt-play`` and ``tt-train``: the rules, and
numbers that must be checked before any work starts.

Every rule option is a :class:`~tt_env.game.rules.Rules` field and exists only there (STYLE.md); the
flags are generated from the dataclass, with the field's docstring as help, so a new option
reaches both commands without being written twice.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
from functools import cache

from tt_env.game.rules import PRESETS, Rules
from tt_env.util.args import Parser, non_negative_int, one_line, positive_int

__all__ = [  # the parser and the number types live in tt_env.util.args, for every command
    "UNSET",
    "Parser",
    "add_rules_arguments",
    "non_negative_int",
    "one_line",
    "positive_int",
    "rule_field_help",
    "rule_overrides",
    "rules_from_args",
]

UNSET = object()


_SEATS_FIELD = "num_players"  # given as --seats (arena) or --opponents (play)


@cache
def rule_field_help() -> dict[str, str]:
    """The docstring under each field of :class:`Rules` (read from its source), by field name."""
    try:
        tree = ast.parse(inspect.getsource(Rules))
    except (OSError, TypeError, SyntaxError):  # source not available (frozen install)
        return {}
    helps: dict[str, str] = {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    for node, nxt in zip(body, body[1:]):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
            and isinstance(nxt.value.value, str)
        ):
            helps[node.target.id] = " ".join(nxt.value.value.split())
    return helps


def _optional_int(text: str) -> int | None:
    if text.strip().lower() in ("none", "default", "auto", "unlimited"):
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer or 'none', got {text!r}") from None


def add_rules_arguments(parser: argparse.ArgumentParser) -> None:
    """Add ``--preset`` and one flag per :class:`Rules` field (except the number of players)."""
    group = parser.add_argument_group(
        "rules", "a preset, then any rule option of RULES.md (flags override the preset)"
    )
    group.add_argument(
        "--preset",
        default="standard",
        choices=sorted(PRESETS),
        help="named rule set (default: standard)",
    )
    helps = rule_field_help()
    for field in dataclasses.fields(Rules):
        if field.name == _SEATS_FIELD or not field.init:
            continue
        flag = "--" + field.name.replace("_", "-")
        text = helps.get(field.name, "see RULES.md")
        kind = str(field.type).replace(" ", "")
        if kind == "bool":
            group.add_argument(
                flag,
                default=UNSET,
                action=argparse.BooleanOptionalAction,
                help=f"{text} (default: {field.default})",
            )
        elif kind in ("int|None", "Optional[int]"):
            group.add_argument(
                flag,
                default=UNSET,
                type=_optional_int,
                metavar="N|none",
                help=f"{text} (default: {field.default})",
            )
        else:
            group.add_argument(
                flag,
                default=UNSET,
                type=int,
                metavar="N",
                help=f"{text} (default: {field.default})",
            )


def rule_overrides(args: argparse.Namespace) -> dict[str, object]:
    """The rule options given on the command line (not the number of players)."""
    overrides = {}
    for field in dataclasses.fields(Rules):
        value = getattr(args, field.name, UNSET)
        if field.name != _SEATS_FIELD and value is not UNSET:
            overrides[field.name] = value
    return overrides


def rules_from_args(args: argparse.Namespace, num_players: int) -> Rules:
    """The :class:`Rules` of ``--preset`` with the flags given on the command line."""
    return Rules.preset(args.preset, num_players=num_players, **rule_overrides(args))
