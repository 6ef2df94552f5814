/* The learned agents' card features, compiled: the transform of tt_env.learned.features
   (CardFeatures; its module docstring defines every value) in one call that also runs the
   solver's kernel.

   Plain C, header only (every function static), included by the module
   tt_env.learned._cfeatures, which checks every input before it reaches this code. It gives the
   numbers of the numpy definition (CardFeatures.reference) to the last bit of float32: each
   value is computed in the precision the definition computes it in (float64 where numpy
   promotes, as for an int64 or a Python float; float32 where both operands are float32) and
   rounded to float32 when stored; one-hots are read as np.argmax reads them. Any observation
   of a game gets an answer; tt_card_features() leaves an observation to the definition
   (answers 0) when the solver's kernel cannot certify a value, when a count in it is not a
   whole number of copies 0..255 (valuation/knowledge.h, tt_see()), or when a hand to discard
   from is empty (the definition raises there). What the seat knows (its hand, the unseen cards,
   what each seat is known to hold, the discards allowed, the expected penalty after a draw) is
   valuation/knowledge.h's.

   The vector is [card table (53 rows of TT_CF_CARD_WIDTH), global values (TT_CF_GLOBAL_WIDTH),
   TT_CF_SEAT_WIDTH per seat]; the column names and their order are tt_env/learned/_layout.py's,
   which the Python side checks against the names below before it uses this code. */

#ifndef TT_CARD_FEATURES_H
#define TT_CARD_FEATURES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "game/melds/solver.h"
#include "valuation/knowledge.h"

#define TT_CF_KINDS 53 /* card kinds; 52 is the joker */
#define TT_CF_NONE 53  /* the padding of the neighbour tables: no card */
#define TT_CF_RANKS 13
#define TT_CF_MAX_NEIGHBOURS 4 /* widest neighbour table taken (the transform's are 3, 2, 2) */
#define TT_CF_MIN_CARDS_DEALT 3
#define TT_CF_DEALT_SLOTS 13

/* The card table's columns: X(identifier, name in CARD_FEATURES). */
#define TT_CF_CARD_COLUMNS(X)     \
    X(HELD, "held")               \
    X(DRAWN, "drawn_upcard")      \
    X(TOP, "top_discard")         \
    X(UNSEEN, "unseen")           \
    X(DISCARDED, "discarded")     \
    X(TABLE, "on_table")          \
    X(NEXT, "next_known")         \
    X(OTHERS, "others_known")     \
    X(WILD, "wild")               \
    X(POINTS, "points")           \
    X(AFTER, "after_discard")     \
    X(VS_BEST, "vs_best_discard") \
    X(BEST, "best_discard")       \
    X(GOES_OUT, "goes_out")       \
    X(SAVING, "saving")           \
    X(DRAW_GAIN, "draw_gain")     \
    X(LOOK, "lookahead_gain")     \
    X(CANDIDATE, "candidate")     \
    X(SAME_H, "same_rank_held")   \
    X(RUN_H1, "run_held_1")       \
    X(RUN_H2, "run_held_2")       \
    X(SAME_U, "same_rank_unseen") \
    X(RUN_U1, "run_unseen_1")     \
    X(RUN_U2, "run_unseen_2")     \
    X(FEEDS, "feeds_next")        \
    X(RANK, "rank")

/* The global values: X(identifier, name in GLOBAL_FEATURES); the one-hot of the cards dealt
   has one slot per deal of TT_CF_MIN_CARDS_DEALT .. + TT_CF_DEALT_SLOTS - 1 cards. */
#define TT_CF_GLOBAL_VALUES(X)          \
    X(DRAW_PHASE, "draw_phase")         \
    X(DISCARD_PHASE, "discard_phase")   \
    X(FINAL, "final_turn")              \
    X(PENALTY, "penalty")               \
    X(TAKE, "take_gain")                \
    X(STOCK, "stock_gain")              \
    X(CAN_TAKE, "can_take")             \
    X(BEST_AFTER, "best_after_discard") \
    X(CAN_OUT, "can_go_out")            \
    X(DEALT, "cards_dealt")             \
    X(DEALT_3, "dealt_3")               \
    X(DEALT_4, "dealt_4")               \
    X(DEALT_5, "dealt_5")               \
    X(DEALT_6, "dealt_6")               \
    X(DEALT_7, "dealt_7")               \
    X(DEALT_8, "dealt_8")               \
    X(DEALT_9, "dealt_9")               \
    X(DEALT_10, "dealt_10")             \
    X(DEALT_11, "dealt_11")             \
    X(DEALT_12, "dealt_12")             \
    X(DEALT_13, "dealt_13")             \
    X(DEALT_14, "dealt_14")             \
    X(DEALT_15, "dealt_15")             \
    X(ROUNDS, "rounds_left")            \
    X(STOCK_SIZE, "stock_size")         \
    X(TURNS, "turns_left")

/* The values of each seat, in play order from the observer: X(identifier, name). */
#define TT_CF_SEAT_VALUES(X) \
    X(SIZE, "hand_size")     \
    X(OUT, "went_out")       \
    X(SCORE, "score")        \
    X(KNOWN, "known")        \
    X(DEALER, "dealer")

#define TT_CF_ENUM_C(id, name) TT_C_##id,
#define TT_CF_ENUM_G(id, name) TT_G_##id,
#define TT_CF_ENUM_S(id, name) TT_S_##id,
enum { TT_CF_CARD_COLUMNS(TT_CF_ENUM_C) TT_CF_CARD_WIDTH };
enum { TT_CF_GLOBAL_VALUES(TT_CF_ENUM_G) TT_CF_GLOBAL_WIDTH };
enum { TT_CF_SEAT_VALUES(TT_CF_ENUM_S) TT_CF_SEAT_WIDTH };
#undef TT_CF_ENUM_C
#undef TT_CF_ENUM_G
#undef TT_CF_ENUM_S

_Static_assert(TT_G_DEALT_15 - TT_G_DEALT_3 + 1 == TT_CF_DEALT_SLOTS, "one slot per deal");

/* For each card kind, the kinds it counts (the same rank in the other suits, the suited
   neighbours one or two ranks away), padded with TT_CF_NONE. */
typedef struct {
    uint8_t kind[TT_CF_KINDS][TT_CF_MAX_NEIGHBOURS];
    int64_t width;
} tt_cf_neighbours;

/* Everything the transform reads besides the observation: fixed for one CardFeatures. */
typedef struct {
    tt_observer observer;                 /* the layout, the seats, the copies in play */
    double rank[TT_CF_KINDS];             /* the rank column, as the definition computes it */
    tt_cf_neighbours neighbours[3];       /* same rank, one rank away, two ranks away */
    int64_t max_cards;                    /* the largest deal (hand_size is scaled by it + 1) */
    int discard_drawn_upcard;             /* Rules.discard_drawn_upcard */
    int lookahead;                        /* give candidate discards their lookahead_gain */
    int64_t candidates;                   /* how many of the best discards get it ... */
    int64_t margin;                       /* ... if within this many points of the best */
    const tt_solver *solver[TT_CF_RANKS]; /* the solver's configuration of each wild rank - 1 */
} tt_cf_params;

/* The length of the feature vector for `seats` players. */
static int64_t tt_cf_size(int64_t seats) {
    return TT_CF_KINDS * TT_CF_CARD_WIDTH + TT_CF_GLOBAL_WIDTH + TT_CF_SEAT_WIDTH * seats;
}

/* The kinds of the candidate discards (held, not `banned`) in the agents' order
   (tt_discard_before()) into `kinds`; returns how many. No two kinds compare equal, so any
   correct sort gives this one order: an insertion sort of at most 53. */
static int64_t tt_cf_candidates(const int64_t *dv, const int64_t *par, int64_t banned,
                                int64_t *kinds) {
    int64_t m = 0;
    for (int64_t k = 0; k < TT_CF_KINDS; k++) {
        if (dv[k] < 0 || k == banned) continue;
        int64_t i = m++;
        for (; i > 0 && tt_discard_before(dv, par, k, kinds[i - 1]); i--) kinds[i] = kinds[i - 1];
        kinds[i] = k;
    }
    return m;
}

/* The discard phase's values (held cards, the best discard, the lookahead); 0 when the
   kernel cannot certify one. `now` is the hand's penalty. */
static int tt_cf_discard_phase(const tt_cf_params *P, const tt_solver *S, const tt_seen *seen,
                               int64_t now, float *cards, float *g) {
    const uint8_t *hand = seen->hand;
    int64_t dv[TT_CF_KINDS];
    if (tt_discard_values(S, hand, dv) < 0) return 0;
    int64_t banned = tt_banned_discard(P->discard_drawn_upcard, hand, seen->drawn_upcard);
    int64_t allowed = 0, best = TT_BIG;
    for (int64_t k = 0; k < TT_CF_KINDS; k++) {
        if (dv[k] == -1) return 0;
        if (dv[k] >= 0 && k != banned) {
            allowed++;
            if (dv[k] < best) best = dv[k];
        }
    }
    if (allowed == 0) { /* only the banned card is held: every held card counts */
        for (int64_t k = 0; k < TT_CF_KINDS; k++)
            if (dv[k] >= 0 && dv[k] < best) best = dv[k];
        banned = -1;
    }
    if (best == TT_BIG) return 0; /* nothing held, nothing to discard: no game gets here */
    g[TT_G_BEST_AFTER] = (float)((double)best / 25.0);
    g[TT_G_CAN_OUT] = best == 0 ? 1.0f : 0.0f;
    for (int64_t k = 0; k < TT_CF_KINDS; k++) {
        if (dv[k] < 0) continue;
        double p = (double)dv[k];
        float *row = cards + k * TT_CF_CARD_WIDTH;
        row[TT_C_AFTER] = (float)(p / 25.0);
        row[TT_C_VS_BEST] = (float)((p - (double)best) / 10.0);
        row[TT_C_BEST] = dv[k] == best ? 1.0f : 0.0f;
        row[TT_C_GOES_OUT] = dv[k] == 0 ? 1.0f : 0.0f;
        row[TT_C_SAVING] = (float)(((double)now - p) / 10.0);
    }
    if (!P->lookahead || seen->final_turn || best == 0 || seen->unseen_total <= 0) return 1;

    int64_t kinds[TT_CF_KINDS];
    int64_t m = tt_cf_candidates(dv, S->par, banned, kinds);
    int64_t n = P->candidates < m ? P->candidates : m;
    uint8_t less[TT_CF_KINDS];
    for (int64_t i = 0; i < n; i++) {
        int64_t k = kinds[i];
        /* dv[k] > best + margin, written so that no margin overflows (both are penalties of
           at most TT_MAX_CARDS cards) */
        if (dv[k] - best > P->margin) break;
        memcpy(less, hand, TT_CF_KINDS);
        less[k] -= 1;
        tt_expectation expected = tt_expected_after_draw(S, less, seen->unseen);
        if (!expected.certified) return 0;
        cards[k * TT_CF_CARD_WIDTH + TT_C_LOOK] = (float)(((double)dv[k] - expected.penalty) /
                                                          10.0);
        cards[k * TT_CF_CARD_WIDTH + TT_C_CANDIDATE] = 1.0f;
    }
    return 1;
}

/* The draw phase's values (what each draw gains, the stock on average, the top discard); 0
   when the kernel cannot certify one. */
static int tt_cf_draw_phase(const tt_cf_params *P, const tt_solver *S, const tt_seen *seen,
                            int64_t now, float *cards, float *g) {
    const uint8_t *hand = seen->hand;
    const int64_t *unseen = seen->unseen;
    const int64_t top = seen->top_discard;
    int64_t weights[TT_CF_KINDS], after[TT_CF_KINDS], dv[TT_CF_KINDS];
    memcpy(weights, unseen, sizeof weights);
    if (top >= 0) weights[top] += 1; /* valued too (draw_gain), though not a stock draw */
    if (tt_after_draw_values(S, hand, weights, after, dv) < 0) return 0;
    for (int64_t x = 0; x < TT_CF_KINDS; x++) {
        if (weights[x] > 0) {
            if (after[x] < 0) return 0;
            cards[x * TT_CF_CARD_WIDTH + TT_C_DRAW_GAIN] = (float)((double)(now - after[x]) / 10.0);
        }
    }
    if (seen->unseen_total > 0)
        g[TT_G_STOCK] =
            (float)(((double)now - tt_mean_over_unseen(after, unseen, seen->unseen_total)) / 10.0);
    if (top < 0) return 1;
    g[TT_G_CAN_TAKE] = 1.0f;
    int64_t take;
    if (tt_upcard_may_go(P->discard_drawn_upcard, hand[top] + 1)) {
        take = after[top]; /* the best discard of all: valued with the draws */
    } else {
        tt_penalty taken = tt_take_penalty(S, hand, top, P->discard_drawn_upcard);
        if (!taken.certified) return 0;
        take = taken.penalty;
    }
    g[TT_G_TAKE] = (float)((double)(now - take) / 10.0);
    return 1;
}

/* The sum of the counts of `table`'s kinds for card kind k in `counts` (capped at `cap` each),
   in float64 as the definition sums them. */
static double tt_cf_sum_near(const tt_cf_neighbours *table, int64_t k, const int64_t *counts,
                             int64_t cap) {
    double sum = 0.0;
    for (int64_t j = 0; j < table->width; j++) {
        int64_t q = table->kind[k][j];
        if (q < TT_CF_KINDS) sum += (double)(counts[q] < cap ? counts[q] : cap);
    }
    return sum;
}

/* Fill `out` (tt_cf_size(P->observer.num_players) values) with the features of the observation
   `obs` (laid out as P->observer says); 1 on success, 0 when the numpy definition must answer
   instead (see the top of this file). */
static int tt_card_features(const tt_cf_params *P, const float *obs, float *out) {
    const tt_observer *O = &P->observer;
    const int *at = O->layout.start;
    const int64_t n = O->num_players;
    const int64_t size = tt_cf_size(n);
    for (int64_t i = 0; i < size; i++) out[i] = 0.0f;
    float *cards = out;
    float *g = out + TT_CF_KINDS * TT_CF_CARD_WIDTH;

    tt_seen seen;
    if (!tt_see(O, obs, &seen).ok) return 0;
    const uint8_t *hand = seen.hand;
    const int64_t *below = seen.discard_below, *table = seen.on_table, *unseen = seen.unseen;
    const int64_t(*known)[TT_KNOW_KINDS] = seen.known;
    int64_t held[TT_CF_KINDS];
    for (int64_t k = 0; k < TT_CF_KINDS; k++) held[k] = hand[k];
    const int64_t w = seen.wild; /* wild rank - 1 */
    const tt_solver *S = P->solver[w];
    const int64_t *par = S->par;
    const int draw_phase = seen.draw_phase;
    const int discard_phase = seen.discard_phase;
    const double decks = (double)O->deck[0];

    /* The card table. */
    const tt_cf_neighbours *same = &P->neighbours[0];
    const tt_cf_neighbours *near1 = &P->neighbours[1];
    const tt_cf_neighbours *near2 = &P->neighbours[2];
    for (int64_t k = 0; k < TT_CF_KINDS; k++) {
        float *row = cards + k * TT_CF_CARD_WIDTH;
        row[TT_C_HELD] = (float)hand[k];
        row[TT_C_DRAWN] = obs[at[TT_PIECE_DRAWN_UPCARD] + k];
        row[TT_C_TOP] = obs[at[TT_PIECE_TOP_DISCARD] + k];
        row[TT_C_UNSEEN] = (float)((double)unseen[k] / decks);
        row[TT_C_DISCARDED] = (float)((double)below[k] / decks);
        row[TT_C_TABLE] = (float)((double)table[k] / decks);
        if (n > 1) row[TT_C_NEXT] = (float)known[1][k];
        if (n > 2) {
            int64_t others = 0;
            for (int64_t s = 2; s < n; s++) others += known[s][k];
            row[TT_C_OTHERS] = (float)others;
        }
        row[TT_C_WILD] = (k == TT_CF_KINDS - 1 || k % TT_CF_RANKS == w) ? 1.0f : 0.0f;
        row[TT_C_POINTS] = (float)((double)par[k] / 10.0);
        row[TT_C_RANK] = (float)P->rank[k];
        row[TT_C_SAME_H] = (float)(tt_cf_sum_near(same, k, held, INT64_MAX) / 3.0);
        row[TT_C_SAME_U] = (float)(tt_cf_sum_near(same, k, unseen, INT64_MAX) / (3.0 * decks));
        row[TT_C_RUN_H1] = (float)(tt_cf_sum_near(near1, k, held, 1) / 2.0);
        row[TT_C_RUN_U1] = (float)(tt_cf_sum_near(near1, k, unseen, INT64_MAX) / (2.0 * decks));
        row[TT_C_RUN_H2] = (float)(tt_cf_sum_near(near2, k, held, 1) / 2.0);
        row[TT_C_RUN_U2] = (float)(tt_cf_sum_near(near2, k, unseen, INT64_MAX) / (2.0 * decks));
    }
    /* feeds_next: a natural card that would meld with one the next seat is known to hold. */
    if (n > 1) {
        for (int64_t k = 0; k < TT_CF_KINDS - 1; k++) {
            int feeds = 0;
            for (int t = 0; t < 3; t++) {
                const tt_cf_neighbours *near = &P->neighbours[t];
                for (int64_t j = 0; j < near->width; j++) {
                    int64_t q = near->kind[k][j];
                    if (q < TT_CF_KINDS && known[1][q] > 0) feeds = 1;
                }
            }
            cards[k * TT_CF_CARD_WIDTH + TT_C_FEEDS] = feeds ? 1.0f : 0.0f;
        }
    }

    /* The solver's values. */
    if (discard_phase || draw_phase) {
        int64_t now = tt_evaluate(S, hand, TT_POINTS);
        if (now < 0) return 0;
        g[TT_G_PENALTY] = (float)((double)now / 25.0);
        if (discard_phase) {
            if (!tt_cf_discard_phase(P, S, &seen, now, cards, g)) return 0;
        } else if (!tt_cf_draw_phase(P, S, &seen, now, cards, g)) {
            return 0;
        }
    }

    /* The global values and the seats. */
    g[TT_G_DRAW_PHASE] = draw_phase ? 1.0f : 0.0f;
    g[TT_G_DISCARD_PHASE] = discard_phase ? 1.0f : 0.0f;
    g[TT_G_FINAL] = seen.final_turn ? 1.0f : 0.0f;
    for (int64_t i = 0; i < TT_CF_DEALT_SLOTS; i++)
        g[TT_G_DEALT_3 + i] = obs[at[TT_PIECE_CARDS_DEALT] + i];
    int64_t dealt = tt_argmax(obs + at[TT_PIECE_CARDS_DEALT], TT_CF_DEALT_SLOTS);
    g[TT_G_DEALT] = (float)((double)(dealt + TT_CF_MIN_CARDS_DEALT) / 13.0);
    g[TT_G_ROUNDS] = obs[at[TT_PIECE_ROUNDS_LEFT]];
    g[TT_G_STOCK_SIZE] = obs[at[TT_PIECE_STOCK_SIZE]];
    g[TT_G_TURNS] = obs[at[TT_PIECE_TURNS_LEFT]];
    const float score0 = obs[at[TT_PIECE_SCORE]];
    const float cards_max = (float)(P->max_cards + 1);
    for (int64_t s = 0; s < n; s++) {
        float *seat = g + TT_CF_GLOBAL_WIDTH + TT_CF_SEAT_WIDTH * s;
        seat[TT_S_SIZE] = obs[at[TT_PIECE_HAND_SIZE] + s] / cards_max; /* float32 / float32 */
        seat[TT_S_OUT] = obs[at[TT_PIECE_WENT_OUT] + s];
        seat[TT_S_SCORE] = obs[at[TT_PIECE_SCORE] + s] - score0; /* float32 - float32 */
        int64_t total = 0;
        for (int64_t k = 0; k < TT_CF_KINDS; k++) total += known[s][k];
        seat[TT_S_KNOWN] = (float)((double)total / 10.0);
        seat[TT_S_DEALER] = obs[at[TT_PIECE_DEALER] + s];
    }
    return 1;
}

#endif /* TT_CARD_FEATURES_H */
