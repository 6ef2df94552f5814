/* The search agent's rollouts: a round played to its end on the game engine
   (game/core/game.h), under the full rules, every seat with a fast policy.

   Plain C, header only, no Python: the search agent's extension module (_csearch.c) includes
   it through search.h, and checks every input before it reaches this code.

   The engine plays the round: the legal moves, the drawn upcard that may not go straight back,
   the stock rebuilt from the discard pile, going out and the final turns, redemption's
   lay-downs and lay-offs, the joker lay-off, a false out, the turn cap, the end of the round
   and its scores. Every seat chooses among the engine's legal actions with its policy, the
   built-in agents' one implementation in C (valuation/decisions.h):

   - greedy: GreedyAgent's decision (take the top discard when the hand with it, after its best
     discard, has fewer points than the hand now; discard the card that leaves the fewest
     points, ties to the card worth more, then the higher kind; go out when that leaves none);
   - counting: CountingAgent's, the expected-penalty rule (valuation/rule.h) on what the seat
     knows of the game; greedy's move where the kernel cannot certify a value the rule needs.

   Where greedy cannot certify a value either, the seat draws from the stock or discards its
   costliest allowed card.

   The engine's questions to the solver (tt_solver_service) are answered by the solver's
   kernels of the round (game/core/kernels.h), compiled code only. Where a kernel cannot
   certify an answer (rare: hands of several decks), a rollout answers more simply: no
   go-out, a hand that counts every card, nothing laid down by redemption. Without redemption
   and the joker lay-off nothing reads the melds on the table, only their cards: a go-out's
   hand goes down unarranged, as one group. A test plays rounds
   both here and in tt_env.game.Game and checks that they end alike. */

#ifndef TT_ROLLOUT_H
#define TT_ROLLOUT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "game/core/kernels.h"
#include "valuation/decisions.h"

#define TT_GREEDY 0   /* rollout policies: greedy, */
#define TT_COUNTING 1 /* or the expected-penalty rule */

/* The rollouts' fixed settings. */
typedef struct {
    tt_rules rules;   /* the engine's: one round (index 0), of the searched round's wild rank,
                         scored once (multiplier 1); turn cap and options as the game's */
    int64_t deck[53]; /* the copies of each card kind in play */
    int64_t horizon;  /* stop after this many more discards of seat 0 (0: the round's end) */
    int policy[TT_MAX_SEATS];
    tt_rule rule; /* the expected-penalty rule's parameters */
} tt_rollouts;

/* The solver as the rollouts' engine asks it: the round's kernels, [0] as the rules are and
   [1] with a leftover joker free (joker_layoff; NULL without), and their room. */
typedef struct {
    const tt_solver *kernel[2];
    bool melds_read; /* redemption or the joker lay-off read the melds of the table */
    int64_t scratch[53];
    int64_t keys[TT_ARRANGE_KEYS];
    uint8_t cards[TT_ARRANGE_CARDS];
} tt_rollout_kernels;

/* A rollout's room: the service, the engine's scratch for a redemption, the legal mask, a
   position's arrays. */
typedef struct {
    tt_rollout_kernels kernels;
    tt_solver_service svc;
    tt_redemption scratch;
    int8_t mask[TT_ACTIONS];
    tt_position_room position;
} tt_rollout_room;

/* ------------------------------------------------------------------ the service */

static inline const tt_solver *tt_ro_kernel(const tt_rollout_kernels *k, int joker_free) {
    return joker_free && k->kernel[1] != NULL ? k->kernel[1] : k->kernel[0];
}

/* A hand's fewest penalty by S, or every card counted where S cannot certify it. */
static inline int64_t tt_ro_points(const tt_solver *S, const uint8_t *counts) {
    int64_t v = tt_evaluate(S, counts, TT_POINTS);
    if (v >= 0) return v;
    v = 0;
    for (int k = 0; k < 53; k++) v += counts[k] * S->par[k];
    return v;
}

static int64_t tt_ro_go_out(void *ctx, int round, const uint8_t *counts) {
    (void)round;
    tt_rollout_kernels *k = ctx;
    int64_t bits = tt_kernel_go_out(k->kernel[0], counts, k->scratch);
    return bits >= 0 ? bits : 0; /* not certified: no go-out */
}

static int64_t tt_ro_penalty(void *ctx, int round, const uint8_t *counts, int joker_free) {
    (void)round;
    return tt_ro_points(tt_ro_kernel(ctx, joker_free), counts);
}

static int tt_ro_arrange(void *ctx, int round, const uint8_t *counts, tt_melds *out) {
    (void)round;
    tt_rollout_kernels *k = ctx;
    if (!k->melds_read) { /* only the cards on the table count: the hand goes down as one group */
        out->count = 1;
        out->ncards = 0;
        for (int c = 0; c < 53; c++)
            for (int j = 0; j < counts[c]; j++) out->card[out->ncards++] = (uint8_t)c;
        out->shape[0] = (tt_shape){.kind = 2, .size = (int16_t)out->ncards};
        return 0;
    }
    if (!tt_kernel_arrange(k->kernel[0], counts, k->cards, k->keys, out)) {
        out->count = 0; /* not certified: nothing goes to the table (the hand scores 0) */
        out->ncards = 0;
    }
    return 0;
}

static int tt_ro_redeem(void *ctx, int round, const uint8_t *counts, const tt_table *table,
                        int joker_free, tt_redemption *out) {
    (void)round;
    const tt_solver *S = tt_ro_kernel(ctx, joker_free);
    if (tt_kernel_redeem(S, counts, table, out)) return 0;
    out->nlaid_off = 0; /* not certified: nothing laid down, the hand as it is */
    for (int m = 0; m < table->count; m++) out->table_shape[m] = table->shape[m];
    out->own.count = 0;
    out->own.ncards = 0;
    out->points = tt_ro_points(S, counts);
    return 0;
}

/* The room's service on the round's kernels (joker_free: NULL without the joker lay-off) for
   `rules`. */
static inline void tt_rollout_room_init(tt_rollout_room *room, const tt_rules *rules,
                                        const tt_solver *plain, const tt_solver *joker_free) {
    room->kernels.kernel[0] = plain;
    room->kernels.kernel[1] = joker_free;
    room->kernels.melds_read = rules->redemption || rules->joker_layoff;
    room->svc = (tt_solver_service){&room->kernels, tt_ro_go_out, tt_ro_penalty, tt_ro_arrange,
                                    tt_ro_redeem};
}

/* ------------------------------------------------------------------ the policies */

/* A rollout's move where the policy cannot certify a value it needs: the stock (the top
   discard where the stock may not be drawn), or a discard of the costliest allowed card (the
   highest kind of those). */
static int64_t tt_rollout_fallback(const tt_solver *S, const tt_position *pos) {
    if (pos->draw_phase) return pos->can_stock ? TT_ACT_DRAW_STOCK : TT_ACT_TAKE_DISCARD;
    int64_t k = -1;
    for (int64_t c = 0; c < TT_KINDS; c++)
        if (pos->allowed[c] && (k < 0 || S->par[c] >= S->par[k])) k = c;
    return TT_ACT_DISCARD + k;
}

/* The action of `policy` for the seat to move in g among the legal `mask`: its decision
   (valuation/decisions.h), counting on what the seat knows of the game; greedy's where
   counting cannot certify a value; the fallback where greedy cannot. A go-out is offered with
   every discard (the mask leaves the go-outs to the solver): a policy goes out only where the
   solver certifies that the discard leaves no points. */
static int64_t tt_rollout_action(const tt_solver *S, const tt_rollouts *set, int policy,
                                 const tt_game *g, const int8_t *mask, tt_position_room *room) {
    tt_position pos = tt_game_position(g, mask, true, room);
    int64_t a = TT_UNDECIDED;
    if (policy == TT_COUNTING) {
        tt_game_knowledge(g, set->deck, room, &pos);
        a = tt_counting_action(S, &set->rule, &pos);
    }
    if (a == TT_UNDECIDED) a = tt_greedy_action(S, &pos);
    if (a == TT_UNDECIDED) a = tt_rollout_fallback(S, &pos);
    return a;
}

/* ------------------------------------------------------------------ a rollout */

/* The seats that laid down before the seat to move (a position set up in the final turns, as
   tt_env's Game.arrange takes it): the one that went out, scored 0, and with redemption the
   seats after it up to the seat to move, scored from what they hold. */
static void tt_rollout_settle(tt_rollout_room *room, tt_game *g) {
    memset(g->scored, 0, sizeof g->scored);
    memset(g->scored_points, 0, sizeof g->scored_points);
    if (g->went_out < 0) return;
    const int n = g->rules->num_players;
    g->scored[g->went_out] = 1;
    if (!g->rules->redemption) return;
    for (int s = (g->went_out + 1) % n; s != g->current && s != g->went_out; s = (s + 1) % n) {
        g->scored[s] = 1;
        g->scored_points[s] = tt_ro_penalty(&room->kernels, 0, g->hands[s], tt_joker_free(g, s));
    }
}

/* Play g's round to its end with the rollouts' policies, or until seat 0 has discarded
   set->horizon more times than `mine` (0: no horizon), where the round is scored as it
   stands; out[s]: each seat's points then (not doubled, no false outs). */
static void tt_rollout(tt_rollout_room *room, const tt_rollouts *set, tt_game *g, int64_t mine,
                       int64_t *out) {
    const tt_solver_service *svc = &room->svc;
    const tt_solver *S = room->kernels.kernel[0];
    int8_t *mask = room->mask;
    while (g->phase == TT_DRAW || g->phase == TT_DISCARD) {
        const int seat = g->current;
        const bool discard = g->phase == TT_DISCARD;
        if (tt_legal_moves(g, mask) == 0) { /* nothing to draw or discard: a set-up position */
            tt_end_round(g, svc, TT_ENDED_NO_CARDS);
            break;
        }
        const int64_t a = tt_rollout_action(S, set, set->policy[seat], g, mask, &room->position);
        /* a policy goes out only where the kernel certified that the discard leaves no points:
           the go-out the engine's mask would offer (tt_legal_mask), without asking again */
        if (a >= TT_ACT_GO_OUT) mask[a] = 1;
        if (tt_apply_masked(g, svc, (int)a, mask, &room->scratch) < 0) {
            tt_end_round(g, svc, TT_ENDED_NO_CARDS); /* a full table: beyond any real round */
            break;
        }
        if (discard && seat == 0 && g->phase != TT_GAME_OVER && set->horizon &&
            ++mine >= set->horizon) {
            tt_end_round(g, svc, TT_ENDED_TURN_CAP);
            break;
        }
    }
    for (int s = 0; s < g->rules->num_players; s++) out[s] = g->last_deadwood[s];
}

#endif /* TT_ROLLOUT_H */
