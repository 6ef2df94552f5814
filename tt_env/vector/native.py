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
import os
from typing import Any

import numpy as np

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.encoding.observation import piece_starts
from tt_env.game.native import SolverService, rules_tuple, thread_kernels
from tt_env.game.rules import Rules


def batch_module():
    """The batch's extension module (``tt_env.vector._cbatch``), or None when it is not built."""
    try:
        return importlib.import_module("tt_env.vector._cbatch")
    except ImportError:
        return None


def default_threads() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class CompiledSelfPlay:
    """``num_envs`` tables of self-play (the learner plays every seat) stepped in one C call.

    ``observations`` (float32, (N, size)), ``masks`` (int8, (N, 108)), ``rewards`` (float64,
    (N, players): what each seat earned in the step), ``terminations`` (bool, (N,)) and
    ``seats`` (int64, (N,): the seat to move) are rewritten in place by :meth:`reset` and
    :meth:`step`. ``episode`` and ``reward`` are the AEC env's.
    """

    def __init__(
        self,
        num_envs: int,
        rules: Rules | None = None,
        *,
        episode: str = "game",
        reward: str = "penalty",
        num_threads: int | None = None,
    ) -> None:
        module = batch_module()
        if module is None:
            raise RuntimeError("the compiled batch (tt_env.vector._cbatch) is not built")
        if episode not in ("game", "round"):
            raise ValueError(f"episode must be 'game' or 'round', got {episode!r}")
        if reward not in ("penalty", "relative"):
            raise ValueError(f"reward must be 'penalty' or 'relative', got {reward!r}")
        self.rules = rules = Rules() if rules is None else rules
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be an int >= 1, got {num_envs!r}")
        threads = default_threads() if num_threads is None else num_threads
        if not isinstance(threads, int) or not 1 <= threads <= 64:
            raise ValueError(f"num_threads must be 1..64, got {num_threads!r}")
        threads = min(threads, num_envs)
        self.num_envs = num_envs
        starts, size = piece_starts(rules.num_players, module.PIECES)
        self.observations = np.zeros((num_envs, size), np.float32)
        self.masks = np.zeros((num_envs, NUM_ACTIONS), np.int8)
        self.rewards = np.zeros((num_envs, rules.num_players), np.float64)
        self.terminations = np.zeros(num_envs, bool)
        self.seats = np.zeros(num_envs, np.int64)
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
        )

    @property
    def num_threads(self) -> int:
        return self._batch.threads

    def reset(self, seed: Any = 0) -> None:
        """Table ``i`` starts the game of ``reset(seed=seed + i)`` (or ``seed[i]`` for a list)."""
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
            seeds = np.arange(self.num_envs, dtype=np.uint64) + np.uint64(int(seed))
        else:
            seeds = np.asarray(seed, dtype=np.uint64)
        self._batch.reset(np.ascontiguousarray(seeds))

    def step(self, actions: Any) -> None:
        """Play ``actions[i]`` at table ``i`` (int64); an ended table starts its next episode
        and ignores its action. An illegal action raises ``ValueError`` naming the table, the
        seat and the action, and no table moves."""
        self._batch.step(np.ascontiguousarray(actions, dtype=np.int64))
