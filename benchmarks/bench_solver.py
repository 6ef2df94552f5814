"""How fast is the meld solver? Prints calls per second on random hands (one process, one core).

Every figure is measured on fresh random hands drawn from shuffled decks with a fixed seed: the
result cache of :func:`tt_env.melds.min_penalty` is cleared before each timed run, so no timed
call is answered from it. The solver's lazily built per-rule tables (candidate runs and sets,
best runs of each suit pattern; they depend only on the rules, never on a hand) are warmed on
hands of another seed first, as they are in a long game or training run; ``--cold`` also times
the first run in a fresh process, table building included.

    python benchmarks/bench_solver.py --hands 20000 --seed 0
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from tt_env import melds  # noqa: E402
from tt_env.cards import make_deck, to_counts  # noqa: E402
from tt_env.rules import Rules  # noqa: E402

CONFIGS = {
    "default rules, wild rank 13": Rules(),
    "one-wild preset": Rules.preset("one-wild"),
    "two decks + 2 jokers each": Rules(num_decks=2, jokers_per_deck=2),
}


def random_hands(rules: Rules, n: int, size: int, seed: int) -> list[list]:
    """``n`` hands of ``size`` cards, each the top of a freshly shuffled deck."""
    rng = np.random.default_rng(seed)
    deck = make_deck(rules.decks, rules.jokers_per_deck)
    return [[deck[i] for i in rng.permutation(len(deck))[:size]] for _ in range(n)]


def rate(fn, items) -> float:
    """Calls per second of ``fn`` over ``items`` (one pass, the result cache cleared first)."""
    melds.clear_cache()
    start = time.perf_counter()
    for item in items:
        fn(item)
    return len(items) / (time.perf_counter() - start)


def game_like_stream(rules: Rules, n: int, seed: int, wild_rank: int) -> list[tuple[int, ...]]:
    """The hands one player holds in a long stream of turns: draw a card, ask for every discard
    (as the engine does), discard one at random. Successive hands share most cards."""
    rng = np.random.default_rng(seed)
    deck = make_deck(rules.decks, rules.jokers_per_deck)
    order = rng.permutation(len(deck))
    hand = [deck[i] for i in order[:13]]
    stock = [deck[i] for i in order[13:]]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000, help="hands per figure")
    parser.add_argument("--seed", type=int, default=0, help="seed of the timed hands")
    parser.add_argument("--size", type=int, default=14, help="cards per hand")
    parser.add_argument("--wild-rank", type=int, default=13, help="wild rank of the round")
    parser.add_argument("--warmup", type=int, default=30000,
                        help="hands (of another seed) solved first to fill the per-rule tables")
    parser.add_argument("--cold", action="store_true",
                        help="also time the first pass in this process, tables still empty")
    args = parser.parse_args()
    w = args.wild_rank
    print(f"{args.hands} random {args.size}-card hands per figure, wild rank {w}, "
          f"seed {args.seed}; result cache cleared before each timed run")
    for name, rules in CONFIGS.items():
        hands = random_hands(rules, args.hands, args.size, args.seed)
        counts = [to_counts(h) for h in hands]
        if args.cold:
            cold = rate(lambda c: melds.min_penalty(c, w, rules), counts)
            print(f"  {name}: min_penalty, first pass (tables built as it goes): {cold:,.0f}/s")
        for c in random_hands(rules, args.warmup, args.size, args.seed + 1000):
            melds.min_penalty(to_counts(c), w, rules)  # warm the per-rule tables
        print(f"  {name}:")
        print(f"    solve            {rate(lambda h: melds.solve(h, w, rules), hands):>10,.0f}/s")
        print(f"    min_penalty      {rate(lambda c: melds.min_penalty(c, w, rules), counts):>10,.0f}/s")
        if name.startswith("default"):
            d = rate(lambda c: melds.discard_penalties(c, w, rules), counts[: args.hands // 4])
            print(f"    discard_penalties {d:>9,.0f}/s  (each = {args.size} min_penalty calls)")
            stream = game_like_stream(rules, args.hands, args.seed, w)
            melds.clear_cache()
            start = time.perf_counter()
            for c in stream:
                melds.discard_penalties(c, w, rules)
            s = len(stream) / (time.perf_counter() - start)
            print(f"    game-like stream: discard_penalties after each draw {s:,.0f}/s "
                  "(result cache on: successive hands share cards)")


if __name__ == "__main__":
    main()
