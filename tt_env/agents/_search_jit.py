"""The search agent's compiled core (numba): sampled deals and fast rollouts of a round.

Everything here works on plain arrays (53 counts per hand, the stock and the discard pile as card
lists) and on the solver's kernel (:mod:`tt_env.game.melds.jit`); nothing reads the engine. A
*determinisation* deals the cards the searcher has not seen (the ``unseen`` counts of the
valuation layer) to the other seats, on top of the cards each is known to hold, and to the stock,
at random. A *rollout* plays the round from there to its end with the greedy policy for every
seat (take the top discard when it lowers the penalty; discard the card that leaves the fewest
points; go out when that leaves none) and scores every hand with the solver. The rules of
RULES.md are followed (the drawn upcard that may not go straight back, the stock rebuilt from the
discard pile, one final turn each after someone goes out, the turn cap, no cards to draw), with
two simplifications, both only in the rollouts: no redemption lay-offs and no joker lay-off.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from tt_env.game.melds.jit import discard_values, evaluate
from tt_env.util.numba_cache import register
from tt_env.valuation.heuristics_jit import DISCARD_BASE, GO_OUT_BASE, TAKE, decide

register()  # cached code keyed by every kernel module (see tt_env.util.numba_cache)

BIG = 1 << 40

# sim: the round's state besides the hands, one int64 array
S_NSTOCK, S_NPILE, S_CURRENT, S_PHASE, S_DRAWN, S_WENT_OUT, S_TURNS = range(7)
S_TURN_CAP, S_DDU, S_N, S_HORIZON, S_MINE = 7, 8, 9, 10, 11
SIM_SIZE = 12
GREEDY, COUNTING = 0, 1  # rollout policies: greedy, or the expected-penalty rule
DRAW, DISCARD = 0, 1


@njit(cache=True)
def seed(value):
    """Seed numba's random generator (the rollouts' stock rebuilds and the deals)."""
    np.random.seed(value)


@njit(cache=True)
def _greedy_discard(hand, banned, w, par, TT, mkeys, mv, mdw, ws, wr, dv):
    """(kind, its value after discarding) of the greedy discard: the fewest points left, ties
    to the card worth more, then the higher kind; -1 kind when the kernel cannot value the
    hand (then the costliest card goes)."""
    value = discard_values(hand, w, par, TT, mkeys, mv, mdw, ws, wr, dv)
    best_k = -1
    best_v = BIG
    for k in range(53):
        if dv[k] < -1 or k == banned:
            continue
        v = dv[k]
        if v < 0:
            best_k = -1
            break
        if v < best_v or (
            v == best_v and (par[k] > par[best_k] or (par[k] == par[best_k] and k > best_k))
        ):
            best_v = v
            best_k = k
    if best_k >= 0 and value >= 0:
        return best_k, best_v
    # not certified: throw the costliest allowed card
    for k in range(53):
        if hand[k] and k != banned and (best_k < 0 or par[k] >= par[best_k]):
            best_k = k
    return best_k, BIG


@njit(cache=True)
def _greedy_takes(hand, top, w, par, TT, mkeys, mv, mdw, ws, wr):
    """Whether greedy takes ``top``: when the hand with it, less its best natural card to
    drop, has fewer points than the hand now."""
    now = evaluate(hand, w, par, TT, mkeys, mv, mdw, ws, wr, 0)
    hand[top] += 1
    after = evaluate(hand, w, par, TT, mkeys, mv, mdw, ws, wr, 3)
    hand[top] -= 1
    return now >= 0 and 0 <= after < now


@njit(cache=True)
def _unseen_for(p, hands, known, pc, deck, n, out):
    """What seat ``p`` has not seen: every copy in play less its hand, the discard pile and
    what the others are known to hold."""
    for k in range(53):
        u = deck[k] - hands[p, k] - pc[k]
        for o in range(n):
            if o != p:
                u -= known[o, k]
        out[k] = max(u, 0)


@njit(cache=True)
def play_round(
    hands,
    stock,
    pile,
    sim,
    known,
    deck,
    policy,
    params,
    w,
    par,
    TT,
    mkeys,
    mv,
    mdw,
    ws,
    wr,
    dv,
    out,
):
    """Play the round from ``sim`` to its end, each seat ``s`` with ``policy[s]`` (GREEDY or
    COUNTING), or until seat 0 (the searcher) has discarded ``sim[S_HORIZON]`` more times
    (0: no horizon); ``out[s]``: each seat's penalty then (not doubled). ``known``: what each
    seat is known to hold (public: took from the pile, less what it discarded since). Changes
    hands, stock, pile, known and sim."""
    n = sim[S_N]
    pc = np.zeros(53, np.int64)  # the discard pile as counts
    for i in range(sim[S_NPILE]):
        pc[pile[i]] += 1
    unseen = np.empty(53, np.int64)
    allowed = np.zeros(53, np.bool_)
    short_k = np.empty(53, np.int64)
    short_v = np.empty(53, np.float64)
    info = np.empty(4, np.int64)
    while True:
        cur = sim[S_CURRENT]
        hand = hands[cur]
        if sim[S_PHASE] == DRAW:
            nstock = sim[S_NSTOCK]
            npile = sim[S_NPILE]
            can_stock = nstock > 0 or npile > 1
            can_take = npile > 0
            if not can_stock and not can_take:
                break  # nothing to draw: the round ends (RULES.md)
            if not can_take:
                take = False
            elif not can_stock:
                take = True
            elif policy[cur] == COUNTING:
                _unseen_for(cur, hands, known, pc, deck, n, unseen)
                top = pile[npile - 1]
                act = decide(
                    hand,
                    unseen,
                    known[(cur + 1) % n],
                    top,
                    -1,
                    True,
                    sim[S_WENT_OUT] >= 0,
                    True,
                    True,
                    allowed,
                    allowed,
                    sim[S_DDU],
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
                )
                take = (
                    act == TAKE
                    if act >= 0
                    else _greedy_takes(hand, top, w, par, TT, mkeys, mv, mdw, ws, wr)
                )
            else:
                take = _greedy_takes(hand, pile[npile - 1], w, par, TT, mkeys, mv, mdw, ws, wr)
            if take:
                card = pile[npile - 1]
                sim[S_NPILE] = npile - 1
                pc[card] -= 1
                known[cur, card] += 1
                sim[S_DRAWN] = card
            else:
                if nstock == 0:  # the pile but its top card, shuffled, is the new stock
                    top = pile[npile - 1]
                    m = npile - 1
                    for i in range(m):
                        stock[i] = pile[i]
                    for i in range(m - 1, 0, -1):
                        j = np.random.randint(0, i + 1)
                        stock[i], stock[j] = stock[j], stock[i]
                    nstock = m
                    pile[0] = top
                    sim[S_NPILE] = 1
                    for k in range(53):
                        pc[k] = 0
                    pc[top] = 1
                card = stock[nstock - 1]
                sim[S_NSTOCK] = nstock - 1
                sim[S_DRAWN] = -1
            hand[card] += 1
            sim[S_PHASE] = DISCARD
            continue
        drawn = sim[S_DRAWN]
        banned = -1
        if drawn >= 0 and not sim[S_DDU] and hand[drawn] < 2:
            banned = drawn
        act = -1
        if policy[cur] == COUNTING:
            _unseen_for(cur, hands, known, pc, deck, n, unseen)
            for k in range(53):
                allowed[k] = hand[k] > 0 and k != banned
            act = decide(
                hand,
                unseen,
                known[(cur + 1) % n],
                -1,
                drawn,
                False,
                sim[S_WENT_OUT] >= 0,
                False,
                False,
                allowed,
                allowed,
                sim[S_DDU],
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
            )
        if act >= GO_OUT_BASE:
            k, after = act - GO_OUT_BASE, 0
        elif act >= DISCARD_BASE:
            k, after = act - DISCARD_BASE, 1  # not a go-out
        else:
            k, after = _greedy_discard(hand, banned, w, par, TT, mkeys, mv, mdw, ws, wr, dv)
        hand[k] -= 1
        if known[cur, k]:
            known[cur, k] -= 1
        pile[sim[S_NPILE]] = k
        pc[k] += 1
        sim[S_NPILE] += 1
        sim[S_TURNS] += 1
        if after == 0 and sim[S_WENT_OUT] < 0:
            sim[S_WENT_OUT] = cur
        if cur == 0:
            sim[S_MINE] += 1
            if sim[S_HORIZON] and sim[S_MINE] >= sim[S_HORIZON]:
                break
        nxt = (cur + 1) % n
        if sim[S_WENT_OUT] >= 0:
            if nxt == sim[S_WENT_OUT]:
                break
        elif sim[S_TURNS] >= sim[S_TURN_CAP]:
            break
        sim[S_CURRENT] = nxt
        sim[S_PHASE] = DRAW
        sim[S_DRAWN] = -1
    for s in range(n):
        if s == sim[S_WENT_OUT]:
            out[s] = 0
            continue
        v = evaluate(hands[s], w, par, TT, mkeys, mv, mdw, ws, wr, 0)
        if v < 0:  # not certified by the kernel: count every card (a rollout only)
            v = 0
            for k in range(53):
                v += hands[s, k] * par[k]
        out[s] = v


@njit(cache=True)
def deal(me, my_hand, known, sizes, pool, nstock, hands, stock):
    """A determinisation: ``hands[me]`` is ``my_hand``; every other seat ``s`` holds its known
    cards ``known[s]`` and ``sizes[s]`` cards in all, the rest drawn at random from ``pool``
    (counts of the unseen cards); the stock gets ``nstock`` more (or what is left). Returns
    the stock's size."""
    n = sizes.shape[0]
    total = 0
    for k in range(53):
        total += pool[k]
    cards = np.empty(total, np.int64)
    i = 0
    for k in range(53):
        for _ in range(pool[k]):
            cards[i] = k
            i += 1
    for i in range(total - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        cards[i], cards[j] = cards[j], cards[i]
    used = 0
    for s in range(n):
        for k in range(53):
            hands[s, k] = my_hand[k] if s == me else known[s, k]
        if s == me:
            continue
        held = 0
        for k in range(53):
            held += known[s, k]
        for _ in range(max(0, sizes[s] - held)):
            if used < total:
                hands[s, cards[used]] += 1
                used += 1
    m = 0
    while m < nstock and used < total:
        stock[m] = cards[used]
        used += 1
        m += 1
    return m


@njit(cache=True)
def search(
    me,
    my_hand,
    known,
    sizes,
    pool,
    nstock,
    pile,
    npile,
    sim0,
    actions,
    nact,
    samples,
    deck,
    policy,
    params,
    w,
    par,
    TT,
    mkeys,
    mv,
    mdw,
    ws,
    wr,
    results,
):
    """Play ``samples`` determinisations: for each, every candidate action (``actions``:
    0 stock, 1 take, 2 + k discard k, as the action ids) is played and the round rolled out
    on that same deal (common random numbers). ``results[i, a]``: the searcher's penalty less
    the mean of the others' (lower is better) on deal i after action a."""
    n = sizes.shape[0]
    hands0 = np.zeros((n, 53), np.uint8)
    hands = np.zeros((n, 53), np.uint8)
    size = 1024  # every card in play fits (12 decks of 56 at most)
    stock0 = np.empty(size, np.int64)
    stock = np.empty(size, np.int64)
    pile1 = np.empty(size, np.int64)
    sim = np.empty(SIM_SIZE, np.int64)
    dv = np.empty(53, np.int64)
    out = np.empty(n, np.int64)
    kn = np.empty((n, 53), np.int64)
    for sample in range(samples):
        ns = deal(me, my_hand, known, sizes, pool, nstock, hands0, stock0)
        for a in range(nact):
            for s in range(n):
                for k in range(53):
                    hands[s, k] = hands0[s, k]
            for i in range(ns):
                stock[i] = stock0[i]
            for i in range(npile):
                pile1[i] = pile[i]
            for i in range(SIM_SIZE):
                sim[i] = sim0[i]
            for s in range(n):
                for k in range(53):
                    kn[s, k] = known[s, k]
            sim[S_NSTOCK] = ns
            sim[S_NPILE] = npile
            act = actions[a]
            hand = hands[me]
            if act == 0 or act == 1:  # a draw, then the rollout (our discard greedy too)
                if act == 1:
                    card = pile1[sim[S_NPILE] - 1]
                    sim[S_NPILE] -= 1
                    sim[S_DRAWN] = card
                    kn[me, card] += 1
                else:
                    if sim[S_NSTOCK] == 0:
                        top = pile1[sim[S_NPILE] - 1]
                        m = sim[S_NPILE] - 1
                        for i in range(m):
                            stock[i] = pile1[i]
                        for i in range(m - 1, 0, -1):
                            j = np.random.randint(0, i + 1)
                            stock[i], stock[j] = stock[j], stock[i]
                        sim[S_NSTOCK] = m
                        pile1[0] = top
                        sim[S_NPILE] = 1
                    card = stock[sim[S_NSTOCK] - 1]
                    sim[S_NSTOCK] -= 1
                    sim[S_DRAWN] = -1
                hand[card] += 1
                sim[S_PHASE] = DISCARD
            else:  # a discard (going out is decided before the search)
                k = (act - 2) % 53
                hand[k] -= 1
                if kn[me, k]:
                    kn[me, k] -= 1
                pile1[sim[S_NPILE]] = k
                sim[S_NPILE] += 1
                sim[S_TURNS] += 1
                nxt = (me + 1) % n
                done = False
                if sim[S_WENT_OUT] >= 0:
                    done = nxt == sim[S_WENT_OUT]
                elif sim[S_TURNS] >= sim[S_TURN_CAP]:
                    done = True
                sim[S_CURRENT] = nxt
                sim[S_PHASE] = DRAW
                sim[S_DRAWN] = -1
                if done:
                    for s in range(n):
                        v = evaluate(hands[s], w, par, TT, mkeys, mv, mdw, ws, wr, 0)
                        out[s] = v if s != sim[S_WENT_OUT] else 0
                    rel = out[me] * (n - 1)
                    for s in range(n):
                        if s != me:
                            rel -= out[s]
                    results[sample, a] = rel / (n - 1)
                    continue
            play_round(
                hands,
                stock,
                pile1,
                sim,
                kn,
                deck,
                policy,
                params,
                w,
                par,
                TT,
                mkeys,
                mv,
                mdw,
                ws,
                wr,
                dv,
                out,
            )
            rel = out[me] * (n - 1)
            for s in range(n):
                if s != me:
                    rel -= out[s]
            results[sample, a] = rel / (n - 1)
