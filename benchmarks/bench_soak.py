"""Does memory stay flat over many games? Plays a long mixed soak and prints the resident memory.

Plays ``--games`` whole games (default 10,000) through the AEC environment, one after another
in this process, cycling through a mix of rule sets and player counts (every option of RULES.md
appears) with the built-in agents (random, greedy, counting) or random legal moves in the
seats. Every ``--every`` games (default 1,000) it prints the resident set size (``VmRSS`` of
``/proc/self/status``, else the peak from ``resource.getrusage``) and the growth since the last
line; at the end, the growth per 1,000 games after the warm-up (the first ``--warmup`` games,
default a fifth), which is what should be about zero: caches that are bounded fill during the
warm-up and then stay. Every ``--check-every``-th game's record is replayed and must give the
same scores (0 turns that off).

    python benchmarks/bench_soak.py                       # 10,000 games (about an hour on 1 core)
    python benchmarks/bench_soak.py --games 2000 --every 200
"""

from __future__ import annotations

import argparse
import gc
import random
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

from tt_env.agents import make_agent  # noqa: E402
from tt_env.env import aec as three_thirteen_v0  # noqa: E402
from tt_env.game.engine import Game  # noqa: E402
from tt_env.game.melds import _cache  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402

# The rule sets of the soak: every option of RULES.md, 2 to 8 players. Turn caps keep the games
# of random play (which rarely goes out) short.
RULE_SETS: tuple[Rules, ...] = (
    Rules(),
    Rules.preset("one-wild"),
    Rules(num_players=3, max_turns_per_round=60),
    Rules(num_players=4, jokers_per_deck=2, joker_layoff=True, max_turns_per_round=60),
    Rules(num_players=2, aces_high=True, court_values=True, max_turns_per_round=40),
    Rules(num_players=2, extra_rounds=2, all_wild_melds=True, max_turns_per_round=40),
    Rules(num_players=3, redemption=True, double_court_rounds=True, max_turns_per_round=45),
    Rules(num_players=2, false_out_penalty=20, discard_drawn_upcard=True, max_turns_per_round=40),
    Rules(num_players=2, there_and_back=True, max_wilds_per_meld=2, max_turns_per_round=30),
    Rules(num_players=5, num_decks=3, unused_wild_penalty=15, max_turns_per_round=50),
    Rules(num_players=8, max_turns_per_round=64),
)
SEATS = ("random", "greedy", "counting", "moves")  # "moves": uniformly random legal moves


def rss_mb() -> float:
    """The resident set size now, in MB (the peak where /proc is missing)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024.0 * 1024.0 if sys.platform == "darwin" else 1024.0)


def peak_mb() -> float:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024.0 * 1024.0 if sys.platform == "darwin" else 1024.0)


def play(rules: Rules, seats: list[str], seed: int, rnd: random.Random) -> Game:
    """One whole game through the AEC environment; returns the engine's game."""
    n = rules.num_players
    agents = [
        None if spec == "moves" else make_agent(spec, n, rules, seed + s)
        for s, spec in enumerate(seats)
    ]
    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(seed=seed)
    game = env.game
    rounds = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if len(game.round_results) != rounds:
            rounds = len(game.round_results)
            for agent in agents:
                hook = getattr(agent, "new_round", None)
                if callable(hook):
                    hook()
        agent = agents[int(name.rsplit("_", 1)[1])]
        mask = obs["action_mask"]
        if agent is None:
            action = rnd.choice(np.flatnonzero(mask).tolist())
        else:
            action = int(agent.act(obs["observation"], mask))
        env.step(action)
    return game


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="games to play (10,000)")
    parser.add_argument("--every", type=int, default=1_000, help="games between lines (1,000)")
    parser.add_argument(
        "--warmup",
        type=int,
        default=None,
        help="games before the growth is measured (default: a fifth)",
    )
    parser.add_argument(
        "--check-every",
        type=int,
        default=100,
        help="replay every N-th game's record (0: never; default 100)",
    )
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.games < 1 or args.every < 1:
        parser.error("--games and --every must be at least 1")
    warmup = args.warmup if args.warmup is not None else args.games // 5

    rnd = random.Random(args.seed)
    print(
        f"soak: {args.games:,} games, {len(RULE_SETS)} rule sets, seats from "
        f"{', '.join(SEATS)}; RSS every {args.every:,} games; the solver's caches: "
        f"{_cache.budget() / 2**20:.0f} MB budget (estimated size, times emptied)",
        flush=True,
    )
    print(
        f"{'games':>8} {'seconds':>8} {'games/s':>8} {'RSS MB':>8} {'+MB':>7} {'peak MB':>8} "
        f"{'caches MB':>9} {'emptied':>7}",
        flush=True,
    )
    start = time.perf_counter()
    last_rss = start_rss = rss_mb()
    marks: list[tuple[int, float]] = [(0, start_rss)]
    replayed = 0
    for i in range(1, args.games + 1):
        rules = RULE_SETS[i % len(RULE_SETS)]
        seats = [rnd.choice(SEATS) for _ in range(rules.num_players)]
        seed = rnd.randrange(2**63)
        game = play(rules, seats, seed, rnd)
        if args.check_every and i % args.check_every == 0:
            replay = Game.from_record(game.to_json())
            if replay.scores != game.scores:
                raise AssertionError(f"game {i} (seed {seed}) does not replay")
            replayed += 1
        if i % args.every == 0 or i == args.games:
            gc.collect()
            now = rss_mb()
            elapsed = time.perf_counter() - start
            print(
                f"{i:>8,} {elapsed:>8.0f} {i / elapsed:>8.1f} {now:>8.1f} "
                f"{now - last_rss:>+7.1f} {peak_mb():>8.1f} "
                f"{_cache.estimated_bytes() / 2**20:>9.1f} {_cache._STATE['trims']:>7}",
                flush=True,
            )
            last_rss = now
            marks.append((i, now))
    after = [(g, r) for g, r in marks if g >= warmup and g > 0]
    print(
        f"start {start_rss:.1f} MB, end {marks[-1][1]:.1f} MB, peak {peak_mb():.1f} MB; "
        f"{replayed} records replayed",
        flush=True,
    )
    if len(after) >= 2:
        (g0, r0), (g1, r1) = after[0], after[-1]
        print(
            f"after the warm-up ({g0:,} -> {g1:,} games): {r1 - r0:+.1f} MB, "
            f"{1000 * (r1 - r0) / (g1 - g0):+.2f} MB per 1,000 games",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
