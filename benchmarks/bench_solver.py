"""How fast is the meld solver? Calls per second of the compiled kernel and of the Python
solver, side by side in one run, and against OpenSpiel's C++ gin rummy ``min_deadwood``.

Every figure is measured on fresh random hands (the top of a freshly shuffled deck, a fixed
numpy seed), new hands for every timed pass: each solver keeps tables it fills as it meets
hands (suit patterns, the pool of wilds; the compiled kernel's memo for several decks), and a
pass over hands already seen would be answered partly from them. The result caches are
cleared before every pass as well. What stays are the tables filled by ``--warmup`` hands of
another seed first: enough of them (the default 20,000) that the pure-Python solvers' tables
have stopped growing, which is their state in a game or a training run (with 3,000 the solver
of ``4e39b0f`` ran 36-60,000 hands/s, with 20,000 and more about 85,000). The "Python" column
is the same package with the compiled kernel switched off
(``tt_env.game.melds._kernel.set_enabled(False)``, as ``TT_ENV_NO_KERNEL=1`` does). Each figure is
the best of ``--repeat`` passes.

* ``min_penalty``: one call per hand (counts as a tuple, as the engine and agents pass them);
* ``min_penalties``: one call for all the hands (an array), compiled only;
* ``discard_penalties``: the fewest penalty after each discard of a 14-card hand (after a draw);
* ``draw_penalties``: the fewest penalty after drawing each of the 53 kinds and the best
  discard, for a 13-card hand (what an agent weighs before a draw);
* ``solve``: the arrangement (melds, deadwood);
* OpenSpiel: the same 14-card hands with no wild card (kings left out of the deck, kings
  wild), its ``GinRummyUtils.min_deadwood`` beside ``min_penalty``; the values are compared;
* ``--then REV``: the solver of an earlier commit (by default ``4e39b0f``, the pure-Python
  ``melds.py`` as the issue "Decisions in microseconds" found it), loaded from the git history
  into this process and timed on the same hands beside today's, its values compared; skipped
  outside a git checkout.

The first lines give the compiled kernel's cold costs in a fresh process: importing the package
and the first ``min_penalty`` (loading the extension module built at install, and building the
suit tables). ``benchmarks/bench_kernels.py`` times the kernels against an earlier revision's
(by default the numba kernels of ``5609f21``) side by side.

    python benchmarks/bench_solver.py --hands 10000 --seed 0
"""

from __future__ import annotations

import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from tt_env.game import going_out, melds  # noqa: E402
from tt_env.game.cards import make_deck, to_counts  # noqa: E402
from tt_env.game.melds import _kernel  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402

CONFIGS = {
    "default rules": Rules(),
    "2 decks + 2 jokers/deck": Rules(num_decks=2, jokers_per_deck=2),
    "one-wild preset (a cap: the capped search)": Rules.preset("one-wild"),
}

COLD = """
import time
t0 = time.perf_counter()
from tt_env.game.melds import min_penalty, _kernel
from tt_env.game.rules import Rules
t1 = time.perf_counter()
min_penalty(tuple([1] * 14 + [0] * 39), 13, Rules())
t2 = time.perf_counter()
print(f"{t1 - t0:.2f} {t2 - t1:.2f} {_kernel.status()}")
"""


def cold_costs() -> None:
    """Import and first-call times in a fresh process (the kernel's one-time costs)."""
    root = str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run(
        [sys.executable, "-c", COLD], env=env, capture_output=True, text=True, check=True
    ).stdout.split()
    print(
        f"  cold start: import {out[0]} s, first min_penalty {out[1]} s "
        "(the extension module loaded, the suit tables built)"
    )


def random_hands(rules: Rules, n: int, size: int, seed: int, deck=None) -> list[tuple]:
    rng = np.random.default_rng(seed)
    deck = make_deck(rules.decks, rules.jokers_per_deck) if deck is None else deck
    return [to_counts(deck[i] for i in rng.permutation(len(deck))[:size]) for _ in range(n)]


def clear_result_caches() -> None:
    melds.clear_cache()
    going_out.clear_cache()


def passes_of(rules: Rules, n: int, size: int, seed: int, repeat: int, deck=None) -> list:
    """``repeat`` lists of ``n`` fresh hands, one per timed pass (seeds ``seed``,
    ``seed + 10000``, ...: apart from the warm-up's ``seed + 1000``)."""
    return [random_hands(rules, n, size, seed + 10_000 * i, deck) for i in range(repeat)]


def best_rate(fn, passes, clear=clear_result_caches) -> float:
    """Items per second of ``fn`` over each list of ``passes`` (fresh items each), the best of
    them, ``clear()`` called before each (the result caches emptied)."""
    best = 0.0
    for items in passes:
        clear()
        start = time.perf_counter()
        fn(items)
        best = max(best, len(items) / (time.perf_counter() - start))
    return best


def each(call, *args):
    """One call per item, ``call(item)`` or, with two ``args``, ``call(item, *args)``, with no
    Python layer of the harness between (a lambda around each call would cost the fast solver
    a tenth of its time)."""
    if not args:

        def run(items):
            for item in items:
                call(item)

    else:
        a, b = args

        def run(items):
            for item in items:
                call(item, a, b)

    return run


def cards_of(hands) -> list[list[int]]:
    """The hands (counts) as lists of card kinds, as solve() takes them."""
    return [[k for k, c in enumerate(h) for _ in range(c)] for h in hands]


def measure(rules: Rules, w: int, passes14, passes13) -> dict[str, float]:
    """The figures of one configuration, each over the passes' fresh hands (a quarter of them
    for discard_penalties, a twentieth for draw_penalties)."""
    figures = {
        "min_penalty": best_rate(each(melds.min_penalty, w, rules), passes14),
        "discard_penalties (14 cards)": best_rate(
            each(melds.discard_penalties, w, rules),
            [hands[: max(1, len(hands) // 4)] for hands in passes14],
        ),
        "draw_penalties (13 cards)": best_rate(
            each(melds.draw_penalties, w, rules),
            [hands[: max(1, len(hands) // 20)] for hands in passes13],
        ),
        "solve": best_rate(each(melds.solve, w, rules), [cards_of(h) for h in passes14]),
    }
    if _kernel.kernel_module() is not None:
        figures["min_penalties (one call)"] = best_rate(
            lambda a: melds.min_penalties(a, w, rules),
            [np.array(hands, np.uint8) for hands in passes14],
        )
    return figures


def warm(rules: Rules, w: int, hands) -> None:
    """Fill the per-rule tables (and load every compiled function) before timing."""
    for h in hands:
        melds.min_penalty(h, w, rules)
        melds.discard_penalties(h, w, rules)
    for h in hands[:50]:
        melds.solve([k for k, c in enumerate(h) for _ in range(c)], w, rules)
        less = list(h)
        less[next(k for k, c in enumerate(h) if c)] -= 1
        melds.draw_penalties(tuple(less), w, rules)
    melds.min_penalties(np.array(hands[:50], np.uint8), w, rules)


def openspiel_figures(hands: int, seed: int, repeat: int) -> None:
    try:
        import pyspiel
    except ImportError:
        print("OpenSpiel: not installed (the bench extra), skipped")
        return
    utils = pyspiel.gin_rummy.GinRummyUtils(13, 4, 10)
    rules = Rules()
    # No wild card: the deck without kings, kings wild. OpenSpiel's card c is rank c % 13 of
    # suit c // 13, ace low, court cards 10: tt_env's card kinds and penalties.
    deck = [c for c in make_deck(1, 0) if c.rank != 13]
    passes = passes_of(rules, hands, 14, seed, repeat, deck)
    counts = [h for hands_ in passes for h in hands_]
    mine = melds.min_penalties(np.array(counts, np.uint8), 13, rules)
    theirs = np.array([utils.min_deadwood(h) for h in cards_of(counts)])
    print(
        f"OpenSpiel comparison: {len(counts)} 14-card hands without wild cards; values equal: "
        f"{int((mine == theirs).sum())}/{len(counts)}"
    )
    rows = [
        (
            "OpenSpiel min_deadwood (C++, per call)",
            best_rate(each(utils.min_deadwood), [cards_of(h) for h in passes]),
        ),
        (
            "tt_env min_penalty (per call)",
            best_rate(each(melds.min_penalty, 13, rules), passes),
        ),
        (
            "tt_env min_penalties (one call)",
            best_rate(
                lambda a: melds.min_penalties(a, 13, rules),
                [np.array(h, np.uint8) for h in passes],
            ),
        ),
    ]
    base = rows[0][1]
    for label, rate in rows:
        print(f"  {label:44}{rate:>12,.0f}/s{rate / base:>8.2f}x")


THEN = "4e39b0f"  # the last commit with the single-module, pure-Python solver (melds.py)


def solver_at(rev: str):
    """The ``melds`` and ``rules`` modules of commit ``rev``, loaded as the package
    ``tt_env_at_<rev>`` (its ``cards``, ``rules`` and ``melds`` modules from the git history),
    or a string saying why not."""
    import importlib

    root = Path(__file__).resolve().parents[1]
    name = "tt_env_at_" + "".join(ch for ch in rev if ch.isalnum())
    temporary = tempfile.mkdtemp()
    atexit.register(shutil.rmtree, temporary, ignore_errors=True)
    folder = Path(temporary) / name
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    for module in ("cards", "rules", "melds"):
        try:
            text = subprocess.run(
                ["git", "-C", str(root), "show", f"{rev}:tt_env/{module}.py"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        except (OSError, subprocess.CalledProcessError) as exc:
            why = getattr(exc, "stderr", "") or str(exc)
            return f"no tt_env/{module}.py at {rev} ({why.strip().splitlines()[-1]})"
        (folder / f"{module}.py").write_text(text)
    sys.path.insert(0, str(folder.parent))
    try:
        return importlib.import_module(f"{name}.melds"), importlib.import_module(f"{name}.rules")
    finally:
        sys.path.remove(str(folder.parent))


def then_figures(rev: str, hands: int, seed: int, warmup: int, w: int, repeat: int) -> None:
    """Today's solver (compiled) beside the solver of commit ``rev`` on the same hands."""
    loaded = solver_at(rev)
    if isinstance(loaded, str):
        print(f"against {rev}: skipped: {loaded}")
        return
    then, then_rules = loaded
    print(f"against the solver of {rev} (loaded from git into this process), same hands:")
    for name, rules in CONFIGS.items():
        if rules.max_wilds_per_meld is None:  # with a cap both answer in Python
            old = then_rules.Rules(num_decks=rules.num_decks, jokers_per_deck=rules.jokers_per_deck)
            then_config(name, rev, (melds, rules), (then, old), hands, seed, warmup, w, repeat)


def then_config(name, rev, today, past, hands, seed, warmup, w, repeat) -> None:
    """One configuration of :func:`then_figures`: ``today`` and ``past`` are (melds module,
    its Rules), timed alternately on the same fresh hands from cold result caches, after the
    same warm-up on other hands."""
    rules = today[1]
    passes = passes_of(rules, hands, 14, seed, repeat)
    warm_hands = random_hands(rules, warmup, 14, seed + 1000)
    for module, r in (today, past):  # the tables of both, filled on other hands
        for h in warm_hands:
            module.min_penalty(h, w, r)
        for h in warm_hands[:200]:
            module.solve(cards_of([h])[0], w, r)
            module.discard_penalties(h, w, r)
    every = [h for hands_ in passes for h in hands_]
    same = sum(
        today[0].min_penalty(h, w, today[1]) == past[0].min_penalty(h, w, past[1]) for h in every
    )

    def rate(side, method, items) -> float:
        module, r = side
        clear = clear_result_caches if module is melds else module.clear_cache
        return best_rate(each(getattr(module, method), w, r), items, clear)

    calls = [
        ("min_penalty", "min_penalty", passes),
        (
            "discard_penalties (14 cards)",
            "discard_penalties",
            [h[: max(1, len(h) // 4)] for h in passes],
        ),
        ("solve", "solve", [cards_of(h) for h in passes]),
    ]
    print(f"{name} (min_penalty values equal: {same}/{len(every)}):{'today':>14}{rev:>12}")
    for label, method, items in calls:
        now, then = rate(today, method, items), rate(past, method, items)
        print(f"  {label:36}{now:>12,.0f}{then:>12,.0f}{now / then:>8.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10000, help="hands per figure")
    parser.add_argument("--seed", type=int, default=0, help="seed of the timed hands")
    parser.add_argument("--wild-rank", type=int, default=13, help="wild rank of the round")
    parser.add_argument(
        "--warmup", type=int, default=20000, help="hands solved first (the solvers' tables)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed passes per figure")
    parser.add_argument(
        "--then",
        default=THEN,
        metavar="REV",
        help=f"also time the solver of this commit (default {THEN}; 'none' to skip)",
    )
    args = parser.parse_args()
    w = args.wild_rank
    print(
        f"{_kernel.status()}; {args.hands} fresh random hands per pass (seed {args.seed}), "
        f"{args.warmup} solved first, wild rank {w}; result caches cleared before every "
        f"pass; best of {args.repeat} passes"
    )
    cold_costs()
    for name, rules in CONFIGS.items():
        passes14 = passes_of(rules, args.hands, 14, args.seed, args.repeat)
        passes13 = passes_of(rules, args.hands, 13, args.seed + 1, args.repeat)
        warmup = random_hands(rules, args.warmup, 14, args.seed + 1000)
        results = {}
        for path in ("compiled", "python"):
            _kernel.set_enabled(path == "compiled")
            melds.clear_cache(tables=True)
            warm(rules, w, warmup)
            results[path] = measure(rules, w, passes14, passes13)
        _kernel.set_enabled(True)
        melds.clear_cache(tables=True)
        print(f"{name}:{'compiled':>30}{'Python':>12}{'ratio':>9}")
        for label, rate in results["compiled"].items():
            py = results["python"].get(label)
            if py is None:  # the batch call: against the Python solver's single calls
                py = results["python"]["min_penalty"]
                label += " vs Python calls"
            print(f"  {label:36}{rate:>12,.0f}{py:>12,.0f}{rate / py:>8.1f}x")
    openspiel_figures(args.hands, args.seed, args.repeat)
    if args.then.lower() != "none":
        then_figures(args.then, args.hands, args.seed, args.warmup, w, args.repeat)


if __name__ == "__main__":
    main()
