"""Random self-play: the compiled batch beside the Python tables and RLCard, in one run.

Every table is stepped by a random legal learner whose actions are picked in numpy from the
masks (one call for the whole batch), with raw observations, as an RL loop would. Printed
side by side, each row measured in turn in this process (a baseline checkout in a process of
its own), with its ratio to the compiled batch:

- the compiled batch (``tt_env.vector.native.CompiledSelfPlay``) on the cores this process may
  run on, and on one thread;
- ``SelfPlayVectorEnv`` of the same tables (or of the checkout given by ``--baseline``, e.g. a
  ``git worktree`` of an earlier commit, timed with its own code);
- RLCard's gin-rummy raw env, one game at a time (``pip install "tt_env[bench]"``).

    python benchmarks/bench_engine.py                      # 256 tables, 5 s a row
    python benchmarks/bench_engine.py --baseline ../old    # the Python tables of another checkout
    python benchmarks/bench_engine.py --soak 100000000      # memory over 100M agent-steps
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_env, beside this file
from bench_env import bench_rlcard  # noqa: E402


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row: the r-th legal one, r drawn per row."""
    cumulative = masks.cumsum(axis=1, dtype=np.int32)
    picks = (rng.random(len(masks)) * cumulative[:, -1]).astype(np.int32)
    return (cumulative > picks[:, None]).argmax(axis=1)


def rate_compiled(tables: int, seconds: float, threads: int | None) -> float:
    from tt_env.vector.native import CompiledSelfPlay

    batch = CompiledSelfPlay(tables, num_threads=threads)
    batch.reset(0)
    rng = np.random.default_rng(0)
    for _ in range(50):  # warm up: the kernels' tables, the first rounds
        batch.step(random_legal(batch.masks, rng))
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        batch.step(random_legal(batch.masks, rng))
        steps += tables
    return steps / (time.perf_counter() - start)


def rate_python_tables(tables: int, seconds: float) -> float:
    """SelfPlayVectorEnv of this process's tt_env (every seat a learner, raw observations)."""
    from tt_env.vector import SelfPlayVectorEnv

    env = SelfPlayVectorEnv(tables)
    env.reset(seed=0)
    masks = env.action_masks()
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        _, _, _, _, infos = env.step(random_legal(masks, rng))
        masks = infos["action_mask"]
        steps += tables
    return steps / (time.perf_counter() - start)


def in_checkout(path: str, module: str, call: str) -> float:
    """``module.call`` (a benchmark beside this file, returning a number) run with another
    checkout's tt_env, in a process of its own in that checkout (so that '' on the path is
    not this one); it checks which tt_env it imported."""
    root = str(Path(path).resolve())
    code = (
        f"import sys; sys.path.insert(0, {str(Path(__file__).resolve().parent)!r}); "
        f"import json, {module}; sys.path.insert(0, {root!r}); "
        f"import tt_env; assert tt_env.__file__.startswith({root!r}); "
        f"print(json.dumps({module}.{call}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": root},
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def rate_baseline(path: str, tables: int, seconds: float) -> float:
    """rate_python_tables() run by another checkout's tt_env, in a process of its own."""
    return in_checkout(path, "bench_engine", f"rate_python_tables({tables}, {seconds})")


def resident_mb() -> float:
    """This process's resident memory, MB (Linux: /proc; elsewhere the peak, from resource)."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def soak(tables: int, steps: int) -> None:
    """Step the compiled batch ``steps`` agent-steps, printing the resident memory as it goes."""
    from tt_env.vector.native import CompiledSelfPlay

    batch = CompiledSelfPlay(tables)
    batch.reset(0)
    rng = np.random.default_rng(0)
    done, start, report = 0, time.perf_counter(), steps // 10
    print(f"soak: {tables} tables, {steps:,} agent-steps; resident memory")
    print(f"  {0:>13,} steps  {resident_mb():8.1f} MB")
    while done < steps:
        batch.step(random_legal(batch.masks, rng))
        done += tables
        if done // report != (done - tables) // report:
            print(f"  {done:>13,} steps  {resident_mb():8.1f} MB")
    print(f"soak: {done / (time.perf_counter() - start):,.0f} agent-steps/s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=256, help="tables in each batch")
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds of stepping a row")
    parser.add_argument(
        "--baseline", default=None, help="a checkout whose SelfPlayVectorEnv to time instead"
    )
    parser.add_argument(
        "--soak", type=int, default=0, help="instead: step this many agent-steps, print memory"
    )
    args = parser.parse_args()
    if args.soak:
        soak(args.tables, args.soak)
        return
    from tt_env.util.workers import default_threads

    rows = [
        (
            f"compiled batch, {default_threads()} thread(s)",
            rate_compiled(args.tables, args.seconds, None),
        ),
        ("compiled batch, 1 thread", rate_compiled(args.tables, args.seconds, 1)),
    ]
    if args.baseline:
        name = f"SelfPlayVectorEnv of {Path(args.baseline).name}"
        rows.append((name, rate_baseline(args.baseline, args.tables, args.seconds)))
    else:
        rows.append(
            ("SelfPlayVectorEnv (Python tables)", rate_python_tables(args.tables, args.seconds))
        )
    peer = bench_rlcard(int(args.seconds * 20_000), 0)
    rows += list(peer.items())
    best = rows[0][1]
    print(f"random self-play, {args.tables} tables, raw observations, actions picked in numpy")
    print(f"{'':44s} {'agent-steps/s':>14s} {'compiled / row':>15s}")
    for name, rate in rows:
        print(f"{name:44s} {rate:14,.0f} {best / rate:14.1f}x")
    if not peer:
        print("(RLCard not installed: pip install 'tt_env[bench]')")


if __name__ == "__main__":
    main()
