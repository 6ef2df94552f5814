"""Which discards let a player go out: the solver's answer, with a fast exact pre-check.

After a draw the engine must offer "go out" for exactly the discards that leave a hand with no
deadwood (RULES.md, "A turn"). Where the solver's compiled kernel serves the rules it answers
in one call: a hand whose fewest penalty exceeds the penalty of every card it holds cannot go
out (a discard of ``k`` saves at most ``k``'s penalty), which one evaluation settles for most
hands; the others have every discard valued. Otherwise (a cap on wilds per meld, no compiled kernel)
the following applies. Asking the solver about every possible discard costs a dozen
solves per turn, and in most hands no discard works. So cheap *necessary* conditions, computed
with bit masks over the hand, rule out the hopeless discards first; the solver
(:func:`tt_env.game.melds.min_penalty`) decides every discard that passes them. The result is exact:
the pre-check only ever removes discards that the solver would also reject.

Words. The *pool* is the wild cards: jokers and every card of the wild rank, wherever they stand
(a wild-rank card in its natural place is still counted in the pool). The other cards are
*natural*. A natural card is *loose* when it is in no meld of natural cards only: fewer than
three natural cards of its rank, and no three natural cards of its suit at consecutive
positions through it. It is *isolated* when, besides, it has no other natural card of its rank
and none of its suit within two positions. Every condition below holds for a hand (after the
discard) with no deadwood, so a hand that breaks one has deadwood; each is argued here:

1. *Each loose card's meld holds a pool card; an isolated card's meld holds two.* A meld with no
   pool card is a meld of natural cards only (a natural card stands only for itself), which a
   loose card is in by definition not. A set holding an isolated card holds no other natural
   card (none of its rank), so its two or more other cards are pool cards. A run holding it
   covers two positions within two of it (a run is 3 consecutive positions or more), and no
   natural card of its suit stands there, so pool cards do.
2. *Matching bound.* A meld is one rank (a set) or one suit (a run), so loose cards that differ
   pairwise in rank *and* suit (a matching of the rank-suit grid) lie in different melds, and a
   pool card lies in one meld only: the pool holds at least the matching's weight, 1 per loose
   card and 2 per isolated card (by 1). Any matching gives a bound; a greedy one is used.
3. *Isolated count.* A meld holding ``j >= 1`` isolated cards holds at least ``max(2, j)`` pool
   cards: a set holds one isolated card at most (two would be a pair of its rank), and a run
   holding isolated cards at positions ``p1 < ... < pj`` (each at least three from the next)
   has pool cards at the two positions above every ``pi`` but the last (no natural card of the
   suit stands within two of an isolated card), ``2(j - 1)``, and two around a lone one. So
   ``i >= 1`` isolated cards need at least ``max(2, i)`` pool cards.
4. *Cover bound.* Every natural card lies in a meld, and every meld lies in one rank or one
   suit, so the melds that hold natural cards are at least as many as the natural cards of any
   matching (distinct ranks and suits, by the argument of 2), while ``h`` cards make at most
   ``h // 3`` disjoint melds of three or more.

The check runs in two stages. Stage one analyses the hand after the draw once and derives, for
every discard at once, bounds that still hold without the discarded card: removing a card only
takes neighbours away from the others, so every card loose (isolated) in the hand is loose
(isolated) without it, and a matching loses at most the discarded card's own weight (nothing if
it is not matched). Stage two analyses each hand left by a discard that passed stage one from
scratch, with all four conditions, before the solver is asked.

The hand is one integer with a bit per card kind held (bit ``k`` for kind ``k``: clubs A..K,
diamonds, hearts, spades), so all four suits are shifted at once; masks cut the shifts at the suit
boundaries. Ranks are counted by combining the four suits' 13-bit slices, with the kinds held
twice or more (several decks) added in when there are any.
"""

from __future__ import annotations

from tt_env.game.cards import JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS
from tt_env.game.melds import kernel_of, min_penalty, solver_config
from tt_env.game.melds._cache import BoundedCache
from tt_env.game.melds._inputs import _check_counts, _check_size
from tt_env.game.rules import Rules

_SUIT = (1 << NUM_RANKS) - 1  # the 13 bits of one suit
_SHIFTS = tuple(NUM_RANKS * s for s in range(NUM_SUITS))


def _bits(positions) -> int:
    """The bits of the card kinds at ``positions`` (0 = ace .. 12 = king) in all four suits."""
    return sum(1 << (NUM_RANKS * s + p) for s in range(NUM_SUITS) for p in positions)


_SPREAD = _bits([0])  # times a 13-bit rank mask: the same ranks in all four suits
_ACES = _bits([0])
_Q, _K = NUM_RANKS - 2, NUM_RANKS - 1  # shifts from an ace to its queen and king
# Kinds that have a position one (two) below them in their suit, or one (two) above.
_ABOVE_1, _ABOVE_2 = _bits(range(1, NUM_RANKS)), _bits(range(2, NUM_RANKS))
_BELOW_1, _BELOW_2 = _bits(range(NUM_RANKS - 1)), _bits(range(NUM_RANKS - 2))
_NATURAL = tuple(_bits(range(NUM_RANKS)) & ~_bits([w]) for w in range(NUM_RANKS))  # by wild - 1
# Translation tables from counts to the binary digits of "held", "held twice", "thrice".
_ONE_OR_MORE = b"0" + b"1" * 255
_TWO_OR_MORE = b"00" + b"1" * 254
_THREE_OR_MORE = b"000" + b"1" * 253

# (hand, wild rank, id(rules)) -> (rules, kinds); estimated bytes per entry: the deep size
# measured over a mixed soak (benchmarks/bench_soak.py), as for every cache of the solver
_CACHE: BoundedCache = BoundedCache(1 << 16, 270, "going-out discards")


def clear_cache() -> None:
    """Empty the result cache of :func:`go_out_discards` (benchmarks use it to time cold
    calls)."""
    _CACHE.clear()


def go_out_discards(counts, wild_rank: int, rules: Rules) -> tuple[int, ...]:
    """The card kinds whose discard leaves ``counts`` (53 counts: a tuple, list or bytes) with no
    deadwood, ascending.

    ``counts`` is a hand just after a draw. Exact: the same as every kind ``k`` held with
    ``min_penalty(counts minus one k) == 0``, only faster.
    """
    hand = _check_counts(counts)
    kernel = kernel_of(solver_config(rules, wild_rank, None))
    if kernel is not None:  # the compiled kernel: one evaluation rejects most hands, exactly
        bits = kernel.go_out(hand)
        if bits == 0:
            return ()
        if bits > 0:
            return tuple(k for k in range(NUM_KINDS) if bits >> k & 1)
    key = (hand, wild_rank, id(rules))
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is rules:
        return hit[1]
    _check_size(hand)
    candidates = _candidates(hand, wild_rank, rules)
    result = _solve_each(hand, candidates, wild_rank, rules) if candidates else ()
    _CACHE[key] = (rules, result)
    return result


def _solve_each(
    hand: bytes, candidates: list[int], wild_rank: int, rules: Rules
) -> tuple[int, ...]:
    """The candidates whose discard leaves no deadwood, by the solver."""
    out = []
    rest = bytearray(hand)
    for k in candidates:
        rest[k] -= 1
        if min_penalty(bytes(rest), wild_rank, rules) == 0:
            out.append(k)
        rest[k] += 1
    return tuple(out)


def _held(hand: bytes) -> list[int]:
    return [k for k, n in enumerate(hand) if n]


def _candidates(hand: bytes, wild_rank: int, rules: Rules) -> list[int]:
    """The discards that pass the necessary conditions (see the module docstring), ascending."""
    if rules.max_wilds_per_meld == 0:
        return _held(hand)  # wilds cannot act as wilds: no pre-check, the solver decides
    w = wild_rank - 1
    aces_high = rules.aces_high
    jokers = hand[JOKER]
    pool = (
        hand[w] + hand[NUM_RANKS + w] + hand[2 * NUM_RANKS + w] + hand[3 * NUM_RANKS + w] + (jokers)
    )
    held, natural, loose, pairs = _loose(hand, w, aces_high)
    # Stage one. A discard takes at most one loose (isolated) card and one pool card away, and
    # at most weight 2 from the matching: the global rejects first, then by kind of discard.
    total_loose = loose.bit_count()
    if pool == 0 and total_loose > 1:
        return []
    lonely = _isolated(natural, pairs, aces_high)
    isolated = lonely.bit_count()
    if isolated > 1 and pool < max(2, isolated - 1):
        return []
    needed, matched = _matching(lonely, loose)
    if needed - 2 > pool:
        return []
    passing = 0
    # (cards, weight they take from the matching, isolated, loose) of each kind of discard
    for cards, share, is_lonely, is_loose in (
        (lonely & matched, 2, 1, 1),
        (lonely & ~matched, 0, 1, 1),
        (loose & ~lonely & matched, 1, 0, 1),
        (loose & ~lonely & ~matched, 0, 0, 1),
        (natural & ~loose, 0, 0, 0),
    ):
        if cards and _may_pass(needed - share, isolated - is_lonely, total_loose - is_loose, pool):
            passing |= cards
    wilds = held & ~natural  # the wild-rank kinds held
    if (wilds or jokers) and not _may_pass(needed, isolated, total_loose, pool - 1):
        wilds = jokers = 0
    passing |= wilds
    # Stage two: each hand left by a passing discard, analysed from scratch.
    size = sum(hand) - 1  # cards after the discard
    rest = bytearray(hand)
    result = []
    while passing:
        low = passing & -passing
        passing ^= low
        k = low.bit_length() - 1
        rest[k] -= 1
        if not _hopeless(bytes(rest), w, aces_high, size, pool - bool(low & wilds)):
            result.append(k)
        rest[k] += 1
    if jokers:
        rest[JOKER] -= 1
        if not _hopeless(bytes(rest), w, aces_high, size, pool - 1):
            result.append(JOKER)
    return result


def _may_pass(needed: int, isolated: int, loose: int, pool: int) -> bool:
    """Conditions 2, 3 and 1 (no pool: no loose card) for lower bounds of a hand's counts."""
    return (
        needed <= pool and (isolated <= 0 or pool >= max(2, isolated)) and (pool > 0 or loose <= 0)
    )


def _hopeless(hand: bytes, w: int, aces_high: bool, size: int, pool: int) -> bool:
    """True when the hand (53 counts, ``size`` cards, ``pool`` wild cards) breaks a condition of
    the module docstring, so that it has deadwood."""
    _, natural, loose, pairs = _loose(hand, w, aces_high)
    if loose and pool == 0:
        return True
    lonely = _isolated(natural, pairs, aces_high)
    isolated = lonely.bit_count()
    if isolated and pool < max(2, isolated):
        return True
    if _careful_matching(lonely, loose) > pool:
        return True
    return _careful_matching(0, natural) > size // 3


def _loose(hand: bytes, w: int, aces_high: bool) -> tuple[int, int, int, int]:
    """Of a hand (53 counts): the kinds held and its natural and loose cards (52-bit masks), and
    the ranks with two cards or more (a 13-bit mask, the wild rank's included)."""
    digits = hand[NUM_RANKS * NUM_SUITS - 1 :: -1]  # kind 51 first: most significant
    held = int(digits.translate(_ONE_OR_MORE), 2)
    # Suits C, D, H, S are the 13-bit slices 0..3. At bit r: `both` holds C&D and `either` C|D;
    # at bit 26 + r, H&S and H|S.
    both, either = held & (held >> NUM_RANKS), held | (held >> NUM_RANKS)
    both_hs, either_hs = both >> 2 * NUM_RANKS, either >> 2 * NUM_RANKS
    pairs = (both | both_hs | (either & either_hs)) & _SUIT  # ranks held in two suits or more
    sets = ((both & either_hs) | (both_hs & either)) & _SUIT  # in three suits or more
    if digits.translate(None, b"\0\1"):  # a kind held twice or more (several decks)
        twice = int(digits.translate(_TWO_OR_MORE), 2)
        thrice = int(digits.translate(_THREE_OR_MORE), 2)
        twice = (twice | twice >> _SHIFTS[1] | twice >> _SHIFTS[2] | twice >> _SHIFTS[3]) & _SUIT
        thrice = (
            thrice | thrice >> _SHIFTS[1] | thrice >> _SHIFTS[2] | thrice >> _SHIFTS[3]
        ) & _SUIT
        sets |= (twice & pairs) | thrice  # a kind twice and another suit, or a kind thrice
        pairs |= twice
    m = held & _NATURAL[w]
    starts = m & (m >> 1) & (m >> 2) & _BELOW_2
    melded = (starts | (starts << 1) | (starts << 2)) if starts else 0  # in a natural run
    if aces_high:
        # RULES.md, aces_high: an ace also stands above the king (Q-K-A, never K-A-2).
        top = m & _ACES & (m >> _Q) & (m >> _K)  # Q-K-A, marked at the ace
        melded |= top | (top << _Q) | (top << _K)
    if sets:
        melded |= sets * _SPREAD  # in a natural set
    return held, m, m & ~melded, pairs


def _isolated(m: int, pairs: int, aces_high: bool) -> int:
    """The isolated cards among the natural cards ``m`` (see :func:`_loose`)."""
    near = (
        ((m << 1) & _ABOVE_1)
        | ((m << 2) & _ABOVE_2)
        | ((m >> 1) & _BELOW_1)
        | ((m >> 2) & _BELOW_2)
    )
    if aces_high:
        aces = m & _ACES
        near |= (aces << _Q) | (aces << _K) | (((m >> _Q) | (m >> _K)) & _ACES)
    return m & ~(near | pairs * _SPREAD)


def _matching(lonely: int, loose: int) -> tuple[int, int]:
    """A matching of the loose cards (distinct ranks, distinct suits), isolated cards first, and
    its weight (2 per isolated card, 1 per other): a lower bound of the pool cards needed
    (condition 2). Greedy: each suit takes its lowest free rank. Returns (weight, the matched
    cards)."""
    weight = matched = used = 0
    for cards, value in ((lonely, 2), (loose, 1)):  # isolated cards first
        for shift in _SHIFTS:
            row = (cards >> shift) & _SUIT & ~used
            if row and not (matched >> shift) & _SUIT:  # one card per suit
                bit = row & -row
                used |= bit
                matched |= bit << shift
                weight += value
    return weight, matched


def _careful_matching(lonely: int, loose: int) -> int:
    """The weight of a matching as in :func:`_matching`, found with more care (for stage two):
    a suit takes, if it can, a rank that no suit still unmatched needs."""
    rows = [((loose >> shift) & _SUIT, shift) for shift in _SHIFTS]
    rows = [row for row in rows if row[0]]
    weight = used = 0
    for pick, value in ((lonely, 2), (loose, 1)):
        if not pick:
            continue
        left = []
        for i, (row, shift) in enumerate(rows):
            free = (pick >> shift) & _SUIT & ~used
            if not free:
                left.append((row, shift))
                continue
            others = 0
            for later, _ in rows[i + 1 :]:
                others |= later
            for later, _ in left:
                others |= later
            free = (free & ~others) or free
            used |= free & -free
            weight += value
        rows = left
    return weight
