/* A cap on wilds per meld (max_wilds_per_meld): tt_evaluate() and tt_arrange() of a capped
   configuration (a part of solver.h: see there).

   With a cap, the suit tables' argument (every spare wild joins a meld once one exists) fails,
   and so does one set per rank (two sets of a rank take twice the wilds). A capped
   configuration takes the exact search of redemption (layoff_search.h) with no table: it is
   the Python solver's exact search (tt_env.game.melds._search) with the wild-rank cards searched
   as naturals, the same options in the same order, and its plan spelled out as the Python
   solver spells out a plan (_assemble). Every function of the kernel that the layers above call
   reaches it through tt_evaluate() and tt_arrange(), which ask tt_capped() first. */

#ifndef TT_SOLVER_CAPPED_H
#define TT_SOLVER_CAPPED_H

#include "layoff.h"
#include "workspace.h"

/* Whether the configuration caps the wilds of a meld. */
static inline int tt_capped(const tt_solver *S) { return S->par[TT_P_CAP] < TT_NO_CAP; }

/* The fewest penalty of the hand with a cap, and with `plan` its best arrangement; a status
   other than TT_LAYOFF_DONE leaves the hand to the Python solver. */
static inline tt_layoff_status tt_capped_solve(const tt_solver *S, const uint8_t *counts,
                                               int64_t *value, tt_layoff *plan) {
    const tt_layoff_input in = {counts, 0, NULL};
    return tt_lo_solve(S, &in, TT_MAX_CARDS, value, plan);
}

/* tt_evaluate() of a capped configuration, in every mode (TT_GENERAL ignored): TT_PLAN leaves
   the deadwood of the best arrangement in ws->dead (and its natural cards' count in ws->ndead,
   no sets or suits: tt_arrange() spells a capped plan out itself), TT_POINTS_AND_COSTLIEST and
   TT_PLAN the costliest card of that deadwood in ws->md (-1 for none); TT_LESS_BEST_DROP the
   fewest penalty less the best natural card to drop (TT_INF when none is held). */
static inline int64_t tt_capped_evaluate(const tt_solver *S, const uint8_t *counts, int mode) {
    mode &= ~TT_GENERAL;
    if (tt_hand_size(counts) > TT_MAX_CARDS) return TT_TOO_MANY;
    int64_t value;
    if (mode == TT_LESS_BEST_DROP) {
        uint8_t hand[53];
        memcpy(hand, counts, 53);
        int64_t best = TT_INF;
        for (int k = 0; k < 52; k++) {
            if (!hand[k] || k % 13 == S->w) continue;
            hand[k] -= 1;
            tt_layoff_status status = tt_capped_solve(S, hand, &value, NULL);
            hand[k] += 1;
            if (status != TT_LAYOFF_DONE) return TT_NOT_CERTIFIED;
            if (value < best) best = value;
        }
        return best;
    }
    if (mode == TT_POINTS)
        return tt_capped_solve(S, counts, &value, NULL) == TT_LAYOFF_DONE ? value
                                                                          : TT_NOT_CERTIFIED;
    tt_layoff plan;
    if (tt_capped_solve(S, counts, &value, &plan) != TT_LAYOFF_DONE) return TT_NOT_CERTIFIED;
    tt_workspace *ws = S->ws;
    ws->md = -1;
    for (int64_t i = 0; i < plan.ndead; i++)
        if (S->par[plan.dead[i]] > ws->md) ws->md = S->par[plan.dead[i]];
    if (mode == TT_PLAN) {
        memset(ws->dead, 0, sizeof ws->dead);
        memset(ws->dead_codes, 0, sizeof ws->dead_codes);
        memset(ws->suits, 0, sizeof ws->suits);
        ws->nsets = ws->set_wilds = ws->ndead = ws->all_nat = 0;
        for (int64_t i = 0; i < plan.ndead; i++) {
            int64_t k = plan.dead[i];
            ws->dead[k] += 1;
            if (k != 52 && k % 13 != S->w) ws->ndead += 1;
        }
        ws->cards = tt_hand_size(counts);
        for (int k = 0; k < 52; k++)
            if (k % 13 != S->w) ws->all_nat += counts[k] * S->par[k];
    }
    return value;
}

#endif /* TT_SOLVER_CAPPED_H */
