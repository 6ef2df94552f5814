"""Which discards let a player go out: the solver's answer, with a fast exact pre-check.

After a draw the engine must offer "go out" for exactly the discards that leave a hand with no
deadwood (RULES.md, "A turn"). Asking the solver about every possible discard costs a dozen
solves per turn, and in most hands no discard works. So a cheap *necessary* condition, computed
with bit masks over the hand, rules out the hopeless discards first; the solver
(:func:`tt_env.melds.min_penalty`) decides every discard that passes it. The result is exact:
the pre-check only ever removes discards that the solver would also reject.

The pre-check counts *isolated* natural cards: cards that are not wild and have no other natural
card of the same rank, nor of the same suit within two positions. A meld holding an isolated
card holds at least two cards from the wild pool (jokers and wild-rank cards): its other cards
are wilds, or natural cards at least three positions away whose gap takes two wilds. Two
isolated cards can share such a meld (5H _ _ 8H), so ``i`` isolated cards need at least
``max(2, i)`` wilds. With no wild at all, every card but the discard must sit in a meld of
natural cards only (a natural set of three or a natural run of three).
"""

from __future__ import annotations

from .cards import JOKER, NUM_RANKS
from .melds import min_penalty
from .rules import Rules

_FIELD = 8  # bits per card kind in the packed hand (a byte of count)
_SUIT_BITS = _FIELD * NUM_RANKS
_ONES13 = sum(1 << (_FIELD * p) for p in range(NUM_RANKS))  # 0x01 in each of 13 fields
_ONES52 = sum(1 << (_FIELD * k) for k in range(4 * NUM_RANKS))
_HIGH52 = _ONES52 << 7  # 0x80 in each field
_HIGH13 = _ONES13 << 7
_BYTES13 = _ONES13 * 0xFF
_CACHE: dict[tuple, tuple[int, ...]] = {}
_CACHE_LIMIT = 200_000


def go_out_discards(counts: tuple[int, ...], wild_rank: int, rules: Rules) -> tuple[int, ...]:
    """The card kinds whose discard leaves ``counts`` (53 counts) with no deadwood, ascending.

    ``counts`` is a hand just after a draw. Exact: the same as every kind ``k`` held with
    ``min_penalty(counts minus one k) == 0``, only faster.
    """
    key = (counts, wild_rank, id(rules))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is rules:
        return hit[1]
    result = _go_out(counts, wild_rank, rules)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[key] = (rules, result)
    return result


def _go_out(counts: tuple[int, ...], wild_rank: int, rules: Rules) -> tuple[int, ...]:
    candidates = _candidates(counts, wild_rank, rules)
    if not candidates:
        return ()
    out = []
    hand = list(counts)
    for k in candidates:
        hand[k] -= 1
        if min_penalty(tuple(hand), wild_rank, rules) == 0:
            out.append(k)
        hand[k] += 1
    return tuple(out)


def _candidates(counts: tuple[int, ...], wild_rank: int, rules: Rules) -> list[int]:
    """The discards that pass the necessary condition (see the module docstring)."""
    if rules.max_wilds_per_meld == 0:
        return _held(counts)  # wilds cannot act as wilds: no pre-check, the solver decides
    try:
        packed = int.from_bytes(bytes(counts[:JOKER]), "little")
    except ValueError:
        return _held(counts)  # a count above 255: no pre-check
    if packed & _HIGH52:
        return _held(counts)  # a count above 127 would overflow the fields' arithmetic
    w = wild_rank - 1
    pool = counts[w] + counts[NUM_RANKS + w] + counts[2 * NUM_RANKS + w] + counts[
        3 * NUM_RANKS + w] + counts[JOKER]
    present = ((packed + _ONES52 * 0x7F) & _HIGH52) >> 7
    natural = _ONES13 & ~(1 << (_FIELD * w))  # a suit slice without the wild rank's field
    slices = [(packed >> (_SUIT_BITS * s)) & _BYTES13 for s in range(4)]
    per_rank = slices[0] + slices[1] + slices[2] + slices[3]  # cards of each rank (< 128)
    in_pair = ((per_rank + _ONES13 * 0x7E) & _HIGH13) >> 7  # two or more of a rank
    in_set = ((per_rank + _ONES13 * 0x7D) & _HIGH13) >> 7  # three or more of a rank
    aces_high = rules.aces_high
    isolated = total_loose = 0
    lonely = [0, 0, 0, 0]  # per suit: isolated cards
    loose = [0, 0, 0, 0]  # per suit: cards in no meld of natural cards only
    for s in range(4):
        m = (present >> (_SUIT_BITS * s)) & natural
        if not m:
            continue
        near, in_run = _neighbours(m, aces_high)
        lonely[s] = iso = m & ~near & ~in_pair
        loose[s] = lo = m & ~in_run & ~in_set
        isolated += iso.bit_count()
        total_loose += lo.bit_count()
    # Each loose card's meld holds a wild, two if the card is isolated. A meld is one rank (a
    # set) or one suit (a run), so loose cards of different ranks and suits lie in different
    # melds: a matching of loose cards (distinct ranks, distinct suits), isolated ones first,
    # bounds the wilds needed from below by its weight (2 per isolated card, 1 per other).
    needed = 0
    ranks_used = 0
    suits_free = [True] * 4
    for pick, weight in ((lonely, 2), (loose, 1)):
        for s in range(4):
            free = pick[s] & ~ranks_used
            if free and suits_free[s]:
                ranks_used |= free & -free
                suits_free[s] = False
                needed += weight
    # The discard takes away at most one card's share (the checks per discard are below).
    if needed - 2 > pool or (isolated > 1 and pool < max(2, isolated - 1)) or (
        pool == 0 and total_loose > 1
    ):
        return []
    wild_kinds = (w, NUM_RANKS + w, 2 * NUM_RANKS + w, 3 * NUM_RANKS + w, JOKER)
    result = []
    for k in _held(counts):
        if k == JOKER:
            is_lonely = is_loose = 0
        else:
            s, bit = divmod(k, NUM_RANKS)
            is_lonely = (lonely[s] >> (_FIELD * bit)) & 1
            is_loose = (loose[s] >> (_FIELD * bit)) & 1
        pool_k = pool - 1 if k in wild_kinds else pool
        # Discarding k only leaves its partners worse off, so each count below, less what k
        # itself contributed, is still a bound for the hand without k.
        left = isolated - is_lonely
        if (needed - (2 if is_lonely else is_loose) <= pool_k
                and (left == 0 or pool_k >= max(2, left))
                and (pool_k > 0 or total_loose == is_loose)):
            result.append(k)
    return result


def _held(counts: tuple[int, ...]) -> list[int]:
    return [k for k, n in enumerate(counts) if n]


def _neighbours(m: int, aces_high: bool) -> tuple[int, int]:
    """For a suit slice: the fields with a card within two positions, and the fields in a run of
    three natural cards."""
    if aces_high and m & 1:
        # The ace also sits above the king: a 14th field, folded back onto the ace afterwards.
        m |= 1 << _SUIT_BITS
    near = (m << _FIELD) | (m >> _FIELD) | (m << 2 * _FIELD) | (m >> 2 * _FIELD)
    starts = m & (m >> _FIELD) & (m >> 2 * _FIELD)
    in_run = starts | (starts << _FIELD) | (starts << 2 * _FIELD)
    if aces_high:
        near |= (near >> _SUIT_BITS) & 1
        in_run |= (in_run >> _SUIT_BITS) & 1
    return near & _ONES13, in_run & _ONES13
