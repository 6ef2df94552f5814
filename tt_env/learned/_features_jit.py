"""The compiled twin of :class:`tt_env.learned.features.CardFeatures` (numba): the same transform,
the same numbers (to float32), in one call that also runs the solver's kernel.

:meth:`CardFeatures.__call__ <tt_env.learned.features.CardFeatures.__call__>` uses it whenever the
solver's compiled kernel serves the rules (no cap on wilds per meld) and falls back to its numpy
code otherwise, or for a hand the kernel hands over to the Python solver. Tests compare both.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tt_env.encoding.observation import CARDS_DEALT_SLOTS, MIN_CARDS_DEALT
from tt_env.game.melds.jit import after_draw_values, discard_values, evaluate
from tt_env.learned._layout import _C, _G, CARD_FEATURES, GLOBAL_FEATURES
from tt_env.util.numba_cache import register

register()  # cached code keyed by every kernel module (see tt_env.util.numba_cache)

CW = len(CARD_FEATURES)
NG = len(GLOBAL_FEATURES)
F_HELD, F_DRAWN, F_TOP = _C["held"], _C["drawn_upcard"], _C["top_discard"]
F_UNSEEN, F_DISCARDED, F_TABLE = _C["unseen"], _C["discarded"], _C["on_table"]
F_NEXT, F_OTHERS, F_WILD, F_POINTS = (
    _C["next_known"],
    _C["others_known"],
    _C["wild"],
    _C["points"],
)
F_AFTER, F_VS, F_BEST, F_OUT, F_SAVING = (
    _C["after_discard"],
    _C["vs_best_discard"],
    _C["best_discard"],
    _C["goes_out"],
    _C["saving"],
)
F_DRAW_GAIN, F_LOOK, F_CAND = _C["draw_gain"], _C["lookahead_gain"], _C["candidate"]
F_SAME_H, F_RUN_H1, F_RUN_H2 = _C["same_rank_held"], _C["run_held_1"], _C["run_held_2"]
F_SAME_U, F_RUN_U1, F_RUN_U2 = _C["same_rank_unseen"], _C["run_unseen_1"], _C["run_unseen_2"]
F_FEEDS, F_RANK = _C["feeds_next"], _C["rank"]
G_DRAW, G_DISCARD, G_FINAL, G_PENALTY = (
    _G["draw_phase"],
    _G["discard_phase"],
    _G["final_turn"],
    _G["penalty"],
)
G_TAKE, G_STOCK, G_CAN_TAKE = _G["take_gain"], _G["stock_gain"], _G["can_take"]
G_BEST_AFTER, G_CAN_OUT, G_DEALT = _G["best_after_discard"], _G["can_go_out"], _G["cards_dealt"]
G_DEALT_0 = _G[f"dealt_{MIN_CARDS_DEALT}"]
G_ROUNDS, G_STOCK_SIZE, G_TURNS = _G["rounds_left"], _G["stock_size"], _G["turns_left"]

# Offsets of the observation pieces read here, in the ``lay`` array (see layout_array()).
L_HAND, L_DRAWN, L_TOP, L_BELOW, L_TABLE, L_WILD, L_DEALT, L_ROUNDS = range(8)
L_PHASE, L_FINAL, L_STOCK, L_TURNS, L_KNOWN, L_SIZE, L_OUT, L_SCORE, L_DEALER = range(8, 17)
LAY_PIECES = (
    "hand",
    "drawn_upcard",
    "top_discard",
    "discard_below",
    "table",
    "wild_rank",
    "cards_dealt",
    "rounds_left",
    "phase",
    "final_turn",
    "stock_size",
    "turns_left",
    "known",
    "hand_size",
    "went_out",
    "score",
    "dealer",
)


def layout_array(layout) -> np.ndarray:
    """The offsets of :data:`LAY_PIECES` in an observation layout."""
    return np.array([layout.slices[name].start for name in LAY_PIECES], np.int64)


@njit(cache=True)
def card_features(
    obs,
    lay,
    n,
    deck,
    rank_vec,
    same,
    near1,
    near2,
    max_cards,
    ddu,
    lookahead,
    candidates,
    margin,
    pars,
    TT,
    mkeys,
    mv,
    mdw,
    ws,
    wr,
    out,
):
    """Fill ``out`` with the features of ``obs``; False when the solver's kernel could not
    certify a value (the caller then runs the numpy transform)."""
    for i in range(out.shape[0]):
        out[i] = 0.0
    cards = out[: 53 * CW]
    g = out[53 * CW :]
    hand = np.empty(53, np.uint8)
    unseen = np.empty(53, np.int64)
    decks = deck[0] * 1.0
    top = -1
    drawn = -1
    wild_rank = 1
    for r in range(13):
        if obs[lay[L_WILD] + r] > 0.5:
            wild_rank = r + 1
            break
    w = wild_rank - 1
    par = pars[wild_rank]
    for k in range(53):
        hand[k] = np.uint8(np.rint(obs[lay[L_HAND] + k]))
        if obs[lay[L_TOP] + k] != 0 and top < 0:
            top = k
        if obs[lay[L_DRAWN] + k] != 0 and drawn < 0:
            drawn = k
    known = np.zeros((n, 53), np.int64)
    for s in range(n):
        for k in range(53):
            known[s, k] = np.int64(np.rint(obs[lay[L_KNOWN] + s * 53 + k]))
    for k in range(53):
        u = (
            deck[k]
            - np.int64(hand[k])
            - np.int64(np.rint(obs[lay[L_BELOW] + k]))
            - np.int64(np.rint(obs[lay[L_TABLE] + k]))
        )
        for s in range(1, n):
            u -= known[s, k]
        if k == top:
            u -= 1
        unseen[k] = max(u, 0)
    draw_phase = obs[lay[L_PHASE]] > 0.5
    discard_phase = obs[lay[L_PHASE] + 1] > 0.5
    final_turn = obs[lay[L_FINAL]] > 0.5
    # the card table
    for k in range(53):
        row = k * CW
        cards[row + F_HELD] = hand[k]
        cards[row + F_DRAWN] = obs[lay[L_DRAWN] + k]
        cards[row + F_TOP] = obs[lay[L_TOP] + k]
        cards[row + F_UNSEEN] = unseen[k] / decks
        cards[row + F_DISCARDED] = np.rint(obs[lay[L_BELOW] + k]) / decks
        cards[row + F_TABLE] = np.rint(obs[lay[L_TABLE] + k]) / decks
        if n > 1:
            cards[row + F_NEXT] = known[1, k]
        if n > 2:
            tot = 0
            for s in range(2, n):
                tot += known[s, k]
            cards[row + F_OTHERS] = tot
        cards[row + F_WILD] = 1.0 if (k == 52 or k % 13 == w) else 0.0
        cards[row + F_POINTS] = par[k] / 10.0
        cards[row + F_RANK] = rank_vec[k]
        sh = 0.0
        su = 0.0
        for j in range(same.shape[1]):
            q = same[k, j]
            if q < 53:
                sh += hand[q]
                su += unseen[q]
        cards[row + F_SAME_H] = sh / 3.0
        cards[row + F_SAME_U] = su / (3.0 * decks)
        h1 = 0.0
        u1 = 0.0
        for j in range(near1.shape[1]):
            q = near1[k, j]
            if q < 53:
                h1 += min(hand[q], 1)
                u1 += unseen[q]
        cards[row + F_RUN_H1] = h1 / 2.0
        cards[row + F_RUN_U1] = u1 / (2.0 * decks)
        h2 = 0.0
        u2 = 0.0
        for j in range(near2.shape[1]):
            q = near2[k, j]
            if q < 53:
                h2 += min(hand[q], 1)
                u2 += unseen[q]
        cards[row + F_RUN_H2] = h2 / 2.0
        cards[row + F_RUN_U2] = u2 / (2.0 * decks)
    if n > 1:
        for k in range(52):
            feeds = False
            for tab in range(3):
                t = same if tab == 0 else (near1 if tab == 1 else near2)
                for j in range(t.shape[1]):
                    q = t[k, j]
                    if q < 53 and known[1, q] > 0:
                        feeds = True
            cards[k * CW + F_FEEDS] = 1.0 if feeds else 0.0
    # the solver's values
    out53 = np.empty(53, np.int64)
    dv = np.empty(53, np.int64)
    dv2 = np.empty(53, np.int64)
    if discard_phase or draw_phase:
        now = evaluate(hand, w, par, TT, mkeys, mv, mdw, ws, wr, 0)
        if now < 0:
            return False
        g[G_PENALTY] = now / 25.0
    if discard_phase:
        value = discard_values(hand, w, par, TT, mkeys, mv, mdw, ws, wr, dv)
        if value < 0:
            return False
        banned = -1
        if drawn >= 0 and not ddu and hand[drawn] < 2:
            banned = drawn
        n_allowed = 0
        best = np.int64(1) << 40
        for k in range(53):
            if dv[k] == -1:
                return False
            if dv[k] >= 0 and k != banned:
                n_allowed += 1
                best = min(best, dv[k])
        if n_allowed == 0:  # only the banned card is held: every held card counts
            for k in range(53):
                if dv[k] >= 0:
                    n_allowed += 1
                    best = min(best, dv[k])
            banned = -1
        g[G_BEST_AFTER] = best / 25.0
        g[G_CAN_OUT] = 1.0 if best == 0 else 0.0
        for k in range(53):
            if dv[k] >= 0:
                p = dv[k] * 1.0
                row = k * CW
                cards[row + F_AFTER] = p / 25.0
                cards[row + F_VS] = (p - best) / 10.0
                cards[row + F_BEST] = 1.0 if dv[k] == best else 0.0
                cards[row + F_OUT] = 1.0 if dv[k] == 0 else 0.0
                cards[row + F_SAVING] = (now - p) / 10.0
        total = 0
        for k in range(53):
            total += unseen[k]
        if lookahead and not final_turn and best != 0 and total > 0:
            keys = np.empty(53, np.int64)
            kinds = np.empty(53, np.int64)
            m = 0
            for k in range(53):
                if dv[k] >= 0 and k != banned:
                    keys[m] = dv[k] * 10000 + (100 - par[k]) * 100 + (99 - k)
                    kinds[m] = k
                    m += 1
            order = np.argsort(keys[:m])
            less = np.empty(53, np.uint8)
            for i in range(min(candidates, m)):
                k = kinds[order[i]]
                pk = dv[k]
                if pk > best + margin:
                    break
                for j in range(53):
                    less[j] = hand[j]
                less[k] -= 1
                vl = after_draw_values(less, unseen, w, par, TT, mkeys, mv, mdw, ws, wr, out53, dv2)
                if vl < 0:
                    return False
                acc = 0
                for x in range(53):
                    if unseen[x] > 0:
                        if out53[x] < 0:
                            return False
                        acc += out53[x] * unseen[x]
                expected = acc / total
                cards[k * CW + F_LOOK] = (pk - expected) / 10.0
                cards[k * CW + F_CAND] = 1.0
    elif draw_phase:
        weights = unseen.copy()
        if top >= 0:
            weights[top] += 1
        vh = after_draw_values(hand, weights, w, par, TT, mkeys, mv, mdw, ws, wr, out53, dv)
        if vh < 0:
            return False
        total = 0
        acc = 0.0
        for x in range(53):
            if weights[x] > 0:
                if out53[x] < 0:
                    return False
                cards[x * CW + F_DRAW_GAIN] = (now - out53[x]) / 10.0
            total += unseen[x]
            acc += out53[x] * unseen[x] if weights[x] > 0 else 0.0
        if total > 0:
            g[G_STOCK] = (now - acc / total) / 10.0
        if top >= 0:
            g[G_CAN_TAKE] = 1.0
            if ddu or hand[top] > 0:
                take = out53[top]
            else:
                more = hand.copy()
                more[top] += 1
                vm = discard_values(more, w, par, TT, mkeys, mv, mdw, ws, wr, dv)
                if vm < 0:
                    return False
                take = np.int64(1) << 40
                anyv = np.int64(1) << 40
                for k in range(53):
                    if dv[k] == -1:
                        return False
                    if dv[k] >= 0:
                        anyv = min(anyv, dv[k])
                        if k != top:
                            take = min(take, dv[k])
                if take == np.int64(1) << 40:
                    take = anyv
            g[G_TAKE] = (now - take) / 10.0
    # global values and the seats
    g[G_DRAW] = 1.0 if draw_phase else 0.0
    g[G_DISCARD] = 1.0 if discard_phase else 0.0
    g[G_FINAL] = 1.0 if final_turn else 0.0
    dealt = 0
    best_v = obs[lay[L_DEALT]]
    for i in range(CARDS_DEALT_SLOTS):
        v = obs[lay[L_DEALT] + i]
        g[G_DEALT_0 + i] = v
        if v > best_v:
            best_v = v
            dealt = i
    g[G_DEALT] = (dealt + MIN_CARDS_DEALT) / 13.0
    g[G_ROUNDS] = obs[lay[L_ROUNDS]]
    g[G_STOCK_SIZE] = obs[lay[L_STOCK]]
    g[G_TURNS] = obs[lay[L_TURNS]]
    score0 = obs[lay[L_SCORE]]
    for s in range(n):
        base = NG + 5 * s
        g[base] = obs[lay[L_SIZE] + s] / np.float32(max_cards + 1)
        g[base + 1] = obs[lay[L_OUT] + s]
        g[base + 2] = obs[lay[L_SCORE] + s] - score0
        kt = 0
        for k in range(53):
            kt += known[s, k]
        g[base + 3] = kt / 10.0
        g[base + 4] = obs[lay[L_DEALER] + s]
    return True
