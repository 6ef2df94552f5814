/* One table of the batched environments: a game of the C engine (game/core/game.h) with the
   episodes, rewards and autoreset of three_thirteen_v0 (tt_env/env/aec.py), so that a table
   seeded s plays the AEC env's games of reset(seed=s), move for move.

   Plain C, header only, no Python; the batch (_cbatch.c) steps many tables in one call. */

#ifndef TT_VECTOR_TABLE_H
#define TT_VECTOR_TABLE_H

#include "game/core/game.h"
#include "game/core/observe.h"

/* What an episode is and what a round pays: the AEC env's `episode` and `reward`. */
typedef struct {
    int round_episodes; /* episode="round": one round, then the next round of the same game */
    int relative;       /* reward="relative": the mean of the others' penalties less the own */
} tt_episodes;

typedef struct {
    tt_game game;
    tt_game ended;            /* the game as the round that ended last left it */
    tt_rng seeds;             /* the seeds of the games after the first (the AEC env's _seed_rng) */
    int8_t legal[TT_ACTIONS]; /* the legal mask of the position as last written */
    int over;                 /* the episode has ended; the next step starts the next one */
    int round_played;         /* the episode that ended was a round (episode="round") */
} tt_table_env;

/* reset(seed=seed) of the AEC env. */
static void tt_table_reset(tt_table_env *t, const tt_rules *rules, uint64_t seed) {
    tt_rng_seed(&t->seeds, &seed, 1);
    tt_game_init(&t->game, rules, seed, &t->ended);
    t->over = 0;
    t->round_played = 0;
}

/* reset() without a seed: the next round of the same game after a round episode, else a new
   game seeded from the table's generator of seeds. */
static void tt_table_next_episode(tt_table_env *t) {
    if (!(t->round_played && t->game.phase != TT_GAME_OVER)) {
        /* integers(2**63): Lemire's method with a range of 2**63 never rejects and keeps the
           high half of draw * 2**63, the draw's top 63 bits */
        uint64_t seed = tt_rng_next64(&t->seeds) >> 1;
        tt_game_init(&t->game, t->game.rules, seed, &t->ended);
    }
    t->over = 0;
    t->round_played = 0;
}

/* End the episode where it stands (an illegal action under illegal_action="terminate"): the
   position as it is, nobody to move; the next episode is a new game. */
static void tt_table_end(tt_table_env *t) {
    memcpy(&t->ended, &t->game, sizeof t->game);
    t->ended.ended = NULL;
    t->ended.phase = TT_ROUND_OVER;
    t->over = 1;
    t->round_played = 0;
}

/* The rewards of a round that just ended, per seat, into rewards[n] (added). */
static void tt_table_round_rewards(const tt_table_env *t, const tt_episodes *E, double *rewards) {
    const tt_game *g = &t->game;
    const int n = g->rules->num_players;
    int64_t total = 0;
    for (int s = 0; s < n; s++) total += g->last_penalties[s];
    for (int s = 0; s < n; s++) {
        const int64_t p = g->last_penalties[s];
        rewards[s] += E->relative ? -((double)p - (double)(total - p) / (n - 1)) : -(double)p;
    }
}

/* Play `action` (legal by the mask last written: the caller checked) and add the rewards it
   earned. Returns TT_OK, or the engine's error. */
static int tt_table_step(tt_table_env *t, const tt_solver_service *svc, const tt_episodes *E,
                         int action, double *rewards, tt_redemption *scratch) {
    int status = tt_apply_masked(&t->game, svc, action, t->legal, scratch);
    if (status < 0) return status;
    if (t->game.last_round_ended) {
        tt_table_round_rewards(t, E, rewards);
        if (t->game.phase == TT_GAME_OVER || E->round_episodes) {
            t->over = 1;
            t->round_played = E->round_episodes;
        }
    }
    return TT_OK;
}

/* The seat whose move is asked next, its observation and mask: at an ended table, the mover's
   view of the final position and, as pgx does, a mask of all ones (whatever action is given
   is ignored by the reset that follows; a masked softmax over it stays finite). */
static int tt_table_write(tt_table_env *t, const tt_solver_service *svc, const tt_layout *L,
                          float *observation, int8_t *mask, int64_t *seat) {
    const tt_game *g = &t->game;
    *seat = g->current;
    if (t->over) {
        /* the AEC env's agent_selection stays with the mover; game.current is the seat to move
           in the engine (the next round's first seat when the game goes on) */
        tt_observe(&t->ended, t->ended.current, L, observation);
        memset(t->legal, 0, TT_ACTIONS);
        memset(mask, 1, TT_ACTIONS);
        return TT_OK;
    }
    tt_observe(g, g->current, L, observation);
    int legal = tt_legal_mask(g, svc, t->legal);
    memcpy(mask, t->legal, TT_ACTIONS);
    return legal < 0 ? legal : TT_OK;
}

#endif /* TT_VECTOR_TABLE_H */
