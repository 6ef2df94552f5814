"""The compiled twin of :class:`tt_env.valuation.heuristics.ExpectedPenalty` (numba): the same
decisions, in one call that runs the solver's kernel, for ``counting`` and for the search agent's
rollouts.

:func:`decide` works on plain arrays (a seat's hand, the cards it has not seen, what the next
seat is known to hold, the legal moves), so that the rollouts call it on a simulated table;
:func:`decide_observation` reads them from an observation vector first, as the agents do.
Tests check that both give the Python rule's decisions on recorded positions.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tt_env.game.melds.jit import after_draw_values, discard_values, evaluate
from tt_env.util.numba_cache import register

register()  # cached code keyed by every kernel module (see tt_env.util.numba_cache)

STOCK, TAKE = 0, 1
DISCARD_BASE, GO_OUT_BASE = 2, 55
BIG = 1 << 40

# params: the rule's parameters, one float64 array
P_LOOKAHEAD, P_FEED, P_WILD_FEED, P_CANDIDATES, P_MARGIN = range(5)
PARAMS_SIZE = 5


@njit(cache=True)
def _expected(hand, unseen, w, par, TT, mkeys, mv, mdw, ws, wr, out53, dv):
    """The expected penalty of ``hand`` after one draw among ``unseen`` and its best discard
    (valuation's expected_after_draw); -1.0 when the kernel cannot certify it."""
    total = 0
    for k in range(53):
        total += unseen[k]
    value = after_draw_values(hand, unseen, w, par, TT, mkeys, mv, mdw, ws, wr, out53, dv)
    if value < 0:
        return -1.0
    if total <= 0:
        return value * 1.0
    acc = 0
    for x in range(53):
        if unseen[x] > 0:
            if out53[x] < 0:
                return -1.0
            acc += out53[x] * unseen[x]
    return acc / total


@njit(cache=True)
def _feed(k, w, next_known, feed, wild_feed):
    """The feed cost of discarding ``k`` (policies.feed_cost)."""
    if k == 52 or k % 13 == w:
        return wild_feed
    suit = k // 13
    r = k % 13
    for s in range(4):
        if next_known[s * 13 + r]:
            return feed
    for d in (-2, -1, 1, 2):
        q = r + d
        if 0 <= q < 13 and next_known[suit * 13 + q]:
            return feed
    return 0.0


@njit(cache=True)
def _before(a_key, a_pen, a_par, a_k, b_key, b_pen, b_par, b_k):
    """(key, penalty, -points, -kind) of a before b, lexicographically."""
    if a_key != b_key:
        return a_key < b_key
    if a_pen != b_pen:
        return a_pen < b_pen
    if a_par != b_par:
        return a_par > b_par
    return a_k > b_k


@njit(cache=True)
def decide(
    hand,
    unseen,
    next_known,
    top,
    drawn,
    draw_phase,
    final_turn,
    can_stock,
    can_take,
    allowed,
    go_ok,
    ddu,
    params,
    w,
    par,
    TT,
    mkeys,
    mv,
    mdw,
    ws,
    wr,
    short_k,
    short_v,
    info,
):
    """The expected-penalty rule's action for a seat to move (see tt_env.valuation.heuristics): a
    draw (``STOCK``/``TAKE``) in the draw phase, else a discard or a go-out (``DISCARD_BASE + k`` /
    ``GO_OUT_BASE + k``); -1 when the kernel cannot certify a value it needs (the caller then
    asks the Python rule). ``allowed[k]``/``go_ok[k]``: the legal discards and go-outs.
    Discard phase: the shortlist, best first, in ``short_k``/``short_v`` (its length in
    ``info[0]``; 0 when no look-ahead was needed). Draw phase: ``info[1]`` the penalty after
    taking (-1: not valued), ``info[2]`` the penalty now."""
    info[0] = 0
    info[1] = -1
    dv = np.empty(53, np.int64)
    dv2 = np.empty(53, np.int64)
    out53 = np.empty(53, np.int64)
    if draw_phase:
        if not can_stock:
            return TAKE
        if not can_take or top < 0:
            return STOCK
        now = evaluate(hand, w, par, TT, mkeys, mv, mdw, ws, wr, 0)
        banned = top if (not ddu and hand[top] == 0) else -1
        hand[top] += 1
        value = discard_values(hand, w, par, TT, mkeys, mv, mdw, ws, wr, dv)
        hand[top] -= 1
        if now < 0 or value < 0:
            return -1
        take = BIG
        anyv = BIG
        for k in range(53):
            if dv[k] == -1:
                return -1
            if dv[k] >= 0:
                anyv = min(anyv, dv[k])
                if k != banned:
                    take = min(take, dv[k])
        if take == BIG:
            take = anyv
        info[1] = take
        info[2] = now
        if take >= now:
            return STOCK  # the discard does not help at all
        stock = _expected(hand, unseen, w, par, TT, mkeys, mv, mdw, ws, wr, out53, dv2)
        if stock < 0:
            return -1
        return TAKE if take < stock else STOCK
    value = discard_values(hand, w, par, TT, mkeys, mv, mdw, ws, wr, dv)
    if value < 0:
        return -1
    for k in range(53):
        if dv[k] == -1:
            return -1
    out_k = -1
    for k in range(53):
        if (
            go_ok[k]
            and dv[k] == 0
            and (out_k < 0 or par[k] > par[out_k] or (par[k] == par[out_k] and k > out_k))
        ):
            out_k = k
    if out_k >= 0:
        return GO_OUT_BASE + out_k
    lookahead = params[P_LOOKAHEAD]
    # the legal discards ranked by (penalty + feed, -points, -kind)
    kinds = np.empty(53, np.int64)
    keys = np.empty(53, np.float64)
    m = 0
    for k in range(53):
        if allowed[k]:
            f = _feed(k, w, next_known, params[P_FEED], params[P_WILD_FEED])
            kinds[m] = k
            keys[m] = dv[k] + f
            m += 1
    for i in range(1, m):  # insertion sort: a dozen cards at most
        j = i
        while j > 0 and _before(
            keys[j], 0, par[kinds[j]], kinds[j], keys[j - 1], 0, par[kinds[j - 1]], kinds[j - 1]
        ):
            keys[j], keys[j - 1] = keys[j - 1], keys[j]
            kinds[j], kinds[j - 1] = kinds[j - 1], kinds[j]
            j -= 1
    if final_turn or lookahead == 0:
        return DISCARD_BASE + kinds[0]
    floor = keys[0]
    n = 0
    less = np.empty(53, np.uint8)
    for j in range(53):
        less[j] = hand[j]
    for i in range(min(int(params[P_CANDIDATES]), m)):
        k = kinds[i]
        if keys[i] > floor + params[P_MARGIN]:
            continue
        less[k] -= 1
        e = _expected(less, unseen, w, par, TT, mkeys, mv, mdw, ws, wr, out53, dv2)
        less[k] += 1
        if e < 0:
            return -1
        f = keys[i] - dv[k]
        short_k[n] = k
        short_v[n] = dv[k] - lookahead * (dv[k] - e) + f
        n += 1
    for i in range(1, n):  # best first: (value, penalty, -points, -kind)
        j = i
        while j > 0 and _before(
            short_v[j],
            dv[short_k[j]],
            par[short_k[j]],
            short_k[j],
            short_v[j - 1],
            dv[short_k[j - 1]],
            par[short_k[j - 1]],
            short_k[j - 1],
        ):
            short_v[j], short_v[j - 1] = short_v[j - 1], short_v[j]
            short_k[j], short_k[j - 1] = short_k[j - 1], short_k[j]
            j -= 1
    info[0] = n
    return DISCARD_BASE + short_k[0]


# Offsets of the observation pieces read here, in the ``lay`` array (see layout_array()).
LAY_PIECES = (
    "hand",
    "drawn_upcard",
    "top_discard",
    "discard_below",
    "table",
    "wild_rank",
    "phase",
    "final_turn",
    "known",
)


def layout_array(layout) -> np.ndarray:
    """The offsets of :data:`LAY_PIECES` in an observation layout."""
    return np.array([layout.slices[name].start for name in LAY_PIECES], np.int64)


@njit(cache=True)
def decide_observation(
    obs, mask, lay, n, deck, ddu, params, pars, TT, mkeys, mv, mdw, ws, wr, short_k, short_v, info
):
    """:func:`decide` for the seat whose observation vector and action mask these are."""
    hand = np.empty(53, np.uint8)
    unseen = np.empty(53, np.int64)
    next_known = np.zeros(53, np.int64)
    allowed = np.empty(53, np.bool_)
    go_ok = np.empty(53, np.bool_)
    wild_rank = 1
    for r in range(13):
        if obs[lay[5] + r] > 0.5:
            wild_rank = r + 1
            break
    top = -1
    drawn = -1
    for k in range(53):
        hand[k] = np.uint8(np.rint(obs[lay[0] + k]))
        if obs[lay[2] + k] != 0 and top < 0:
            top = k
        if obs[lay[1] + k] != 0 and drawn < 0:
            drawn = k
        allowed[k] = mask[DISCARD_BASE + k] != 0
        go_ok[k] = mask[GO_OUT_BASE + k] != 0
        u = (
            deck[k]
            - np.int64(hand[k])
            - np.int64(np.rint(obs[lay[3] + k]))
            - np.int64(np.rint(obs[lay[4] + k]))
        )
        for s in range(1, n):
            u -= np.int64(np.rint(obs[lay[8] + s * 53 + k]))
        if k == top:
            u -= 1
        unseen[k] = max(u, 0)
        if n > 1:
            next_known[k] = np.int64(np.rint(obs[lay[8] + 53 + k]))
    return decide(
        hand,
        unseen,
        next_known,
        top,
        drawn,
        obs[lay[6]] > 0.5,
        obs[lay[7]] > 0.5,
        mask[STOCK] != 0,
        mask[TAKE] != 0,
        allowed,
        go_ok,
        ddu,
        params,
        wild_rank - 1,
        pars[wild_rank],
        TT,
        mkeys,
        mv,
        mdw,
        ws,
        wr,
        short_k,
        short_v,
        info,
    )
