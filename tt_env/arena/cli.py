"""``tt-arena``: the command line of a tournament (:func:`main`)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from tt_env.agents import BUILTIN_AGENTS
from tt_env.arena.results import TournamentResult, load_results
from tt_env.arena.schedule import (
    DEFAULT_AGENTS,
    DEFAULT_GAMES,
    DEFAULT_MODELS,
    ArenaError,
    GameResult,
    TournamentInterrupted,
)
from tt_env.arena.suite import SUITE_DEALS_ENV
from tt_env.arena.tournament import run_tournament
from tt_env.game.rules import Rules


# ---------------------------------------------------------------------------------- CLI
def default_agents(rules: Rules) -> tuple[list[str], list[str]]:
    """The agents of a plain ``tt-arena`` under ``rules``: the built-in agents and the shipped
    models (:data:`DEFAULT_MODELS`) trained for these rules; and a note for each model left out."""
    from tt_env.agents.learned import LearnedAgent, find_model
    from tt_env.learned.model import ModelError, read_model_file

    specs, notes = list(DEFAULT_AGENTS), []
    for name in DEFAULT_MODELS:
        try:  # loads the whole file: a missing, damaged or unfit model is left out, not played
            path = find_model(name)
            if path is None:
                raise ModelError(f"no model named {name}")
            if read_model_file(path)[0].get("num_players") != rules.num_players:
                continue  # made for tables of another size: not a candidate
            LearnedAgent(str(path), rules.num_players, rules)
        except ModelError as exc:
            notes.append(f"{name} left out: {exc}")
            continue
        specs.append(name)
    return specs, notes


def build_parser() -> argparse.ArgumentParser:
    from tt_env.cli import UNSET, Parser, add_rules_arguments, non_negative_int, positive_int

    parser = Parser(
        prog="tt-arena",
        description="Duplicate tournaments between Three Thirteen agents, with 95% intervals "
        "over deals. With no arguments: the built-in agents "
        f"({', '.join(DEFAULT_AGENTS)}) and the shipped models trained for the rules "
        f"({', '.join(DEFAULT_MODELS)}), {DEFAULT_GAMES} deals, 2 seats (a round "
        "robin of all pairs).",
        epilog=f"Agents: {', '.join(BUILTIN_AGENTS)} (options in parentheses, e.g. "
        "search(samples=16)), module.path:ClassName (options too: "
        "module.path:ClassName(depth=2); imports and runs that module: only name code you "
        "trust), or a saved model's path or name (models/). "
        "Ctrl-C keeps the games finished so far (in the --json file, or in "
        "tt-arena-interrupted-<time>.json) and --resume FILE plays the rest. "
        "Example: tt-arena greedy counting --games 200 --workers 2 --plot scores.png",
    )
    parser.add_argument(
        "agents",
        nargs="*",
        metavar="AGENT",
        help="agents to play (also comma-separated); default: "
        + " ".join(DEFAULT_AGENTS + DEFAULT_MODELS),
    )
    parser.add_argument(
        "--agents",
        dest="agents_opt",
        default=None,
        metavar="LIST",
        help="agents as one comma-separated list (instead of positionals)",
    )
    parser.add_argument(
        "--games",
        "-n",
        type=positive_int,
        default=None,
        help="deals; each is played once per seat rotation at every table "
        f"(default: {DEFAULT_GAMES}; with --resume: the file's, or more)",
    )
    parser.add_argument(
        "--seats",
        type=int,
        default=None,
        help="players per game, 2..8 (default: 2; tables are all combinations of that many agents)",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=None, help="tournament seed (default: 0)"
    )
    parser.add_argument(
        "--workers",
        "-j",
        type=non_negative_int,
        default=0,
        help="processes; 0 = one per CPU core (default); with --ray: the CPUs of a local Ray "
        "instance; results do not depend on it",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the games as Ray tasks (extra ray), with the same results: alone, on a local "
        "Ray instance; 'auto', host:port or ray://host:port: on that cluster, all its CPUs "
        "(give the agents before --ray)",
    )
    parser.add_argument(
        "--episode",
        choices=("game", "round"),
        default=None,
        help="score whole games (default) or only the first round",
    )
    parser.add_argument("--csv", metavar="PATH", help="write the leaderboard as CSV")
    parser.add_argument(
        "--json", metavar="PATH", help="write settings, statistics and every game as JSON"
    )
    parser.add_argument("--plot", metavar="PATH", help="write a PNG chart of the scores")
    parser.add_argument(
        "--replays",
        metavar="DIR",
        help="write every game's record (.json) and replay page (.html, see tt-replay) into DIR "
        "(made if missing), and DIR/index.html linking each game from the pairings",
    )
    parser.add_argument(
        "--resume",
        metavar="FILE",
        help="continue the tournament of a --json FILE (an interrupted run): "
        "play only its missing games, with its agents and settings, and "
        "write the whole result back to FILE (or to --json)",
    )
    parser.add_argument(
        "--suite",
        metavar="NAME",
        help="play the AGENTs against the reference opponents of an evaluation suite, on its "
        "fixed deals, and print their rows beside the published reference rows (no AGENT: the "
        "reference rows only); 'list' lists the suites. Example: tt-arena --suite "
        "standard-2p-v1 mymod:MyAgent --workers 4 (see docs/benchmark.md)",
    )
    parser.add_argument(
        "--suite-deals",
        type=positive_int,
        default=None,
        metavar="N",
        help="quick checks only: play the first N deals of the suite (its figures are over "
        f"all of them); also the environment variable {SUITE_DEALS_ENV}",
    )
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="no progress bar and no table (files only)"
    )
    parser.add_argument("--plain", action="store_true", help="plain-text table (no rich)")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an error, print its traceback too (for an agent that raised: where in its code)",
    )
    add_rules_arguments(parser)
    parser.set_defaults(preset=UNSET)  # to tell a --preset given from the default (--resume)
    return parser


@dataclass
class _Plan:
    """Everything a run of tt-arena needs, checked before any game is played."""

    specs: list[str] = field(default_factory=list)
    rules: Rules = field(default_factory=Rules)
    seats: int = 2
    games: int = DEFAULT_GAMES
    seed: int = 0
    episode: str = "game"
    workers: int = 1
    ray_address: str | None = None  # --ray: play on Ray (see run_tournament)
    done: list[GameResult] = field(default_factory=list)  # games of an interrupted run
    elapsed_before: float = 0.0
    json_path: str | None = None
    replays: str | None = None  # the directory of --replays
    notes: list[str] = field(default_factory=list)  # shipped models left out, and why


def _plan(args: argparse.Namespace) -> _Plan:
    """The run that ``args`` ask for, every argument checked (:class:`ValueError` or
    :class:`ArenaError` naming the first bad one); nothing is played or written."""
    import importlib.util

    from tt_env.cli import UNSET, rules_from_args
    from tt_env.util.files import check_writable

    specs = _given_specs(args)
    plan = _runner_plan(args)
    plan.json_path = args.json
    if args.resume:
        settings_given = _settings_given(args, specs)
        if settings_given:
            raise ArenaError(
                f"--resume plays on with the agents and settings of "
                f"{args.resume}; do not give {', '.join(settings_given)} (only "
                "--games to add deals, --workers, --ray and the output options)"
            )
        settings, plan.done = load_results(args.resume)
        plan.specs, plan.seats = settings["agents"], settings["seats"]
        plan.seed, plan.episode = settings["seed"], settings["episode"]
        try:
            plan.rules = Rules.from_dict(settings["rules"])
        except ValueError as exc:
            raise ArenaError(f"{args.resume}: its rules are damaged ({exc})") from None
        plan.games = settings["games"] if args.games is None else args.games
        if plan.games < settings["games"]:
            raise ArenaError(
                f"--games {plan.games}: {args.resume} has {settings['games']} "
                "deals; --resume may add deals, not drop them"
            )
        plan.elapsed_before = float(settings.get("elapsed_seconds") or 0.0)
        plan.json_path = args.json or args.resume
    else:
        plan.seats = args.seats if args.seats is not None else 2
        plan.seed = args.seed if args.seed is not None else 0
        plan.episode = args.episode or "game"
        plan.games = args.games if args.games is not None else DEFAULT_GAMES
        if args.preset is UNSET:
            args.preset = "standard"
        plan.rules = rules_from_args(args, plan.seats)
        if not specs:
            specs, plan.notes = default_agents(plan.rules)
        plan.specs = specs
    outputs = {}
    for flag, path in (("--json", plan.json_path), ("--csv", args.csv), ("--plot", args.plot)):
        if path:
            target = os.path.realpath(check_writable(path, flag))
            if os.path.exists(target) and not os.path.isfile(target):
                continue  # a terminal, a pipe, a device: written in place, side by side is fine
            if target in outputs:
                raise ArenaError(f"{flag} and {outputs[target]} name the same file {path}")
            outputs[target] = flag
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise ArenaError("--plot needs matplotlib (pip install 'tt_env[arena]')")
    if args.replays is not None:
        plan.replays = _check_replays_dir(args.replays)
    return plan


def _settings_given(args: argparse.Namespace, specs: Sequence[str]) -> list[str]:
    """The options of ``args`` that set the deals or the rules (and ``"agents"`` if ``specs``):
    what ``--resume`` and ``--suite`` take from elsewhere."""
    from tt_env.cli import UNSET, rule_overrides

    return [
        flag
        for flag, value in (
            ("agents", specs),
            ("--seats", args.seats),
            ("--seed", args.seed),
            ("--episode", args.episode),
            ("--preset", None if args.preset is UNSET else 1),
            ("rule options", rule_overrides(args)),
        )
        if value
    ]


def _check_replays_dir(path: str) -> str:
    """``path`` if it is a directory that can be written, or can be made (its parent can);
    :class:`ValueError` naming ``--replays`` otherwise. Makes nothing that stays."""
    from tt_env.util.files import check_directory_writable

    what = f"--replays {path}"
    if path == "":
        raise ValueError("--replays '': not a directory name")
    if os.path.isdir(path):
        check_directory_writable(path, what)
    elif os.path.exists(path):
        raise ValueError(f"{what}: is a file, not a directory")
    else:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise ValueError(f"{what}: no such directory {parent}")
        check_directory_writable(parent, what)
    return path


def _write_outputs(
    result: TournamentResult,
    json_path: str | None,
    csv_path: str | None,
    plot_path: str | None,
    replays: str | None = None,
) -> bool:
    """Write the files asked for (each whole or not at all); False if one could not be."""

    def write_index(directory: str) -> None:  # the replays' index.html
        from tt_env.arena.index import write_tournament_index

        write_tournament_index(result, directory)

    ok = True
    for path, write in (
        (json_path, result.to_json),
        (csv_path, result.to_csv),
        (plot_path, result.plot),
        (replays, write_index),
    ):
        if not path:
            continue
        try:
            write(path)
        except OSError as exc:
            print(
                f"tt-arena: error: could not write {path}: {exc.strerror or exc}", file=sys.stderr
            )
            ok = False
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    """``tt-arena``: run a tournament from the command line; returns the exit status."""
    from tt_env.game.melds import kernel_module

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.suite is not None or args.suite_deals is not None:
        return _suite_main(args)
    try:
        plan = _plan(args)
        for note in plan.notes if not args.quiet else ():
            print(f"tt-arena: {note}", file=sys.stderr)
        result = run_tournament(
            plan.specs,
            plan.rules,
            games=plan.games,
            seed=plan.seed,
            workers=plan.workers,
            seats=plan.seats,
            episode=plan.episode,
            progress=not args.quiet and sys.stderr.isatty(),
            done=plan.done,
            elapsed_before=plan.elapsed_before,
            replays=plan.replays,
            ray_address=plan.ray_address,
            # Not on Ray: this machine's cache says nothing of the nodes that play the games.
            on_start=None if args.quiet or plan.ray_address is not None else kernel_module,
        )
    except (ArenaError, ValueError, ImportError, FileNotFoundError) as exc:
        _report(exc, args.debug)
        return 2
    except OSError as exc:  # a replay of --replays that could not be written (a full disk)
        _report(exc, args.debug)
        return 1
    except TournamentInterrupted as exc:
        return _interrupted(exc.result, plan, args)
    except KeyboardInterrupt:
        print("tt-arena: interrupted before any game was played", file=sys.stderr)
        return 130
    if not args.quiet:
        if args.plain:
            print(result.table())
        else:
            result.print()
    ok = _write_outputs(result, plan.json_path, args.csv, args.plot, plan.replays)
    if ok and plan.replays is not None and not args.quiet:
        print(f"tt-arena: replays in {os.path.join(plan.replays, 'index.html')}")
    return 0 if ok else 1


def _suite_main(args: argparse.Namespace) -> int:
    """``tt-arena --suite NAME AGENT...``: the agents on a suite, beside its reference rows."""
    from tt_env.arena.suite import get_suite, load_reference, play_suite, suites_text
    from tt_env.game.melds import kernel_module
    from tt_env.util.files import check_writable

    try:
        if args.suite is None:
            raise ArenaError("--suite-deals is for a quick check of --suite NAME: give the suite")
        if args.suite == "list":
            print(suites_text())
            return 0
        suite = get_suite(args.suite)
        given = _settings_given(args, [])
        given += [
            flag
            for flag, value in (
                ("--games", args.games),
                ("--resume", args.resume),
                ("--csv", args.csv),
                ("--plot", args.plot),
                ("--replays", args.replays),
            )
            if value is not None
        ]
        if given:
            raise ArenaError(
                f"--suite {suite.name} fixes the deals, seats and rules; do not give "
                f"{', '.join(given)} (only agents, --workers, --ray, --json and the "
                "display options)"
            )
        specs = _given_specs(args)
        reference = load_reference(suite)
        if not specs:
            if not args.quiet:
                print(reference.table())
            return 0
        plan = _runner_plan(args)
        if args.json:
            check_writable(args.json, "--json")
        result = play_suite(
            suite,
            specs,
            deals=args.suite_deals,
            workers=plan.workers,
            progress=not args.quiet and sys.stderr.isatty(),
            ray_address=plan.ray_address,
            on_start=None if args.quiet or plan.ray_address is not None else kernel_module,
            log=None if args.quiet else lambda line: print(f"tt-arena: {line}", file=sys.stderr),
        )
    except (ArenaError, ValueError, ImportError, FileNotFoundError) as exc:
        _report(exc, args.debug)
        return 2
    except TournamentInterrupted:
        print("tt-arena: interrupted; a suite run keeps no partial rows", file=sys.stderr)
        return 130
    except KeyboardInterrupt:
        print("tt-arena: interrupted", file=sys.stderr)
        return 130
    if not args.quiet:
        print(result.table(reference))
    if args.json:
        try:
            result.to_json(args.json)
        except OSError as exc:
            print(
                f"tt-arena: error: could not write {args.json}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return 1
    return 0


def _given_specs(args: argparse.Namespace) -> list[str]:
    """The agents named (positionals and ``--agents``), split at commas."""
    from tt_env.agents import split_specs

    given = [args.agents_opt] if args.agents_opt is not None else []
    given += list(args.agents)
    specs: list[str] = []
    for item in given:
        specs += split_specs(item)
    if given and not specs:
        raise ArenaError(
            f"no agent named in {' '.join(map(repr, given))}: give agent names "
            "such as 'greedy,counting' (or none for the default run)"
        )
    return specs


def _runner_plan(args: argparse.Namespace) -> _Plan:
    """A plan with the processes (``--workers``) and the Ray cluster (``--ray``), checked."""
    plan = _Plan(workers=args.workers if args.workers > 0 else max(1, os.cpu_count() or 1))
    if args.ray is not None:  # before anything else: no game is played without Ray
        from tt_env.util.ray import RayError, check_ray

        try:
            plan.ray_address = check_ray(
                args.ray, "--ray", "--ray", " (the agents go before --ray)"
            )
        except RayError as exc:
            raise ArenaError(str(exc)) from None
    return plan


def _report(exc: BaseException, debug: bool) -> None:
    """The error in one line; with ``--debug`` its traceback first (an agent's, from the
    process that played the game, when an agent raised)."""
    import traceback

    from tt_env.cli import one_line

    if debug:
        details = getattr(exc, "details", "") or "".join(traceback.format_exception(exc))
        print(details.rstrip("\n"), file=sys.stderr)
    print(f"tt-arena: error: {one_line(exc)}", file=sys.stderr)


def _interrupted(result: TournamentResult | None, plan: _Plan, args: argparse.Namespace) -> int:
    """Ctrl-C: show and keep the games finished so far, and say how to play the rest."""
    if result is None:
        print("tt-arena: interrupted before any game finished; nothing written", file=sys.stderr)
        return 130
    json_path = plan.json_path or time.strftime("tt-arena-interrupted-%Y%m%d-%H%M%S.json")
    if not args.quiet:
        if args.plain:
            print(result.table())
        else:
            result.print()
    _write_outputs(result, json_path, args.csv, args.plot, plan.replays)
    if os.path.exists(json_path):
        print(
            f"tt-arena: interrupted: {len(result.results)} of {result.games_expected} games "
            f"finished, kept in {json_path}; play the rest with: tt-arena --resume "
            f"{json_path}",
            file=sys.stderr,
        )
    else:
        print(
            f"tt-arena: interrupted: {len(result.results)} of {result.games_expected} games "
            "finished, but they could not be written",
            file=sys.stderr,
        )
    return 130


if __name__ == "__main__":
    sys.exit(main())
