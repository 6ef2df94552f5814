/* The values after a draw: for every card that may be drawn, the fewest penalty of the hand
   with it after its best discard, most of them in one pass over the hand's set choices (a part
   of solver.h: see there). */

#ifndef TT_SOLVER_DRAWS_H
#define TT_SOLVER_DRAWS_H

#include "discard.h"

/* Whether the natural card kind x can be in any meld of the hand b + x (53 counts; W wild
   cards in b). If not, x is deadwood in every arrangement of b + x.

   A set holding x needs two more cards of its rank, naturals or wilds; a run holding x and at
   most one wild has another natural of its suit within two places, and one with no wild three
   consecutive naturals; two wilds meld any card. */
static int tt_can_meld(int64_t x, const uint8_t *b, int64_t w, int64_t top, int64_t W) {
    if (W >= 2) return 1;
    int64_t s = x / 13, p = x % 13, n = 0;
    for (int t = 0; t < 4; t++)
        if (p != w) n += b[t * 13 + p];
    if (n + W >= 2) return 1;
    /* suited naturals at positions 1..14 (an ace also at 14 with aces high) */
    int64_t near = 0;
    for (int64_t q = 0; q < 13; q++) {
        if (q != w && b[s * 13 + q]) {
            near |= (int64_t)1 << (q + 1);
            if (q == 0 && top == 14) near |= (int64_t)1 << 14;
        }
    }
    int64_t places = (int64_t)1 << (p + 1);
    if (p == 0 && top == 14) places |= (int64_t)1 << 14;
    for (int64_t pos = 1; pos < 15; pos++) {
        if (!((places >> pos) & 1)) continue;
        if (W == 1) {
            static const int64_t steps[4] = {-2, -1, 1, 2};
            for (int i = 0; i < 4; i++) {
                int64_t q = pos + steps[i];
                if (1 <= q && q <= top && ((near >> q) & 1)) return 1;
            }
        } else {
            for (int64_t lowp = pos - 2; lowp <= pos; lowp++) {
                if (lowp < 1 || lowp + 2 > top) continue;
                int ok = 1;
                for (int64_t q = lowp; q < lowp + 3; q++)
                    if (q != pos && !((near >> q) & 1)) ok = 0;
                if (ok) return 1;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ every draw at once */
/* out[i] for i = 0..B: the fewest total of the rows r[4][NB] but skip sharing i wilds (with
   drop, out1[i]: the same with one card dropped from one of them, its drop row g). */
static void tt_vec3(const int64_t (*r)[TT_NB], const int64_t (*g)[TT_NB], int drop, int skip,
                    int64_t B, int64_t *out, int64_t *out1, int64_t *tmp, int64_t *tmp1) {
    const int64_t last = TT_NB - 1;
    int first = 1;
    for (int s = 0; s < 4; s++) {
        if (s == skip) continue;
        if (first) {
            for (int64_t i = 0; i <= B; i++) {
                out[i] = r[s][tt_min(i, last)];
                if (drop) out1[i] = g[s][tt_min(i, last)];
            }
            first = 0;
            continue;
        }
        for (int64_t i = 0; i <= B; i++) {
            int64_t b0 = out[i] + r[s][0];
            int64_t b1 = drop ? tt_min(out1[i] + r[s][0], out[i] + g[s][0]) : 0;
            int64_t top = tt_min(i, last);
            for (int64_t d = 1; d <= top; d++) {
                int64_t v0 = out[i - d] + r[s][d];
                if (v0 < b0) b0 = v0;
                if (drop) {
                    int64_t v1 = tt_min(out1[i - d] + r[s][d], out[i - d] + g[s][d]);
                    if (v1 < b1) b1 = v1;
                }
            }
            tmp[i] = b0;
            if (drop) tmp1[i] = b1;
        }
        for (int64_t i = 0; i <= B; i++) {
            out[i] = tmp[i];
            if (drop) out1[i] = tmp1[i];
        }
    }
}

/* The rows (and drop rows) of the four suits lc (codes) into rT, rG. */
static void tt_leaf_rows(const tt_solver *S, const int64_t *lc, int multi, int64_t (*rT)[TT_NB],
                         int64_t (*rG)[TT_NB], int dropping, int64_t *sv, int64_t *smd,
                         int64_t *sdw) {
    for (int s = 0; s < 4; s++) {
        int64_t code = lc[s];
        if (multi && (code & TT_HI_FIELDS)) {
            tt_suit_row(S, code, rT[s], smd, sdw);
            if (dropping) tt_drop_row(S, code, rG[s], sv, smd, sdw);
        } else {
            int64_t m = tt_mask_of(code);
            for (int64_t d = 0; d < TT_NB; d++) {
                rT[s][d] = TT_ROW(S->tab->TT, m, 0)[d];
                rG[s][d] = TT_ROW(S->tab->TT, m, 3)[d];
            }
        }
    }
}

/* For each natural kind x = xs[i] (i < nx): res[x], the fewest penalty of base + x (dropping
   0) or of base + x less its best natural card to drop (1: tt_evaluate()'s TT_LESS_BEST_DROP),
   all in one pass over base's set choices. Returns 0, or -1 when the caller must value the
   draws one by one (too many set choices); an entry TT_NOT_CERTIFIED marks a value this method
   cannot certify.

   Part A: x stands in its suit's row. Each choice of sets of base (a leaf) is combined with
   every x: the other three suits' rows are convolved once per leaf and suit, so x costs one
   pass over the budgets. Part B: x in a set of its rank with cards of base: the same leaves
   with that rank's options replaced by x's sets, whatever x's suit. */
static int64_t tt_draws_at_once(const tt_solver *S, const uint8_t *base, const int64_t *xs,
                                int64_t nx, int dropping, int64_t *res) {
    const int64_t *par = S->par;
    const int16_t *TT = S->tab->TT;
    const int64_t w = S->w;
    int64_t J = base[52];
    int64_t M = (int64_t)base[w] + base[13 + w] + base[26 + w] + base[39 + w];
    int64_t W = J + M;
    if (W > TT_MAX_WILDS) return -1;
    int64_t top = par[TT_P_TOP];
    int64_t codes[4] = {0}, npos[4] = {0};
    int64_t all_nat = 0, nat_md = -1;
    int multi = 0;
    for (int s = 0; s < 4; s++) {
        int64_t c = 0;
        for (int64_t p = 0; p < 13; p++) {
            int64_t k = base[s * 13 + p];
            if (k && p != w) {
                if (k > 6) return -1;
                c |= k << (3 * p);
                all_nat += k * par[p];
                nat_md = tt_max(nat_md, par[p]);
                npos[s] += 1;
            }
        }
        codes[s] = c;
    }
    for (int64_t i = 0; i < nx; i++) /* x may make a second copy */
        if (tt_field(codes[xs[i] / 13], xs[i] % 13)) multi = 1;
    for (int s = 0; s < 4; s++)
        if (codes[s] & TT_HI_FIELDS) multi = 1;
    /* Set options of base (as tt_evaluate), and of base + x at x's rank (x in the set). */
    int64_t minsize = W > 0 ? 2 : 3;
    int64_t ranks[13], rank_of[13];
    int64_t nr = 0;
    for (int p = 0; p < 13; p++) rank_of[p] = -1;
    for (int64_t p = 0; p < 13; p++) {
        if (p == w) continue;
        int64_t c0 = tt_field(codes[0], p), c1 = tt_field(codes[1], p), c2 = tt_field(codes[2], p),
                c3 = tt_field(codes[3], p);
        if (c0 + c1 + c2 + c3 == 0) continue;
        if ((c0 + 1) * (c1 + 1) * (c2 + 1) * (c3 + 1) > TT_MAX_OPTIONS) return -1;
        ranks[nr] = p;
        rank_of[p] = nr;
        nr++;
    }
    /* optD/optT: the options of base at each rank ("no set" first); optDB/optTB: with x added
       (size + 1) */
    int64_t optD[13][TT_MAX_OPTIONS], optT[13][TT_MAX_OPTIONS];
    int64_t optDB[13][TT_MAX_OPTIONS], optTB[13][TT_MAX_OPTIONS];
    int64_t nA[13] = {0}, nB[13] = {0};
    for (int64_t j = 0; j < nr; j++) {
        int64_t p = ranks[j];
        int64_t c0 = tt_field(codes[0], p), c1 = tt_field(codes[1], p), c2 = tt_field(codes[2], p),
                c3 = tt_field(codes[3], p);
        optD[j][0] = 0;
        optT[j][0] = 0;
        int64_t ka = 1, kb = 0;
        for (int64_t t0 = 0; t0 <= c0; t0++)
            for (int64_t t1 = 0; t1 <= c1; t1++)
                for (int64_t t2 = 0; t2 <= c2; t2++)
                    for (int64_t t3 = 0; t3 <= c3; t3++) {
                        int64_t size = t0 + t1 + t2 + t3;
                        int64_t t = t0 | (t1 << 3) | (t2 << 6) | (t3 << 9);
                        if (size >= minsize && !(size < 3 && 3 - size > W)) {
                            optD[j][ka] = size < 3 ? 3 - size : 0;
                            optT[j][ka] = t;
                            ka++;
                        }
                        int64_t sb = size + 1;
                        if (size >= 1 && sb >= minsize && !(sb < 3 && 3 - sb > W)) {
                            optDB[j][kb] = sb < 3 ? 3 - sb : 0;
                            optTB[j][kb] = t;
                            kb++;
                        }
                    }
        nA[j] = ka;
        nB[j] = kb;
    }
    /* Leaves: every choice of base's options (Part A), then per rank with x-sets (Part B). */
    int64_t best[53];
    uint8_t hasset[53] = {0};
    for (int k = 0; k < 53; k++) best[k] = (int64_t)1 << 40;
    int64_t rT[4][TT_NB], rG[4][TT_NB], xT[TT_NB], xG[TT_NB], sv[TT_NB], smd[TT_NB], sdw[TT_NB];
    int64_t P[4][TT_WB], Q[4][TT_WB], t1[TT_WB], t2[TT_WB];
    int64_t lc[4], idx[14] = {0};
    uint8_t need_b[13] = {0};
    for (int64_t i = 0; i < nx; i++) {
        int64_t j = rank_of[xs[i] % 13];
        if (j >= 0 && nB[j] > 0) need_b[j] = 1;
    }
    int64_t leaves = 0;
    for (int64_t part = 0; part < 1 + nr; part++) {
        int64_t jb = part - 1; /* Part B for the rank index jb (Part A: -1) */
        if (jb >= 0 && !need_b[jb]) continue;
        for (int64_t j = 0; j < nr; j++) idx[j] = 0;
        for (;;) {
            /* the leaf idx: options per rank (rank jb from the x-set options) */
            int64_t D = 0;
            int has = 0;
            for (int s = 0; s < 4; s++) lc[s] = codes[s];
            for (int64_t j = 0; j < nr; j++) {
                int64_t o = idx[j], t;
                if (j == jb) {
                    D += optDB[j][o];
                    t = optTB[j][o];
                    has = 1;
                } else if (o) {
                    D += optD[j][o];
                    t = optT[j][o];
                    has = 1;
                } else {
                    continue;
                }
                int64_t p = ranks[j];
                for (int s = 0; s < 4; s++) lc[s] -= ((t >> (3 * s)) & 7) << (3 * p);
            }
            if (D <= W) {
                if (++leaves > 4096) return -1;
                int64_t B = W - D;
                tt_leaf_rows(S, lc, multi, rT, rG, dropping, sv, smd, sdw);
                if (jb >= 0) {
                    /* x in the set: the rows are base's less the set's cards, whatever x is */
                    tt_vec3((const int64_t(*)[TT_NB])rT, (const int64_t(*)[TT_NB])rG, dropping, -1,
                            B, P[0], Q[0], t1, t2);
                    int64_t v = dropping ? Q[0][B] : P[0][B];
                    for (int64_t i = 0; i < nx; i++) {
                        int64_t x = xs[i];
                        if (rank_of[x % 13] == jb && v < best[x]) {
                            best[x] = v;
                            hasset[x] = 1;
                        }
                    }
                } else {
                    for (int s = 0; s < 4; s++)
                        tt_vec3((const int64_t(*)[TT_NB])rT, (const int64_t(*)[TT_NB])rG, dropping,
                                s, B, P[s], Q[s], t1, t2);
                    for (int64_t i = 0; i < nx; i++) {
                        int64_t x = xs[i];
                        int64_t s = x / 13, p = x % 13;
                        int64_t code2 = lc[s] + ((int64_t)1 << (3 * p));
                        int single = (code2 & TT_HI_FIELDS) == 0;
                        int64_t m2 = 0;
                        if (single) {
                            m2 = tt_mask_of(code2);
                        } else {
                            tt_suit_row(S, code2, xT, smd, sdw);
                            if (dropping) tt_drop_row(S, code2, xG, sv, smd, sdw);
                        }
                        int64_t v = (int64_t)1 << 40;
                        int64_t dmax = tt_min(B, TT_NB - 1);
                        for (int64_t d = 0; d <= dmax; d++) {
                            int64_t tv, gv;
                            if (single) {
                                tv = TT_ROW(TT, m2, 0)[d];
                                gv = TT_ROW(TT, m2, 3)[d];
                            } else {
                                tv = xT[d];
                                gv = dropping ? xG[d] : 0;
                            }
                            int64_t u = dropping ? tt_min(Q[s][B - d] + tv, P[s][B - d] + gv)
                                                 : P[s][B - d] + tv;
                            if (u < v) v = u;
                        }
                        if (v < best[x]) {
                            best[x] = v;
                            hasset[x] = (uint8_t)has;
                        }
                    }
                }
            }
            /* next leaf */
            int64_t j = 0;
            while (j < nr) {
                idx[j] += 1;
                if (idx[j] < (j == jb ? nB[j] : nA[j])) break;
                idx[j] = 0;
                j++;
            }
            if (j == nr) break;
        }
    }
    /* The final rule of tt_evaluate(), per x. */
    for (int64_t i = 0; i < nx; i++) {
        int64_t x = xs[i];
        int64_t s = x / 13, p = x % 13;
        int64_t nat_x = all_nat + par[x];
        int64_t md_x = tt_max(nat_md, par[x]);
        int64_t pos = npos[s] + (tt_field(codes[s], p) ? 0 : 1);
        if (top == 14 && w != 0) {
            int64_t aces = (codes[s] & 7) + (p == 0 ? 1 : 0);
            if (aces >= 2) pos += 1;
        }
        int64_t maxpos = pos;
        for (int t = 0; t < 4; t++) {
            int64_t other = npos[t] + ((top == 14 && w != 0 && (codes[t] & 7) >= 2) ? 1 : 0);
            if (t != s && other > maxpos) maxpos = other;
        }
        int64_t limit = dropping ? nat_x - md_x : nat_x;
        if (best[x] < limit) {
            res[x] = (W > 0 && !hasset[x] && maxpos > top - W) ? TT_NOT_CERTIFIED : best[x];
        } else if (tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD])) {
            res[x] = limit;
        } else {
            res[x] = limit + J * par[52] + M * par[w];
        }
    }
    return 0;
}

/* The fewest penalty of the hand `c` (b + x: the card x just drawn) after discarding one card
   other than x, or `best` (what discarding x leaves, or any bound) when none leaves less:
   the best natural card to drop (one search over the hand less any natural card,
   tt_evaluate()'s TT_LESS_BEST_DROP), then each wild kind held on its own. It stops as soon
   as it has a value below `stop` (INT64_MIN: never). TT_NOT_CERTIFIED where the kernel cannot
   certify a value it needs. `c` is left as it was. */
static inline int64_t tt_best_discard_after_draw(const tt_solver *S, uint8_t *c, int64_t x,
                                                 int64_t best, int64_t stop) {
    int64_t u = tt_evaluate(S, c, TT_LESS_BEST_DROP);
    if (u < 0) return TT_NOT_CERTIFIED;
    if (u < best) best = u;
    for (int64_t k = 0; k < 53 && best >= stop; k++) {
        if (c[k] && k != x && (k == 52 || k % 13 == S->w)) {
            c[k] -= 1;
            u = tt_evaluate(S, c, TT_POINTS);
            c[k] += 1;
            if (u < 0) return TT_NOT_CERTIFIED;
            if (u < best) best = u;
        }
    }
    return best;
}

/* For every kind x with weights[x] > 0: out[x], the fewest penalty of b + x after its best
   discard (any card, x itself included). dv: the discard values of b (as tt_discard_values).
   Returns b's own value; TT_NOT_CERTIFIED anywhere (value or an entry of out) marks what the
   kernel could not certify.

   A card that cannot meld with b (see tt_can_meld) is valued in closed form: keep it and make
   b's best discard, or throw it back. For the others one search finds the best natural card
   to drop from b + x (tt_evaluate(), TT_LESS_BEST_DROP); each wild kind held is tried as a
   discard on its own. */
static inline int64_t tt_after_draw_values(const tt_solver *S, const uint8_t *b,
                                           const int64_t *weights, int64_t *out, int64_t *dv) {
    const int64_t *par = S->par;
    const int64_t w = S->w;
    int64_t value = tt_discard_values(S, b, dv);
    for (int k = 0; k < 53; k++) out[k] = 0;
    if (value < 0) {
        for (int k = 0; k < 53; k++)
            if (weights[k] > 0) out[k] = TT_NOT_CERTIFIED;
        return value;
    }
    int64_t best_drop = value; /* b's best discard, or b itself when it is empty */
    int exact = 1, first = 1;
    for (int k = 0; k < 53; k++) {
        if (dv[k] >= 0) {
            if (first || dv[k] < best_drop) {
                best_drop = dv[k];
                first = 0;
            }
        } else if (dv[k] == TT_NOT_CERTIFIED) {
            exact = 0;
        }
    }
    int64_t top = par[TT_P_TOP];
    int64_t W = (int64_t)b[52] + b[w] + b[13 + w] + b[26 + w] + b[39 + w];
    uint8_t c[53];
    memcpy(c, b, 53);
    /* The natural cards that can meld: all at once (one search over b's set choices for the
       best card to drop, one more per wild kind held for discarding that wild instead). */
    int64_t xs[53];
    int64_t nx = 0;
    for (int64_t x = 0; x < 53; x++) {
        if (weights[x] > 0 && x != 52 && x % 13 != w) {
            if (tt_can_meld(x, b, w, top, W))
                xs[nx++] = x;
            else
                out[x] = exact ? tt_min(value, par[x] + best_drop) : TT_NOT_CERTIFIED;
        }
    }
    int64_t batch[53];
    for (int k = 0; k < 53; k++) batch[k] = -1;
    if (nx && !tt_capped(S)) { /* a cap: each draw on its own below */
        int64_t res[53];
        if (tt_draws_at_once(S, b, xs, nx, 1, res) == 0) {
            for (int64_t i = 0; i < nx; i++)
                batch[xs[i]] = res[xs[i]] >= 0 ? tt_min(value, res[xs[i]]) : -1;
            for (int64_t k = 0; k < 53; k++) {
                if (b[k] && (k == 52 || k % 13 == w)) {
                    c[k] -= 1;
                    int64_t ok = tt_draws_at_once(S, c, xs, nx, 0, res);
                    c[k] += 1;
                    for (int64_t i = 0; i < nx; i++) {
                        int64_t x = xs[i];
                        if (ok != 0 || res[x] < 0)
                            batch[x] = -1;
                        else if (batch[x] >= 0 && res[x] < batch[x])
                            batch[x] = res[x];
                    }
                }
            }
        }
    }
    for (int64_t x = 0; x < 53; x++) {
        if (weights[x] <= 0) continue;
        int wild = x == 52 || x % 13 == w;
        if (!wild && !tt_can_meld(x, b, w, top, W)) continue;
        if (!wild && batch[x] >= 0) {
            out[x] = batch[x];
            continue;
        }
        c[x] += 1; /* its best discard: x itself (back to b, `value`) or another card */
        out[x] = tt_best_discard_after_draw(S, c, x, value, INT64_MIN);
        c[x] -= 1;
    }
    return value;
}

#endif /* TT_SOLVER_DRAWS_H */
