"""How much of a training step is the environment? MaskablePPO env-steps per second on the
training setup and on a trivial environment with the same spaces, side by side in one run.

The training setup is what ``tt-train`` builds: :class:`tt_env.train.TrainingEnv` (the
single-agent view, CardFeatures of the observation, counting opponents) in ``n_envs``
environments, and the CardNet policy. The trivial environment has the same observation and
action spaces and masks but does nothing (a constant observation, a few legal actions, fixed
episode length), so its rate is the learner's own cost. The environment's share of a training
step is then ``1 - rate(training) / rate(trivial)``. Torch runs on one thread.

    python benchmarks/bench_training.py --steps 8192 --n-envs 2 --vec-env dummy
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np
from gymnasium import spaces

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

import torch  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from tt_env.encoding.actions import NUM_ACTIONS  # noqa: E402
from tt_env.game.melds import _kernel  # noqa: E402
from tt_env.learned.features import CardFeatures  # noqa: E402
from tt_env.train import CardPolicy, TrainConfig, make_vec_env, net_kwargs_for  # noqa: E402

LEGAL = [0, 1, 2, 5, 9]  # the legal actions of a do-nothing env
LENGTH = 12  # the steps of its episodes


class TrivialEnv(gymnasium.Env):
    """The spaces of the training env, no game: episodes of ``length`` steps."""

    def __init__(self, size: int, length: int = LENGTH) -> None:
        self.observation_space = spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self._obs = np.zeros(size, np.float32)
        self._mask = np.zeros(NUM_ACTIONS, bool)
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


def rate(model, steps: int) -> float:
    model.learn(total_timesteps=min(2048, steps))  # warm: compiled code, first rollouts
    start = time.perf_counter()
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - start)


def maskable_ppo(config: TrainConfig, env) -> MaskablePPO:
    """MaskablePPO with tt-train's CardNet policy and ``config``'s rollout and update sizes."""
    features = CardFeatures(config.make_rules(), lookahead=config.lookahead)
    return MaskablePPO(
        CardPolicy,
        env,
        policy_kwargs={"net_kwargs": net_kwargs_for(config, features)},
        n_steps=config.n_steps,
        batch_size=config.batch_size,
        n_epochs=config.n_epochs,
        verbose=0,
        seed=0,
        device="cpu",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=8192, help="timed PPO steps per figure")
    parser.add_argument("--n-envs", type=int, default=2)
    parser.add_argument("--n-steps", type=int, default=1024, help="rollout length per env")
    parser.add_argument("--vec-env", choices=("dummy", "subproc"), default="dummy")
    parser.add_argument("--opponents", default="counting=1")
    args = parser.parse_args()
    torch.set_num_threads(1)
    config = TrainConfig(
        n_envs=args.n_envs,
        vec_env=args.vec_env,
        opponents=args.opponents,
        n_steps=args.n_steps,
        batch_size=512,
        n_epochs=4,
    )
    features = CardFeatures(config.make_rules(), lookahead=config.lookahead)
    print(
        f"MaskablePPO, CardNet, {args.n_envs} env(s) ({args.vec_env}), n_steps "
        f"{args.n_steps}, batch 512, 4 epochs, torch threads 1; {_kernel.status()}"
    )
    real_env = make_vec_env(config, seed=0, league_dir=None)
    real = rate(maskable_ppo(config, real_env), args.steps)
    real_env.close()
    from stable_baselines3.common.vec_env import DummyVecEnv

    trivial_env = DummyVecEnv([lambda: TrivialEnv(features.size)] * args.n_envs)
    trivial = rate(maskable_ppo(config, trivial_env), args.steps)
    print(f"{'training env (' + args.opponents + ' opponents)':44}{real:>10,.0f} steps/s")
    print(f"{'trivial env, same spaces':44}{trivial:>10,.0f} steps/s")
    print(f"environment side of a training step: {100 * (1 - real / trivial):.0f}%")


if __name__ == "__main__":
    main()
