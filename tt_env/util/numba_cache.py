"""numba's on-disk cache of tt_env's compiled kernels, keyed by all of their sources together.

numba keys a cached function by the content of its own source file only. The kernels call one
another across modules (the valuation's, the rule's and the search agent's kernels compile the
solver's functions into their own code), so after a change to ``melds/_jit.py`` alone the
callers' cached code would still hold the old solver: wrong values, silently (the suit tables'
layout changed once, and the rule's cached code read them the old way). The locators below
are numba's own, for the kernel modules only, with one difference: their source stamp also
holds a hash of every kernel module, so that a change to any of them recompiles all.

:func:`register` puts them first in numba's list of locators; each kernel module calls it
before its first ``@njit(cache=True)``. numba's list and locator classes are internal names
(renamed between numba 0.59 and 0.68: both are looked for): without them numba keeps its own keys.
"""

from __future__ import annotations

import hashlib
import os
from functools import lru_cache
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
KERNEL_MODULES = (
    "game/melds/jit.py",
    "valuation/heuristics_jit.py",
    "learned/_features_jit.py",
    "agents/_search_jit.py",
)
_FILES = tuple(os.path.realpath(_ROOT / name) for name in KERNEL_MODULES)


def kernels_stamp() -> str:
    """A hash of every kernel module's source (re-read when one of them changes on disk)."""
    return _hash(tuple(_stat(path) for path in _FILES))


def _stat(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:  # a module missing from this installation: it compiles nothing
        return (0, -1)
    return (st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=8)
def _hash(stats: tuple) -> str:
    digest = hashlib.sha256()
    for path, (_, size) in zip(_FILES, stats):
        digest.update(path.encode())
        if size >= 0:
            with open(path, "rb") as f:
                digest.update(f.read())
    return digest.hexdigest()


class _KernelStamp:
    """A mixin for numba's source-file locators: the kernel modules only, stamped with
    :func:`kernels_stamp` as well as their own source."""

    tt_env_kernels = True

    @classmethod
    def from_function(cls, py_func, py_file):
        if os.path.realpath(py_file) not in _FILES:
            return None  # not a kernel module: numba's own locators take it
        return super().from_function(py_func, py_file)

    def get_source_stamp(self):
        return (super().get_source_stamp(), kernels_stamp())


def register() -> bool:
    """Put the kernel locators first in numba's list (once); False when this numba has not
    the internal names they need (numba's own keys then stay)."""
    try:
        from numba.core import caching

        impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
        classes = impl._locator_classes
    except (ImportError, AttributeError):
        return False
    if any(getattr(c, "tt_env_kernels", False) for c in classes):
        return True
    ours = []
    for numba_name in ("UserProvidedCacheLocator", "InTreeCacheLocator", "UserWideCacheLocator"):
        base = getattr(caching, numba_name, None) or getattr(caching, "_" + numba_name, None)
        if base is None:
            return False
        name = "TtEnv" + numba_name
        ours.append(type(name, (_KernelStamp, base), {"__module__": __name__}))
    classes[:0] = ours
    return True
