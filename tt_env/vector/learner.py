"""The single-agent view's tables on the compiled batch: one learning seat per table.

:class:`LearnerTables` plays, at each of N tables of :class:`~tt_env.vector.native.CompiledTables`,
the episodes of :class:`~tt_env.env.single_agent.SingleAgentEnv` with the same arguments: the
same deals, the learner's seat drawn from the same generator, the opponents seeded alike and
making the same moves, the same rewards and the same infos at the end of an episode. The
built-in opponents (``"random"``, ``"greedy"``, ``"counting"``) move inside the C call; every
other opponent (a saved model, an agent object, a built-in agent with options) is asked
between calls, all the tables where one is to move together
(:func:`~tt_env.agents.together.act_together`: one forward pass for a model).

The batched environments (:class:`~tt_env.vector.batch.ThreeThirteenVectorEnv`,
``make_sb3_vec_env``) step it; it knows nothing of autoreset modes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np

from tt_env.agents.together import act_together, unwrapped_agent
from tt_env.encoding.actions import NUM_ACTIONS, describe
from tt_env.env.single_agent import OpponentError, make_opponents, new_round
from tt_env.vector import native


class LearnerTables:
    """N tables of the single-agent view on the compiled batch (see the module docstring).

    ``template`` is a :class:`~tt_env.env.single_agent.SingleAgentEnv` made with the view's
    arguments (it checks them and gives the rules, the episode, the reward and the illegal
    action settings; it is never stepped). ``opponents`` is the view's argument (one spec or
    object, or one per seat after the learner); ``seat`` the learner's fixed seat or None.
    """

    def __init__(
        self,
        num_envs: int,
        template: Any,
        opponents: Any,
        *,
        seat: int | None = None,
        num_threads: int | None = None,
    ) -> None:
        aec = template.aec_env
        self.num_envs = n = num_envs
        self.rules = rules = template.rules
        self.players = p = rules.num_players
        self.seat = seat
        self.episode = aec.episode
        self.illegal_action = aec.illegal_action
        self.illegal_reward = aec.illegal_reward
        self.names = list(aec.possible_agents)
        self.batch = native.CompiledTables(
            n, rules, episode=aec.episode, reward=aec.reward_mode, num_threads=num_threads
        )
        specs = (
            [opponents] * (p - 1)
            if isinstance(opponents, str) or not isinstance(opponents, Sequence)
            else list(opponents)
        )
        # one agent per opponent, as each table's single-agent view makes them (the built-in
        # ones decide in C; their Python twins where C leaves a decision)
        self.opponents = [make_opponents(opponents, rules) for _ in range(n)]
        self.kinds = [native.builtin_kind(spec) for spec in specs]
        self.learner = np.zeros(n, np.int64)
        self.needs_reset = np.ones(n, bool)
        self._generators: list[np.random.Generator | None] = [None] * n
        self._started = np.zeros(n, bool)
        self._rounds_at_start = np.zeros(n, np.int64)  # rounds scored before the episode
        self._rounds_seen = np.zeros(n, np.int64)  # for the new_round hooks of Python agents

    # ------------------------------------------------------------------ episodes
    def _generator(self, i: int, seed: int | None) -> np.random.Generator:
        """Table ``i``'s generator as ``gymnasium.Env.reset(seed=seed)`` leaves it."""
        if seed is not None or self._generators[i] is None:
            self._generators[i], _ = gymnasium.utils.seeding.np_random(seed)
        return self._generators[i]

    def _seat_agents(self, i: int, learner: int) -> None:
        row = self.batch.seat_agents[i]
        row[learner] = native.CALLER
        for j, kind in enumerate(self.kinds):
            row[(learner + 1 + j) % self.players] = kind

    def begin(self, i: int, seed: int | None, seat: int | None) -> tuple[int, int]:
        """The Python half of table ``i``'s next episode (``SingleAgentEnv.begin_reset``): the
        learner's seat, the opponents' seeds; returns the batch's mode and seed for it."""
        if seed is not None:
            seed = native.compiled_seed(seed)
        rng = self._generator(i, seed)
        p, batch = self.players, self.batch
        if seed is not None:
            mode, value = native.SEED, seed
        elif not self._started[i]:
            mode, value = native.SEED, int(rng.integers(2**63))
        else:
            mode, value = native.NEXT, 0
        state = batch.table(i)
        new_game = mode == native.SEED or not (state["round_played"] and not state["game_over"])
        before = int(self.learner[i])
        learner = int(rng.integers(p)) if seat is None else int(seat)
        self.learner[i] = learner
        self._seat_agents(i, learner)
        agents = self.opponents[i]
        distinct = list({id(a): a for a in agents}.values())
        if new_game:
            for agent in distinct:
                hook = getattr(agent, "reset", None)
                if not callable(hook):
                    continue
                drawn = int(rng.integers(2**63))
                hook(drawn)
                for j, other in enumerate(agents):
                    if other is agent and self.kinds[j] == native.RANDOM:
                        batch.seed_agent(i, (learner + 1 + j) % p, drawn)
        else:
            new_round(distinct)
            if learner != before:  # each opponent keeps its generator in its new seat
                order = [before] * p  # the learner's seat: the one it left (it draws none)
                for j in range(p - 1):
                    order[(learner + 1 + j) % p] = (before + 1 + j) % p
                batch.move_agents(i, order)
        self._started[i] = True
        self._rounds_at_start[i] = 0 if new_game else state["rounds_played"]
        self._rounds_seen[i] = self._rounds_at_start[i]
        self.needs_reset[i] = False
        return mode, value

    def reset(self, rows: Sequence[int], seeds: Sequence[Any], seat: Any = None) -> None:
        """Start the next episode at each table of ``rows`` (``seeds[i]``: its seed or None)
        and play the opponents until each learner is to move."""
        n = self.num_envs
        modes = np.zeros(n, np.uint8)
        values = np.zeros(n, np.uint64)
        for i in rows:
            modes[i], values[i] = self.begin(i, seeds[i], self.seat if seat is None else seat)
        self.batch.rewards[rows] = 0.0
        self.batch.advance(modes, seeds=values)
        self.answer()
        for i in rows:
            if self.batch.terminations[i]:  # impossible while turn_cap >= num_players (checked)
                raise RuntimeError(f"table {i}: the episode ended before the learner's first turn")

    # ------------------------------------------------------------------ moves
    def answer(self) -> None:
        """The opponents the batch leaves to Python, every table together, until each table
        is at its learner or its episode has ended."""
        batch, p = self.batch, self.players
        while True:
            asked = np.flatnonzero(~batch.terminations & (batch.seats != self.learner))
            if asked.size == 0:
                return
            agents = []
            for i in asked:
                rounds = batch.table(i)["rounds_played"]
                if rounds != self._rounds_seen[i]:  # a new round was dealt
                    self._rounds_seen[i] = rounds
                    new_round(self.opponents[i])
                j = (int(batch.seats[i]) - int(self.learner[i]) - 1) % p
                agents.append(self.opponents[i][j])
            chosen = act_together(
                [unwrapped_agent(a) for a in agents], batch.observations[asked], batch.masks[asked]
            )
            actions = np.zeros(self.num_envs, np.int64)
            for i, agent, action in zip(asked, agents, chosen):
                legal = isinstance(action, (int, np.integer)) and 0 <= action < NUM_ACTIONS
                if not (legal and batch.masks[i, action]):
                    seat = int(batch.seats[i])
                    what = describe(int(action)) if legal else repr(action)
                    raise OpponentError(
                        f"opponent {getattr(agent, 'name', agent)!r} in seat {seat} "
                        f"({self.names[seat]}) chose an illegal action: {what}"
                    )
                actions[i] = int(action)
            modes = np.zeros(self.num_envs, np.uint8)
            modes[asked] = native.ACT
            batch.advance(modes, actions)

    def check(self, i: int, action: int) -> bool:
        """Whether the learner's ``action`` at table ``i`` is legal; with
        ``illegal_action="raise"`` an illegal one raises ``IllegalActionError``."""
        if self.batch.masks[i, action]:
            return True
        if self.illegal_action == "raise":
            from tt_env.env.aec import IllegalActionError

            legal = ", ".join(describe(a) for a in np.flatnonzero(self.batch.masks[i]))
            seat = int(self.learner[i])
            raise IllegalActionError(
                f"table {i}: {self.names[seat]} (seat {seat}) cannot play action {action} "
                f"({describe(action)}). Legal now: {legal or 'nothing'}"
            )
        return False

    def play(self, rows: Sequence[int], actions: np.ndarray, restart: Sequence[int]) -> dict:
        """The learner's ``actions[i]`` at each table of ``rows`` (checked by :meth:`check`),
        the next episode at each of ``restart``, then the opponents. Returns the tables whose
        learner played an illegal action (``illegal_action="terminate"``): their episodes end
        there, the learner paid ``illegal_reward``."""
        n, batch = self.num_envs, self.batch
        modes = np.zeros(n, np.uint8)
        values = np.zeros(n, np.uint64)
        illegal = {}
        for i in restart:
            modes[i], values[i] = self.begin(i, None, self.seat)
        for i in rows:
            a = int(actions[i])
            if batch.masks[i, a]:
                modes[i] = native.ACT
            else:
                illegal[i] = a
        batch.rewards[list(rows) + list(restart)] = 0.0
        batch.advance(modes, actions, values)
        for i in illegal:
            batch.end(i)
            batch.rewards[i, self.learner[i]] = self.illegal_reward
        self.answer()
        return illegal

    # ------------------------------------------------------------------ outputs
    def reward(self, i: int) -> float:
        """What table ``i``'s learner earned since its action."""
        return float(self.batch.rewards[i, self.learner[i]])

    def finish(self, i: int, illegal: int | None = None) -> dict[str, Any]:
        """Table ``i``'s episode has ended: its observation row becomes the learner's view of
        the end, and its info (the single-agent view's, without the mask) is returned."""
        batch, names = self.batch, self.names
        learner = int(self.learner[i])
        batch.view(i, learner)
        self.needs_reset[i] = True
        state = batch.table(i)
        scores = dict(zip(names, state["scores"]))
        penalties = dict(zip(names, state["penalties"]))
        if illegal is None:
            info = {"round": state["ended_round_index"] + 1, "score": scores[names[learner]]}
            info.update(scores=scores, round_penalty=penalties[names[learner]])
            info["round_penalties"] = penalties
            episode = state["penalties"] if self.episode == "round" else state["scores"]
            best = min(episode)
            info["winners"] = [a for a, s in zip(names, episode) if s == best]
        else:  # the infos as they stood, and the illegal action
            info = {"round": state["round_index"] + 1, "score": scores[names[learner]]}
            info["scores"] = scores
            if state["rounds_played"] > self._rounds_at_start[i]:
                info["round_penalty"] = penalties[names[learner]]
                info["round_penalties"] = penalties
            info.update(illegal_action=illegal, illegal_move=describe(illegal))
        info.update(seat=learner, agent=names[learner])
        return info


__all__ = ["LearnerTables"]
