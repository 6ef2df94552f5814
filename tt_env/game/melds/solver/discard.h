/* The discard values: the fewest penalty of a hand less one card, for every card it holds (a
   part of solver.h: see there). */

#ifndef TT_SOLVER_DISCARD_H
#define TT_SOLVER_DISCARD_H

#include "evaluate.h"

/* out[k]: the fewest penalty of the hand without one card of kind k, for every kind held
   (TT_NOT_HELD for kinds not held, TT_NOT_CERTIFIED where the kernel cannot certify it). A card
   that is deadwood in a best arrangement needs no search: dropping it saves exactly its penalty
   (no arrangement without it does better, since adding it back as deadwood costs only that).
   Returns the hand's own value (or < 0); ws->unsure: how many entries are TT_NOT_CERTIFIED. */
static int64_t tt_discard_values(const tt_solver *S, const uint8_t *counts, int64_t *out) {
    tt_workspace *ws = S->ws;
    int64_t value = tt_evaluate(S, counts, TT_PLAN);
    for (int k = 0; k < 53; k++) out[k] = TT_NOT_HELD;
    ws->unsure = 0;
    if (value < 0) {
        for (int k = 0; k < 53; k++) {
            if (counts[k]) {
                out[k] = TT_NOT_CERTIFIED;
                ws->unsure += 1;
            }
        }
        return value;
    }
    int64_t *less = ws->less;
    for (int k = 0; k < 53; k++) less[k] = ws->dead[k]; /* before tt_evaluate() below */
    uint8_t hand[53];
    memcpy(hand, counts, 53);
    for (int k = 0; k < 53; k++) {
        if (!counts[k]) continue;
        if (less[k]) {
            out[k] = value - S->par[k];
        } else {
            hand[k] -= 1;
            out[k] = tt_evaluate(S, hand, TT_POINTS);
            hand[k] += 1;
            if (out[k] < 0) ws->unsure += 1;
        }
    }
    return value;
}

#endif /* TT_SOLVER_DISCARD_H */
