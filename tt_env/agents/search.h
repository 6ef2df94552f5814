/* The search agent's compiled core: sampled deals, each played out on the game engine.

   Plain C, header only (every function static): the search agent's extension module
   (_csearch.c) includes it. It knows nothing of Python: the binding checks every input before
   it reaches this code.

   A determinisation (tt_determinise) deals the cards the searcher has not seen (the `unseen`
   counts of the valuation layer) to the other seats, on top of the cards each is known to
   hold, and to the stock, at random, into a game of the engine (game/core/game.h) that holds
   the rest of the searcher's position: its hand, the discard pile, the melds on the table, the
   turn and its phase, the upcard just drawn, the seat that went out, the turns played. Each
   candidate action is played on that game and the round rolled out to its end by the engine
   under the full rules, every seat with its rollout policy (rollout.h).

   The searcher is seat 0 (the observation's seats are in play order from the observer).

   The deals and the stock rebuilds are shuffles of one random stream, numpy's generator
   (util/rng.h): the stream of np.random.default_rng(seed) for the searcher's seed, each
   shuffle drawn as Generator.shuffle draws. */

#ifndef TT_SEARCH_H
#define TT_SEARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "agents/rollout.h"
#include "util/rng.h"

/* What the searcher does not see, for the deals. */
typedef struct {
    int64_t sizes[TT_MAX_SEATS]; /* the cards each seat holds */
    int64_t unseen[53];          /* the copies the searcher has not seen */
    int64_t stock_size;
} tt_hidden;

/* A determinisation of `start` into `g`: seat 0 keeps its hand; every other seat s holds its
   known cards and hidden->sizes[s] cards in all, the rest drawn at random from the unseen
   cards; the stock gets hidden->stock_size more (or what is left). The binding checked that
   the cards in play fit the engine's (TT_DECK_MAX). */
static void tt_determinise(tt_rng *R, const tt_game *start, const tt_hidden *hidden, tt_game *g) {
    uint8_t cards[TT_DECK_MAX];
    int64_t total = 0;
    for (int k = 0; k < 53; k++)
        for (int64_t c = 0; c < hidden->unseen[k]; c++) cards[total++] = (uint8_t)k;
    tt_rng_shuffle(R, cards, total, 1);
    *g = *start;
    int64_t used = 0;
    for (int s = 1; s < start->rules->num_players; s++) {
        int64_t held = 0;
        for (int k = 0; k < 53; k++) {
            g->hands[s][k] = start->taken[s][k];
            held += start->taken[s][k];
        }
        for (int64_t c = held; c < hidden->sizes[s] && used < total; c++)
            g->hands[s][cards[used++]] += 1;
    }
    int m = 0;
    while (m < hidden->stock_size && used < total) g->stock[m++] = cards[used++];
    g->nstock = m;
}

/* Seat 0's penalty less the mean of the others' (lower is better). */
static double tt_relative(const int64_t *out, int64_t n) {
    int64_t rel = out[0] * (n - 1);
    for (int64_t s = 1; s < n; s++) rel -= out[s];
    return (double)rel / (double)(n - 1);
}

/* A searcher: its settings, its random generator, the position it searches from, and room
   for a deal and a rollout. */
typedef struct {
    tt_rollouts set;
    tt_rng random;    /* seeded once per search; every call after that draws on */
    tt_game start;    /* the position: seat 0's hand, the known cards, the pile, the table, the
                         turn (seat 0 to move); start.rules is &set.rules */
    tt_hidden hidden; /* what the deals fill in */
    tt_game dealt, play;
    tt_rollout_room room;
} tt_searcher;

/* Play the round of `g` from its position with the searcher's random stream (the stock
   rebuilds draw on it) and score it: seat 0's penalty less the others' mean. */
static double tt_play_out(tt_searcher *T, tt_game *g, const int8_t *mask, int action,
                          int64_t mine) {
    int64_t out[TT_MAX_SEATS];
    g->rebuild_rng = T->random;
    if (action >= 0) tt_apply_masked(g, &T->room.svc, action, mask, &T->room.scratch);
    tt_rollout(&T->room, &T->set, g, mine, out);
    T->random = g->rebuild_rng;
    return tt_relative(out, g->rules->num_players);
}

/* Play `samples` determinisations of T->start: on each, every candidate action (actions[a]:
   TT_ACT_DRAW_STOCK, TT_ACT_TAKE_DISCARD, or TT_ACT_DISCARD + k; going out is decided before the search, and a
   go-out's id plays as its discard) is played and the round rolled out on that same deal
   (common random numbers). results[i * nact + a]: the searcher's penalty less the mean of the
   others' on deal i after action a. The binding checked that every action is legal at the
   start, and set up T->room's kernels. */
static void tt_search(tt_searcher *T, const int64_t *actions, int64_t nact, int64_t samples,
                      double *results) {
    int8_t mask[TT_ACTIONS];
    /* a draw's own discard does not count: the horizon is in whole turns after this one */
    const int64_t mine = T->start.phase == TT_DRAW ? -1 : 0;
    for (int64_t sample = 0; sample < samples; sample++) {
        tt_determinise(&T->random, &T->start, &T->hidden, &T->dealt);
        tt_rollout_settle(&T->room, &T->dealt);
        for (int64_t a = 0; a < nact; a++) {
            int act = (int)actions[a];
            if (act >= TT_ACT_DISCARD) act = TT_ACT_DISCARD + (act - TT_ACT_DISCARD) % 53;
            memset(mask, 0, sizeof mask);
            mask[act] = 1;
            T->play = T->dealt;
            results[sample * nact + a] = tt_play_out(T, &T->play, mask, act, mine);
        }
    }
}

#endif /* TT_SEARCH_H */
