/* The built-in agents' decisions, one implementation of each: greedy (tt_env.agents.GreedyAgent)
   and counting (CountingAgent: the expected-penalty rule's kernel, valuation/rule.h), made on
   the position of a seat about to move (tt_position). The batch's built-in seats
   (vector/seats.h) and the search's rollouts (agents/rollout.h) both decide here; they differ
   only in where the position comes from. A batch's counting seat reads it from the seat's
   observation (valuation/knowledge.h, tt_see(), as the Python agent does: tt_seen_position()),
   a rollout from the engine's game (tt_game_position(), tt_game_knowledge()): the same cards,
   counted by the one formula (tt_unseen_cards()).

   Each decision is the Python agent's, with its tie-breaks, or TT_UNDECIDED where the solver
   cannot certify a value it needs: the batch then leaves the seat to the Python agent, and a
   rollout plays a simpler move (rollout.h).

   Plain C, header only, no Python: the callers check every input before it reaches this code.
   Card kinds: k = 13 * suit + position (0 the ace .. 12 the king), 52 the joker. */

#ifndef TT_VALUATION_DECISIONS_H
#define TT_VALUATION_DECISIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "game/core/game.h"
#include "game/melds/solver.h"
#include "valuation/knowledge.h"
#include "valuation/rule.h"

#define TT_UNDECIDED (-1) /* no decision: the solver cannot certify a value it needs */

/* ------------------------------------------------------------------ the position */

/* The position of the seat to move in the engine's game `g` among the legal actions `mask`
   (tt_position_moves(); offer_go_out for a mask without the go-outs): its hand, the top
   discard, the phase and the final turn. What it has not seen is left out (NULL):
   tt_game_knowledge() adds it, for counting. */
static inline tt_position tt_game_position(const tt_game *g, const int8_t *mask, bool offer_go_out,
                                           tt_position_room *room) {
    tt_position pos = {
        .hand = g->hands[g->current],
        .top_discard = g->npile > 0 ? g->pile[g->npile - 1] : -1,
        .draw_phase = g->phase == TT_DRAW,
        .final_turn = g->went_out >= 0,
    };
    tt_position_moves(mask, offer_go_out, room, &pos);
    return pos;
}

/* What the seat to move in `g` knows, into `pos` (its arrays in `room`): the cards it has not
   seen (the copies in play, `deck`, less its hand, the discard pile, the cards on the table and
   what the other seats are known to hold: tt_unseen_cards()) and what the next seat is known to
   hold, as its observation says them. */
static inline void tt_game_knowledge(const tt_game *g, const int64_t *deck, tt_position_room *room,
                                     tt_position *pos) {
    const int cur = g->current, n = g->rules->num_players;
    int64_t pile[TT_KINDS] = {0}, table[TT_KINDS] = {0}, others[TT_KINDS] = {0};
    for (int i = 0; i < g->npile; i++) pile[g->pile[i]] += 1;
    for (int i = 0; i < g->table.ncards; i++) table[g->table.card[i]] += 1;
    for (int o = 0; o < n; o++)
        if (o != cur)
            for (int k = 0; k < TT_KINDS; k++) others[k] += g->taken[o][k];
    tt_unseen_cards(deck, g->hands[cur], pile, table, others, room->unseen);
    for (int k = 0; k < TT_KINDS; k++) room->next_known[k] = g->taken[(cur + 1) % n][k];
    pos->unseen = room->unseen;
    pos->next_known = room->next_known;
}

/* ------------------------------------------------------------------ greedy */

/* GreedyAgent's draw: take the top discard when the penalty after taking it and making the
   best discard allowed (Valuation.take_value) is below the penalty now; else the stock.
   Discarding the card taken leaves the hand as it is now, so the rule that it may not go
   straight back changes nothing here: greedy takes when discarding another card of the hand
   with it leaves fewer points than now (tt_best_discard_after_draw(), which stops there). */
static int64_t tt_greedy_draw(const tt_solver *S, const tt_position *pos) {
    if (!pos->can_stock) return TT_ACT_TAKE_DISCARD;
    if (!pos->can_take || pos->top_discard < 0) return TT_ACT_DRAW_STOCK;
    const int64_t now = tt_evaluate(S, pos->hand, TT_POINTS);
    if (now < 0) return TT_UNDECIDED;
    uint8_t more[TT_KINDS];
    memcpy(more, pos->hand, sizeof more);
    more[pos->top_discard] += 1;
    const int64_t after = tt_best_discard_after_draw(S, more, pos->top_discard, now, now);
    if (after < 0) return TT_UNDECIDED;
    return after < now ? TT_ACT_TAKE_DISCARD : TT_ACT_DRAW_STOCK;
}

/* GreedyAgent's discard: go out when a legal go-out leaves no deadwood (the card worth most,
   then the highest kind); else the legal discard that leaves the fewest penalty points (ties:
   the card worth more, then the higher kind): the agents' order, tt_discard_before(). */
static int64_t tt_greedy_discard(const tt_solver *S, const tt_position *pos) {
    const int64_t *par = S->par;
    int64_t dv[TT_KINDS];
    if (tt_discard_values(S, pos->hand, dv) < 0) return TT_UNDECIDED;
    int64_t out = -1, best = -1;
    for (int64_t k = 0; k < TT_KINDS; k++) {
        if (pos->go_ok[k] && dv[k] == TT_NOT_CERTIFIED) return TT_UNDECIDED;
        if (pos->go_ok[k] && dv[k] == 0 && (out < 0 || tt_discard_before(dv, par, k, out))) out = k;
        if (!pos->allowed[k]) continue;
        if (dv[k] < 0) return TT_UNDECIDED; /* not certified (or a discard not held) */
        if (best < 0 || tt_discard_before(dv, par, k, best)) best = k;
    }
    if (out >= 0) return TT_ACT_GO_OUT + out;
    return best < 0 ? TT_UNDECIDED : TT_ACT_DISCARD + best;
}

/* GreedyAgent.act at `pos`: an action, or TT_UNDECIDED. */
static int64_t tt_greedy_action(const tt_solver *S, const tt_position *pos) {
    return pos->draw_phase ? tt_greedy_draw(S, pos) : tt_greedy_discard(S, pos);
}

/* ------------------------------------------------------------------ counting */

/* CountingAgent.act at `pos` (what the seat knows included): the expected-penalty rule's
   action (tt_decide()), or TT_UNDECIDED. */
static int64_t tt_counting_action(const tt_solver *S, const tt_rule *rule, const tt_position *pos) {
    tt_decision weighed;
    const int64_t action = tt_decide(S, rule, pos, &weighed);
    return action < 0 ? TT_UNDECIDED : action;
}

#endif /* TT_VALUATION_DECISIONS_H */
