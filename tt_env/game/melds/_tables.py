"""Candidate melds and the best runs of each suit pattern, per combination of the options that
shape melds (filled lazily, bounded)."""

from __future__ import annotations

from itertools import combinations, product

from tt_env.game.cards import ALL_CARDS, NUM_RANKS, NUM_SUITS
from tt_env.game.melds._cache import BoundedCache
from tt_env.game.melds._masks import (
    _BIG,
    _FAST_MAX_WILDS,
    _H_CLIP,
    _RANK_SHIFT,
    _SUIT_SHIFT,
    _UNIT,
    _fields,
)


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
        self.runs: BoundedCache = BoundedCache(1 << 15, 550, "suit runs")
        self.sets = [BoundedCache(1 << 12, 450, "rank sets") for _ in range(NUM_RANKS)]
        self.rank_options = [
            BoundedCache(1 << 12, 1_050, "rank set options") for _ in range(NUM_RANKS)
        ]

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
                cards = tuple(
                    ALL_CARDS[s * NUM_RANKS + p] for s, t in enumerate(take) for _ in range(t)
                )
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
    ranges = [
        range(1, take[s0] + 1) if s == s0 else range(t + 1) if s > s0 else range(1)
        for s, t in enumerate(take)
    ]
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
    return [
        (lo, h)
        for lo, h in pairs
        if not any(lo2 <= lo and h2 >= h and (lo2, h2) != (lo, h) for lo2, h2 in pairs)
    ]


_TABLES: BoundedCache = BoundedCache(32, 400, "meld tables")


def _tables_for(cfg) -> _Tables:
    wpos = cfg.wild_position if cfg.wild_rank_natural else -1
    key = (cfg.top_position, cfg.aces_high, cfg.wild_limit, wpos)
    tabs = _TABLES.get(key)
    if tabs is None:
        tabs = _TABLES[key] = _Tables(cfg.top_position, cfg.aces_high, cfg.wild_limit, wpos)
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
        self.free: BoundedCache = BoundedCache(1 << 15, 420, "suit values")
        self.capped: BoundedCache = BoundedCache(1 << 15, 1_100, "suit values, capped")
        self._empty()

    def _empty(self) -> None:
        """The entries of the empty suit (every build starts from them)."""
        self.free[0] = ((0,), ((),), 0, 0, (0,) * (_FAST_MAX_WILDS + 1))
        empty = (0, 0, 0, 0, ())
        self.capped[0] = ((empty,),) + _budget_tables([empty])

    def build_free(self, y: int) -> tuple:
        if not y:
            self._empty()
            return self.free[0]
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
        if not y:
            self._empty()
            return self.capped[0]
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


_SUIT_VALUES: BoundedCache = BoundedCache(32, 120, "suit value tables")


def _suit_values_for(cfg, tabs: _Tables) -> _SuitValues:
    pen13 = tuple(cfg.penalties[:NUM_RANKS])
    key = (cfg.top_position, cfg.aces_high, cfg.wild_limit, tabs.wpos, pen13)
    sv = _SUIT_VALUES.get(key)
    if sv is None:
        sv = _SUIT_VALUES[key] = _SuitValues(tabs, pen13)
    return sv
