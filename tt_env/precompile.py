"""Compile the numba kernels ahead of their first use: ``python -m tt_env.precompile``.

The compiled kernels (the solver's, the ``counting`` policy's, the ``search`` agent's and the
learned agents' features) are compiled by numba the first time a machine uses them, then cached
on disk (in the ``__pycache__`` folders beside the package's sources; in a per-user cache
folder when those cannot be written; where ``NUMBA_CACHE_DIR`` points, if set), and later
processes load them in a fraction of a second. That first compilation takes minutes: on the
2-core machine of the README's figures, for the solver's public functions and a round of each
built-in agent, 354 s in one process and 224 s in two. A new version of the source or of numba,
or another CPU, compiles again. This command does it up front (after installing, when
building a Docker image, before a timed run), so that no game, test or training run waits.

It calls each public solver function once, then plays one round of each built-in agent and of a
shipped model against ``random`` (in the AEC env, as a tournament plays it), so that every
function and signature a game uses gets compiled, and says how long each took: in this process,
or with ``--processes 2`` (the default where there are 2 CPUs or more) the solver's functions in
one process and the agents in another. With the kernels off (``TT_ENV_NO_JIT=1``, or numba
missing) there is nothing to compile. :func:`missing` tells whether a first use would compile:
tt-arena (not on Ray), tt-play and tt-train say so before they start.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from pathlib import Path

# The compiled functions called from Python, by module: what a first use compiles.
ENTRY_POINTS = {
    "tt_env.game.melds.jit": (
        "evaluate_packed",
        "discard_values_packed",
        "after_draw_packed",
        "arrange_packed",
        "go_out_packed",
        "evaluate_many",
        "build_suit_tables",
    ),
    "tt_env.valuation.heuristics_jit": ("decide_observation",),
    "tt_env.agents._search_jit": ("search", "seed"),
    "tt_env.learned._features_jit": ("card_features",),
}

# What the command plays, one round each against random (the model's path is relative to the
# repository; an installed package without it skips that step).
AGENTS = ("random", "greedy", "counting", "search(samples=2)", "models/distilled_2p_standard.npz")

NOTICE = (
    "tt_env: compiling the solver kernels for this machine (their first use here: a few "
    "minutes, then cached; `python -m tt_env.precompile` does it ahead)"
)


def _cached(function) -> bool | None:
    """Whether numba's on-disk cache holds code of ``function`` for this machine's CPU (None:
    cannot tell). numba drops an index written for another version of the source or of numba
    (``_load_index`` then returns nothing) and keys its entries by the CPU they were compiled
    for; these are numba's own (private) names, hence the care."""
    try:
        index = function._cache._cache_file._load_index()
        magic = function.targetctx.codegen().magic_tuple()
    except Exception:  # noqa: BLE001 - another numba: cannot tell
        return None
    return any(key[1] == magic for key in index)


def missing() -> list[str]:
    """The compiled entry points (``module.function``) with no on-disk cache yet: a first use
    compiles them. Empty when everything is cached, the kernels are off, or numba keeps its
    cache where this cannot see."""
    from tt_env.game.melds import jit_module

    if jit_module() is None:
        return []
    out = []
    for module_name, names in ENTRY_POINTS.items():
        module = importlib.import_module(module_name)
        for name in names:
            if _cached(getattr(module, name)) is False:
                out.append(f"{module_name}.{name}")
    return out


def notice_if_cold(stream=None) -> bool:
    """Print :data:`NOTICE` to ``stream`` (stderr) when a first use would compile; returns
    whether it did. Never raises: a check that fails prints nothing."""
    try:
        cold = bool(missing())
    except Exception:  # noqa: BLE001 - a notice must never stop the tool
        return False
    if cold:
        print(NOTICE, file=stream if stream is not None else sys.stderr, flush=True)
    return cold


def _solver_api() -> None:
    """One call of each public solver function (the signatures their users compile)."""
    import numpy as np

    from tt_env.game import melds

    hand = tuple([1] * 14 + [0] * 39)  # the clubs and the ace of diamonds
    melds.min_penalty(hand, 13)  # the checked path (the counts as bytes)
    melds.min_penalty(hand, 13)  # the fast path (a bytearray)
    melds.min_penalty(bytes(hand), 13)
    melds.min_penalties(np.array([hand], np.uint8), 13)
    melds.discard_penalties(hand, 13)
    melds.draw_penalties(hand[:13] + (0,) * 40, 13)
    melds.solve(list(range(14)), 13)  # the checked path, then the fast one
    melds.solve(list(range(14)), 13)


def _play_round(spec: str) -> None:
    """One round of ``spec`` against ``random`` in the AEC env, as a tournament plays it."""
    from tt_env.agents import make_agent
    from tt_env.env.aec import raw_env
    from tt_env.game.rules import Rules

    rules = Rules()
    agents = [
        make_agent(s, rules.num_players, rules, seed) for seed, s in enumerate((spec, "random"))
    ]
    env = raw_env(rules=rules, episode="round")
    env.reset(seed=0)
    seat_of = {name: i for i, name in enumerate(env.possible_agents)}
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        agent = agents[seat_of[name]]
        env.step(int(agent.act(observation["observation"], observation["action_mask"])))


SOLVER_API = "solver API"


def _say(line: str) -> None:
    print(line, flush=True)  # flushed: a pool worker's lines come as they are printed


def _run_steps(steps, progress=_say) -> dict[str, float]:
    """Run ``steps`` (:data:`SOLVER_API` or agent specs) one after the other in this process;
    returns the seconds each took (a model missing from this installation is skipped)."""
    root = Path(__file__).resolve().parents[1]
    seconds: dict[str, float] = {}
    for step in steps:
        model = root / step if step.endswith(".npz") else None
        label = step if model is None else model.name
        if model is not None and not model.exists():
            progress(f"  {label}: not in this installation, skipped")
            continue
        start = time.perf_counter()
        if step == SOLVER_API:
            _solver_api()
        else:
            _play_round(step if model is None else str(model))
        seconds[label] = time.perf_counter() - start
        progress(f"  {label}: {seconds[label]:.1f} s")
    return seconds


def precompile(agents=AGENTS, processes: int = 1, progress=_say) -> dict[str, float]:
    """Call each public solver function once and play one round of each of ``agents``
    against random (workers 1), compiling what they use; returns the seconds each step took.
    ``progress(line)`` is called after each step. With ``processes`` 2 or more, the solver's
    functions compile in one process while the agents play in another (they share some
    functions, which both may compile: from scratch on 2 cores, 224 s instead of 354 s); the
    worker processes print their own lines."""
    steps = [SOLVER_API, *agents]
    if processes < 2:
        return _run_steps(steps, progress)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    groups = [steps[:1], steps[1:]]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        seconds: dict[str, float] = {}
        for part in pool.map(_run_steps, groups):
            seconds.update(part)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m tt_env.precompile",
        description="Compile tt_env's numba kernels ahead of their first use on this machine.",
    )
    parser.add_argument(
        "--processes",
        type=int,
        default=min(2, os.cpu_count() or 1),
        help="processes that compile side by side: 1, or 2 (the default with 2 CPUs or more)",
    )
    args = parser.parse_args(argv)
    if args.processes < 1:
        parser.error(f"--processes must be at least 1, got {args.processes}")
    from tt_env.game.melds import jit_module, kernel_status

    if jit_module() is None:
        print(f"{kernel_status()}: nothing to compile")
        return 0
    cold = missing()
    print(
        f"{kernel_status()}; "
        + (f"{len(cold)} entry point(s) not cached yet: compiling" if cold else "all cached")
        + f" (the solver's functions, then a round of each agent against random; "
        f"{min(args.processes, 2)} process(es)):",
        flush=True,
    )
    start = time.perf_counter()
    try:
        precompile(processes=args.processes)
    except KeyboardInterrupt:
        print("interrupted; what was compiled stays cached", file=sys.stderr)
        return 130
    left = missing()
    print(
        f"done in {time.perf_counter() - start:.1f} s"
        + (f"; still not cached: {', '.join(left)}" if left else "; every entry point cached")
    )
    return 0 if not left else 1


if __name__ == "__main__":
    sys.exit(main())
