"""Every table of a batch in one C call: :class:`CompiledSelfPlay`.

The tables are games of the C engine (``game/core/game.h``) with the episodes, rewards and
autoreset of ``three_thirteen_v0`` (``vector/table.h``): table ``i`` of ``reset(seed=s)`` plays
the AEC env's games of ``reset(seed=s + i)``, move for move. One call steps every table, on
as many threads as asked (by default the cores this process may run on), without the GIL, and
writes into arrays allocated once: the same arrays every step.

An ended table waits for the next step to start its next episode; meanwhile its mask row is
all ones, as pgx does, so that a masked softmax over it stays finite (the action given for it
is ignored), and its observation is the final position seen by the seat that moved last.
"""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.encoding.observation import piece_starts
from tt_env.game.native import SolverService, rules_tuple, thread_kernels
from tt_env.game.rules import Rules
from tt_env.util.workers import thread_count


def batch_module():
    """The batch's extension module (``tt_env.vector._cbatch``), or None when it is not built."""
    try:
        return importlib.import_module("tt_env.vector._cbatch")
    except ImportError:
        return None


# Who decides for a seat (vector/seats.h): the caller, or an agent built into the batch.
CALLER, RANDOM, GREEDY, COUNTING = 0, 1, 2, 3
# The agents the batch plays itself, by spec (their Python twins decide where it cannot).
BUILTIN_SPECS = {"random": RANDOM, "greedy": GREEDY, "counting": COUNTING}
# What a call does at a table (CompiledTables.advance's modes).
SKIP, ACT, NEXT, SEED = 0, 1, 2, 3


def builtin_kind(spec: Any) -> int:
    """The batch's code for an opponent given as ``spec``: ``RANDOM``, ``GREEDY`` or
    ``COUNTING`` for those names, ``CALLER`` for anything else (a model, an agent object, a
    built-in agent with options), which Python answers."""
    if isinstance(spec, str):
        return BUILTIN_SPECS.get(spec.strip().lower(), CALLER)
    return CALLER


def fresh_seed() -> int:
    """A seed from the operating system's entropy (an agent made without a seed)."""
    return int(np.random.SeedSequence().generate_state(2, np.uint64)[0] >> np.uint64(1))


def compiled_seed(seed: int) -> int:
    """A table's seed for the compiled batch: a non-negative integer below 2**64."""
    from tt_env.game.engine import check_seed

    seed = check_seed(seed)
    if seed >= 2**64:
        raise ValueError(f"seed must be below 2**64 for the compiled batch, got {seed}")
    return seed


class CompiledTables:
    """``num_envs`` tables of the C engine stepped in one C call, with the built-in agents
    (``random``, ``greedy``, ``counting``) moving inside it: the machinery under the batched
    environments. ``seat_agents`` (int8, (N, players)) says who decides for each seat
    (``CALLER``, ``RANDOM``, ``GREEDY``, ``COUNTING``); the caller may change it between
    calls. ``observations``, ``masks``, ``rewards`` (added to: the caller zeroes them),
    ``terminations`` and ``seats`` are rewritten in place at the tables a call touches: each
    table stops where a seat of the caller's is to move (or a built-in agent leaves a decision
    it cannot certify to its Python twin), or where its episode ended (then its mask row is
    all ones and its observation the final position).
    """

    def __init__(
        self,
        num_envs: int,
        rules: Rules | None = None,
        *,
        episode: str = "game",
        reward: str = "penalty",
        num_threads: int | None = None,
        counting: Any = None,
    ) -> None:
        module = batch_module()
        if module is None:
            raise RuntimeError("the compiled batch (tt_env.vector._cbatch) is not built")
        if episode not in ("game", "round"):
            raise ValueError(f"episode must be 'game' or 'round', got {episode!r}")
        if reward not in ("penalty", "relative"):
            raise ValueError(f"reward must be 'penalty' or 'relative', got {reward!r}")
        self.rules = rules = Rules() if rules is None else rules
        if (
            isinstance(num_envs, (bool, np.bool_))
            or not isinstance(num_envs, (int, np.integer))
            or num_envs < 1
        ):
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        num_envs = int(num_envs)
        threads = min(thread_count(num_threads), num_envs)
        self.num_envs = num_envs
        p = rules.num_players
        starts, size = piece_starts(p, module.PIECES)
        self.observations = np.zeros((num_envs, size), np.float32)
        self.masks = np.zeros((num_envs, NUM_ACTIONS), np.int8)
        self.rewards = np.zeros((num_envs, p), np.float64)
        self.terminations = np.zeros(num_envs, bool)
        self.seats = np.zeros(num_envs, np.int64)
        self.seat_agents = np.zeros((num_envs, p), np.int8)
        if counting is None:
            from tt_env.valuation.heuristics import ExpectedPenalty

            counting = ExpectedPenalty()
        rule = (
            counting.lookahead,
            counting.feed_cost,
            counting.wild_feed_cost,
            counting.candidates,
            counting.margin,
        )
        self._batch = module.Batch(
            rules_tuple(rules),
            SolverService(rules),
            tuple(thread_kernels(rules) for _ in range(threads)),
            (starts, size),
            self.observations,
            self.masks,
            self.rewards,
            self.terminations,
            self.seats,
            episode == "round",
            reward == "relative",
            seat_agents=self.seat_agents,
            rule=rule,
        )
        self._no_actions = np.zeros(num_envs, np.int64)
        self._no_seeds = np.zeros(num_envs, np.uint64)

    @property
    def num_threads(self) -> int:
        return self._batch.threads

    def advance(self, modes: np.ndarray, actions: Any = None, seeds: Any = None) -> None:
        """At each table ``i`` by ``modes[i]`` (uint8): ``SKIP`` nothing, ``ACT`` play
        ``actions[i]`` (int64), ``NEXT`` start the next episode (a reset without a seed),
        ``SEED`` start the game of ``seeds[i]`` (uint64); then the built-in agents move. An
        illegal action raises ``ValueError`` naming the table, the seat and the action, and no
        table moves."""
        self._batch.advance(
            modes,
            self._no_actions if actions is None else actions,
            self._no_seeds if seeds is None else seeds,
        )

    def seed_agent(self, table: int, seat: int, seed: int) -> None:
        """The random agent of ``seat`` at ``table`` draws from ``np.random.default_rng(seed)``
        (``seed``: 0..2**64-1)."""
        self._batch.seed_agent(table, seat, seed)

    def move_agents(self, table: int, order: Any) -> None:
        """Seat ``s`` of ``table`` takes the generator of seat ``order[s]`` (``order`` names
        each seat once)."""
        self._batch.move_agents(table, order)

    def end(self, table: int) -> None:
        """The episode at ``table`` ends where it stands (an illegal action under
        ``illegal_action="terminate"``); its next episode is a new game."""
        self._batch.end(table)

    def view(self, table: int, seat: int) -> None:
        """Row ``table`` of ``observations`` becomes what ``seat`` sees there."""
        self._batch.view(table, seat)

    def table(self, table: int) -> dict[str, Any]:
        """The state of the game at ``table`` that infos need: ``round_index``,
        ``ended_round_index``, ``rounds_played``, ``over``, ``round_played``, ``game_over``,
        ``scores`` and ``penalties`` (of the last round scored)."""
        return self._batch.table(table)


class CompiledSelfPlay(CompiledTables):
    """``num_envs`` tables of self-play (the learner plays every seat) stepped in one C call.

    ``observations`` (float32, (N, size)), ``masks`` (int8, (N, 108)), ``rewards`` (float64,
    (N, players): what each seat earned in the step), ``terminations`` (bool, (N,)) and
    ``seats`` (int64, (N,): the seat to move) are rewritten in place by :meth:`reset` and
    :meth:`step`. ``episode`` and ``reward`` are the AEC env's.
    """

    def reset(self, seed: Any = 0) -> None:
        """Table ``i`` starts the game of ``reset(seed=seed + i)`` (or ``seed[i]`` for a
        sequence of ``num_envs`` seeds); every seed is an integer 0..2**64-1."""
        n = self.num_envs
        if isinstance(seed, (int, np.integer, bool, np.bool_)):
            first = compiled_seed(seed)
            if first + n > 2**64:
                raise ValueError(
                    f"seed + {n - 1} (the last table's) must be below 2**64, got {seed}"
                )
            seeds = np.arange(n, dtype=np.uint64) + np.uint64(first)
        else:
            try:
                values = list(seed)
            except TypeError:
                raise ValueError(
                    f"seed must be an integer or a sequence of {n} integers, got {seed!r}"
                ) from None
            if len(values) != n:
                raise ValueError(f"seed must hold {n} seeds (one per table), got {len(values)}")
            seeds = np.array([compiled_seed(s) for s in values], np.uint64)
        self._batch.reset(seeds)

    def step(self, actions: Any) -> None:
        """Play ``actions[i]`` at table ``i`` (int64); an ended table starts its next episode
        and ignores its action. An illegal action raises ``ValueError`` naming the table, the
        seat and the action, and no table moves."""
        self._batch.step(np.ascontiguousarray(actions, dtype=np.int64))
