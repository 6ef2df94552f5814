"""The learning curve of a distillation: the network fitted to more and more of the teacher's
decisions, each fit evaluated against the run's evaluation opponents.

A behaviour-cloning run keeps its teacher's decisions (``bc_data.npz``). This script cuts the
first N decisions of each collecting process out of them (the file holds the processes' parts
one after another, each about ``bc_samples / processes`` long: a process finishes its last
episode, so a boundary may be off by a few decisions), refits the run's config on each cut
with ``tt-train --bc-data`` (``--total-timesteps 0``: the warm start alone), and draws the
evaluations against the number of decisions, with their 95% intervals, as a PNG::

    python training/distill_curve.py runs/<run> --sizes 15000,30000,60000 --eval-games 300 \\
        --output models/distilled_4p_standard_curve.png
    python training/distill_curve.py runs/<run> --plot-only --output curve.png   # runs made

The run itself (all its decisions) is refitted too, with the same number of evaluation deals,
so that every point is measured alike. The fits go to ``<run>/curve/``.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from tt_env.train.imitation import save_teacher_data

KEYS = ("x", "mask", "action", "return")


def cut(data_file: Path, size: int, processes: int, out: Path) -> None:
    """The first ``size // processes`` decisions of each of ``processes`` equal slices of
    ``data_file`` (the processes' parts, up to the few decisions by which they differ)."""
    with np.load(data_file, allow_pickle=False) as f:
        data = {k: f[k] for k in KEYS}
    n = len(data["action"])
    part = n // processes
    each = size // processes
    take = np.concatenate([np.arange(p * part, p * part + each) for p in range(processes)])
    save_teacher_data(out, {k: v[take] for k, v in data.items()})


def evaluation(run: Path) -> tuple[float, float, float, int]:
    """(difference, low, high, decisions) of a warm-start run's evaluation."""
    with open(run / "evaluations.csv", newline="") as f:
        row = next(csv.DictReader(f))
    samples = json.loads((run / "state.json").read_text())["bc"]["samples"]
    return float(row["diff"]), float(row["diff_low"]), float(row["diff_high"]), int(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a tt-train run directory with bc_data.npz")
    parser.add_argument("--sizes", default="15000,30000,60000", help="decisions per cut")
    parser.add_argument("--eval-games", type=int, default=300, help="deals per evaluation")
    parser.add_argument("--processes", type=int, default=2, help="processes that collected")
    parser.add_argument("--output", type=Path, default=Path("distill_curve.png"))
    parser.add_argument("--plot-only", action="store_true", help="draw the fits already made")
    args = parser.parse_args(argv)
    data = args.run / "bc_data.npz"
    config = args.run / "config.toml"
    if not data.is_file() or not config.is_file():
        parser.error(f"{args.run} is not a run with teacher data (bc_data.npz, config.toml)")
    fits = args.run / "curve"
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    with np.load(data, allow_pickle=False) as f:
        total = len(f["action"])
    if any(not 0 < size < total for size in sizes):
        parser.error(
            f"--sizes: each cut must hold 1 to {total - 1:,} decisions (the run has {total:,})"
        )
    if not args.plot_only:
        fits.mkdir(exist_ok=True)
        for size in [*sizes, total]:
            source = data
            if size != total:
                source = fits / f"bc_{size}.npz"
                cut(data, size, args.processes, source)
            command = [
                sys.executable, "-m", "tt_env.train", "--config", str(config),
                "--bc-data", str(source), "--total-timesteps", "0",
                "--eval-games", str(args.eval_games), "--run-dir", str(fits),
                "--run-name", f"n{size}", "--output", str(fits / f"n{size}.npz"),
                "--no-progress-bar",
            ]  # fmt: skip
            print(" ".join(command), flush=True)
            subprocess.run(command, check=True)
    points = sorted(
        (evaluation(p) for p in fits.glob("n*") if (p / "evaluations.csv").is_file()),
        key=lambda point: point[3],
    )
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    x = [p[3] for p in points]
    y = [p[0] for p in points]
    err = [[p[0] - p[1] for p in points], [p[2] - p[0] for p in points]]
    ax.errorbar(x, y, yerr=err, marker="o", capsize=4, label="distilled network (95% interval)")
    ax.axhline(0, color="grey", lw=1, ls="--", label="level with the opponents")
    ax.set_xscale("log")
    ax.set_xticks(x, [f"{v // 1000}k" for v in x])
    ax.set_xticks([], minor=True)  # no log-scale minor labels between the points
    ax.set_xlabel("teacher decisions fitted")
    ax.set_ylabel("score less the opponents', per game")
    ax.set_title(f"{args.run.name}: distillation, {args.eval_games} duplicate deals per point")
    ax.legend(loc="best")
    fig.tight_layout()
    fig.savefig(args.output, dpi=100)
    for diff, low, high, n in points:
        print(f"{n:>8,} decisions: {diff:+.2f} ({low:+.2f} .. {high:+.2f})")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
