/* The hand: tt_evaluate(), the fewest penalty of a hand with no cap on wilds per meld (a part
   of solver.h: see there).

   Sets are chosen first: a depth-first search over the ranks holding 2 natural cards or more
   (3 or more without wilds) tries, per rank, "no set" and every sub-multiset big enough (one
   set per rank: with no cap two sets of a rank never need fewer wilds than their union); each
   leaf combines the four suits' rows with the wilds left by a min-plus convolution. A leaf is
   skipped when the suits as they are, less the points of the set cards, cannot beat the best
   found. With no cap every spare wild joins a meld once one exists: always when a set is
   chosen, and when only runs are, whenever no suit holds more than top - W natural positions
   (a run of n naturals needs at most D gap wilds and has room for top - n - D more).
   Otherwise, or beyond the sizes the tables cover (a rank with too many options, more than 7
   copies of a card, more than 90 wilds), the kernel answers TT_NOT_CERTIFIED and the caller
   runs the exact search in Python. When no natural meld exists, the wilds can only meld by
   themselves: a set of the wild rank (one wild-rank card, natural there, and any jokers; three
   cards or more), or, with all_wild_melds, three jokers or more. */

#ifndef TT_SOLVER_EVALUATE_H
#define TT_SOLVER_EVALUATE_H

#include "evaluate_one.h"

/* Fewest penalty of the hand (53 counts) with no cap on wilds per meld; TT_NOT_CERTIFIED when
   this method cannot certify it (the caller then runs the exact search in Python), TT_TOO_MANY
   for more than TT_MAX_CARDS cards.

   mode TT_POINTS: points only. TT_POINTS_AND_COSTLIEST: also the costliest deadwood card of the
   best arrangements (ws->md). TT_PLAN: also that arrangement: its deadwood (ws->dead, 53
   counts), its sets and the suits' codes and budgets left for runs (ws->sets, ws->suits).
   TT_LESS_BEST_DROP: the fewest penalty of the hand less one natural card, the best one to drop
   (TT_INF when it holds none): an arrangement of the hand less k is one of the hand with k left
   out, so the suits' drop rows (tt_drop_row) replace one suit's row. The first three modes of a
   hand with one copy of each natural card take tt_evaluate_one() (unless TT_GENERAL is added
   to the mode). */
static int64_t tt_evaluate(const tt_solver *S, const uint8_t *counts, int mode) {
    if (tt_capped(S)) return tt_capped_evaluate(S, counts, mode); /* a cap: capped.h */
    const int64_t *par = S->par;
    const int16_t *TT = S->tab->TT;
    tt_workspace *ws = S->ws;
    tt_search_scratch *sc = &ws->search;
    const int64_t w = S->w;
    if (mode & TT_GENERAL) {
        mode &= ~TT_GENERAL;
    } else if (mode != TT_LESS_BEST_DROP) {
        int64_t value = tt_evaluate_one(S, counts, TT_MAX_CARDS, mode);
        if (value != TT_NOT_LEAN) return value;
    }
    const int drop = mode == TT_LESS_BEST_DROP;
    const int lex = mode == TT_POINTS_AND_COSTLIEST || mode == TT_PLAN; /* lexicographic */
    int64_t J = counts[52];
    int64_t M = (int64_t)counts[w] + counts[13 + w] + counts[26 + w] + counts[39 + w];
    int64_t W = J + M;
    if (W > TT_MAX_WILDS) return TT_NOT_CERTIFIED;
    int64_t top = par[TT_P_TOP];
    int64_t *codes = sc->codes, *masks = sc->masks;
    int64_t all_nat = 0, nat_md = -1, maxpos = 0, cards = W;
    int multi = 0;
    for (int s = 0; s < 4; s++) {
        int64_t c = 0, m = 0, npos = 0;
        const uint8_t *suit = counts + 13 * s;
        for (int64_t p = 0; p < 13; p++) {
            int64_t k = suit[p];
            if (k && p != w) {
                if (k > 7) return TT_NOT_CERTIFIED;
                c |= k << (3 * p);
                m |= (int64_t)1 << p;
                all_nat += k * par[p];
                cards += k;
                if (par[p] > nat_md) nat_md = par[p];
                npos++;
            }
        }
        if (c & TT_HI_FIELDS) {
            multi = 1;
            if (top == 14 && w != 0 && suit[0] >= 2) npos++;
        }
        codes[s] = c;
        masks[s] = m;
        if (npos > maxpos) maxpos = npos;
    }
    if (cards > TT_MAX_CARDS) return TT_TOO_MANY; /* refused (the Python side says why) */
    /* ws->rows[0..3]: V (points), MDr (costliest deadwood), DWr (deadwood), Gr (drop rows),
       each 8 rows: 0..3 the suits as they are, 4..7 at a leaf of the search. */
    const int64_t *Vc[8], *Gc[8];
    int64_t *V[8], *MDr[8], *DWr[8], *Gr[8];
    for (int r = 0; r < 8; r++) {
        Vc[r] = V[r] = ws->rows[0][r];
        MDr[r] = ws->rows[1][r];
        DWr[r] = ws->rows[2][r];
        Gc[r] = Gr[r] = ws->rows[3][r];
    }
    for (int s = 0; s < 4; s++) {
        if (multi) {
            tt_suit_row(S, codes[s], V[s], MDr[s], DWr[s]);
            if (drop) tt_drop_row(S, codes[s], Gr[s], MDr[4], DWr[4], DWr[5]);
        } else if (lex || drop) {
            int64_t m = masks[s];
            for (int64_t d = 0; d < TT_NB; d++) {
                V[s][d] = TT_ROW(TT, m, 0)[d];
                MDr[s][d] = TT_ROW(TT, m, 1)[d];
                Gr[s][d] = TT_ROW(TT, m, 3)[d];
            }
        }
    }
    int64_t *acc = sc->acc, *tmp = sc->tmp; /* tmp also holds tt_conv_lex's choices */
    int64_t *accmd = sc->accmd, *tmpmd = sc->tmpmd, *alloc = sc->alloc;
    int64_t *best_alloc = sc->best_alloc, *best_codes = sc->best_codes;
    int64_t best, best_md = 0;
    if (drop) {
        best = tt_conv_drop(Vc, Gc, W, acc, accmd, tmp, tmpmd);
    } else if (lex) {
        best = tt_conv_lex64(V[0], V[1], V[2], V[3], MDr[0], MDr[1], MDr[2], MDr[3], W, acc, accmd,
                             tmp, tmpmd, alloc);
        best_md = accmd[W];
        for (int s = 0; s < 4; s++) {
            best_alloc[s] = alloc[s];
            best_codes[s] = codes[s];
        }
    } else if (multi) {
        best = tt_conv64(V[0], V[1], V[2], V[3], W, acc, 0);
    } else {
        best = tt_conv_masks(TT, masks[0], masks[1], masks[2], masks[3], W, acc, 0);
    }
    int64_t best_D = 0, nsets = 0;
    /* Ranks that can hold a set: 2 natural cards or more (3 or more with no wilds). */
    int64_t minsize = W > 0 ? 2 : 3;
    int64_t *ranks = sc->ranks, *nopt = sc->nopt, *idx = sc->idx, *best_idx = sc->best_idx;
    int64_t *bound = sc->bound, *futmax = sc->futmax, *stD = sc->wilds, *stS = sc->points;
    int64_t(*stC)[4] = sc->level_codes; /* stC[j][s]: suit s's code at depth j */
    int64_t(*stM)[4] = sc->level_masks; /* the same as a 13-bit mask (one copy per card) */
    int64_t(*optD)[TT_MAX_OPTIONS] = sc->opt_wilds; /* optD[j][o]: option o of rank j */
    int64_t(*optS)[TT_MAX_OPTIONS] = sc->opt_points;
    int64_t(*optT)[TT_MAX_OPTIONS] = sc->opt_take;
    int64_t nr = 0;
    for (int64_t p = 0; p < 13; p++) {
        if (p == w) continue;
        int64_t c0 = tt_field(codes[0], p), c1 = tt_field(codes[1], p), c2 = tt_field(codes[2], p),
                c3 = tt_field(codes[3], p);
        if (c0 + c1 + c2 + c3 < minsize) continue;
        if ((c0 + 1) * (c1 + 1) * (c2 + 1) * (c3 + 1) > TT_MAX_OPTIONS) return TT_NOT_CERTIFIED;
        int64_t k = 1;
        int64_t *oD = optD[nr], *oS = optS[nr], *oT = optT[nr];
        oD[0] = 0;
        oS[0] = 0;
        oT[0] = 0;
        for (int64_t t0 = 0; t0 <= c0; t0++)
            for (int64_t t1 = 0; t1 <= c1; t1++)
                for (int64_t t2 = 0; t2 <= c2; t2++)
                    for (int64_t t3 = 0; t3 <= c3; t3++) {
                        int64_t size = t0 + t1 + t2 + t3;
                        if (size < minsize || (size < 3 && 3 - size > W)) continue;
                        oD[k] = size < 3 ? 3 - size : 0;
                        oS[k] = size * par[p];
                        oT[k] = t0 | (t1 << 3) | (t2 << 6) | (t3 << 9);
                        k++;
                    }
        ranks[nr] = p;
        nopt[nr] = k;
        nr++;
    }
    int best_has_set = 0;
    if (nr) {
        /* the bound: the suits as they are, at every budget (one convolution) */
        if (drop) {
            for (int64_t b = 0; b <= W; b++)
                bound[b] = tt_conv_drop(Vc, Gc, b, acc, accmd, tmp, tmpmd);
        } else if (multi || lex) {
            tt_conv64(V[0], V[1], V[2], V[3], W, bound, 1);
        } else {
            tt_conv_masks(TT, masks[0], masks[1], masks[2], masks[3], W, bound, 1);
        }
        futmax[nr] = 0;
        for (int64_t j = nr - 1; j >= 0; j--) {
            int64_t mx = 0;
            for (int64_t o = 0; o < nopt[j]; o++) mx = tt_max(mx, optS[j][o]);
            futmax[j] = futmax[j + 1] + mx;
        }
        /* Depth-first over the set ranks, one option each ("no set" first); level j holds the
           wilds needed, the points of the set cards and the suits left after ranks < j. The
           lexicographic modes also skip a bound equal to the best (points only keep it):
           among arrangements of equal points the costliest deadwood card is then the best of
           those met, not always of all. Harmless (every use of it stays exact), and the
           arrangement solve() lays down depends on it, so it stays (the lean search prunes
           alike, see tt_evaluate_one). */
        int64_t slack = lex ? 1 : 0;
        stD[0] = 0;
        stS[0] = 0;
        for (int s = 0; s < 4; s++) {
            stC[0][s] = codes[s];
            stM[0][s] = masks[s];
        }
        idx[0] = -1;
        int64_t j = 0, nodes = 0;
        while (j >= 0) {
            idx[j] += 1;
            int64_t o = idx[j];
            if (o >= nopt[j]) {
                j--;
                continue;
            }
            if (++nodes > TT_MAX_NODES) return TT_NOT_CERTIFIED;
            int64_t D = stD[j] + optD[j][o];
            int64_t sp = stS[j] + optS[j][o];
            if (D > W || bound[W - D] - sp - futmax[j + 1] + slack > best) continue;
            int64_t t = optT[j][o];
            int64_t p = ranks[j];
            for (int s = 0; s < 4; s++) {
                int64_t ts = (t >> (3 * s)) & 7;
                stC[j + 1][s] = stC[j][s] - (ts << (3 * p));
                stM[j + 1][s] = ts ? (stM[j][s] & ~((int64_t)1 << p)) : stM[j][s];
            }
            stD[j + 1] = D;
            stS[j + 1] = sp;
            if (j + 1 < nr) {
                j++;
                idx[j] = -1;
                continue;
            }
            if (sp == 0 || bound[W - D] - sp + slack > best) continue; /* no set, or hopeless */
            int64_t *leafC = stC[nr], *leafM = stM[nr];
            if (mode == TT_POINTS && !multi) {
                int64_t v = tt_conv_masks(TT, leafM[0], leafM[1], leafM[2], leafM[3], W - D, acc,
                                          0);
                if (v < best) {
                    best = v;
                    best_has_set = 1;
                }
                continue;
            }
            for (int s = 0; s < 4; s++) {
                if (leafC[s] == codes[s]) {
                    for (int64_t d = 0; d < TT_NB; d++) {
                        V[4 + s][d] = V[s][d];
                        MDr[4 + s][d] = MDr[s][d];
                        Gr[4 + s][d] = Gr[s][d];
                    }
                } else if (multi) {
                    tt_suit_row(S, leafC[s], V[4 + s], MDr[4 + s], DWr[4 + s]);
                    if (drop) tt_drop_row(S, leafC[s], Gr[4 + s], MDr[0], DWr[0], DWr[1]);
                } else {
                    int64_t m = leafM[s];
                    for (int64_t d = 0; d < TT_NB; d++) {
                        V[4 + s][d] = TT_ROW(TT, m, 0)[d];
                        MDr[4 + s][d] = TT_ROW(TT, m, 1)[d];
                        Gr[4 + s][d] = TT_ROW(TT, m, 3)[d];
                    }
                }
            }
            int64_t v, md = 0;
            int win;
            if (drop) {
                v = tt_conv_drop(Vc + 4, Gc + 4, W - D, acc, accmd, tmp, tmpmd);
                win = v < best;
            } else if (lex) {
                v = tt_conv_lex64(V[4], V[5], V[6], V[7], MDr[4], MDr[5], MDr[6], MDr[7], W - D,
                                  acc, accmd, tmp, tmpmd, alloc);
                md = accmd[W - D];
                win = tt_better(v, md, best, best_md);
            } else {
                v = tt_conv64(V[4], V[5], V[6], V[7], W - D, acc, 0);
                win = v < best;
            }
            if (win) {
                best = v;
                best_md = md;
                best_has_set = 1;
                best_D = D;
                nsets = 0;
                for (int64_t jj = 0; jj < nr; jj++) {
                    best_idx[jj] = idx[jj];
                    if (idx[jj]) nsets++;
                }
                for (int s = 0; s < 4; s++) {
                    best_alloc[s] = alloc[s];
                    best_codes[s] = leafC[s];
                }
            }
        }
    }
    if (drop) {
        /* One natural card dropped: an arrangement with a meld and a card to drop leaves less
           than all the natural cards less the costliest (what no meld leaves). */
        if (nat_md < 0) return TT_INF;
        if (best < all_nat - nat_md) {
            if (W > 0 && !best_has_set && maxpos > top - W) return TT_NOT_CERTIFIED;
            return best;
        }
        if (tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD])) return all_nat - nat_md;
        return all_nat - nat_md + J * par[52] + M * par[w];
    }
    int meld = best < all_nat;
    int wild_dead = 0;
    int64_t value;
    if (meld) {
        /* Some meld of natural cards exists; with no cap every spare wild joins one, provided
           a set is chosen or a run has room: sure when no suit holds more than top - W
           natural positions (a run of n naturals needs <= D gap wilds, has top - n - D room). */
        if (W > 0 && !best_has_set && maxpos > top - W) return TT_NOT_CERTIFIED;
        value = best;
    } else {
        /* No natural meld: the wilds alone (a set of the wild rank; jokers with all_wild). */
        value = all_nat;
        best_md = nat_md;
        nsets = 0;
        best_D = 0;
        wild_dead = !tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD]);
        if (wild_dead) {
            value += J * par[52] + M * par[w];
            if (J && par[52] > best_md) best_md = par[52];
            if (M && par[w] > best_md) best_md = par[w];
        }
    }
    ws->md = best_md;
    if (mode == TT_PLAN) {
        ws->nsets = nsets;
        ws->set_wilds = best_D;
        int64_t n = 0;
        if (meld && best_has_set) {
            for (int64_t jj = 0; jj < nr; jj++) {
                if (best_idx[jj]) {
                    ws->sets[n][0] = ranks[jj];
                    ws->sets[n][1] = optT[jj][best_idx[jj]];
                    n++;
                }
            }
        }
        int64_t *dead = ws->dead;
        for (int k = 0; k < 53; k++) dead[k] = 0;
        ws->all_nat = all_nat;
        ws->cards = cards;
        int64_t ndead = 0;
        for (int s = 0; s < 4; s++) {
            int64_t code, d, left;
            if (meld) {
                code = best_codes[s];
                d = best_alloc[s];
                tt_suit_row(S, code, V[4 + s], MDr[4 + s], DWr[4 + s]);
                left = DWr[4 + s][tt_min(d, TT_NB - 1)];
            } else {
                code = codes[s];
                d = 0;
                left = code;
            }
            ws->suits[s][0] = code;
            ws->suits[s][1] = d;
            ws->dead_codes[s] = left;
            for (int64_t p = 0; p < 13; p++) {
                dead[s * 13 + p] = tt_field(left, p);
                ndead += dead[s * 13 + p];
            }
        }
        ws->ndead = ndead;
        if (wild_dead) {
            dead[52] = J;
            for (int s = 0; s < 4; s++) dead[s * 13 + w] = counts[s * 13 + w];
        }
    }
    return value;
}

#endif /* TT_SOLVER_EVALUATE_H */
