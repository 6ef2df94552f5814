"""The sb3 backend of ``tt-train``: MaskablePPO's policy over
:class:`~tt_env.learned.network.CardNet`, the callback that logs, evaluates and snapshots, and
:class:`SB3Trainer`, which runs it all around :class:`~tt_env.train.run.TrainingRun`'s run
files, warm start, evaluations and model files, with checkpoints and a self-play league."""

from __future__ import annotations

import random
import shutil
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.learned.network import CardNet
from tt_env.train.env import make_vec_env, oracle_width
from tt_env.train.expert import expert_iteration
from tt_env.train.opponents import _step_of
from tt_env.train.run import TrainingRun
from tt_env.util.files import atomic_file


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


# ---------------------------------------------------------------------------------- callback
def _make_callback(trainer: SB3Trainer):
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
class SB3Trainer(TrainingRun):
    """A run of ``tt-train`` (``backend = "sb3"``): MaskablePPO on vectorised
    :class:`~tt_env.train.TrainingEnv` tables, with checkpoints (``--resume``), the self-play
    league's snapshots and expert iteration."""

    def ppo_name(self) -> str:
        return "MaskablePPO (sb3-contrib)"

    def backend_versions(self) -> dict[str, str]:
        import sb3_contrib
        import stable_baselines3

        return {
            "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__,
        }

    def policy_net_kwargs(self) -> dict[str, Any]:
        """The trained CardNet's arguments: the model file's, and the oracle critic's input."""
        if not self.config.oracle_critic:
            return dict(self.net_kwargs)
        return {**self.net_kwargs, "oracle_width": oracle_width(self.rules)}

    def network(self, model) -> CardNet:
        """The torch network that ``model`` trains."""
        return model.policy.mlp_extractor.net

    # -------------------------------------------------------------- periodic work
    def at_boundary(self, model, final: bool = False) -> None:
        """Between two rollouts: the league's snapshot, the evaluation and the checkpoint that
        are due (all three at the end, ``final``)."""
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

    # -------------------------------------------------------------- the run
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
            checkpoint = self.open_files()  # resuming, the steps after it are played again
            steps0 = _step_of(checkpoint) if checkpoint else 0
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
        return self.close(model, final)


#: the sb3 trainer under the name it has on :mod:`tt_env.train`'s face
Trainer = SB3Trainer
