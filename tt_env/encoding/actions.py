"""The integer action layout of the environments: ``Discrete(108)`` for every rule variant.

=============  =====================================  ==========================================
action         move                                   example
=============  =====================================  ==========================================
0              draw the top card of the stock         ``"draw stock"``
1              take the top card of the discard pile  ``"take discard"``
2 + k          discard card kind ``k`` (0..52)        ``2 + 32`` = ``"discard 7H"``
55 + k         go out, discarding card kind ``k``     ``55 + 51`` = ``"go out, discard KS"``
=============  =====================================  ==========================================

Card kinds are those of :mod:`tt_env.game.cards` (0..51 the standard cards, 52 the joker). The
layout is the same for every number of players and every rule option; the action mask says which
actions are legal. :func:`action_to_move` and :func:`move_to_action` translate to and from the
engine's :class:`~tt_env.game.engine.Move` through precomputed tables.
"""

from __future__ import annotations

import reprlib
from collections.abc import Iterable

from tt_env.game.cards import ALL_CARDS, NUM_KINDS
from tt_env.game.moves import ACTION_MOVES, Move, MoveKind

DRAW_STOCK_ACTION = 0
TAKE_DISCARD_ACTION = 1
DISCARD_ACTION_BASE = 2  # discard kind k: 2 + k
GO_OUT_ACTION_BASE = DISCARD_ACTION_BASE + NUM_KINDS  # 55: go out discarding kind k: 55 + k
NUM_ACTIONS = GO_OUT_ACTION_BASE + NUM_KINDS  # 108

# The move of each action (the engine's one numbering, tt_env.game.moves.ACTION_MOVES), and
# back: action = _KIND_OFFSET[move.kind] + move.card (a draw's card is -1, so the offsets of the
# two draws are one more than their actions).
ACTION_TO_MOVE: tuple[Move, ...] = ACTION_MOVES
_KIND_OFFSET = {
    MoveKind.DRAW_STOCK: DRAW_STOCK_ACTION + 1,
    MoveKind.TAKE_DISCARD: TAKE_DISCARD_ACTION + 1,
    MoveKind.DISCARD: DISCARD_ACTION_BASE,
    MoveKind.GO_OUT: GO_OUT_ACTION_BASE,
}
KIND_OFFSET: tuple[int, ...] = tuple(_KIND_OFFSET[k] for k in sorted(_KIND_OFFSET))
"""Indexed by ``MoveKind``: ``KIND_OFFSET[move.kind] + move.card`` is the move's action."""

_NAMES: tuple[str, ...] = tuple(str(m) for m in ACTION_TO_MOVE)
_PRETTY: tuple[str, ...] = tuple(
    name if m.card < 0 else name[: -len(str(ALL_CARDS[m.card]))] + ALL_CARDS[m.card].pretty
    for name, m in zip(_NAMES, ACTION_TO_MOVE)
)

assert len(ACTION_TO_MOVE) == NUM_ACTIONS == 108
assert all(KIND_OFFSET[m.kind] + m.card == a for a, m in enumerate(ACTION_TO_MOVE))


def discard_action(kind: int) -> int:
    """The action that discards card kind ``kind`` (0..52)."""
    return DISCARD_ACTION_BASE + _check_kind(kind)


def go_out_action(kind: int) -> int:
    """The action that goes out discarding card kind ``kind`` (0..52)."""
    return GO_OUT_ACTION_BASE + _check_kind(kind)


def _check_kind(kind: int) -> int:
    if not 0 <= kind < NUM_KINDS:
        raise ValueError(f"card kind must be 0..{NUM_KINDS - 1}, got {kind!r}")
    return int(kind)


def _check_action(action: int) -> int:
    try:
        a = int(action)
    except (TypeError, ValueError, OverflowError):  # OverflowError: an infinite float
        raise ValueError(
            f"an action is an integer 0..{NUM_ACTIONS - 1}, got {reprlib.repr(action)}"
        ) from None
    if a != action or not 0 <= a < NUM_ACTIONS:
        raise ValueError(
            f"an action is an integer 0..{NUM_ACTIONS - 1}, got {reprlib.repr(action)}"
        )
    return a


def action_to_move(action: int) -> Move:
    """The engine move of an action (0..107)."""
    return ACTION_TO_MOVE[_check_action(action)]


def move_to_action(move: Move) -> int:
    """The action of an engine move."""
    return KIND_OFFSET[move.kind] + move.card


def moves_to_actions(moves: Iterable[Move]) -> list[int]:
    """The actions of several moves, in the same order."""
    return [KIND_OFFSET[m.kind] + m.card for m in moves]


def describe(action: int, pretty: bool = False) -> str:
    """An action in words: ``"draw stock"``, ``"take discard"``, ``"discard 7H"``,
    ``"go out, discard KD"`` (``"discard 7♥"`` with ``pretty``). :func:`parse_action` reverses it.
    """
    a = _check_action(action)
    return _PRETTY[a] if pretty else _NAMES[a]


def parse_action(text: str | int) -> int:
    """The action of a move in words (as :func:`describe` writes it, or shorter forms that
    :meth:`Move.parse <tt_env.game.engine.Move.parse>` accepts: ``"take"``, ``"out 7H"``,
    ``"discard 7♥"``), or of an action number (``"57"``, ``57``)."""
    if not isinstance(text, str):
        return _check_action(text)
    stripped = text.strip()
    if stripped.isdigit():  # also "²" or "٣": str.isdigit() is not only 0-9
        if not stripped.isascii() or len(stripped) > 3:
            raise ValueError(
                f"an action is an integer 0..{NUM_ACTIONS - 1}, got {reprlib.repr(stripped)}"
            )
        return _check_action(int(stripped))
    return move_to_action(Move.parse(stripped))


__all__ = [
    "ACTION_TO_MOVE",
    "DISCARD_ACTION_BASE",
    "DRAW_STOCK_ACTION",
    "GO_OUT_ACTION_BASE",
    "KIND_OFFSET",
    "NUM_ACTIONS",
    "TAKE_DISCARD_ACTION",
    "action_to_move",
    "describe",
    "discard_action",
    "go_out_action",
    "move_to_action",
    "moves_to_actions",
    "parse_action",
]
