/* The lean search: tt_evaluate() of a hand holding at most one copy of each natural card (a
   part of solver.h: see there).

   Every one-deck hand takes tt_evaluate_one(): the same search as tt_evaluate() over 13-bit
   masks, with a rank's set options read from a table by the suits it holds, the set ranks found
   bit-parallel, and a tighter bound for points alone (the suits left for runs valued at every
   set chosen, less what the ranks below can take with the wilds left); for the costliest
   deadwood card and the plan it prunes as tt_evaluate() does, so both find the same
   arrangement. Any other hand takes tt_evaluate(). */

#ifndef TT_SOLVER_EVALUATE_ONE_H
#define TT_SOLVER_EVALUATE_ONE_H

#include "capped.h"
#include "convolve.h"

/* ----------------------------------------------------------------------------- one copy each */
/* A hand holding at most one copy of each natural card (every hand of one deck) takes the
   search of tt_evaluate() over 13-bit suit masks, lean. A rank's set options depend only on
   the suits it holds (4 bits) and on whether the hand has a wild card, so they are a table:
   TT_OPT_COUNT[wild][held] options, TT_OPT_TAKE[wild][held][o] the suits option o takes (bit s
   for suit s); option 0 is "no set", then every sub-set of held big enough (3 cards or more
   with no wild, 2 or more with one) in the order tt_evaluate() tries them (suit 0's card first,
   as its loops over the count taken of each suit run), so that both find the same arrangement
   among equals (tests compare the two searches on every mode). TT_OPT_WILDS[take]: the wilds a
   set of take needs; TT_TAKE_SIZE[take]: its cards. */
static const int8_t TT_OPT_COUNT[2][16] = {
    {1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 2, 1, 2, 2, 6},
    {1, 1, 1, 2, 1, 2, 2, 5, 1, 2, 2, 5, 2, 5, 5, 12},
};
static const int8_t TT_OPT_TAKE[2][16][12] = {
    {{0},
     {0},
     {0},
     {0},
     {0},
     {0},
     {0},
     {0, 7},
     {0},
     {0},
     {0},
     {0, 11},
     {0},
     {0, 13},
     {0, 14},
     {0, 14, 13, 11, 7, 15}},
    {{0},
     {0},
     {0},
     {0, 3},
     {0},
     {0, 5},
     {0, 6},
     {0, 6, 5, 3, 7},
     {0},
     {0, 9},
     {0, 10},
     {0, 10, 9, 3, 11},
     {0, 12},
     {0, 12, 9, 5, 13},
     {0, 12, 10, 6, 14},
     {0, 12, 10, 6, 14, 9, 5, 13, 3, 11, 7, 15}},
};
static const int8_t TT_OPT_WILDS[16] = {0, 2, 2, 1, 2, 1, 1, 0, 2, 1, 1, 0, 1, 0, 0, 0};
static const int8_t TT_TAKE_SIZE[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* tt_conv16 of the rows of four suit masks, in place in acc. */
static inline int64_t tt_conv_masks(const int16_t *TT, int64_t m0, int64_t m1, int64_t m2,
                                    int64_t m3, int64_t b, int64_t *acc, int every) {
    return tt_conv16(TT_ROW(TT, m0, 0), TT_ROW(TT, m1, 0), TT_ROW(TT, m2, 0), TT_ROW(TT, m3, 0), b,
                     acc, every);
}

/* tt_conv_lex16 of the four suit masks m at b wilds: the points, and the costliest deadwood
   card in *md; the wilds of each suit in sc->alloc. */
static inline int64_t tt_conv_lex_masks(const int16_t *TT, tt_search_scratch *sc, const int64_t *m,
                                        int64_t b, int64_t *md) {
    int64_t m0 = m[0], m1 = m[1], m2 = m[2], m3 = m[3];
    int64_t v = tt_conv_lex16(TT_ROW(TT, m0, 0), TT_ROW(TT, m1, 0), TT_ROW(TT, m2, 0),
                              TT_ROW(TT, m3, 0), TT_ROW(TT, m0, 1), TT_ROW(TT, m1, 1),
                              TT_ROW(TT, m2, 1), TT_ROW(TT, m3, 1), b, sc->acc, sc->accmd, sc->tmp,
                              sc->tmpmd, sc->alloc);
    *md = sc->accmd[b];
    return v;
}

/* tt_evaluate() in mode TT_POINTS, TT_POINTS_AND_COSTLIEST or TT_PLAN of a hand holding at
   most one copy of each natural card, with the same results (the same arrangement among
   equals: the same options in the same order, the same bounds); TT_NOT_LEAN for any other
   hand or a capped configuration (the caller runs tt_evaluate()), TT_TOO_MANY for a hand of
   more than limit cards. */
static int64_t tt_evaluate_one(const tt_solver *S, const uint8_t *counts, int64_t limit, int mode) {
    if (tt_capped(S)) return TT_NOT_LEAN; /* a cap: tt_evaluate() takes it (capped.h) */
    const int64_t *par = S->par;
    const int16_t *TT = S->tab->TT;
    tt_workspace *ws = S->ws;
    tt_search_scratch *sc = &ws->search;
    const int64_t w = S->w;
    const int lex = mode != TT_POINTS; /* lexicographic: the costliest deadwood card too */
    int64_t J = counts[52];
    int64_t M = (int64_t)counts[w] + counts[13 + w] + counts[26 + w] + counts[39 + w];
    int64_t cards = J, all_nat = 0, many = 0, maxpos = 0;
    for (int s = 0; s < 4; s++) { /* no branch on the cards: they are random */
        const uint8_t *suit = counts + 13 * s;
        int64_t m = 0;
        for (int64_t p = 0; p < 13; p++) {
            if (p != w) {
                int64_t k = suit[p];
                many |= k;
                m |= (int64_t)(k != 0) << p;
                all_nat += k * par[p];
            }
        }
        sc->level_masks[0][s] = m;
        maxpos = tt_max(maxpos, tt_popcount13(m));
        cards += tt_popcount13(m);
    }
    if (many > 1) return TT_NOT_LEAN;
    cards += M;
    int64_t W = J + M;
    if (W > TT_MAX_WILDS) return TT_NOT_LEAN;
    if (cards > limit) return TT_TOO_MANY;
    int64_t m0 = sc->level_masks[0][0], m1 = sc->level_masks[0][1], m2 = sc->level_masks[0][2],
            m3 = sc->level_masks[0][3];
    int wild = W > 0 ? 1 : 0;
    /* The set ranks, lowest first: two suits or more with a wild, three or more without
       (bit-parallel over the ranks; the masks hold no wild-rank card). */
    int64_t ranks = wild ? ((m0 & m1) | (m2 & m3) | ((m0 | m1) & (m2 | m3)))
                         : ((m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1)));
    int64_t nr = 0;
    while (ranks) {
        int64_t p = tt_tz((uint64_t)ranks);
        ranks &= ranks - 1;
        sc->ranks[nr] = p;
        sc->held[nr] = ((m0 >> p) & 1) | ((m1 >> p) & 1) << 1 | ((m2 >> p) & 1) << 2 |
                       ((m3 >> p) & 1) << 3;
        nr++;
    }
    int64_t best, best_md = 0;
    if (!lex) { /* with set ranks, the bound at every budget too */
        best = tt_conv_masks(TT, m0, m1, m2, m3, W, sc->bound, nr > 0);
    } else {
        if (nr) tt_conv_masks(TT, m0, m1, m2, m3, W, sc->bound, 1);
        best = tt_conv_lex_masks(TT, sc, sc->level_masks[0], W, &best_md);
        for (int s = 0; s < 4; s++) {
            sc->best_alloc[s] = sc->alloc[s];
            sc->best_masks[s] = sc->level_masks[0][s];
        }
    }
    int has_set = 0;
    int64_t nsets = 0, best_D = 0;
    if (nr) {
        /* The most points the set ranks from j on can take with at most k wilds: fut[j][k]
           for k = 0..min(W, 12), by a knapsack (a pair takes a wild, three cards or more take
           none), and fut[j][15], every card of those ranks: what they take with 12 wilds or
           more (there are 12 pairs at most), and tt_evaluate()'s bound, which the
           lexicographic modes keep so as to prune as it does (see below). */
        int64_t K = tt_min(W, 12);
        for (int64_t k = 0; k <= K; k++) sc->fut[nr][k] = 0;
        sc->fut[nr][15] = 0;
        for (int64_t j = nr - 1; j >= 0; j--) {
            int64_t size = TT_TAKE_SIZE[sc->held[j]];
            int64_t q = size * par[sc->ranks[j]];
            int64_t *fut = sc->fut[j];
            const int64_t *below = sc->fut[j + 1];
            fut[15] = below[15] + q;
            if (size >= 3) {
                for (int64_t k = 0; k <= K; k++) fut[k] = below[k] + q;
            } else {
                fut[0] = below[0];
                for (int64_t k = 1; k <= K; k++) fut[k] = tt_max(below[k], below[k - 1] + q);
            }
        }
        sc->wilds[0] = 0;
        sc->points[0] = 0;
        sc->cur[0] = best; /* every suit for runs, every wild: the value with no set */
        sc->idx[0] = -1;
        int64_t j = 0, nodes = 0;
        while (j >= 0) {
            int64_t o = sc->idx[j] + 1;
            sc->idx[j] = o;
            int64_t held = sc->held[j];
            if (o >= TT_OPT_COUNT[wild][held]) {
                j--;
                continue;
            }
            if (++nodes > TT_MAX_NODES) return TT_NOT_CERTIFIED;
            int64_t take = TT_OPT_TAKE[wild][held][o];
            int64_t D = sc->wilds[j] + TT_OPT_WILDS[take];
            int64_t p = sc->ranks[j];
            int64_t sp = sc->points[j] + TT_TAKE_SIZE[take] * par[p];
            if (D > W) continue;
            const int64_t *here = sc->level_masks[j];
            int64_t *next = sc->level_masks[j + 1];
            int64_t keep = ~((int64_t)1 << p);
            for (int s = 0; s < 4; s++) {
                int64_t m = here[s];
                next[s] = ((take >> s) & 1) ? (m & keep) : m;
            }
            /* cur: the suits left for runs with the wilds left (the leaf's value when no more
               sets are chosen). A leaf below keeps at least cur less the points the sets
               below can take with those wilds: it cannot win when that is not below the best.
               The lexicographic modes find the arrangement tt_evaluate() finds: they skip
               what it skips (with its bound: the whole suits less the set cards, and every
               card of the ranks below, at a bound equal to the best) and else only what holds
               no leaf even equal to the best (it would reject them all). */
            int64_t cur;
            if (take) {
                cur = tt_conv_masks(TT, next[0], next[1], next[2], next[3], W - D, sc->acc, 0);
            } else {
                cur = sc->cur[j];
            }
            int64_t tight = cur - sc->fut[j + 1][W - D <= 12 ? W - D : 15];
            if (tight > best || (tight == best && !lex)) continue;
            if (lex && sc->bound[W - D] - sp - sc->fut[j + 1][15] >= best) continue;
            sc->cur[j + 1] = cur;
            sc->wilds[j + 1] = D;
            sc->points[j + 1] = sp;
            if (j + 1 < nr) {
                j++;
                sc->idx[j] = -1;
                continue;
            }
            if (sp == 0) continue; /* no set at all: done above */
            const int64_t *leaf = next;
            if (!lex) { /* cur < best: it wins */
                best = cur;
                has_set = 1;
                continue;
            }
            int64_t md;
            int64_t v = tt_conv_lex_masks(TT, sc, leaf, W - D, &md);
            if (tt_better(v, md, best, best_md)) {
                best = v;
                best_md = md;
                has_set = 1;
                best_D = D;
                nsets = 0;
                for (int64_t jj = 0; jj < nr; jj++) {
                    sc->best_idx[jj] = sc->idx[jj];
                    if (sc->idx[jj]) nsets++;
                }
                for (int s = 0; s < 4; s++) {
                    sc->best_alloc[s] = sc->alloc[s];
                    sc->best_masks[s] = leaf[s];
                }
            }
        }
    }
    int meld = best < all_nat;
    int wild_dead;
    int64_t value;
    if (meld) {
        /* As in tt_evaluate(): every spare wild joins a meld, sure when a set is chosen or no
           suit holds more than top - W natural positions. */
        if (W > 0 && !has_set && maxpos > par[TT_P_TOP] - W) return TT_NOT_CERTIFIED;
        if (!lex) return best;
        value = best;
        wild_dead = 0;
    } else {
        int meld_alone = tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD]);
        value = meld_alone ? all_nat : all_nat + J * par[52] + M * par[w];
        if (!lex) return value;
        /* the costliest deadwood card: every natural card, and the wild ones if dead */
        best_md = -1;
        for (int s = 0; s < 4; s++) {
            int64_t m = sc->level_masks[0][s];
            while (m) {
                best_md = tt_max(best_md, par[tt_tz((uint64_t)m)]);
                m &= m - 1;
            }
        }
        wild_dead = !meld_alone;
        if (wild_dead) {
            if (J && par[52] > best_md) best_md = par[52];
            if (M && par[w] > best_md) best_md = par[w];
        }
        nsets = 0;
        best_D = 0;
    }
    ws->md = best_md;
    if (mode == TT_PLAN) {
        /* the plan, as tt_evaluate() leaves it: sets, the suits' runs, the deadwood */
        ws->nsets = nsets;
        ws->set_wilds = best_D;
        int64_t n = 0;
        if (meld && has_set) {
            for (int64_t jj = 0; jj < nr; jj++) {
                int64_t o = sc->best_idx[jj];
                if (o) {
                    ws->sets[n][0] = sc->ranks[jj];
                    ws->sets[n][1] = TT_FIELD_CODE[TT_OPT_TAKE[wild][sc->held[jj]][o]];
                    n++;
                }
            }
        }
        ws->all_nat = all_nat;
        ws->cards = cards;
        int64_t ndead = 0;
        for (int s = 0; s < 4; s++) {
            int64_t m, d, left;
            if (meld) {
                m = sc->best_masks[s];
                d = sc->best_alloc[s];
                left = TT_ROW(TT, m, 2)[tt_min(d, TT_NB - 1)];
            } else {
                m = sc->level_masks[0][s];
                d = 0;
                left = m;
            }
            ws->suits[s][0] = tt_code_of(m);
            ws->suits[s][1] = d;
            ws->dead_codes[s] = tt_code_of(left);
            ndead += tt_popcount13(left);
            for (int64_t p = 0; p < 13; p++) ws->dead[13 * s + p] = (left >> p) & 1;
        }
        ws->ndead = ndead;
        ws->dead[52] = 0;
        if (wild_dead) {
            ws->dead[52] = J;
            for (int s = 0; s < 4; s++) ws->dead[13 * s + w] = counts[13 * s + w];
        }
    }
    return value;
}

#endif /* TT_SOLVER_EVALUATE_ONE_H */
