"""Batched self-play: N tables at which the learner plays several seats (all by default).

At each table one seat moves at a time. :class:`SelfPlayVectorEnv` returns, for every table, the
observation and mask of the learning seat to move there, in one array, with that seat in
``infos["seat"]``; every other seat (``opponents``) moves inside ``step()``, all tables together.
Rewards are per table and per seat, ``(N, num_players)``: what each seat earned during the step
(the negative penalty of a round that ended in it, or the relative reward), as OpenSpiel's
``rewards()`` gives them; a trainer credits each seat's reward to that seat's last decision.
When a table's episode ends, ``terminations[i]`` is True and the table is reset at the next
step (``"next_step"`` autoreset, the action given for it then is ignored).

::

    from tt_env.vector import SelfPlayVectorEnv

    env = SelfPlayVectorEnv(64, num_players=3, episode="round")
    obs, infos = env.reset(seed=0)
    for _ in range(1000):
        actions = my_policy(obs, infos["action_mask"], infos["seat"])
        obs, rewards, terminations, truncations, infos = env.step(actions)

Arguments: ``num_envs``; ``learner_seats`` (the seats the learner plays, default all);
``opponents`` (an agent spec or object for the other seats, as in the single-agent view);
``observation`` (``"raw"``, ``"features"`` or a :class:`~tt_env.learned.features.CardFeatures`);
and the AEC environment's (``episode``, ``reward``, the rule options or ``rules``). A seed ``s``
plays ``three_thirteen_v0``'s game ``reset(seed=s + i)`` at table ``i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.vector.batch import (
    answer_together,
    check_actions,
    check_num_envs,
    observation_transform,
    seeds_for,
)


class SelfPlayVectorEnv:
    """N tables of self-play (see the module docstring)."""

    def __init__(
        self,
        num_envs: int = 1,
        *,
        learner_seats: Sequence[int] | None = None,
        opponents: Any = "random",
        observation: Any = "raw",
        **env_kwargs: Any,
    ) -> None:
        from gymnasium import spaces

        from tt_env.agents import make_agent
        from tt_env.encoding.observation import observation_space
        from tt_env.env.aec import raw_env

        self.num_envs = n = check_num_envs(num_envs)
        env_kwargs.setdefault("illegal_action", "raise")
        self.tables = [raw_env(**env_kwargs) for _ in range(n)]
        self.rules = rules = self.tables[0].rules
        p = self.num_players = rules.num_players
        seats = list(range(p)) if learner_seats is None else list(learner_seats)
        if (
            not seats
            or any(not isinstance(s, (int, np.integer)) or not 0 <= s < p for s in seats)
            or len(set(seats)) != len(seats)
        ):
            raise ValueError(
                f"learner_seats must be distinct seats in 0..{p - 1}, got {learner_seats!r}"
            )
        self.learner_seats = sorted(int(s) for s in seats)
        self._learns = np.zeros(p, bool)
        self._learns[self.learner_seats] = True
        others = [s for s in range(p) if not self._learns[s]]
        self._agents = [
            {
                s: make_agent(opponents, p, rules) if isinstance(opponents, str) else opponents
                for s in others
            }
            for _ in range(n)
        ]
        self.transform = observation_transform(observation, rules)
        raw = observation_space(rules)
        self.single_observation_space = (
            raw
            if self.transform is None
            else spaces.Box(-np.inf, np.inf, (self.transform.size,), np.float32)
        )
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self._raw = np.zeros((n, raw.shape[0]), np.float32)
        self._masks = np.zeros((n, NUM_ACTIONS), np.int8)
        self._seats = np.zeros(n, np.int64)
        self._ended = np.zeros(n, bool)
        self._rewards = np.zeros((n, p), np.float64)
        self._started = False

    # ------------------------------------------------------------------ the tables together
    def _seat(self, i: int) -> int:
        return self.tables[i].game.current

    def _over(self, i: int) -> bool:
        aec = self.tables[i]
        agent = aec.agent_selection
        return bool(aec.terminations.get(agent, True) or aec.truncations.get(agent, False))

    def _collect(self, i: int) -> None:
        """Add the rewards of the move just played at table ``i``."""
        aec = self.tables[i]
        if aec.last_step_rewarded:
            for seat, agent in enumerate(aec.possible_agents):
                self._rewards[i, seat] += aec.rewards[agent]

    def _play_others(self, indices) -> None:
        def request(i: int):
            if self._over(i) or self._learns[self._seat(i)]:
                return None
            o = self.tables[i].observe(self.tables[i].agent_selection)
            return self._agents[i][self._seat(i)], o["observation"], o["action_mask"], o

        def play(i: int, o, action) -> None:
            a = int(action)
            if not (0 <= a < NUM_ACTIONS and o["action_mask"][a]):
                raise RuntimeError(f"an opponent at table {i} chose an illegal action {action!r}")
            self.tables[i].step(a)
            self._collect(i)

        answer_together(indices, request, play)

    def _write(self, i: int) -> None:
        aec = self.tables[i]
        o = aec.observe(aec.agent_selection)
        self._raw[i] = o["observation"]
        self._masks[i] = o["action_mask"]
        self._seats[i] = self._seat(i)

    def _new_episode(self, i: int, seed: int | None) -> None:
        aec = self.tables[i]
        if seed is None:
            aec.reset()
        else:
            aec.reset(seed=seed)
        for agent in {id(a): a for a in self._agents[i].values()}.values():
            hook = getattr(agent, "reset", None)
            if callable(hook):
                hook(None if seed is None else seed)

    def _observations(self) -> np.ndarray:
        if self.transform is None:
            return self._raw.copy()
        return self.transform.batch(self._raw)

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self._masks.copy(), "seat": self._seats.copy()}

    # ------------------------------------------------------------------ the interface
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError("SelfPlayVectorEnv.reset takes no options")
        seeds = seeds_for(seed, self.num_envs)
        for i in range(self.num_envs):
            self._new_episode(i, seeds[i])
        self._rewards[:] = 0.0
        self._play_others(range(self.num_envs))
        for i in range(self.num_envs):
            if self._over(i):  # impossible while turn_cap >= num_players (Rules)
                raise RuntimeError(f"table {i}: the episode ended before a learner moved")
            self._write(i)
        self._ended[:] = False
        self._started = True
        return self._observations(), self._infos()

    def step(self, actions: Any):
        n = self.num_envs
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = check_actions(actions, n)
        for i in np.flatnonzero(~self._ended):  # every action checked before any is played
            a = int(actions[i])
            if not (0 <= a < NUM_ACTIONS and self._masks[i, a]):
                from tt_env.encoding.actions import describe

                what = describe(a) if 0 <= a < NUM_ACTIONS else repr(a)
                raise ValueError(
                    f"table {i}: action {what} is not legal for seat {self._seats[i]} now"
                )
        self._rewards[:] = 0.0
        for i in range(n):
            if self._ended[i]:
                self._new_episode(i, None)
            else:
                self.tables[i].step(int(actions[i]))
                self._collect(i)
        self._play_others(range(n))
        terminations = np.zeros(n, bool)
        for i in range(n):
            self._write(i)
            if self._over(i):
                terminations[i] = True
                self._masks[i] = 0
        self._ended = terminations.copy()
        return (
            self._observations(),
            self._rewards.copy(),
            terminations,
            np.zeros(n, bool),
            self._infos(),
        )

    def action_masks(self) -> np.ndarray:
        """The legal actions of the seat to move at every table, ``bool`` (N, 108)."""
        return self._masks.astype(bool)

    def close(self) -> None:
        for table in self.tables:
            table.close()


__all__ = ["SelfPlayVectorEnv"]
