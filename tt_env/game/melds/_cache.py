"""The one cache policy of the solver: bounded dicts under one memory budget.

Every table the solver keeps between calls (results, candidate melds, the best runs of each
suit pattern, the pool's memos, the compiled kernel's tables) is a :class:`BoundedCache`. Each
has a limit on its entries (an insertion into a full one empties it first: reads stay plain
``dict`` reads) and an estimate of the bytes one entry holds. Together they share one budget
(:func:`set_budget`, default :data:`DEFAULT_BUDGET_MB`, or the environment variable
``TT_ENV_CACHE_MB``): every :data:`CHECK_EVERY` solver calls, :func:`tick` adds up the
estimates and, when they exceed the budget, empties every cache. Entry limits alone were not
enough: the per-rule tables (one set per rule set, wild rank and joker penalty, up to 256 of
them) each stayed under its limit while all of them together grew for thousands of games. A
table that is emptied is simply filled again on demand; exactness never depends on what is
cached. :func:`clear_all` empties every one (benchmarks time cold calls with it; tests check
that nothing depends on what is cached).
"""

from __future__ import annotations

import os
import weakref

DEFAULT_BUDGET_MB = 64
CHECK_EVERY = 1024  # solver calls between two checks of the budget

_ALL: list[weakref.ref] = []  # every cache made (weak: a cache may be dropped with its owner)
_STATE = {"budget": DEFAULT_BUDGET_MB << 20, "calls": 0, "trims": 0}


class BoundedCache(dict):
    """A ``dict`` of at most ``limit`` entries (an insertion into a full one empties it first),
    each estimated at ``cost`` bytes for the shared budget; ``name`` says what it holds."""

    __slots__ = ("limit", "cost", "name", "__weakref__")

    def __init__(self, limit: int, cost: int, name: str) -> None:
        super().__init__()
        self.limit = limit
        self.cost = cost
        self.name = name
        _ALL.append(weakref.ref(self))
        if len(_ALL) > 4096:  # forget the dropped ones now and then
            _ALL[:] = [r for r in _ALL if r() is not None]

    def __setitem__(self, key, value) -> None:
        if len(self) >= self.limit:
            self.clear()
        dict.__setitem__(self, key, value)

    def setdefault(self, key, value=None):
        if key not in self and len(self) >= self.limit:
            self.clear()
        return dict.setdefault(self, key, value)

    def __reduce__(self):  # pickles as an empty cache of the same kind
        return (BoundedCache, (self.limit, self.cost, self.name))


def _live() -> list[BoundedCache]:
    caches = [c for c in (ref() for ref in list(_ALL)) if c is not None]
    if len(caches) < len(_ALL) // 2:
        _ALL[:] = [weakref.ref(c) for c in caches]
    return caches


def clear_all() -> None:
    """Empty every bounded cache of the solver."""
    for cache in _live():
        cache.clear()


def total_entries() -> int:
    """Entries in all bounded caches together (for memory checks)."""
    return sum(len(c) for c in _live())


def estimated_bytes() -> int:
    """The caches' estimated size in bytes (entries times each cache's estimate per entry)."""
    return sum(len(c) * c.cost for c in _live())


def report() -> dict[str, tuple[int, int]]:
    """``{name: (entries, estimated bytes)}`` over the live caches, by what they hold."""
    out: dict[str, tuple[int, int]] = {}
    for c in _live():
        entries, size = out.get(c.name, (0, 0))
        out[c.name] = (entries + len(c), size + len(c) * c.cost)
    return out


def set_budget(megabytes: float) -> None:
    """Bound the solver's caches together to about ``megabytes`` (estimated; checked every
    :data:`CHECK_EVERY` solver calls). A smaller budget costs speed, never exactness."""
    if (
        isinstance(megabytes, bool)
        or not isinstance(megabytes, (int, float))
        or not 0 <= megabytes < float("inf")
    ):
        raise ValueError(f"the cache budget must be a number of megabytes >= 0, got {megabytes!r}")
    _STATE["budget"] = int(megabytes * (1 << 20))


def budget() -> int:
    """The budget in bytes."""
    return _STATE["budget"]


def tick() -> None:
    """Count one solver call; every :data:`CHECK_EVERY` calls, empty every cache when their
    estimated size is over the budget. Called where a solver call starts (never inside one),
    so no computation sees its tables emptied halfway."""
    calls = _STATE["calls"] = _STATE["calls"] + 1
    if calls % CHECK_EVERY == 0 and estimated_bytes() > _STATE["budget"]:
        _STATE["trims"] += 1
        clear_all()


def _budget_from_environment() -> None:
    value = os.environ.get("TT_ENV_CACHE_MB", "").strip()
    if not value:
        return
    try:
        set_budget(float(value))
    except ValueError:
        raise ValueError(
            f"TT_ENV_CACHE_MB must be a number of megabytes >= 0, got {value!r}"
        ) from None


_budget_from_environment()
