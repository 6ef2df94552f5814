"""How fast is a decision? Agent decisions and feature vectors per second, side by side with a
raw_env step, on the same recorded positions (one process, one core).

Positions are recorded from seeded games of the environment (counting against greedy, every
seat's observation and mask when it is to move); then, over all of them, in one run:

* ``raw_env step``: agent-steps per second of ``three_thirteen_v0.raw_env`` under random legal
  play (the environment alone, for scale);
* ``CardFeatures``: feature vectors of the learned agents (``tt_env.learned.features``) per second;
* ``counting``, ``greedy``: decisions (``act``) per second;
* with ``--search N``: decisions of the search agent, at its default 128 deals per decision and
  as ``search(samples=16)`` (the default ``tt-arena`` run's), on the first ``N`` positions.

Each figure is also given as a ratio to the raw_env rate measured in the same run. The solver's
result caches are emptied before every timed pass (its per-rule tables stay), so no position is
answered from a cache filled by another figure.

    python benchmarks/bench_valuation.py --positions 3000 --players 2 --seed 0
    python benchmarks/bench_valuation.py --positions 300 --steps 3000 --search 300
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from tt_env import three_thirteen_v0
from tt_env.agents import make_agent  # noqa: E402
from tt_env.game import going_out, melds  # noqa: E402
from tt_env.game.melds import _kernel  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402
from tt_env.learned.features import CardFeatures  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_env import play_aec  # noqa: E402


def record_positions(rules: Rules, count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` (observation, mask) pairs of the seat to move, from games of counting against
    greedy (seats alternate)."""
    env = three_thirteen_v0.raw_env(rules=rules)
    n = rules.num_players
    agents = [make_agent("counting" if i % 2 == 0 else "greedy", n, rules, seed) for i in range(n)]
    out = []
    env.reset(seed=seed)
    while len(out) < count:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(agent)
            out.append((obs["observation"].copy(), obs["action_mask"].copy()))
            env.step(agents[seat].act(obs["observation"], obs["action_mask"]))
            if len(out) >= count:
                break
        seed += 1
        env.reset(seed=seed)
    return out


def per_second(fn, items) -> float:
    melds.clear_cache()
    going_out.clear_cache()
    start = time.perf_counter()
    for item in items:
        fn(item)
    return len(items) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=3000, help="positions to time")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=30000, help="raw_env steps to time")
    parser.add_argument(
        "--search",
        type=int,
        default=0,
        metavar="N",
        help="also time the search agent's decisions on the first N positions (default 0: not)",
    )
    args = parser.parse_args()
    rules = Rules(num_players=args.players)
    print(f"{args.players} players, standard rules ({rules.decks} deck(s)); {_kernel.status()}")
    start = time.perf_counter()
    positions = record_positions(rules, args.positions, args.seed)
    print(f"recorded {len(positions)} positions in {time.perf_counter() - start:.1f} s")
    features = CardFeatures(rules)
    counting = make_agent("counting", args.players, rules, 0)
    greedy = make_agent("greedy", args.players, rules, 0)
    features(positions[0][0])  # warm: compiled code loaded, tables built
    env_rate = play_aec(three_thirteen_v0.raw_env(rules=rules), args.steps, args.seed)
    rows = [("raw_env step (random legal play)", env_rate)]
    rows.append(("CardFeatures (lookahead on)", per_second(lambda p: features(p[0]), positions)))
    draws = [p for p in positions if p[1][0] or p[1][1]]
    discards = [p for p in positions if not (p[1][0] or p[1][1])]
    for name, agent in (("counting", counting), ("greedy", greedy)):
        act = agent.act
        rows.append((f"{name} decision", per_second(lambda p, act=act: act(*p), positions)))
        rows.append((f"  {name}, draw phase", per_second(lambda p, act=act: act(*p), draws)))
        rows.append((f"  {name}, discard phase", per_second(lambda p, act=act: act(*p), discards)))
    for spec in ("search", "search(samples=16)") if args.search > 0 else ():
        act = make_agent(spec, args.players, rules, 0).act
        act(*positions[0])  # warm
        rows.append(
            (f"{spec} decision", per_second(lambda p, act=act: act(*p), positions[: args.search]))
        )
    print(f"{'':38}{'per second':>12}{'/ raw_env':>11}")
    for label, rate in rows:
        print(f"{label:38}{rate:>12,.0f}{rate / env_rate:>11.3f}")
    for label, rate in rows[-2:] if args.search > 0 else ():
        print(f"{label}: {1000 / rate:.1f} ms")


if __name__ == "__main__":
    main()
