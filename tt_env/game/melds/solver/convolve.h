/* The four suits together: min-plus convolutions of their rows sharing the wild cards (a part
   of solver.h: see there). */

#ifndef TT_SOLVER_CONVOLVE_H
#define TT_SOLVER_CONVOLVE_H

#include "tables.h"

/* -------------------------------------------------------------------------------- four suits */
/* The fewest total of four suit rows sharing b wilds: a min-plus convolution, in place in acc;
   with every, acc[0..b] holds the total at every budget (rows never rise with the budget, so
   the total at exactly i wilds is the fewest with at most i). Rows of the tables (int16) or
   of the scratch rows (int64): one body for both. */
#define TT_DEFINE_CONV(NAME, ROW)                                                                \
    static inline int64_t NAME(const ROW *r0, const ROW *r1, const ROW *r2, const ROW *r3,       \
                               int64_t b, int64_t *acc, int every) {                             \
        int64_t tot = (int64_t)r0[0] + r1[0] + r2[0] + r3[0];                                    \
        if (b == 0) {                                                                            \
            if (every) acc[0] = tot;                                                             \
            return tot;                                                                          \
        }                                                                                        \
        if (b == 1) {                                                                            \
            int64_t gain = tt_max(tt_max((int64_t)r0[0] - r0[1], (int64_t)r1[0] - r1[1]),        \
                                  tt_max((int64_t)r2[0] - r2[1], (int64_t)r3[0] - r3[1]));       \
            int64_t one = tot - gain;                                                            \
            if (every) {                                                                         \
                acc[0] = tot;                                                                    \
                acc[1] = one;                                                                    \
            }                                                                                    \
            return one;                                                                          \
        }                                                                                        \
        const int64_t last = TT_NB - 1;                                                          \
        for (int64_t i = 0; i <= b; i++) acc[i] = r0[tt_min(i, last)];                           \
        for (int s = 0; s < 3; s++) {                                                            \
            const ROW *r = s == 0 ? r1 : (s == 1 ? r2 : r3);                                     \
            if (r[last] == r[0]) { /* wilds do not help this suit */                             \
                for (int64_t i = 0; i <= b; i++) acc[i] += r[0];                                 \
                continue;                                                                        \
            }                                                                                    \
            for (int64_t i = b; i >= 0; i--) { /* in place: acc[i - d] is the previous suit's */ \
                int64_t best = acc[i] + r[0];                                                    \
                int64_t top = tt_min(i, last);                                                   \
                for (int64_t d = 1; d <= top; d++) {                                             \
                    int64_t v = acc[i - d] + r[d];                                               \
                    if (v < best) best = v;                                                      \
                }                                                                                \
                acc[i] = best;                                                                   \
            }                                                                                    \
        }                                                                                        \
        return acc[b];                                                                           \
    }
TT_DEFINE_CONV(tt_conv16, int16_t)
TT_DEFINE_CONV(tt_conv64, int64_t)

/* Lexicographic (points, costliest deadwood) convolution of four suits' rows (points v,
   costliest deadwood g) at b wilds; returns the points, and the costliest deadwood and the
   wilds per suit (alloc) of the best allocation in accmd[b] / alloc (among equals the first
   found: the fewest wilds to the later suits). tmp: 500 entries (it also holds the choices). */
#define TT_DEFINE_CONV_LEX(NAME, ROW)                                                          \
    static inline int64_t NAME(const ROW *v0, const ROW *v1, const ROW *v2, const ROW *v3,     \
                               const ROW *g0, const ROW *g1, const ROW *g2, const ROW *g3,     \
                               int64_t b, int64_t *acc, int64_t *accmd, int64_t *tmp,          \
                               int64_t *tmpmd, int64_t *alloc) {                               \
        const ROW *vs[4] = {v0, v1, v2, v3};                                                   \
        const ROW *gs[4] = {g0, g1, g2, g3};                                                   \
        if (b <= 1) { /* the same, unrolled: the wild (if any) to the last suit it improves */ \
            int64_t a0 = v0[0], md0 = g0[0], a1 = v0[b], md1 = g0[b];                          \
            int who = 0;                                                                       \
            for (int s = 1; s < 4; s++) {                                                      \
                const ROW *v = vs[s], *g = gs[s];                                              \
                if (b) {                                                                       \
                    int64_t x = a0 + v[1];                                                     \
                    int64_t xmd = tt_max(md0, g[1]);                                           \
                    a1 += v[0];                                                                \
                    md1 = tt_max(md1, g[0]);                                                   \
                    if (tt_better(x, xmd, a1, md1)) {                                          \
                        a1 = x;                                                                \
                        md1 = xmd;                                                             \
                        who = s;                                                               \
                    }                                                                          \
                }                                                                              \
                a0 += v[0];                                                                    \
                md0 = tt_max(md0, g[0]);                                                       \
            }                                                                                  \
            for (int s = 0; s < 4; s++) alloc[s] = 0;                                          \
            alloc[who] = b;                                                                    \
            accmd[b] = b ? md1 : md0;                                                          \
            return b ? a1 : a0;                                                                \
        }                                                                                      \
        const int64_t last = TT_NB - 1;                                                        \
        const int64_t cw = TT_MAX_WILDS + 1;                                                   \
        int64_t *choice = tmp + cw; /* choice[s * cw + i]: the wilds given to suit s */        \
        for (int64_t i = 0; i <= b; i++) {                                                     \
            acc[i] = v0[tt_min(i, last)];                                                      \
            accmd[i] = g0[tt_min(i, last)];                                                    \
            choice[i] = i;                                                                     \
        }                                                                                      \
        for (int s = 1; s < 4; s++) {                                                          \
            const ROW *v = vs[s], *g = gs[s];                                                  \
            for (int64_t i = 0; i <= b; i++) {                                                 \
                int64_t bv = acc[i] + v[0];                                                    \
                int64_t bmd = tt_max(accmd[i], g[0]);                                          \
                int64_t bd = 0;                                                                \
                int64_t top = tt_min(i, last);                                                 \
                for (int64_t d = 1; d <= top; d++) {                                           \
                    int64_t x = acc[i - d] + v[d];                                             \
                    int64_t md = tt_max(accmd[i - d], g[d]);                                   \
                    if (tt_better(x, md, bv, bmd)) {                                           \
                        bv = x;                                                                \
                        bmd = md;                                                              \
                        bd = d;                                                                \
                    }                                                                          \
                }                                                                              \
                tmp[i] = bv;                                                                   \
                tmpmd[i] = bmd;                                                                \
                choice[s * cw + i] = bd;                                                       \
            }                                                                                  \
            for (int64_t i = 0; i <= b; i++) {                                                 \
                acc[i] = tmp[i];                                                               \
                accmd[i] = tmpmd[i];                                                           \
            }                                                                                  \
        }                                                                                      \
        int64_t i = b;                                                                         \
        for (int s = 3; s > 0; s--) {                                                          \
            alloc[s] = choice[s * cw + i];                                                     \
            i -= choice[s * cw + i];                                                           \
        }                                                                                      \
        alloc[0] = i;                                                                          \
        return acc[b];                                                                         \
    }
TT_DEFINE_CONV_LEX(tt_conv_lex16, int16_t)
TT_DEFINE_CONV_LEX(tt_conv_lex64, int64_t)

/* Fewest total of four suits sharing b wilds with one card dropped from one of them (its drop
   row g; the others' rows r). */
static inline int64_t tt_conv_drop(const int64_t **r, const int64_t **g, int64_t b, int64_t *acc,
                                   int64_t *acc1, int64_t *tmp, int64_t *tmp1) {
    const int64_t last = TT_NB - 1;
    for (int64_t i = 0; i <= b; i++) {
        acc[i] = r[0][tt_min(i, last)];
        acc1[i] = g[0][tt_min(i, last)];
    }
    for (int s = 1; s < 4; s++) {
        const int64_t *rs = r[s], *gs = g[s];
        for (int64_t i = 0; i <= b; i++) {
            int64_t best0 = acc[i] + rs[0];
            int64_t best1 = tt_min(acc1[i] + rs[0], acc[i] + gs[0]);
            int64_t top = tt_min(i, last);
            for (int64_t d = 1; d <= top; d++) {
                int64_t v0 = acc[i - d] + rs[d];
                if (v0 < best0) best0 = v0;
                int64_t v1 = tt_min(acc1[i - d] + rs[d], acc[i - d] + gs[d]);
                if (v1 < best1) best1 = v1;
            }
            tmp[i] = best0;
            tmp1[i] = best1;
        }
        for (int64_t i = 0; i <= b; i++) {
            acc[i] = tmp[i];
            acc1[i] = tmp1[i];
        }
    }
    return acc1[b];
}

#endif /* TT_SOLVER_CONVOLVE_H */
