"""The action mask: which of the 108 actions (:mod:`tt_env.encoding.actions`) a seat may play
now, as ``int8`` (the observation's ``"action_mask"``) or as bytes (the environments' fast path).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from tt_env.encoding.actions import KIND_OFFSET, NUM_ACTIONS
from tt_env.game.engine import Game, PlayerView


def legal_mask_bytes(moves: Iterable) -> bytes:
    """The action mask of some engine moves, as 108 bytes (0/1)."""
    mask = bytearray(NUM_ACTIONS)
    for m in moves:
        mask[KIND_OFFSET[m.kind] + m.card] = 1
    return bytes(mask)


def action_mask(source: PlayerView | Game, seat: int | None = None) -> np.ndarray:
    """The ``int8`` mask of the 108 actions: 1 for each legal action of the seat to move.

    ``source`` is a :class:`PlayerView` (its seat's mask) or a :class:`Game` (``seat``'s mask,
    default the seat to move). The mask of a seat that is not to move is all zeros.
    """
    if isinstance(source, Game):
        if seat is None:
            seat = source.current
        moves = source.legal_moves() if seat == source.current else ()
    else:
        moves = source.legal_moves
    return np.frombuffer(legal_mask_bytes(moves), np.int8).copy()


__all__ = ["action_mask", "legal_mask_bytes"]
