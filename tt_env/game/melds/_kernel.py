"""The compiled kernel's Python side: which configurations it serves, its tables, its calls.

The kernel (``solver.h``, compiled into the extension module :mod:`._csolver` when the package
is installed) solves hands under every rule option (a cap on wilds per meld by its exact search,
``solver/capped.h``) and plays redemption's lay-offs; this module builds what it reads (the
suit tables and memo of each penalty table, shared; one :class:`Kernel` per configuration with
the numpy arrays its results are read from) and calls it. Without the extension (the install
found no C compiler) or with the environment variable ``TT_ENV_NO_KERNEL=1``, everything runs
in Python, exactly and more slowly; the first use then says so in one line.
"""

from __future__ import annotations

import importlib
import os
import sys

import numpy as np

from tt_env.game.cards import NUM_RANKS
from tt_env.game.melds._cache import BoundedCache
from tt_env.game.melds._types import MELD_KINDS

_ENV_FLAG = "TT_ENV_NO_KERNEL"  # set to anything but "" or "0": the kernel stays off
_NOTICE_FLAG = "TT_ENV_KERNEL_NOTICE_SHOWN"  # set once told: worker processes inherit it
_state = {"native": None, "tried": False, "error": None}
# (top, natural penalties) -> Tables: about 7.6 MB each (1 MB of suit tables, the memo)
_TABLES: BoundedCache = BoundedCache(16, 7_600_000, "kernel suit tables and memo")
MEMO_SLOTS = 1 << 15

_MODULE = "tt_env.game.melds._csolver"
NOTICE = (
    "tt_env: the compiled kernels are {why}, so the exact pure-Python solver answers, 10-50x "
    "slower; for the fast path install gcc or clang and reinstall tt_env "
    "(pip install --force-reinstall --no-deps <tt_env or its folder>)"
)


def kernel_module():
    """The compiled kernel's extension module, or None when it is not built or disabled. When
    it is not built, the first call says so on stderr in one line (once per process tree: the
    processes it starts inherit that it was said)."""
    if not _state["tried"]:
        _state["tried"] = True
        if os.environ.get(_ENV_FLAG, "").strip() not in ("", "0"):
            _state["error"] = f"disabled by {_ENV_FLAG}"
        else:
            try:
                _state["native"] = importlib.import_module(_MODULE)
            except ImportError as exc:  # not built (no compiler at install): Python solves
                missing = isinstance(exc, ModuleNotFoundError) and exc.name == _MODULE
                _state["error"] = f"{_MODULE} is not built" if missing else f"{exc}"
                if not os.environ.get(_NOTICE_FLAG):
                    os.environ[_NOTICE_FLAG] = "1"
                    why = (
                        "not built (the install found no C compiler)"
                        if missing
                        else (f"broken ({exc})")
                    )
                    print(NOTICE.format(why=why), file=sys.stderr, flush=True)
    return _state["native"]


def set_enabled(enabled: bool) -> None:
    """Use the compiled kernel (when it is built) or only the Python solver; tests compare the
    two. Configurations already built keep what they had, so clear the solver's caches
    (``tt_env.game.melds.clear_cache(tables=True)``) after switching."""
    _state["tried"] = not enabled
    _state["native"] = None
    _state["error"] = None if enabled else "disabled by set_enabled(False)"
    if enabled:
        kernel_module()


def status() -> str:
    """A line saying whether the compiled kernel is in use, for benchmarks and bug reports."""
    native = kernel_module()
    if native is None:
        return f"compiled kernel off ({_state['error']}); the Python solver answers"
    return f"compiled kernel on (C extension, {native.COMPILER})"


def meld_of_key(key: int) -> tuple[str, int, int, int, int, int, int]:
    """(kind, rank, suit, low, high, wilds, size) of a meld key written by the kernel's arrange
    (``tt_meld_key`` in solver/arrange.h)."""
    return (
        MELD_KINDS[key & 3],
        key >> 2 & 15,
        (key >> 6 & 7) - 1,
        key >> 9 & 15,
        key >> 13 & 15,
        key >> 17 & 127,
        key >> 24 & 127,
    )


_WORKSPACE_DTYPES: dict = {}  # extension module -> the numpy layout of its workspace


def workspace_dtype(native) -> np.dtype:
    """The kernel's workspace (``tt_workspace`` in solver/workspace.h) as a numpy structured
    type: its result fields by name (``md``, ``unsure``, the plan: ``nsets``, ``sets``,
    ``suits``, ``dead``...), at the offsets and shapes the extension reads from the struct
    itself (``WORKSPACE``), over its ``WS_SIZE`` int64 entries."""
    dtype = _WORKSPACE_DTYPES.get(native)
    if dtype is None:
        names, offsets, shapes = zip(*native.WORKSPACE)
        dtype = _WORKSPACE_DTYPES[native] = np.dtype(
            {
                "names": list(names),
                "formats": [np.dtype((np.int64, shape)) for shape in shapes],
                "offsets": list(offsets),
                "itemsize": native.WS_SIZE * np.dtype(np.int64).itemsize,
            }
        )
    return dtype


class Kernel:
    """The kernel's view of one configuration (rules, wild rank, joker penalty).

    ``c`` is the extension's Kernel: it holds the configuration's penalties (``par``), the
    shared suit tables and the arrays it writes its results into (the workspace; ``out53``,
    ``dv53``; ``out_bytes`` and ``keys`` for arrange), which are this object's numpy arrays,
    read here after each call: ``ws`` is the workspace by name (:func:`workspace_dtype`, one
    record: ``ws["md"]``, ``ws["dead"]``...). A Kernel is compiled state: copying one gives the
    same object back, pickling one is refused (it is rebuilt on first use).
    """

    __slots__ = (
        "native",
        "c",
        "w",
        "par",
        "tables",
        "ws",
        "out53",
        "dv53",
        "out_bytes",
        "out8",
        "keys",
    )

    def __init__(self, native, cfg, tables=None) -> None:
        self.native = native
        self.w = cfg.wild_position
        par = np.zeros(native.PAR_SIZE, np.int64)
        par[: len(cfg.penalties)] = cfg.penalties
        par[native.P_TOP] = cfg.top_position
        par[native.P_ALL_WILD] = int(cfg.all_wild_melds)
        par[native.P_CAP] = min(cfg.wild_limit, native.NO_CAP)
        self.par = par
        if tables is None:
            key = _tables_key(cfg)
            tables = _TABLES.get(key)
            if tables is None:
                tables = _TABLES[key] = native.Tables(key[1], cfg.top_position, MEMO_SLOTS)
        self.tables = tables
        ws = np.zeros(native.WS_SIZE, np.int64)  # what the extension writes into
        self.ws = ws.view(workspace_dtype(native)).reshape(())
        self.out53 = np.zeros(53, np.int64)
        self.dv53 = np.zeros(53, np.int64)
        # arrange()'s cards: a bytearray Python reads directly (its ints, no numpy scalars)
        self.out_bytes = bytearray(native.ARRANGE_CARDS)
        self.out8 = np.frombuffer(self.out_bytes, np.uint8)
        self.keys = np.zeros(native.ARRANGE_KEYS, np.int64)
        self.c = native.Kernel(tables, par, self.w, ws, self.out53, self.dv53, self.out8, self.keys)

    def __copy__(self) -> Kernel:
        return self

    def __deepcopy__(self, memo) -> Kernel:
        return self

    def __reduce__(self):
        raise TypeError("a compiled solver kernel does not pickle (it is rebuilt on first use)")

    def value(self, counts) -> int:
        """The fewest penalty of ``counts`` (53 counts as bytes), or -1 when the kernel cannot
        certify it."""
        return self.c.evaluate(counts, self.native.POINTS)

    def plan(self, counts) -> int:
        """Like :meth:`value`, leaving the best arrangement's plan in the workspace (``ws``:
        ``nsets``, ``sets``, ``suits``, ``dead``...) and its costliest deadwood card (``md``)."""
        return self.c.evaluate(counts, self.native.PLAN)

    def unsure(self) -> int:
        """How many values the last :meth:`discard_values` could not certify."""
        return int(self.ws["unsure"])

    def discard_values(self, counts: bytes) -> tuple[np.ndarray, int]:
        """(the value of the hand less one card of each kind, -2 for kinds not held and -1
        where not certified, in a buffer reused by the next call; the hand's own value or -1)."""
        return self.out53, self.c.discard_values(counts)

    def arrange(self, counts: bytes) -> tuple[int, int, int, int]:
        """(melds, cards in melds, deadwood cards, points) of the best arrangement, with the
        cards in ``out_bytes`` and the meld keys (:func:`meld_of_key`) in ``keys`` (buffers
        reused by the next call); points -1 when not certified."""
        return self.c.arrange(counts, False)

    def arrange_cards(self, kinds: bytes) -> tuple[int, int, int, int]:
        """:meth:`arrange` of the hand whose card kinds are ``kinds`` (one byte each); points
        -3 for too large a hand, -4 for a kind beyond 52."""
        return self.c.arrange(kinds, True)

    def go_out(self, counts: bytes) -> int:
        """The discards that leave the hand with no deadwood, as bits (-1: not certified,
        -3: too large a hand)."""
        return self.c.go_out(counts)

    def values(self, hands: np.ndarray) -> np.ndarray:
        """:meth:`value` of every row of ``hands`` ((n, 53) uint8), -1 where not certified."""
        out = np.empty(len(hands), np.int64)
        self.c.values(hands, out)
        return out

    def lay_off(self, counts: bytes, table: list) -> tuple | None:
        """Redemption (``tt_lay_off`` in solver/layoff.h) of the hand and the table's shapes
        (:func:`~tt_env.game.melds.shape_tuple`): (points, own melds as (cards, shape) pairs,
        the deadwood, the cards laid off as (table index, cards) pairs, the table's shapes
        after), cards as bytes of kinds and shapes as tuples; None where the kernel does not
        take the hand or the table (the Python solver answers)."""
        return self.c.lay_off(counts, table)

    def after_draw(self, counts: bytes, weights: np.ndarray) -> int:
        """The values after each draw of weight > 0 (its best discard made) are left in
        ``out53``, the discard values of ``counts`` in ``dv53`` (buffers reused by the next
        call); returns the hand's value. -1 anywhere: not certified."""
        return self.c.after_draw(counts, weights)


def _tables_key(cfg) -> tuple:
    """The suit tables a configuration reads: its top position and natural penalties."""
    return cfg.top_position, tuple(cfg.rules.card_points(r) for r in range(1, NUM_RANKS + 1))


def private_kernels(cfgs) -> list[Kernel | None]:
    """Kernels of ``cfgs`` (each None where the kernel does not serve it) that share their
    workspaces and suit tables with no other kernel: for one thread of a batch, which solves
    without the GIL while other threads solve on theirs (the memo of a suit table is written
    as it solves)."""
    if kernel_module() is None:
        return [None] * len(cfgs)
    own: dict[tuple, object] = {}
    kernels = []
    for cfg in cfgs:
        if kernel_for(cfg) is None:
            kernels.append(None)
            continue
        key = _tables_key(cfg)
        if key not in own:
            own[key] = _state["native"].Tables(key[1], cfg.top_position, MEMO_SLOTS)
        kernels.append(Kernel(_state["native"], cfg, own[key]))
    return kernels


def kernel_for(cfg) -> Kernel | None:
    """The kernel of a configuration, or None when it does not serve it (a joker penalty beyond
    10**9, or no compiled kernel). Every rule option is served: a cap on wilds per meld takes
    the kernel's exact search (solver/capped.h)."""
    native = kernel_module()
    if native is None:
        return None
    # Rules bound every other penalty far below the kernel's limits
    if cfg.joker_penalty > native.WILD_MAX:
        return None
    return Kernel(native, cfg)
