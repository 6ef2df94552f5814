"""This checkout's compiled kernels beside those of another revision, side by side in one run.

Rates per second and their ratios, on the same inputs. The other revision (by default
``5609f21``, the last one with the numba kernels) is exported from git (``git archive REV | tar
-x``) into a cache folder that stays between runs (``~/.cache/tt_env/bench/<commit>``, or under
``--cache DIR``), so that numba's on-disk cache of its kernels stays there too; ``--tree DIR``
takes a tree already there instead (an exported one or a ``git worktree``). If the tree has
``tt_env/precompile.py``, ``python -m tt_env.precompile`` runs in it first: the first time it
compiles the numba kernels (minutes: 4-10 on a 2-core machine), later it finds them cached
(seconds). Outside a git checkout, or with a revision git does not know (or ``--against none``),
only this checkout's figures are printed.

Two worker processes run this file (``--worker``), one with ``PYTHONPATH`` this checkout, the
other that tree; each checks which ``tt_env`` it imported (an installed one must not shadow
either: both paths are printed in the header, with each side's kernel status and its cold start:
the import, and the first ``min_penalty``). The driver sends each measurement (pickled, over the
workers' stdin and stdout) to one worker then the other, alternately (the first side changes
every round), ``--repeat`` times, and keeps each side's best rate: drift of a shared machine hits
both. The workers use only public names present in both revisions, on the same inputs made here,
run one BLAS thread (and one torch thread, should torch be imported), and empty the solver's and
the go-out check's result caches before every timed pass (their per-rule tables stay, filled by
the warm-up). The figures, per second:

* solver (as ``bench_solver.py``), under the default rules and under 2 decks + 2 jokers per deck,
  wild rank 13, after ``--warmup`` other hands: ``min_penalty`` (one call per hand, counts as a
  tuple), ``min_penalties`` (one call, an ``(n, 53)`` uint8 array), ``discard_penalties`` (14
  cards, a quarter of the hands), ``draw_penalties`` (13 cards, a twentieth), ``solve`` (card
  lists), and the go-out check the engine calls after every draw (``go_out_discards``, 14 cards
  as the engine's bytearray); ``--hands`` fresh random hands per pass, new ones every round (the
  same for both sides);
* decisions (as ``bench_valuation.py``), 2 players, standard rules: ``--positions`` positions
  recorded here from seeded games (counting against greedy, the seat to move), shipped to both
  workers: ``CardFeatures`` vectors, then decisions (``act``) of ``counting``, ``greedy`` (also
  split by phase), ``search`` (a thirtieth of the positions), ``search(samples=8)`` (a third) and
  the shipped model ``models/distilled_2p_standard.npz``; each agent built once with seed
  ``--seed``, warmed, and reseeded (``reset(seed)``) before every pass;
* env (as ``bench_env.py``): agent-steps of ``three_thirteen_v0.raw_env`` under random legal
  play (its ``play_aec``), 2 and 4 players, ``--steps`` each.

Where both must answer the same, the first round's results are compared: "equal" counts the hands
(solver values or arrangements) and the positions (feature vectors, decisions: same seeds) where
they do; the numba and C kernels are meant to be bit-identical, but for the search's decisions:
the C search deals from numpy's generator (``tt_env/util/rng.h``), numba's from its own, so the
two differ where the deals decide. ``--quick`` takes small sizes (a smoke run of seconds);
``--only`` some of ``solver,valuation,env``.

    python benchmarks/bench_kernels.py                  # against 5609f21, exported and cached
    python benchmarks/bench_kernels.py --quick          # a smoke run
    python benchmarks/bench_kernels.py --tree ../ref    # a tree of the revision already there
"""

from __future__ import annotations

import argparse
import os
import pickle
import shutil
import subprocess
import sys
import time
import traceback
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]  # this checkout
HERE = Path(__file__).resolve().parent
AGAINST = "5609f21"  # the last commit with the numba kernels
MODEL = "models/distilled_2p_standard.npz"
WILD_RANK = 13
SECTIONS = ("solver", "valuation", "env")
SOLVER_RULES = {  # Rules(**fields) in each worker
    "default rules": {},
    "2 decks + 2 jokers/deck": {"num_decks": 2, "jokers_per_deck": 2},
}
SOLVER_CALLS = (  # (label, method, share of the pass's hands, hand size)
    ("min_penalty", "min_penalty", 1, 14),
    ("min_penalties (one call)", "min_penalties", 1, 14),
    ("discard_penalties (14 cards)", "discard_penalties", 4, 14),
    ("draw_penalties (13 cards)", "draw_penalties", 20, 13),
    ("solve", "solve", 1, 14),
    ("go_out_discards (14 cards)", "go_out_discards", 1, 14),
)
DECIDERS = (  # (label, agent spec or "features", positions: "all"/"draw"/"discard"/a fraction)
    ("CardFeatures (lookahead on)", "features", "all"),
    ("counting decision", "counting", "all"),
    ("  counting, draw phase", "counting", "draw"),
    ("  counting, discard phase", "counting", "discard"),
    ("greedy decision", "greedy", "all"),
    ("  greedy, draw phase", "greedy", "draw"),
    ("  greedy, discard phase", "greedy", "discard"),
    ("search decision", "search", 30),
    ("search(samples=8) decision", "search(samples=8)", 3),
    ("distilled_2p_standard decision", MODEL, "all"),
)
ENV_PLAYERS = (2, 4)
SIZES = {  # the defaults, and those of --quick
    False: {"hands": 10_000, "warmup": 20_000, "positions": 3000, "steps": 30_000, "repeat": 3},
    True: {"hands": 300, "warmup": 300, "positions": 90, "steps": 1500, "repeat": 2},
}


# ------------------------------------------------------------------------------- the worker
class Worker:
    """What a worker process does with each request: ``handle(kind, params)``. Only public
    names of ``tt_env`` that both revisions have, imported after the worker checked which
    ``tt_env`` it has."""

    def __init__(self) -> None:
        self.data: dict = {}
        self.warm: set = set()
        self.rules_of: dict = {}
        self.hands: dict = {}
        self.agents: dict = {}

    def handle(self, kind: str, params: dict):
        return getattr(self, "do_" + kind)(**params)

    def do_hello(self, root: str) -> dict:
        """Import tt_env (it must be the one under ``root``), time the first min_penalty."""
        start = time.perf_counter()
        import tt_env

        if not Path(tt_env.__file__).resolve().is_relative_to(Path(root).resolve()):
            raise RuntimeError(f"imported {tt_env.__file__}, not the tt_env of {root}")
        from tt_env.game import going_out, melds
        from tt_env.game.rules import Rules

        imported = time.perf_counter()
        melds.min_penalty(tuple([1] * 14 + [0] * 39), WILD_RANK, Rules())
        first = time.perf_counter()
        saved = list(sys.path)
        sys.path.insert(0, str(HERE))
        try:
            from bench_env import play_aec  # imports only tt_env.env (both revisions have it)
        finally:
            sys.path[:] = saved
        self.melds, self.going_out, self.Rules, self.play_aec = melds, going_out, Rules, play_aec
        return {
            "file": tt_env.__file__,
            "status": melds.kernel_status(),
            "import": imported - start,
            "first": first - imported,
        }

    def do_load(self, **data) -> None:
        self.data = data

    def clear(self) -> None:
        self.melds.clear_cache()
        self.going_out.clear_cache()

    def rules(self, fields: tuple) -> object:
        if fields not in self.rules_of:
            self.rules_of[fields] = self.Rules(**dict(fields))
        return self.rules_of[fields]

    # ---------------------------------------------------------------------- solver
    def solver_items(self, config: str, method: str, share: int, size: int, index: int):
        key = (config, method, share, size, index)
        if key not in self.hands:
            counts = self.data["hands"][config, size][index]
            counts = counts[: max(1, len(counts) // share)]
            if method == "min_penalties":
                items = counts
            elif method == "solve":
                items = [np.repeat(np.arange(53), row).tolist() for row in counts]
            elif method == "go_out_discards":
                items = [bytearray(row.tobytes()) for row in counts]
            else:
                items = [tuple(row) for row in counts.tolist()]
            self.hands[key] = items
        return self.hands[key]

    def warm_solver(self, config: str, rules) -> None:
        """Fill the per-rule tables (and load the compiled code) on other hands, as
        ``bench_solver.warm`` does."""
        if config in self.warm:
            return
        self.warm.add(config)
        melds, w = self.melds, WILD_RANK
        hands = [tuple(row) for row in self.data["warmup"][config].tolist()]
        for h in hands:
            melds.min_penalty(h, w, rules)
            melds.discard_penalties(h, w, rules)
            self.going_out.go_out_discards(h, w, rules)
        for h in hands[:50]:
            melds.solve([k for k, c in enumerate(h) for _ in range(c)], w, rules)
            less = list(h)
            less[next(k for k, c in enumerate(h) if c)] -= 1
            melds.draw_penalties(tuple(less), w, rules)
        melds.min_penalties(np.array(hands[:50], np.uint8), w, rules)

    def do_solver(self, config, method, share, size, index, values) -> dict:
        rules = self.rules(tuple(sorted(SOLVER_RULES[config].items())))
        self.warm_solver(config, rules)
        items = self.solver_items(config, method, share, size, index)
        w = WILD_RANK
        module = self.going_out if method == "go_out_discards" else self.melds
        call = getattr(module, method)
        self.clear()
        if method == "min_penalties":
            start = time.perf_counter()
            call(items, w, rules)
        else:  # one call per item, nothing of the harness between (as bench_solver.each)
            start = time.perf_counter()
            for item in items:
                call(item, w, rules)
        rate = len(items) / (time.perf_counter() - start)
        found = None
        if values:
            self.clear()
            if method == "min_penalties":
                found = call(items, w, rules).tolist()
            else:
                found = [_plain(call(item, w, rules)) for item in items]
        return {"rate": rate, "values": found}

    # ------------------------------------------------------------------- decisions
    def agent(self, spec: str):
        """The agent (or the feature transform) of ``spec``, built once and warmed."""
        if spec not in self.agents:
            from tt_env.agents import make_agent
            from tt_env.learned.features import CardFeatures

            rules = self.rules((("num_players", 2),))
            seed = self.data["seed"]
            if spec == "features":
                agent = CardFeatures(rules)
                for obs, _ in self.data["positions"][:20]:
                    agent(obs)
            else:
                path = ROOT / spec
                agent = make_agent(str(path) if path.exists() else spec, 2, rules, seed)
                for obs, mask in self.data["positions"][:20]:
                    agent.act(obs, mask)
            if "torch" in sys.modules:  # a learned agent needs none: in case one imports it
                sys.modules["torch"].set_num_threads(1)
            self.agents[spec] = agent
        return self.agents[spec]

    def do_decide(self, spec, which, index, values) -> dict:
        positions = self.data["positions"]
        if which == "draw":
            items = [p for p in positions if p[1][0] or p[1][1]]
        elif which == "discard":
            items = [p for p in positions if not (p[1][0] or p[1][1])]
        elif which == "all":
            items = positions
        else:
            items = positions[: max(1, len(positions) // which)]
        agent = self.agent(spec)
        if spec == "features":
            self.clear()
            start = time.perf_counter()
            out = [agent(obs) for obs, _ in items]
            rate = len(items) / (time.perf_counter() - start)
            return {"rate": rate, "values": np.stack(out) if values else None}
        act = agent.act
        agent.reset(self.data["seed"])
        self.clear()
        start = time.perf_counter()
        out = [act(obs, mask) for obs, mask in items]
        rate = len(items) / (time.perf_counter() - start)
        return {"rate": rate, "values": [int(a) for a in out] if values else None}

    # ------------------------------------------------------------------------- env
    def do_env(self, players, steps, index, values) -> dict:
        from tt_env import three_thirteen_v0

        seed = self.data["seed"]
        if ("env", players) not in self.warm:  # tables built, compiled code loaded
            self.warm.add(("env", players))
            self.play_aec(three_thirteen_v0.raw_env(num_players=players), 2000, seed + 1)
        self.clear()
        rate = self.play_aec(three_thirteen_v0.raw_env(num_players=players), steps, seed)
        return {"rate": rate, "values": None}


def _plain(result):
    """A solver's answer as plain data, to compare across processes."""
    if isinstance(result, dict):
        return tuple(sorted(result.items()))
    if hasattr(result, "points"):  # an Arrangement
        melds = tuple(tuple(map(int, m)) for m in result.melds)
        return (result.points, melds, tuple(map(int, result.deadwood)))
    return result


def worker_main() -> None:
    """Answer pickled ``(kind, params)`` requests from stdin with pickled ``(ok, result)``
    replies on stdout; whatever the package prints goes to stderr."""
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    requests = sys.stdin.buffer
    worker = Worker()
    while True:
        try:
            kind, params = pickle.load(requests)
        except EOFError:
            return
        try:
            reply = (True, worker.handle(kind, params))
        except Exception:  # noqa: BLE001 - reported by the driver, the worker goes on
            reply = (False, traceback.format_exc())
        pickle.dump(reply, replies, protocol=pickle.HIGHEST_PROTOCOL)
        replies.flush()


# ------------------------------------------------------------------------------- the driver
class Side:
    """One worker process: a tree of tt_env, its label, the pipe to it."""

    def __init__(self, label: str, tree: Path) -> None:
        self.label, self.tree = label, tree
        env = dict(os.environ, PYTHONPATH=str(tree))
        env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        self.proc = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
        )

    def ask(self, kind: str, **params):
        """The worker's result, or raises RuntimeError with its traceback."""
        pickle.dump((kind, params), self.proc.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        self.proc.stdin.flush()
        try:
            ok, result = pickle.load(self.proc.stdout)
        except EOFError:
            raise RuntimeError(f"the worker of {self.label} stopped") from None
        if not ok:
            raise RuntimeError(result)
        return result

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait()


def git(*args: str) -> str | None:
    """``git -C <this checkout> args``'s output, or None when git fails."""
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), *args], capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return out.stdout.strip()


def other_tree(args) -> tuple[str, Path] | str:
    """(label, tree) of the revision to compare with, or a string saying why there is none."""
    if args.tree is not None:
        tree = Path(args.tree).resolve()
        if not (tree / "tt_env" / "__init__.py").exists():
            sys.exit(f"--tree {tree}: no tt_env package there")
        try:
            out = subprocess.run(
                ["git", "-C", str(tree), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                check=True,
            )
            label = out.stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            label = tree.name
        return label, tree
    if args.against.lower() == "none":
        return "--against none"
    if git("rev-parse", "--is-inside-work-tree") is None:
        return f"{ROOT} is not a git checkout"
    commit = git("rev-parse", "--verify", "--quiet", f"{args.against}^{{commit}}")
    if not commit:
        return f"git does not know the revision {args.against!r}"
    cache = Path(args.cache) if args.cache else _cache_home() / "tt_env" / "bench"
    tree = cache / commit[:12]
    if not tree.exists():
        print(f"exporting {args.against} ({commit[:12]}) to {tree}", file=sys.stderr)
        partial = cache / f"{commit[:12]}.partial-{os.getpid()}"
        partial.mkdir(parents=True)
        archive = subprocess.Popen(
            ["git", "-C", str(ROOT), "archive", commit], stdout=subprocess.PIPE
        )
        subprocess.run(["tar", "-x", "-C", str(partial)], stdin=archive.stdout, check=True)
        archive.stdout.close()
        if archive.wait() != 0:
            shutil.rmtree(partial, ignore_errors=True)
            return f"git archive {commit[:12]} failed"
        try:
            partial.rename(tree)
        except OSError:  # another run exported it meanwhile
            shutil.rmtree(partial, ignore_errors=True)
    return args.against, tree


def _cache_home() -> Path:
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")


def precompile(label: str, tree: Path) -> None:
    """``python -m tt_env.precompile`` in ``tree``, if it has one (its output to stderr)."""
    if not (tree / "tt_env" / "precompile.py").exists():
        return
    print(
        f"{label}: python -m tt_env.precompile in {tree} (the first time: numba compiles the "
        "kernels, 4-10 minutes on 2 cores; later runs find them cached: seconds)",
        file=sys.stderr,
        flush=True,
    )
    env = dict(os.environ, PYTHONPATH=str(tree))
    done = subprocess.run(
        [sys.executable, "-m", "tt_env.precompile"], cwd=tree, env=env, stdout=sys.stderr
    )
    if done.returncode != 0:
        print(f"{label}: the precompile failed (exit {done.returncode}); going on", file=sys.stderr)


def make_inputs(args, sections) -> dict:
    """The inputs both sides get: random hands per solver configuration and round, the
    warm-up hands, the recorded positions (this checkout's tt_env, imported here)."""
    from bench_solver import random_hands
    from bench_valuation import record_positions

    from tt_env.game.rules import Rules

    data = {"seed": args.seed, "hands": {}, "warmup": {}, "positions": []}
    if "solver" in sections:
        for config, fields in SOLVER_RULES.items():
            rules = Rules(**fields)
            for size in (14, 13):
                data["hands"][config, size] = [
                    np.array(
                        random_hands(rules, args.hands, size, args.seed + 14 - size + 10_000 * i),
                        np.uint8,
                    )
                    for i in range(args.repeat)
                ]
            warmup = random_hands(rules, args.warmup, 14, args.seed + 1000)
            data["warmup"][config] = np.array(warmup, np.uint8)
    if "valuation" in sections:
        positions = record_positions(Rules(num_players=2), args.positions, args.seed)
        data["positions"] = [(obs.astype(np.float32), mask) for obs, mask in positions]
    return data


def plan(args, sections) -> list[tuple[str, str, str, str, dict]]:
    """The measurements: (section title, its short name, row label, request kind, parameters)."""
    rows = []
    if "solver" in sections:
        for config in SOLVER_RULES:
            title = f"solver, {config}, wild rank {WILD_RANK}, {args.hands} hands a pass"
            for label, method, share, size in SOLVER_CALLS:
                params = {"config": config, "method": method, "share": share, "size": size}
                rows.append((title, f"solver, {config}", label, "solver", params))
    if "valuation" in sections:
        title = f"decisions, 2 players, standard rules, {args.positions} positions"
        for label, spec, which in DECIDERS:
            if spec == MODEL and not (ROOT / MODEL).exists():
                continue
            if isinstance(which, int):
                label += f" ({max(1, args.positions // which)} positions)"
            rows.append((title, "decisions", label, "decide", {"spec": spec, "which": which}))
    if "env" in sections:
        title = f"env, random legal play, {args.steps} agent-steps a pass"
        for players in ENV_PLAYERS:
            params = {"players": players, "steps": args.steps}
            rows.append((title, "env", f"raw_env, {players} players", "env", params))
    return rows


def compare(a, b) -> str:
    """How many of the first round's results are equal on both sides: "n/n"."""
    if a is None or b is None:
        return ""
    if isinstance(a, np.ndarray):  # feature vectors, one row per position
        same = (a == b).all(axis=1) if a.shape == b.shape else np.zeros(len(a), bool)
        text = f"{int(same.sum())}/{len(a)}"
        if a.shape == b.shape and not same.all():
            text += f" (max |diff| {float(np.abs(a - b).max()):.3g})"
        return text
    return f"{sum(x == y for x, y in zip(a, b))}/{len(a)}"


def run(sides: list[Side], rows, repeat: int) -> list[tuple]:
    """Each measurement ``repeat`` times on every side, alternately (who goes first changes
    every round); returns (title, label, best rate per side, equal) rows."""
    results = []
    for i, (title, group, label, kind, params) in enumerate(rows, 1):
        best: list[float | str] = [0.0] * len(sides)
        found = [None] * len(sides)
        for r in range(repeat):
            order = range(len(sides)) if r % 2 == 0 else reversed(range(len(sides)))
            for s in order:
                if isinstance(best[s], str):
                    continue
                try:
                    reply = sides[s].ask(kind, **params, index=r, values=r == 0)
                except RuntimeError as exc:
                    best[s] = "failed: " + str(exc).strip().splitlines()[-1]
                    continue
                best[s] = max(best[s], reply["rate"])
                if r == 0:
                    found[s] = reply["values"]
        equal = compare(*found) if len(sides) == 2 else ""
        results.append((title, label, best, equal))
        rates = " vs ".join(f"{b:,.0f}/s" if isinstance(b, float) else b for b in best)
        if len(sides) == 2 and all(isinstance(b, float) for b in best):
            rates += f" ({best[0] / best[1]:.2f}x)"
        print(f"[{i}/{len(rows)}] {group}: {label.strip()}: {rates}", file=sys.stderr, flush=True)
    return results


def report(sides: list[Side], results) -> None:
    """The table: per second, each side, the ratio today/other, the results equal."""
    head = "".join(f"{s.label:>14}" for s in sides)
    if len(sides) == 2:
        head += f"{'ratio':>8}  equal"
    title = None
    ratios = []
    for t, label, best, equal in results:
        if t != title:
            title = t
            print(f"{title} (per second):")
            print(f"  {'':40}{head}".rstrip())
        cells = "".join(f"{b:>14,.0f}" if isinstance(b, float) else f"  {b}" for b in best)
        if len(sides) == 2 and all(isinstance(b, float) for b in best):
            ratios.append((best[0] / best[1], label.strip()))
            cells += f"{best[0] / best[1]:>7.2f}x  {equal}"
        print(f"  {label:40}{cells}".rstrip())
    if ratios:
        low, which = min(ratios)
        below = sum(r < 1 for r, _ in ratios)
        print(
            f"lowest ratio {low:.2f}x ({which}); {below} of {len(ratios)} figures below 1 "
            f"({sides[0].label} / {sides[1].label})"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--against",
        default=AGAINST,
        metavar="REV",
        help=f"the revision to compare with (default {AGAINST}; 'none': this checkout only)",
    )
    parser.add_argument(
        "--tree", metavar="DIR", help="a tree of that revision already there (no export)"
    )
    parser.add_argument(
        "--cache", metavar="DIR", help="where exported trees stay (default ~/.cache/tt_env/bench)"
    )
    parser.add_argument("--hands", type=int, help="solver: hands per pass (default 10000)")
    parser.add_argument("--warmup", type=int, help="solver: hands solved first (default 20000)")
    parser.add_argument("--positions", type=int, help="decisions: positions (default 3000)")
    parser.add_argument("--steps", type=int, help="env: agent-steps per pass (default 30000)")
    parser.add_argument("--repeat", type=int, help="passes per figure and side (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of hands, games and agents")
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke run")
    parser.add_argument(
        "--only", default=",".join(SECTIONS), help=f"some of {','.join(SECTIONS)} (default all)"
    )
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker_main()
        return
    for name, value in SIZES[args.quick].items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    sections = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(sections) - set(SECTIONS)
    if unknown:
        parser.error(f"--only: unknown {', '.join(sorted(unknown))} (of {', '.join(SECTIONS)})")
    sys.path[:0] = [str(ROOT), str(HERE)]  # this checkout's tt_env and benchmarks, here only

    other = other_tree(args)
    today = "today"
    described = git("describe", "--always", "--dirty")
    trees = [(today, ROOT)]
    if isinstance(other, str):
        print(f"{other}: this checkout's figures only")
    else:
        precompile(*other)
        trees.append(other)
    sides = [Side(label, tree) for label, tree in trees]
    try:
        try:
            hello = [side.ask("hello", root=str(side.tree)) for side in sides]
        except RuntimeError as exc:
            sys.exit(f"a worker could not start: {str(exc).strip().splitlines()[-1]}")
        print(
            f"tt_env kernels side by side in one run: best of {args.repeat} passes per figure "
            f"and side, the sides alternating; seed {args.seed}"
        )
        for side, h in zip(sides, hello):
            what = f" ({described}, this checkout)" if side.label == today and described else ""
            print(
                f"  {side.label}: {h['file']}{what}: {h['status']}; "
                f"import {h['import']:.2f} s, first min_penalty {h['first']:.2f} s"
            )
        start = time.perf_counter()
        data = make_inputs(args, sections)
        print(f"inputs made in {time.perf_counter() - start:.1f} s", file=sys.stderr)
        for side in sides:
            side.ask("load", **data)
        results = run(sides, plan(args, sections), args.repeat)
    finally:
        for side in sides:
            side.close()
    report(sides, results)


if __name__ == "__main__":
    main()
