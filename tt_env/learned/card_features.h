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
   whole number of copies 0..255 (tt_cf_read_counts()), or when a hand to discard from is empty
   (the definition raises there).

   The vector is [card table (53 rows of TT_CF_CARD_WIDTH), global values (TT_CF_GLOBAL_WIDTH),
   TT_CF_SEAT_WIDTH per seat]; the column names and their order are tt_env/learned/_layout.py's,
   which the Python side checks against the names below before it uses this code. */

#ifndef TT_CARD_FEATURES_H
#define TT_CARD_FEATURES_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "game/melds/solver.h"

#define TT_CF_KINDS 53 /* card kinds; 52 is the joker */
#define TT_CF_NONE 53  /* the padding of the neighbour tables: no card */
#define TT_CF_RANKS 13
#define TT_CF_MAX_SEATS 8      /* Rules: 2..8 players */
#define TT_CF_MAX_NEIGHBOURS 4 /* widest neighbour table taken (the transform's are 3, 2, 2) */
#define TT_CF_MAX_COUNT 255    /* the largest count of one kind taken (a hand is uint8 counts) */
#define TT_CF_MIN_CARDS_DEALT 3
#define TT_CF_DEALT_SLOTS 13
#define TT_CF_BIG ((int64_t)1 << 40) /* "no value yet" in a minimum over discard values */

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

/* Where the pieces read here start in the observation vector (tt_env.encoding.observation);
   per-seat pieces have one row per seat, the observer's first. */
typedef struct {
    int64_t hand, drawn_upcard, top_discard, discard_below, table;  /* 53 each */
    int64_t wild_rank;                                              /* 13: one-hot, A..K */
    int64_t cards_dealt;                                            /* TT_CF_DEALT_SLOTS */
    int64_t rounds_left, phase, final_turn, stock_size, turns_left; /* phase: 2, others 1 */
    int64_t known;                                                  /* 53 per seat */
    int64_t hand_size, went_out, score, dealer;                     /* 1 per seat */
} tt_cf_layout;

/* For each card kind, the kinds it counts (the same rank in the other suits, the suited
   neighbours one or two ranks away), padded with TT_CF_NONE. */
typedef struct {
    uint8_t kind[TT_CF_KINDS][TT_CF_MAX_NEIGHBOURS];
    int64_t width;
} tt_cf_neighbours;

/* Everything the transform reads besides the observation: fixed for one CardFeatures. */
typedef struct {
    tt_cf_layout lay;
    int64_t seats;                        /* players, 1..TT_CF_MAX_SEATS */
    int64_t deck[TT_CF_KINDS];            /* copies of each kind in play (deck[0]: the decks) */
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

/* The observation's counts as the definition reads them, np.rint (half to even) of float32.
   A value whose rounding is not in 0..TT_CF_MAX_COUNT (negative, huge, inf, NaN) makes it
   answer 0: converting it to an integer would be undefined behaviour in C, and no observation
   of a game holds one, so the numpy definition decides what it means (rejecting rather than
   clamping keeps the compiled path to the numbers the definition gives). */
static int tt_cf_read_counts(const float *from, int64_t count, int64_t *to) {
    for (int64_t i = 0; i < count; i++) {
        float r = rintf(from[i]);
        if (!(r >= 0.0f && r <= (float)TT_CF_MAX_COUNT)) return 0; /* NaN fails too */
        to[i] = (int64_t)r;
    }
    return 1;
}

/* Whether candidate discard a comes before b: the definition's order, fewest penalty after the
   discard first, then the costliest card, then the highest kind. Compared field by field: an
   integer key packing the three would need a bound on the penalties, and unused_wild_penalty
   reaches 1,000. */
static int tt_cf_before(const int64_t *dv, const int64_t *par, int64_t a, int64_t b) {
    if (dv[a] != dv[b]) return dv[a] < dv[b];
    if (par[a] != par[b]) return par[a] > par[b];
    return a > b;
}

/* The kinds of the candidate discards (held, not `banned`) in that order, into `kinds`;
   returns how many. No two kinds compare equal, so any correct sort gives this one order: an
   insertion sort of at most 53. */
static int64_t tt_cf_candidates(const int64_t *dv, const int64_t *par, int64_t banned,
                                int64_t *kinds) {
    int64_t m = 0;
    for (int64_t k = 0; k < TT_CF_KINDS; k++) {
        if (dv[k] < 0 || k == banned) continue;
        int64_t i = m++;
        for (; i > 0 && tt_cf_before(dv, par, k, kinds[i - 1]); i--) kinds[i] = kinds[i - 1];
        kinds[i] = k;
    }
    return m;
}

/* The expected fewest penalty of `hand` after one draw among `unseen` (total > 0 copies) and
   its best discard; -1 when the kernel cannot certify it. */
static double tt_cf_expected_after_draw(const tt_solver *S, const uint8_t *hand,
                                        const int64_t *unseen, int64_t total) {
    int64_t after[TT_CF_KINDS], dv[TT_CF_KINDS];
    if (tt_after_draw_values(S, hand, unseen, after, dv) < 0) return -1.0;
    int64_t acc = 0;
    for (int64_t x = 0; x < TT_CF_KINDS; x++) {
        if (unseen[x] > 0) {
            if (after[x] < 0) return -1.0;
            acc += after[x] * unseen[x];
        }
    }
    return (double)acc / (double)total;
}

/* The discard phase's values (held cards, the best discard, the lookahead); 0 when the
   kernel cannot certify one. `now` is the hand's penalty. */
static int tt_cf_discard_phase(const tt_cf_params *P, const tt_solver *S, const uint8_t *hand,
                               const int64_t *unseen, int64_t drawn, int final_turn, int64_t now,
                               float *cards, float *g) {
    int64_t dv[TT_CF_KINDS];
    if (tt_discard_values(S, hand, dv) < 0) return 0;
    /* The card just taken from the discard pile may not go straight back (unless
       discard_drawn_upcard, or another copy is held). */
    int64_t banned = -1;
    if (drawn >= 0 && !P->discard_drawn_upcard && hand[drawn] < 2) banned = drawn;
    int64_t allowed = 0, best = TT_CF_BIG;
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
    if (best == TT_CF_BIG) return 0; /* nothing held, nothing to discard: no game gets here */
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
    int64_t total = 0;
    for (int64_t k = 0; k < TT_CF_KINDS; k++) total += unseen[k];
    if (!P->lookahead || final_turn || best == 0 || total <= 0) return 1;

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
        double expected = tt_cf_expected_after_draw(S, less, unseen, total);
        if (expected < 0.0) return 0;
        cards[k * TT_CF_CARD_WIDTH + TT_C_LOOK] = (float)(((double)dv[k] - expected) / 10.0);
        cards[k * TT_CF_CARD_WIDTH + TT_C_CANDIDATE] = 1.0f;
    }
    return 1;
}

/* The draw phase's values (what each draw gains, the stock on average, the top discard); 0
   when the kernel cannot certify one. */
static int tt_cf_draw_phase(const tt_cf_params *P, const tt_solver *S, const uint8_t *hand,
                            const int64_t *unseen, int64_t top, int64_t now, float *cards,
                            float *g) {
    int64_t weights[TT_CF_KINDS], after[TT_CF_KINDS], dv[TT_CF_KINDS];
    memcpy(weights, unseen, sizeof weights);
    if (top >= 0) weights[top] += 1; /* valued too (draw_gain), though not a stock draw */
    if (tt_after_draw_values(S, hand, weights, after, dv) < 0) return 0;
    int64_t total = 0, acc = 0;
    for (int64_t x = 0; x < TT_CF_KINDS; x++) {
        if (weights[x] > 0) {
            if (after[x] < 0) return 0;
            cards[x * TT_CF_CARD_WIDTH + TT_C_DRAW_GAIN] = (float)((double)(now - after[x]) / 10.0);
            acc += after[x] * unseen[x];
        }
        total += unseen[x];
    }
    if (total > 0) g[TT_G_STOCK] = (float)(((double)now - (double)acc / (double)total) / 10.0);
    if (top < 0) return 1;
    g[TT_G_CAN_TAKE] = 1.0f;
    int64_t take;
    if (P->discard_drawn_upcard || hand[top] > 0) {
        take = after[top];
    } else { /* the best discard but the card just taken (unless it is all there is) */
        uint8_t more[TT_CF_KINDS];
        memcpy(more, hand, TT_CF_KINDS);
        more[top] += 1;
        if (tt_discard_values(S, more, dv) < 0) return 0;
        int64_t any = TT_CF_BIG;
        take = TT_CF_BIG;
        for (int64_t k = 0; k < TT_CF_KINDS; k++) {
            if (dv[k] == -1) return 0;
            if (dv[k] < 0) continue;
            if (dv[k] < any) any = dv[k];
            if (k != top && dv[k] < take) take = dv[k];
        }
        if (take == TT_CF_BIG) take = any;
    }
    g[TT_G_TAKE] = (float)((double)(now - take) / 10.0);
    return 1;
}

/* np.argmax of `count` float32 values: the first of the largest, or the first NaN (numpy
   takes NaN for the largest). */
static int64_t tt_cf_argmax(const float *v, int64_t count) {
    int64_t at = 0;
    for (int64_t i = 0; i < count; i++) {
        if (isnan(v[i])) return i;
        if (v[i] > v[at]) at = i;
    }
    return at;
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

/* Fill `out` (tt_cf_size(P->seats) values) with the features of the observation `obs` (laid
   out as P->lay says); 1 on success, 0 when the numpy definition must answer instead (see the
   top of this file). */
static int tt_card_features(const tt_cf_params *P, const float *obs, float *out) {
    const tt_cf_layout *L = &P->lay;
    const int64_t n = P->seats;
    const int64_t size = tt_cf_size(n);
    for (int64_t i = 0; i < size; i++) out[i] = 0.0f;
    float *cards = out;
    float *g = out + TT_CF_KINDS * TT_CF_CARD_WIDTH;

    int64_t held[TT_CF_KINDS], below[TT_CF_KINDS], table[TT_CF_KINDS];
    int64_t known[TT_CF_MAX_SEATS][TT_CF_KINDS];
    if (!tt_cf_read_counts(obs + L->hand, TT_CF_KINDS, held) ||
        !tt_cf_read_counts(obs + L->discard_below, TT_CF_KINDS, below) ||
        !tt_cf_read_counts(obs + L->table, TT_CF_KINDS, table))
        return 0;
    for (int64_t s = 0; s < n; s++)
        if (!tt_cf_read_counts(obs + L->known + s * TT_CF_KINDS, TT_CF_KINDS, known[s])) return 0;
    uint8_t hand[TT_CF_KINDS];
    for (int64_t k = 0; k < TT_CF_KINDS; k++) hand[k] = (uint8_t)held[k];

    const int64_t w = tt_cf_argmax(obs + L->wild_rank, TT_CF_RANKS); /* wild rank - 1 */
    const tt_solver *S = P->solver[w];
    const int64_t *par = S->par;
    int64_t top = -1, drawn = -1;
    for (int64_t k = 0; k < TT_CF_KINDS; k++) {
        if (top < 0 && obs[L->top_discard + k] != 0.0f) top = k;
        if (drawn < 0 && obs[L->drawn_upcard + k] != 0.0f) drawn = k;
    }
    /* Unseen: the copies in play less the hand, the whole discard pile, the table and what the
       others are known to hold (in the stock or in hidden hands). */
    int64_t unseen[TT_CF_KINDS];
    for (int64_t k = 0; k < TT_CF_KINDS; k++) {
        int64_t u = P->deck[k] - held[k] - below[k] - table[k] - (k == top ? 1 : 0);
        for (int64_t s = 1; s < n; s++) u -= known[s][k];
        unseen[k] = u > 0 ? u : 0;
    }
    const int draw_phase = obs[L->phase] > 0.5f;
    const int discard_phase = obs[L->phase + 1] > 0.5f;
    const int final_turn = obs[L->final_turn] > 0.5f;
    const double decks = (double)P->deck[0];

    /* The card table. */
    const tt_cf_neighbours *same = &P->neighbours[0];
    const tt_cf_neighbours *near1 = &P->neighbours[1];
    const tt_cf_neighbours *near2 = &P->neighbours[2];
    for (int64_t k = 0; k < TT_CF_KINDS; k++) {
        float *row = cards + k * TT_CF_CARD_WIDTH;
        row[TT_C_HELD] = (float)hand[k];
        row[TT_C_DRAWN] = obs[L->drawn_upcard + k];
        row[TT_C_TOP] = obs[L->top_discard + k];
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
            if (!tt_cf_discard_phase(P, S, hand, unseen, drawn, final_turn, now, cards, g))
                return 0;
        } else if (!tt_cf_draw_phase(P, S, hand, unseen, top, now, cards, g)) {
            return 0;
        }
    }

    /* The global values and the seats. */
    g[TT_G_DRAW_PHASE] = draw_phase ? 1.0f : 0.0f;
    g[TT_G_DISCARD_PHASE] = discard_phase ? 1.0f : 0.0f;
    g[TT_G_FINAL] = final_turn ? 1.0f : 0.0f;
    for (int64_t i = 0; i < TT_CF_DEALT_SLOTS; i++) g[TT_G_DEALT_3 + i] = obs[L->cards_dealt + i];
    int64_t dealt = tt_cf_argmax(obs + L->cards_dealt, TT_CF_DEALT_SLOTS);
    g[TT_G_DEALT] = (float)((double)(dealt + TT_CF_MIN_CARDS_DEALT) / 13.0);
    g[TT_G_ROUNDS] = obs[L->rounds_left];
    g[TT_G_STOCK_SIZE] = obs[L->stock_size];
    g[TT_G_TURNS] = obs[L->turns_left];
    const float score0 = obs[L->score];
    const float cards_max = (float)(P->max_cards + 1);
    for (int64_t s = 0; s < n; s++) {
        float *seat = g + TT_CF_GLOBAL_WIDTH + TT_CF_SEAT_WIDTH * s;
        seat[TT_S_SIZE] = obs[L->hand_size + s] / cards_max; /* float32 / float32 */
        seat[TT_S_OUT] = obs[L->went_out + s];
        seat[TT_S_SCORE] = obs[L->score + s] - score0; /* float32 - float32 */
        int64_t total = 0;
        for (int64_t k = 0; k < TT_CF_KINDS; k++) total += known[s][k];
        seat[TT_S_KNOWN] = (float)((double)total / 10.0);
        seat[TT_S_DEALER] = obs[L->dealer + s];
    }
    return 1;
}

#endif /* TT_CARD_FEATURES_H */
