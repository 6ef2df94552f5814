"""Redemption: laying own melds down and loose cards off onto the melds on the table."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from tt_env.game.cards import ALL_CARDS, JOKER, NUM_RANKS, Card
from tt_env.game.melds._assemble import _lay_run
from tt_env.game.melds._config import _Config, _config
from tt_env.game.melds._inputs import _counts_of
from tt_env.game.melds._kernel import kernel_for
from tt_env.game.melds._masks import (
    _INF,
    _NATURAL_KINDS,
    _RANK_SHIFT,
    _RANK_SLICE,
    _SUIT_SHIFT,
    _SUIT_SLICE,
    _UNIT,
    _cards_in,
    _fields,
)
from tt_env.game.melds._meld import is_meld
from tt_env.game.melds._tables import _TABLES, _Tables
from tt_env.game.melds._types import Arrangement, LayOff, MeldShape, _shape, shape_of, shape_tuple
from tt_env.game.rules import Rules

MAX_TABLE_MELDS = 64  # 8 players laying down every card of 16 in melds of 3: 40 at most


def lay_off(
    cards,
    table: Sequence[MeldShape],
    wild_rank: int,
    rules: Rules = Rules(),
    *,
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
    if len(table) > MAX_TABLE_MELDS:
        raise ValueError(f"lay_off takes at most {MAX_TABLE_MELDS} table melds, got {len(table)}")
    for shape in table:
        if not isinstance(shape, MeldShape) or shape.kind not in ("set", "run", "wild"):
            raise ValueError(f"table melds must be MeldShape instances, got {shape!r}")
    kernel = cfg.kernel
    if kernel is False:
        kernel = cfg.kernel = kernel_for(cfg)
    if kernel is not None:
        found = kernel.lay_off(counts, [shape_tuple(s) for s in table])
        if found is not None:
            return _compiled_lay_off(found, len(table))
    return _LayOffSearch(cfg, counts, table).run()


def _compiled_lay_off(found: tuple, ntable: int) -> LayOff:
    """The compiled kernel's lay-off (see :meth:`Kernel.lay_off`) as a :class:`LayOff`."""
    points, melds, deadwood, laid, table = found
    return LayOff(
        arrangement=Arrangement(
            melds=[[ALL_CARDS[c] for c in cards] for cards, _ in melds],
            shapes=[shape_of(shape) for _, shape in melds],
            deadwood=[ALL_CARDS[c] for c in deadwood],
            points=points,
        ),
        layoffs=[(i, [ALL_CARDS[c] for c in cards]) for i, cards in laid],
        table=[shape_of(shape) for shape in table],
    )


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
        key = (cfg.top_position, cfg.aces_high, cfg.wild_limit, cfg.wild_position)
        self.tabs = _TABLES.get(key) or _TABLES.setdefault(key, _Tables(*key))
        self.J = counts[JOKER]
        self.M = sum(counts[k] for k in cfg.wild_kinds)
        self.W = self.J + self.M
        self.mask = int.from_bytes(bytes(counts[:_NATURAL_KINDS]), "little")
        cap = cfg.wild_limit
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
        self.sink_cfg = _Config(cfg.rules, cfg.wild_rank, cfg.joker_penalty)
        self.sink_cfg.wild_penalty = 0
        self.memo: dict = {}

    # ------------------------------------------------------------ value of a leaf
    def leaf(self, mnat: int, D: int, H: int, runs: tuple, used: int) -> int:
        cfg = self.cfg
        cap = cfg.wild_limit
        room = H + self.set_room
        for low, high, wilds in runs:
            room += max(0, min(cap - wilds, cfg.top_position - (high - low + 1)))
        sink = self.w_sink
        for j, (_, z) in enumerate(self.wild_melds):
            if not used >> j & 1:
                sink = True
                if cfg.all_wild_melds:
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
        if p == cfg.wild_position:
            yield 0, (rest, mnat, D, H, runs, used), ("pool", k)
        elif p + 1 in self.set_of_rank:
            yield 0, (rest, mnat, D, H, runs, used), ("table", self.set_of_rank[p + 1], k)
        else:
            yield cfg.penalties[k], (rest, mnat, D, H, runs, used), ("dead", k)
        own = []
        if p != cfg.wild_position:
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
                        yield (
                            0,
                            (nxt, mnat + nat, D + lo2, min(H + hi - z, W), runs, used | 1 << j),
                            ("merge", j, step),
                        )
        for r, (_, suit) in enumerate(self.runs):
            if suit == s:
                yield from self.extensions(mask, mnat, D, H, runs, used, r, y, p)

    def extensions(self, mask, mnat, D, H, runs, used, r, y, p):
        """Table run r of the lowest card's suit grown below or above by that card."""
        cfg, W = self.cfg, self.W
        low, high, wilds = runs[r]
        cap_left = cfg.wild_limit - wilds
        len_left = cfg.top_position - (high - low + 1)
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
                    nat = sum(1 for q in places if (0 if q == 14 else q - 1) == cfg.wild_position)
                    if gaps + nat > W - mnat - D:
                        continue
                    delta = sum(_UNIT[0 if q == 14 else q - 1] for q in places) << shift
                    new_runs = runs[:r] + ((new_low, new_high, wilds + gaps),) + runs[r + 1 :]
                    yield (
                        0,
                        (mask - delta, mnat + nat, D + gaps, min(H + gaps, W), new_runs, used),
                        ("extend", r, places, gaps),
                    )

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
                added[i] += [
                    ALL_CARDS[suit * NUM_RANKS + (0 if q == 14 else q - 1)] for q in places
                ]
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
        cap = cfg.wild_limit
        room_of = {}  # table index -> wilds it can still take
        for i, shape in enumerate(table):
            if shape.kind == "set":
                room_of[i] = max(0, cap - shape.wilds)
        for r, (i, _) in enumerate(self.runs):
            low, high, wilds = runs[r]
            room_of[i] = max(0, min(cap - wilds, cfg.top_position - (high - low + 1)))
        for j, (i, z) in enumerate(self.wild_melds):
            if not used >> j & 1:
                room_of[i] = max(0, cap - z) if cfg.all_wild_melds else 0
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
            i = next(
                (i for i, s in enumerate(table) if s.kind == "set" and s.rank == cfg.wild_rank),
                None,
            )
            if i is None:
                i = next(i for j, (i, _) in enumerate(self.wild_melds) if not used >> j & 1)
            added[i] += pool_w
            pool_w = []
        deadwood += pool_w + jokers
        points = sum(cfg.penalties[c] for c in deadwood)
        assert points == target, (points, target)
        new_table = []
        for i, shape in enumerate(table):
            new_table.append(self.grown_shape(shape, added[i], added_wilds[i], runs, i))
        layoffs = [(i, cards) for i, cards in added.items() if cards]
        return LayOff(
            arrangement=Arrangement(melds=melds, shapes=shapes, deadwood=deadwood, points=points),
            layoffs=layoffs,
            table=new_table,
        )

    def grown_shape(
        self, shape: MeldShape, cards: list[Card], wilds: int, runs: tuple, i: int
    ) -> MeldShape:
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
            high2 = min(cfg.top_position, high + extra)
            low2 = low - (extra - (high2 - high))
            return _shape("run", 0, shape.suit, low2, high2, shape.wilds + wilds, size)
        grown = is_meld([JOKER] * shape.size + list(cards), cfg.wild_rank, cfg.rules)
        assert grown is not None, "a wild-only table meld grew into no meld"
        return grown
