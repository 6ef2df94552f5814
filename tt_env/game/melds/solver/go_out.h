/* Going out: the discards that leave a hand with no deadwood (a part of solver.h: see there). */

#ifndef TT_SOLVER_GO_OUT_H
#define TT_SOLVER_GO_OUT_H

#include "discard.h"

/* The discards that leave counts (a hand just after a draw) with no deadwood, as bits (bit k:
   discarding one card of kind k); TT_NOT_CERTIFIED when the kernel cannot certify it. out: 53
   of scratch.

   Most hands are rejected with one evaluation: a hand of fewest penalty V less a card k keeps
   at least V - pen(k) (an arrangement of the rest, with k added back as deadwood, is one of
   the hand), so when V exceeds the penalty of every card held, no discard goes out. Otherwise
   every discard is valued (tt_discard_values). */
static inline int64_t tt_go_out(const tt_solver *S, const uint8_t *counts, int64_t *out) {
    const int64_t *par = S->par;
    int64_t most = 0;
    for (int k = 0; k < 53; k++)
        if (counts[k] && par[k] > most) most = par[k];
    int64_t value = tt_evaluate(S, counts, TT_POINTS);
    if (value < 0) return TT_NOT_CERTIFIED;
    if (value > most) return 0;
    value = tt_discard_values(S, counts, out);
    if (value < 0 || S->ws->unsure) return TT_NOT_CERTIFIED;
    int64_t bits = 0;
    for (int k = 0; k < 53; k++)
        if (out[k] == 0) bits |= (int64_t)1 << k;
    return bits;
}

#endif /* TT_SOLVER_GO_OUT_H */
