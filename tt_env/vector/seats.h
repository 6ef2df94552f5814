/* The built-in agents of a batch's seats, decided in C during the batch's step: random, greedy
   and counting (tt_env.agents: RandomAgent, GreedyAgent, CountingAgent). Each makes the Python
   agent's decision in the same position: random draws from numpy's generator as the agent's
   own does (util/rng.h), greedy values the hand with the compiled solver as the valuation
   layer does (valuation/knowledge.h: the take and the discards allowed), counting is the
   expected-penalty rule's kernel (valuation/rule.h) on what the seat knows from its observation
   (valuation/knowledge.h, tt_see()). Where the solver cannot certify a value a decision needs (a configuration the
   compiled solver does not serve, a hand it gives up on), the decision is left to the Python
   agent: the batch stops at that seat as it does at a learner's.

   Plain C, header only, no Python; the batch (_cbatch.c) calls it. */

#ifndef TT_VECTOR_SEATS_H
#define TT_VECTOR_SEATS_H

#include "valuation/knowledge.h"
#include "valuation/rule.h"
#include "vector/table.h"

/* Who decides for a seat: the caller (a learner, or a Python agent), or a built-in agent. */
enum tt_seat_agent {
    TT_SEAT_CALLER = 0,
    TT_SEAT_RANDOM = 1,
    TT_SEAT_GREEDY = 2,
    TT_SEAT_COUNTING = 3,
};

#define TT_NOT_DECIDED (-1) /* the Python agent decides (the solver could not certify a value) */

/* RandomAgent.act: legal[rng.integers(len(legal))] over the legal actions in order. */
static int tt_random_action(tt_rng *rng, const int8_t *mask) {
    int legal[TT_ACTIONS], n = 0;
    for (int a = 0; a < TT_ACTIONS; a++)
        if (mask[a]) legal[n++] = a;
    if (n == 0) return TT_NOT_DECIDED;
    return legal[tt_rng_integers(rng, n)];
}

/* GreedyAgent's draw: take the top discard when the penalty after taking it and making the
   best discard allowed (Valuation.take_value) is below the penalty now; else the stock. */
static int tt_greedy_draw(const tt_solver *S, const tt_game *g, const int8_t *mask,
                          int discard_drawn_upcard) {
    if (!mask[TT_ACT_DRAW_STOCK]) return TT_ACT_TAKE_DISCARD;
    if (!mask[TT_ACT_TAKE_DISCARD] || g->npile == 0) return TT_ACT_DRAW_STOCK;
    const uint8_t *hand = g->hands[g->current];
    const int top = g->pile[g->npile - 1];
    const int64_t now = tt_evaluate(S, hand, TT_POINTS);
    if (now < 0) return TT_NOT_DECIDED;
    const tt_penalty take = tt_take_penalty(S, hand, top, discard_drawn_upcard);
    if (!take.certified) return TT_NOT_DECIDED;
    return take.penalty < now ? TT_ACT_TAKE_DISCARD : TT_ACT_DRAW_STOCK;
}

/* GreedyAgent's discard: go out when a legal go-out leaves no deadwood (the card worth most,
   then the highest kind); else the legal discard that leaves the fewest penalty points (ties:
   the card worth more, then the higher kind). */
static int tt_greedy_discard_action(const tt_solver *S, const tt_game *g, const int8_t *mask) {
    const int64_t *par = S->par;
    int64_t dv[TT_KINDS];
    if (tt_discard_values(S, g->hands[g->current], dv) < 0) return TT_NOT_DECIDED;
    for (int k = 0; k < TT_KINDS; k++)
        if (dv[k] == TT_NOT_CERTIFIED || dv[k] == TT_TOO_MANY) return TT_NOT_DECIDED;
    int out = -1;
    for (int k = 0; k < TT_KINDS; k++) {
        if (mask[TT_ACT_GO_OUT + k] && dv[k] == 0 &&
            (out < 0 || par[k] > par[out] || (par[k] == par[out] && k > out)))
            out = k;
    }
    if (out >= 0) return TT_ACT_GO_OUT + out;
    int best = -1;
    for (int k = 0; k < TT_KINDS; k++) {
        if (!mask[TT_ACT_DISCARD + k]) continue;
        if (dv[k] < 0) return TT_NOT_DECIDED; /* a legal discard is held: not a game's position */
        if (best < 0 || dv[k] < dv[best] ||
            (dv[k] == dv[best] && (par[k] > par[best] || (par[k] == par[best] && k > best))))
            best = k;
    }
    return best < 0 ? TT_NOT_DECIDED : TT_ACT_DISCARD + best;
}

/* GreedyAgent.act for the seat to move. */
static int tt_greedy_action(const tt_solver *S, const tt_game *g, const int8_t *mask) {
    if (g->phase == TT_DRAW) return tt_greedy_draw(S, g, mask, g->rules->discard_drawn_upcard);
    return tt_greedy_discard_action(S, g, mask);
}

/* CountingAgent.act for the seat to move: the rule's kernel on what the seat knows from its
   observation, written into `scratch` (the layout's size in floats). `S` is the solver of the
   round's wild rank. */
static int tt_counting_action(const tt_solver *S, const tt_rule *rule, const tt_observer *O,
                              const tt_game *g, const int8_t *mask, float *scratch) {
    tt_observe(g, g->current, &O->layout, scratch);
    tt_seen seen;
    if (!tt_see(O, scratch, &seen).ok) return TT_NOT_DECIDED; /* no game writes such counts */
    tt_decision weighed;
    int64_t action = tt_decide_seen(S, rule, &seen, (const uint8_t *)mask, &weighed);
    return action < 0 ? TT_NOT_DECIDED : (int)action;
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
   t->legal: an action, or TT_NOT_DECIDED. `S` is the compiled solver of the round (NULL where
   it does not serve); `rng` the seat's generator (random); `scratch` an observation's room. */
static int tt_builtin_action(int kind, const tt_agents *A, const tt_solver *S, tt_rng *rng,
                             const tt_table_env *t, float *scratch) {
    switch (kind) {
    case TT_SEAT_RANDOM: return tt_random_action(rng, t->legal);
    case TT_SEAT_GREEDY:
        return S == NULL ? TT_NOT_DECIDED : tt_greedy_action(S, &t->game, t->legal);
    case TT_SEAT_COUNTING:
        if (S == NULL || !A->have_rule) return TT_NOT_DECIDED;
        return tt_counting_action(S, &A->rule, &A->observer, &t->game, t->legal, scratch);
    default: return TT_NOT_DECIDED;
    }
}

#endif /* TT_VECTOR_SEATS_H */
