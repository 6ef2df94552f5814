"""The backend-neutral part of a ``tt-train`` run, :class:`TrainingRun`: the run directory and its
files, the warm start, the evaluations of model files, the model files and the learning curve.
A backend (:mod:`tt_env.train.backends`) adds the PPO that trains the network."""

from __future__ import annotations

import dataclasses
import os
import platform
import shutil
import time
from pathlib import Path
from typing import Any

import torch

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.learned.features import CardFeatures
from tt_env.learned.model import build_metadata, save_model
from tt_env.learned.network import CardNet, numpy_weights
from tt_env.train.config import TrainConfig, config_to_toml
from tt_env.train.evaluate import evaluation
from tt_env.train.expert import load_weights
from tt_env.train.imitation import (
    behaviour_clone,
    collect_teacher_data,
    load_teacher_data,
    save_teacher_data,
)
from tt_env.train.opponents import _step_of
from tt_env.train.plot import plot_run
from tt_env.train.runs import RunFiles, _now, hardware
from tt_env.util.files import atomic_path, write_text_atomically


def net_kwargs_for(config: TrainConfig, features: CardFeatures) -> dict[str, Any]:
    return {
        "global_width": features.global_width,
        "card_hidden": config.card_hidden,
        "trunk_hidden": config.trunk_hidden,
    }


# ---------------------------------------------------------------------------------- trainer
class TrainingRun:
    """One training run, whatever trains it: builds or resumes it, fits the warm start,
    evaluates, exports (see :func:`train`). A backend (:mod:`tt_env.train.backends`) subclasses
    it with :meth:`run`, :meth:`network`, :meth:`ppo_name` and :meth:`backend_versions`."""

    def __init__(self, config: TrainConfig, run_root: Path, command: str, resume: bool) -> None:
        self.config = config
        self.rules = config.make_rules()
        self.files = RunFiles(run_root)
        self.command = command
        self.resume = resume
        self.features = CardFeatures(self.rules, lookahead=config.lookahead)
        self.net_kwargs = net_kwargs_for(config, self.features)
        self._start = time.perf_counter()
        self._state = self.files.state()
        self._wall_before = float(self._state.get("wall_time", 0.0))
        self.next_checkpoint = self.next_league = self.next_eval = 0
        self._evaluated_at = -1  # the step count of the last evaluation (never twice)
        from tt_env.agents import split_specs

        self.eval_specs = split_specs(config.eval_opponents)

    # -------------------------------------------------------------- helpers
    def wall_time(self) -> float:
        return self._wall_before + time.perf_counter() - self._start

    def log(self, text: str) -> None:
        print(f"[tt-train {time.strftime('%H:%M:%S')}] {text}", flush=True)

    def state_part(self, key: str, default: dict[str, Any]) -> dict[str, Any]:
        """The part ``key`` of the run's state (``default`` if new), to change and then save."""
        return self._state.setdefault(key, default)

    def save_state(self) -> None:
        """Write the run's state as it stands (the run's ``state.json``, read to resume)."""
        self.files.save_state(self._state)

    def metadata(self, steps: int) -> dict[str, Any]:
        return build_metadata(
            self.rules,
            self.features,
            self.net_kwargs,
            training={
                "algorithm": self.algorithm(),
                "timesteps": int(steps),  # PPO steps behind this network (0: the warm start)
                "wall_time_seconds": round(self.wall_time(), 1),
                "commands": list(self._state.get("commands", [])),
                "config": dataclasses.asdict(self.config),
                "hardware": hardware(),
                "versions": {
                    "torch": torch.__version__,
                    **self.backend_versions(),
                    "python": platform.python_version(),
                },
                "bc": self._state.get("bc"),
                "expert_iteration": self._state.get("exit"),
                "run": str(self.files.root),
                "saved": _now(),
            },
        )

    def algorithm(self) -> str:
        """How the network was made, in words, as far as the run has gone."""
        c = self.config
        parts = []
        if c.init_model.strip():
            parts.append(f"the weights of {c.init_model.strip()}")
        elif self._bc_on():
            parts.append(f"behaviour cloning of {c.bc_teacher}")
        done = self._state.get("exit", {}).get("done", 0)
        if done:
            parts.append(
                f"{done} round(s) of expert iteration ({c.exit_teacher} led by the network)"
            )
        if c.total_timesteps > 0:
            parts.append(self.ppo_name())
        return ", then ".join(parts) or "untrained"

    def ppo_name(self) -> str:
        """The backend's PPO, in words, for :meth:`algorithm`."""
        raise NotImplementedError

    def backend_versions(self) -> dict[str, str]:
        """The versions of the backend's packages, for a model file's metadata."""
        return {}

    def run(self) -> Path:
        """Train; the final model file."""
        raise NotImplementedError

    def network(self, model) -> CardNet:
        """The torch network that ``model`` (the backend's) trains."""
        raise NotImplementedError

    def export(self, model, path: Path) -> Path:
        return save_model(
            path, numpy_weights(self.network(model)), self.metadata(model.num_timesteps)
        )

    def _bc_on(self) -> bool:
        return self.config.bc_teacher.strip().lower() not in ("", "none")

    def _workers(self) -> int:
        return max(1, self.config.eval_workers or (os.cpu_count() or 1))

    # -------------------------------------------------------------- periodic work
    def _schedule(self, steps: int) -> None:
        c = self.config

        def nxt(every: int) -> int:
            return (steps // every + 1) * every if every > 0 else 1 << 62

        self.next_checkpoint, self.next_league, self.next_eval = (
            nxt(c.checkpoint_every),
            nxt(c.league_every),
            nxt(c.eval_every),
        )

    def at_boundary(self, model, final: bool = False) -> None:
        """Between two rollouts: the evaluations that are due (and at the end, ``final``)."""
        steps = model.num_timesteps
        if (steps >= self.next_eval or final) and steps != self._evaluated_at:
            self.evaluate(model)
        if steps >= self.next_eval:
            self._schedule(steps)

    def evaluate(self, model) -> dict[str, Any]:
        steps = self._evaluated_at = model.num_timesteps
        path = self.export(model, self.files.evals / f"step_{steps:09d}.npz")
        return self.evaluate_file(
            path,
            {"timesteps": steps},
            csv_name=self.files.evaluations,
            best_key={"timesteps": steps},
            model=model,
        )

    def evaluate_file(
        self,
        path: Path,
        extra: dict[str, Any],
        *,
        csv_name: str,
        best_key: dict[str, Any],
        model=None,
    ) -> dict[str, Any]:
        """Play the model file ``path`` against each of ``eval_opponents``; a row per opponent
        (``extra`` first) in ``csv_name``; ``best.npz`` becomes ``path`` when the first
        opponent's difference is the lowest so far (``best_key`` says where it came from)."""
        out = {}
        where = ", ".join(f"{k} {v:,}" for k, v in extra.items() if k in ("timesteps", "round"))
        for spec in self.eval_specs:
            t0 = time.perf_counter()
            core, pair = evaluation(
                path,
                spec,
                self.rules,
                games=self.config.eval_games,
                seed=self.config.eval_seed,
                workers=self._workers(),
                episode=self.config.eval_episode,
            )
            other = core["opponent"]
            row = {**extra, "wall_time": round(self.wall_time(), 1), **core}
            self.files.append_csv(csv_name, row)
            if getattr(model, "logger", None) is not None:  # none before learn() starts
                model.logger.record(f"eval/diff_vs_{other}", pair.mean)
                model.logger.record(f"eval/win_rate_vs_{other}", core["win_rate"])
            self.log(
                f"eval at {where} vs {other}: score difference "
                f"{pair.format(2)} per game (negative: the learner scores less), win rate "
                f"{core['win_rate']:.1%}, {core['games']} games in "
                f"{time.perf_counter() - t0:.0f} s"
            )
            out[other] = row
        if self.eval_specs:
            first = out[next(iter(out))]
            best = self._state.get("best")
            if best is None or first["diff"] < best["diff"]:
                _copy_atomically(path, self.files.root / "best.npz")
                self._state["best"] = {
                    **best_key,
                    "diff": first["diff"],
                    "opponent": first["opponent"],
                }
                self.files.save_state(self._state)
        return out

    # -------------------------------------------------------------- the run
    def open_files(self) -> Path | None:
        """Make the run directory (resuming: tidy it, and cut its logs back to the checkpoint),
        and record the command and the config; the checkpoint to resume from (None: a new
        run)."""
        self.files.create()
        checkpoint = None
        if self.resume:
            self.files.remove_temporary_files()
            checkpoint = self.files.last_checkpoint(log=self.log)
            self.files.trim_logs(_step_of(checkpoint) if checkpoint else 0)
        self._state.setdefault("commands", []).append(self.command)
        self.files.save_state(self._state)
        with (self.files.root / "command.txt").open("a") as fh:
            fh.write(self.command + "\n")
        write_text_atomically(self.files.root / "config.toml", config_to_toml(self.config))
        return checkpoint

    def close(self, model, final: Path) -> Path:
        """The run's end: its state saved, the learning curve drawn, ``output`` written."""
        self._state["wall_time"] = self.wall_time()
        self.files.save_state(self._state)
        self.finish(final)
        self.log(
            f"done: {model.num_timesteps:,} steps, {self.wall_time() / 60:.1f} min "
            f"in total; model {final}"
        )
        return final

    def warm_start(self, model) -> None:
        c = self.config
        t0 = time.perf_counter()
        net = self.network(model)
        if c.bc_data.strip():
            data = load_teacher_data(c.bc_data, self.features.size, NUM_ACTIONS)
            self.log(f"behaviour cloning: {len(data['action']):,} decisions from {c.bc_data}")
        else:
            # the teacher's games run in parallel processes (whatever the PPO environments use)
            workers = max(1, min(os.cpu_count() or 1, c.n_envs))
            self.log(
                f"behaviour cloning: collecting {c.bc_samples:,} decisions of "
                f"{c.bc_teacher} on {workers} process(es)"
            )

            def progress(done: int, total: int, seconds: float) -> None:
                left = seconds * (total - done) / done if done else float("nan")
                self.log(
                    f"  {done:,} of {total:,} decisions in {seconds / 60:.0f} min"
                    + (f", about {left / 60:.0f} min left" if done else "")
                )

            data = collect_teacher_data(
                c, workers, progress, every=600.0 if not c.progress_bar else 60.0
            )
            save_teacher_data(self.files.root / "bc_data.npz", data)
            t1 = time.perf_counter()
            self.log(
                f"collected {len(data['action']):,} decisions in {t1 - t0:.0f} s "
                "(saved: bc_data.npz); fitting"
            )

        def log(epoch: int, stats: dict[str, float]) -> None:
            self.log(
                f"  epoch {epoch}: held-out accuracy {stats['accuracy']:.3f}, policy loss "
                f"{stats['policy_loss']:.3f}, value loss {stats['value_loss']:.3f}"
            )

        # the values weigh where there are any (a search teacher); the settings' check refused
        # a run whose only fit is this one and has none
        temperature = c.bc_value_temperature if "values" in data else 0.0
        stats = behaviour_clone(
            net,
            data,
            epochs=c.bc_epochs,
            lr=c.bc_lr,
            batch_size=c.bc_batch_size,
            seed=c.seed,
            log=log,
            temperature=temperature,
        )
        self._state["bc"] = {
            "teacher": c.bc_teacher,
            "samples": int(len(data["action"])),
            "seconds": round(time.perf_counter() - t0, 1),
            **{k: round(v, 4) for k, v in stats.items()},
        }
        self.files.save_state(self._state)
        save_model(self.files.root / "bc.npz", numpy_weights(net), self.metadata(0))

    def start_network(self, model) -> None:
        """The network before PPO: ``init_model``'s weights, or the warm start (on a resume, the
        warm start already made, ``bc.npz``), or as initialised."""
        c = self.config
        if c.init_model.strip():
            from tt_env.agents.learned import find_model

            found = find_model(c.init_model.strip())
            if found is None:
                raise ValueError(f"setting init_model: no model file or name {c.init_model!r}")
            load_weights(self.network(model), found)
            self.log(f"starting from the weights of {found}")
        elif self._bc_on():
            made = self.files.root / "bc.npz"
            if self.resume and self._state.get("bc") and made.exists():
                load_weights(self.network(model), made)
                self.log("warm start: done before (bc.npz)")
            else:
                self.warm_start(model)

    def finish(self, final: Path) -> None:
        """The learning curve, and the model copied to ``output``."""
        c = self.config
        try:
            plot_run(self.files.root)
        except Exception as exc:  # a plot is a convenience; never lose a run to it
            self.log(f"could not plot the run: {exc}")
        if c.output:
            source = (
                self.files.root / "best.npz"
                if (c.final_model == "best" and (self.files.root / "best.npz").exists())
                else final
            )
            Path(c.output).parent.mkdir(parents=True, exist_ok=True)
            _copy_atomically(source, Path(c.output))
            self.log(f"copied {source.name} to {c.output}")


def _copy_atomically(source: Path, target: Path) -> None:
    with atomic_path(target) as tmp:
        shutil.copyfile(source, tmp)
