"""A run's directory: its files (config, commands, logs, checkpoints, models) and the hardware it
ran on."""

from __future__ import annotations

import csv
import datetime as _dt
import io
import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

from tt_env.train.opponents import _checkpoint_is_whole, _int_or_none, _step_of
from tt_env.util.files import write_text_atomically


# ---------------------------------------------------------------------------------- run files
def _now() -> str:
    return _dt.datetime.now().isoformat(timespec="seconds")


def hardware() -> str:
    """A one-line description of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


class RunFiles:
    """Paths and bookkeeping of one run directory (see the module docstring)."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.checkpoints = self.root / "checkpoints"
        self.league = self.root / "league"
        self.evals = self.root / "eval"  # the evaluated snapshots, step_<steps>.npz
        self.evaluations = "evaluations.csv"  # their results, a row per opponent
        self.tb = self.root / "tb"
        self.state_path = self.root / "state.json"

    def create(self) -> None:
        for d in (self.root, self.checkpoints, self.league):
            d.mkdir(parents=True, exist_ok=True)

    def last_checkpoint(self, log=None) -> Path | None:
        """The newest checkpoint that is whole; a damaged newer one (a write cut short by a
        crash or a full disk) is skipped, and ``log`` says so."""
        found = sorted(self.checkpoints.glob("ckpt_*.zip"), key=_step_of)
        damaged = []
        for path in reversed(found):
            if _checkpoint_is_whole(path):
                if damaged and log is not None:
                    log(
                        f"checkpoint(s) {', '.join(damaged)} damaged (a write cut short?): "
                        f"falling back to {path.name}"
                    )
                return path
            damaged.append(path.name)
        if damaged:
            raise ValueError(
                f"no checkpoint of {self.root} can be read ({', '.join(damaged)} damaged)"
            )
        return None

    def remove_temporary_files(self) -> None:
        """Temporary files left by a run that was killed while writing (see tt_env.util.files)."""
        for folder in (self.root, self.checkpoints, self.league, self.root / "eval"):
            for tmp in folder.glob(".*.tmp") if folder.is_dir() else ():
                tmp.unlink(missing_ok=True)

    def trim_logs(self, steps: int) -> None:
        """Drop the rows of ``progress.csv`` and ``evaluations.csv`` logged after ``steps`` (by
        the part of a run after its last checkpoint, which a resume plays again), and rows cut
        short by a crash."""
        for name in ("progress.csv", "evaluations.csv"):
            path = self.root / name
            if not path.exists():
                continue
            with path.open(newline="") as fh:
                reader = csv.DictReader(fh)
                fields = reader.fieldnames or []
                rows = list(reader)
            kept = [
                r
                for r in rows
                if None not in r.values()
                and None not in r
                and _int_or_none(r.get("timesteps")) is not None
                and int(r["timesteps"]) <= steps
            ]
            if len(kept) == len(rows):
                continue
            out = io.StringIO()
            writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(kept)
            write_text_atomically(path, out.getvalue())

    def state(self) -> dict[str, Any]:
        fresh = {"wall_time": 0.0, "commands": [], "best": None}
        if not self.state_path.exists():
            return fresh
        try:
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
            if isinstance(state, dict):
                return state
        except (OSError, ValueError):
            pass
        print(
            f"tt-train: warning: {self.state_path} is damaged; starting its bookkeeping "
            "(wall time, commands, best evaluation) afresh",
            file=sys.stderr,
        )
        return fresh

    def save_state(self, state: dict[str, Any]) -> None:
        write_text_atomically(self.state_path, json.dumps(state, indent=2))

    def append_csv(self, name: str, row: dict[str, Any]) -> None:
        path = self.root / name
        new = not path.exists()
        with path.open("a", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)
