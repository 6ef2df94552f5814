"""Hand masks: the natural cards of a hand as one integer with an 8-bit count field per kind."""

from __future__ import annotations

from itertools import compress

from tt_env.game.cards import ALL_CARDS, NUM_RANKS, NUM_SUITS, Card

_BIG = 1 << 12  # "unlimited": more wilds than any hand holds
_INF = 1 << 30
_NATURAL_KINDS = NUM_SUITS * NUM_RANKS  # 52

# ---------------------------------------------------------------------------- hand masks
# The natural cards of a hand are one int with an 8-bit count field per card kind (kind k at
# bits 8k .. 8k+7, so suit s occupies 104 bits from 104*s): int.from_bytes(bytes(counts))
# builds it in one step and rejects counts that are negative or above 255.
_FB = 8
_UNIT = tuple(1 << (_FB * k) for k in range(_NATURAL_KINDS))
_SUIT_SHIFT = tuple(_FB * NUM_RANKS * s for s in range(NUM_SUITS))
_SUIT_SLICE = (1 << (_FB * NUM_RANKS)) - 1
_RANK_SHIFT = tuple(_FB * p for p in range(NUM_RANKS))
_RANK_SLICE = sum(0xFF << sh for sh in _SUIT_SHIFT)
_MANY = sum(0xFE << (_FB * k) for k in range(_NATURAL_KINDS))  # count fields >= 2
_FAST_MAX_WILDS = 12  # the fast path's exactness argument needs at most 12 wilds (see _fast)
_H_CLIP = 16  # capacities above this never matter to the fast path (it takes <= 16 wilds)


def _fields(y: int) -> list[int]:
    """The 13 count fields of a suit slice."""
    return [(y >> (_FB * i)) & 0xFF for i in range(NUM_RANKS)]


def _cards_in(mask: int) -> list[Card]:
    """The cards of a mask, in kind order."""
    counts = mask.to_bytes(_NATURAL_KINDS, "little")
    if max(counts) <= 1:
        return list(compress(ALL_CARDS, counts))
    out: list[Card] = []
    for k, c in enumerate(counts):
        if c:
            out += [ALL_CARDS[k]] * c
    return out
