"""The one cache policy of the solver: bounded dicts that empty themselves when full.

Every table the solver keeps between calls (results, candidate melds, the best runs of each
suit pattern, the pool's memos) is a :class:`BoundedCache`. Emptying a full cache at once
costs nothing per lookup (reads are plain ``dict`` reads) and keeps memory flat over any
number of games; a table that is emptied is simply filled again on demand. :func:`clear_all`
empties every one (benchmarks time cold calls with it; tests use it to check exactness does
not depend on what is cached).
"""

from __future__ import annotations

import weakref

_ALL: list[weakref.ref] = []  # every cache made (weak: a cache may be dropped with its owner)


class BoundedCache(dict):
    """A ``dict`` of at most ``limit`` entries: an insertion into a full one empties it first."""

    __slots__ = ("limit", "__weakref__")

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit
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

    def __reduce__(self):  # pickles as an empty cache of the same size
        return (BoundedCache, (self.limit,))


def clear_all() -> None:
    """Empty every bounded cache of the solver."""
    for ref in list(_ALL):
        cache = ref()
        if cache is not None:
            cache.clear()


def total_entries() -> int:
    """Entries in all bounded caches together (for memory checks)."""
    return sum(len(c) for c in (ref() for ref in list(_ALL)) if c is not None)
