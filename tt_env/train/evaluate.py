"""``tt-train evaluate RUN_DIR --opponents search``: a run's learning curve against more
opponents, drawn after the run.

A run plays its snapshots (``eval/step_<steps>.npz``) against ``eval_opponents`` while it trains.
Against a costly opponent such as ``search`` (about 0.7 s per 2-player game on one core) that
would stall the training, so this plays every snapshot against it afterwards: the same seating
and episode as the run's evaluations, duplicate deals from ``seed`` (by default the run's
``eval_seed``). Each result is a row of ``evaluations.csv`` (the run's columns; ``wall_time`` is
the snapshot's training time), written as soon as it is known; a snapshot already evaluated
against an opponent is skipped, so an interrupted command goes on where it stopped. The
learning curve (``learning_curve.png``) is then redrawn, one line per opponent.
"""

from __future__ import annotations

import csv
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from tt_env.game.rules import Rules
from tt_env.train.config import TrainConfig, load_config_file
from tt_env.train.opponents import _step_of
from tt_env.train.runs import RunFiles


def snapshots(files: RunFiles) -> list[Path]:
    """The run's evaluated snapshots, ``eval/step_<steps>.npz``, in step order."""
    return sorted(files.evals.glob("step_*.npz"), key=_step_of)


def evaluation(
    path: str | os.PathLike,
    spec: str,
    rules: Rules,
    *,
    games: int,
    seed: int,
    workers: int,
    episode: str,
) -> tuple[dict[str, Any], Any]:
    """The model file ``path`` against ``spec`` in every other seat (one table: with more than
    two players, e.g. the model against three counting players), on ``games`` duplicate deals:
    the columns of an ``evaluations.csv`` row from ``opponent`` on, and the paired difference
    (:meth:`tt_env.arena.TournamentResult.versus_table`)."""
    from tt_env.agents import spec_label
    from tt_env.arena import run_tournament

    result = run_tournament(
        [str(path)] + [spec] * (rules.num_players - 1),
        rules,
        games=games,
        seed=seed,
        workers=workers,
        episode=episode,
    )
    me = result.labels[0]
    pair = result.versus_table(me)
    stats = {s.label: s for s in result.agents}
    row = {
        "opponent": spec_label(spec),
        "deals": games,
        "games": len(result.results),
        "diff": round(pair.mean, 3),
        "diff_low": round(pair.low, 3),
        "diff_high": round(pair.high, 3),
        "score": round(stats[me].score.mean, 3),
        "win_rate": round(stats[me].win_rate.mean, 4),
    }
    return row, pair


def evaluate_snapshots(
    run_dir: str | os.PathLike,
    opponents: Sequence[str],
    *,
    games: int | None = None,
    seed: int | None = None,
    workers: int | None = None,
    log: Callable[[str], object] = print,
) -> list[dict[str, Any]]:
    """Play every snapshot of the run in ``run_dir`` against each of ``opponents`` (agent specs)
    and append the rows to its ``evaluations.csv`` (see the module docstring); returns the new
    rows. ``games`` (deals) and ``seed`` default to the run's ``eval_games`` and ``eval_seed``,
    ``workers`` to the number of cores. :class:`ValueError` for a directory that is not a run,
    a run without snapshots or an opponent that cannot play its rules, before any game."""
    from tt_env.agents import make_agent, spec_label
    from tt_env.arena.suite import check_seed_not_reserved
    from tt_env.learned.model import load_model

    root = Path(run_dir)
    saved = root / "config.toml"
    if not saved.is_file():
        raise ValueError(f"{root}: not a run directory (no config.toml)")
    config = TrainConfig(**load_config_file(saved))
    rules = config.make_rules()
    files = RunFiles(root)
    found = snapshots(files)
    if not found:
        raise ValueError(f"{root}: no evaluated snapshots (eval/step_*.npz) to play")
    if not opponents:
        raise ValueError("name at least one opponent")
    games = config.eval_games if games is None else games
    seed = config.eval_seed if seed is None else seed
    check_seed_not_reserved(seed, "--seed")
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    for spec in opponents:
        try:
            make_agent(spec, rules.num_players, rules, 0)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"opponent {spec!r}: {exc}") from None
    done = set()
    table = root / files.evaluations
    if table.is_file():
        with table.open(newline="") as fh:
            done = {(int(r["timesteps"]), r["opponent"]) for r in csv.DictReader(fh)}
    rows = []
    for spec in opponents:
        label = spec_label(spec)
        for path in found:
            steps = _step_of(path)
            if (steps, label) in done:
                continue
            t0 = time.perf_counter()
            core, pair = evaluation(
                path,
                spec,
                rules,
                games=games,
                seed=seed,
                workers=max(1, workers or os.cpu_count() or 1),
                episode=config.eval_episode,
            )
            training = load_model(path).metadata.get("training", {})
            row = {
                "timesteps": steps,
                "wall_time": training.get("wall_time_seconds", ""),
                **core,
            }
            files.append_csv(files.evaluations, row)
            rows.append(row)
            log(
                f"{path.name} vs {label}: score difference {pair.format(2)} per game "
                f"(negative: the snapshot scores less), {row['games']} games in "
                f"{time.perf_counter() - t0:.0f} s"
            )
    return rows
