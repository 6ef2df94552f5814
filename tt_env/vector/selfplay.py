"""Batched self-play: N tables at which the learner plays several seats (all by default).

At each table one seat moves at a time. :class:`SelfPlayVectorEnv` returns, for every table, the
observation and mask of the learning seat to move there, in one array, with that seat in
``infos["seat"]``; every other seat (``opponents``) moves inside ``step()``, all tables together.
Rewards are per table and per seat, ``(N, num_players)``: what each seat earned during the step
(the negative penalty of a round that ended in it, or the relative reward), as OpenSpiel's
``rewards()`` gives them; a trainer credits each seat's reward to that seat's last decision.
When a table's episode ends, ``terminations[i]`` is True and the table is reset at the next
step (``"next_step"`` autoreset, the action given for it then is ignored); meanwhile its mask
row is all ones, as pgx does, so that a masked softmax over it stays finite, and its
observation is the final position as the seat that moved last sees it.

Where the compiled batch is built (:mod:`tt_env.vector.native`), every table steps in one C
call, and the built-in opponents (``"random"``, ``"greedy"``, ``"counting"``) move inside it;
any other opponent (a saved model, an agent object) is asked between calls, every table where
it is to move in one :func:`~tt_env.agents.together.act_together` (one forward pass for a
model). Without it (or with ``compiled=False``) every table steps the Python engine. Both play
the same games: ``three_thirteen_v0``'s, with the Python agents' moves.

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
``compiled`` (None: the compiled batch where it is built; False: the Python engine; True: the
compiled batch or an error); ``num_threads`` (the threads of the compiled batch and of
``"features"``, default the cores this process may run on); and the AEC environment's
(``episode``, ``reward``, the rule options or ``rules``). A seed ``s`` plays
``three_thirteen_v0``'s game ``reset(seed=s + i)`` at table ``i``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tt_env.agents.together import act_together, unwrapped_agent
from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.vector import native
from tt_env.vector.batch import (
    answer_together,
    check_actions,
    check_num_envs,
    observation_transform,
    seeds_for,
    use_compiled,
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
        compiled: bool | None = None,
        num_threads: int | None = None,
        **env_kwargs: Any,
    ) -> None:
        from gymnasium import spaces

        from tt_env.agents import make_agent
        from tt_env.encoding.observation import observation_space
        from tt_env.env.aec import raw_env

        self.num_envs = n = check_num_envs(num_envs)
        env_kwargs.setdefault("illegal_action", "raise")
        first = raw_env(**env_kwargs)  # checks every argument
        self.compiled = use_compiled(compiled, first.render_mode is None)
        self.tables = (
            [] if self.compiled else [first] + [raw_env(**env_kwargs) for _ in range(n - 1)]
        )
        self.rules = rules = first.rules
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
        self.transform = observation_transform(observation, rules, num_threads)
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
        if self.compiled:
            self._batch = native.CompiledTables(
                n,
                rules,
                episode=first.episode,
                reward=first.reward_mode,
                num_threads=num_threads,
            )
            kinds = np.zeros(p, np.int8)
            kinds[others] = native.builtin_kind(opponents)
            self._batch.seat_agents[:] = kinds
            for i in range(n):
                for s in others:
                    self._batch.seed_agent(i, s, native.fresh_seed())
            self._raw, self._masks, self._seats = (
                self._batch.observations,
                self._batch.masks,
                self._batch.seats,
            )
            self._rewards = self._batch.rewards

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

    # ------------------------------------------------------------------ the compiled batch
    def _hooks(self, i: int, seed: int | None) -> None:
        """A new episode at table ``i``: the agents' reset hooks (the built-in random agents'
        generators reseeded in C)."""
        for s in self._agents[i]:
            if seed is not None and self._batch.seat_agents[i, s] == native.RANDOM:
                self._batch.seed_agent(i, s, seed)
        for agent in {id(a): a for a in self._agents[i].values()}.values():
            hook = getattr(agent, "reset", None)
            if callable(hook):
                hook(seed)

    def _answer_compiled(self) -> None:
        """The opponents the batch leaves to Python, all tables together, until every table is
        at a learner or its episode has ended."""
        batch = self._batch
        while True:
            asked = np.flatnonzero(~batch.terminations & ~self._learns[batch.seats])
            if asked.size == 0:
                return
            agents = [unwrapped_agent(self._agents[i][int(batch.seats[i])]) for i in asked]
            chosen = act_together(agents, batch.observations[asked], batch.masks[asked])
            actions = np.zeros(self.num_envs, np.int64)
            for i, action in zip(asked, chosen):
                a = int(action) if isinstance(action, (int, np.integer)) else -1
                if not (0 <= a < NUM_ACTIONS and batch.masks[i, a]):
                    raise RuntimeError(
                        f"an opponent at table {i} chose an illegal action {action!r}"
                    )
                actions[i] = a
            modes = np.zeros(self.num_envs, np.uint8)
            modes[asked] = native.ACT
            batch.advance(modes, actions)

    def _reset_compiled(self, seeds: list[int | None]) -> None:
        n, batch = self.num_envs, self._batch
        modes = np.full(n, native.SEED, np.uint8)
        values = np.zeros(n, np.uint64)
        for i, seed in enumerate(seeds):
            if seed is None and self._started:
                modes[i] = native.NEXT
            else:
                values[i] = native.fresh_seed() if seed is None else native.compiled_seed(seed)
            self._hooks(i, seed)
        self._rewards[:] = 0.0
        batch.advance(modes, seeds=values)
        self._answer_compiled()

    def _step_compiled(self, actions: np.ndarray) -> np.ndarray:
        batch = self._batch
        for i in np.flatnonzero(self._ended):
            self._hooks(int(i), None)
        self._rewards[:] = 0.0
        batch.advance(np.full(self.num_envs, native.ACT, np.uint8), actions.astype(np.int64))
        self._answer_compiled()
        return batch.terminations.copy()

    # ------------------------------------------------------------------ the interface
    def reset(self, *, seed: Any = None, options: dict[str, Any] | None = None):
        if options:
            raise ValueError("SelfPlayVectorEnv.reset takes no options")
        seeds = seeds_for(seed, self.num_envs)
        if self.compiled:
            self._reset_compiled(seeds)
            if self._batch.terminations.any():  # impossible while turn_cap >= num_players
                i = int(np.flatnonzero(self._batch.terminations)[0])
                raise RuntimeError(f"table {i}: the episode ended before a learner moved")
            self._ended[:] = False
            self._started = True
            return self._observations(), self._infos()
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
        # every action checked before any is played
        inside = (actions >= 0) & (actions < NUM_ACTIONS)
        legal = inside & (self._masks[np.arange(n), np.where(inside, actions, 0)] != 0)
        bad = np.flatnonzero(~legal & ~self._ended)
        if bad.size:
            from tt_env.encoding.actions import describe

            i = int(bad[0])
            a = int(actions[i])
            what = describe(a) if 0 <= a < NUM_ACTIONS else repr(a)
            raise ValueError(f"table {i}: action {what} is not legal for seat {self._seats[i]} now")
        if self.compiled:
            return self._result(self._step_compiled(actions))
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
                self._masks[i] = 1  # as the compiled batch: a masked softmax stays finite
        return self._result(terminations)

    def _result(self, terminations: np.ndarray):
        """What :meth:`step` returns."""
        self._ended = terminations.copy()
        return (
            self._observations(),
            self._rewards.copy(),
            terminations,
            np.zeros(self.num_envs, bool),
            self._infos(),
        )

    def action_masks(self) -> np.ndarray:
        """The legal actions of the seat to move at every table, ``bool`` (N, 108)."""
        return self._masks.astype(bool)

    def close(self) -> None:
        for table in self.tables:
            table.close()


__all__ = ["SelfPlayVectorEnv"]
