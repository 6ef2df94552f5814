/* The compiled solver's answers to the engine's questions (tt_solver_service, game.h): the
   discards that go out, a hand's fewest penalty, the arrangement laid down and redemption's
   lay-downs and lay-offs, each from the solver's kernel (game/melds/solver.h) of the round's
   configuration.

   Plain C, header only, no Python. Each function answers where the kernel serves the hand (and
   the table) and certifies the answer, and says when it does not: the caller decides what then.
   The engine's bindings (game/_service.h) ask the exact Python solver; the search agent's
   rollouts (agents/rollout.h), which run without Python, fall back on a rollout's simpler
   answers. */

#ifndef TT_GAME_KERNELS_H
#define TT_GAME_KERNELS_H

#include "game/core/game.h"
#include "game/melds/solver.h"

/* The discards that leave counts (a hand after its draw) no deadwood, as bits (bit k: kind k),
   or < 0 when the kernel does not certify it. scratch: 53 int64. */
static inline int64_t tt_kernel_go_out(const tt_solver *S, const uint8_t *counts,
                                       int64_t *scratch) {
    if (tt_hand_size(counts) > TT_MAX_HAND) return TT_TOO_MANY;
    return tt_go_out(S, counts, scratch);
}

/* A meld shape from a key of the kernel's arrange (tt_meld_key). */
static inline tt_shape tt_shape_of_key(int64_t key) {
    return (tt_shape){
        (int8_t)(key & 3),         (int8_t)(key >> 2 & 15),  (int8_t)((key >> 6 & 7) - 1),
        (int8_t)(key >> 9 & 15),   (int8_t)(key >> 13 & 15), (int16_t)(key >> 17 & 127),
        (int16_t)(key >> 24 & 127)};
}

/* The best arrangement's melds of counts into out: 1, or 0 when the kernel does not certify
   it. cards (TT_ARRANGE_CARDS) and keys (TT_ARRANGE_KEYS) are the kernel's room. */
static inline int tt_kernel_arrange(const tt_solver *S, const uint8_t *counts, uint8_t *cards,
                                    int64_t *keys, tt_melds *out) {
    if (tt_hand_size(counts) > TT_MAX_HAND) return 0;
    tt_arrangement a = tt_arrange(S, counts, cards, keys);
    if (a.points < 0) return 0;
    out->count = (int)a.melds;
    out->ncards = (int)a.cards;
    for (int m = 0; m < out->count; m++) out->shape[m] = tt_shape_of_key(keys[m]);
    memcpy(out->card, cards, (size_t)a.cards);
    return 1;
}

/* The engine's shape of a solver's meld shape (the same fields; a real meld's fit). */
static inline tt_shape tt_engine_shape(const tt_meld_shape *s) {
    return (tt_shape){(int8_t)s->kind, (int8_t)s->rank, (int8_t)s->suit, (int8_t)s->low,
                      (int8_t)s->high, s->wilds,        s->size};
}

/* Redemption by the kernel (solver/layoff.h) into out: 1, or 0 when it does not take the hand
   or the table. */
static inline int tt_kernel_redeem(const tt_solver *S, const uint8_t *counts, const tt_table *table,
                                   tt_redemption *out) {
    if (table->count > TT_LAYOFF_TABLE) return 0;
    tt_meld_shape shapes[TT_LAYOFF_TABLE];
    for (int m = 0; m < table->count; m++) {
        const tt_shape *s = &table->shape[m];
        shapes[m] = (tt_meld_shape){s->kind, s->rank, s->suit, s->low, s->high, s->wilds, s->size};
    }
    tt_layoff r;
    const tt_layoff_input input = {counts, table->count, shapes};
    if (tt_lay_off(S, &input, &r) != TT_LAYOFF_DONE) return 0;
    out->nlaid_off = (int)r.nlaid;
    memcpy(out->laid_off_card, r.laid_card, (size_t)r.nlaid);
    memcpy(out->laid_off_onto, r.laid_onto, (size_t)r.nlaid);
    for (int m = 0; m < table->count; m++) out->table_shape[m] = tt_engine_shape(&r.table[m]);
    out->own.count = (int)r.nmelds;
    for (int m = 0; m < r.nmelds; m++) out->own.shape[m] = tt_engine_shape(&r.meld[m]);
    out->own.ncards = (int)r.nmeld_cards;
    memcpy(out->own.card, r.meld_cards, (size_t)r.nmeld_cards);
    out->points = r.points;
    return 1;
}

#endif /* TT_GAME_KERNELS_H */
