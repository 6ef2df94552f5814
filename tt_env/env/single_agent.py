"""The Gymnasium single-agent view of Three Thirteen: one seat learns, the others are agents.

:class:`SingleAgentEnv` wraps :class:`tt_env.three_thirteen_v0.raw_env`. One seat (fixed, or
drawn per episode) is the learner; every other seat is an agent that acts from its observation
and action mask (:mod:`tt_env.agents`: ``"random"``, ``"greedy"``, ``"counting"``, a saved model,
or any object with ``act(observation, action_mask)``). ``step()`` plays the learner's action,
then the opponents' moves, and returns when it is the learner's turn again or the episode is over.

A turn is two steps, as in the AEC environment: a draw (actions 0, 1), then a discard or going out
(2..107). The observation is the learner's flat ``float32`` vector (the AEC observation's
``"observation"`` element, a ``Box``), so SB3's ``MlpPolicy`` takes it as it is; the legal moves
come from :meth:`SingleAgentEnv.action_masks` (``bool``, for sb3-contrib's ``MaskablePPO``) and
``info["action_mask"]`` (``int8``, as in PettingZoo).

Training with MaskablePPO::

    import gymnasium
    import tt_env.env  # registers "tt_env/ThreeThirteen-v0"
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("tt_env/ThreeThirteen-v0", num_players=3, opponents="greedy",
                         episode="round")
    model = MaskablePPO("MlpPolicy", env, seed=0)
    model.learn(100_000)

    obs, info = env.reset(seed=1)
    done = False
    while not done:
        action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated

``MaskablePPO`` finds the masks through ``action_masks()`` by itself, also inside ``DummyVecEnv``
and ``SubprocVecEnv`` (``env_method("action_masks")``) and in ``MaskableEvalCallback``.

Rewards
-------
The learner's own rewards of the AEC environment, summed over everything that happened since its
last action: when a round ends during the opponents' moves, the learner's penalty arrives in the
``step()`` that returns (it is never lost, nor replaced by an opponent's reward: the bug of
PettingZoo issue 1147). With ``reward="penalty"`` the rewards of an episode add up to minus the
learner's score of the episode (``info["score"]`` with ``episode="game"``,
``info["round_penalty"]`` with ``episode="round"``).

Arguments
---------
=====================  =============  ===========================================================
argument               default        meaning
=====================  =============  ===========================================================
``opponents``          ``"random"``   one agent spec or object for every other seat, or a list of
                                      ``num_players - 1``: the first plays right after the
                                      learner, the next after it, and so on. Specs are built with
                                      :func:`tt_env.agents.make_agent` (one agent per seat); an
                                      object given alone plays every other seat
``seat``               ``None``       the learner's seat, ``0..num_players - 1`` (agent
                                      ``player_<seat>``); ``None``: drawn per episode from the
                                      env's seeded generator
``render_mode``        ``None``       ``"human"`` prints the table after every ``reset``/``step``
                                      (with the opponents' moves in between), ``"ansi"``: text,
                                      ``"rgb_array"``: a picture (Pillow, extra ``render``), for
                                      Gymnasium's ``RecordVideo`` and SB3's ``VecVideoRecorder``
``rules``, any         as RULES.md    as :class:`~tt_env.three_thirteen_v0.raw_env`
``Rules`` field
``episode``            ``"game"``     ``"game"`` or ``"round"`` (a reset without a seed plays the
                                      next round of the same game, the seat drawn anew if not
                                      fixed)
``reward``             ``"penalty"``  ``"penalty"`` or ``"relative"``, as the AEC environment
``illegal_action``     ``"terminate"`` ``"terminate"`` (as ``three_thirteen_v0.env()``): an
                                      illegal learner action ends the episode (``terminated``)
                                      with ``illegal_reward``, ``info["illegal_action"]`` says
                                      which (one warning per environment, not one per move);
                                      ``"raise"``: it raises
                                      :class:`~tt_env.three_thirteen_v0.IllegalActionError` and
                                      changes nothing (to catch a bug in masked training)
``illegal_reward``     ``None``       as the AEC environment
=====================  =============  ===========================================================

``reset(seed=s)`` plays the engine game ``Game(rules, seed=s)`` (the deal of
``raw_env.reset(seed=s)``) and seeds the learner's seat and the opponents from ``s``; resets
without a seed continue from there. ``reset(options={"seat": k})`` puts the learner in seat ``k``
for that episode. ``info`` holds the learner's AEC info (``round``, ``score``, ``scores``,
``round_penalty`` and ``round_penalties`` once a round has ended, at the end ``winners``) plus
``seat``, ``agent`` (its agent name, the key in ``scores``) and ``action_mask``. ``truncated``
is always False: every round ends by the rules (the turn cap, ``max_turns_per_round``, is a
rule, scored as usual).

The checkers of Gymnasium (``gymnasium.utils.env_checker.check_env``) and Stable-Baselines3
(``stable_baselines3.common.env_checker.check_env``) step with unmasked random actions: with the
default ``illegal_action="terminate"`` these end the episode, as they would in any unmasked
training, and both checkers pass. ``make_vec_env("tt_env/ThreeThirteen-v0", n_envs=...,
vec_env_cls=SubprocVecEnv, env_kwargs=...)`` works as written (it asks for
``render_mode="rgb_array"``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.error import ResetNeeded

from tt_env.encoding.actions import NUM_ACTIONS, describe

ENV_ID = "tt_env/ThreeThirteen-v0"
# Entry points as strings: Gymnasium imports them when an environment is made.
ENTRY_POINT = "tt_env.env.single_agent:SingleAgentEnv"
VECTOR_ENTRY_POINT = "tt_env.vector.batch:ThreeThirteenVectorEnv"


def register_envs() -> None:
    """Register :data:`ENV_ID` with Gymnasium (idempotent), so that
    ``gymnasium.make("tt_env/ThreeThirteen-v0", **kwargs)`` builds a :class:`SingleAgentEnv`
    and ``gymnasium.make_vec`` a :class:`~tt_env.vector.batch.ThreeThirteenVectorEnv`.
    ``import tt_env.env`` does it already; this is for code that wants to say so."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID, entry_point=ENTRY_POINT, vector_entry_point=VECTOR_ENTRY_POINT
        )


class OpponentError(RuntimeError):
    """An opponent agent chose an action that is not legal (a bug in that agent)."""


def make_opponents(opponents: Any, rules) -> list[Any]:
    """The agents of the ``opponents`` argument (one spec or object for every other seat, or
    ``num_players - 1`` of them), in play order after the learner."""
    from tt_env.agents import make_agent

    n = rules.num_players
    if isinstance(opponents, str) or not isinstance(opponents, Sequence):
        specs = [opponents] * (n - 1)
    else:
        specs = list(opponents)
        if len(specs) != n - 1:
            raise ValueError(
                f"opponents: give one agent for all, or num_players - 1 = "
                f"{n - 1} agents, not {len(specs)}"
            )
    return [make_agent(spec, n, rules) for spec in specs]


def reset_seat(options: dict[str, Any] | None, default: int | None, num_players: int):
    """The learner's seat that reset ``options`` ask for (``"seat"``, else ``default``),
    checked; ``ValueError`` for an unknown option or a seat outside ``0..num_players - 1``."""
    options = dict(options or {})
    seat = options.pop("seat", default)
    if options:
        raise ValueError(
            f"unknown reset option(s) {', '.join(sorted(map(str, options)))}; "
            "the only option is 'seat'"
        )
    if seat is not None and not (
        isinstance(seat, (int, np.integer))
        and not isinstance(seat, (bool, np.bool_))
        and 0 <= seat < num_players
    ):
        raise ValueError(f"seat must be None or a seat in 0..{num_players - 1}, got {seat!r}")
    return seat


def new_round(agents: Sequence[Any]) -> None:
    """The ``new_round`` hooks of ``agents``, each agent once: a new round was dealt."""
    done = set()
    for agent in agents:
        if id(agent) in done:
            continue
        done.add(id(agent))
        hook = getattr(agent, "new_round", None)
        if callable(hook):
            hook()


class SingleAgentEnv(gymnasium.Env):
    """Three Thirteen for one learning seat against agents (see the module documentation).

    Public attributes: ``rules``, ``aec_env`` (the :class:`~tt_env.three_thirteen_v0.raw_env`
    played, whose ``game`` is the engine game), ``opponents`` (the agents, in play order after the
    learner), ``seat`` (the fixed seat or None), and per episode ``learner_seat`` and
    ``learner`` (its agent name).

    For batches of tables (:mod:`tt_env.vector`, ``tt-train``), :meth:`reset` and :meth:`step`
    also come in parts: :meth:`begin_reset` or :meth:`play_learner`; the opponents' moves
    (:meth:`play_opponents`, or :meth:`opponent_request` and :meth:`play_opponent` answered
    together across tables); then :meth:`reset_result` or :meth:`step_result`.
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        opponents: Any = "random",
        *,
        seat: int | None = None,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        # The AEC environment and the agents are imported here, not at module level, so that
        # importing this module (to register the environment) costs only Gymnasium.
        from tt_env.encoding.observation import observation_space
        from tt_env.env.aec import check_render_mode, raw_env

        check_render_mode(render_mode, self.metadata["render_modes"])
        env_kwargs.setdefault("illegal_action", "terminate")
        # The AEC env renders on demand only (text or frame); this env decides when to show it.
        self.aec_env = raw_env(
            render_mode="ansi" if render_mode in ("human", "ansi") else None, **env_kwargs
        )
        self.rules = rules = self.aec_env.rules
        n = rules.num_players
        if rules.turn_cap < n:
            # Otherwise a round could end before the learner's first turn, and a reset could
            # return an episode that is already over.
            raise ValueError(
                f"max_turns_per_round ({rules.turn_cap}) must be at least "
                f"num_players ({n}) so that the learner plays in every round"
            )
        if seat is not None and not (isinstance(seat, (int, np.integer)) and 0 <= seat < n):
            raise ValueError(f"seat must be None or a seat in 0..{n - 1}, got {seat!r}")
        self.seat = None if seat is None else int(seat)
        self.opponents = make_opponents(opponents, rules)
        self.render_mode = render_mode
        self.observation_space = observation_space(rules)
        self.action_space = spaces.Discrete(NUM_ACTIONS)

        self._seat_of = {a: i for i, a in enumerate(self.aec_env.possible_agents)}
        self.learner_seat: int | None = None
        self.learner: str | None = None
        self._seated: list[Any] = [None] * n  # the agent of each seat; None for the learner
        self._mask = np.zeros(NUM_ACTIONS, bool)
        self._done = True
        self._rounds_seen = 0
        self._moves: list[tuple[str, int]] = []  # the last moves, shown by render()

    # ------------------------------------------------------------------ reset
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        self.begin_reset(seed, options)
        self.play_opponents()
        return self.reset_result()

    def begin_reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """The first part of :meth:`reset`: deal the new episode; nobody has moved yet."""
        # Everything is checked before anything changes: a refused reset leaves the env as it was.
        from tt_env.game.engine import check_seed

        if seed is not None:
            seed = check_seed(seed)
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
        seat = reset_seat(options, self.seat, self.rules.num_players)
        n = self.rules.num_players
        super().reset(seed=seed)
        aec, rng = self.aec_env, self.np_random
        previous = aec.game
        if seed is not None:
            aec.reset(seed=int(seed))
        elif previous is None:
            aec.reset(seed=int(rng.integers(2**63)))
        else:
            aec.reset()  # the next game, or the next round of this one (episode="round")
        self.learner_seat = int(rng.integers(n)) if seat is None else int(seat)
        self.learner = aec.possible_agents[self.learner_seat]
        self._seated = [None] * n
        for i, agent in enumerate(self.opponents):
            self._seated[(self.learner_seat + 1 + i) % n] = agent
        distinct = list({id(a): a for a in self.opponents}.values())
        if aec.game is not previous:  # a new game
            for agent in distinct:
                hook = getattr(agent, "reset", None)
                if callable(hook):
                    hook(int(rng.integers(2**63)))
        else:
            self._new_round(distinct)
        self._rounds_seen = len(aec.game.round_results)
        self._moves = []

    def reset_result(self) -> tuple[np.ndarray, dict[str, Any]]:
        """What :meth:`reset` returns, once the opponents before the learner have moved."""
        if self._done:  # impossible while turn_cap >= num_players (checked)
            raise RuntimeError("the episode ended before the learner's first turn")
        obs, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return obs, info

    # ------------------------------------------------------------------ step
    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """Play the learner's ``action``, then the opponents until the learner is to move again
        or the episode is over. An illegal action ends the episode (``illegal_action=
        "terminate"``, the default) or raises
        :class:`~tt_env.three_thirteen_v0.IllegalActionError` and changes nothing (``"raise"``)."""
        self.play_learner(action)
        self.play_opponents()
        return self.step_result()

    def play_learner(self, action: Any) -> None:
        """The first part of :meth:`step`: play the learner's ``action``."""
        if self._done:
            raise ResetNeeded("the episode is over (or never began): call reset() before step()")
        self.aec_env.step(action)  # checks the action first: an illegal one ends the episode
        if self.render_mode is not None:
            self._moves = [(self.learner, int(action))]

    def step_result(self) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        """What :meth:`step` returns, once the opponents have moved."""
        # The AEC env zeroes an agent's cumulative reward when it acts and adds every reward
        # given since: so this is all the learner earned since its action, whoever ended a round.
        reward = float(self.aec_env.cumulative_reward(self.learner))
        obs, info = self._observe()
        if self.render_mode == "human":
            self.render()
        return obs, reward, self._done, False, info

    def play_opponents(self) -> None:
        """Let the opponents move until the learner is to move or the episode is over."""
        while (request := self.opponent_request()) is not None:
            self.play_opponent(request, request[0].act(request[2], request[3]))

    def opponent_request(self) -> tuple[Any, int, np.ndarray, np.ndarray] | None:
        """The opponent to move now as ``(agent, seat, observation, mask)``; None when the
        learner is to move or the episode is over (:attr:`needs_reset` says which).

        The batched environments (:mod:`tt_env.vector`, ``tt-train``) ask every table for this,
        answer all the requests together and give each answer to :meth:`play_opponent`: the
        moves of :meth:`play_opponents`, which does the same one table at a time."""
        aec = self.aec_env
        agent = aec.agent_selection
        if aec.terminations[agent] or aec.truncations[agent]:
            self._done = True
            return None
        game = aec.game
        if len(game.round_results) != self._rounds_seen:  # a new round was dealt
            self._rounds_seen = len(game.round_results)
            self._new_round(self.opponents)
        if agent == self.learner:
            self._done = False
            return None
        seat = self._seat_of[agent]
        observation = aec.observe(agent)
        return self._seated[seat], seat, observation["observation"], observation["action_mask"]

    @property
    def needs_reset(self) -> bool:
        """True when the episode is over (or never began): :meth:`step` needs a reset first."""
        return self._done

    def play_opponent(self, request: tuple[Any, int, np.ndarray, np.ndarray], action) -> None:
        """Play the ``action`` an opponent chose for :meth:`opponent_request`'s ``request``."""
        opponent, seat, _, mask = request
        if not (
            isinstance(action, (int, np.integer)) and 0 <= action < NUM_ACTIONS and mask[action]
        ):
            what = (
                describe(int(action))
                if isinstance(action, (int, np.integer)) and (0 <= action < NUM_ACTIONS)
                else repr(action)
            )
            agent = self.aec_env.possible_agents[seat]
            raise OpponentError(
                f"opponent {getattr(opponent, 'name', opponent)!r} in seat {seat} ({agent}) "
                f"chose an illegal action: {what}"
            )
        self.aec_env.step(int(action))
        if self.render_mode is not None:
            self._moves.append((self.aec_env.possible_agents[seat], int(action)))

    @staticmethod
    def _new_round(agents: Sequence[Any]) -> None:
        new_round(agents)

    # ------------------------------------------------------------------ outputs
    def _observe(self) -> tuple[np.ndarray, dict[str, Any]]:
        observation = self.aec_env.observe(self.learner)
        mask = observation["action_mask"]
        self._mask = mask.astype(bool)
        return observation["observation"], self._info(mask)

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        # Fresh containers: the AEC env shares its dicts between agents and steps, and Gymnasium
        # asks that no returned info share an object with another.
        # A key whose value is None (``round_penalty`` before a round has ended) is left out:
        # Gymnasium's vector envs stack each key into one array, which None cannot join.
        info = {
            k: dict(v) if isinstance(v, dict) else list(v) if isinstance(v, list) else v
            for k, v in self.aec_env.infos[self.learner].items()
            if v is not None
        }
        info["seat"] = self.learner_seat
        info["agent"] = self.learner
        info["action_mask"] = mask
        return info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now: a ``bool`` array of shape (108,) (all False once the
        episode is over). sb3-contrib's ``MaskablePPO`` calls it before every action."""
        return self._mask.copy()

    @property
    def game(self):
        """The engine game being played (for referees and tests; agents never see it)."""
        return self.aec_env.game

    def agent_in_seat(self, seat: int) -> Any:
        """The agent playing ``seat`` this episode; None for the learner's seat."""
        return self._seated[seat]

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        """``"human"``: print the table; ``"ansi"``: return it as text; ``"rgb_array"``: a
        picture of it with the learner's hand and the moves since the learner's last action
        (:meth:`~tt_env.three_thirteen_v0.raw_env.frame`)."""
        from tt_env.env.aec import render_text

        if self.render_mode == "rgb_array":
            seat = self.learner_seat
            notes = [
                f"{who}{' (learner)' if who == self.learner else ''}: {describe(action)}"
                for who, action in self._moves
            ]
            if self.learner is not None:
                notes.insert(0, f"learner: {self.learner}")
            return self.aec_env.frame(seat, notes[-5:])
        return render_text(self.render_mode, self._text)

    def _text(self) -> str:
        if self.learner is None:
            return "(not reset)"
        lines = [
            f"{who}{' (learner)' if who == self.learner else ''}: {describe(action)}"
            for who, action in self._moves
        ]
        lines.append(f"[learner: {self.learner}]")
        lines.append(self.aec_env.render())
        return "\n".join(lines)

    def close(self) -> None:
        self.aec_env.close()


__all__ = [
    "ENV_ID",
    "OpponentError",
    "SingleAgentEnv",
    "make_opponents",
    "new_round",
    "register_envs",
    "reset_seat",
]
