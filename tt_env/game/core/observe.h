/* What one seat sees of a game (game.h), written as the environments' observation vector.

   The layout is the observation's table of named pieces (tt_env.encoding.observation,
   OBSERVATION_PIECES), read into a tt_layout (game/core/layout.h), so there is one layout, and a
   test checks that this writer and the Python encoder
   (tt_env.encoding.observation.encode) give the same vector. Per-seat rows are in play order
   from the observer; values are float32 as the Python encoder writes them. */

#ifndef TT_GAME_OBSERVE_H
#define TT_GAME_OBSERVE_H

#include "game/core/game.h"
#include "game/core/layout.h"

#define TT_SCORE_SCALE 100.0
#define TT_MIN_CARDS_DEALT 3

/* The observation of `seat` in `g` into out[L->size]. In the snapshot of an ended round
   (tt_game.ended) nobody is to move: phase and to_move are zeros. Fractions are computed in
   double and rounded once to float32, as the Python encoder does. */
static void tt_observe(const tt_game *g, int seat, const tt_layout *L, float *out) {
    const tt_rules *R = g->rules;
    const int n = R->num_players;
    const int *at = L->start;
    const int in_play = g->phase == TT_DRAW || g->phase == TT_DISCARD;
    memset(out, 0, sizeof(float) * (size_t)L->size);
    for (int k = 0; k < TT_KINDS; k++) out[at[TT_PIECE_HAND] + k] = g->hands[seat][k];
    if (seat == g->current && g->drawn_upcard >= 0)
        out[at[TT_PIECE_DRAWN_UPCARD] + g->drawn_upcard] = 1.0f;
    if (g->npile > 0) {
        out[at[TT_PIECE_TOP_DISCARD] + g->pile[g->npile - 1]] = 1.0f;
        for (int i = 0; i < g->npile - 1; i++) out[at[TT_PIECE_DISCARD_BELOW] + g->pile[i]] += 1.0f;
    }
    for (int i = 0; i < g->table.ncards; i++) out[at[TT_PIECE_TABLE] + g->table.card[i]] += 1.0f;
    const int r = g->round_index;
    out[at[TT_PIECE_WILD_RANK] + R->wild_rank[r] - 1] = 1.0f;
    out[at[TT_PIECE_CARDS_DEALT] + R->cards_dealt[r] - TT_MIN_CARDS_DEALT] = 1.0f;
    out[at[TT_PIECE_ROUNDS_LEFT]] = (float)((double)(R->num_rounds - 1 - r) / R->num_rounds);
    if (in_play) out[at[TT_PIECE_PHASE] + g->phase] = 1.0f;
    out[at[TT_PIECE_FINAL_TURN]] = g->went_out >= 0 ? 1.0f : 0.0f;
    const int total = R->decks * (52 + R->jokers_per_deck);
    out[at[TT_PIECE_STOCK_SIZE]] = (float)((double)g->nstock / total);
    const int left = R->turn_cap - g->turns;
    out[at[TT_PIECE_TURNS_LEFT]] = (float)((double)(left > 0 ? left : 0) / R->turn_cap);
    const int dealer = tt_dealer(g);
    for (int j = 0; j < n; j++) {
        const int s = (seat + j) % n;
        float *known = out + at[TT_PIECE_KNOWN] + j * TT_KINDS;
        int size = 0;
        for (int k = 0; k < TT_KINDS; k++) {
            known[k] = g->taken[s][k];
            size += g->hands[s][k];
        }
        out[at[TT_PIECE_HAND_SIZE] + j] = (float)size;
        out[at[TT_PIECE_WENT_OUT] + j] = g->went_out == s ? 1.0f : 0.0f;
        out[at[TT_PIECE_SCORE] + j] = (float)((double)g->scores[s] / TT_SCORE_SCALE);
        out[at[TT_PIECE_TO_MOVE] + j] = (in_play && g->current == s) ? 1.0f : 0.0f;
        out[at[TT_PIECE_DEALER] + j] = dealer == s ? 1.0f : 0.0f;
    }
}

#endif /* TT_GAME_OBSERVE_H */
