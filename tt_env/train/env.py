"""The environment as the learner sees it in training: the single-agent view with
:class:`~tt_env.learned.features.CardFeatures` observations, its rewards scaled,
against the pool."""

from __future__ import annotations

import copy
import functools
from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces

from tt_env.game.rules import Rules
from tt_env.learned.features import CardFeatures
from tt_env.train.config import TrainConfig, parse_pool
from tt_env.train.opponents import OpponentPool, PoolSeat


# ---------------------------------------------------------------------------------- environment
class TrainingEnv(gymnasium.Env):
    """The single-agent view (:class:`tt_env.env.single_agent.SingleAgentEnv`) as the learner sees
    it in training: :class:`~tt_env.learned.features.CardFeatures` of its observation, rewards times
    ``reward_scale``, opponents drawn from an :class:`OpponentPool` every episode.

    ``action_masks()`` is the wrapped env's. At the end of an episode ``info["tt_episode"]`` holds
    the unscaled episode reward and the opponents' labels (for the learning curve);
    :attr:`raw_observation` is the last observation before the transform.

    ``baseline`` (an agent spec, with ``episode="round"``): *duplicate deals*. At the learner's
    first decision of each round, a copy of the game (the same deal, the same stock order, the
    same opponents, copied) is played to the round's end with the baseline agent in the
    learner's seat; the learner is then paid its round reward *less* the baseline's on that
    deal. The deal's luck cancels out, and since the baseline's result never depends on the
    learner's actions the policy gradient keeps its expectation (a baseline, in the REINFORCE
    sense) while its variance drops. ``info["tt_episode"]`` keeps the plain reward too.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        rules: Rules,
        opponents: dict[str, float],
        episode: str = "round",
        reward: str = "relative",
        reward_scale: float = 1.0,
        lookahead: bool = True,
        league_dir: str | None = None,
        league_size: int = 5,
        seed: int = 0,
        baseline: str = "",
    ) -> None:
        from tt_env.env.single_agent import SingleAgentEnv

        self.rules = rules
        self.features = CardFeatures(rules, lookahead=lookahead)
        self.seats = [PoolSeat() for _ in range(rules.num_players - 1)]
        self.pool = OpponentPool(opponents, rules, seed, league_dir, league_size)
        # MaskablePPO never picks a masked action: one would be a bug, so it raises.
        self.env = SingleAgentEnv(
            opponents=self.seats,
            rules=rules,
            episode=episode,
            reward=reward,
            illegal_action="raise",
        )
        self.reward_scale = reward_scale
        self.observation_space = spaces.Box(-np.inf, np.inf, (self.features.size,), np.float32)
        self.action_space = self.env.action_space
        self.raw_observation: np.ndarray | None = None
        self._episode_reward = 0.0
        self._episode_length = 0
        self.baseline = baseline
        self._reference = 0.0  # the baseline's round reward on this deal
        if baseline:
            if episode != "round":
                raise ValueError("a duplicate-deal baseline needs episode='round'")
            from tt_env.agents import make_agent
            from tt_env.env.aec import raw_env

            self._baseline_agent = make_agent(baseline, rules.num_players, rules, seed)
            self._replay = raw_env(rules=rules, episode="round", reward=reward)

    def reference_reward(self) -> float:
        """The learner seat's round reward when the baseline agent plays the rest of this round
        in its place, on a copy of the game as it stands (see the class docstring)."""
        env = self._replay
        env.reset(options={"game": self.env.game})  # a copy: the real game is untouched
        learner = self.env.learner
        seated = {a: copy.deepcopy(self.env._seated[i]) for i, a in enumerate(env.possible_agents)}
        seated[learner] = self._baseline_agent
        reward = 0.0
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            if agent == learner:
                reward += r
            if term or trunc:
                env.step(None)
                continue
            env.step(seated[agent].act(obs["observation"], obs["action_mask"]))
        return reward

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.pool.rng = np.random.default_rng([seed, 1])
        for i, seat in enumerate(self.seats):
            seat.label, seat.agent = self.pool.sample(i)
        obs, info = self.env.reset(seed=seed, options=options)
        self._episode_reward, self._episode_length = 0.0, 0
        self.raw_observation = obs
        if self.baseline:
            self._reference = self.reference_reward()
        return self.features(obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        self.raw_observation = obs
        self._episode_reward += reward
        self._episode_length += 1
        if terminated or truncated:
            info["tt_episode"] = {
                "reward": self._episode_reward,
                "length": self._episode_length,
                "opponents": "+".join(sorted(s.label for s in self.seats)),
            }
            if self.baseline:
                info["tt_episode"]["baseline"] = self._reference
                reward -= self._reference
        return self.features(obs), reward * self.reward_scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()


def make_training_env(
    config: TrainConfig, rank: int, seed: int, league_dir: str | None, opponents: str | None = None
) -> TrainingEnv:
    """The environment of worker ``rank`` (a module-level function: picklable for subprocesses)."""
    torch.set_num_threads(1)
    return TrainingEnv(
        config.make_rules(),
        parse_pool(opponents or config.opponents),
        episode=config.episode,
        reward=config.reward,
        reward_scale=config.reward_scale,
        lookahead=config.lookahead,
        league_dir=league_dir,
        league_size=config.league_size,
        seed=seed * 1000 + rank,
        baseline=config.baseline,
    )


def make_vec_env(config: TrainConfig, seed: int, league_dir: str | None):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    fns = [
        functools.partial(make_training_env, config, rank, seed, league_dir)
        for rank in range(config.n_envs)
    ]
    if config.vec_env == "subproc" and config.n_envs > 1:
        vec = SubprocVecEnv(fns, start_method="spawn")
    elif config.vec_env in ("dummy", "subproc"):
        vec = DummyVecEnv(fns)
    else:
        raise ValueError(f"vec_env must be 'subproc' or 'dummy', got {config.vec_env!r}")
    vec.seed(seed)
    return VecMonitor(vec)
