/* The built-in agents of a batch's seats, decided in C during the batch's step: random, greedy
   and counting (tt_env.agents: RandomAgent, GreedyAgent, CountingAgent). Each makes the Python
   agent's decision in the same position: random draws from numpy's generator as the agent's
   own does (util/rng.h); greedy and counting are the agents' one implementation in C
   (valuation/decisions.h, which the search's rollouts play too), greedy on the seat's hand and
   legal moves, counting on what the seat knows from its observation (valuation/knowledge.h,
   tt_see()). Where the solver cannot certify a value a decision needs (a configuration the
   compiled solver does not serve, a hand it gives up on), the decision is left to the Python
   agent: the batch stops at that seat as it does at a learner's.

   Plain C, header only, no Python; the batch (_cbatch.c) calls it. */

#ifndef TT_VECTOR_SEATS_H
#define TT_VECTOR_SEATS_H

#include "valuation/decisions.h"
#include "valuation/knowledge.h"
#include "vector/table.h"

/* Who decides for a seat: the caller (a learner, or a Python agent), or a built-in agent. */
enum tt_seat_agent {
    TT_SEAT_CALLER = 0,
    TT_SEAT_RANDOM = 1,
    TT_SEAT_GREEDY = 2,
    TT_SEAT_COUNTING = 3,
};


/* RandomAgent.act: legal[rng.integers(len(legal))] over the legal actions in order. */
static int tt_random_action(tt_rng *rng, const int8_t *mask) {
    int legal[TT_ACTIONS], n = 0;
    for (int a = 0; a < TT_ACTIONS; a++)
        if (mask[a]) legal[n++] = a;
    if (n == 0) return TT_UNDECIDED;
    return legal[tt_rng_integers(rng, n)];
}

/* CountingAgent.act for the seat to move: the rule's decision on what the seat knows from its
   observation, written into `scratch` (the layout's size in floats), as the Python agent
   reads it. `S` is the solver of the round's wild rank. */
static int tt_seen_counting_action(const tt_solver *S, const tt_rule *rule, const tt_observer *O,
                                   const tt_game *g, const int8_t *mask, float *scratch) {
    tt_observe(g, g->current, &O->layout, scratch);
    tt_seen seen;
    if (!tt_see(O, scratch, &seen).ok) return TT_UNDECIDED; /* no game writes such counts */
    tt_position_room room;
    const tt_position pos = tt_seen_position(&seen, mask, &room);
    return (int)tt_counting_action(S, rule, &pos);
}

/* What counting's seats know of every observation: the batch's layout and rules. */
static void tt_agents_observer(const tt_layout *L, const tt_rules *R, tt_observer *O) {
    O->layout = *L;
    O->num_players = R->num_players;
    for (int k = 0; k < 52; k++) O->deck[k] = R->decks;
    O->deck[TT_JOKER] = (int64_t)R->decks * R->jokers_per_deck;
}

/* The seats' built-in agents of one batch. */
typedef struct {
    tt_rule rule;         /* counting's parameters */
    int have_rule;        /* 0: no counting parameters given; counting seats are the caller's */
    tt_observer observer; /* what counting's seats know of an observation */
} tt_agents;

/* The decision of the built-in agent `kind` for the seat to move at `t`, whose legal mask is
   t->legal: an action, or TT_UNDECIDED. `S` is the compiled solver of the round (NULL where
   it does not serve); `rng` the seat's generator (random); `scratch` an observation's room. */
static int tt_builtin_action(int kind, const tt_agents *A, const tt_solver *S, tt_rng *rng,
                             const tt_table_env *t, float *scratch) {
    switch (kind) {
    case TT_SEAT_RANDOM: return tt_random_action(rng, t->legal);
    case TT_SEAT_GREEDY: {
        if (S == NULL) return TT_UNDECIDED;
        tt_position_room room; /* greedy reads the hand, the top discard and the mask */
        const tt_position pos = tt_game_position(&t->game, t->legal, false, &room);
        return (int)tt_greedy_action(S, &pos);
    }
    case TT_SEAT_COUNTING:
        if (S == NULL || !A->have_rule) return TT_UNDECIDED;
        return tt_seen_counting_action(S, &A->rule, &A->observer, &t->game, t->legal, scratch);
    default: return TT_UNDECIDED;
    }
}

#endif /* TT_VECTOR_SEATS_H */
