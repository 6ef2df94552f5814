"""The compiled kernel: the fewest penalty of a hand with no cap on wilds per meld (numba).

It is one file of about 2,000 lines, and stays so: numba compiles the functions that call one
another together, and the kernels of the layers above (the valuation's rule, the features, the
search agent) call these functions from their own compiled code. It is to be replaced as a whole
by a compiled extension built at install, not restructured in place.

Same mathematics as the Python fast path (see the package docstring), laid out for a compiler:

*Suit tables.* ``T[mask, d]`` is the fewest points of one suit's cards (13-bit ``mask``, one
copy each) left out of runs that need at most ``d`` wilds for their gaps, for every mask and
``d = 0..15``; ``MD[mask, d]`` is the costliest card left out in such an arrangement (the
costliest over all of them: ties broken towards the costliest deadwood card; -1 for none) and
``DW[mask, d]`` its deadwood. One array ``TT[mask]`` holds the four rows of a mask side by side
(``T``, ``MD``, ``DW`` and ``G``, the fewest points less one card), so that one suit's rows
share cache lines. They are built once per penalty table (about 10 ms), by the lowest card: it is
deadwood, or the lowest natural card of a run with any subset of the cards above it (an ace
with ``aces_high`` may also stand above the king). A suit holding several copies of a card
(several decks) has a 3-bit count per position and the same recursion, memoised in a hash
table of fixed size that empties itself when half full.

*The hand.* Sets are chosen first: a depth-first search over the ranks holding 2 natural
cards or more (3 or more without wilds) tries, per rank, "no set" and every sub-multiset big
enough (one set per rank: with no cap two sets of a rank never need fewer wilds than their
union); each leaf combines the four suits' rows with the wilds left by a min-plus convolution.
A leaf is skipped when the suits as they are, less the points of the set cards, cannot beat
the best found. With no cap every spare wild joins a meld once one exists: always when a set
is chosen, and when only runs are, whenever no suit holds more than ``top - W`` natural
positions (a run of n naturals needs at most D gap wilds and has room for ``top - n - D``
more). Otherwise, or beyond the sizes the tables cover (a rank with too many options, more
than 7 copies of a card, more than 90 wilds), the kernel answers -1 and the caller runs the
exact search in Python. When no natural meld exists, the wilds can only meld by themselves:
a set of the wild rank (one wild-rank card, natural there, and any jokers; three cards or
more), or, with ``all_wild_melds``, three jokers or more.

*One copy each.* A hand holding at most one copy of each natural card (every one-deck hand)
takes :func:`evaluate_one`: the same search over 13-bit masks, with a rank's set options read
from a table by the suits it holds, the set ranks found bit-parallel, and a tighter bound for
points alone (the suits left for runs valued at every set chosen, less what the ranks below can
take with the wilds left); for the costliest deadwood card and the plan it prunes as
:func:`evaluate` does, so both find the same arrangement. Any other hand takes :func:`evaluate`.

Tie-breaking towards the costliest deadwood card (among the best arrangements the search
meets) puts costly cards in the plan's deadwood, and :func:`discard_values` values every card of
that deadwood without a search (dropping it saves exactly its penalty).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from tt_env.util.numba_cache import register

register()  # cached code keyed by every kernel module (see tt_env.util.numba_cache)

NB = 16  # budgets 0..15 per suit row; a suit's runs never need more than 13 gap wilds
HI_FIELDS = sum(0b110 << (3 * p) for p in range(13))  # 3-bit count fields holding 2 or more
MAX_NODES = 20_000  # search nodes before the kernel gives up (-1) and Python decides
MAX_OPTIONS = 64  # set options of one rank (every sub-multiset of its cards)
MAX_WILDS = 90
MAX_CARDS = 31  # the solver's largest hand (MAX_HAND_CARDS) and a draw; beyond: -3
INF = 30000  # "no such arrangement" in the int16 tables (a drop from an empty suit)

# par: the per-configuration parameters, one int64 array.
P_TOP = 53  # highest position: 13, or 14 with aces_high
P_ALL_WILD = 54  # 1 with all_wild_melds
PAR_SIZE = 55  # par[0..52]: the penalty of each card kind (the joker's at 52)

# ws: the workspace, one int64 array; the outputs of a call are read from it.
W_MD = 0  # the costliest deadwood card's penalty (lexicographic modes)
W_NSETS = 1  # plan: sets chosen
W_D = 2  # plan: wilds the chosen sets and runs need
W_UNSURE = 3  # discard_values: entries the kernel could not certify
W_ALLNAT = 4  # plan: the points of every natural card
W_CARDS = 5  # plan: the cards of the hand
W_NDEAD = 6  # plan: the natural cards of the deadwood
W_SETS = 8  # plan: (rank position, takes per suit in 3-bit fields) per set, 13 at most
W_SUITS = 40  # plan: (code left, budget) per suit
W_DEAD = 56  # deadwood: 53 counts
W_DEADCODE = 112  # plan: the natural deadwood of each suit, as a code (3-bit counts)
W_SCRATCH = 128
WS_SIZE = 8192

GENERAL = 8  # added to evaluate()'s mode: never the lean search (tests compare the two)

# ---------------------------------------------------------------------------- bits


@intrinsic
def _address(typingctx, addr):
    """An int64 address as a pointer (for carray)."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(types.int64), codegen


@njit(cache=True, inline="always")
def _bare(a):
    """``a`` itself without its reference count: slicing a NumPy array in compiled code
    counts references to its memory, atomically, each time; a view of a bare array does not
    (the caller keeps ``a`` alive). The searches start with it: it halves their cost when
    they are called from compiled code with the Kernel's arrays."""
    return carray(_address(a.ctypes.data), a.shape, a.dtype)


@intrinsic
def _tz(typingctx, x):
    """The trailing zero bits of an integer x > 0 (one instruction: LLVM's cttz)."""

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return x(x), codegen


@intrinsic
def _popcount(typingctx, x):
    """The bits set in an integer x >= 0 (LLVM's ctpop)."""

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return x(x), codegen


@njit(cache=True, inline="always")
def _popcount13(x):
    """Bits set in a 13-bit mask, without a loop."""
    x = x - ((x >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


@intrinsic
def _bitlen(typingctx, x):
    """The length in bits of an integer x >= 0 (LLVM's ctlz)."""

    def codegen(context, builder, signature, args):
        width = ir.Constant(args[0].type, args[0].type.width)
        return builder.sub(width, builder.ctlz(args[0], ir.Constant(ir.IntType(1), 0)))

    return x(x), codegen


@njit(cache=True, inline="always")
def _better(v, md, bv, bmd):
    """Lexicographic: fewer points, then a costlier deadwood card."""
    return v < bv or (v == bv and md > bmd)


# ---------------------------------------------------------------------------- one suit
@njit(cache=True)
def _run_span(i, h, sub):
    """(low, high, naturals) of a run whose lowest card is at index ``i`` (head ``h``: 0 in
    its place, 1 an ace above the king, 2 two aces at both ends) with ``sub`` (bits above i)."""
    n = 1 + _popcount(sub)
    if h == 0:
        return i + 1, i + 1 + _bitlen(sub), n
    if h == 1:
        return (_tz(sub) + 2 if sub else 14), 14, n
    return 1, 14, n + 1


@njit(cache=True)
def build_suit_tables(pen13, top, TT):
    """Fill ``TT[:, 0] = T``, ``TT[:, 1] = MD``, ``TT[:, 2] = DW`` and ``TT[:, 3] = G`` (see
    the module docstring): ``TT[mask]`` holds a suit's four rows side by side."""
    T, MD, DW = TT[:, 0], TT[:, 1], TT[:, 2]
    for d in range(NB):
        T[0, d] = 0
        MD[0, d] = -1  # no deadwood
        DW[0, d] = 0
    for mask in range(1, 1 << 13):
        i = _tz(mask)
        rest = mask & (mask - 1)
        for d in range(NB):
            T[mask, d] = pen13[i] + T[rest, d]
            MD[mask, d] = max(pen13[i], MD[rest, d])
            DW[mask, d] = DW[rest, d] | (1 << i)
        above = rest >> (i + 1)
        for h in range(2 if (i == 0 and top == 14) else 1):
            sub = above
            while True:
                low, high, n = _run_span(i, h, sub)
                span = high - low + 1
                lo = max(3, span) - n
                if span <= top and lo < NB:
                    child = rest & ~(sub << (i + 1))
                    for d in range(lo, NB):
                        if _better(T[child, d - lo], MD[child, d - lo], T[mask, d], MD[mask, d]):
                            T[mask, d] = T[child, d - lo]
                            MD[mask, d] = MD[child, d - lo]
                            DW[mask, d] = DW[child, d - lo]
                if sub == 0:
                    break
                sub = (sub - 1) & above
    G = TT[:, 3]
    for d in range(NB):
        G[0, d] = INF
    for mask in range(1, 1 << 13):
        for d in range(NB):
            best = INF
            x = mask
            while x:
                low = x & -x
                v = T[mask ^ low, d]
                if v < best:
                    best = v
                x ^= low
            G[mask, d] = best


@njit(cache=True)
def _slot(code, mkeys):
    """The memo slot of ``code`` (>= 0), or -1 - the free slot where it would go."""
    size = mkeys.shape[0] - 1  # the last entry counts the entries
    s = np.int64((np.uint64(code) * np.uint64(0x9E3779B97F4A7C15)) >> np.uint64(40)) & (size - 1)
    while True:
        k = mkeys[s]
        if k == code:
            return s
        if k == -1:
            return -1 - s
        s = (s + 1) & (size - 1)


def _field_masks():
    """``FIELD_MASK[x]``: the 4-bit mask of the non-zero 3-bit fields of a 12-bit ``x``."""
    out = np.zeros(1 << 12, np.int64)
    for x in range(1 << 12):
        out[x] = sum(1 << f for f in range(4) if x >> (3 * f) & 7)
    return out


FIELD_MASK = _field_masks()
# FIELD_CODE[x]: the 3-bit count fields (one each) of the 4-bit mask x (a set's take, too)
FIELD_CODE = np.array([sum(1 << (3 * f) for f in range(4) if x >> f & 1) for x in range(16)])


@njit(cache=True, inline="always")
def _mask_of(code):
    """The 13-bit mask of the positions a suit's code holds (four fields per table read)."""
    return (
        FIELD_MASK[code & 0xFFF]
        | FIELD_MASK[(code >> 12) & 0xFFF] << 4
        | FIELD_MASK[(code >> 24) & 0xFFF] << 8
        | (4096 if (code >> 36) & 7 else 0)
    )


@njit(cache=True, inline="always")
def _code_of(mask):
    """The code (3-bit counts) of a 13-bit mask (four positions per table read)."""
    return (
        FIELD_CODE[mask & 15]
        | FIELD_CODE[(mask >> 4) & 15] << 12
        | FIELD_CODE[(mask >> 8) & 15] << 24
        | FIELD_CODE[(mask >> 12) & 1] << 36
    )


@njit(cache=True)
def suit_row(code, par, TT, mkeys, mv, mdw, out, outmd, outdw):
    """One suit's row for any counts (3-bit fields): values, costliest deadwood and deadwood
    (as a code) for every budget, into the three outputs. Several copies: memoised."""
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    if code & HI_FIELDS == 0:
        m = _mask_of(code)
        for d in range(NB):
            out[d] = TT[m, 0, d]
            outmd[d] = TT[m, 1, d]
            outdw[d] = _code_of(TT[m, 2, d])
        return
    s = _slot(code, mkeys)
    if s >= 0:
        for d in range(NB):
            out[d] = mv[0, s, d]
            outmd[d] = mv[1, s, d]
            outdw[d] = mdw[s, d]
        return
    top = par[P_TOP]
    i = 0
    while not (code >> (3 * i)) & 7:
        i += 1
    c0 = (code >> (3 * i)) & 7
    rest = code - (1 << (3 * i))
    cv = np.empty(NB, np.int64)
    cmd = np.empty(NB, np.int64)
    cdw = np.empty(NB, np.int64)
    vals = np.empty(NB, np.int64)
    mds = np.empty(NB, np.int64)
    dws = np.empty(NB, np.int64)
    suit_row(rest, par, TT, mkeys, mv, mdw, cv, cmd, cdw)
    for d in range(NB):
        vals[d] = par[i] + cv[d]
        mds[d] = max(par[i], cmd[d])
        dws[d] = cdw[d] + (1 << (3 * i))
    above = 0
    for p in range(i + 1, 13):
        if (rest >> (3 * p)) & 7:
            above |= 1 << (p - i - 1)
    nheads = 1
    if i == 0 and top == 14:
        nheads = 3 if c0 >= 2 else 2
    for h in range(nheads):
        sub = above
        while True:
            low, high, n = _run_span(i, h, sub)
            span = high - low + 1
            lo = max(3, span) - n
            if span <= top and lo < NB:
                nxt = rest - (1 if h == 2 else 0)
                x = sub
                while x:
                    nxt -= np.int64(1) << (3 * (_tz(x) + i + 1))
                    x &= x - 1
                suit_row(nxt, par, TT, mkeys, mv, mdw, cv, cmd, cdw)
                for d in range(lo, NB):
                    if _better(cv[d - lo], cmd[d - lo], vals[d], mds[d]):
                        vals[d] = cv[d - lo]
                        mds[d] = cmd[d - lo]
                        dws[d] = cdw[d - lo]
            if sub == 0:
                break
            sub = (sub - 1) & above
    size = mkeys.shape[0] - 1
    if mkeys[size] * 2 >= size:  # half full: empty it (the one cache policy)
        mkeys[:] = -1
        mkeys[size] = 0
    s = -1 - _slot(code, mkeys)
    mkeys[s] = code
    mkeys[size] += 1
    for d in range(NB):
        mv[0, s, d] = vals[d]
        mv[1, s, d] = mds[d]
        mdw[s, d] = dws[d]
        out[d] = vals[d]
        outmd[d] = mds[d]
        outdw[d] = dws[d]


# ---------------------------------------------------------------------------- four suits
@njit(cache=True, inline="always")
def _conv(r0, r1, r2, r3, b, acc, every):
    """The fewest total of four suit rows sharing ``b`` wilds: a min-plus convolution, in place
    in ``acc``; with ``every``, ``acc[0..b]`` holds the total at every budget (rows never rise
    with the budget, so the total at exactly ``i`` wilds is the fewest with at most ``i``)."""
    tot = np.int64(r0[0]) + r1[0] + r2[0] + r3[0]
    if b == 0:
        if every:
            acc[0] = tot
        return tot
    if b == 1:
        one = tot - max(r0[0] - r0[1], r1[0] - r1[1], r2[0] - r2[1], r3[0] - r3[1])
        if every:
            acc[0] = tot
            acc[1] = one
        return one
    last = NB - 1
    for i in range(b + 1):
        acc[i] = r0[min(i, last)]
    for s in range(3):
        r = r1 if s == 0 else (r2 if s == 1 else r3)
        if r[last] == r[0]:  # wilds do not help this suit
            for i in range(b + 1):
                acc[i] += r[0]
            continue
        for i in range(b, -1, -1):  # in place: acc[i] needs acc[i - d] of the previous suit
            best = acc[i] + r[0]
            for d in range(1, min(i, last) + 1):
                v = acc[i - d] + r[d]
                if v < best:
                    best = v
            acc[i] = best
    return acc[b]


@njit(cache=True, inline="always")
def _conv_lex(v0, v1, v2, v3, g0, g1, g2, g3, b, acc, accmd, tmp, tmpmd, alloc):
    """Lexicographic (points, costliest deadwood) convolution of four suits' rows (points
    ``v``, costliest deadwood ``g``) at ``b`` wilds; returns the points, and the costliest
    deadwood and the wilds per suit (``alloc``) of the best allocation in ``accmd[b]`` /
    ``alloc`` (among equals the first found: the fewest wilds to the later suits)."""
    if b <= 1:  # the same, unrolled: the wild (if any) to the last suit it improves
        a0 = np.int64(v0[0])
        md0 = np.int64(g0[0])
        a1 = np.int64(v0[b])
        md1 = np.int64(g0[b])
        who = 0
        for s in range(1, 4):
            v = v1 if s == 1 else (v2 if s == 2 else v3)
            g = g1 if s == 1 else (g2 if s == 2 else g3)
            if b:
                x = a0 + v[1]
                xmd = max(md0, np.int64(g[1]))
                a1 += v[0]
                md1 = max(md1, np.int64(g[0]))
                if _better(x, xmd, a1, md1):
                    a1, md1, who = x, xmd, s
            a0 += v[0]
            md0 = max(md0, np.int64(g[0]))
        for s in range(4):
            alloc[s] = 0
        alloc[who] = b
        accmd[b] = md1 if b else md0
        return a1 if b else a0
    last = NB - 1
    choice = tmp[MAX_WILDS + 1 :]  # choice[s * (MAX_WILDS + 1) + i]: wilds given to suit s
    cw = MAX_WILDS + 1
    for i in range(b + 1):
        acc[i] = v0[min(i, last)]
        accmd[i] = g0[min(i, last)]
        choice[i] = i
    for s in range(1, 4):
        v = v1 if s == 1 else (v2 if s == 2 else v3)
        g = g1 if s == 1 else (g2 if s == 2 else g3)
        for i in range(b + 1):
            bv = acc[i] + v[0]
            bmd = max(accmd[i], np.int64(g[0]))
            bd = 0
            for d in range(1, min(i, last) + 1):
                x = acc[i - d] + v[d]
                md = max(accmd[i - d], np.int64(g[d]))
                if _better(x, md, bv, bmd):
                    bv, bmd, bd = x, md, d
            tmp[i] = bv
            tmpmd[i] = bmd
            choice[s * cw + i] = bd
        for i in range(b + 1):
            acc[i] = tmp[i]
            accmd[i] = tmpmd[i]
    i = b
    for s in range(3, 0, -1):
        alloc[s] = choice[s * cw + i]
        i -= choice[s * cw + i]
    alloc[0] = i
    return acc[b]


@njit(cache=True)
def drop_row(code, par, TT, mkeys, mv, mdw, out, tv, tmd, tdw):
    """One suit's drop row: ``out[d]``, the fewest points of the suit less one of its cards
    (the best one to drop) with ``d`` wilds; INF for an empty suit."""
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    if code & HI_FIELDS == 0:
        m = _mask_of(code)
        for d in range(NB):
            out[d] = TT[m, 3, d]
        return
    for d in range(NB):
        out[d] = INF
    for p in range(13):
        if (code >> (3 * p)) & 7:
            suit_row(code - (np.int64(1) << (3 * p)), par, TT, mkeys, mv, mdw, tv, tmd, tdw)
            for d in range(NB):
                if tv[d] < out[d]:
                    out[d] = tv[d]


@njit(cache=True, inline="always")
def _conv_drop(r0, r1, r2, r3, g0, g1, g2, g3, b, acc, acc1, tmp, tmp1):
    """Fewest total of four suits sharing ``b`` wilds with one card dropped from one of them
    (its drop row ``g``; the others' rows ``r``)."""
    last = NB - 1
    for i in range(b + 1):
        acc[i] = r0[min(i, last)]
        acc1[i] = g0[min(i, last)]
    for s in range(3):
        r = r1 if s == 0 else (r2 if s == 1 else r3)
        g = g1 if s == 0 else (g2 if s == 1 else g3)
        for i in range(b + 1):
            best0 = acc[i] + r[0]
            best1 = min(acc1[i] + r[0], acc[i] + g[0])
            for d in range(1, min(i, last) + 1):
                v0 = acc[i - d] + r[d]
                if v0 < best0:
                    best0 = v0
                v1 = min(acc1[i - d] + r[d], acc[i - d] + g[d])
                if v1 < best1:
                    best1 = v1
            tmp[i] = best0
            tmp1[i] = best1
        for i in range(b + 1):
            acc[i] = tmp[i]
            acc1[i] = tmp1[i]
    return acc1[b]


# ---------------------------------------------------------------------------- one copy each
# A hand holding at most one copy of each natural card (every hand of one deck) takes the search
# of evaluate() over 13-bit suit masks, lean. A rank's set options depend only on the suits it
# holds (4 bits) and on whether the hand has a wild card, so they are a table.


def _set_option_tables():
    """(count, takes, wilds needed, size) of the set options of a rank by the suits it holds
    (``held``, 4 bits; a take has bit ``s`` for suit ``s``) with no wild / some wild: option 0
    is "no set", then every sub-set of ``held`` big enough (3 cards or more with no wild, 2 or
    more with one), in the order evaluate() tries them (suit 0's card first, as its loops over
    the count taken of each suit run), so that both find the same arrangement among equals."""
    count = np.ones((2, 16), np.int64)
    takes = np.zeros((2, 16, 16), np.int64)
    for wild in range(2):
        least = 2 if wild else 3
        for held in range(16):
            k = 1
            for order in range(1, 16):  # bits t0 t1 t2 t3, t3 lowest: evaluate()'s loops
                take = sum(1 << s for s in range(4) if order >> (3 - s) & 1)
                if take & ~held == 0 and bin(take).count("1") >= least:
                    takes[wild, held, k] = take
                    k += 1
            count[wild, held] = k
    size = np.array([bin(t).count("1") for t in range(16)], np.int64)
    return count, takes, np.maximum(3 - size, 0) * (size > 0), size


OPT_COUNT, OPT_TAKE, OPT_WILDS, TAKE_SIZE = _set_option_tables()

# The lean search's arrays in the workspace: the places evaluate() keeps the same things in, so
# no caller's data there is overwritten that evaluate() would not overwrite too.
L_ACC = W_SCRATCH + 8  # 96: a convolution's totals by wilds
L_ACCMD = W_SCRATCH + 200  # 96: its costliest deadwood card by wilds (lex)
L_TMPMD = W_SCRATCH + 296  # 96: (lex)
L_ALLOC = W_SCRATCH + 392  # 4: the wilds of each suit in the convolution's best (lex)
L_BEST_ALLOC = W_SCRATCH + 396  # 4: the same for the best arrangement found (lex)
L_BEST_MASK = W_SCRATCH + 400  # 4: the suit masks left for runs in it (lex)
L_RANK = W_SCRATCH + 404  # 13: the set ranks
L_HELD = W_SCRATCH + 420  # 13: the suits each holds
L_IDX = W_SCRATCH + 436  # 13: the option tried, by depth
L_BEST_IDX = W_SCRATCH + 452  # 13: the options of the best arrangement found (lex)
L_BOUND = W_SCRATCH + 468  # 96: the totals of the whole suits, by wilds
L_FUT = W_SCRATCH + 1600  # 14 x 16: the most points the set ranks from j on can take
L_D = W_SCRATCH + 580  # 14: wilds the sets need, by depth
L_S = W_SCRATCH + 596  # 14: points of the set cards, by depth
L_CUR = W_SCRATCH + 670  # 14: the suits left for runs, valued with the wilds left, by depth
L_TMP = W_SCRATCH + 3400  # 500: a convolution's scratch and traceback (lex)
L_MASK = W_SCRATCH + 3904  # 56: the four suit masks, by depth


@njit(cache=True, inline="always")
def _wilds_meld_alone(W, M, J, all_wild):
    """With no natural meld: whether the wild cards leave no deadwood, melding by themselves
    (a set of the wild rank: one wild-rank card, natural there, and any others, three cards or
    more; with ``all_wild_melds``, three jokers or more) or being none."""
    return W == 0 or (M >= 1 and W >= 3) or (all_wild and J >= 3)


@njit(cache=True, inline="always")
def _conv_masks(TT, m0, m1, m2, m3, b, ws, at, every):
    """:func:`_conv` of the rows of four suit masks, in place in ``ws[at:]``."""
    return _conv(TT[m0, 0], TT[m1, 0], TT[m2, 0], TT[m3, 0], b, ws[at : at + 96], every)


@njit(cache=True, inline="always")
def _conv_lex_masks(TT, ws, at, b):
    """:func:`_conv_lex` of the suit masks ``ws[at:at + 4]`` at ``b`` wilds: (points, costliest
    deadwood card); the wilds of each suit in ``ws[L_ALLOC:]``."""
    m0 = ws[at]
    m1 = ws[at + 1]
    m2 = ws[at + 2]
    m3 = ws[at + 3]
    v = _conv_lex(
        TT[m0, 0],
        TT[m1, 0],
        TT[m2, 0],
        TT[m3, 0],
        TT[m0, 1],
        TT[m1, 1],
        TT[m2, 1],
        TT[m3, 1],
        b,
        ws[L_ACC : L_ACC + 96],
        ws[L_ACCMD : L_ACCMD + 96],
        ws[L_TMP : L_TMP + 500],
        ws[L_TMPMD : L_TMPMD + 96],
        ws[L_ALLOC : L_ALLOC + 4],
    )
    return v, ws[L_ACCMD + b]


@njit(cache=True)
def evaluate_one(counts, w, par, TT, ws, limit, lex):
    """:func:`evaluate` in mode ``lex`` 0, 1 or 2 of a hand holding at most one copy of each
    natural card, with the same results (the same arrangement among equals: the same options
    in the same order, the same bounds); -2 for any other hand (the caller runs
    :func:`evaluate`), -3 for a hand of more than ``limit`` cards."""
    par, TT, ws = _bare(par), _bare(TT), _bare(ws)
    J = np.int64(counts[52])
    M = np.int64(counts[w]) + counts[13 + w] + counts[26 + w] + counts[39 + w]
    cards = J
    all_nat = np.int64(0)
    many = np.int64(0)
    maxpos = 0
    for s in range(4):  # no branch on the cards: they are random
        base = 13 * s
        m = np.int64(0)
        for p in range(13):
            if p != w:
                k = np.int64(counts[base + p])
                many |= k
                m |= np.int64(k != 0) << p
                all_nat += k * par[p]
        ws[L_MASK + s] = m
        maxpos = max(maxpos, _popcount13(m))
        cards += _popcount13(m)
    if many > 1:
        return -2
    cards += M
    W = J + M
    if W > MAX_WILDS:
        return -2
    if cards > limit:
        return -3
    m0 = ws[L_MASK]
    m1 = ws[L_MASK + 1]
    m2 = ws[L_MASK + 2]
    m3 = ws[L_MASK + 3]
    wild = 1 if W > 0 else 0
    # The set ranks, lowest first: two suits or more with a wild, three or more without
    # (bit-parallel over the ranks; the masks hold no wild-rank card).
    if wild:
        ranks = (m0 & m1) | (m2 & m3) | ((m0 | m1) & (m2 | m3))
    else:
        ranks = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    nr = 0
    while ranks:
        p = _tz(ranks)
        ranks &= ranks - 1
        ws[L_RANK + nr] = p
        ws[L_HELD + nr] = (
            ((m0 >> p) & 1) | ((m1 >> p) & 1) << 1 | ((m2 >> p) & 1) << 2 | ((m3 >> p) & 1) << 3
        )
        nr += 1
    best_md = np.int64(0)
    if not lex:  # with set ranks, the bound at every budget too
        best = _conv_masks(TT, m0, m1, m2, m3, W, ws, L_BOUND, nr > 0)
    else:
        if nr:
            _conv_masks(TT, m0, m1, m2, m3, W, ws, L_BOUND, True)
        best, best_md = _conv_lex_masks(TT, ws, L_MASK, W)
        for s in range(4):
            ws[L_BEST_ALLOC + s] = ws[L_ALLOC + s]
            ws[L_BEST_MASK + s] = ws[L_MASK + s]
    has_set = False
    nsets = 0
    best_D = 0
    if nr:
        # The most points the set ranks from j on can take with at most k wilds: fut[j, k]
        # for k = 0..min(W, 12), by a knapsack (a pair takes a wild, three cards or more take
        # none), and fut[j, 15], every card of those ranks: what they take with 12 wilds or
        # more (there are 12 pairs at most), and evaluate()'s bound, which the
        # lexicographic modes keep so as to prune as it does (see below).
        K = min(W, 12)
        for k in range(K + 1):
            ws[L_FUT + 16 * nr + k] = 0
        ws[L_FUT + 16 * nr + 15] = 0
        for j in range(nr - 1, -1, -1):
            size = TAKE_SIZE[ws[L_HELD + j]]
            q = size * par[ws[L_RANK + j]]
            at = L_FUT + 16 * j
            ws[at + 15] = ws[at + 31] + q
            if size >= 3:
                for k in range(K + 1):
                    ws[at + k] = ws[at + 16 + k] + q
            else:
                ws[at] = ws[at + 16]
                for k in range(1, K + 1):
                    ws[at + k] = max(ws[at + 16 + k], ws[at + 16 + k - 1] + q)
        ws[L_D] = 0
        ws[L_S] = 0
        ws[L_CUR] = best  # every suit for runs, every wild: the value with no set
        ws[L_IDX] = -1
        j = 0
        nodes = 0
        while j >= 0:
            o = ws[L_IDX + j] + 1
            ws[L_IDX + j] = o
            held = ws[L_HELD + j]
            if o >= OPT_COUNT[wild, held]:
                j -= 1
                continue
            nodes += 1
            if nodes > MAX_NODES:
                return -1
            take = OPT_TAKE[wild, held, o]
            D = ws[L_D + j] + OPT_WILDS[take]
            p = ws[L_RANK + j]
            sp = ws[L_S + j] + TAKE_SIZE[take] * par[p]
            if D > W:
                continue
            here = L_MASK + 4 * j
            keep = ~(np.int64(1) << p)
            for s in range(4):
                m = ws[here + s]
                ws[here + 4 + s] = m & keep if (take >> s) & 1 else m
            # cur: the suits left for runs with the wilds left (the leaf's value when no more
            # sets are chosen). A leaf below keeps at least cur less the points the sets below
            # can take with those wilds: it cannot win when that is not below the best. The
            # lexicographic modes find the arrangement evaluate() finds: they skip what it
            # skips (with its bound: the whole suits less the set cards, and every card of the
            # ranks below, at a bound equal to the best) and else only what holds no leaf even
            # equal to the best (it would reject them all).
            if take:
                at = here + 4
                cur = _conv_masks(
                    TT, ws[at], ws[at + 1], ws[at + 2], ws[at + 3], W - D, ws, L_ACC, False
                )
            else:
                cur = ws[L_CUR + j]
            tight = cur - ws[L_FUT + 16 * (j + 1) + (W - D if W - D <= 12 else 15)]
            if tight > best or (tight == best and not lex):
                continue
            if lex and ws[L_BOUND + W - D] - sp - ws[L_FUT + 16 * (j + 1) + 15] >= best:
                continue
            ws[L_CUR + j + 1] = cur
            ws[L_D + j + 1] = D
            ws[L_S + j + 1] = sp
            if j + 1 < nr:
                j += 1
                ws[L_IDX + j] = -1
                continue
            if sp == 0:
                continue  # no set at all: done above
            leaf = here + 4
            if not lex:  # cur < best: it wins
                best = cur
                has_set = True
                continue
            v, md = _conv_lex_masks(TT, ws, leaf, W - D)
            if _better(v, md, best, best_md):
                best = v
                best_md = md
                has_set = True
                best_D = D
                nsets = 0
                for jj in range(nr):
                    ws[L_BEST_IDX + jj] = ws[L_IDX + jj]
                    if ws[L_IDX + jj]:
                        nsets += 1
                for s in range(4):
                    ws[L_BEST_ALLOC + s] = ws[L_ALLOC + s]
                    ws[L_BEST_MASK + s] = ws[leaf + s]
    meld = best < all_nat
    if meld:
        # As in evaluate(): every spare wild joins a meld, sure when a set is chosen or no
        # suit holds more than top - W natural positions.
        if W > 0 and not has_set and maxpos > par[P_TOP] - W:
            return -1
        if not lex:
            return best
        value = best
        wild_dead = False
    else:
        meld_alone = _wilds_meld_alone(W, M, J, par[P_ALL_WILD])
        value = all_nat if meld_alone else all_nat + J * par[52] + M * par[w]
        if not lex:
            return value
        # the costliest deadwood card: every natural card, and the wild ones if they are dead
        best_md = -1
        for s in range(4):
            m = ws[L_MASK + s]
            while m:
                best_md = max(best_md, par[_tz(m)])
                m &= m - 1
        wild_dead = not meld_alone
        if wild_dead:
            if J and par[52] > best_md:
                best_md = par[52]
            if M and par[w] > best_md:
                best_md = par[w]
        nsets = 0
        best_D = 0
    ws[W_MD] = best_md
    if lex > 1:
        # the plan, as evaluate() leaves it: sets, the suits' runs, the deadwood
        ws[W_NSETS] = nsets
        ws[W_D] = best_D
        n = 0
        if meld and has_set:
            for jj in range(nr):
                o = ws[L_BEST_IDX + jj]
                if o:
                    ws[W_SETS + 2 * n] = ws[L_RANK + jj]
                    ws[W_SETS + 2 * n + 1] = FIELD_CODE[OPT_TAKE[wild, ws[L_HELD + jj], o]]
                    n += 1
        ws[W_ALLNAT] = all_nat
        ws[W_CARDS] = cards
        ndead = 0
        for s in range(4):
            if meld:
                m = ws[L_BEST_MASK + s]
                d = ws[L_BEST_ALLOC + s]
                left = np.int64(TT[m, 2, min(d, NB - 1)])
            else:
                m = ws[L_MASK + s]
                d = 0
                left = m
            ws[W_SUITS + 2 * s] = _code_of(m)
            ws[W_SUITS + 2 * s + 1] = d
            ws[W_DEADCODE + s] = _code_of(left)
            ndead += _popcount13(left)
            for p in range(13):
                ws[W_DEAD + 13 * s + p] = (left >> p) & 1
        ws[W_NDEAD] = ndead
        ws[W_DEAD + 52] = 0
        if wild_dead:
            ws[W_DEAD + 52] = J
            for s in range(4):
                ws[W_DEAD + 13 * s + w] = counts[13 * s + w]
    return value


# ---------------------------------------------------------------------------- the hand
@njit(cache=True)
def evaluate(counts, w, par, TT, mkeys, mv, mdw, ws, wr, lex):
    """Fewest penalty of the hand (53 counts) with no cap on wilds per meld; -1 when this
    method cannot certify it (the caller then runs the exact search in Python).

    ``lex`` 0: points only. 1: also the costliest deadwood card of the best arrangements
    (``ws[W_MD]``). 2: also that arrangement: its deadwood (``ws[W_DEAD:]``, 53 counts), its
    sets and the suits' codes and budgets left for runs (``ws[W_SETS:]``, ``ws[W_SUITS:]``).
    3 (*drop*): the fewest penalty of the hand less one natural card, the best one to drop
    (INF when it holds none): an arrangement of the hand less ``k`` is one of the hand with
    ``k`` left out, so the suits' drop rows (:func:`drop_row`) replace one suit's row.
    Modes 0 to 2 of a hand with one copy of each natural card take :func:`evaluate_one`
    (unless :data:`GENERAL` is added to the mode).
    """
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    ws, wr = _bare(ws), _bare(wr)
    if lex & GENERAL:
        lex &= ~GENERAL
    elif lex < 3:
        value = evaluate_one(counts, w, par, TT, ws, MAX_CARDS, lex)
        if value != -2:
            return value
    J = np.int64(counts[52])
    M = np.int64(counts[w]) + counts[13 + w] + counts[26 + w] + counts[39 + w]
    W = J + M
    if W > MAX_WILDS:
        return -1
    top = par[P_TOP]
    sc = ws[W_SCRATCH:]
    codes = sc[0:4]
    masks = sc[4:8]
    all_nat = np.int64(0)
    nat_md = -1
    maxpos = 0
    multi = False
    cards = W
    for s in range(4):
        c = np.int64(0)
        m = 0
        npos = 0
        base = s * 13
        for p in range(13):
            k = counts[base + p]
            if k and p != w:
                if k > 7:
                    return -1
                c |= np.int64(k) << (3 * p)
                m |= 1 << p
                all_nat += k * par[p]
                cards += k
                if par[p] > nat_md:
                    nat_md = par[p]
                npos += 1
        if c & HI_FIELDS:
            multi = True
            if top == 14 and w != 0 and counts[base] >= 2:
                npos += 1
        codes[s] = c
        masks[s] = m
        if npos > maxpos:
            maxpos = npos
    if cards > MAX_CARDS:
        return -3  # refused (the Python side says why)
    V = wr[0]  # (8, NB): rows 0..3, the suits as they are; 4..7, at a leaf of the search
    MDr = wr[1]
    DWr = wr[2]
    Gr = wr[3]  # drop rows (lex 3)
    drop = lex == 3
    for s in range(4):
        if multi:
            suit_row(codes[s], par, TT, mkeys, mv, mdw, V[s], MDr[s], DWr[s])
            if drop:
                drop_row(codes[s], par, TT, mkeys, mv, mdw, Gr[s], MDr[4], DWr[4], DWr[5])
        elif lex:
            m = masks[s]
            for d in range(NB):
                V[s, d] = TT[m, 0, d]
                MDr[s, d] = TT[m, 1, d]
                Gr[s, d] = TT[m, 3, d]
    acc = sc[8:104]
    tmp = sc[3400:3900]  # also holds _conv_lex's traceback
    accmd = sc[200:296]
    tmpmd = sc[296:392]
    alloc = sc[392:396]
    best_alloc = sc[396:400]
    best_codes = sc[400:404]
    if drop:
        best = _conv_drop(
            V[0], V[1], V[2], V[3], Gr[0], Gr[1], Gr[2], Gr[3], W, acc, accmd, tmp, tmpmd
        )
        best_md = 0
    elif lex:
        best = _conv_lex(
            V[0], V[1], V[2], V[3], MDr[0], MDr[1], MDr[2], MDr[3], W, acc, accmd, tmp, tmpmd, alloc
        )
        best_md = accmd[W]
        for s in range(4):
            best_alloc[s] = alloc[s]
            best_codes[s] = codes[s]
    elif multi:
        best = _conv(V[0], V[1], V[2], V[3], W, acc, False)
        best_md = 0
    else:
        best = _conv(
            TT[masks[0], 0], TT[masks[1], 0], TT[masks[2], 0], TT[masks[3], 0], W, acc, False
        )
        best_md = 0
    best_D = 0
    nsets = 0
    # Ranks that can hold a set: 2 natural cards or more (3 or more with no wilds).
    minsize = 2 if W > 0 else 3
    ranks = sc[404:417]
    nopt = sc[420:433]
    idx = sc[436:449]
    best_idx = sc[452:465]
    bound = sc[468:564]
    futmax = sc[564:578]
    stD = sc[580:594]
    stS = sc[596:610]
    stC = sc[612 : 612 + 14 * 4]  # stC[4 * j + s]: suit s's code at depth j
    stM = sc[3904 : 3904 + 14 * 4]  # the same as a 13-bit mask (one copy per card)
    optD = sc[700 : 700 + 13 * MAX_OPTIONS]  # optD[MAX_OPTIONS * j + o]: option o of rank j
    optS = sc[1600 : 1600 + 13 * MAX_OPTIONS]
    optT = sc[2500 : 2500 + 13 * MAX_OPTIONS]
    nr = 0
    for p in range(13):
        if p == w:
            continue
        sh = 3 * p
        c0 = (codes[0] >> sh) & 7
        c1 = (codes[1] >> sh) & 7
        c2 = (codes[2] >> sh) & 7
        c3 = (codes[3] >> sh) & 7
        if c0 + c1 + c2 + c3 < minsize:
            continue
        if (c0 + 1) * (c1 + 1) * (c2 + 1) * (c3 + 1) > MAX_OPTIONS:
            return -1
        k = 1
        optD[MAX_OPTIONS * nr + 0] = 0
        optS[MAX_OPTIONS * nr + 0] = 0
        optT[MAX_OPTIONS * nr + 0] = 0
        for t0 in range(c0 + 1):
            for t1 in range(c1 + 1):
                for t2 in range(c2 + 1):
                    for t3 in range(c3 + 1):
                        size = t0 + t1 + t2 + t3
                        if size < minsize or (size < 3 and 3 - size > W):
                            continue
                        optD[MAX_OPTIONS * nr + k] = 3 - size if size < 3 else 0
                        optS[MAX_OPTIONS * nr + k] = size * par[p]
                        optT[MAX_OPTIONS * nr + k] = t0 | (t1 << 3) | (t2 << 6) | (t3 << 9)
                        k += 1
        ranks[nr] = p
        nopt[nr] = k
        nr += 1
    best_has_set = False
    if nr:
        # the bound: the suits as they are, at every budget (one convolution)
        if drop:
            for b in range(W + 1):
                bound[b] = _conv_drop(
                    V[0], V[1], V[2], V[3], Gr[0], Gr[1], Gr[2], Gr[3], b, acc, accmd, tmp, tmpmd
                )
        elif multi or lex:
            _conv(V[0], V[1], V[2], V[3], W, bound, True)
        else:
            _conv(
                TT[masks[0], 0], TT[masks[1], 0], TT[masks[2], 0], TT[masks[3], 0], W, bound, True
            )
        futmax[nr] = 0
        for j in range(nr - 1, -1, -1):
            mx = 0
            for o in range(nopt[j]):
                mx = max(mx, optS[MAX_OPTIONS * j + o])
            futmax[j] = futmax[j + 1] + mx
        # Depth-first over the set ranks, one option each ("no set" first); level j holds
        # the wilds needed, the points of the set cards and the suits left after ranks < j.
        # The lexicographic modes also skip a bound equal to the best (points only keep it):
        # among arrangements of equal points the costliest deadwood card is then the best of
        # those met, not always of all. Harmless (every use of it stays exact), and the
        # arrangement solve() lays down depends on it, so it stays (the lean search prunes
        # alike, see evaluate_one).
        slack = 1 if lex and not drop else 0
        stD[0] = 0
        stS[0] = 0
        for s in range(4):
            stC[4 * (0) + s] = codes[s]
            stM[4 * (0) + s] = masks[s]
        idx[0] = -1
        j = 0
        nodes = 0
        while j >= 0:
            idx[j] += 1
            o = idx[j]
            if o >= nopt[j]:
                j -= 1
                continue
            nodes += 1
            if nodes > MAX_NODES:
                return -1
            D = stD[j] + optD[MAX_OPTIONS * j + o]
            sp = stS[j] + optS[MAX_OPTIONS * j + o]
            if D > W or bound[W - D] - sp - futmax[j + 1] + slack > best:
                continue
            t = optT[MAX_OPTIONS * j + o]
            p = ranks[j]
            for s in range(4):
                ts = (t >> (3 * s)) & 7
                stC[4 * (j + 1) + s] = stC[4 * (j) + s] - (ts << (3 * p))
                stM[4 * (j + 1) + s] = stM[4 * (j) + s] & ~(1 << p) if ts else stM[4 * (j) + s]
            stD[j + 1] = D
            stS[j + 1] = sp
            if j + 1 < nr:
                j += 1
                idx[j] = -1
                continue
            if sp == 0 or bound[W - D] - sp + slack > best:
                continue  # no set at all (done above), or hopeless
            if not lex and not multi:
                leaf = 4 * nr
                v = _conv(
                    TT[stM[leaf], 0],
                    TT[stM[leaf + 1], 0],
                    TT[stM[leaf + 2], 0],
                    TT[stM[leaf + 3], 0],
                    W - D,
                    acc,
                    False,
                )
                if v < best:
                    best = v
                    best_has_set = True
                continue
            for s in range(4):
                if stC[4 * (nr) + s] == codes[s]:
                    for d in range(NB):
                        V[4 + s, d] = V[s, d]
                        MDr[4 + s, d] = MDr[s, d]
                        Gr[4 + s, d] = Gr[s, d]
                elif multi:
                    suit_row(
                        stC[4 * (nr) + s], par, TT, mkeys, mv, mdw, V[4 + s], MDr[4 + s], DWr[4 + s]
                    )
                    if drop:
                        drop_row(
                            stC[4 * (nr) + s],
                            par,
                            TT,
                            mkeys,
                            mv,
                            mdw,
                            Gr[4 + s],
                            MDr[0],
                            DWr[0],
                            DWr[1],
                        )
                else:
                    m = stM[4 * (nr) + s]
                    for d in range(NB):
                        V[4 + s, d] = TT[m, 0, d]
                        MDr[4 + s, d] = TT[m, 1, d]
                        Gr[4 + s, d] = TT[m, 3, d]
            if drop:
                v = _conv_drop(
                    V[4],
                    V[5],
                    V[6],
                    V[7],
                    Gr[4],
                    Gr[5],
                    Gr[6],
                    Gr[7],
                    W - D,
                    acc,
                    accmd,
                    tmp,
                    tmpmd,
                )
                md = 0
                win = v < best
            elif lex:
                v = _conv_lex(
                    V[4],
                    V[5],
                    V[6],
                    V[7],
                    MDr[4],
                    MDr[5],
                    MDr[6],
                    MDr[7],
                    W - D,
                    acc,
                    accmd,
                    tmp,
                    tmpmd,
                    alloc,
                )
                md = accmd[W - D]
                win = _better(v, md, best, best_md)
            else:
                v = _conv(V[4], V[5], V[6], V[7], W - D, acc, False)
                md = 0
                win = v < best
            if win:
                best = v
                best_md = md
                best_has_set = True
                best_D = D
                nsets = 0
                for jj in range(nr):
                    best_idx[jj] = idx[jj]
                    if idx[jj]:
                        nsets += 1
                for s in range(4):
                    best_alloc[s] = alloc[s]
                    best_codes[s] = stC[4 * (nr) + s]
    if drop:
        # One natural card dropped: an arrangement with a meld and a card to drop leaves less
        # than all the natural cards less the costliest (what no meld leaves).
        if nat_md < 0:
            return INF
        if best < all_nat - nat_md:
            if W > 0 and not best_has_set and maxpos > top - W:
                return -1
            return best
        if _wilds_meld_alone(W, M, J, par[P_ALL_WILD]):
            return all_nat - nat_md
        return all_nat - nat_md + J * par[52] + M * par[w]
    meld = best < all_nat
    wild_dead = False
    if meld:
        # Some meld of natural cards exists; with no cap every spare wild joins one, provided
        # a set is chosen or a run has room: sure when no suit holds more than top - W
        # natural positions (a run of n naturals needs <= D gap wilds, has top - n - D room).
        if W > 0 and not best_has_set and maxpos > top - W:
            return -1
        value = best
    else:
        # No natural meld: the wilds alone (a set of the wild rank; jokers with all_wild).
        value = all_nat
        best_md = nat_md
        nsets = 0
        best_D = 0
        wild_dead = not _wilds_meld_alone(W, M, J, par[P_ALL_WILD])
        if wild_dead:
            value += J * par[52] + M * par[w]
            if J and par[52] > best_md:
                best_md = par[52]
            if M and par[w] > best_md:
                best_md = par[w]
    ws[W_MD] = best_md
    if lex > 1:
        ws[W_NSETS] = nsets
        ws[W_D] = best_D
        n = 0
        if meld and best_has_set:
            for jj in range(nr):
                if best_idx[jj]:
                    ws[W_SETS + 2 * n] = ranks[jj]
                    ws[W_SETS + 2 * n + 1] = optT[MAX_OPTIONS * jj + best_idx[jj]]
                    n += 1
        dead = ws[W_DEAD : W_DEAD + 53]
        for k in range(53):
            dead[k] = 0
        ws[W_ALLNAT] = all_nat
        ws[W_CARDS] = cards
        ndead = 0
        for s in range(4):
            if meld:
                code = best_codes[s]
                d = best_alloc[s]
                suit_row(code, par, TT, mkeys, mv, mdw, V[4 + s], MDr[4 + s], DWr[4 + s])
                left = DWr[4 + s, min(d, NB - 1)]
            else:
                code = codes[s]
                d = 0
                left = code
            ws[W_SUITS + 2 * s] = code
            ws[W_SUITS + 2 * s + 1] = d
            ws[W_DEADCODE + s] = left
            for p in range(13):
                dead[s * 13 + p] = (left >> (3 * p)) & 7
                ndead += dead[s * 13 + p]
        ws[W_NDEAD] = ndead
        if wild_dead:
            dead[52] = J
            for s in range(4):
                dead[s * 13 + w] = counts[s * 13 + w]
    return value


# ---------------------------------------------------------------------------- more than one
@njit(cache=True)
def discard_values(counts, w, par, TT, mkeys, mv, mdw, ws, wr, out):
    """``out[k]``: the fewest penalty of the hand without one card of kind ``k``, for every
    kind held (-2 for kinds not held, -1 where the kernel cannot certify it). A card that is
    deadwood in a best arrangement needs no search: dropping it saves exactly its penalty
    (no arrangement without it does better, since adding it back as deadwood costs only
    that). Returns the hand's own value (or -1); ``ws[W_UNSURE]``: how many entries are -1."""
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    ws, wr = _bare(ws), _bare(wr)
    value = evaluate(counts, w, par, TT, mkeys, mv, mdw, ws, wr, 2)
    for k in range(53):
        out[k] = -2
    ws[W_UNSURE] = 0
    if value < 0:
        for k in range(53):
            if counts[k]:
                out[k] = -1
                ws[W_UNSURE] += 1
        return value
    less = ws[W_SCRATCH + 7000 : W_SCRATCH + 7053]
    for k in range(53):
        less[k] = ws[W_DEAD + k]  # the deadwood, before evaluate() below overwrites it
    hand = np.empty(53, np.uint8)
    for k in range(53):
        hand[k] = counts[k]
    for k in range(53):
        if not counts[k]:
            continue
        if less[k]:
            out[k] = value - par[k]
        else:
            hand[k] -= 1
            out[k] = evaluate(hand, w, par, TT, mkeys, mv, mdw, ws, wr, 0)
            hand[k] += 1
            if out[k] < 0:
                ws[W_UNSURE] += 1
    return value


@njit(cache=True)
def _row_at(code, d, par, TT, mkeys, mv, mdw, cv, cmd, cdw):
    """(points, costliest deadwood) of one suit's row at budget ``d``: read from the table
    when the suit holds one copy of each card, else through the memo."""
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    if code & HI_FIELDS == 0:
        m = _mask_of(code)
        return np.int64(TT[m, 0, d]), np.int64(TT[m, 1, d])
    suit_row(code, par, TT, mkeys, mv, mdw, cv, cmd, cdw)
    return cv[d], cmd[d]


@njit(cache=True, inline="always")
def _found_run(out, at, nruns, i, h, sub, lo, n):
    """Record a run of the walk: its lowest card at index ``i`` (head ``h``, as
    :func:`_run_span`), ``sub`` the bits above it, ``lo`` wilds needed, ``n`` naturals."""
    places = sub << (i + 1)
    if h == 0:
        places |= 1 << i
    elif h == 1:
        places |= 1 << 13
    else:
        places |= 1 | (1 << 13)
    out[at + 3 * nruns] = places
    out[at + 3 * nruns + 1] = lo
    out[at + 3 * nruns + 2] = n
    return nruns + 1


@njit(cache=True, inline="always")
def _suit_runs_one(m, d, par, TT, out, at):
    """:func:`suit_runs` of a suit holding one copy of each card (13-bit ``m``): the same walk
    over the mask, read from the tables (every hand of one deck takes it; the walk over 3-bit
    counts costs a solve() about a fifth more). The table's deadwood ``DW`` tells which cards
    the walk finds to be deadwood (the table kept the first best option in the walk's order,
    and its deadwood with it), so a run is looked for among the other cards only."""
    top = par[P_TOP]
    dead = np.int64(TT[m, 2, d])  # also the deadwood of what is left after each run
    nruns = 0
    while m:
        i = _tz(m)
        rest = m & (m - 1)
        if (dead >> i) & 1:
            m = rest  # the lowest card is deadwood
            continue
        tv = TT[m, 0, d]
        tmd = TT[m, 1, d]
        above = (rest & ~dead) >> (i + 1)
        found = False
        for h in range(2 if (i == 0 and top == 14) else 1):
            sub = above
            while True:
                low, high, n = _run_span(i, h, sub)
                span = high - low + 1
                lo = max(3, span) - n
                if span <= top and lo <= d:
                    nxt = rest & ~(sub << (i + 1))
                    if TT[nxt, 0, d - lo] == tv and TT[nxt, 1, d - lo] == tmd:
                        nruns = _found_run(out, at, nruns, i, h, sub, lo, n)
                        m = nxt
                        d -= lo
                        found = True
                        break
                if sub == 0:
                    break
                sub = (sub - 1) & above
            if found:
                break
        if not found:
            return -1  # unreachable: the row was computed by these very options
    return nruns


@njit(cache=True, inline="always")
def suit_runs(code, d, par, TT, mkeys, mv, mdw, out, at, wr):
    """The runs of one suit's best arrangement at budget ``d`` (as :func:`evaluate` chose it):
    ``out[at + 3r : at + 3r + 3] = (natural positions as bits 0..13 for positions 1..14, wilds
    needed, naturals)``; returns the number of runs (``wr[3]``: scratch rows)."""
    d = min(d, NB - 1)
    if code & HI_FIELDS == 0:
        return _suit_runs_one(_mask_of(code), d, par, TT, out, at)
    top = par[P_TOP]
    cv = wr[3, 0]
    cmd = wr[3, 1]
    cdw = wr[3, 2]
    nruns = 0
    while code:
        tv, tmd = _row_at(code, d, par, TT, mkeys, mv, mdw, cv, cmd, cdw)
        i = 0
        while not (code >> (3 * i)) & 7:
            i += 1
        c0 = (code >> (3 * i)) & 7
        rest = code - (1 << (3 * i))
        rv, rmd = _row_at(rest, d, par, TT, mkeys, mv, mdw, cv, cmd, cdw)
        if par[i] + rv == tv and max(par[i], rmd) == tmd:
            code = rest  # the lowest card is deadwood
            continue
        above = 0
        for p in range(i + 1, 13):
            if (rest >> (3 * p)) & 7:
                above |= 1 << (p - i - 1)
        nheads = 1
        if i == 0 and top == 14:
            nheads = 3 if c0 >= 2 else 2
        found = False
        for h in range(nheads):
            sub = above
            while True:
                low, high, n = _run_span(i, h, sub)
                span = high - low + 1
                lo = max(3, span) - n
                if span <= top and lo <= d:
                    nxt = rest - (1 if h == 2 else 0)
                    x = sub
                    while x:
                        nxt -= np.int64(1) << (3 * (_tz(x) + i + 1))
                        x &= x - 1
                    nv, nmd = _row_at(nxt, d - lo, par, TT, mkeys, mv, mdw, cv, cmd, cdw)
                    if nv == tv and nmd == tmd:
                        nruns = _found_run(out, at, nruns, i, h, sub, lo, n)
                        code = nxt
                        d -= lo
                        found = True
                        break
                if sub == 0:
                    break
                sub = (sub - 1) & above
            if found:
                break
        if not found:
            return -1  # unreachable: the row was computed by these very options
    return nruns


@njit(cache=True)
def _can_meld(x, b, w, top, W):
    """Whether the natural card kind ``x`` can be in any meld of the hand ``b + x`` (53
    counts; ``W`` wild cards in b). If not, x is deadwood in every arrangement of b + x.

    A set holding x needs two more cards of its rank, naturals or wilds; a run holding x and
    at most one wild has another natural of its suit within two places, and one with no wild
    three consecutive naturals; two wilds meld any card."""
    if W >= 2:
        return True
    s = x // 13
    p = x % 13
    n = 0
    for t in range(4):
        if p != w:
            n += b[t * 13 + p]
    if n + W >= 2:
        return True
    # suited naturals at positions 1..14 (an ace also at 14 with aces high)
    near = 0
    for q in range(13):
        if q != w and b[s * 13 + q]:
            near |= 1 << (q + 1)
            if q == 0 and top == 14:
                near |= 1 << 14
    places = 1 << (p + 1)
    if p == 0 and top == 14:
        places |= 1 << 14
    for pos in range(1, 15):
        if not (places >> pos) & 1:
            continue
        if W == 1:
            for dpos in (-2, -1, 1, 2):
                q = pos + dpos
                if 1 <= q <= top and (near >> q) & 1:
                    return True
        else:
            for lowp in (pos - 2, pos - 1, pos):
                if lowp < 1 or lowp + 2 > top:
                    continue
                ok = True
                for q in range(lowp, lowp + 3):
                    if q != pos and not (near >> q) & 1:
                        ok = False
                if ok:
                    return True
    return False


@njit(cache=True)
def after_draw_values(b, weights, w, par, TT, mkeys, mv, mdw, ws, wr, out, dv):
    """For every kind ``x`` with ``weights[x] > 0``: ``out[x]``, the fewest penalty of
    ``b + x`` after its best discard (any card, x itself included). ``dv``: the discard values
    of ``b`` (as :func:`discard_values`). Returns ``b``'s own value; -1 anywhere (value or an
    entry of ``out``) marks what the kernel could not certify.

    A card that cannot meld with ``b`` (see :func:`_can_meld`) is valued in closed form:
    keep it and make b's best discard, or throw it back. For the others one search finds the
    best natural card to drop from ``b + x`` (:func:`evaluate`, mode 3); each wild kind held is
    tried as a discard on its own."""
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    ws, wr = _bare(ws), _bare(wr)
    value = discard_values(b, w, par, TT, mkeys, mv, mdw, ws, wr, dv)
    for k in range(53):
        out[k] = 0
    if value < 0:
        for k in range(53):
            if weights[k] > 0:
                out[k] = -1
        return value
    best_drop = value  # b's best discard, or b itself when it is empty
    exact = True
    first = True
    for k in range(53):
        if dv[k] >= 0:
            if first or dv[k] < best_drop:
                best_drop = dv[k]
                first = False
        elif dv[k] == -1:
            exact = False
    top = par[P_TOP]
    W = np.int64(b[52]) + b[w] + b[13 + w] + b[26 + w] + b[39 + w]
    c = np.empty(53, np.uint8)
    for k in range(53):
        c[k] = b[k]
    # The natural cards that can meld: all at once (one search over b's set choices for the
    # best card to drop, one more per wild kind held for discarding that wild instead).
    xs = np.empty(53, np.int64)
    nx = 0
    for x in range(53):
        if weights[x] > 0 and x != 52 and x % 13 != w:
            if _can_meld(x, b, w, top, W):
                xs[nx] = x
                nx += 1
            else:
                out[x] = min(value, par[x] + best_drop) if exact else -1
    batch = np.full(53, -1, np.int64)
    if nx:
        res = np.empty(53, np.int64)
        if draws_at_once(b, xs, nx, True, w, par, TT, mkeys, mv, mdw, res) == 0:
            for i in range(nx):
                batch[xs[i]] = min(value, res[xs[i]]) if res[xs[i]] >= 0 else -1
            for k in range(53):
                if b[k] and (k == 52 or k % 13 == w):
                    c[k] -= 1
                    ok = draws_at_once(c, xs, nx, False, w, par, TT, mkeys, mv, mdw, res)
                    c[k] += 1
                    for i in range(nx):
                        x = xs[i]
                        if ok != 0 or res[x] < 0:
                            batch[x] = -1
                        elif batch[x] >= 0 and res[x] < batch[x]:
                            batch[x] = res[x]
    for x in range(53):
        if weights[x] <= 0:
            continue
        wild = x == 52 or x % 13 == w
        if not wild and not _can_meld(x, b, w, top, W):
            continue
        if not wild and batch[x] >= 0:
            out[x] = batch[x]
            continue
        c[x] += 1
        # The best discard of b + x: x itself (back to b), the best natural card to drop (one
        # search over the hand less any natural card), or a wild card.
        best = value
        u = evaluate(c, w, par, TT, mkeys, mv, mdw, ws, wr, 3)
        if u < 0:
            out[x] = -1
            c[x] -= 1
            continue
        if u < best:
            best = u
        for k in range(53):
            if c[k] and k != x and (k == 52 or k % 13 == w):
                c[k] -= 1
                u = evaluate(c, w, par, TT, mkeys, mv, mdw, ws, wr, 0)
                c[k] += 1
                if u < 0:
                    best = -1
                    break
                if u < best:
                    best = u
        out[x] = best
        c[x] -= 1
    return value


# ---------------------------------------------------------------------------- every draw at once
@njit(cache=True)
def _vec3(r, skip, B, out, tmp):
    """``out[i]`` for i = 0..B: the fewest total of the rows ``r`` (4, NB) but ``skip``
    sharing i wilds."""
    last = NB - 1
    first = True
    for s in range(4):
        if s == skip:
            continue
        if first:
            for i in range(B + 1):
                out[i] = r[s, min(i, last)]
            first = False
            continue
        for i in range(B + 1):
            best = out[i] + r[s, 0]
            for d in range(1, min(i, last) + 1):
                v = out[i - d] + r[s, d]
                if v < best:
                    best = v
            tmp[i] = best
        for i in range(B + 1):
            out[i] = tmp[i]


@njit(cache=True)
def _vec3_drop(r, g, skip, B, out, out1, tmp, tmp1):
    """Like :func:`_vec3`, with one card dropped from one of the three suits (``out1``)."""
    last = NB - 1
    first = True
    for s in range(4):
        if s == skip:
            continue
        if first:
            for i in range(B + 1):
                out[i] = r[s, min(i, last)]
                out1[i] = g[s, min(i, last)]
            first = False
            continue
        for i in range(B + 1):
            b0 = out[i] + r[s, 0]
            b1 = min(out1[i] + r[s, 0], out[i] + g[s, 0])
            for d in range(1, min(i, last) + 1):
                v0 = out[i - d] + r[s, d]
                if v0 < b0:
                    b0 = v0
                v1 = min(out1[i - d] + r[s, d], out[i - d] + g[s, d])
                if v1 < b1:
                    b1 = v1
            tmp[i] = b0
            tmp1[i] = b1
        for i in range(B + 1):
            out[i] = tmp[i]
            out1[i] = tmp1[i]


@njit(cache=True)
def _leaf_rows(lc, multi, par, TT, mkeys, mv, mdw, rT, rG, dropping, sv, smd, sdw):
    """The rows (and drop rows) of the four suits ``lc`` (codes) into rT, rG (4, NB)."""
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    for s in range(4):
        code = lc[s]
        if multi and code & HI_FIELDS:
            suit_row(code, par, TT, mkeys, mv, mdw, rT[s], smd, sdw)
            if dropping:
                drop_row(code, par, TT, mkeys, mv, mdw, rG[s], sv, smd, sdw)
        else:
            m = _mask_of(code)
            for d in range(NB):
                rT[s, d] = TT[m, 0, d]
                rG[s, d] = TT[m, 3, d]


@njit(cache=True)
def draws_at_once(base, xs, nx, dropping, w, par, TT, mkeys, mv, mdw, res):
    """For each natural kind ``x = xs[i]`` (i < nx): ``res[x]``, the fewest penalty of
    ``base + x`` (``dropping`` False) or of ``base + x`` less its best natural card to drop
    (True: :func:`evaluate` mode 3), all in one pass over base's set choices. Returns 0, or
    -1 when the caller must value the draws one by one (too many set choices); an entry -1
    marks a value this method cannot certify (as :func:`evaluate`).

    Part A: x stands in its suit's row. Each choice of sets of ``base`` (a leaf) is combined
    with every x: the other three suits' rows are convolved once per leaf and suit, so x costs
    one pass over the budgets. Part B: x in a set of its rank with cards of ``base``: the same
    leaves with that rank's options replaced by x's sets, whatever x's suit."""
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    J = np.int64(base[52])
    M = np.int64(base[w]) + base[13 + w] + base[26 + w] + base[39 + w]
    W = J + M
    if W > MAX_WILDS:
        return -1
    top = par[P_TOP]
    codes = np.zeros(4, np.int64)
    npos = np.zeros(4, np.int64)
    all_nat = np.int64(0)
    nat_md = -1
    multi = False
    for s in range(4):
        c = np.int64(0)
        for p in range(13):
            k = base[s * 13 + p]
            if k and p != w:
                if k > 6:
                    return -1
                c |= np.int64(k) << (3 * p)
                all_nat += k * par[p]
                nat_md = max(nat_md, par[p])
                npos[s] += 1
        codes[s] = c
    for i in range(nx):  # x may make a second copy
        x = xs[i]
        if (codes[x // 13] >> (3 * (x % 13))) & 7:
            multi = True
    for s in range(4):
        if codes[s] & HI_FIELDS:
            multi = True
    # Set options of base (as evaluate), and of base + x at x's rank (x in the set).
    minsize = 2 if W > 0 else 3
    ranks = np.empty(13, np.int64)
    optD = np.empty((13, MAX_OPTIONS), np.int64)
    optT = np.empty((13, MAX_OPTIONS), np.int64)
    nr = 0
    rank_of = np.full(13, -1, np.int64)
    for p in range(13):
        if p == w:
            continue
        c0 = (codes[0] >> (3 * p)) & 7
        c1 = (codes[1] >> (3 * p)) & 7
        c2 = (codes[2] >> (3 * p)) & 7
        c3 = (codes[3] >> (3 * p)) & 7
        if c0 + c1 + c2 + c3 == 0:
            continue
        if (c0 + 1) * (c1 + 1) * (c2 + 1) * (c3 + 1) > MAX_OPTIONS:
            return -1
        ranks[nr] = p
        rank_of[p] = nr
        nr += 1
    # optA: the options of base at each rank (none first); optB: with x added (size + 1)
    nA = np.zeros(13, np.int64)
    nB = np.zeros(13, np.int64)
    optDB = np.empty((13, MAX_OPTIONS), np.int64)
    optTB = np.empty((13, MAX_OPTIONS), np.int64)
    for j in range(nr):
        p = ranks[j]
        c0 = (codes[0] >> (3 * p)) & 7
        c1 = (codes[1] >> (3 * p)) & 7
        c2 = (codes[2] >> (3 * p)) & 7
        c3 = (codes[3] >> (3 * p)) & 7
        optD[j, 0] = 0
        optT[j, 0] = 0
        ka = 1
        kb = 0
        for t0 in range(c0 + 1):
            for t1 in range(c1 + 1):
                for t2 in range(c2 + 1):
                    for t3 in range(c3 + 1):
                        size = t0 + t1 + t2 + t3
                        t = t0 | (t1 << 3) | (t2 << 6) | (t3 << 9)
                        if size >= minsize and not (size < 3 and 3 - size > W):
                            optD[j, ka] = 3 - size if size < 3 else 0
                            optT[j, ka] = t
                            ka += 1
                        sb = size + 1
                        if size >= 1 and sb >= minsize and not (sb < 3 and 3 - sb > W):
                            optDB[j, kb] = 3 - sb if sb < 3 else 0
                            optTB[j, kb] = t
                            kb += 1
        nA[j] = ka
        nB[j] = kb
    # Leaves: every choice of base's options (Part A), then per rank with x-sets (Part B).
    best = np.full(53, np.int64(1) << 40)
    hasset = np.zeros(53, np.bool_)
    rT = np.empty((4, NB), np.int64)
    rG = np.empty((4, NB), np.int64)
    xT = np.empty(NB, np.int64)
    xG = np.empty(NB, np.int64)
    sv = np.empty(NB, np.int64)
    smd = np.empty(NB, np.int64)
    sdw = np.empty(NB, np.int64)
    P = np.empty((4, MAX_WILDS + 1), np.int64)
    Q = np.empty((4, MAX_WILDS + 1), np.int64)
    t1 = np.empty(MAX_WILDS + 1, np.int64)
    t2 = np.empty(MAX_WILDS + 1, np.int64)
    lc = np.empty(4, np.int64)
    idx = np.zeros(14, np.int64)
    need_b = np.zeros(13, np.bool_)
    for i in range(nx):
        p = xs[i] % 13
        if rank_of[p] >= 0 and nB[rank_of[p]] > 0:
            need_b[rank_of[p]] = True
    leaves = 0
    for part in range(1 + nr):
        jb = part - 1  # Part B for the rank index jb (Part A: -1)
        if jb >= 0 and not need_b[jb]:
            continue
        for j in range(nr):
            idx[j] = 0
        while True:
            # the leaf idx: options per rank (rank jb from the x-set options)
            D = 0
            has = False
            for s in range(4):
                lc[s] = codes[s]
            ok = True
            for j in range(nr):
                o = idx[j]
                if j == jb:
                    D += optDB[j, o]
                    t = optTB[j, o]
                    has = True
                elif o:
                    D += optD[j, o]
                    t = optT[j, o]
                    has = True
                else:
                    continue
                p = ranks[j]
                for s in range(4):
                    lc[s] -= ((t >> (3 * s)) & 7) << (3 * p)
            if D > W:
                ok = False
            if ok:
                leaves += 1
                if leaves > 4096:
                    return -1
                B = W - D
                _leaf_rows(lc, multi, par, TT, mkeys, mv, mdw, rT, rG, dropping, sv, smd, sdw)
                if jb >= 0:
                    # x in the set: the rows are base's less the set's cards, whatever x is
                    for s in range(4):
                        if s == 0:
                            if dropping:
                                _vec3_drop(rT, rG, -1, B, P[0], Q[0], t1, t2)
                            else:
                                _vec3(rT, -1, B, P[0], t1)
                    v = Q[0, B] if dropping else P[0, B]
                    for i in range(nx):
                        x = xs[i]
                        if rank_of[x % 13] == jb and v < best[x]:
                            best[x] = v
                            hasset[x] = True
                else:
                    for s in range(4):
                        if dropping:
                            _vec3_drop(rT, rG, s, B, P[s], Q[s], t1, t2)
                        else:
                            _vec3(rT, s, B, P[s], t1)
                    for i in range(nx):
                        x = xs[i]
                        s = x // 13
                        p = x % 13
                        code2 = lc[s] + (np.int64(1) << (3 * p))
                        single = code2 & HI_FIELDS == 0
                        if single:
                            m2 = _mask_of(code2)
                        else:
                            suit_row(code2, par, TT, mkeys, mv, mdw, xT, smd, sdw)
                            if dropping:
                                drop_row(code2, par, TT, mkeys, mv, mdw, xG, sv, smd, sdw)
                        v = np.int64(1) << 40
                        for d in range(min(B, NB - 1) + 1):
                            if single:
                                tv = np.int64(TT[m2, 0, d])
                                gv = np.int64(TT[m2, 3, d])
                            else:
                                tv = xT[d]
                                gv = xG[d] if dropping else 0
                            if dropping:
                                u = min(Q[s, B - d] + tv, P[s, B - d] + gv)
                            else:
                                u = P[s, B - d] + tv
                            if u < v:
                                v = u
                        if v < best[x]:
                            best[x] = v
                            hasset[x] = has
            # next leaf
            j = 0
            while j < nr:
                idx[j] += 1
                if idx[j] < (nB[j] if j == jb else nA[j]):
                    break
                idx[j] = 0
                j += 1
            if j == nr:
                break
    # The final rule of evaluate, per x.
    for i in range(nx):
        x = xs[i]
        s = x // 13
        p = x % 13
        nat_x = all_nat + par[x]
        md_x = max(nat_md, par[x])
        pos = npos[s] + (0 if (codes[s] >> (3 * p)) & 7 else 1)
        if top == 14 and w != 0:
            aces = (codes[s] & 7) + (1 if p == 0 else 0)
            if aces >= 2:
                pos += 1
        maxpos = pos
        for t in range(4):
            if (
                t != s
                and npos[t] + (1 if top == 14 and w != 0 and (codes[t] & 7) >= 2 else 0) > maxpos
            ):
                maxpos = npos[t] + (1 if top == 14 and w != 0 and (codes[t] & 7) >= 2 else 0)
        limit = nat_x - md_x if dropping else nat_x
        if best[x] < limit:
            if W > 0 and not hasset[x] and maxpos > top - W:
                res[x] = -1
            else:
                res[x] = best[x]
        elif _wilds_meld_alone(W, M, J, par[P_ALL_WILD]):
            res[x] = limit
        else:
            res[x] = limit + J * par[52] + M * par[w]
    return 0


# ---------------------------------------------------------------------------- the arrangement
ARRANGE_WILDS = W_SCRATCH + 7200  # arrange(): the wild cards to hand out (90 at most)
KINDS_OF_MELD = ("set", "run", "wild")  # a meld key's kind


@njit(cache=True, inline="always")
def _meld_key(kind, rank, suit, low, high, wilds, size):
    """A meld's shape as one integer (see :func:`meld_of_key`)."""
    return kind | rank << 2 | (suit + 1) << 6 | low << 9 | high << 13 | wilds << 17 | size << 24


def meld_of_key(key: int) -> tuple[str, int, int, int, int, int, int]:
    """(kind, rank, suit, low, high, wilds, size) of a meld key written by :func:`arrange`."""
    return (
        KINDS_OF_MELD[key & 3],
        key >> 2 & 15,
        (key >> 6 & 7) - 1,
        key >> 9 & 15,
        key >> 13 & 15,
        key >> 17 & 127,
        key >> 24 & 127,
    )


@njit(cache=True)
def arrange(counts, w, par, TT, mkeys, mv, mdw, ws, wr, out, keys, runs):
    """The best arrangement of ``counts`` spelled out: the melds' cards then the deadwood in
    ``out`` (card kinds; a run in position order), one key per meld in ``keys``
    (:func:`meld_of_key`: its kind, rank, suit, positions, wilds and size). Returns
    ``(melds, cards in melds, deadwood cards, points)``; points -1 when the kernel cannot
    certify the hand.

    The plan is :func:`evaluate`'s (mode 2): its sets, each suit's runs (walked back from the
    suit's table at the budget the plan gave it) and its deadwood. With a natural meld every
    wild card joins one: first the wilds each meld needs (a set to 3 cards, a run's gaps and
    length), then the spare ones to the first set, else to the runs while they have room (the
    kernel checked they have). Without one, the wild cards meld alone when they can (a set of
    the wild rank, or jokers only with ``all_wild_melds``) or are deadwood."""
    par, TT, mkeys, mv, mdw = _bare(par), _bare(TT), _bare(mkeys), _bare(mv), _bare(mdw)
    ws, wr = _bare(ws), _bare(wr)
    value = evaluate(counts, w, par, TT, mkeys, mv, mdw, ws, wr, 2)
    if value < 0:
        return 0, 0, 0, -1
    top = par[P_TOP]
    J = np.int64(counts[52])
    M = np.int64(counts[w]) + counts[13 + w] + counts[26 + w] + counts[39 + w]
    W = J + M
    wilds = ws[ARRANGE_WILDS : ARRANGE_WILDS + W]  # jokers first, then the wild-rank cards
    i = 0
    for _ in range(J):
        wilds[i] = 52
        i += 1
    for s in range(4):
        for _ in range(counts[s * 13 + w]):
            wilds[i] = s * 13 + w
            i += 1
    total = ws[W_CARDS]
    nd = ws[W_NDEAD]  # the natural deadwood (the wild cards are dealt with below)
    meld = value < ws[W_ALLNAT]
    if not meld and not (W and _wilds_meld_alone(W, M, J, par[P_ALL_WILD])):
        nd += W  # no meld at all: the wild cards are deadwood too
    nc = total - nd
    d = nc
    for s in range(4):
        code = ws[W_DEADCODE + s]
        while code:
            p = _tz(code) // 3
            for _ in range((code >> (3 * p)) & 7):
                out[d] = s * 13 + p
                d += 1
            code &= ~(np.int64(7) << (3 * p))
    if not meld:
        if nc:  # the wild cards meld alone
            for j in range(W):
                out[j] = wilds[j]
            if M >= 1:
                keys[0] = _meld_key(0, w + 1, -1, 0, 0, J, W)
            else:
                keys[0] = _meld_key(2, 0, -1, 0, 0, J, W)
            return 1, nc, nd, value
        for j in range(W):
            out[d + j] = wilds[j]
        return 0, 0, nd, value
    # the sets
    nm = 0
    pos = 0
    used = 0  # wild cards handed out
    nsets = ws[W_NSETS]
    first_size = 0
    for i in range(nsets):
        p = ws[W_SETS + 2 * i]
        take = ws[W_SETS + 2 * i + 1]
        start = pos
        for s in range(4):
            for _ in range((take >> (3 * s)) & 7):
                out[pos] = s * 13 + p
                pos += 1
        need = max(0, 3 - (pos - start))
        for _ in range(need):
            out[pos] = wilds[used]
            pos += 1
            used += 1
        if i == 0:
            first_size = pos
        keys[nm] = _meld_key(0, p + 1, -1, 0, 0, need, pos - start)
        nm += 1
    # the runs of each suit, and the wilds they need
    nr = 0
    for s in range(4):
        code = ws[W_SUITS + 2 * s]
        budget = ws[W_SUITS + 2 * s + 1]
        if code == 0:
            continue
        n = suit_runs(code, budget, par, TT, mkeys, mv, mdw, runs, nr * 3, wr)
        for r in range(n):
            runs[(nr + r) * 3 + 2] = runs[(nr + r) * 3 + 2] * 4 + s  # naturals and suit
        nr += n
    need_total = 0
    for r in range(nr):
        need_total += runs[r * 3 + 1]
    spare = W - used - need_total
    if nsets and spare > 0:  # the spare wilds to the first set (it starts at 0)
        for j in range(pos - 1, first_size - 1, -1):  # make room: shift the other sets
            out[j + spare] = out[j]
        for j in range(spare):
            out[first_size + j] = wilds[used]
            used += 1
        pos += spare
        # its key: the same set with ``spare`` more wilds and cards
        keys[0] += (spare << 17) + (spare << 24)
        spare = 0
    for r in range(nr):
        places = runs[r * 3]
        lo = runs[r * 3 + 1]
        s = runs[r * 3 + 2] % 4
        nat = runs[r * 3 + 2] // 4
        more = 0
        if spare > 0:
            more = min(spare, top - (nat + lo))
            spare -= more
        k = lo + more  # wilds in this run
        length = nat + k
        low = 0
        high = 0
        for q in range(14):
            if (places >> q) & 1:
                if low == 0:
                    low = q + 1
                high = q + 1
        if high - low + 1 < length:
            high = min(top, low + length - 1)
        low = high - length + 1
        j = 0
        nwild = 0
        for q in range(low, high + 1):
            if (places >> (q - 1)) & 1:
                out[pos] = s * 13 + (0 if q == 14 else q - 1)
            else:
                c = wilds[used + j]
                out[pos] = c
                j += 1
                # a wild-rank card of this suit in its own place is natural there
                natural = (
                    c != 52 and c // 13 == s and (c % 13 + 1 == q or (c % 13 == 0 and q == 14))
                )
                if not natural:
                    nwild += 1
            pos += 1
        used += k
        keys[nm] = _meld_key(1, 0, s, low, high, nwild, length)
        nm += 1
    if used != W or spare or pos != nc:
        return 0, 0, 0, -1  # unreachable: the kernel checked that every wild finds a place
    return nm, nc, nd, value


# ---------------------------------------------------------------------------- packed calls
# A call from Python pays for every argument it unboxes (about 0.1 us an array, less for an
# int): the entry points below take one integer instead, the address of an int64 array ``A``
# of the addresses of a configuration's arrays (built by the Kernel, which keeps the arrays
# alive), and rebuild the arrays from them.
A_W, A_PAR, A_TT, A_MKEYS, A_MV, A_MDW, A_WS, A_WR = range(8)
A_OUT, A_DV, A_CARDS, A_KEYS, A_COUNTS, A_RUNS = range(8, 14)
A_SLOTS = 14  # the memo's slots (the Kernel allocates them)
A_SIZE = 15
ARRANGE_SIZES = (64, 32, 256)  # cards (uint8), meld keys, runs: the Kernel's buffers


@njit(cache=True, inline="always")
def _tables(at):
    """``A`` (at the address ``at``) and the configuration's arrays it points to."""
    A = carray(_address(at), (A_SIZE,), np.int64)
    slots = A[A_SLOTS]
    return (
        A,
        carray(_address(A[A_PAR]), (PAR_SIZE,), np.int64),
        carray(_address(A[A_TT]), (1 << 13, 4, NB), np.int16),
        carray(_address(A[A_MKEYS]), (slots + 1,), np.int64),
        carray(_address(A[A_MV]), (2, slots, NB), np.int16),
        carray(_address(A[A_MDW]), (slots, NB), np.int64),
        carray(_address(A[A_WS]), (WS_SIZE,), np.int64),
        carray(_address(A[A_WR]), (4, 8, NB), np.int64),
    )


MAX_HAND = 30  # the largest hand min_penalty takes (MAX_HAND_CARDS): beyond it, -3


@njit(cache=True, inline="always")
def _too_big(counts):
    cards = 0
    for k in range(53):
        cards += counts[k]
    return cards > MAX_HAND


@njit(cache=True)
def evaluate_packed(data, at, lex):
    """:func:`evaluate` of ``data`` (53 counts: bytes, or a bytearray, which Python builds
    from a tuple faster) with the configuration's arrays packed in ``A``; -3 for a
    hand of more than :data:`MAX_HAND` cards (the Python side says why). The general search
    reads a copy in the Kernel's buffer (compiled once, whatever the input's type)."""
    A, par, TT, mkeys, mv, mdw, ws, wr = _tables(at)
    if lex < 3:  # the lean search first, directly (it counts the cards too)
        value = evaluate_one(data, A[A_W], par, TT, ws, MAX_HAND, lex)
        if value != -2:
            return value
        lex |= GENERAL
    counts = carray(_address(A[A_COUNTS]), (53,), np.uint8)
    for k in range(53):
        counts[k] = data[k]
    if _too_big(counts):
        return -3
    return evaluate(counts, A[A_W], par, TT, mkeys, mv, mdw, ws, wr, lex)


@njit(cache=True)
def evaluate_many(hands, at, out):
    """:func:`evaluate` (points only) of every row of ``hands`` ((n, 53) uint8) into ``out``.
    Each row is copied into the Kernel's buffer, which has no reference count: a view of the
    row would pay for counting its references at every call."""
    A, par, TT, mkeys, mv, mdw, ws, wr = _tables(at)
    counts = carray(_address(A[A_COUNTS]), (53,), np.uint8)
    w = A[A_W]
    for i in range(hands.shape[0]):
        for k in range(53):
            counts[k] = hands[i, k]
        value = evaluate_one(counts, w, par, TT, ws, MAX_CARDS, 0)
        if value == -2:
            value = evaluate(counts, w, par, TT, mkeys, mv, mdw, ws, wr, GENERAL)
        out[i] = value


@njit(cache=True)
def discard_values_packed(counts, at):
    """:func:`discard_values` into the Kernel's ``out53`` buffer."""
    A, par, TT, mkeys, mv, mdw, ws, wr = _tables(at)
    out = carray(_address(A[A_OUT]), (53,), np.int64)
    return discard_values(counts, A[A_W], par, TT, mkeys, mv, mdw, ws, wr, out)


@njit(cache=True)
def after_draw_packed(counts, weights, at):
    """:func:`after_draw_values` into the Kernel's ``out53`` and ``dv53`` buffers."""
    A, par, TT, mkeys, mv, mdw, ws, wr = _tables(at)
    out = carray(_address(A[A_OUT]), (53,), np.int64)
    dv = carray(_address(A[A_DV]), (53,), np.int64)
    return after_draw_values(counts, weights, A[A_W], par, TT, mkeys, mv, mdw, ws, wr, out, dv)


@njit(cache=True)
def arrange_packed(data, at, cards):
    """:func:`arrange` into the Kernel's ``out8``, ``keys`` and ``runbuf``, of ``data``: 53
    counts, or with ``cards`` the card kinds of the hand, one byte each (counted here: -3 for
    a hand of more than :data:`MAX_HAND` cards, -4 for a kind beyond 52)."""
    A, par, TT, mkeys, mv, mdw, ws, wr = _tables(at)
    counts = carray(_address(A[A_COUNTS]), (53,), np.uint8)
    if cards:
        if len(data) > MAX_HAND:
            return 0, 0, 0, -3
        for k in range(53):
            counts[k] = 0
        for c in data:
            if c > 52:
                return 0, 0, 0, -4
            counts[c] += 1
    else:
        for k in range(53):
            counts[k] = data[k]
    no, nk, nr = ARRANGE_SIZES
    out = carray(_address(A[A_CARDS]), (no,), np.uint8)
    keys = carray(_address(A[A_KEYS]), (nk,), np.int64)
    runs = carray(_address(A[A_RUNS]), (nr,), np.int64)
    return arrange(counts, A[A_W], par, TT, mkeys, mv, mdw, ws, wr, out, keys, runs)


@njit(cache=True)
def go_out_packed(counts, at):
    """The discards that leave ``counts`` (a hand just after a draw) with no deadwood, as bits
    (bit ``k``: discarding one card of kind ``k``); -1 when the kernel cannot certify it, -3
    for a hand of more than :data:`MAX_HAND` cards.

    Most hands are rejected with one evaluation: a hand of fewest penalty ``V`` less a card
    ``k`` keeps at least ``V - pen(k)`` (an arrangement of the rest, with ``k`` added back as
    deadwood, is one of the hand), so when ``V`` exceeds the penalty of every card held, no
    discard goes out. Otherwise every discard is valued (:func:`discard_values`)."""
    if _too_big(counts):
        return -3
    A, par, TT, mkeys, mv, mdw, ws, wr = _tables(at)
    w = A[A_W]
    most = 0
    for k in range(53):
        if counts[k] and par[k] > most:
            most = par[k]
    value = evaluate(counts, w, par, TT, mkeys, mv, mdw, ws, wr, 0)
    if value < 0:
        return -1
    if value > most:
        return 0
    out = carray(_address(A[A_OUT]), (53,), np.int64)
    value = discard_values(counts, w, par, TT, mkeys, mv, mdw, ws, wr, out)
    if value < 0 or ws[W_UNSURE]:
        return -1
    bits = 0
    for k in range(53):
        if out[k] == 0:
            bits |= np.int64(1) << k
    return bits
