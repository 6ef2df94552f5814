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

from tt_env.game.cards import NUM_KINDS
from tt_env.game.rules import Rules
from tt_env.learned.features import CardFeatures
from tt_env.train.config import TrainConfig, parse_pool
from tt_env.train.opponents import OpponentPool, PoolSeat
from tt_env.vector.batch import answer_together, play_opponents
from tt_env.vector.sb3 import TablesVecEnv


# ---------------------------------------------------------------------------------- environment
def oracle_width(rules: Rules) -> int:
    """How many numbers :meth:`TrainingEnv.oracle_features` gives under ``rules``."""
    return (rules.num_players + 1) * NUM_KINDS


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

    ``oracle``: each observation is followed by :meth:`oracle_features`, the hidden cards, for
    an oracle critic (:class:`tt_env.learned.network.CardNet` with ``oracle_width``); the policy
    never reads them.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        rules: Rules,
        opponents: dict[str, float],
        *,
        episode: str = "round",
        reward: str = "relative",
        reward_scale: float = 1.0,
        lookahead: bool = True,
        league_dir: str | None = None,
        league_size: int = 5,
        seed: int = 0,
        baseline: str = "",
        models: dict[str, Any] | None = None,
        oracle: bool = False,
    ) -> None:
        from tt_env.env.single_agent import SingleAgentEnv

        self.rules = rules
        self.features = CardFeatures(rules, lookahead=lookahead)
        self.seats = [PoolSeat() for _ in range(rules.num_players - 1)]
        self.pool = OpponentPool(
            opponents, rules, seed, league_dir=league_dir, league_size=league_size, models=models
        )
        # MaskablePPO never picks a masked action: one would be a bug, so it raises.
        self.env = SingleAgentEnv(
            opponents=self.seats,
            rules=rules,
            episode=episode,
            reward=reward,
            illegal_action="raise",
        )
        self.reward_scale = reward_scale
        self.oracle_width = oracle_width(rules) if oracle else 0
        self.observation_space = spaces.Box(
            -np.inf, np.inf, (self.features.size + self.oracle_width,), np.float32
        )
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
        self.begin_reference()
        while (asked := self.reference_request()) is not None:
            agent, obs, mask, _ = asked
            self.play_reference(agent.act(obs, mask))
        return self._reference

    # The replay of reference_reward() in parts, for the batch (TrainingVecEnv), which answers
    # the replays of every table together.
    def begin_reference(self) -> None:
        """The first part of :meth:`reference_reward`: the replay starts from a copy of the game."""
        self._replay.reset(options={"game": self.env.game})  # a copy: the real game is untouched
        learner = self.env.learner
        self._replay_seats = {
            a: self._baseline_agent if a == learner else _replay_copy(self.env.agent_in_seat(i))
            for i, a in enumerate(self._replay.possible_agents)
        }
        self._reference = 0.0

    def reference_request(self):
        """``(agent, observation, mask, name)`` for the next move of the replay, or None once
        the round has ended (then the baseline's reward on this deal is known)."""
        env, learner = self._replay, self.env.learner
        while env.agents:
            agent = env.agent_selection
            obs, r, term, trunc, _ = env.last()
            if agent == learner:
                self._reference += r
            if term or trunc:
                env.step(None)
                continue
            return self._replay_seats[agent], obs["observation"], obs["action_mask"], agent
        return None

    def play_reference(self, action: int) -> None:
        """Play ``action``, the answer to :meth:`reference_request`, in the replay."""
        self._replay.step(action)

    def oracle_features(self) -> np.ndarray:
        """The hidden cards as the learner's seat would never see them, ``oracle_width(rules)``
        numbers: the hand of each other seat, in playing order from the learner's left (53
        counts each), the stock (53 counts), and the stock's top card (53, one-hot; zeros when
        the stock is empty)."""
        game, n = self.env.game, self.rules.num_players
        hands = game.all_hands()
        stock = game.stock_cards()
        out = np.zeros((n + 1, NUM_KINDS), np.float32)
        for k in range(1, n):
            out[k - 1] = hands[(self.env.learner_seat + k) % n]
        np.add.at(out[n - 1], stock, 1.0)
        if stock:
            out[n, stock[-1]] = 1.0
        return out.ravel()

    def _observe(self, obs: np.ndarray) -> np.ndarray:
        x = self.features(obs)
        if self.oracle_width:
            x = np.concatenate([x, self.oracle_features()])
        return x

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        self.begin_reset(seed, options)
        self.env.play_opponents()
        return self.reset_result()

    def step(self, action):
        self.env.play_learner(int(action))
        self.env.play_opponents()
        return self.step_result()

    # The parts of reset() and step() around the opponents' moves, for the batch
    # (TrainingVecEnv), which plays the opponents of every table together in between.
    def begin_reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """The first part of :meth:`reset`: draw the opponents from the pool, deal the episode."""
        super().reset(seed=seed)
        if seed is not None:
            self.pool.rng = np.random.default_rng([seed, 1])
        for i, seat in enumerate(self.seats):
            seat.label, seat.agent = self.pool.sample(i)
        self.env.begin_reset(seed, options)

    def reset_result(self, replay: bool = True):
        """What :meth:`reset` returns, once the opponents before the learner have moved;
        ``replay=False`` leaves the baseline's replay of the deal to the caller."""
        obs, info = self.env.reset_result()
        self._episode_reward, self._episode_length = 0.0, 0
        self.raw_observation = obs
        if self.baseline and replay:  # the batch replays every table's deal together
            self._reference = self.reference_reward()
        return self._observe(obs), info

    def step_result(self):
        """What :meth:`step` returns, once the opponents have moved."""
        obs, reward, terminated, truncated, info = self.env.step_result()
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
        return self._observe(obs), reward * self.reward_scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()


def _replay_copy(seat: Any) -> Any:
    """The agent of an opponent seat for a replay of its game: a copy, so that the real seat's
    generator and memory stay as they were, unless the agent keeps neither (``stateless``)."""
    agent = seat.agent if getattr(seat, "delegates", False) else seat
    return agent if getattr(agent, "stateless", False) else copy.deepcopy(seat)


def make_training_env(
    config: TrainConfig,
    rank: int,
    seed: int,
    league_dir: str | None,
    *,
    opponents: str | None = None,
    models: dict[str, Any] | None = None,
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
        models=models,
        oracle=config.oracle_critic,
    )


def make_vec_env(config: TrainConfig, seed: int, league_dir: str | None):
    """The learner's environments: ``vec_env="batch"`` (the default) one
    :class:`TrainingVecEnv` of ``n_envs`` tables in this process; ``"subproc"``/``"dummy"``
    SB3's vector envs of one :class:`TrainingEnv` each."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    if config.vec_env == "batch":
        torch.set_num_threads(1)
        models: dict[str, Any] = {}
        tables = [
            make_training_env(config, rank, seed, league_dir, models=models)
            for rank in range(config.n_envs)
        ]
        vec = TrainingVecEnv(tables)
        vec.seed(seed)
        return VecMonitor(vec)
    fns = [
        functools.partial(make_training_env, config, rank, seed, league_dir)
        for rank in range(config.n_envs)
    ]
    if config.vec_env == "subproc" and config.n_envs > 1:
        vec = SubprocVecEnv(fns, start_method="spawn")
    elif config.vec_env in ("dummy", "subproc"):
        vec = DummyVecEnv(fns)
    else:
        raise ValueError(f"vec_env must be 'batch', 'subproc' or 'dummy', got {config.vec_env!r}")
    vec.seed(seed)
    return VecMonitor(vec)


# ---------------------------------------------------------------------------------- the batch
class TrainingVecEnv(TablesVecEnv):
    """``n_envs`` :class:`TrainingEnv` tables stepped together in this process, as a
    Stable-Baselines3 ``VecEnv`` (``tt-train``'s default, ``vec_env = "batch"``): every
    table's learner action, then every opponent's move at every table together
    (:func:`tt_env.vector.batch.play_opponents`: one forward pass for the league's
    snapshots, one loop of the compiled rule for ``counting``), then the features. The
    tables play the games each would play alone; masks reach MaskablePPO as one array."""

    def __init__(self, tables: list[TrainingEnv]) -> None:
        self.tables = tables
        first = tables[0]
        super().__init__(len(tables), first.observation_space, first.action_space)
        self._masks = np.zeros((len(tables), first.action_space.n), bool)

    def _cores(self):
        return [t.env for t in self.tables]

    def reset(self) -> np.ndarray:
        seed = self._take_seed()
        n = self.num_envs
        for i, table in enumerate(self.tables):
            table.begin_reset(None if seed is None else seed + i)
        play_opponents(self._cores(), range(n))
        obs = np.stack(self._reset_results(range(n)))
        self.reset_infos = [{} for _ in range(n)]
        return obs

    def _reset_results(self, rows) -> list[np.ndarray]:
        """The first observations of the tables ``rows`` just reset; with a baseline, the
        replays of their deals (:meth:`TrainingEnv.reference_reward`), answered together."""
        out = []
        for i in rows:
            obs, info = self.tables[i].reset_result(replay=False)
            self._masks[i] = info["action_mask"]
            out.append(obs)
        replays = [i for i in rows if self.tables[i].baseline]
        for i in replays:
            self.tables[i].begin_reference()
        answer_together(
            replays,
            lambda i: self.tables[i].reference_request(),
            lambda i, asked, action: self.tables[i].play_reference(action),
        )
        return out

    def step_wait(self):
        actions = self._take_actions()
        n = self.num_envs
        for table, action in zip(self.tables, actions):
            table.env.play_learner(int(action))
        play_opponents(self._cores(), range(n))
        obs = [None] * n
        rewards = np.zeros(n, np.float32)
        dones = np.zeros(n, bool)
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        for i, table in enumerate(self.tables):
            o, r, term, trunc, info = table.step_result()
            obs[i], rewards[i], dones[i], infos[i] = o, r, term or trunc, info
            self._masks[i] = info["action_mask"]
            if dones[i]:
                info["terminal_observation"] = o
                info["TimeLimit.truncated"] = bool(trunc and not term)
                table.begin_reset()
        finished = list(np.flatnonzero(dones))
        if finished:
            play_opponents(self._cores(), finished)
            for i, o in zip(finished, self._reset_results(finished)):
                obs[i] = o
        return np.stack(obs), rewards, dones, infos

    def action_masks(self) -> np.ndarray:
        return self._masks.copy()
