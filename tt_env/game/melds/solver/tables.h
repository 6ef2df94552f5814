/* The suit tables and the memo (a part of solver.h: see there).

   T[mask][d] is the fewest points of one suit's cards (13-bit mask, one copy each) left out of
   runs that need at most d wilds for their gaps, for every mask and d = 0..15; MD[mask][d] is
   the costliest card left out in such an arrangement (the costliest over all of them: ties
   broken towards the costliest deadwood card; -1 for none) and DW[mask][d] its deadwood. One
   array TT[mask] holds the four rows of a mask side by side (T, MD, DW and G, the fewest points
   less one card), so that one suit's rows share cache lines. They are built once per penalty
   table (a few ms), by the lowest card: it is deadwood, or the lowest natural card of a run
   with any subset of the cards above it (an ace with aces_high may also stand above the king).
   A suit holding several copies of a card (several decks) has a 3-bit count per position and
   the same recursion, memoised in a hash table of fixed size that empties itself when half
   full. */

#ifndef TT_SOLVER_TABLES_H
#define TT_SOLVER_TABLES_H

#include "workspace.h"

/* --------------------------------------------------------------------------------- one suit */
/* (low, high, naturals) of a run whose lowest card is at index i (head h: 0 in its place, 1 an
   ace above the king, 2 two aces at both ends) with sub (the bits above i). */
static inline void tt_run_span(int64_t i, int64_t h, int64_t sub, int64_t *low, int64_t *high,
                               int64_t *n) {
    *n = 1 + tt_popcount((uint64_t)sub);
    if (h == 0) {
        *low = i + 1;
        *high = i + 1 + tt_bitlen((uint64_t)sub);
    } else if (h == 1) {
        *low = sub ? tt_tz((uint64_t)sub) + 2 : 14;
        *high = 14;
    } else {
        *low = 1;
        *high = 14;
        *n += 1;
    }
}

/* Fill the four rows T, MD, DW, G of every 13-bit mask (see the top of this file). */
static inline void tt_build_suit_tables(const int64_t *pen13, int64_t top, int16_t *TT) {
    for (int64_t d = 0; d < TT_NB; d++) {
        TT_ROW(TT, 0, 0)[d] = 0;
        TT_ROW(TT, 0, 1)[d] = -1; /* no deadwood */
        TT_ROW(TT, 0, 2)[d] = 0;
    }
    for (int64_t mask = 1; mask < TT_MASKS; mask++) {
        int64_t i = tt_tz((uint64_t)mask);
        int64_t rest = mask & (mask - 1);
        int16_t *T = TT_ROW(TT, mask, 0), *MD = TT_ROW(TT, mask, 1), *DW = TT_ROW(TT, mask, 2);
        const int16_t *Tr = TT_ROW(TT, rest, 0), *MDr = TT_ROW(TT, rest, 1),
                      *DWr = TT_ROW(TT, rest, 2);
        for (int64_t d = 0; d < TT_NB; d++) {
            T[d] = (int16_t)(pen13[i] + Tr[d]);
            MD[d] = (int16_t)tt_max(pen13[i], MDr[d]);
            DW[d] = (int16_t)(DWr[d] | (1 << i));
        }
        int64_t above = rest >> (i + 1);
        int64_t heads = (i == 0 && top == 14) ? 2 : 1;
        for (int64_t h = 0; h < heads; h++) {
            int64_t sub = above;
            for (;;) {
                int64_t low, high, n;
                tt_run_span(i, h, sub, &low, &high, &n);
                int64_t span = high - low + 1;
                int64_t lo = tt_max(3, span) - n;
                if (span <= top && lo < TT_NB) {
                    int64_t child = rest & ~(sub << (i + 1));
                    const int16_t *Tc = TT_ROW(TT, child, 0), *MDc = TT_ROW(TT, child, 1),
                                  *DWc = TT_ROW(TT, child, 2);
                    for (int64_t d = lo; d < TT_NB; d++) {
                        if (tt_better(Tc[d - lo], MDc[d - lo], T[d], MD[d])) {
                            T[d] = Tc[d - lo];
                            MD[d] = MDc[d - lo];
                            DW[d] = DWc[d - lo];
                        }
                    }
                }
                if (sub == 0) break;
                sub = (sub - 1) & above;
            }
        }
    }
    for (int64_t d = 0; d < TT_NB; d++) TT_ROW(TT, 0, 3)[d] = TT_INF;
    for (int64_t mask = 1; mask < TT_MASKS; mask++) {
        int16_t *G = TT_ROW(TT, mask, 3);
        for (int64_t d = 0; d < TT_NB; d++) {
            int64_t best = TT_INF;
            int64_t x = mask;
            while (x) {
                int64_t low = x & -x;
                int64_t v = TT_ROW(TT, mask ^ low, 0)[d];
                if (v < best) best = v;
                x ^= low;
            }
            G[d] = (int16_t)best;
        }
    }
}

/* The memo slot of code (>= 0), or -1 - the free slot where it would go. */
static inline int64_t tt_slot(const tt_tables *tab, int64_t code) {
    int64_t size = tab->slots;
    int64_t s = (int64_t)(((uint64_t)code * 0x9E3779B97F4A7C15ULL) >> 40) & (size - 1);
    for (;;) {
        int64_t k = tab->mkeys[s];
        if (k == code) return s;
        if (k == -1) return -1 - s;
        s = (s + 1) & (size - 1);
    }
}

/* Empty the memo (also its count of entries). */
static void tt_memo_clear(tt_tables *tab) {
    for (int64_t s = 0; s < tab->slots; s++) tab->mkeys[s] = -1;
    tab->mkeys[tab->slots] = 0;
}

/* One suit's row for any counts (3-bit fields): values, costliest deadwood and deadwood (as a
   code) for every budget, into the three outputs. Several copies: memoised. */
static void tt_suit_row(const tt_solver *S, int64_t code, int64_t *out, int64_t *outmd,
                        int64_t *outdw) {
    tt_tables *tab = S->tab;
    const int64_t *par = S->par;
    if ((code & TT_HI_FIELDS) == 0) {
        int64_t m = tt_mask_of(code);
        const int16_t *T = TT_ROW(tab->TT, m, 0), *MD = TT_ROW(tab->TT, m, 1),
                      *DW = TT_ROW(tab->TT, m, 2);
        for (int64_t d = 0; d < TT_NB; d++) {
            out[d] = T[d];
            outmd[d] = MD[d];
            outdw[d] = tt_code_of(DW[d]);
        }
        return;
    }
    int64_t slots = tab->slots;
    int64_t s = tt_slot(tab, code);
    if (s >= 0) {
        for (int64_t d = 0; d < TT_NB; d++) {
            out[d] = tab->mv[s * TT_NB + d];
            outmd[d] = tab->mv[(slots + s) * TT_NB + d];
            outdw[d] = tab->mdw[s * TT_NB + d];
        }
        return;
    }
    int64_t top = par[TT_P_TOP];
    int64_t i = 0;
    while (!tt_field(code, i)) i++;
    int64_t c0 = tt_field(code, i);
    int64_t rest = code - ((int64_t)1 << (3 * i));
    int64_t cv[TT_NB], cmd[TT_NB], cdw[TT_NB], vals[TT_NB], mds[TT_NB], dws[TT_NB];
    tt_suit_row(S, rest, cv, cmd, cdw);
    for (int64_t d = 0; d < TT_NB; d++) {
        vals[d] = par[i] + cv[d];
        mds[d] = tt_max(par[i], cmd[d]);
        dws[d] = cdw[d] + ((int64_t)1 << (3 * i));
    }
    int64_t above = 0;
    for (int64_t p = i + 1; p < 13; p++)
        if (tt_field(rest, p)) above |= (int64_t)1 << (p - i - 1);
    int64_t nheads = 1;
    if (i == 0 && top == 14) nheads = c0 >= 2 ? 3 : 2;
    for (int64_t h = 0; h < nheads; h++) {
        int64_t sub = above;
        for (;;) {
            int64_t low, high, n;
            tt_run_span(i, h, sub, &low, &high, &n);
            int64_t span = high - low + 1;
            int64_t lo = tt_max(3, span) - n;
            if (span <= top && lo < TT_NB) {
                int64_t nxt = rest - (h == 2 ? 1 : 0);
                int64_t x = sub;
                while (x) {
                    nxt -= (int64_t)1 << (3 * (tt_tz((uint64_t)x) + i + 1));
                    x &= x - 1;
                }
                tt_suit_row(S, nxt, cv, cmd, cdw);
                for (int64_t d = lo; d < TT_NB; d++) {
                    if (tt_better(cv[d - lo], cmd[d - lo], vals[d], mds[d])) {
                        vals[d] = cv[d - lo];
                        mds[d] = cmd[d - lo];
                        dws[d] = cdw[d - lo];
                    }
                }
            }
            if (sub == 0) break;
            sub = (sub - 1) & above;
        }
    }
    if (tab->mkeys[slots] * 2 >= slots) tt_memo_clear(tab); /* half full: empty it */
    s = -1 - tt_slot(tab, code);
    tab->mkeys[s] = code;
    tab->mkeys[slots] += 1;
    for (int64_t d = 0; d < TT_NB; d++) {
        tab->mv[s * TT_NB + d] = (int16_t)vals[d];
        tab->mv[(slots + s) * TT_NB + d] = (int16_t)mds[d];
        tab->mdw[s * TT_NB + d] = dws[d];
        out[d] = vals[d];
        outmd[d] = mds[d];
        outdw[d] = dws[d];
    }
}

/* One suit's drop row: out[d], the fewest points of the suit less one of its cards (the best
   one to drop) with d wilds; TT_INF for an empty suit. tv, tmd, tdw: scratch rows. */
static void tt_drop_row(const tt_solver *S, int64_t code, int64_t *out, int64_t *tv, int64_t *tmd,
                        int64_t *tdw) {
    if ((code & TT_HI_FIELDS) == 0) {
        const int16_t *G = TT_ROW(S->tab->TT, tt_mask_of(code), 3);
        for (int64_t d = 0; d < TT_NB; d++) out[d] = G[d];
        return;
    }
    for (int64_t d = 0; d < TT_NB; d++) out[d] = TT_INF;
    for (int64_t p = 0; p < 13; p++) {
        if (tt_field(code, p)) {
            tt_suit_row(S, code - ((int64_t)1 << (3 * p)), tv, tmd, tdw);
            for (int64_t d = 0; d < TT_NB; d++)
                if (tv[d] < out[d]) out[d] = tv[d];
        }
    }
}

#endif /* TT_SOLVER_TABLES_H */
