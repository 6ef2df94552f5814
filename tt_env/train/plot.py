"""A run's learning curve as a PNG (``tt-train plot RUN_DIR``)."""

from __future__ import annotations

import csv
import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from tt_env.util.files import atomic_path


# ---------------------------------------------------------------------------------- plot
def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open() as fh:
        return list(csv.DictReader(fh))


def plot_run(
    run_dir: str | os.PathLike, output: str | os.PathLike | None = None, smooth: int = 10
) -> Path:
    """Draw a run's learning curve (mean round reward per opponent kind: a point per rollout,
    a line through the mean of the last ``smooth`` rollouts) and its evaluations (mean score
    difference per game with 95% intervals) into a PNG; returns its path (default
    ``<run>/learning_curve.png``). A run shorter than ``smooth`` rollouts still shows its points."""
    import matplotlib.pyplot as plt

    fig = learning_curve_figure(run_dir, smooth)
    out = Path(output) if output else Path(run_dir) / "learning_curve.png"
    try:
        with atomic_path(out) as tmp:  # a failed write leaves no half a PNG
            fig.savefig(tmp, dpi=110, format="png")
    finally:
        plt.close(fig)
    return out


def learning_curve_figure(run_dir: str | os.PathLike, smooth: int = 10):
    """The matplotlib figure of :func:`plot_run` (two panels: training, evaluations)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = Path(run_dir)
    progress = _read_csv(root / "progress.csv")
    evals = _read_csv(root / "evaluations.csv")
    rounds = _read_csv(root / "exit.csv")
    if not progress and not evals and not rounds:
        raise ValueError(f"{root} has no progress.csv, evaluations.csv or exit.csv to plot")
    if not progress and not evals:  # expert iteration only
        fig, ax = plt.subplots(1, 1, figsize=(9, 4.5))
        _exit_panel(ax, rounds, root.name)
        fig.tight_layout()
        return fig
    if rounds:
        fig = plt.figure(figsize=(9, 12))
        ax1 = fig.add_subplot(3, 1, 2)
        ax2 = fig.add_subplot(3, 1, 3, sharex=ax1)
        _exit_panel(fig.add_subplot(3, 1, 1), rounds, root.name)
    else:
        fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for row in progress:
        series[row["opponents"]].append((int(row["timesteps"]), float(row["mean_reward"])))
        if row.get("mean_vs_baseline"):  # duplicate deals: the same rounds played by the baseline
            series[f"{row['opponents']}, less the baseline on the same deal"].append(
                (int(row["timesteps"]), float(row["mean_vs_baseline"]))
            )
    for name, points in sorted(series.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        points.sort()
        x = np.array([p[0] for p in points])
        y = np.array([p[1] for p in points])
        # Every rollout as a point, so that a run shorter than the window still shows, and a
        # line through the mean of the last `smooth` rollouts (fewer at the start).
        dots = ax1.plot(
            x, y, "o", ms=3, alpha=0.35 if len(y) > 1 else 1.0, label=name if len(y) < 2 else None
        )[0]
        if len(y) >= 2:
            total = np.concatenate([[0.0], np.cumsum(y)])
            end = np.arange(1, len(y) + 1)
            start = np.maximum(0, end - max(1, smooth))
            ax1.plot(
                x,
                (total[end] - total[start]) / (end - start),
                color=dots.get_color(),
                label=name,
                lw=2.2 if name == "all" else 1.2,
            )
    ax1.axhline(0, color="grey", lw=0.8)
    ax1.set_ylabel("mean reward per round\n(opponents' penalty - own)")
    ax1.set_title(f"{root.name}: training")
    if series:
        ax1.legend(fontsize=8)
    by_opp = _evaluations(ax2, evals, "timesteps")
    _zoom_past_the_start(ax2, by_opp)
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_ylabel("score difference per game\n(learner - opponent, 95% CI)")
    ax2.set_xlabel("timesteps")
    ax2.set_title("evaluations (duplicate games; below 0: the learner scores less)")
    if by_opp:
        ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


def _zoom_past_the_start(ax, by_opp: dict[str, list[dict[str, str]]]) -> None:
    """The untrained start (hundreds of points a game) would flatten the curve to a line: when
    an opponent's first evaluation lies far outside the later ones, the axis shows the later
    ones and zero, and the first is written in a corner."""
    later = [r for rows in by_opp.values() for r in rows[1:]]
    if len(later) < 2:
        return
    lo = min(0.0, *(float(r["diff_low"]) for r in later))
    hi = max(0.0, *(float(r["diff_high"]) for r in later))
    span = max(hi - lo, 1.0)
    off = [
        (name, rows[0])
        for name, rows in by_opp.items()
        if not lo - span <= float(rows[0]["diff"]) <= hi + span
    ]
    if not off:
        return
    ax.set_ylim(lo - 0.1 * span, hi + 0.3 * span)
    text = "; ".join(
        f"vs {name} at {int(row['timesteps']):,} steps: {float(row['diff']):+.1f}"
        for name, row in off
    )
    ax.annotate(
        f"off the scale: {text}", (0.01, 0.97), xycoords="axes fraction", va="top", fontsize=8
    )


def _exit_panel(ax, rows: list[dict[str, str]], name: str) -> None:
    """The evaluations after each round of expert iteration (``exit.csv``), per opponent."""
    _evaluations(ax, rows, "round")
    ax.axhline(0, color="grey", lw=0.8)
    ax.set_xticks(sorted({int(r["round"]) for r in rows}))
    ax.set_xlabel("round of expert iteration (the search led by the network, then the fit)")
    ax.set_ylabel("score difference per game\n(network - opponent, 95% CI)")
    ax.set_title(f"{name}: expert iteration (below 0: the network scores less)")
    ax.legend(fontsize=8)


def _evaluations(ax, rows: list[dict[str, str]], x_key: str) -> dict[str, list]:
    """Draw evaluation rows (score difference with its 95% interval) against the column
    ``x_key``, one line per opponent; returns the rows by opponent."""
    by_opp: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in rows:
        by_opp[row["opponent"]].append(row)
    for name, points in by_opp.items():
        points.sort(key=lambda r: int(r[x_key]))
        x = np.array([int(r[x_key]) for r in points])
        y = np.array([float(r["diff"]) for r in points])
        lo = np.array([float(r["diff_low"]) for r in points])
        hi = np.array([float(r["diff_high"]) for r in points])
        ax.errorbar(x, y, yerr=[y - lo, hi - y], marker="o", capsize=3, label=f"vs {name}")
    return by_opp
