/* Whether a game state (game.h) is one the engine can play on: every value in its range and
   the cards where the engine keeps them, so that no move from it reads or writes outside the
   state's arrays. A state set from outside (tt_env's Game.arrange, a pickled game) is checked
   here before the engine sees it.

   Plain C, header only, no Python. tt_game_check() returns NULL for a playable state, else a
   message naming the first value out of place. */

#ifndef TT_GAME_CHECK_H
#define TT_GAME_CHECK_H

#include "game/core/game.h"

#define TT_MAX_POINTS (((int64_t)1) << 50) /* scores and penalties: far from overflowing */
#define TT_MAX_COPIES 255                  /* copies of a kind in play: a hand byte holds all */

static inline int tt_in(int64_t value, int64_t low, int64_t high) {
    return value >= low && value <= high;
}

/* A meld shape's fields in the ranges of tt_env.game.melds.MeldShape. */
static inline int tt_shape_ok(const tt_shape *s) {
    return tt_in(s->kind, 0, 2) && tt_in(s->rank, 0, 13) && tt_in(s->suit, -1, 3) &&
           tt_in(s->low, 0, 14) && tt_in(s->high, 0, 14) && tt_in(s->wilds, 0, TT_DECK_MAX) &&
           tt_in(s->size, 1, TT_DECK_MAX);
}

/* The melds on the table: their seats and shapes, each card a card kind of a meld, each meld
   holding at least the cards it was laid down with. */
static const char *tt_table_check(const tt_table *t, int n, int *copies) {
    if (!tt_in(t->count, 0, TT_MAX_TABLE)) return "the table holds too many melds";
    if (!tt_in(t->ncards, 0, TT_DECK_MAX)) return "the table holds too many cards";
    int cards_of[TT_MAX_TABLE] = {0};
    for (int i = 0; i < t->ncards; i++) {
        if (t->card[i] >= TT_KINDS) return "a table card is no card kind";
        if (t->meld_of[i] >= t->count) return "a table card belongs to no meld";
        cards_of[t->meld_of[i]]++;
        copies[t->card[i]]++;
    }
    for (int m = 0; m < t->count; m++) {
        if (!tt_in(t->seat[m], 0, n - 1)) return "a table meld's seat is out of range";
        if (!tt_shape_ok(&t->shape[m]) || !tt_shape_ok(&t->laid[m]))
            return "a table meld's shape is out of range";
        if (t->laid[m].size > cards_of[m]) return "a table meld holds fewer cards than laid";
    }
    return NULL;
}

/* Per seat: the hand, what it is known to hold (never more than the hand), the points. */
static const char *tt_seats_check(const tt_game *g, int n, int *copies) {
    for (int s = 0; s < n; s++) {
        for (int k = 0; k < TT_KINDS; k++) {
            if (g->taken[s][k] > g->hands[s][k]) return "a seat is known to hold a card it lacks";
            copies[k] += g->hands[s][k];
        }
        if (!tt_in(g->scores[s], -TT_MAX_POINTS, TT_MAX_POINTS) ||
            !tt_in(g->false_outs[s], 0, TT_MAX_POINTS) ||
            !tt_in(g->scored_points[s], 0, TT_MAX_POINTS) ||
            !tt_in(g->last_penalties[s], 0, TT_MAX_POINTS) ||
            !tt_in(g->last_deadwood[s], 0, TT_MAX_POINTS))
            return "a score or penalty is out of range";
        if (!tt_in(g->scored[s], 0, 1) || !tt_in(g->scored_first[s], 0, g->table.count) ||
            !tt_in(g->scored_count[s], 0, g->table.count - g->scored_first[s]))
            return "a seat's melds laid down are out of range";
    }
    for (int s = n; s < TT_MAX_SEATS; s++) /* no seat beyond the players holds anything */
        for (int k = 0; k < TT_KINDS; k++)
            if (g->hands[s][k] || g->taken[s][k]) return "a seat beyond the players holds cards";
    return NULL;
}

/* The state of a game under its rules (g->rules, set by the caller): NULL if the engine can
   play on from it. */
static const char *tt_game_check(const tt_game *g) {
    const tt_rules *R = g->rules;
    const int n = R->num_players;
    if (!tt_in(g->first_dealer, 0, n - 1)) return "the first dealer is out of range";
    if (!tt_in(g->round_index, 0, R->num_rounds - 1)) return "the round is out of range";
    if (!tt_in(g->phase, TT_DRAW, TT_ROUND_OVER)) return "the phase is out of range";
    if (!tt_in(g->current, 0, n - 1)) return "the seat to move is out of range";
    if (!tt_in(g->went_out, -1, n - 1)) return "the seat that went out is out of range";
    if (!tt_in(g->turns, 0, R->turn_cap + n)) return "the turns are out of range";
    if (!tt_in(g->nstock, 0, TT_DECK_MAX) || !tt_in(g->npile, 0, TT_DECK_MAX))
        return "the stock or the discard pile holds too many cards";
    int copies[TT_KINDS] = {0};
    for (int i = 0; i < g->nstock; i++) {
        if (g->stock[i] >= TT_KINDS) return "a stock card is no card kind";
        copies[g->stock[i]]++;
    }
    for (int i = 0; i < g->npile; i++) {
        if (g->pile[i] >= TT_KINDS) return "a discard is no card kind";
        copies[g->pile[i]]++;
    }
    const char *why = tt_table_check(&g->table, n, copies);
    if (why == NULL) why = tt_seats_check(g, n, copies);
    if (why != NULL) return why;
    int total = 0;
    for (int k = 0; k < TT_KINDS; k++) {
        if (copies[k] > TT_MAX_COPIES) return "more than 255 copies of a card kind in play";
        total += copies[k];
    }
    /* Cards only move between the hands, the stock, the pile and the table: none overflows. */
    if (total > TT_DECK_MAX) return "more cards in play than 12 decks hold";
    if (!tt_in(g->drawn_upcard, -1, TT_KINDS - 1)) return "the card taken is no card kind";
    if (g->drawn_upcard >= 0 && (g->phase != TT_DISCARD || !g->hands[g->current][g->drawn_upcard]))
        return "the card taken this turn is not in the hand of the seat to move";
    if (g->phase == TT_DISCARD) {
        int held = 0;
        for (int k = 0; k < TT_KINDS; k++) held += g->hands[g->current][k];
        if (!held) return "the seat to discard holds no card";
    }
    if (!tt_in(g->ended_by, TT_NOT_ENDED, TT_ENDED_NO_CARDS) ||
        !tt_in(g->rounds_played, 0, 1 << 30) || !tt_in(g->last_seat, -1, n - 1) ||
        !tt_in(g->last_next, -1, n - 1) || !tt_in(g->last_card, -1, TT_KINDS - 1) ||
        !tt_in(g->last_known, 0, TT_MAX_COPIES) || !tt_in(g->last_stock, 0, TT_DECK_MAX) ||
        !tt_in(g->last_turns, 0, R->turn_cap + n) || !tt_in(g->last_rebuilt, 0, 1) ||
        !tt_in(g->last_went_out, 0, 1) || !tt_in(g->last_false_out, 0, 1) ||
        !tt_in(g->last_laid, 0, 1) || !tt_in(g->last_round_ended, 0, 1))
        return "the last move's record is out of range";
    return NULL;
}

#endif /* TT_GAME_CHECK_H */
