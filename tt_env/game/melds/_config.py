"""The solver's configuration for one (rules, wild rank, joker penalty): penalties, the pool of
wild cards and its memos, and the tables the fast paths read."""

from __future__ import annotations

from tt_env.game.cards import JOKER, NUM_RANKS, NUM_SUITS
from tt_env.game.melds._cache import BoundedCache, tick
from tt_env.game.melds._masks import _BIG, _FB, _INF, _NATURAL_KINDS, _RANK_SHIFT, _RANK_SLICE
from tt_env.game.melds._tables import _suit_values_for, _tables_for
from tt_env.game.rules import JOKER_PENALTY, Rules


class _Config:
    """Everything the search needs from (rules, wild rank, joker penalty), computed once."""

    __slots__ = (
        "rules",
        "wild_rank",
        "max_wilds",
        "wild_limit",
        "all_wild_melds",
        "aces_high",
        "top_position",
        "penalties",
        "joker_penalty",
        "wild_penalty",
        "wild_position",
        "wild_rank_natural",
        "wild_kinds",
        "feasible_memo",
        "rest_memo",
        "leaf_memo",
        "plan_memo",
        "keep_mask",
        "set_positions",
        "set_fields",
        "priced",
        "rank_masks",
        "tables",
        "values",
        "kernel",
    )

    def __init__(self, rules: Rules, wild_rank: int, joker_penalty: int | None) -> None:
        self.rules = rules
        self.wild_rank = wild_rank
        self.max_wilds = rules.max_wilds_per_meld
        # max_wilds as a number to compare with: _BIG when a meld may take any number
        self.wild_limit = _BIG if self.max_wilds is None else self.max_wilds
        self.all_wild_melds = rules.all_wild_melds
        self.aces_high = rules.aces_high
        self.top_position = 14 if rules.aces_high else 13  # highest position, and longest run
        pen = list(rules.penalty_table(wild_rank))
        self.joker_penalty = JOKER_PENALTY if joker_penalty is None else joker_penalty
        pen[JOKER] = self.joker_penalty
        self.penalties = pen
        self.wild_position = wild_rank - 1  # the wild rank's position index (0 = ace)
        self.wild_penalty = pen[self.wild_position]
        # With no cap a wild-rank card in its natural place is as good as a wild there: wild-rank
        # cards are searched as naturals only with a cap.
        self.wild_rank_natural = self.max_wilds is not None
        self.wild_kinds = tuple(s * NUM_RANKS + self.wild_position for s in range(NUM_SUITS))
        self.feasible_memo: BoundedCache = BoundedCache(1 << 12, 140, "pool feasibility")
        self.rest_memo: BoundedCache = BoundedCache(1 << 12, 140, "pool rest")
        self.leaf_memo: BoundedCache = BoundedCache(1 << 14, 120, "search leaves")
        self.plan_memo: BoundedCache = BoundedCache(1 << 12, 250, "pool plans")
        self.keep_mask = (1 << (_FB * _NATURAL_KINDS)) - 1  # not the joker's field
        if not self.wild_rank_natural:
            for k in self.wild_kinds:
                self.keep_mask -= 0xFF << (_FB * k)
        self.set_positions = tuple(p for p in range(NUM_RANKS) if p != self.wild_position)
        self.set_fields = sum(1 << (_FB * p) for p in self.set_positions)
        self.rank_masks = tuple(_RANK_SLICE << _RANK_SHIFT[p] for p in range(NUM_RANKS))
        self.kernel = False  # the compiled kernel serving this configuration: built on first use
        self.tables = _tables_for(self)
        self.values = _suit_values_for(self, self.tables)
        self.priced = [BoundedCache(1 << 10, 340, "priced set options") for _ in range(NUM_RANKS)]

    def price_options(self, p: int, x: int) -> tuple:
        """The fast path's set options of rank ``p + 1`` for the cards ``x`` of that rank, as
        ``(delta, lo, suits, points of its cards, option)`` (see _Tables.build_rank_options)."""
        opts = self.tables.rank_options[p].get(x)
        if opts is None:
            opts = self.tables.build_rank_options(p, x)
        priced = tuple((o[0], o[1], o[3], self.penalties[p] * o[4], o) for o in opts)
        self.priced[p][x] = priced
        return priced

    # ------------------------------------------------------------ the pool of wilds
    def feasible(self, pj: int, pm: int) -> bool:
        """Can exactly ``pj`` jokers and ``pm`` wild-rank cards form melds of their own?

        Those melds are sets of the wild rank (>= 1 wild-rank card, natural there, and at most
        ``max_wilds`` jokers) and, with ``all_wild_melds``, melds of 3..max_wilds jokers.
        """
        key = (pj, pm)
        memo = self.feasible_memo
        if key in memo:
            return memo[key]
        ok = pj == 0 and pm == 0
        if not ok and pm > 0:
            for x in range(1, pm + 1):
                for y in range(0, min(pj, self.wild_limit) + 1):
                    if x + y >= 3 and self.feasible(pj - y, pm - x):
                        ok = True
                        break
                if ok:
                    break
        if not ok and self.all_wild_melds and pj >= 3:
            for y in range(3, min(pj, self.wild_limit) + 1):
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
                cost = (j - pj) * self.joker_penalty + (m - pm) * self.wild_penalty
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
                        cost = (j2 - pj) * self.joker_penalty + (m2 - pm) * self.wild_penalty
                        if cost == target and self.feasible(pj, pm):
                            return a, b, self._partition(pj, pm)
        raise AssertionError("no plan for the pool")  # unreachable: leaf() found one

    def _partition(self, pj: int, pm: int) -> list[tuple[int, int]]:
        groups = []
        while pj or pm:
            found = None
            if pm > 0:
                for x in range(1, pm + 1):
                    for y in range(0, min(pj, self.wild_limit) + 1):
                        if x + y >= 3 and self.feasible(pj - y, pm - x):
                            found = (x, y)
                            break
                    if found:
                        break
            if found is None:
                for y in range(3, min(pj, self.wild_limit) + 1):
                    if self.feasible(pj - y, pm):
                        found = (0, y)
                        break
            assert found is not None
            groups.append(found)
            pm -= found[0]
            pj -= found[1]
        return groups


_CONFIG_BY_ID: BoundedCache = BoundedCache(256, 170_000, "configurations by id")


def _as_int(value, name: str) -> int:
    """``value`` as an int when it is a (numpy) integer, not a bool; else ValueError."""
    import numbers

    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return int(value)


_CONFIG_BY_VALUE: BoundedCache = BoundedCache(256, 100, "configurations")


def _config(rules: Rules, wild_rank: int, joker_penalty: int | None) -> _Config:
    # Checked before any cache is read: 3.0 == 3 and hashes alike, so a float would find an
    # int's entry. numpy integers are taken as ints.
    if wild_rank.__class__ is not int:
        wild_rank = _as_int(wild_rank, "wild_rank")
    if not 1 <= wild_rank <= NUM_RANKS:
        raise ValueError(f"wild_rank must be an integer 1..13, got {wild_rank!r}")
    if joker_penalty is not None:
        if joker_penalty.__class__ is not int:
            joker_penalty = _as_int(joker_penalty, "joker_penalty")
        if joker_penalty < 0:
            raise ValueError(
                f"joker_penalty must be None or an integer >= 0, got {joker_penalty!r}"
            )
    tick()  # where every solver call starts: the caches' budget is checked here
    # Keyed by id() first: hashing a Rules dataclass costs more than a whole small solve.
    # The entry keeps the Rules object alive, so its id cannot be reused while cached.
    entry = _CONFIG_BY_ID.get((id(rules), wild_rank, joker_penalty))
    if entry is not None and entry[0] is rules:
        return entry[1]
    if not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules instance, got {rules!r}")
    key = (rules, wild_rank, joker_penalty)
    cfg = _CONFIG_BY_VALUE.get(key)
    if cfg is None:
        cfg = _CONFIG_BY_VALUE[key] = _Config(rules, wild_rank, joker_penalty)
    _CONFIG_BY_ID[(id(rules), wild_rank, joker_penalty)] = (rules, cfg)
    return cfg
