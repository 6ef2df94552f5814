/* The game engine in C: the state of one game of Three Thirteen and the moves that change it.

   Plain C, header only (every function static), no Python: the binding (tt_env/game/_ccore.c)
   checks every input before it gets here. Each rule of RULES.md is findable by name, as in the
   Python reference (tt_env/game/engine.py), which this engine plays move for move: the same
   seed deals the same cards (numpy's PCG64 and SeedSequence, tt_env/util/rng.h), the same
   moves are legal, the same scores come out.

   What the engine does not decide itself it asks a solver service (tt_solver_service): the
   discards that go out, the best arrangement laid down, a hand's fewest penalty, and the
   redemption's lay-downs and lay-offs. The rules arrive derived (tt_rules: the rounds, the
   decks, the turn cap, each round's multiplier), computed once from a tt_env.Rules in Python,
   where every option lives.

   Actions: 0 draw from the stock, 1 take the top discard, 2 + k discard card kind k, 55 + k go
   out discarding k (tt_env.encoding.actions; the ids: game/core/ids.h). Card kinds: 13 * suit
   + position, 52 the joker. */

#ifndef TT_GAME_CORE_H
#define TT_GAME_CORE_H

#include <stdint.h>
#include <string.h>

#include "game/core/ids.h"
#include "util/rng.h"

#define TT_MAX_ROUNDS 32
#define TT_DECK_MAX (12 * 56) /* 12 decks of 52 cards and 4 jokers */
#define TT_MAX_TABLE 128      /* melds on the table in one round */

/* The phases of tt_env.game.moves.Phase. */
enum tt_phase { TT_DRAW = 0, TT_DISCARD = 1, TT_GAME_OVER = 2, TT_ROUND_OVER = 3 };

/* How a round ended (RoundResult.ended_by). */
enum tt_ended_by {
    TT_NOT_ENDED = 0,
    TT_ENDED_OUT = 1,
    TT_ENDED_TURN_CAP = 2,
    TT_ENDED_NO_CARDS = 3
};

/* What the engine refuses. */
enum tt_error {
    TT_OK = 0,
    TT_ILLEGAL = -1, /* not a legal action now (nothing changed) */
    TT_SOLVER = -2,  /* the solver service failed (its error is set where it was raised) */
    TT_FULL = -3,    /* the table has no room for another meld (beyond any real game) */
};

/* The rules as the engine reads them: every option of tt_env.Rules, derived once in Python. */
typedef struct {
    int num_players;
    int decks, jokers_per_deck;
    int num_rounds;
    int cards_dealt[TT_MAX_ROUNDS];
    int wild_rank[TT_MAX_ROUNDS];
    int multiplier[TT_MAX_ROUNDS]; /* double_court_rounds: 2 in the J, Q and K rounds */
    int turn_cap;
    int discard_drawn_upcard, redemption, joker_layoff;
    int false_out_penalty; /* -1: none (going out is only offered when valid) */
} tt_rules;

/* A meld's shape (tt_env.game.melds.MeldShape): kind 0 set, 1 run, 2 wild cards alone. */
typedef struct {
    int8_t kind, rank, suit, low, high;
    int16_t wilds, size;
} tt_shape;

/* The melds of the table. Their cards lie in one list in the order they came to the table,
   each with its meld's index: a meld's cards, in order, are those of its index. */
typedef struct {
    int count;
    int8_t seat[TT_MAX_TABLE];
    tt_shape shape[TT_MAX_TABLE]; /* as it is now (lay-offs grow it) */
    tt_shape laid[TT_MAX_TABLE];  /* as it was laid down: its first laid.size cards */
    int ncards;
    uint8_t card[TT_DECK_MAX];
    uint8_t meld_of[TT_DECK_MAX];
} tt_table;

/* Melds spelled out by the solver service: cards in meld order, one shape per meld. */
typedef struct {
    int count;
    tt_shape shape[TT_MAX_TABLE];
    int ncards;
    uint8_t card[TT_DECK_MAX];
} tt_melds;

/* A redemption: the cards laid off onto table melds, the table's new shapes, the seat's own
   melds laid down, and the points left. */
typedef struct {
    int nlaid_off;
    uint8_t laid_off_card[TT_DECK_MAX];
    uint8_t laid_off_onto[TT_DECK_MAX]; /* index of the table meld */
    tt_shape table_shape[TT_MAX_TABLE]; /* every table meld after the lay-offs */
    tt_melds own;
    int64_t points;
} tt_redemption;

/* The solver, as the engine needs it. Each function returns < 0 when it failed (the service
   keeps the error); `round` picks the configuration (its wild rank), `joker_free` says that a
   leftover joker costs 0 (joker_layoff). */
typedef struct {
    void *ctx;
    /* bits k (0..52) of the discards that leave counts (a hand after its draw) no deadwood */
    int64_t (*go_out)(void *ctx, int round, const uint8_t *counts);
    /* the fewest penalty of counts */
    int64_t (*penalty)(void *ctx, int round, const uint8_t *counts, int joker_free);
    /* the best arrangement's melds (a hand that melds completely) */
    int (*arrange)(void *ctx, int round, const uint8_t *counts, tt_melds *out);
    /* redemption: lay down own melds, lay off onto the table, fewest points left */
    int (*redeem)(void *ctx, int round, const uint8_t *counts, const tt_table *table,
                  int joker_free, tt_redemption *out);
} tt_solver_service;

/* One game. */
typedef struct tt_game tt_game;
struct tt_game {
    const tt_rules *rules;
    uint64_t seed;
    int first_dealer;
    int round_index;
    int phase;
    int current;
    int64_t scores[TT_MAX_SEATS];
    /* the round in play */
    uint8_t hands[TT_MAX_SEATS][TT_KINDS];
    uint8_t taken[TT_MAX_SEATS][TT_KINDS]; /* known to be held (Game.known_cards) */
    int nstock;
    uint8_t stock[TT_DECK_MAX]; /* the top of the stock is the last card */
    int npile;
    uint8_t pile[TT_DECK_MAX]; /* the top discard is the last card */
    tt_table table;
    int drawn_upcard; /* taken from the discard pile this turn, or -1 */
    int went_out;     /* the seat that went out, or -1 */
    int64_t false_outs[TT_MAX_SEATS];
    int scored[TT_MAX_SEATS]; /* laid down: scored from what it left (redemption, going out) */
    int64_t scored_points[TT_MAX_SEATS];
    int scored_first[TT_MAX_SEATS], scored_count[TT_MAX_SEATS]; /* the table melds it laid */
    int turns;
    tt_rng rebuild_rng; /* the round's stock rebuilds */
    /* the round that ended last */
    int ended_by;
    int64_t last_penalties[TT_MAX_SEATS];
    int64_t last_deadwood[TT_MAX_SEATS];
    int rounds_played;
    /* the last move (tt_env.game.moves.Outcome): its seat and card, what the seat is known to
       hold of the card after it, the stock, the turns and the seat to move next in the round
       it was played in */
    int last_seat, last_card, last_known, last_stock, last_turns, last_next;
    int last_rebuilt, last_went_out, last_false_out, last_laid, last_round_ended;
    /* Where to keep the game as the round that ended last left it (Game.ended_round), or NULL:
       the round is scored and the next one dealt within the move that ends it. */
    tt_game *ended;
};

/* ------------------------------------------------------------------ round flow */

static inline int tt_dealer(const tt_game *g) {
    /* RULES.md: the deal passes to the left (next seat) each round. */
    return (g->first_dealer + g->round_index) % g->rules->num_players;
}

static inline int tt_wild_rank(const tt_game *g) { return g->rules->wild_rank[g->round_index]; }

/* Deal the round g->round_index: each round has random streams of its own, derived from the
   seed and the round (the deal, then stock rebuilds), so that a round's deal does not depend on
   the play of earlier rounds (RULES.md, "Decided in this implementation: Dealing"). */
static void tt_deal(tt_game *g) {
    const tt_rules *R = g->rules;
    const int n = R->num_players;
    uint8_t deck[TT_DECK_MAX];
    int size = 0;
    for (int d = 0; d < R->decks; d++) { /* tt_env.game.cards.make_deck's order */
        for (int k = 0; k < 52; k++) deck[size++] = (uint8_t)k;
        for (int j = 0; j < R->jokers_per_deck; j++) deck[size++] = TT_JOKER;
    }
    uint64_t entropy[3] = {g->seed, (uint64_t)g->round_index, 0};
    tt_rng deal_rng;
    tt_rng_seed(&deal_rng, entropy, 3);
    /* shuffled_deck: deck[i] for i in permutation(size); the same swaps on the deck itself */
    tt_rng_shuffle(&deal_rng, deck, size, 1);
    uint8_t *shuffled = deck;
    memset(g->hands, 0, sizeof g->hands);
    memset(g->taken, 0, sizeof g->taken);
    const int dealer = tt_dealer(g);
    const int cards = R->cards_dealt[g->round_index];
    /* One card at a time, starting left of the dealer, from the top (the end). */
    for (int i = 0; i < cards * n; i++) g->hands[(dealer + 1 + i) % n][shuffled[--size]]++;
    g->npile = 1;
    g->pile[0] = shuffled[--size];
    g->nstock = size;
    memcpy(g->stock, shuffled, (size_t)size);
    g->table.count = 0;
    g->table.ncards = 0;
    g->drawn_upcard = -1;
    g->went_out = -1;
    memset(g->false_outs, 0, sizeof g->false_outs);
    memset(g->scored, 0, sizeof g->scored);
    memset(g->scored_points, 0, sizeof g->scored_points);
    memset(g->scored_first, 0, sizeof g->scored_first);
    memset(g->scored_count, 0, sizeof g->scored_count);
    g->turns = 0;
    entropy[2] = 1;
    tt_rng_seed(&g->rebuild_rng, entropy, 3);
    g->current = (dealer + 1) % n; /* RULES.md: left of the dealer plays first */
    g->phase = TT_DRAW;
}

/* A new game: the first dealer is drawn from the seed (RULES.md), then round 1 is dealt. */
static inline void tt_game_init(tt_game *g, const tt_rules *rules, uint64_t seed, tt_game *ended) {
    memset(g, 0, sizeof *g);
    g->ended = ended;
    g->rules = rules;
    g->seed = seed;
    tt_rng rng;
    tt_rng_seed(&rng, &seed, 1);
    g->first_dealer = (int)tt_rng_integers(&rng, rules->num_players);
    g->last_card = -1;
    tt_deal(g);
}

/* ------------------------------------------------------------------ the legal moves */

/* Decided here (RULES.md): the card just taken from the discard pile may not be discarded in
   the same turn; an identical card held from before (several decks) may. */
static inline int tt_may_discard(const tt_game *g, int kind) {
    if (kind != g->drawn_upcard || g->rules->discard_drawn_upcard) return 1;
    return g->hands[g->current][kind] > 1;
}

/* The legal actions that need no solver as 0/1 in mask[TT_ACTIONS]: the draws, the discards
   and, with a false-out penalty, every discard announced as going out (tt_legal_mask() adds
   the go-outs otherwise). Returns how many. */
static int tt_legal_moves(const tt_game *g, int8_t *mask) {
    memset(mask, 0, TT_ACTIONS);
    int count = 0;
    if (g->phase == TT_DRAW) {
        if (g->nstock > 0 || g->npile > 1) { /* an empty stock is rebuilt at the draw */
            mask[TT_ACT_DRAW_STOCK] = 1;
            count++;
        }
        if (g->npile > 0) {
            mask[TT_ACT_TAKE_DISCARD] = 1;
            count++;
        }
        return count;
    }
    if (g->phase != TT_DISCARD) return 0;
    const uint8_t *hand = g->hands[g->current];
    for (int k = 0; k < TT_KINDS; k++) { /* every card held (no branch: the compiler vectorises) */
        mask[TT_ACT_DISCARD + k] = hand[k] != 0;
        count += hand[k] != 0;
    }
    const int drawn = g->drawn_upcard; /* but the upcard just taken, where it may not go back */
    if (drawn >= 0 && hand[drawn] && !tt_may_discard(g, drawn)) {
        mask[TT_ACT_DISCARD + drawn] = 0;
        count--;
    }
    if (g->rules->false_out_penalty >= 0) { /* any discard may be announced as going out */
        for (int k = 0; k < TT_KINDS; k++) {
            if (mask[TT_ACT_DISCARD + k]) {
                mask[TT_ACT_GO_OUT + k] = 1;
                count++;
            }
        }
    }
    return count;
}

/* The legal actions of the seat to move as 0/1 in mask[TT_ACTIONS]; all 0 once the game is
   over. Returns how many are legal, or TT_SOLVER. */
static int tt_legal_mask(const tt_game *g, const tt_solver_service *svc, int8_t *mask) {
    int count = tt_legal_moves(g, mask);
    if (g->phase != TT_DISCARD || g->rules->false_out_penalty >= 0) return count;
    const uint8_t *hand = g->hands[g->current];
    int64_t bits = svc->go_out(svc->ctx, g->round_index, hand);
    if (bits < 0) return TT_SOLVER;
    for (int k = 0; k < TT_KINDS; k++) {
        if ((bits >> k & 1) && mask[TT_ACT_DISCARD + k]) {
            mask[TT_ACT_GO_OUT + k] = 1;
            count++;
        }
    }
    return count;
}

/* ------------------------------------------------------------------ the table */

/* A card of this kind left the seat's hand in public (a discard, a lay-down): one known copy
   fewer, whichever copy it was (reading the hand would leak it). */
static inline void tt_forget(tt_game *g, int seat, int card) {
    if (g->taken[seat][card]) g->taken[seat][card]--;
}

/* Move the seat's melds from its hand to the table. */
static int tt_move_to_table(tt_game *g, int seat, const tt_melds *melds) {
    tt_table *t = &g->table;
    if (t->count + melds->count > TT_MAX_TABLE) return TT_FULL;
    int at = 0;
    for (int m = 0; m < melds->count; m++) {
        int index = t->count++;
        t->seat[index] = (int8_t)seat;
        t->shape[index] = t->laid[index] = melds->shape[m];
        for (int j = 0; j < melds->shape[m].size; j++) {
            int c = melds->card[at++];
            g->hands[seat][c]--;
            tt_forget(g, seat, c);
            t->card[t->ncards] = (uint8_t)c;
            t->meld_of[t->ncards++] = (uint8_t)index;
        }
    }
    return TT_OK;
}

/* RULES.md, joker_layoff: a leftover joker may be dropped on another player's meld. */
static inline int tt_joker_free(const tt_game *g, int seat) {
    if (!g->rules->joker_layoff) return 0;
    for (int m = 0; m < g->table.count; m++)
        if (g->table.seat[m] != seat) return 1;
    return 0;
}

/* Redemption: lay down own melds and lay off loose cards onto the table (RULES.md). */
static int tt_redeem(tt_game *g, const tt_solver_service *svc, int seat, tt_redemption *r) {
    int status = svc->redeem(svc->ctx, g->round_index, g->hands[seat], &g->table,
                             tt_joker_free(g, seat), r);
    if (status < 0) return TT_SOLVER;
    tt_table *t = &g->table;
    for (int i = 0; i < r->nlaid_off; i++) {
        int c = r->laid_off_card[i];
        g->hands[seat][c]--;
        tt_forget(g, seat, c);
        t->card[t->ncards] = (uint8_t)c;
        t->meld_of[t->ncards++] = r->laid_off_onto[i];
    }
    for (int m = 0; m < t->count; m++) t->shape[m] = r->table_shape[m];
    g->scored_first[seat] = t->count;
    g->scored_count[seat] = r->own.count;
    int status2 = tt_move_to_table(g, seat, &r->own);
    if (status2 < 0) return status2;
    g->scored[seat] = 1;
    g->scored_points[seat] = r->points;
    return TT_OK;
}

/* Score the round and deal the next one (or end the game). */
static int tt_end_round(tt_game *g, const tt_solver_service *svc, int ended_by) {
    const tt_rules *R = g->rules;
    const int n = R->num_players;
    const int64_t multiplier = R->multiplier[g->round_index];
    for (int seat = 0; seat < n; seat++) {
        int64_t points = g->scored_points[seat];
        if (!g->scored[seat]) {
            points = svc->penalty(svc->ctx, g->round_index, g->hands[seat], tt_joker_free(g, seat));
            if (points < 0) return TT_SOLVER;
        }
        g->last_deadwood[seat] = points;
    }
    /* Decided here: doubling applies to the whole round score, false go-outs included. */
    for (int seat = 0; seat < n; seat++) {
        g->last_penalties[seat] = multiplier * (g->last_deadwood[seat] + g->false_outs[seat]);
        g->scores[seat] += g->last_penalties[seat];
    }
    g->ended_by = ended_by;
    g->rounds_played++;
    g->last_round_ended = 1;
    if (g->ended != NULL) {
        tt_game *snapshot = g->ended;
        memcpy(snapshot, g, sizeof *g);
        snapshot->ended = NULL;
        snapshot->phase = g->round_index + 1 < R->num_rounds ? TT_ROUND_OVER : TT_GAME_OVER;
    }
    if (g->round_index + 1 < R->num_rounds) {
        g->round_index++;
        tt_deal(g);
    } else {
        g->phase = TT_GAME_OVER;
    }
    return TT_OK;
}

/* ------------------------------------------------------------------ the moves */

/* Decided here (RULES.md): the discard pile except its top card is shuffled into a new stock
   when the stock is empty at a draw. */
static void tt_rebuild_stock(tt_game *g) {
    const uint8_t top = g->pile[--g->npile];
    memcpy(g->stock, g->pile, (size_t)g->npile);
    tt_rng_shuffle(&g->rebuild_rng, g->stock, g->npile, 1); /* pile[i] for i in permutation */
    g->nstock = g->npile;
    g->pile[0] = top;
    g->npile = 1;
}

/* Decided here (RULES.md): with neither stock nor discard pile the round ends; in play the
   pile always holds the last discard, so only a set-up position gets here. */
static inline int tt_nothing_to_draw(const tt_game *g) { return g->nstock == 0 && g->npile == 0; }

static int tt_discard(tt_game *g, const tt_solver_service *svc, int seat, int card, int going_out,
                      tt_redemption *scratch) {
    const tt_rules *R = g->rules;
    int valid_out = 0;
    if (going_out) {
        if (R->false_out_penalty < 0) {
            valid_out = 1;
        } else {
            int64_t bits = svc->go_out(svc->ctx, g->round_index, g->hands[seat]);
            if (bits < 0) return TT_SOLVER;
            valid_out = (int)(bits >> card & 1);
        }
    }
    g->hands[seat][card]--;
    g->pile[g->npile++] = (uint8_t)card;
    tt_forget(g, seat, card);
    g->last_known = g->taken[seat][card]; /* before any lay-down */
    g->drawn_upcard = -1;
    g->turns++;
    if (going_out && !valid_out) /* RULES.md, false_out_penalty: the discard stands */
        g->false_outs[seat] += R->false_out_penalty;
    const int final_turn = g->went_out >= 0;
    const int went_out = going_out && valid_out && !final_turn;
    g->last_went_out = went_out;
    g->last_false_out = going_out && !valid_out;
    if (went_out) {
        g->went_out = seat;
        tt_melds *melds = &scratch->own;
        if (svc->arrange(svc->ctx, g->round_index, g->hands[seat], melds) < 0) return TT_SOLVER;
        g->scored_first[seat] = g->table.count;
        g->scored_count[seat] = melds->count;
        int status = tt_move_to_table(g, seat, melds);
        if (status < 0) return status;
        g->scored[seat] = 1;
        g->scored_points[seat] = 0;
        g->last_laid = 1;
    } else if (final_turn && R->redemption) {
        int before = g->table.ncards;
        int status = tt_redeem(g, svc, seat, scratch);
        if (status < 0) return status;
        g->last_laid = g->table.ncards != before;
    }
    const int next = (seat + 1) % R->num_players;
    g->last_stock = g->nstock;
    g->last_turns = g->turns;
    g->last_next = seat; /* the mover, when the move ends the round */
    if (g->went_out >= 0) {
        if (next == g->went_out) /* everyone else has had a final turn */
            return tt_end_round(g, svc, TT_ENDED_OUT);
    } else if (g->turns >= R->turn_cap) {
        /* Decided here (RULES.md): the turn cap ends the round; nobody went out. */
        return tt_end_round(g, svc, TT_ENDED_TURN_CAP);
    }
    g->current = next;
    g->phase = TT_DRAW;
    if (tt_nothing_to_draw(g)) return tt_end_round(g, svc, TT_ENDED_NO_CARDS);
    g->last_next = next;
    return TT_OK;
}

/* The start of a turn in a set-up position (tt_env's Game.arrange): with nothing to draw the
   round ends at once and is scored. Returns 1 if it ended, 0 if not, or an error. */
static inline int tt_settle(tt_game *g, const tt_solver_service *svc) {
    if (g->phase != TT_DRAW || !tt_nothing_to_draw(g)) return 0;
    g->last_round_ended = 0;
    int status = tt_end_round(g, svc, TT_ENDED_NO_CARDS);
    return status < 0 ? status : 1;
}

/* Play `action` for the seat to move, `mask` being the legal mask of the game as it stands
   (tt_legal_mask). TT_ILLEGAL leaves the game as it was; TT_SOLVER or TT_FULL mid-move leave it
   undefined (the caller discards the game). `scratch` is the caller's (a redemption is large). */
static int tt_apply_masked(tt_game *g, const tt_solver_service *svc, int action, const int8_t *mask,
                           tt_redemption *scratch) {
    if (action < 0 || action >= TT_ACTIONS || !mask[action]) return TT_ILLEGAL;
    const int seat = g->current;
    g->last_rebuilt = g->last_went_out = g->last_false_out = g->last_laid = 0;
    g->last_round_ended = 0;
    g->last_seat = seat;
    if (action <= TT_ACT_TAKE_DISCARD) {
        int card;
        if (action == TT_ACT_DRAW_STOCK) {
            if (g->nstock == 0) {
                tt_rebuild_stock(g);
                g->last_rebuilt = 1;
            }
            card = g->stock[--g->nstock];
            g->drawn_upcard = -1;
        } else {
            card = g->pile[--g->npile];
            g->taken[seat][card]++;
            g->drawn_upcard = card;
        }
        g->hands[seat][card]++;
        g->phase = TT_DISCARD;
        g->last_card = card;
        g->last_known = g->taken[seat][card];
        g->last_stock = g->nstock;
        g->last_turns = g->turns;
        g->last_next = seat;
        return TT_OK;
    }
    const int going_out = action >= TT_ACT_GO_OUT;
    const int card = action - (going_out ? TT_ACT_GO_OUT : TT_ACT_DISCARD);
    g->last_card = card;
    return tt_discard(g, svc, seat, card, going_out, scratch);
}

/* tt_apply_masked() with the mask computed here. */
static inline int tt_apply(tt_game *g, const tt_solver_service *svc, int action,
                           tt_redemption *scratch) {
    int8_t mask[TT_ACTIONS];
    int legal = tt_legal_mask(g, svc, mask);
    if (legal < 0) return legal;
    return tt_apply_masked(g, svc, action, mask, scratch);
}

#endif /* TT_GAME_CORE_H */
