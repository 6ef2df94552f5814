"""The native batched environment: N tables of the single-agent view stepped in one call.

``gymnasium.make_vec("tt_env/ThreeThirteen-v0", num_envs=N)`` builds a
:class:`ThreeThirteenVectorEnv` (the id's ``vector_entry_point``): a
``gymnasium.vector.VectorEnv`` over N tables, each the game of a
:class:`~tt_env.env.single_agent.SingleAgentEnv` with the same keyword arguments. One
``step(actions)`` plays every table's learner action, then every opponent's move at every table
together (:func:`tt_env.agents.together.act_together`: one forward pass for the tables where a
learned policy is to move, one loop of the compiled rule for ``counting``), round after round
until each table is back at its learner, then writes the observations (raw, or
:class:`~tt_env.learned.features.CardFeatures` of them), rewards and masks into arrays.

The tables play exactly the games of the single-agent view: table ``i`` reset with seed ``s + i``
plays move for move what ``SingleAgentEnv(...).reset(seed=s + i)`` plays, and what
``gymnasium.make_vec(..., vectorization_mode="sync")`` plays in its ``i``-th env (the same
engine, the same opponents' code; only the order in which the tables are visited differs).

Arguments: ``num_envs``, ``observation`` (``"raw"``: the flat observation vector of
:mod:`tt_env.three_thirteen_v0`; ``"features"``: :class:`CardFeatures` of it, the learner's input
in ``tt-train``; or a :class:`CardFeatures` instance), ``autoreset_mode`` (Gymnasium's
:class:`~gymnasium.vector.AutoresetMode` or its name: ``"next_step"``, the default, as
Gymnasium's own vector envs, ``"same_step"``, as Stable-Baselines3 expects, or ``"disabled"``),
and every argument of the single-agent view (``opponents``, ``seat``, ``episode``, ``reward``,
``illegal_action``, ``illegal_reward``, the rule options or ``rules``).

Outputs: observations ``(N, size)`` ``float32``; rewards ``(N,)`` ``float64``; terminations
``(N,)``; truncations always False (every round ends by the rules). ``infos["action_mask"]`` is
``(N, 108)`` ``int8`` and ``infos["seat"]`` ``(N,)`` the learner's seat, at every step; a
table whose episode ended adds the single-agent view's info (``score``, ``scores``,
``round_penalty``, ``winners``...) under its keys, with Gymnasium's ``_key`` masks: at that step
with ``"next_step"``, under ``infos["final_info"]`` with ``"same_step"`` (and its last
observation under ``infos["final_obs"]``). :meth:`ThreeThirteenVectorEnv.action_masks` gives
the masks as ``bool`` for sb3-contrib's ``MaskablePPO``.

Seeding: ``reset(seed=s)`` seeds table ``i`` with ``s + i`` (a list gives one seed per table);
``reset(options={"reset_mask": m})`` resets only the tables where ``m`` is True (Gymnasium 1.x);
other options (``"seat"``) go to every table reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode

from tt_env.agents.together import act_together, unwrapped_agent
from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.vector import native

AUTORESET_MODES = {
    "next_step": AutoresetMode.NEXT_STEP,
    "same_step": AutoresetMode.SAME_STEP,
    "disabled": AutoresetMode.DISABLED,
}


def autoreset_mode_of(mode: Any) -> AutoresetMode:
    """An :class:`AutoresetMode` from itself or its name (``"next_step"``, ``"same_step"``,
    ``"disabled"``); anything else raises ``ValueError``."""
    if isinstance(mode, AutoresetMode):
        return mode
    if isinstance(mode, str):
        key = mode.strip().lower().replace("_", "")
        for name, value in AUTORESET_MODES.items():
            if key in (name.replace("_", ""), value.value.lower()):
                return value
    raise ValueError(
        f"autoreset_mode must be one of {', '.join(AUTORESET_MODES)} (or a "
        f"gymnasium.vector.AutoresetMode), got {mode!r}"
    )


def use_compiled(compiled: bool | None, supported: bool = True) -> bool:
    """Whether a batch steps its tables in the compiled batch (:mod:`tt_env.vector.native`):
    ``compiled=None`` where it is built and ``supported`` (the arguments it serves); ``True``
    insists (an error where it cannot), ``False`` keeps the Python engine."""
    batch_module = native.batch_module
    if compiled is None:
        return supported and batch_module() is not None
    if not isinstance(compiled, (bool, np.bool_)):
        raise ValueError(f"compiled must be None, True or False, got {compiled!r}")
    if compiled and batch_module() is None:
        raise RuntimeError("compiled=True: the compiled batch (tt_env.vector._cbatch) is not built")
    if compiled and not supported:
        raise ValueError("compiled=True: the compiled batch does not serve these arguments")
    return bool(compiled)


def check_num_envs(num_envs: Any) -> int:
    if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)):
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs!r}")
    if num_envs < 1:
        raise ValueError(f"num_envs must be an integer >= 1, got {num_envs}")
    return int(num_envs)


def observation_transform(observation: Any, rules, num_threads: int | None = None) -> Any:
    """None for ``"raw"``; a :class:`CardFeatures` for ``"features"`` (on ``num_threads``
    threads) or for itself."""
    from tt_env.learned.features import CardFeatures

    if isinstance(observation, CardFeatures):
        if observation.rules != rules:
            raise ValueError("the CardFeatures given were made for other rules than the env's")
        return observation
    if observation == "raw":
        return None
    if observation == "features":
        return CardFeatures(rules, num_threads=num_threads)
    raise ValueError(
        f"observation must be 'raw', 'features' or a CardFeatures instance, got {observation!r}"
    )


def seeds_for(seed: Any, num_envs: int) -> list[int | None]:
    """Gymnasium's convention: an int ``s`` seeds table ``i`` with ``s + i``; a list gives one
    seed per table; None leaves the tables' generators as they are."""
    if seed is None:
        return [None] * num_envs
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        return [int(seed) + i for i in range(num_envs)]
    if isinstance(seed, Sequence) and not isinstance(seed, (str, bytes)):
        if len(seed) != num_envs:
            raise ValueError(f"give one seed per table: {num_envs} seeds, not {len(seed)}")
        return [None if s is None else s for s in seed]
    raise ValueError(f"seed must be an int, a list of {num_envs} ints or None, got {seed!r}")


class ThreeThirteenVectorEnv(gymnasium.vector.VectorEnv):
    """N tables of the single-agent view, stepped together (see the module docstring)."""

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        *,
        observation: Any = "raw",
        autoreset_mode: Any = AutoresetMode.NEXT_STEP,
        compiled: bool | None = None,
        num_threads: int | None = None,
        **env_kwargs: Any,
    ) -> None:
        from tt_env.env.single_agent import SingleAgentEnv

        self.num_envs = n = check_num_envs(num_envs)
        mode = autoreset_mode_of(autoreset_mode)
        if env_kwargs.get("render_mode") is not None:
            raise ValueError(
                "the batched environment does not render; render one table with "
                "gymnasium.make('tt_env/ThreeThirteen-v0', render_mode=...)"
            )
        env_kwargs.pop("render_mode", None)
        env_kwargs.pop("max_episode_steps", None)  # make_vec passes the spec's (None)
        template = SingleAgentEnv(**env_kwargs)  # checks every argument
        self.compiled = use_compiled(compiled)
        self.tables = (
            []
            if self.compiled
            else [template] + [SingleAgentEnv(**env_kwargs) for _ in range(n - 1)]
        )
        self.rules = rules = template.rules
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.autoreset_mode = mode
        self.transform = observation_transform(observation, rules, num_threads)
        raw_space = template.observation_space
        self.raw_size = raw_space.shape[0]
        if self.transform is None:
            self.single_observation_space = raw_space
        else:
            self.single_observation_space = spaces.Box(
                -np.inf, np.inf, (self.transform.size,), np.float32
            )
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, n
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self._raw = np.zeros((n, self.raw_size), np.float32)
        self._obs = (
            self._raw if self.transform is None else np.zeros((n, self.transform.size), np.float32)
        )
        self._masks = np.zeros((n, NUM_ACTIONS), np.int8)
        self._seats = np.zeros(n, np.int64)
        self._ended = np.zeros(n, bool)  # the episode ended at the last step (next_step)
        self._started = False
        self.learners = None
        if self.compiled:
            from tt_env.vector.learner import LearnerTables

            self.learners = LearnerTables(
                n,
                template,
                env_kwargs.get("opponents", "random"),
                seat=template.seat,
                num_threads=num_threads,
            )
            self._raw = self.learners.batch.observations
            if self.transform is None:
                self._obs = self._raw
            self._masks = self.learners.batch.masks
            self._seats = self.learners.learner

    # ------------------------------------------------------------------ the tables together
    def _play_opponents(self, indices: Sequence[int]) -> None:
        play_opponents(self.tables, indices)

    def _write(self, i: int, obs: np.ndarray, info: dict[str, Any]) -> None:
        self._raw[i] = obs
        self._masks[i] = info["action_mask"]
        self._seats[i] = info["seat"]

    def _outputs(self, rows: Sequence[int] | None = None) -> np.ndarray:
        if self.transform is not None:
            if rows is None or len(rows) == self.num_envs:
                self.transform.batch(self._raw, out=self._obs)
            elif len(rows):
                self._obs[rows] = self.transform.batch(self._raw[rows])
        return self._obs.copy()

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self._masks.copy(), "seat": self._seats.copy()}

    # ------------------------------------------------------------------ reset
    def reset(
        self, *, seed: Any = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        n = self.num_envs
        seeds = seeds_for(seed, n)
        options = dict(options or {})
        reset_mask = options.pop("reset_mask", None)
        if reset_mask is None:
            rows = list(range(n))
        else:
            reset_mask = np.asarray(reset_mask)
            if reset_mask.shape != (n,) or reset_mask.dtype != np.bool_:
                raise ValueError(f"options['reset_mask'] must be a bool array of shape ({n},)")
            if not self._started and not reset_mask.all():
                raise ValueError("the first reset must reset every table")
            rows = [int(i) for i in np.flatnonzero(reset_mask)]
        if seed is not None:
            self._np_random, self._np_random_seed = gymnasium.utils.seeding.np_random(
                seeds[0] if isinstance(seeds[0], int) else None
            )
        if self.compiled:
            self._reset_compiled(rows, seeds, options)
            return self._outputs(rows), self._infos()
        for i in rows:
            self.tables[i].begin_reset(seeds[i], options or None)
        self._play_opponents(rows)
        for i in rows:
            self._write(i, *self.tables[i].reset_result())
            self._ended[i] = False
        self._started = True
        return self._outputs(rows), self._infos()

    def _reset_compiled(self, rows: list[int], seeds: list, options: dict[str, Any]) -> None:
        # Everything is checked before anything changes: a refused reset changes nothing.
        seeds = [None if s is None else native.compiled_seed(s) for s in seeds]
        from tt_env.env.single_agent import reset_seat

        seat = reset_seat(options, None, self.rules.num_players)
        self.learners.reset(rows, seeds, seat)
        self._ended[rows] = False
        self._started = True

    # ------------------------------------------------------------------ step
    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        n, tables = self.num_envs, self.tables
        if not self._started:
            raise gymnasium.error.ResetNeeded("call reset() before step()")
        actions = check_actions(actions, n)
        if self.compiled:
            return self._step_compiled(actions)
        mode = self.autoreset_mode
        resetting = np.flatnonzero(self._ended) if mode == AutoresetMode.NEXT_STEP else []
        stepping = [i for i in range(n) if not (mode == AutoresetMode.NEXT_STEP and self._ended[i])]
        # Everything is checked before any table moves: a refused batch changes nothing.
        for i in stepping:
            table = tables[i]
            if table.needs_reset:
                raise gymnasium.error.ResetNeeded(
                    f"table {i}: the episode is over: call reset() (autoreset_mode='disabled')"
                )
            a = actions[i]
            if not 0 <= a < NUM_ACTIONS:
                raise ValueError(f"table {i}: action {int(a)} is not in Discrete({NUM_ACTIONS})")
            if table.aec_env.illegal_action == "raise" and not self._masks[i, a]:
                table.play_learner(int(a))  # raises IllegalActionError, naming the action
        for i in resetting:
            tables[i].begin_reset()
        for i in stepping:
            tables[i].play_learner(int(actions[i]))
        self._play_opponents(range(n))
        rewards = np.zeros(n, np.float64)
        terminations = np.zeros(n, bool)
        infos: dict[str, Any] = {}
        finals: dict[str, Any] = {}
        final_obs: dict[int, np.ndarray] = {}
        for i in resetting:
            self._write(i, *tables[i].reset_result())
            self._ended[i] = False
        for i in stepping:
            obs, reward, done, _, info = tables[i].step_result()
            rewards[i] = reward
            if not done:
                self._write(i, obs, info)
                continue
            if mode == AutoresetMode.SAME_STEP:
                final_obs[i] = obs
                finals = self._add_info(finals, _episode_info(info), i)
                tables[i].begin_reset()
                self._play_opponents([i])
                self._write(i, *tables[i].reset_result())
            else:
                terminations[i] = True
                self._ended[i] = mode == AutoresetMode.NEXT_STEP
                self._write(i, obs, info)
                self._masks[i] = 1  # see action_masks()
                infos = self._add_info(infos, _episode_info(info), i)
        return self._step_outputs(rewards, terminations, infos, finals, final_obs)

    def _step_compiled(self, actions: np.ndarray):
        n, mode, learners = self.num_envs, self.autoreset_mode, self.learners
        resetting = np.flatnonzero(self._ended) if mode == AutoresetMode.NEXT_STEP else []
        stepping = [i for i in range(n) if not (mode == AutoresetMode.NEXT_STEP and self._ended[i])]
        # Everything is checked before any table moves: a refused batch changes nothing.
        for i in stepping:
            if learners.needs_reset[i]:
                raise gymnasium.error.ResetNeeded(
                    f"table {i}: the episode is over: call reset() (autoreset_mode='disabled')"
                )
            a = actions[i]
            if not 0 <= a < NUM_ACTIONS:
                raise ValueError(f"table {i}: action {int(a)} is not in Discrete({NUM_ACTIONS})")
            learners.check(i, int(a))  # raises for an illegal one with illegal_action="raise"
        illegal = learners.play(stepping, actions.astype(np.int64), resetting)
        self._ended[resetting] = False
        rewards = np.zeros(n, np.float64)
        terminations = np.zeros(n, bool)
        infos: dict[str, Any] = {}
        finals: dict[str, Any] = {}
        final_obs: dict[int, np.ndarray] = {}
        done = [i for i in stepping if learners.batch.terminations[i]]
        for i in stepping:
            rewards[i] = learners.reward(i)
        for i in done:
            info = learners.finish(i, illegal.get(i))
            if mode == AutoresetMode.SAME_STEP:
                final_obs[i] = self._raw[i].copy()
                finals = self._add_info(finals, info, i)
            else:
                terminations[i] = True
                self._ended[i] = mode == AutoresetMode.NEXT_STEP
                infos = self._add_info(infos, info, i)
        if final_obs:
            learners.reset(list(final_obs), [None] * n)
        return self._step_outputs(rewards, terminations, infos, finals, final_obs)

    def _step_outputs(self, rewards, terminations, infos, finals, final_obs):
        """What :meth:`step` returns, from what it found."""
        n = self.num_envs
        observations = self._outputs()
        if final_obs:
            terminations[list(final_obs)] = True
            last = np.empty(n, object)
            for i, obs in final_obs.items():
                last[i] = obs if self.transform is None else self.transform(obs)
            infos["final_obs"] = last
            infos["_final_obs"] = terminations.copy()
            infos["final_info"] = finals
            infos["_final_info"] = terminations.copy()
        infos.update(self._infos())
        return observations, rewards, terminations, np.zeros(n, bool), infos

    # ------------------------------------------------------------------ masks and the rest
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions at every table: ``bool`` of shape (N, 108). At a table
        whose episode ended (reset at the next step) the row is all True, as pgx has it: a
        masked softmax over it stays finite, and the action given there is ignored."""
        return self._masks.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        for table in self.tables:
            table.close()


def answer_together(indices: Sequence[int], request, play) -> None:
    """The loop of every batch: ``request(i)`` gives ``(agent, observation, mask, context)``
    for the agent to move at table ``i``, or None when none is (the learner's turn, or the
    end); the requests of all tables are answered together
    (:func:`~tt_env.agents.together.act_together`), each answer goes to ``play(i, context,
    action)``, and round after round until no table has a request."""
    pending = list(indices)
    while pending:
        waiting, requests = [], []
        for i in pending:
            asked = request(i)
            if asked is not None:
                waiting.append(i)
                requests.append(asked)
        if not requests:
            return
        actions = act_together(
            [unwrapped_agent(r[0]) for r in requests],
            np.stack([r[1] for r in requests]),
            np.stack([r[2] for r in requests]),
        )
        for i, r, action in zip(waiting, requests, actions):
            play(i, r[3], action)
        pending = waiting


def play_opponents(tables: Sequence[Any], indices: Sequence[int]) -> None:
    """Every opponent's moves at ``tables[i]`` (single-agent views) for ``i`` in ``indices``,
    all tables together, until each is at its learner or its episode is over: the moves
    :meth:`SingleAgentEnv.play_opponents` plays one table at a time."""

    def request(i: int):
        asked = tables[i].opponent_request()
        return None if asked is None else (asked[0], asked[2], asked[3], asked)

    answer_together(
        indices, request, lambda i, asked, action: tables[i].play_opponent(asked, action)
    )


def check_actions(actions: Any, n: int) -> np.ndarray:
    """``actions`` as ``n`` integers (whole floats accepted, as some trainers send them), or
    ``ValueError`` naming the shape and type given."""
    actions = np.asarray(actions)
    if actions.shape == (n,) and np.issubdtype(actions.dtype, np.floating):
        if np.all(actions == np.round(actions)):
            actions = actions.astype(np.int64)
    if actions.shape != (n,) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"actions must be {n} integers (one per table), got an array of shape "
            f"{actions.shape} and dtype {actions.dtype}"
        )
    return actions


def _episode_info(info: dict[str, Any]) -> dict[str, Any]:
    """The single-agent view's info at the end of an episode, without the mask (the batch
    gives every table's mask in one array)."""
    return {k: v for k, v in info.items() if k != "action_mask"}


__all__ = [
    "ThreeThirteenVectorEnv",
    "answer_together",
    "autoreset_mode_of",
    "check_actions",
    "play_opponents",
    "use_compiled",
]
