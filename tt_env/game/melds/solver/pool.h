/* The pool of wild cards: what jokers and wild-rank cards cost once the natural melds have
   taken what they need and can hold (a part of solver.h: see there). The same definitions as
   tt_env.game.melds._config (_Config.feasible, rest, leaf, leaf_plan, _partition), in the same
   order, so that a plan spelled out here is the one the Python solver spells out.

   The pool's own melds are sets of the wild rank (one wild-rank card or more, natural there,
   and at most `cap` jokers; three cards or more) and, with all_wild_melds, melds of 3 .. cap
   jokers. */

#ifndef TT_SOLVER_POOL_H
#define TT_SOLVER_POOL_H

#include "basics.h"

#define TT_POOL_MAX (TT_MAX_HAND + 1)  /* jokers or wild-rank cards: 0 .. TT_MAX_HAND */
#define TT_POOL_INF ((int64_t)1 << 62) /* "no such use of the pool" */

/* The pool of one hand: J jokers and M wild-rank cards, and what the rules make of them. */
typedef struct {
    int64_t J, M;            /* the tables below cover 0..J jokers and 0..M wild-rank cards */
    int64_t cap;             /* wilds one meld takes at most (TT_NO_CAP: any number) */
    int64_t all_wild;        /* 1 with all_wild_melds */
    int64_t joker_penalty;   /* a leftover joker's */
    int64_t wild_penalty[2]; /* a leftover wild-rank card's: [0] its penalty, [1] none (a sink
                                  on the table takes it) */
    uint8_t feasible[TT_POOL_MAX][TT_POOL_MAX]; /* [pj][pm]: pj jokers and pm wild-rank cards
                                                   form melds of their own */
    int64_t rest[2][TT_POOL_MAX][TT_POOL_MAX];  /* [sink][j][m]: the fewest points of j jokers
                                                   and m wild-rank cards no natural meld takes */
} tt_pool;

/* Whether pj jokers and pm wild-rank cards can make one meld of their own of x wild-rank cards
   and y jokers with the rest still feasible: the first such (x, y) in the Python solver's order
   into *x, *y (0 when there is none). */
static inline int tt_pool_group(const tt_pool *P, int64_t pj, int64_t pm, int64_t *x, int64_t *y) {
    for (int64_t a = 1; a <= pm; a++) {
        for (int64_t b = 0; b <= tt_min(pj, P->cap); b++) {
            if (a + b >= 3 && P->feasible[pj - b][pm - a]) {
                *x = a;
                *y = b;
                return 1;
            }
        }
    }
    return 0;
}

/* Fill the pool's tables for J jokers and M wild-rank cards (each at most TT_MAX_CARDS). */
static inline void tt_pool_init(tt_pool *P, int64_t J, int64_t M, int64_t cap, int64_t all_wild,
                                int64_t joker_penalty, int64_t wild_penalty) {
    P->J = J;
    P->M = M;
    P->cap = cap;
    P->all_wild = all_wild;
    P->joker_penalty = joker_penalty;
    P->wild_penalty[0] = wild_penalty;
    P->wild_penalty[1] = 0;
    /* feasible, by wild-rank cards and then jokers: each entry reads smaller ones only */
    for (int64_t pm = 0; pm <= M; pm++) {
        for (int64_t pj = 0; pj <= J; pj++) {
            int64_t x, y;
            int ok = pj == 0 && pm == 0;
            if (!ok && pm > 0) ok = tt_pool_group(P, pj, pm, &x, &y);
            if (!ok && all_wild && pj >= 3) {
                for (int64_t b = 3; b <= tt_min(pj, cap) && !ok; b++) ok = P->feasible[pj - b][pm];
            }
            P->feasible[pj][pm] = (uint8_t)ok;
        }
    }
    for (int sink = 0; sink < 2; sink++) {
        for (int64_t j = 0; j <= J; j++) {
            for (int64_t m = 0; m <= M; m++) {
                int64_t best = TT_POOL_INF;
                for (int64_t pj = 0; pj <= j; pj++) {
                    for (int64_t pm = 0; pm <= m; pm++) {
                        int64_t cost = (j - pj) * joker_penalty + (m - pm) * P->wild_penalty[sink];
                        if (cost < best && P->feasible[pj][pm]) best = cost;
                    }
                }
                P->rest[sink][j][m] = best;
            }
        }
    }
}

/* The fewest points of the pool (j jokers, m wild-rank cards) when the natural melds need d
   wilds in all and take h at most (_Config.leaf); sink: a leftover wild-rank card costs 0. */
static inline int64_t tt_pool_leaf(const tt_pool *P, int sink, int64_t j, int64_t m, int64_t d,
                                   int64_t h) {
    int64_t value = TT_POOL_INF;
    if (d > j + m) return value;
    for (int64_t a = 0; a <= j; a++) {
        for (int64_t b = tt_max(0, d - a); b <= tt_min(m, h - a); b++) {
            int64_t cost = P->rest[sink][j - a][m - b];
            if (cost < value) value = cost;
        }
    }
    return value;
}

/* An optimal use of the pool (_Config.leaf_plan): a jokers and b wild-rank cards to the natural
   melds, and the pool's own melds as (wild-rank cards, jokers) pairs in groups[][2]; returns
   how many groups (at most TT_POOL_MAX), or -1 when there is no plan (unreachable: the search
   reached this leaf). */
static inline int64_t tt_pool_plan(const tt_pool *P, int sink, int64_t j, int64_t m, int64_t d,
                                   int64_t h, int64_t *a_out, int64_t *b_out,
                                   int64_t (*groups)[2]) {
    int64_t target = tt_pool_leaf(P, sink, j, m, d, h);
    for (int64_t a = 0; a <= j; a++) {
        for (int64_t b = tt_max(0, d - a); b <= tt_min(m, h - a); b++) {
            int64_t j2 = j - a, m2 = m - b;
            for (int64_t pj = 0; pj <= j2; pj++) {
                for (int64_t pm = 0; pm <= m2; pm++) {
                    int64_t cost = (j2 - pj) * P->joker_penalty + (m2 - pm) * P->wild_penalty[sink];
                    if (cost != target || !P->feasible[pj][pm]) continue;
                    *a_out = a;
                    *b_out = b;
                    int64_t n = 0; /* _partition: the first group found, again and again */
                    while (pj || pm) {
                        int64_t x = 0, y = 0;
                        if (!(pm > 0 && tt_pool_group(P, pj, pm, &x, &y))) {
                            for (y = 3; y <= tt_min(pj, P->cap); y++)
                                if (P->feasible[pj - y][pm]) break;
                            if (y > tt_min(pj, P->cap)) return -1; /* unreachable: feasible */
                            x = 0;
                        }
                        groups[n][0] = x;
                        groups[n][1] = y;
                        n++;
                        pm -= x;
                        pj -= y;
                    }
                    return n;
                }
            }
        }
    }
    return -1;
}

#endif /* TT_SOLVER_POOL_H */
