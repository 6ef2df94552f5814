"""The sb3 backend: MaskablePPO's policy over :class:`~tt_env.learned.network.CardNet`, the
callback that logs, evaluates and snapshots, and :class:`Trainer`, which runs it all."""

from __future__ import annotations

import dataclasses
import os
import platform
import random
import shutil
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.learned.features import CardFeatures
from tt_env.learned.model import build_metadata, save_model
from tt_env.learned.network import CardNet, numpy_weights
from tt_env.train.config import TrainConfig, config_to_toml
from tt_env.train.env import make_vec_env, oracle_width
from tt_env.train.evaluate import evaluation
from tt_env.train.expert import expert_iteration, load_weights
from tt_env.train.imitation import (
    behaviour_clone,
    collect_teacher_data,
    load_teacher_data,
    save_teacher_data,
)
from tt_env.train.opponents import _step_of
from tt_env.train.plot import plot_run
from tt_env.train.runs import RunFiles, _now, hardware
from tt_env.util.files import atomic_file, atomic_path, write_text_atomically


# ---------------------------------------------------------------------------------- policy
class _Extractor(nn.Module):
    """SB3's ``mlp_extractor`` slot: the whole :class:`CardNet`, whose "latents" are already the
    108 logits and the value."""

    def __init__(self, net: CardNet) -> None:
        super().__init__()
        self.net = net
        self.latent_dim_pi = NUM_ACTIONS
        self.latent_dim_vf = 1

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.net(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.net.actor(features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.net.critic(features)


class CardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with :class:`CardNet` as actor and critic (``net_kwargs`` builds it);
    the logits and the value come straight out of the network."""

    def __init__(self, *args, net_kwargs: dict[str, Any] | None = None, **kwargs) -> None:
        self.net_kwargs = dict(net_kwargs or {})
        kwargs["ortho_init"] = False  # CardNet keeps PyTorch's default initialisation
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _Extractor(CardNet(**self.net_kwargs))

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        self.value_net = nn.Identity()
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["net_kwargs"] = self.net_kwargs
        return data


def net_kwargs_for(config: TrainConfig, features: CardFeatures) -> dict[str, Any]:
    return {
        "global_width": features.global_width,
        "card_hidden": config.card_hidden,
        "trunk_hidden": config.trunk_hidden,
    }


# ---------------------------------------------------------------------------------- callback
def _make_callback(trainer: Trainer):
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        """Logs the learning curve, and at rollout boundaries (after each PPO update) saves
        checkpoints, league snapshots and runs evaluations."""

        def __init__(self) -> None:
            super().__init__()
            self.episodes: dict[str, list[float]] = defaultdict(list)
            self.advantages: dict[str, list[float]] = defaultdict(list)

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("tt_episode")
                if ep is not None:
                    self.episodes[ep["opponents"]].append(ep["reward"])
                    if "baseline" in ep:  # duplicate deals: the reward less the baseline's
                        self.advantages[ep["opponents"]].append(ep["reward"] - ep["baseline"])
            return True

        def _on_rollout_start(self) -> None:
            trainer.at_boundary(self.model)

        def _on_rollout_end(self) -> None:
            steps = self.model.num_timesteps
            wall = trainer.wall_time()
            everything = [r for v in self.episodes.values() for r in v]
            rows = [("all", everything)] + sorted(self.episodes.items())
            for name, rewards in rows:
                if not rewards:
                    continue
                mean = float(np.mean(rewards))
                row = {
                    "timesteps": steps,
                    "wall_time": round(wall, 1),
                    "opponents": name,
                    "episodes": len(rewards),
                    "mean_reward": round(mean, 4),
                }
                if trainer.config.baseline:
                    gained = (
                        [a for v in self.advantages.values() for a in v]
                        if name == "all"
                        else self.advantages.get(name, [])
                    )
                    row["mean_vs_baseline"] = round(float(np.mean(gained)), 4) if gained else ""
                    if gained:
                        self.logger.record(f"episode/vs_baseline_{name}", float(np.mean(gained)))
                trainer.files.append_csv("progress.csv", row)
                self.logger.record(f"episode/reward_vs_{name}", mean)
            self.episodes.clear()
            self.advantages.clear()

    return TrainingCallback()


# ---------------------------------------------------------------------------------- trainer
class Trainer:
    """One training run: builds or resumes it, trains, evaluates, exports (see :func:`train`)."""

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

    def metadata(self, steps: int) -> dict[str, Any]:
        import sb3_contrib
        import stable_baselines3

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
                    "stable_baselines3": stable_baselines3.__version__,
                    "sb3_contrib": sb3_contrib.__version__,
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
            parts.append("MaskablePPO (sb3-contrib)")
        return ", then ".join(parts) or "untrained"

    def policy_net_kwargs(self) -> dict[str, Any]:
        """The trained CardNet's arguments: the model file's, and the oracle critic's input."""
        if not self.config.oracle_critic:
            return dict(self.net_kwargs)
        return {**self.net_kwargs, "oracle_width": oracle_width(self.rules)}

    def network(self, model) -> CardNet:
        """The torch network that ``model`` trains."""
        return model.policy.mlp_extractor.net

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
        steps = model.num_timesteps
        if steps >= self.next_league or final:
            self.export(model, self.files.league / f"step_{steps:09d}.npz")
        if (steps >= self.next_eval or final) and steps != self._evaluated_at:
            self.evaluate(model)
        if steps >= self.next_checkpoint or final:
            self.checkpoint(model)
        if steps >= min(self.next_league, self.next_eval, self.next_checkpoint):
            self._schedule(steps)

    def checkpoint(self, model) -> None:
        steps = model.num_timesteps
        path = self.files.checkpoints / f"ckpt_{steps:09d}.zip"
        with atomic_file(path, "wb") as fh:  # a crash or a full disk leaves no torn checkpoint
            model.save(fh)
        self._state["wall_time"] = self.wall_time()
        self._state["timesteps"] = steps
        self.files.save_state(self._state)

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
            if getattr(model, "_logger", None) is not None:  # none before learn() starts
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

    def run(self) -> Path:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.utils import set_random_seed

        c = self.config
        torch.set_num_threads(c.threads)
        root = self.files.root
        made = [p for p in (root, *root.parents) if not p.exists()]  # removed if setup fails
        env = None
        kwargs = dict(
            learning_rate=c.learning_rate,
            n_steps=c.n_steps,
            batch_size=c.batch_size,
            n_epochs=c.n_epochs,
            gamma=c.gamma,
            gae_lambda=c.gae_lambda,
            clip_range=c.clip_range,
            ent_coef=c.ent_coef,
            vf_coef=c.vf_coef,
            max_grad_norm=c.max_grad_norm,
            target_kl=c.target_kl or None,
        )
        try:  # setting up: a failure here leaves no half-made run directory
            self.files.create()
            checkpoint = None
            if self.resume:
                self.files.remove_temporary_files()
                checkpoint = self.files.last_checkpoint(log=self.log)
            steps0 = _step_of(checkpoint) if checkpoint else 0
            if self.resume:
                self.files.trim_logs(steps0)  # the steps after it are played again
            self._state.setdefault("commands", []).append(self.command)
            self.files.save_state(self._state)
            with (root / "command.txt").open("a") as fh:
                fh.write(self.command + "\n")
            write_text_atomically(root / "config.toml", config_to_toml(c))
            seed = c.seed + steps0  # a resumed run plays other deals than the first part
            set_random_seed(seed)
            random.seed(seed)
            env = make_vec_env(c, seed, str(self.files.league))
            if checkpoint is not None:
                self.log(f"resuming {root} from {checkpoint.name} ({steps0:,} steps done)")
                model = MaskablePPO.load(
                    checkpoint, env=env, device="cpu", tensorboard_log=str(self.files.tb), **kwargs
                )
            else:
                model = MaskablePPO(
                    CardPolicy,
                    env,
                    seed=seed,
                    device="cpu",
                    verbose=0,
                    tensorboard_log=str(self.files.tb),
                    policy_kwargs={"net_kwargs": self.policy_net_kwargs()},
                    **kwargs,
                )
        except BaseException:
            if env is not None:
                env.close()
            if made:  # the run directory and the folders above it made for it
                shutil.rmtree(made[-1], ignore_errors=True)
            raise
        try:
            if checkpoint is None:
                self.start_network(model)
            # expert iteration before PPO; a resume goes on from its last whole round
            exit_now = model.num_timesteps == 0 and c.exit_iterations > self._state.get(
                "exit", {}
            ).get("done", 0)
            if exit_now:
                expert_iteration(self, self.network(model))
            if checkpoint is None or exit_now:
                self.export(model, self.files.league / f"step_{0:09d}.npz")
            if c.exit_iterations > 0 and model.num_timesteps == 0:
                self._evaluated_at = 0  # the last round of expert iteration was (exit.csv)
            elif checkpoint is None and self.eval_specs and self.config.eval_every > 0:
                self.evaluate(model)  # the starting point of the learning curve
            self._schedule(model.num_timesteps)
            remaining = c.total_timesteps - model.num_timesteps
            if remaining > 0:
                self.log(
                    f"PPO: {model.num_timesteps:,} -> {c.total_timesteps:,} steps, "
                    f"{c.n_envs} envs ({c.vec_env}), opponents {c.opponents}"
                )
                model.learn(
                    remaining,
                    callback=_make_callback(self),
                    reset_num_timesteps=checkpoint is None,
                    tb_log_name="ppo",
                    progress_bar=c.progress_bar,
                )
            self.at_boundary(model, final=True)
            final = self.export(model, self.files.root / "model.npz")
        finally:
            env.close()
        self._state["wall_time"] = self.wall_time()
        self.files.save_state(self._state)
        self.finish(final)
        self.log(
            f"done: {model.num_timesteps:,} steps, {self.wall_time() / 60:.1f} min "
            f"in total; model {final}"
        )
        return final

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
