"""Agent-steps per second of ``three_thirteen_v0`` under random legal play.

Every step reads the observation and the action mask (``env.last()``), as an RL loop does, picks a
random legal action and steps. Only steps with an action count (not the ``None`` steps of
terminated agents); a finished episode is reset at once.

    python benchmarks/bench_env.py --players 2 --steps 50000 --seed 0
    python benchmarks/bench_env.py --profile        # cProfile of the raw_env loop, top 25

The peers of issue 3, section 8 (RLCard's ``gin-rummy`` and OpenSpiel's ``gin_rummy``) are run by
the functions in the PEERS section below; they need the ``bench`` extra.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import time
from collections.abc import Callable

import numpy as np

from tt_env.env import aec as three_thirteen_v0


def play_aec(env, steps: int, seed: int) -> float:
    """Random legal play on a PettingZoo AEC env for ``steps`` agent-steps; returns steps/s."""
    rnd = random.Random(seed)
    env.reset(seed=seed)
    done = 0
    start = time.perf_counter()
    while done < steps:
        obs, reward, termination, truncation, info = env.last()
        if termination or truncation:
            env.step(None)
            if not env.agents:
                env.reset()
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rnd.randrange(len(legal))]))
        done += 1
    return done / (time.perf_counter() - start)


def _cold_caches() -> None:
    """Empty the result caches of the solver and the go-out check, so that no environment
    replays games whose answers another one already cached (the per-rule tables stay)."""
    from tt_env.game import going_out, melds

    melds.clear_cache()
    going_out.clear_cache()


def bench_tt(players: int, steps: int, seed: int) -> dict[str, float]:
    """``raw_env`` and ``env()`` of three_thirteen_v0, each from cold result caches."""
    results = {}
    # Warm up once: the solver's compiled kernel is loaded and its tables built on first use.
    play_aec(three_thirteen_v0.raw_env(num_players=players), 2000, seed + 1)
    for label, make in (
        ("three_thirteen_v0 raw_env", three_thirteen_v0.raw_env),
        ("three_thirteen_v0 env()", three_thirteen_v0.env),
    ):
        _cold_caches()
        results[label] = play_aec(make(num_players=players), steps, seed)
    return results


# ------------------------------------------------------------------------------------- PEERS
# Peers for the comparison of issue 3, section 8, each returning {label: agent-steps/s} or {} when
# its package is missing (pip install -e ".[bench]"):
#   * RLCard's raw env, rlcard.make("gin-rummy") (the engine of PettingZoo's removed gin_rummy_v4);
#   * OpenSpiel's gin_rummy (pyspiel), writing its observation tensor every step.
# They are added here; main() prints every result and the ratios to the first peer found.
def bench_rlcard(steps: int, seed: int) -> dict[str, float]:
    """RLCard's raw gin-rummy env: ``env.step`` builds the next player's state (observation and
    legal actions) itself, so each step is a full RL step."""
    try:
        import rlcard
    except ImportError:
        return {}
    env = rlcard.make("gin-rummy", config={"seed": seed})
    rnd = random.Random(seed)
    state, _ = env.reset()
    done = 0
    start = time.perf_counter()
    while done < steps:
        legal = list(state["legal_actions"])
        state, _ = env.step(legal[rnd.randrange(len(legal))])
        done += 1
        if env.is_over():
            state, _ = env.reset()
    return {"RLCard gin-rummy (raw)": done / (time.perf_counter() - start)}


def bench_open_spiel(steps: int, seed: int) -> dict[str, float]:
    """OpenSpiel's gin_rummy (C++), with the acting player's observation tensor written every
    step as an RL loop needs; chance moves (the deal) are played but not counted."""
    try:
        import pyspiel
    except ImportError:
        return {}
    game = pyspiel.load_game("gin_rummy")
    rnd = random.Random(seed)
    state = game.new_initial_state()
    done = 0
    start = time.perf_counter()
    while done < steps:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rnd.randrange(len(outcomes))][0])
        else:
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rnd.randrange(len(legal))])
            done += 1
    return {"OpenSpiel gin_rummy (C++)": done / (time.perf_counter() - start)}


PEERS: list[Callable[[int, int], dict[str, float]]] = [bench_rlcard, bench_open_spiel]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2, help="number of players")
    parser.add_argument("--steps", type=int, default=50_000, help="agent-steps per environment")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the play")
    parser.add_argument(
        "--profile",
        action="store_true",
        help="profile the raw_env loop with cProfile instead of timing",
    )
    args = parser.parse_args()

    if args.profile:
        env = three_thirteen_v0.raw_env(num_players=args.players)
        profiler = cProfile.Profile()
        profiler.runcall(play_aec, env, args.steps, args.seed)
        pstats.Stats(profiler).sort_stats("tottime").print_stats(25)
        return

    results = bench_tt(args.players, args.steps, args.seed)
    for peer in PEERS:
        results.update(peer(args.steps, args.seed))
    print(
        f"{args.players} players, {args.steps} agent-steps each, random legal play, "
        "observation and mask every step"
    )
    for label, rate in results.items():
        print(f"  {label:<32} {rate:>10,.0f} agent-steps/s")
    peers = [k for k in results if not k.startswith("three_thirteen_v0")]
    if peers:
        base = results[peers[0]]
        for label, rate in results.items():
            if label != peers[0]:
                print(f"  {label} / {peers[0]}: {rate / base:.2f}x")


if __name__ == "__main__":
    main()
