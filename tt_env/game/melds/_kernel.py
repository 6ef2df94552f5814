"""The compiled kernel's Python side: which configurations it serves, its tables, its calls.

:mod:`._jit` (numba) solves hands with no cap on wilds per meld; this module builds what it
reads (a parameter array per configuration, suit tables per penalty table, one fixed-size memo
per table for suits with several copies of a card) and calls it without numba's dispatch cost
(the compiled entry point of each signature). numba is imported on first use, not with the
package. Without numba (``pip`` could not install it, or the environment variable
``TT_ENV_NO_JIT=1``) everything runs in Python, exactly and more slowly.
"""

from __future__ import annotations

import os

import numpy as np

from tt_env.game.cards import NUM_RANKS
from tt_env.game.melds._cache import BoundedCache

_ENV_FLAG = "TT_ENV_NO_JIT"
_state = {"jit": None, "tried": False, "error": None}
# (top, natural penalties) -> (TT, memo arrays): about 7.6 MB each (the arrays' nbytes)
_TABLES: BoundedCache = BoundedCache(16, 7_600_000, "kernel suit tables and memo")
MEMO_SLOTS = 1 << 15


def jit_module():
    """The numba kernel module, or None when numba is unavailable or disabled."""
    if not _state["tried"]:
        _state["tried"] = True
        if os.environ.get(_ENV_FLAG, "").strip() not in ("", "0"):
            _state["error"] = f"disabled by {_ENV_FLAG}"
        else:
            try:
                from tt_env.game.melds import jit as _jit
            except ImportError as exc:  # numba missing or broken: Python solves everything
                _state["error"] = f"numba unavailable: {exc}"
            else:
                _state["jit"] = _jit
    return _state["jit"]


def set_enabled(enabled: bool) -> None:
    """Use the compiled kernel (when numba is available) or only the Python solver; tests
    compare the two. Configurations already built keep what they had, so clear the solver's
    caches (``tt_env.game.melds.clear_cache(tables=True)``) after switching."""
    _state["tried"] = not enabled
    _state["jit"] = None
    _state["error"] = None if enabled else "disabled by set_enabled(False)"
    if enabled:
        jit_module()


def status() -> str:
    """A line saying whether the compiled kernel is in use, for benchmarks and bug reports."""
    jit = jit_module()
    if jit is None:
        return f"compiled kernel off ({_state['error']}); the Python solver answers"
    import numba

    return f"compiled kernel on (numba {numba.__version__})"


class _Entry:
    """A numba function called through the compiled entry point of the signature of its
    first call, which skips numba's dispatch (it costs about as much again as a small call).
    Callers always pass the same types (hands as ``bytes``)."""

    __slots__ = ("fn", "call")

    def __init__(self, fn) -> None:
        self.fn = fn
        self.call = self._first

    def _first(self, *args):
        result = self.fn(*args)
        sig = tuple(self.fn.typeof_pyval(a) for a in args)
        entry = getattr(self.fn.overloads.get(sig), "entry_point", None)
        self.call = entry if entry is not None else self.fn  # another numba: the dispatcher
        return result

    def __call__(self, *args):
        return self.call(*args)


class Kernel:
    """The kernel's view of one configuration (rules, wild rank, joker penalty).

    ``A`` packs the addresses of its arrays for the packed entry points, which take the
    address of ``A`` itself (``at``: one integer to unbox instead of a dozen arrays); the
    Kernel holds the arrays, so the addresses stay valid while it lives. A Kernel is compiled
    state: copying or pickling one gives the same object back (or refuses), never a copy whose
    addresses point into another's arrays.
    """

    __slots__ = (
        "w",
        "par",
        "TT",
        "mkeys",
        "mv",
        "mdw",
        "ws",
        "jit",
        "out53",
        "wr",
        "many",
        "out_bytes",
        "out8",
        "keys",
        "counts8",
        "runbuf",
        "dv53",
        "A",
        "at",
        "ev",
        "discards",
        "draws",
        "arranger",
        "outs",
    )

    def __init__(self, jit, cfg) -> None:
        self.jit = jit
        self.w = cfg.wpos
        par = np.zeros(jit.PAR_SIZE, np.int64)
        par[: len(cfg.pen)] = cfg.pen
        par[jit.P_TOP] = cfg.top
        par[jit.P_ALL_WILD] = int(cfg.all_wild)
        self.par = par
        rules = cfg.rules
        natural = tuple(rules.card_points(r) for r in range(1, NUM_RANKS + 1))
        key = (cfg.top, natural)
        shared = _TABLES.get(key)
        if shared is None:
            TT = np.empty((1 << 13, 4, jit.NB), np.int16)  # a mask's four rows side by side
            jit.build_suit_tables(np.array(natural, np.int64), cfg.top, TT)
            mkeys = np.full(MEMO_SLOTS + 1, -1, np.int64)
            mkeys[-1] = 0
            mv = np.empty((2, MEMO_SLOTS, jit.NB), np.int16)
            mdw = np.empty((MEMO_SLOTS, jit.NB), np.int64)
            shared = _TABLES[key] = (TT, mkeys, mv, mdw)
        self.TT, self.mkeys, self.mv, self.mdw = shared
        self.ws = np.zeros(jit.WS_SIZE, np.int64)
        self.wr = np.zeros((4, 8, jit.NB), np.int64)
        self.many = _Entry(jit.evaluate_many)
        ncards, nkeys, nruns = jit.ARRANGE_SIZES
        # arrange()'s cards: a bytearray Python reads directly (its ints, no numpy scalars)
        self.out_bytes = bytearray(ncards)
        self.out8 = np.frombuffer(self.out_bytes, np.uint8)
        self.keys = np.zeros(nkeys, np.int64)
        self.counts8 = np.zeros(53, np.uint8)
        self.runbuf = np.zeros(nruns, np.int64)
        self.out53 = np.empty(53, np.int64)
        self.dv53 = np.empty(53, np.int64)
        A = np.zeros(jit.A_SIZE, np.int64)
        A[jit.A_W] = self.w
        A[jit.A_SLOTS] = self.mdw.shape[0]
        for slot, array in (
            (jit.A_PAR, self.par),
            (jit.A_TT, self.TT),
            (jit.A_MKEYS, self.mkeys),
            (jit.A_MV, self.mv),
            (jit.A_MDW, self.mdw),
            (jit.A_WS, self.ws),
            (jit.A_WR, self.wr),
            (jit.A_OUT, self.out53),
            (jit.A_DV, self.dv53),
            (jit.A_CARDS, self.out8),
            (jit.A_KEYS, self.keys),
            (jit.A_COUNTS, self.counts8),
            (jit.A_RUNS, self.runbuf),
        ):
            if not array.flags.c_contiguous:  # unreachable: made here, C order
                raise AssertionError("kernel arrays must be C-contiguous")
            A[slot] = array.ctypes.data
        self.A = A
        self.at = A.ctypes.data  # what the packed entry points take
        self.ev = _Entry(jit.evaluate_packed)
        self.discards = _Entry(jit.discard_values_packed)
        self.draws = _Entry(jit.after_draw_packed)
        self.arranger = _Entry(jit.arrange_packed)
        self.outs = _Entry(jit.go_out_packed)

    def __copy__(self) -> Kernel:
        return self

    def __deepcopy__(self, memo) -> Kernel:
        return self

    def __reduce__(self):
        raise TypeError("a compiled solver kernel does not pickle (it is rebuilt on first use)")

    def value(self, counts) -> int:
        """The fewest penalty of ``counts`` (53 counts as bytes), or -1 when the kernel cannot
        certify it."""
        return self.ev.call(counts, self.at, 0)

    def plan(self, counts) -> int:
        """Like :meth:`value`, leaving the best arrangement's plan in the workspace."""
        return self.ev.call(counts, self.at, 2)

    def discard_values(self, counts: bytes) -> tuple[np.ndarray, int]:
        """See ``_jit.discard_values``: (the values, in a buffer reused by the next call; the
        hand's own value or -1)."""
        return self.out53, self.discards.call(counts, self.at)

    def arrange(self, counts: bytes) -> tuple[int, int, int, int]:
        """See ``_jit.arrange``: (melds, cards in melds, deadwood cards, points) with the cards
        in ``out_bytes`` and the meld keys in ``keys`` (buffers reused by the next call)."""
        return self.arranger.call(counts, self.at, 0)

    def arrange_cards(self, kinds: bytes) -> tuple[int, int, int, int]:
        """:meth:`arrange` of the hand whose card kinds are ``kinds`` (one byte each); points
        -3 for too large a hand, -4 for a kind beyond 52."""
        return self.arranger.call(kinds, self.at, 1)

    def go_out(self, counts: bytes) -> int:
        """See ``_jit.go_out_packed``: the discards that go out, as bits (-1: not certified,
        -3: too large a hand)."""
        return self.outs.call(counts, self.at)

    def values(self, hands: np.ndarray) -> np.ndarray:
        """:meth:`value` of every row of ``hands`` ((n, 53) uint8), -1 where not certified."""
        out = np.empty(len(hands), np.int64)
        self.many(hands, self.at, out)
        return out

    def after_draw(self, counts: bytes, weights: np.ndarray) -> int:
        """See ``_jit.after_draw_values``: the values after each draw are left in ``out53``,
        the discard values of ``counts`` in ``dv53`` (buffers reused by the next call)."""
        return self.draws.call(counts, weights, self.at)


def kernel_for(cfg) -> Kernel | None:
    """The kernel of a configuration, or None when it does not serve it (a cap on wilds per
    meld, or no numba)."""
    if cfg.cap is not None:
        return None
    jit = jit_module()
    if jit is None:
        return None
    return Kernel(jit, cfg)
