"""How fast is the meld solver? Prints calls per second on random hands (one process, one core).

Every figure is measured on fresh random hands drawn from freshly shuffled decks with a fixed
numpy seed, and the result caches of :mod:`tt_env.melds` (``min_penalty`` and
``discard_penalties`` results) are cleared before every timed pass, so no timed call is
answered from them. What stays between passes are the solver's per-rule tables (candidate
runs and sets, best runs of each suit pattern): they depend on the rules only, never on a
hand, and a long game or training run fills them once. They are first filled by solving
``--warmup`` hands of another seed; the "first pass" column then still pays for the table
entries that the timed hands add (the number is printed), "best of N" is the fastest of N
passes over the same hands (tables complete for them, results not cached). ``--cold`` also
times a first pass in a fresh process, before any warm-up.

    python benchmarks/bench_solver.py --hands 20000 --seed 0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from tt_env import going_out, melds  # noqa: E402
from tt_env.cards import make_deck, to_counts  # noqa: E402
from tt_env.rules import Rules  # noqa: E402

CONFIGS = {
    "default rules": Rules(),
    "one-wild preset": Rules.preset("one-wild"),
    "2 decks + 2 jokers/deck": Rules(num_decks=2, jokers_per_deck=2),
}


def random_hands(rules: Rules, n: int, size: int, seed: int) -> list[list]:
    """``n`` hands of ``size`` cards, each the top of a freshly shuffled deck."""
    rng = np.random.default_rng(seed)
    deck = make_deck(rules.decks, rules.jokers_per_deck)
    return [[deck[i] for i in rng.permutation(len(deck))[:size]] for _ in range(n)]


def game_like_stream(rules: Rules, n: int, seed: int) -> list[tuple[int, ...]]:
    """The hands one player holds after each draw in a long run of turns: draw a card, then
    discard one at random. Successive hands share all cards but two."""
    rng = np.random.default_rng(seed)
    deck = make_deck(rules.decks, rules.jokers_per_deck)
    hand: list = []
    stock: list = []
    out = []
    for _ in range(n):
        if not stock:
            order = rng.permutation(len(deck))
            hand = [deck[i] for i in order[:13]]
            stock = [deck[i] for i in order[13:]]
        hand.append(stock.pop())
        out.append(to_counts(hand))
        hand.pop(int(rng.integers(len(hand))))
    return out


def one_pass(fn, items) -> float:
    """Calls per second of ``fn`` over ``items``, the result caches cleared first."""
    melds.clear_cache()
    start = time.perf_counter()
    for item in items:
        fn(item)
    return len(items) / (time.perf_counter() - start)


def table_entries(rules: Rules, wild_rank: int) -> int:
    """Entries in the per-rule tables the solver uses for these rules (an internal count)."""
    cfg = melds._config(rules, wild_rank, None)
    return len(cfg.values.free) + len(cfg.values.capped) + len(cfg.tabs.runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000, help="hands per figure")
    parser.add_argument("--seed", type=int, default=0, help="seed of the timed hands")
    parser.add_argument("--size", type=int, default=14, help="cards per hand")
    parser.add_argument("--wild-rank", type=int, default=13, help="wild rank of the round")
    parser.add_argument(
        "--warmup",
        type=int,
        default=30000,
        help="hands of another seed solved first to fill the per-rule tables",
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed passes per figure")
    parser.add_argument(
        "--cold",
        action="store_true",
        help="also time min_penalty before any warm-up (tables still empty)",
    )
    args = parser.parse_args()
    w = args.wild_rank
    print(
        f"{args.hands} random {args.size}-card hands per figure (seed {args.seed}), wild rank "
        f"{w}; result caches cleared before every pass; calls per second, one process"
    )
    print(f"{'':34}{'first pass':>12}{f'best of {args.repeat}':>12}")
    for name, rules in CONFIGS.items():
        hands = random_hands(rules, args.hands, args.size, args.seed)
        counts = [to_counts(h) for h in hands]
        print(f"{name}:")
        if args.cold:
            cold = one_pass(lambda c, rules=rules: melds.min_penalty(c, w, rules), counts)
            print(f"  {'min_penalty, empty tables':32}{cold:>12,.0f}")
        for h in random_hands(rules, args.warmup, args.size, args.seed + 1000):
            melds.min_penalty(to_counts(h), w, rules)
        before = table_entries(rules, w)
        figures = [
            ("solve", lambda h, rules=rules: melds.solve(h, w, rules), hands),
            ("min_penalty", lambda c, rules=rules: melds.min_penalty(c, w, rules), counts),
        ]
        if name == "default rules":
            figures.append(
                (
                    f"discard_penalties ({args.size} cards)",
                    lambda c, rules=rules: melds.discard_penalties(c, w, rules),
                    counts[: max(1, args.hands // 4)],
                )
            )
        for label, fn, items in figures:
            rates = [one_pass(fn, items) for _ in range(args.repeat)]
            print(f"  {label:32}{rates[0]:>12,.0f}{max(rates):>12,.0f}")
        print(f"  ({table_entries(rules, w) - before} table entries were added by the timed hands)")
        if name == "default rules":
            # As the engine asks after a draw: which discards let the player go out (once a
            # turn; the engine keeps the answer for the move played); the caches stay on.
            stream = game_like_stream(rules, args.hands, args.seed)
            melds.clear_cache()
            going_out.clear_cache()
            start = time.perf_counter()
            for c in stream:
                going_out.go_out_discards(c, w, rules)
            rate = len(stream) / (time.perf_counter() - start)
            print(
                f"  {'game-like turns, caches on':32}{rate:>12,.0f}   turns/s: one player's "
                "successive hands, go_out_discards once a turn"
            )


if __name__ == "__main__":
    main()
