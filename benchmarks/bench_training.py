"""Learner steps per second of ``tt-train``, side by side in one run.

Rows, each timed once training runs (start-up, behaviour cloning and the first rollouts left
out), torch on one thread:

- ``tt-train``'s default of another checkout (``--baseline PATH``): MaskablePPO on its
  training environment with its default settings, timed by that checkout's code in a process
  of its own;
- the lean backend with ``tt-train``'s default settings (self-play on the compiled batch), and
  the environment's share of its steps (stepping the tables and computing their features);
- the lean backend and MaskablePPO on the same network and batch sizes (``--n-envs``,
  ``--n-steps``, ``--batch-size``, ``--n-epochs`` and the network of the default), MaskablePPO
  on ``tt-train``'s environment against counting opponents.

    python benchmarks/bench_training.py --baseline ../tt_env-before
    python benchmarks/bench_training.py --device cuda      # the lean rows on a GPU
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

import gymnasium  # noqa: E402
import numpy as np  # noqa: E402
from gymnasium import spaces  # noqa: E402

LEGAL = [0, 1, 2, 5, 9]  # the legal actions of a do-nothing env
LENGTH = 12  # the steps of its episodes
#: the sb3 backend's setup (tt-train's defaults before the lean backend)
SB3_SETUP = dict(
    backend="sb3",
    opponents="counting=0.35,greedy=0.3,random=0.05,league=0.3",
    n_envs=16,
    n_steps=128,
    batch_size=512,
    n_epochs=4,
    learning_rate=1e-4,
    card_hidden=64,
    trunk_hidden=128,
    lookahead=True,
)


class TrivialEnv(gymnasium.Env):
    """The spaces of the training env, no game: episodes of ``length`` steps."""

    def __init__(self, size: int, length: int = LENGTH) -> None:
        self.observation_space = spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self.action_space = spaces.Discrete(108)
        self._obs = np.zeros(size, np.float32)
        self._mask = np.zeros(108, bool)
        self._mask[LEGAL] = True
        self.length = length
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._obs, {}

    def step(self, action):
        self.t += 1
        done = self.t >= self.length
        return self._obs, 1.0 if done else 0.0, done, False, {}

    def action_masks(self):
        return self._mask


def maskable_ppo(config, env):
    """MaskablePPO with tt-train's CardNet policy and ``config``'s rollout and update sizes."""
    from sb3_contrib import MaskablePPO

    from tt_env.learned.features import CardFeatures
    from tt_env.train import CardPolicy, net_kwargs_for

    features = CardFeatures(config.make_rules(), lookahead=config.lookahead)
    return MaskablePPO(
        CardPolicy,
        env,
        policy_kwargs={"net_kwargs": net_kwargs_for(config, features)},
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        learning_rate=config.learning_rate,
        verbose=0,
        seed=0,
        device="cpu",
    )


def rate(model, steps: int) -> float:
    """Steps per second of ``model.learn`` once its first rollout is done."""
    model.learn(total_timesteps=model.n_steps * model.n_envs)  # warm: compiled code, a rollout
    start = time.perf_counter()
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - start)


def rate_sb3(steps: int, **changes) -> float:
    """MaskablePPO learner steps per second on ``tt-train``'s environment and policy with the
    default settings (and ``changes``), once the first rollout is done."""
    import torch

    from tt_env.train import TrainConfig, make_vec_env

    torch.set_num_threads(1)
    config = TrainConfig(**changes)
    env = make_vec_env(config, seed=0, league_dir=None)
    steps_per_second = rate(maskable_ppo(config, env), steps)
    env.close()
    return steps_per_second


def rate_baseline(path: str, steps: int) -> float:
    """rate_sb3() with the default settings, run by another checkout's tt_env."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_engine, beside this file
    from bench_engine import in_checkout

    return in_checkout(path, "bench_training", f"rate_sb3({steps})")


def rate_lean(steps: int, device: str, **changes) -> tuple[float, float]:
    """Lean backend learner steps per second with the default settings (and ``changes``), and
    the environment's share of a step."""
    import torch

    from tt_env.train import TrainConfig
    from tt_env.train.backends.lean import LeanTrainer, Seats, pick_device, train_loop
    from tt_env.vector.native import CompiledSelfPlay

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        config = TrainConfig(
            **{
                "backend": "lean",
                "eval_opponents": "",
                "checkpoint_every": 0,
                "league_every": 0,
                "eval_every": 0,
                "progress_bar": False,
                **changes,
            }
        )
        run = LeanTrainer(config, Path(tmp) / "bench", "bench", False)
        run.files.create()
        where = pick_device(device)
        model = run.learner(where)
        tables = CompiledSelfPlay(config.n_envs, run.rules, episode=config.episode)
        seats = Seats(config, run.rules, league_dir=run.files.league, device=where, seed=0)
        seats.net_kwargs = run.net_kwargs
        run.at_boundary(model)  # the snapshot of step 0, and the schedule
        loop = dict(tables=tables, seats=seats, device=where, seed=0)
        config.total_timesteps = 2 * config.n_steps * config.n_envs
        train_loop(run, model, **loop)  # warm
        config.total_timesteps = model.num_timesteps + steps
        totals = train_loop(run, model, **loop)
        model.logger.close()
    return totals["steps"] / totals["seconds"], totals["environment_seconds"] / totals["seconds"]


def main() -> None:
    from tt_env.game.melds import kernel_status
    from tt_env.train import TrainConfig

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000, help="timed lean steps per row")
    parser.add_argument("--sb3-steps", type=int, default=8192, help="timed MaskablePPO steps")
    parser.add_argument("--baseline", help="a checkout whose tt-train default to time")
    parser.add_argument("--device", default="cpu", help="the lean rows' device (cpu, cuda)")
    args = parser.parse_args()
    default = TrainConfig()
    print(f"torch threads 1; lean device {args.device}; {kernel_status()}")
    rows = []
    if args.baseline:
        rows.append(
            (
                f"tt-train default of {Path(args.baseline).name} (sb3)",
                rate_baseline(args.baseline, args.sb3_steps),
                None,
            )
        )
    lean, share = rate_lean(args.steps, args.device)
    rows.append((f"tt-train default ({default.backend})", lean, share))
    same = {
        name: getattr(default, name)
        for name in ("n_envs", "n_steps", "batch_size", "n_epochs", "card_hidden", "trunk_hidden")
    }
    sizes = ", ".join(f"{k} {v}" for k, v in same.items())
    rows.append(
        (
            "MaskablePPO, same network and batch",
            rate_sb3(args.sb3_steps, bc_teacher="none", opponents="counting", **same),
            None,
        )
    )
    print(f"default settings: {sizes}, lookahead {default.lookahead}, episode {default.episode}")
    for name, rate, env_share in rows:
        extra = f"   environment {100 * env_share:.0f}% of a step" if env_share is not None else ""
        print(f"{name:48}{rate:>10,.0f} learner steps/s{extra}")
    if args.baseline:
        print(f"lean default / baseline default: {lean / rows[0][1]:.1f}x")
    print(f"lean / MaskablePPO on the same network and batch: {lean / rows[-1][1]:.1f}x")


if __name__ == "__main__":
    main()
