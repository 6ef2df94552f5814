"""Melds: the exact meld solver of Three Thirteen and the :class:`Arrangement` it returns.

Terminology (the words of ``RULES.md``):

meld
    A group of 3 or more cards that is a *set* or a *run*, with at least one natural card
    (unless ``Rules.all_wild_melds``) and at most ``Rules.max_wilds_per_meld`` cards used as
    wilds.
set
    Cards that all stand for one rank; suits may repeat when several decks are in play.
run
    Cards of one suit at consecutive *positions*, one card per position. Positions are 1
    (ace) .. 13 (king); with ``Rules.aces_high`` an ace may also stand at position 14 (Q-K-A),
    so a run covers at most 1..14. Runs never wrap (K-A-2 is no run).
wild
    Every joker and every card of the round's wild rank. A card *used as a wild* stands for a
    card it is not.
natural place
    A wild-rank card in a set of its own rank, or in a run of its own suit at its own position,
    is natural there and not used as a wild (decided in ``RULES.md``). Jokers are never
    natural.
deadwood
    The cards left out of every meld; their penalty (``Rules.penalty_table``) is the score.

Algorithm. A hand is 53 counts; its natural cards become one integer with an 8-bit count field
per card kind (``int.from_bytes``), so several decks need no special case.

*The pool.* Wild cards are fungible as wilds: a meld only needs a number of them, and a
leftover joker differs from a leftover wild-rank card only in its penalty. So every meld built
from natural cards is summarised by the wilds it needs at least (``lo``: gaps, length 3) and
can take at most (``hi``: the cap, a run's length limit), and the wilds themselves are
counted: ``J`` jokers and ``m`` wild-rank cards must give the melds ``D = sum(lo)`` to
``H = sum(hi)`` wilds; what is left may form sets of the wild rank (its cards natural there,
jokers as wilds) or, with ``all_wild_melds``, melds of jokers only, and the rest is deadwood,
the cheapest cards left over. :meth:`_Config.leaf` solves this count problem exactly.
With no cap a wild-rank card in its natural place in a run is worth exactly what the same
card is worth as a wild there, so all wild-rank cards join the pool; with a cap the natural
place saves a wild, so they are also searched as natural run cards.

*The fast path* (:func:`_fast`, nearly every call). Sets are chosen first, rank by rank: only
ranks with 2 or more cards (one card and two wilds is also a run), one set per rank with no
cap (merging two sets never needs more wilds), every split into several sets with a cap (each
set takes ``cap`` more wilds). For each choice the four suits are looked up in tables of their
best runs, keyed by the suit's 13 count fields and built lazily once per rule set: with no cap
the fewest points of the suit for each number of wilds, combined over the suits by a min-plus
sum within the wild budget; with a cap the Pareto-best (points, wilds needed, natural
wild-rank cards, wilds taken), tried in every combination and finished by the pool. Choices
are tried cheapest lower bound first (the suits' points as they are, less the points of the
set cards) and cut when the bound cannot win. It is exact under conditions it checks, else
the search below decides: with no cap it assumes that once any meld exists every spare wild
finds a place, which holds unless one suit holds more than ``top - W`` natural positions or
the hand more than 26 cards; it takes at most 12 wilds (16 with a cap shorter than the longest run).

*The search* (:func:`_search`, exact for every input). A memoised depth-first search over the
lowest uncovered card: deadwood (or, for a wild-rank card, the pool); a set of its rank (every
sub-multiset of the uncovered cards of that rank holding it); a run of its suit in which it is
the lowest natural card (every subset of the uncovered cards of the suit above it). The state
is (cards left, natural wild-rank cards used, ``D``, ``H``); it never branches on where a wild
goes. :func:`lay_off` runs the same search with the table melds as extra resources.

:func:`min_penalty` (the hot path) returns only the points and is cached; :func:`solve` spells
out the arrangement the fast path (or the search) found; :func:`discard_penalties` solves the
whole hand once: a card that is deadwood there needs no search (dropping it saves exactly its
penalty), only the melded ones do.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations, compress, product

from .cards import (
    ALL_CARDS, JOKER, NUM_KINDS, NUM_RANKS, NUM_SUITS, Card, parse_card, parse_cards,
)
from .rules import JOKER_PENALTY, Rules

__all__ = [
    "Arrangement",
    "clear_cache",
    "LayOff",
    "MeldShape",
    "discard_penalties",
    "is_meld",
    "lay_off",
    "min_penalty",
    "solve",
]

_BIG = 1 << 12  # "unlimited": more wilds than any hand holds
_INF = 1 << 30
_NATURAL_KINDS = NUM_SUITS * NUM_RANKS  # 52


# ---------------------------------------------------------------------------- public types
@dataclass(frozen=True)
class MeldShape:
    """What a meld on the table is, as far as lay-offs care.

    ``kind`` is ``"set"``, ``"run"`` or ``"wild"`` (a meld of wild cards only, with
    ``all_wild_melds``). ``rank`` is the rank of a set (else 0); ``suit`` (0..3 = C, D, H, S),
    ``low`` and ``high`` (positions 1..14) describe a run (else -1, 0, 0). ``wilds`` counts the
    cards used as wilds, ``size`` all its cards.
    """

    kind: str
    rank: int
    suit: int
    low: int
    high: int
    wilds: int
    size: int


_SHAPES: dict[tuple, MeldShape] = {}


def _shape(kind: str, rank: int, suit: int, low: int, high: int, wilds: int, size: int):
    """A shared MeldShape (they are immutable; building one costs more than looking it up)."""
    key = (kind, rank, suit, low, high, wilds, size)
    shape = _SHAPES.get(key)
    if shape is None:
        if len(_SHAPES) > 50_000:
            _SHAPES.clear()
        shape = _SHAPES[key] = MeldShape(kind, rank, suit, low, high, wilds, size)
    return shape


@dataclass(frozen=True)
class Arrangement:
    """A hand split into melds and deadwood; ``points`` is the deadwood's penalty (not doubled)."""

    melds: list[list[Card]]
    shapes: list[MeldShape]
    deadwood: list[Card]
    points: int


@dataclass(frozen=True)
class LayOff:
    """The redemption play: own melds and deadwood, cards laid off onto table melds, new table."""

    arrangement: Arrangement
    layoffs: list[tuple[int, list[Card]]]  # (index of the table meld, cards laid off onto it)
    table: list[MeldShape]  # every table meld's shape after the lay-offs


# ---------------------------------------------------------------------------- configuration
class _Config:
    """Everything the search needs from (rules, wild rank, joker penalty), computed once."""

    __slots__ = (
        "rules", "wild_rank", "cap", "capn", "all_wild", "aces_high", "top", "pen", "jp",
        "wpen", "wpos", "w_natural", "wild_kinds", "feas_memo", "rest_memo", "leaf_memo",
        "plan_memo", "keep_mask", "set_positions", "set_fields", "priced", "rank_masks", "tabs",
        "values",
    )

    def __init__(self, rules: Rules, wild_rank: int, joker_penalty: int | None) -> None:
        self.rules = rules
        self.wild_rank = wild_rank
        self.cap = rules.max_wilds_per_meld
        self.capn = _BIG if self.cap is None else self.cap
        self.all_wild = rules.all_wild_melds
        self.aces_high = rules.aces_high
        self.top = 14 if rules.aces_high else 13  # highest position, and longest run
        pen = list(rules.penalty_table(wild_rank))
        self.jp = JOKER_PENALTY if joker_penalty is None else joker_penalty
        pen[JOKER] = self.jp
        self.pen = pen
        self.wpos = wild_rank - 1
        self.wpen = pen[self.wpos]
        # With no cap a wild-rank card in its natural place is as good as a wild there.
        self.w_natural = self.cap is not None
        self.wild_kinds = tuple(s * NUM_RANKS + self.wpos for s in range(NUM_SUITS))
        self.feas_memo: dict[tuple[int, int], bool] = {}
        self.rest_memo: dict[tuple[int, int], int] = {}
        self.leaf_memo: dict[tuple[int, int, int, int], int] = {}
        self.plan_memo: dict[tuple[int, int, int, int], tuple] = {}
        self.keep_mask = (1 << (_FB * _NATURAL_KINDS)) - 1  # not the joker's field
        if not self.w_natural:
            for k in self.wild_kinds:
                self.keep_mask -= 0xFF << (_FB * k)
        self.set_positions = tuple(p for p in range(NUM_RANKS) if p != self.wpos)
        self.set_fields = sum(1 << (_FB * p) for p in self.set_positions)
        self.rank_masks = tuple(_RANK_SLICE << _RANK_SHIFT[p] for p in range(NUM_RANKS))
        self.tabs = _tables_for(self)
        self.values = _suit_values_for(self, self.tabs)
        self.priced: list[dict[int, tuple]] = [{} for _ in range(NUM_RANKS)]

    def price_options(self, p: int, x: int) -> tuple:
        """The fast path's set options of rank ``p + 1`` for the cards ``x`` of that rank, as
        ``(delta, lo, suits, points of its cards, option)`` (see _Tables.build_rank_options)."""
        opts = self.tabs.rank_options[p].get(x)
        if opts is None:
            opts = self.tabs.build_rank_options(p, x)
        priced = tuple((o[0], o[1], o[3], self.pen[p] * o[4], o) for o in opts)
        self.priced[p][x] = priced
        return priced

    # ------------------------------------------------------------ the pool of wilds
    def feasible(self, pj: int, pm: int) -> bool:
        """Can exactly ``pj`` jokers and ``pm`` wild-rank cards form melds of their own?

        Those melds are sets of the wild rank (>= 1 wild-rank card, natural there, and at most
        ``cap`` jokers) and, with ``all_wild_melds``, melds of 3..cap jokers.
        """
        key = (pj, pm)
        memo = self.feas_memo
        if key in memo:
            return memo[key]
        ok = pj == 0 and pm == 0
        if not ok and pm > 0:
            for x in range(1, pm + 1):
                for y in range(0, min(pj, self.capn) + 1):
                    if x + y >= 3 and self.feasible(pj - y, pm - x):
                        ok = True
                        break
                if ok:
                    break
        if not ok and self.all_wild and pj >= 3:
            for y in range(3, min(pj, self.capn) + 1):
                if self.feasible(pj - y, pm):
                    ok = True
                    break
        memo[key] = ok
        return ok

    def rest(self, j: int, m: int) -> int:
        """Fewest points of ``j`` jokers and ``m`` wild-rank cards that no natural meld takes."""
        key = (j, m)
        memo = self.rest_memo
        if key in memo:
            return memo[key]
        best = _INF
        for pj in range(j + 1):
            for pm in range(m + 1):
                cost = (j - pj) * self.jp + (m - pm) * self.wpen
                if cost < best and self.feasible(pj, pm):
                    best = cost
        memo[key] = best
        return best

    def leaf(self, j: int, m: int, d: int, h: int) -> int:
        """Fewest points of the pool (``j`` jokers, ``m`` wild-rank cards) when the natural melds
        need ``d`` wilds in all and take ``h`` at most."""
        key = (j, m, d, h)
        memo = self.leaf_memo
        value = memo.get(key)
        if value is None:
            value = _INF
            if d <= j + m:
                for a in range(j + 1):
                    for b in range(max(0, d - a), min(m, h - a) + 1):
                        cost = self.rest(j - a, m - b)
                        if cost < value:
                            value = cost
            memo[key] = value
        return value

    def leaf_plan(self, j: int, m: int, d: int, h: int) -> tuple[int, int, list[tuple[int, int]]]:
        """An optimal use of the pool: (jokers to natural melds, wild-rank cards to natural melds,
        the pool's own melds as (wild-rank cards, jokers) pairs)."""
        key = (j, m, d, h)
        plan = self.plan_memo.get(key)
        if plan is None:
            plan = self.plan_memo[key] = self._leaf_plan(j, m, d, h)
        return plan

    def _leaf_plan(self, j: int, m: int, d: int, h: int) -> tuple[int, int, list[tuple[int, int]]]:
        target = self.leaf(j, m, d, h)
        for a in range(j + 1):
            for b in range(max(0, d - a), min(m, h - a) + 1):
                j2, m2 = j - a, m - b
                for pj in range(j2 + 1):
                    for pm in range(m2 + 1):
                        cost = (j2 - pj) * self.jp + (m2 - pm) * self.wpen
                        if cost == target and self.feasible(pj, pm):
                            return a, b, self._partition(pj, pm)
        raise AssertionError("no plan for the pool")  # unreachable: leaf() found one

    def _partition(self, pj: int, pm: int) -> list[tuple[int, int]]:
        groups = []
        while pj or pm:
            found = None
            if pm > 0:
                for x in range(1, pm + 1):
                    for y in range(0, min(pj, self.capn) + 1):
                        if x + y >= 3 and self.feasible(pj - y, pm - x):
                            found = (x, y)
                            break
                    if found:
                        break
            if found is None:
                for y in range(3, min(pj, self.capn) + 1):
                    if self.feasible(pj - y, pm):
                        found = (0, y)
                        break
            assert found is not None
            groups.append(found)
            pm -= found[0]
            pj -= found[1]
        return groups


_CONFIG_BY_ID: dict[tuple[int, int, int | None], tuple[Rules, _Config]] = {}
_CONFIG_BY_VALUE: dict[tuple[Rules, int, int | None], _Config] = {}


def _config(rules: Rules, wild_rank: int, joker_penalty: int | None) -> _Config:
    # Keyed by id() first: hashing a Rules dataclass costs more than a whole small solve.
    # The entry keeps the Rules object alive, so its id cannot be reused while cached.
    entry = _CONFIG_BY_ID.get((id(rules), wild_rank, joker_penalty))
    if entry is not None and entry[0] is rules:
        return entry[1]
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules instance, got {rules!r}")
    if isinstance(wild_rank, bool) or not isinstance(wild_rank, int) or not (
        1 <= wild_rank <= NUM_RANKS
    ):
        raise ValueError(f"wild_rank must be an integer 1..13, got {wild_rank!r}")
    if joker_penalty is not None and (
        isinstance(joker_penalty, bool) or not isinstance(joker_penalty, int) or joker_penalty < 0
    ):
        raise ValueError(f"joker_penalty must be None or an integer >= 0, got {joker_penalty!r}")
    key = (rules, wild_rank, joker_penalty)
    cfg = _CONFIG_BY_VALUE.get(key)
    if cfg is None:
        if len(_CONFIG_BY_VALUE) > 512:
            _CONFIG_BY_VALUE.clear()
        cfg = _CONFIG_BY_VALUE[key] = _Config(rules, wild_rank, joker_penalty)
    if len(_CONFIG_BY_ID) > 512:
        _CONFIG_BY_ID.clear()
    _CONFIG_BY_ID[(id(rules), wild_rank, joker_penalty)] = (rules, cfg)
    return cfg


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


# ---------------------------------------------------------------------------- candidate tables
class _Tables:
    """Candidate melds for one combination of the options that shape melds.

    ``runs[y]``: for the uncovered cards ``y`` of one suit (its slice of the mask, shifted
    down), every run whose lowest natural card is the lowest card of ``y``, as
    ``(delta, lo, hi, nat, places)``: the cards it takes (to subtract from ``y``), the wilds it
    needs and takes at most, how many of its natural cards are wild-rank cards, and its natural
    positions. ``sets[p][x]``: for the uncovered cards ``x`` of rank ``p + 1`` (the rank's
    fields of the mask), every set holding the lowest of them, as ``(delta, lo, hi)``.
    ``rank_options[p][x]``: the sets of rank ``p + 1`` the fast path tries (see
    :meth:`build_rank_options`). All lists are sorted by ``lo`` and filled in lazily.
    """

    __slots__ = ("top", "aces_high", "capn", "wpos", "runs", "sets", "rank_options")

    def __init__(self, top: int, aces_high: bool, capn: int, wpos: int) -> None:
        self.top = top
        self.aces_high = aces_high
        self.capn = capn
        self.wpos = wpos  # position index of natural wild-rank cards, -1 when they are pooled
        self.runs: dict[int, list] = {}
        self.sets: list[dict[int, list]] = [{} for _ in range(NUM_RANKS)]
        self.rank_options: list[dict[int, list]] = [{} for _ in range(NUM_RANKS)]

    def build_runs(self, y: int) -> list:
        cnt = _fields(y)
        first = next(i for i in range(NUM_RANKS) if cnt[i])
        above = [i + 1 for i in range(first + 1, NUM_RANKS) if cnt[i]]  # positions
        # The first card's place(s) in the run: an ace may stand low, high, or both (2 copies).
        if first == 0 and self.aces_high:
            heads = [(1,), (14,)] + ([(1, 14)] if cnt[0] >= 2 else [])
        else:
            heads = [(first + 1,)]
        out = []
        for head in heads:
            for r in range(len(above) + 1):
                for combo in combinations(above, r):
                    places = tuple(sorted(head + combo))
                    n = len(places)
                    span = places[-1] - places[0] + 1
                    if span > self.top:
                        continue
                    lo = max(3, span) - n
                    if lo > self.capn:
                        continue
                    hi = min(self.capn, self.top - n)
                    nat = 0
                    delta = 0
                    for pos in places:
                        idx = 0 if pos == 14 else pos - 1
                        delta += _UNIT[idx]
                        if idx == self.wpos:
                            nat += 1
                    out.append((delta, lo, hi, nat, places))
        out.sort(key=lambda c: (c[1], -len(c[4])))
        self.runs[y] = out
        return out

    def _rank_counts(self, p: int, x: int) -> list[int]:
        return [(x >> (sh + _RANK_SHIFT[p])) & 0xFF for sh in _SUIT_SHIFT]

    def build_sets(self, p: int, x: int) -> list:
        """Sets for the search: every sub-multiset holding the lowest card of ``x``."""
        out = []
        if p != self.wpos:  # sets of the wild rank are formed from the pool
            cnt = self._rank_counts(p, x)
            s0 = next(s for s in range(NUM_SUITS) if cnt[s])
            ranges = [range(1, cnt[s0] + 1)] + [range(cnt[s] + 1) for s in range(s0 + 1, NUM_SUITS)]
            for take in product(*ranges):
                n = sum(take)
                lo = max(0, 3 - n)
                if lo > self.capn:
                    continue
                delta = 0
                for s, t in zip(range(s0, NUM_SUITS), take):
                    delta += t << (_SUIT_SHIFT[s] + _RANK_SHIFT[p])
                out.append((delta, lo, self.capn))
            out.sort(key=lambda c: c[1])
        self.sets[p][x] = out
        return out

    def build_rank_options(self, p: int, x: int) -> list:
        """Sets of rank ``p + 1`` for the fast path, as ``(delta, lo, h, suits, n, blocks,
        cards)``: cards taken (mask), wilds needed, wilds taken at most, the suits (bits) the
        cards come from, how many cards, the mask of each set (one or more), and the cards;
        "no set" is not listed.

        Only sets of 2 or more natural cards: one natural card and two wilds is also a run, and
        the fast path finds it there. With no cap one set per rank is enough (merging two sets
        never needs more wilds); with a cap every split into several sets is tried, since each
        set can take ``cap`` more wilds.
        """
        out = []
        cnt = self._rank_counts(p, x)
        if p != self.wpos and sum(cnt) >= 2:
            def field(take):
                return sum(t << (_SUIT_SHIFT[s] + _RANK_SHIFT[p]) for s, t in enumerate(take))

            found: dict[tuple[int, ...], dict[tuple[int, int], tuple[int, ...]]] = {}
            for take in product(*[range(c + 1) for c in cnt]):
                if sum(take) < 2:
                    continue
                splits = [[take]] if self.capn == _BIG else _block_splits(take)
                for blocks in splits:
                    los = [max(0, 3 - sum(b)) for b in blocks]
                    if max(los) <= self.capn:
                        key = (sum(los), min(_BIG, self.capn * len(blocks)))
                        found.setdefault(take, {})[key] = tuple(field(b) for b in blocks)
            for take, by_lo_h in found.items():
                delta = field(take)
                touched = sum(1 << s for s, t in enumerate(take) if t)
                cards = tuple(ALL_CARDS[s * NUM_RANKS + p] for s, t in enumerate(take)
                              for _ in range(t))
                for lo, h in _pareto_lo_h(set(by_lo_h)):
                    out.append((delta, lo, h, touched, sum(take), by_lo_h[(lo, h)], cards))
            out.sort(key=lambda c: (c[1], -c[2]))
        self.rank_options[p][x] = out
        return out


def _block_splits(take: tuple[int, ...]):
    """Every split of a multiset (counts per suit) into blocks of >= 2 cards."""
    total = sum(take)
    if total == 0:
        yield []
        return
    # The block holding the first card present, then the rest (blocks come out in order).
    s0 = next(s for s, t in enumerate(take) if t)
    ranges = [range(1, take[s0] + 1) if s == s0 else range(t + 1) if s > s0 else range(1)
              for s, t in enumerate(take)]
    for block in product(*ranges):
        if sum(block) < 2:
            continue
        rest = tuple(t - b for t, b in zip(take, block))
        if 0 < sum(rest) < 2:
            continue
        for more in _block_splits(rest):
            yield [block] + more


def _pareto_lo_h(pairs: set[tuple[int, int]]) -> list[tuple[int, int]]:
    """(lo, h) pairs not beaten by one with lo as small and h as large."""
    return [(lo, h) for lo, h in pairs
            if not any(lo2 <= lo and h2 >= h and (lo2, h2) != (lo, h) for lo2, h2 in pairs)]


_TABLES: dict[tuple[int, bool, int, int], _Tables] = {}


def _tables_for(cfg: _Config) -> _Tables:
    wpos = cfg.wpos if cfg.w_natural else -1
    key = (cfg.top, cfg.aces_high, cfg.capn, wpos)
    tabs = _TABLES.get(key)
    if tabs is None:
        tabs = _TABLES[key] = _Tables(cfg.top, cfg.aces_high, cfg.capn, wpos)
    return tabs


class _SuitValues:
    """Best arrangements of one suit's cards into runs, for the fast path, cached per suit slice.

    Free mode (no cap): ``free[y] = (v, choices, all_cost, places, gains)`` where ``v[d]`` is
    the fewest points of the suit's cards when its runs need at most ``d`` wilds in all
    (constant past its end), ``choices[d]`` those runs, ``all_cost`` the points of every card
    of ``y``, ``places`` the most natural cards one run of ``y`` can hold and
    ``gains[d] = v[0] - v[d]`` for d = 0..12. Capped mode: ``capped[y] = (entries, minc,
    fits)``; ``entries`` are the Pareto-best ``(points, d, nat, h, runs)``: points of the cards
    left out, wilds needed, natural wild-rank cards, wilds the runs take at most (clipped at
    16), sorted by ``d + nat``; ``minc`` and ``fits`` see :func:`_budget_tables`.
    The suit's wild-rank cards (searched only with a cap) cost nothing here: left out of runs
    they join the pool.
    """

    __slots__ = ("tabs", "pen13", "free", "capped")

    def __init__(self, tabs: _Tables, pen13: tuple[int, ...]) -> None:
        self.tabs = tabs
        self.pen13 = pen13
        self.free: dict[int, tuple] = {0: ((0,), ((),), 0, 0, (0,) * (_FAST_MAX_WILDS + 1))}
        empty = (0, 0, 0, 0, ())
        self.capped: dict[int, tuple] = {0: ((empty,),) + _budget_tables([empty])}

    def build_free(self, y: int) -> tuple:
        i = ((y & -y).bit_length() - 1) >> 3
        rest = y - _UNIT[i]
        sub = self.free.get(rest) or self.build_free(rest)
        c = self.pen13[i]
        v = [x + c for x in sub[0]]
        ch = list(sub[1])
        runs = self.tabs.runs.get(y) or self.tabs.build_runs(y)
        for cand in runs:
            lo = cand[1]
            if lo > _FAST_MAX_WILDS:
                break
            child = self.free.get(y - cand[0]) or self.build_free(y - cand[0])
            for d, cost in enumerate(child[0]):
                nd = d + lo
                if nd > _FAST_MAX_WILDS:
                    break
                while len(v) <= nd:
                    v.append(v[-1])
                    ch.append(ch[-1])
                if cost < v[nd]:
                    v[nd] = cost
                    ch[nd] = child[1][d] + (cand,)
        for d in range(1, len(v)):
            if v[d - 1] <= v[d]:
                v[d], ch[d] = v[d - 1], ch[d - 1]
        while len(v) > 1 and v[-1] == v[-2]:
            v.pop()
            ch.pop()
        cnt = _fields(y)
        places = sum(1 for n in cnt if n) + (1 if self.tabs.aces_high and cnt[0] >= 2 else 0)
        gains = tuple(v[0] - v[min(d, len(v) - 1)] for d in range(_FAST_MAX_WILDS + 1))
        entry = (tuple(v), tuple(ch), sub[2] + c, places, gains)
        self.free[y] = entry
        return entry

    def build_capped(self, y: int) -> tuple:
        i = ((y & -y).bit_length() - 1) >> 3
        rest = y - _UNIT[i]
        c = 0 if i == self.tabs.wpos else self.pen13[i]
        found = [(e[0] + c,) + e[1:] for e in (self.capped.get(rest) or self.build_capped(rest))[0]]
        runs = self.tabs.runs.get(y) or self.tabs.build_runs(y)
        for cand in runs:
            delta, lo, hi, nat, _ = cand
            if lo > _H_CLIP:
                break
            sub = self.capped.get(y - delta) or self.build_capped(y - delta)
            for cost, d, n, h, chosen in sub[0]:
                if d + lo + n + nat <= _H_CLIP:
                    found.append((cost, d + lo, n + nat, min(h + hi, _H_CLIP), chosen + (cand,)))
        found.sort(key=lambda e: (e[0], e[1], -e[3]))
        kept: list = []
        for e in found:
            if not any(k[2] == e[2] and k[1] <= e[1] and k[3] >= e[3] for k in kept):
                kept.append(e)
        kept.sort(key=lambda e: (e[1] + e[2], e[0]))
        entry = (tuple(kept),) + _budget_tables(kept)
        self.capped[y] = entry
        return entry


def _budget_tables(kept: list) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """For budgets b = 0..16: the fewest points of an entry with d + nat <= b, and how many
    entries (a prefix, as they are sorted by d + nat) fit."""
    minc, fits = [], []
    for b in range(_H_CLIP + 1):
        ok = [e for e in kept if e[1] + e[2] <= b]
        minc.append(min(e[0] for e in ok))
        fits.append(len(ok))
    return tuple(minc), tuple(fits)


_SUIT_VALUES: dict[tuple, _SuitValues] = {}


def _suit_values_for(cfg: _Config, tabs: _Tables) -> _SuitValues:
    pen13 = tuple(cfg.pen[:NUM_RANKS])
    key = (cfg.top, cfg.aces_high, cfg.capn, tabs.wpos, pen13)
    sv = _SUIT_VALUES.get(key)
    if sv is None:
        sv = _SUIT_VALUES[key] = _SuitValues(tabs, pen13)
    return sv


# ---------------------------------------------------------------------------- the fast path
def _hand(counts: bytes, cfg: _Config) -> tuple[int, int, int]:
    """(mask of the searched natural cards, jokers, wild-rank cards) of 53 counts as bytes."""
    wk = cfg.wild_kinds
    return (int.from_bytes(counts, "little") & cfg.keep_mask, counts[JOKER],
            counts[wk[0]] + counts[wk[1]] + counts[wk[2]] + counts[wk[3]])


def _fast(cfg: _Config, mask: int, J: int, M: int, plan: bool = False):
    """Fewest points by choosing sets first and reading each suit's runs from a table (see
    the module docstring); None when its exactness conditions fail. With ``plan``, also what
    :func:`_free_arrangement` / :func:`_capped_plan` need to spell the arrangement out.
    """
    W = J + M
    sv = cfg.values
    # The ranks that can hold a set: 2+ cards (3+ with no wilds).
    y0 = mask & _SUIT_SLICE
    y1 = (mask >> 104) & _SUIT_SLICE
    y2 = (mask >> 208) & _SUIT_SLICE
    y3 = mask >> 312
    if mask & _MANY:  # some card twice (several decks): try every rank
        positions = cfg.set_positions
    else:
        if W:
            hit = (y0 & y1) | (y2 & y3) | ((y0 | y1) & (y2 | y3))
        else:
            hit = (y0 & y1 & (y2 | y3)) | (y2 & y3 & (y0 | y1))
        hit &= cfg.set_fields
        positions = []
        while hit:
            low = hit & -hit
            positions.append((low.bit_length() - 1) >> 3)
            hit -= low
    # Set options of those ranks, each (delta, lo, suits, points of its cards, option).
    ropts = []
    priced = cfg.priced
    rank_masks = cfg.rank_masks
    for p in positions:
        x = mask & rank_masks[p]
        opts = priced[p].get(x)
        if opts is None:
            opts = cfg.price_options(p, x)
        if opts:
            ropts.append(opts)
    if cfg.w_natural:
        return _fast_capped(cfg, sv, mask, J, M, W, ropts, plan)
    if W > _FAST_MAX_WILDS:
        return None
    free = sv.free
    build = sv.build_free
    e0 = free.get(y0) or build(y0)
    e1 = free.get(y1) or build(y1)
    e2 = free.get(y2) or build(y2)
    e3 = free.get(y3) or build(y3)
    all_cost = e0[2] + e1[2] + e2[2] + e3[2]
    if W and (max(e0[3], e1[3], e2[3], e3[3]) > cfg.top - W or W + (
            mask.bit_count() if not mask & _MANY else sum(mask.to_bytes(_NATURAL_KINDS, "little"))
    ) > 2 * cfg.top):
        return None  # the runs might not take every spare wild: let the search decide
    best = _free_best(e0, e1, e2, e3, W)
    best_plan: tuple = ((), 0, (e0, e1, e2, e3))
    if ropts and best:
        # Every choice of at most one set option per rank that the wilds allow, as (points
        # of the set cards, mask left, wilds needed, suits touched). Taking cards out of a
        # suit lowers its points by at most their penalty, so the points of the suits as they
        # are, less the penalty of the set cards, bound a choice from below.
        combos = [(0, mask, 0, 0)]
        for opts in ropts:
            combos += [(rc + orc, m - od, D + olo, t | ot)
                       for rc, m, D, t in combos for od, olo, ot, orc, _ in opts if D + olo <= W]
        bound = [best] * (W + 1)  # bound[D]: the suits as they are with W - D wilds
        for D in range(1, W + 1):
            bound[D] = _free_best(e0, e1, e2, e3, W - D)
        combos = sorted([(bound[c[2]] - c[0],) + c[1:] for c in combos[1:]])
        best_m = mask
        for lb, m, D, t in combos:
            if lb >= best:
                break
            f0 = (free.get(m & _SUIT_SLICE) or build(m & _SUIT_SLICE)) if t & 1 else e0
            f1 = (free.get((m >> 104) & _SUIT_SLICE) or build((m >> 104) & _SUIT_SLICE)
                  ) if t & 2 else e1
            f2 = (free.get((m >> 208) & _SUIT_SLICE) or build((m >> 208) & _SUIT_SLICE)
                  ) if t & 4 else e2
            f3 = (free.get(m >> 312) or build(m >> 312)) if t & 8 else e3
            total = _free_best(f0, f1, f2, f3, W - D)
            if total < best:
                best = total
                if plan:
                    best_m = m
                    best_plan = ((), D, (f0, f1, f2, f3))
                if not total:
                    break
        if plan and best_m != mask:
            # The options chosen, read back from the cards they took.
            taken = mask - best_m
            chosen = []
            for opts in ropts:
                for opt in opts:
                    if opt[0] == taken & rank_masks[(((opt[0] & -opt[0]).bit_length() - 1)
                                                     >> 3) % NUM_RANKS]:
                        chosen.append(opt[4])
                        break
            best_plan = (tuple(chosen),) + best_plan[1:]
    if best < all_cost:
        value = best  # some meld exists, and with no cap it takes every spare wild
    else:
        value = all_cost + cfg.rest(J, M)
    if not plan:
        return value
    return value, best < all_cost, best_plan


def _free_best(e0: tuple, e1: tuple, e2: tuple, e3: tuple, b: int) -> int:
    """Fewest points of four suits sharing ``b`` wilds: min over d0 + .. + d3 <= b of the sum
    of ``e[0][d]`` (each entry of :attr:`_SuitValues.free`; ``e[4]`` holds its gains)."""
    total = e0[0][0] + e1[0][0] + e2[0][0] + e3[0][0]
    if not b:
        return total
    g0, g1, g2, g3 = e0[4], e1[4], e2[4], e3[4]
    if b == 1:
        return total - max(g0[1], g1[1], g2[1], g3[1])
    if b == 2:
        a, b_, c, d = g0[1], g1[1], g2[1], g3[1]
        return total - max(g0[2], g1[2], g2[2], g3[2], a + b_, a + c, a + d, b_ + c, b_ + d, c + d)
    acc = None
    for g in (g0, g1, g2, g3):
        if not g[b]:
            continue  # this suit gains nothing from up to b wilds
        if acc is None:
            acc = g
            continue
        new = list(acc[:b + 1])
        for i in range(1, b + 1):
            x = new[i]
            for d in range(1, i + 1):
                y = acc[i - d] + g[d]
                if y > x:
                    x = y
            new[i] = x
        acc = new
    return total if acc is None else total - acc[b]


def _fast_capped(cfg, sv, mask, J, M, W, ropts, plan):
    """The fast path with a cap: each suit offers its Pareto-best ``(points, d, nat, h)``
    entries; every choice of sets and of one entry per suit is tried (cheapest bound first,
    pruned by points) and the pool then takes what the melds need and can hold."""
    if W > _H_CLIP or cfg.capn > cfg.top - 1:
        return None
    capped = sv.capped
    build = sv.build_capped
    leaf = cfg.leaf
    leaf_memo = cfg.leaf_memo
    base = []
    for sh in _SUIT_SHIFT:
        y = (mask >> sh) & _SUIT_SLICE
        base.append(capped.get(y) or build(y))
    combos = [(0, mask, 0, 0, (), 0)]
    for opts in ropts:
        combos += [(rc + p[3], m - p[0], D + p[1], H + p[4][2], ch + (p[4],), t | p[2])
                   for rc, m, D, H, ch, t in combos for p in opts if D + p[1] <= W]
    if len(combos) > 1:
        # Points of the suits as they are, each with every wild to itself, less the points of
        # the set cards, bound a choice from below (the pool costs >= 0).
        m0, m1, m2, m3 = base[0][1], base[1][1], base[2][1], base[3][1]
        bound = [m0[W - D] + m1[W - D] + m2[W - D] + m3[W - D] for D in range(W + 1)]
        combos = [combos[0]] + sorted([(bound[c[2]] - c[0],) + c[1:] for c in combos[1:]])
    best = _INF
    best_plan = None
    for i, combo in enumerate(combos):
        if i:
            lb, m, D, H, ch, t = combo
            if lb >= best:
                break
            suits = [(capped.get((m >> sh) & _SUIT_SLICE) or build((m >> sh) & _SUIT_SLICE))
                     if t >> s & 1 else base[s] for s, sh in enumerate(_SUIT_SHIFT)]
        else:
            _, m, D, H, ch, t = combo
            suits = base
        room = W - D
        e = suits[0]
        L0 = e[0][:e[2][room]]
        e = suits[1]
        L1 = e[0][:e[2][room]]
        e = suits[2]
        L2 = e[0][:e[2][room]]
        e = suits[3]
        L3 = e[0][:e[2][room]]
        for c0, d0, n0, h0, _ in L0:
            u0 = d0 + n0
            for c1, d1, n1, h1, _ in L1:
                u1 = u0 + d1 + n1
                if u1 > room:
                    break
                s1 = c0 + c1
                if s1 >= best:
                    continue
                for c2, d2, n2, h2, _ in L2:
                    u2 = u1 + d2 + n2
                    if u2 > room:
                        break
                    s2 = s1 + c2
                    if s2 >= best:
                        continue
                    for c3, d3, n3, h3, _ in L3:
                        if u2 + d3 + n3 > room:
                            break
                        s3 = s2 + c3
                        if s3 >= best:
                            continue
                        n = n0 + n1 + n2 + n3
                        h = H + h0 + h1 + h2 + h3
                        key = (J, M - n, D + d0 + d1 + d2 + d3, h if h < W else W)
                        v = leaf_memo.get(key)
                        v = s3 + (leaf(*key) if v is None else v)
                        if v < best:
                            best = v
                            if plan:
                                best_plan = (ch, m, D, H, (L0, L1, L2, L3), (
                                    (c0, d0, n0, h0), (c1, d1, n1, h1), (c2, d2, n2, h2),
                                    (c3, d3, n3, h3)))
                            if not v:
                                break
    if not plan:
        return best
    return best, best_plan


# ---------------------------------------------------------------------------- the search
def _search(cfg: _Config, mask0: int, J: int, M: int, trace: bool = False):
    """Fewest points for the hand (``mask0`` + ``J`` jokers + ``M`` wild-rank cards) by a
    memoised search over the lowest uncovered card; exact for every input.

    With ``trace``, also return an optimal path: a list of decisions (see :func:`_build`).
    """
    tabs = cfg.tabs
    unit = _UNIT
    runs = tabs.runs
    sets = tabs.sets
    pen = cfg.pen
    wpos = cfg.wpos
    W = J + M
    F = W + 1
    FF = (M + 1) * F * F
    leaf = cfg.leaf
    memo: dict[int, int] = {}

    def f(mask: int, mnat: int, D: int, H: int) -> int:
        if not mask:
            return leaf(J, M - mnat, D, H)
        key = mask * FF + (mnat * F + D) * F + H
        value = memo.get(key)
        if value is not None:
            return value
        k = ((mask & -mask).bit_length() - 1) >> 3
        s, p = divmod(k, NUM_RANKS)
        if p == wpos:  # a wild-rank card (only searched when there is a cap): to the pool
            best = f(mask - unit[k], mnat, D, H)
        else:
            best = pen[k] + f(mask - unit[k], mnat, D, H)
            if best:
                x = mask & _RANK_SLICE << _RANK_SHIFT[p]
                cands = sets[p].get(x)
                if cands is None:
                    cands = tabs.build_sets(p, x)
                room = W - mnat - D
                for delta, lo, hi in cands:
                    if lo > room:
                        break
                    v = f(mask - delta, mnat, D + lo, min(H + hi, W))
                    if v < best:
                        best = v
                        if not v:
                            break
        if best:
            shift = _SUIT_SHIFT[s]
            y = (mask >> shift) & _SUIT_SLICE
            cands = runs.get(y)
            if cands is None:
                cands = tabs.build_runs(y)
            room = W - mnat - D
            for delta, lo, hi, nat, _ in cands:
                if lo + nat > room:
                    if lo > room:
                        break
                    continue
                v = f(mask - (delta << shift), mnat + nat, D + lo, min(H + hi, W))
                if v < best:
                    best = v
                    if not v:
                        break
        memo[key] = best
        return best

    value = f(mask0, 0, 0, 0)
    if not trace:
        return value
    # Walk the memo along one optimal path.
    path = []
    mask, mnat, D, H = mask0, 0, 0, 0
    while mask:
        target = f(mask, mnat, D, H)
        k = ((mask & -mask).bit_length() - 1) >> 3
        s, p = divmod(k, NUM_RANKS)
        step = None
        if p == wpos:
            if f(mask - unit[k], mnat, D, H) == target:
                step = (("pool", k), mask - unit[k], mnat, D, H)
        elif pen[k] + f(mask - unit[k], mnat, D, H) == target:
            step = (("dead", k), mask - unit[k], mnat, D, H)
        if step is None and p != wpos:
            x = mask & _RANK_SLICE << _RANK_SHIFT[p]
            cands = sets[p].get(x) or tabs.build_sets(p, x)
            for delta, lo, hi in cands:
                if D + lo <= W - mnat and f(mask - delta, mnat, D + lo, min(H + hi, W)) == target:
                    step = (("set", delta, lo, hi, p), mask - delta, mnat, D + lo, min(H + hi, W))
                    break
        if step is None:
            shift = _SUIT_SHIFT[s]
            y = (mask >> shift) & _SUIT_SLICE
            cands = runs.get(y) or tabs.build_runs(y)
            for cand in cands:
                delta, lo, hi, nat, places = cand
                if D + lo + nat > W - mnat:
                    continue
                nxt = (mask - (delta << shift), mnat + nat, D + lo, min(H + hi, W))
                if f(*nxt) == target:
                    step = (("run", cand, s),) + nxt
                    break
        assert step is not None, "search memo inconsistent"
        path.append(step[0])
        mask, mnat, D, H = step[1:]
    path.append(("leaf", J, M - mnat, D, H))
    return value, path


# ---------------------------------------------------------------------------- inputs
def _counts_of(cards) -> bytes:
    """53 counts (as bytes) from a string or an iterable of cards / kinds / card names."""
    if isinstance(cards, str):
        cards = parse_cards(cards)
    counts = bytearray(NUM_KINDS)
    try:
        for c in cards:
            if c.__class__ is not Card and not (c.__class__ is int and 0 <= c < NUM_KINDS):
                c = parse_card(c)
            counts[c] += 1
    except ValueError as e:
        if "byte must be" in str(e):
            raise ValueError("a hand may hold at most 255 cards of one kind") from None
        raise
    return bytes(counts)


def _check_counts(counts) -> bytes:
    """53 counts as bytes (ValueError unless they are 53 integers 0..255)."""
    cls = counts.__class__
    if cls is not tuple and cls is not bytes and cls is not bytearray:
        if isinstance(counts, (int, str)):
            raise ValueError(f"counts must be a sequence of {NUM_KINDS} integers, got {counts!r}")
        counts = list(counts)
    try:
        key = bytes(counts)  # every entry an integer 0..255, checked in C
    except (TypeError, ValueError):
        bad = next((c for c in counts if not hasattr(c, "__index__") or not 0 <= c <= 255), None)
        raise ValueError(f"counts must be integers 0..255, got {bad!r}") from None
    if len(key) != NUM_KINDS:
        raise ValueError(
            f"counts must have {NUM_KINDS} entries (one per card kind), got {len(key)}")
    return key


# ---------------------------------------------------------------------------- public API
_CACHE: dict = {}
_CACHE_SIZE = 1 << 16


def min_penalty(
    counts: tuple[int, ...], wild_rank: int, rules: Rules = Rules(),
    joker_penalty: int | None = None,
) -> int:
    """The fewest penalty points the hand (53 counts, :func:`~tt_env.cards.to_counts`) can keep.

    Exact; cached on (counts, wild_rank, rules, joker_penalty) with a bounded cache.
    """
    return _cached_min(_check_counts(counts), _config(rules, wild_rank, joker_penalty))


def _cached_min(counts: bytes, cfg: _Config) -> int:
    key = (counts, cfg)
    value = _CACHE.get(key)
    if value is None:
        mask, J, M = _hand(counts, cfg)
        value = _fast(cfg, mask, J, M)
        if value is None:
            value = _search(cfg, mask, J, M)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        _CACHE[key] = value
    return value


def clear_cache() -> None:
    """Empty the result caches of :func:`min_penalty` and :func:`discard_penalties`
    (benchmarks use it to time cold calls); the per-rule tables stay."""
    _CACHE.clear()
    _DISCARD_CACHE.clear()


_DISCARD_CACHE: dict = {}


def discard_penalties(
    counts: tuple[int, ...], wild_rank: int, rules: Rules = Rules(),
    joker_penalty: int | None = None,
) -> dict[int, int]:
    """For every kind ``k`` in the hand: :func:`min_penalty` of the hand minus one ``k``.

    Used after a draw: the kinds that map to 0 are the discards that let the player go out.
    A card that is deadwood in an optimal arrangement of the whole hand needs no search:
    dropping it saves exactly its penalty (no arrangement without it can do better, since
    adding it back as deadwood costs only that). Results are cached like min_penalty's.
    """
    cfg = _config(rules, wild_rank, joker_penalty)
    counts = _check_counts(counts)
    key = (counts, cfg)
    found = _DISCARD_CACHE.get(key)
    if found is None:
        arrangement = _solve_counts(cfg, counts)
        value = arrangement.points
        loose = set(arrangement.deadwood)
        pen = cfg.pen
        found = {}
        less = bytearray(counts)
        if len(_CACHE) >= _CACHE_SIZE:
            _CACHE.clear()
        for k in range(NUM_KINDS):
            if counts[k]:
                less[k] -= 1
                if k in loose:
                    found[k] = _CACHE[(bytes(less), cfg)] = value - pen[k]
                else:
                    found[k] = _cached_min(bytes(less), cfg)
                less[k] += 1
        if len(_DISCARD_CACHE) >= _CACHE_SIZE // 8:
            _DISCARD_CACHE.clear()
        _DISCARD_CACHE[key] = found
    return dict(found)


def solve(
    cards, wild_rank: int, rules: Rules = Rules(), *, joker_penalty: int | None = None
) -> Arrangement:
    """The arrangement of ``cards`` into melds and deadwood with the fewest penalty points.

    ``cards``: an iterable of :class:`~tt_env.cards.Card` / kinds, or a string for
    :func:`~tt_env.cards.parse_cards`. Runs are listed in position order.
    """
    return _solve_counts(_config(rules, wild_rank, joker_penalty), _counts_of(cards))


def _solve_counts(cfg: _Config, counts: tuple[int, ...]) -> Arrangement:
    mask, J, M = _hand(counts, cfg)
    found = _fast(cfg, mask, J, M, plan=True)
    if found is None:
        return _assemble(cfg, counts, *_search_plan(cfg, mask, J, M))
    if cfg.w_natural:
        return _assemble(cfg, counts, *_capped_plan(cfg, J, M, found))
    return _free_arrangement(cfg, counts, mask, J, M, found)


# A plan is (points, set groups, run groups, leftover mask, leaf): set groups are
# (natural cards, lo, hi, rank), run groups (natural places, lo, hi, suit); the leftover mask
# holds the natural cards in no meld (wild-rank ones among them join the pool); the leaf is
# (jokers, pooled wild-rank cards, wilds needed, wilds taken at most) for Config.leaf_plan.


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


def _set_group(delta: int, lo: int, hi: int) -> tuple:
    cards = _cards_in(delta)
    return (cards, lo, hi, cards[0] % NUM_RANKS + 1)


def _free_alloc(ents: tuple, b: int) -> list[int]:
    """Wilds per suit reaching :func:`_free_best` of these suit entries with ``b`` wilds."""
    alloc = [0, 0, 0, 0]
    if not b:
        return alloc
    gains = [e[4] for e in ents]
    if b <= 2:
        ones = [g[1] for g in gains]
        s1 = max(range(NUM_SUITS), key=ones.__getitem__)
        if b == 1:
            alloc[s1] = 1
            return alloc
        s2 = max(range(NUM_SUITS), key=lambda s: gains[s][2])
        t = max((s for s in range(NUM_SUITS) if s != s1), key=ones.__getitem__)
        if gains[s2][2] >= ones[s1] + ones[t]:
            alloc[s2] = 2
        else:
            alloc[s1] = alloc[t] = 1
        return alloc
    flexible = [s for s in range(NUM_SUITS) if gains[s][b]]
    if len(flexible) == 1:
        alloc[flexible[0]] = b
    elif flexible:
        best: list = [(0, ())] + [None] * b  # by wilds used: (gain, wilds per flexible suit)
        for s in flexible:
            g = gains[s]
            new: list = [None] * (b + 1)
            for used, x in enumerate(best):
                if x is not None:
                    for d in range(b - used + 1):
                        y = new[used + d]
                        if y is None or x[0] + g[d] > y[0]:
                            new[used + d] = (x[0] + g[d], x[1] + (d,))
            best = new
        top = max((x for x in best if x is not None), key=lambda x: x[0])[1]
        for s, d in zip(flexible, top):
            alloc[s] = d
    return alloc


def _free_arrangement(cfg: _Config, counts, mask: int, J: int, M: int, found) -> Arrangement:
    """The arrangement the fast path found with no cap. When it has a meld, every wild goes
    into the melds: the first set takes the spare ones (a set takes any number), or else the
    runs do, up to their length limit (which _fast checked is enough)."""
    value, has_meld, (sets, D, ents) = found
    if not has_meld:
        return _assemble(cfg, counts, value, [], [], mask, (J, M, 0, 0))
    W = J + M
    wilds = [ALL_CARDS[JOKER]] * J
    if M:
        for k in cfg.wild_kinds:
            if counts[k]:
                wilds += [ALL_CARDS[k]] * counts[k]
    melds, shapes = [], []
    for opt in sets:
        mask -= opt[0]
        melds.append(list(opt[6]))
    alloc = _free_alloc(ents, W - D)
    runs = []
    for s in range(NUM_SUITS):
        choices = ents[s][1]
        chosen = choices[alloc[s] if alloc[s] < len(choices) else -1]
        if chosen:
            shift = _SUIT_SHIFT[s]
            for cand in chosen:
                runs.append((cand, s))
                mask -= cand[0] << shift
                D += cand[1]
    spare = W - D
    used = 0
    for cards in melds:
        k = max(0, 3 - len(cards)) + spare
        spare = 0
        cards += wilds[used:used + k]
        used += k
        shapes.append(_shape("set", cards[0] % NUM_RANKS + 1, -1, 0, 0, k, len(cards)))
    for cand, s in runs:
        lo = cand[1]
        more = min(spare, cand[2] - lo)
        spare -= more
        meld, shape = _lay_run(cand[4], s, wilds[used:used + lo + more], cfg)
        used += lo + more
        melds.append(meld)
        shapes.append(shape)
    assert not spare and used == W
    deadwood = _cards_in(mask)
    pen = cfg.pen
    points = 0
    for c in deadwood:
        points += pen[c]
    assert points == value, (points, value)
    return Arrangement(melds, shapes, deadwood, points)


def _capped_plan(cfg: _Config, J: int, M: int, found) -> tuple:
    value, (sets, mask, D, H, lists, picks) = found
    W = J + M
    set_groups, run_groups = [], []
    for opt in sets:
        for block in opt[5]:
            set_groups.append(_set_group(block, max(0, 3 - len(_cards_in(block))), cfg.capn))
    n = 0
    for s, (ent, pick) in enumerate(zip(lists, picks)):
        e = next(e for e in ent if e[:4] == pick)
        D += e[1]
        n += e[2]
        H += e[3]
        for cand in e[4]:
            run_groups.append((cand[4], cand[1], cand[2], s))
            mask -= cand[0] << _SUIT_SHIFT[s]
    return value, set_groups, run_groups, mask, (J, M - n, D, min(H, W))


def _search_plan(cfg: _Config, mask: int, J: int, M: int) -> tuple:
    value, path = _search(cfg, mask, J, M, trace=True)
    set_groups, run_groups = [], []
    left = 0
    for step in path:
        tag = step[0]
        if tag in ("dead", "pool"):
            left += _UNIT[step[1]]
        elif tag == "set":
            set_groups.append(_set_group(step[1], step[2], step[3]))
        elif tag == "run":
            cand, s = step[1], step[2]
            run_groups.append((cand[4], cand[1], cand[2], s))
        else:
            leaf = step[1:]
    return value, set_groups, run_groups, left, leaf


def _assemble(cfg: _Config, counts, value: int, set_groups: list, run_groups: list,
              left: int, leaf: tuple) -> Arrangement:
    """Spell out a plan as cards: the natural melds get their wilds, the pool forms its own
    melds, and the rest is deadwood."""
    wild_rank = cfg.wild_rank
    deadwood: list[Card] = []
    pool_w: list[Card] = []  # wild-rank cards that are not natural in a run
    if cfg.w_natural:
        for c in _cards_in(left):
            (pool_w if c % NUM_RANKS == cfg.wpos else deadwood).append(c)
    else:
        deadwood = _cards_in(left)
        for k in cfg.wild_kinds:
            if counts[k]:
                pool_w += [ALL_CARDS[k]] * counts[k]
    J, m, D, H = leaf
    a, b, extras = cfg.leaf_plan(J, m, D, H)
    jokers = [ALL_CARDS[JOKER]] * J
    wild_cards = jokers[:a] + pool_w[:b]
    jokers, pool_w = jokers[a:], pool_w[b:]
    # Each natural meld gets the wilds it needs, then the spare ones while it takes more.
    spare = a + b - D
    melds, shapes = [], []
    for cards, lo, hi, rank in set_groups:
        k = lo + min(spare, hi - lo)
        spare -= k - lo
        cards = cards + wild_cards[:k]
        del wild_cards[:k]
        melds.append(cards)
        shapes.append(_shape("set", rank, -1, 0, 0, k, len(cards)))
    for places, lo, hi, suit in run_groups:
        k = lo + min(spare, hi - lo)
        spare -= k - lo
        meld, shape = _lay_run(places, suit, wild_cards[:k], cfg)
        del wild_cards[:k]
        melds.append(meld)
        shapes.append(shape)
    assert spare == 0 and not wild_cards
    for x, y in extras:
        cards = pool_w[:x] + jokers[:y]
        del pool_w[:x], jokers[:y]
        if x:
            shapes.append(_shape("set", wild_rank, -1, 0, 0, y, x + y))
        else:
            shapes.append(_shape("wild", 0, -1, 0, 0, y, y))
        melds.append(cards)
    deadwood += pool_w + jokers
    pen = cfg.pen
    points = 0
    for c in deadwood:
        points += pen[c]
    assert points == value, (points, value)
    return Arrangement(melds, shapes, deadwood, points)


def _lay_run(places: tuple[int, ...], suit: int, wilds: list[Card], cfg: _Config):
    """A run of ``suit`` with naturals at ``places`` and ``wilds`` filling the gaps, then
    extending it upwards and then downwards; its cards in position order and its shape."""
    base = suit * NUM_RANKS
    if not wilds:
        cards = [ALL_CARDS[base + (0 if pos == 14 else pos - 1)] for pos in places]
        return cards, _shape("run", 0, suit, places[0], places[-1], 0, len(cards))
    n = len(places)
    length = n + len(wilds)
    high = places[-1]
    if high - places[0] + 1 < length:
        high = min(cfg.top, places[0] + length - 1)
    low = high - length + 1
    cards = []
    i = j = 0
    for pos in range(low, high + 1):
        if i < n and places[i] == pos:
            cards.append(ALL_CARDS[base + (0 if pos == 14 else pos - 1)])
            i += 1
        else:
            cards.append(wilds[j])
            j += 1
    used = len(wilds)
    for w in wilds:
        if w != JOKER and w // NUM_RANKS == suit:  # a wild-rank card that may be in its place
            used = sum(1 for pos, c in zip(range(low, high + 1), cards)
                       if not _natural_in_run(c, suit, pos))
            break
    return cards, _shape("run", 0, suit, low, high, used, length)


def _natural_in_run(card: int, suit: int, pos: int) -> bool:
    if card == JOKER or card // NUM_RANKS != suit:
        return False
    rank = card % NUM_RANKS + 1
    return rank == pos or (rank == 1 and pos == 14)


# ---------------------------------------------------------------------------- one meld
def is_meld(cards, wild_rank: int, rules: Rules = Rules()) -> MeldShape | None:
    """The shape of ``cards`` read as one meld, or None if they are no meld.

    Of the valid readings (a set of some rank, a run of some suit and places, wild cards only)
    the one using the fewest wilds is returned; a set wins a tie with a run, a run a tie with
    wild cards only.
    """
    cfg = _config(rules, wild_rank, None)
    cards = [ALL_CARDS[c] for c in _cards_list(cards)]
    n = len(cards)
    if n < 3:
        return None
    cap, wpos = cfg.capn, cfg.wpos
    jokers = sum(1 for c in cards if c == JOKER)
    wild_cards = [c for c in cards if c != JOKER and c % NUM_RANKS == wpos]
    others = [c for c in cards if c != JOKER and c % NUM_RANKS != wpos]
    best = None
    # Sets: the other cards fix the rank (wild-rank cards are wilds there); with none, a set of
    # the wild rank, its cards natural.
    if others:
        if len({c % NUM_RANKS for c in others}) == 1 and n - len(others) <= cap:
            best = _shape("set", others[0] % NUM_RANKS + 1, -1, 0, 0, n - len(others), n)
    elif wild_cards:
        if jokers <= cap:
            best = _shape("set", wild_rank, -1, 0, 0, jokers, n)
    # Runs: every card of the suit but wild-rank ones must stand in its own place.
    suits = {c // NUM_RANKS for c in others}
    for suit in (suits if others else range(NUM_SUITS)):
        if len(suits) > 1:
            break
        for low in range(1, cfg.top - n + 2):
            naturals = _run_naturals(others, wild_cards, suit, low, low + n - 1, cfg)
            if naturals is None or (naturals == 0 and not others):
                continue
            wilds = n - naturals
            if wilds <= cap and (best is None or wilds < best.wilds):
                best = _shape("run", 0, suit, low, low + n - 1, wilds, n)
    if best is None and not others and not wild_cards and cfg.all_wild and n <= cap:
        best = _shape("wild", 0, -1, 0, 0, n, n)
    return best


def _run_naturals(others, wild_cards, suit, low, high, cfg) -> int | None:
    """Most natural cards when ``others`` (no wild-rank card among them; all must be natural)
    and ``wild_cards`` stand in the run of ``suit`` over ``low .. high``; None if they cannot."""
    taken = set()
    aces = 0
    for c in others:
        pos = c % NUM_RANKS + 1
        if pos == 1 and cfg.aces_high:
            aces += 1
            continue
        if not low <= pos <= high or pos in taken:
            return None
        taken.add(pos)
    if aces:
        free = [p for p in (1, 14) if low <= p <= high and p not in taken]
        if aces > len(free):
            return None
        taken.update(free[:aces])
    # Wild-rank cards of the suit stand in their own place when it is free.
    places = (1, 14) if cfg.wpos == 0 and cfg.aces_high else (cfg.wpos + 1,)
    room = [p for p in places if low <= p <= high and p not in taken]
    mine = sum(1 for c in wild_cards if c // NUM_RANKS == suit)
    return len(taken) + min(mine, len(room))


def _cards_list(cards) -> list[int]:
    """Card kinds from a string or an iterable of cards / kinds / names."""
    if isinstance(cards, str):
        return [int(c) for c in parse_cards(cards)]
    out = []
    for c in cards:
        if c.__class__ is not Card and not (c.__class__ is int and 0 <= c < NUM_KINDS):
            c = parse_card(c)
        out.append(int(c))
    return out


# ---------------------------------------------------------------------------- lay-offs
def lay_off(
    cards, table: Sequence[MeldShape], wild_rank: int, rules: Rules = Rules(),
    joker_penalty: int | None = None,
) -> LayOff:
    """Redemption: lay down own melds and lay off cards onto the melds on the table, leaving the
    fewest penalty points (exact).

    A table set takes cards of its rank and wilds; a table run grows at either end (chains
    allowed, gaps filled by wilds) up to its length limit, the new cards natural in their
    places or wilds; a table meld of wild cards only is read afresh with the cards added
    (it may become a set or a run). ``max_wilds_per_meld`` applies to each grown table meld.
    """
    cfg = _config(rules, wild_rank, joker_penalty)
    counts = _counts_of(cards)
    table = list(table)
    for shape in table:
        if not isinstance(shape, MeldShape) or shape.kind not in ("set", "run", "wild"):
            raise ValueError(f"table melds must be MeldShape instances, got {shape!r}")
    return _LayOffSearch(cfg, counts, table).run()


class _LayOffSearch:
    """The search of :func:`_search` with the table melds as extra resources.

    Every wild-rank card is searched (natural in a run or a run extension, or pooled). A table
    set of rank r takes the natural rank-r cards at no cost; a table run of the current suit
    may be extended below or above by the lowest uncovered card (with more cards of the suit
    and wilds for the gaps); a table meld of wild cards only may absorb one own meld (its
    jokers then stand for wilds that meld needs). What the table melds can still take in
    wilds adds to the capacity the pool sees, and a set of the wild rank on the table (or a
    wild-only meld) takes any wild-rank card as a natural card, so those cost nothing left.
    """

    def __init__(self, cfg: _Config, counts: tuple[int, ...], table: list[MeldShape]) -> None:
        self.cfg = cfg
        self.counts = counts
        self.table = table
        wpos = cfg.wpos
        self.tabs = _TABLES.get((cfg.top, cfg.aces_high, cfg.capn, wpos)) or _TABLES.setdefault(
            (cfg.top, cfg.aces_high, cfg.capn, wpos),
            _Tables(cfg.top, cfg.aces_high, cfg.capn, wpos))
        self.J = counts[JOKER]
        self.M = sum(counts[k] for k in cfg.wild_kinds)
        self.W = self.J + self.M
        self.mask = int.from_bytes(bytes(counts[:_NATURAL_KINDS]), "little")
        cap = cfg.capn
        self.set_of_rank: dict[int, int] = {}  # rank -> index of a table set of that rank
        self.set_room = 0  # wilds the table sets can still take
        self.w_sink = False  # a table set of the wild rank takes wild-rank cards as naturals
        self.runs = []  # (index, suit) of table runs
        run_state = []
        self.wild_melds = []  # (index, jokers) of wild-only table melds
        for i, shape in enumerate(table):
            room = max(0, cap - shape.wilds)
            if shape.kind == "set":
                self.set_of_rank.setdefault(shape.rank, i)
                self.set_room += room
                if shape.rank == cfg.wild_rank:
                    self.w_sink = True
            elif shape.kind == "run":
                self.runs.append((i, shape.suit))
                run_state.append((shape.low, shape.high, shape.wilds))
            else:
                self.wild_melds.append((i, shape.size))
        self.run_state0 = tuple(run_state)
        # The pool with wild-rank cards free to leave (laid off as naturals) when a sink exists.
        self.sink_cfg = _Config(cfg.rules, cfg.wild_rank, cfg.jp)
        self.sink_cfg.wpen = 0
        self.memo: dict = {}

    # ------------------------------------------------------------ value of a leaf
    def leaf(self, mnat: int, D: int, H: int, runs: tuple, used: int) -> int:
        cfg = self.cfg
        cap = cfg.capn
        room = H + self.set_room
        for low, high, wilds in runs:
            room += max(0, min(cap - wilds, cfg.top - (high - low + 1)))
        sink = self.w_sink
        for j, (_, z) in enumerate(self.wild_melds):
            if not used >> j & 1:
                sink = True
                if cfg.all_wild:
                    room += max(0, cap - z)
        pool = self.sink_cfg if sink else cfg
        return pool.leaf(self.J, self.M - mnat, D, min(room, self.W))

    # ------------------------------------------------------------ options
    def options(self, mask: int, mnat: int, D: int, H: int, runs: tuple, used: int):
        """(points now, next state, step) for every choice about the lowest uncovered card."""
        cfg, tabs, W = self.cfg, self.tabs, self.W
        k = ((mask & -mask).bit_length() - 1) >> 3
        s, p = divmod(k, NUM_RANKS)
        rest = mask - _UNIT[k]
        room = W - mnat - D
        if p == cfg.wpos:
            yield 0, (rest, mnat, D, H, runs, used), ("pool", k)
        elif p + 1 in self.set_of_rank:
            yield 0, (rest, mnat, D, H, runs, used), ("table", self.set_of_rank[p + 1], k)
        else:
            yield cfg.pen[k], (rest, mnat, D, H, runs, used), ("dead", k)
        own = []
        if p != cfg.wpos:
            x = mask & _RANK_SLICE << _RANK_SHIFT[p]
            for delta, lo, hi in tabs.sets[p].get(x) or tabs.build_sets(p, x):
                own.append((mask - delta, 0, lo, hi, ("set", delta, lo, hi, p)))
        shift = _SUIT_SHIFT[s]
        y = (mask >> shift) & _SUIT_SLICE
        for cand in tabs.runs.get(y) or tabs.build_runs(y):
            own.append((mask - (cand[0] << shift), cand[3], cand[1], cand[2], ("run", cand, s)))
        for nxt, nat, lo, hi, step in own:
            if lo + nat <= room:
                yield 0, (nxt, mnat + nat, D + lo, min(H + hi, W), runs, used), step
            for j, (_, z) in enumerate(self.wild_melds):
                if not used >> j & 1 and z <= hi:  # the wild-only table meld j absorbs it
                    lo2 = max(0, lo - z)
                    if lo2 + nat <= room:
                        yield 0, (nxt, mnat + nat, D + lo2, min(H + hi - z, W), runs,
                                  used | 1 << j), ("merge", j, step)
        for r, (ti, suit) in enumerate(self.runs):
            if suit == s:
                yield from self.extensions(mask, mnat, D, H, runs, used, r, y, p)

    def extensions(self, mask, mnat, D, H, runs, used, r, y, p):
        """Table run r of the lowest card's suit grown below or above by that card."""
        cfg, W = self.cfg, self.W
        low, high, wilds = runs[r]
        cap_left = cfg.capn - wilds
        len_left = cfg.top - (high - low + 1)
        shift = _SUIT_SHIFT[self.runs[r][1]]
        cnt = _fields(y)
        present = [i + 1 for i in range(NUM_RANKS) if cnt[i]]
        heads = []
        if p + 1 < low:
            heads.append(("below", p + 1, [q for q in present if p + 1 < q < low]))
        if p + 1 > high:
            heads.append(("above", p + 1, [q for q in present if q > p + 1]))
        if p == 0 and cfg.aces_high and high < 14:
            heads.append(("above", 14, [q for q in present if high < q <= 13]))
        for side, head, more in heads:
            for n_more in range(len(more) + 1):
                for combo in combinations(more, n_more):
                    places = (head,) + combo
                    if side == "below":
                        new_low, new_high = head, high
                        grow = low - head
                    else:
                        new_low, new_high = low, max(places)
                        grow = new_high - high
                    gaps = grow - len(places)
                    if grow > len_left or gaps > cap_left:
                        continue
                    nat = sum(1 for q in places if (0 if q == 14 else q - 1) == cfg.wpos)
                    if gaps + nat > W - mnat - D:
                        continue
                    delta = sum(_UNIT[0 if q == 14 else q - 1] for q in places) << shift
                    new_runs = runs[:r] + ((new_low, new_high, wilds + gaps),) + runs[r + 1:]
                    yield 0, (mask - delta, mnat + nat, D + gaps, min(H + gaps, W), new_runs,
                              used), (
                        "extend", r, places, gaps)

    # ------------------------------------------------------------ search
    def value(self, mask: int, mnat: int, D: int, H: int, runs: tuple, used: int) -> int:
        if not mask:
            return self.leaf(mnat, D, H, runs, used)
        key = (mask, mnat, D, H, runs, used)
        v = self.memo.get(key)
        if v is None:
            v = _INF
            for now, nxt, _ in self.options(mask, mnat, D, H, runs, used):
                if now < v:
                    v = min(v, now + self.value(*nxt))
                    if not v:
                        break
            self.memo[key] = v
        return v

    def run(self) -> LayOff:
        state = (self.mask, 0, 0, 0, self.run_state0, 0)
        target = self.value(*state)
        steps = []
        while state[0]:
            goal = self.value(*state)
            for now, nxt, step in self.options(*state):
                if now + self.value(*nxt) == goal:
                    steps.append(step)
                    state = nxt
                    break
            else:
                raise AssertionError("lay-off memo inconsistent")
        return self.build(target, steps, state)

    # ------------------------------------------------------------ the result
    def build(self, target: int, steps: list, state: tuple) -> LayOff:
        cfg, table = self.cfg, self.table
        _, mnat, D, H, runs, used = state
        added: dict[int, list[Card]] = {i: [] for i in range(len(table))}
        added_wilds = [0] * len(table)
        deadwood: list[Card] = []
        pool_w: list[Card] = []
        own = []  # [kind, naturals or places, lo, hi, rank or suit, table index or None]
        for step in steps:
            tag = step[0]
            if tag == "dead":
                deadwood.append(ALL_CARDS[step[1]])
            elif tag == "pool":
                pool_w.append(ALL_CARDS[step[1]])
            elif tag == "table":
                added[step[1]].append(ALL_CARDS[step[2]])
            elif tag == "extend":
                _, r, places, gaps = step
                i, suit = self.runs[r]
                added[i] += [ALL_CARDS[suit * NUM_RANKS + (0 if q == 14 else q - 1)]
                             for q in places]
                added_wilds[i] += gaps
            else:
                into = None
                if tag == "merge":
                    into = self.wild_melds[step[1]]
                    step = step[2]
                if step[0] == "set":
                    _, delta, lo, hi, p = step
                    own.append(["set", _cards_in(delta), lo, hi, p + 1, into])
                else:
                    _, cand, s = step
                    own.append(["run", cand[4], cand[1], cand[2], s, into])
        # The pool: a jokers and b wild-rank cards to the melds' needs and the table's room.
        sink = self.w_sink or any(not used >> j & 1 for j in range(len(self.wild_melds)))
        pool_cfg = self.sink_cfg if sink else cfg
        cap = cfg.capn
        room_of = {}  # table index -> wilds it can still take
        for i, shape in enumerate(table):
            if shape.kind == "set":
                room_of[i] = max(0, cap - shape.wilds)
        for r, (i, _) in enumerate(self.runs):
            low, high, wilds = runs[r]
            room_of[i] = max(0, min(cap - wilds, cfg.top - (high - low + 1)))
        for j, (i, z) in enumerate(self.wild_melds):
            if not used >> j & 1:
                room_of[i] = max(0, cap - z) if cfg.all_wild else 0
        own_room = 0
        for meld in own:
            z = meld[5][1] if meld[5] else 0
            own_room += meld[3] - z
        H_total = min(own_room + sum(added_wilds) + sum(room_of.values()), self.W)
        m = self.M - mnat
        a, b, extras = pool_cfg.leaf_plan(self.J, m, D, H_total)
        jokers = [ALL_CARDS[JOKER]] * self.J
        wild_cards = jokers[:a] + pool_w[:b]
        jokers, pool_w = jokers[a:], pool_w[b:]
        # Needs first: own melds (less the jokers of a wild table meld) and run gaps.
        for i, n in enumerate(added_wilds):
            added[i] += wild_cards[:n]
            del wild_cards[:n]
        own_wilds = []
        for meld in own:
            z = meld[5][1] if meld[5] else 0
            need = max(0, meld[2] - z)
            own_wilds.append(wild_cards[:need])
            del wild_cards[:need]
        # Then the spare wilds wherever there is room.
        for t, meld in enumerate(own):
            z = meld[5][1] if meld[5] else 0
            more = max(0, meld[3] - z - len(own_wilds[t]))
            own_wilds[t] += wild_cards[:more]
            del wild_cards[:more]
        for i, more in room_of.items():
            added[i] += wild_cards[:more]
            added_wilds[i] += len(wild_cards[:more])
            del wild_cards[:more]
        assert not wild_cards
        melds, shapes = [], []
        for meld, wilds in zip(own, own_wilds):
            kind, nat, lo, hi, which, into = meld
            if kind == "set":
                cards = list(nat) + wilds
            else:
                cards = [ALL_CARDS[which * NUM_RANKS + (0 if q == 14 else q - 1)] for q in nat]
                cards += wilds
            if into is not None:
                added[into[0]] += cards
                continue
            if kind == "set":
                melds.append(cards)
                shapes.append(_shape("set", which, -1, 0, 0, len(wilds), len(cards)))
            else:
                run, shape = _lay_run(nat, which, wilds, cfg)
                melds.append(run)
                shapes.append(shape)
        # The pool's own melds; the rest of the wild-rank cards go onto a sink when there is one.
        for x, y in extras:
            cards = pool_w[:x] + jokers[:y]
            del pool_w[:x], jokers[:y]
            if x:
                shapes.append(_shape("set", cfg.wild_rank, -1, 0, 0, y, x + y))
            else:
                shapes.append(_shape("wild", 0, -1, 0, 0, y, y))
            melds.append(cards)
        if sink and pool_w:
            i = next((i for i, s in enumerate(table)
                      if s.kind == "set" and s.rank == cfg.wild_rank), None)
            if i is None:
                i = next(i for j, (i, _) in enumerate(self.wild_melds) if not used >> j & 1)
            added[i] += pool_w
            pool_w = []
        deadwood += pool_w + jokers
        points = sum(cfg.pen[c] for c in deadwood)
        assert points == target, (points, target)
        new_table = []
        for i, shape in enumerate(table):
            new_table.append(self.grown_shape(shape, added[i], added_wilds[i], runs, i))
        layoffs = [(i, cards) for i, cards in added.items() if cards]
        return LayOff(Arrangement(melds, shapes, deadwood, points), layoffs, new_table)

    def grown_shape(self, shape: MeldShape, cards: list[Card], wilds: int, runs: tuple,
                    i: int) -> MeldShape:
        cfg = self.cfg
        if not cards:
            return shape
        if shape.kind == "set":
            w = sum(1 for c in cards if c == JOKER or c % NUM_RANKS + 1 != shape.rank)
            return _shape("set", shape.rank, -1, 0, 0, shape.wilds + w, shape.size + len(cards))
        if shape.kind == "run":
            r = next(r for r, (j, _) in enumerate(self.runs) if j == i)
            low, high, _ = runs[r]
            size = shape.size + len(cards)
            extra = size - (high - low + 1)  # spare wilds: above first, then below
            high2 = min(cfg.top, high + extra)
            low2 = low - (extra - (high2 - high))
            return _shape("run", 0, shape.suit, low2, high2, shape.wilds + wilds, size)
        grown = is_meld([JOKER] * shape.size + list(cards), cfg.wild_rank, cfg.rules)
        assert grown is not None, "a wild-only table meld grew into no meld"
        return grown
