/* What a seat knows, from its observation alone: the one place that decodes an observation
   (its pieces through the one layout, game/core/layout.h) and says which cards the seat has not
   seen, what each other seat is known to hold, which discards the rules allow, and the expected
   fewest penalty after one stock draw. The counting rule (valuation/rule.h), the learned agents'
   card features (learned/card_features.h) and the batch's built-in agents (vector/seats.h) read
   it from here; tt_env.valuation.values is its Python face (Valuation.see, which calls it
   through tt_env.valuation._crule.Observer, and decodes in numpy only where it is not built).

   Words (of RULES.md). The *unseen* cards are the copies in play less the own hand, the whole
   discard pile (its top card and the cards below it), the cards laid on the table this round and
   the cards the others are known to hold (taken from the discard pile): they are in the stock
   or in hidden hands, and a stock draw is taken to be any of them with equal chance. A hand's
   *penalty* is its fewest penalty points (the solver's tt_evaluate).

   Plain C, header only, no Python: the bindings check every input before it reaches this code.
   Card kinds: k = 13 * suit + position (0 the ace .. 12 the king), 52 the joker. */

#ifndef TT_VALUATION_KNOWLEDGE_H
#define TT_VALUATION_KNOWLEDGE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "game/core/layout.h"
#include "game/melds/solver.h"

#define TT_KNOW_KINDS 53          /* card kinds; 52 is the joker */
#define TT_KNOW_RANKS 13          /* the wild rank's one-hot */
#define TT_KNOW_MAX_SEATS 8       /* Rules: 2..8 players (the features take 1 too) */
#define TT_KNOW_MAX_COUNT 255     /* the largest count of one kind read (a hand is uint8 counts) */
#define TT_BIG ((int64_t)1 << 40) /* above every penalty: "none yet" in a minimum */

/* What every observation of one rule set shares: where its pieces are, the seats (rows of
   `known`), the copies of each kind in play. */
typedef struct {
    tt_layout layout;
    int64_t num_players;         /* 1..TT_KNOW_MAX_SEATS */
    int64_t deck[TT_KNOW_KINDS]; /* the copies of each card kind in play */
} tt_observer;

/* One seat's observation, decoded (tt_see()). */
typedef struct {
    uint8_t hand[TT_KNOW_KINDS];                     /* the seat's hand */
    int64_t discard_below[TT_KNOW_KINDS];            /* the discard pile under its top card */
    int64_t on_table[TT_KNOW_KINDS];                 /* laid down in melds this round */
    int64_t known[TT_KNOW_MAX_SEATS][TT_KNOW_KINDS]; /* what each seat is known to hold (taken
                                                        from the pile), in play order from the
                                                        observer: row 0 the seat itself, row 1
                                                        the next seat; num_players rows */
    int64_t unseen[TT_KNOW_KINDS]; /* the cards the seat has not seen (see the top) */
    int64_t unseen_total;          /* ... their sum */
    int64_t top_discard;           /* the kind on top of the pile; -1: it is empty */
    int64_t drawn_upcard;          /* the kind just taken from the pile; -1: none */
    int64_t wild;                  /* the wild rank - 1 (np.argmax of its one-hot) */
    bool draw_phase, discard_phase;
    bool final_turn; /* someone went out: this is the seat's last turn */
} tt_seen;

/* Whether tt_see() could read every count: each must round (half to even) to a whole number of
   copies 0..TT_KNOW_MAX_COUNT; else the first that does not. */
typedef struct {
    bool ok;
    enum tt_piece piece; /* when not ok: the piece of the first count that is not one */
    int64_t at;          /* ... and its offset in the vector */
} tt_reading;

/* A fewest penalty that the solver may fail to certify. */
typedef struct {
    bool certified;
    int64_t penalty;
} tt_penalty;

/* An expected fewest penalty that the solver may fail to certify. */
typedef struct {
    bool certified;
    double penalty;
} tt_expectation;

/* The counts `from[0..count)` as whole numbers (np.rint of float32, half to even) into `to`;
   the index of the first that is not one of 0..TT_KNOW_MAX_COUNT (negative, huge, inf, NaN:
   converting it would be undefined behaviour in C), or `count` when all are. */
static inline int64_t tt_read_counts(const float *from, int64_t count, int64_t *to) {
    for (int64_t i = 0; i < count; i++) {
        float r = rintf(from[i]);
        if (!(r >= 0.0f && r <= (float)TT_KNOW_MAX_COUNT)) return i; /* NaN fails too */
        to[i] = (int64_t)r;
    }
    return count;
}

/* np.argmax of `count` float32 values: the first of the largest, or the first NaN (numpy takes
   NaN for the largest). */
static inline int64_t tt_argmax(const float *v, int64_t count) {
    int64_t at = 0;
    for (int64_t i = 0; i < count; i++) {
        if (isnan(v[i])) return i;
        if (v[i] > v[at]) at = i;
    }
    return at;
}

/* The first kind set (non-zero) in a one-hot of card kinds, -1 when none is. */
static inline int64_t tt_first_kind(const float *one_hot) {
    for (int64_t k = 0; k < TT_KNOW_KINDS; k++)
        if (one_hot[k] != 0.0f) return k;
    return -1;
}

/* The cards a seat has not seen: unseen[k] = deck[k] - hand[k] - pile[k] - table[k] -
   others[k], at least 0 (pile: the whole discard pile; others: what the other seats are known
   to hold). Returns their sum. */
static inline int64_t tt_unseen_cards(const int64_t *deck, const uint8_t *hand, const int64_t *pile,
                                      const int64_t *table, const int64_t *others,
                                      int64_t *unseen) {
    int64_t total = 0;
    for (int64_t k = 0; k < TT_KNOW_KINDS; k++) {
        int64_t u = deck[k] - hand[k] - pile[k] - table[k] - others[k];
        unseen[k] = u > 0 ? u : 0;
        total += unseen[k];
    }
    return total;
}

/* Read the 53 counts at `start` (a row of `piece`) into `to`; false, with `r` saying where,
   when one is not a count (tt_read_counts()). */
static inline bool tt_see_row(const float *obs, enum tt_piece piece, int64_t start, int64_t *to,
                              tt_reading *r) {
    int64_t read = tt_read_counts(obs + start, TT_KNOW_KINDS, to);
    if (read == TT_KNOW_KINDS) return true;
    *r = (tt_reading){.ok = false, .piece = piece, .at = start + read};
    return false;
}

/* Decode the observation `obs` (laid out as O->layout says) into `seen`. The counts must be
   whole numbers of copies (tt_reading says which is not); the rest of `seen` is then not
   filled. */
static inline tt_reading tt_see(const tt_observer *O, const float *obs, tt_seen *seen) {
    const int *at = O->layout.start;
    int64_t hand[TT_KNOW_KINDS];
    tt_reading r = {.ok = true};
    if (!tt_see_row(obs, TT_PIECE_HAND, at[TT_PIECE_HAND], hand, &r) ||
        !tt_see_row(obs, TT_PIECE_DISCARD_BELOW, at[TT_PIECE_DISCARD_BELOW], seen->discard_below,
                    &r) ||
        !tt_see_row(obs, TT_PIECE_TABLE, at[TT_PIECE_TABLE], seen->on_table, &r))
        return r;
    for (int64_t s = 0; s < O->num_players; s++)
        if (!tt_see_row(obs, TT_PIECE_KNOWN, at[TT_PIECE_KNOWN] + s * TT_KNOW_KINDS, seen->known[s],
                        &r))
            return r;
    for (int64_t k = 0; k < TT_KNOW_KINDS; k++) seen->hand[k] = (uint8_t)hand[k];
    seen->top_discard = tt_first_kind(obs + at[TT_PIECE_TOP_DISCARD]);
    seen->drawn_upcard = tt_first_kind(obs + at[TT_PIECE_DRAWN_UPCARD]);
    seen->wild = tt_argmax(obs + at[TT_PIECE_WILD_RANK], TT_KNOW_RANKS);
    seen->draw_phase = obs[at[TT_PIECE_PHASE]] > 0.5f;
    seen->discard_phase = obs[at[TT_PIECE_PHASE] + 1] > 0.5f;
    seen->final_turn = obs[at[TT_PIECE_FINAL_TURN]] > 0.5f;
    int64_t pile[TT_KNOW_KINDS], others[TT_KNOW_KINDS];
    for (int64_t k = 0; k < TT_KNOW_KINDS; k++) {
        pile[k] = seen->discard_below[k] + (k == seen->top_discard ? 1 : 0);
        others[k] = 0;
        for (int64_t s = 1; s < O->num_players; s++) others[k] += seen->known[s][k];
    }
    seen->unseen_total = tt_unseen_cards(O->deck, seen->hand, pile, seen->on_table, others,
                                         seen->unseen);
    return r;
}

/* Whether the card just taken from the discard pile may be discarded now, with `copies` of its
   kind held (itself included): not straight back, unless the rules allow it
   (discard_drawn_upcard) or another copy of it is held (RULES.md). */
static inline bool tt_upcard_may_go(bool discard_drawn_upcard, int64_t copies) {
    return discard_drawn_upcard || copies >= 2;
}

/* The kind that may not be discarded now, -1 when every held card may go: the card just taken
   from the discard pile (`drawn`, -1 for none) unless tt_upcard_may_go(). */
static inline int64_t tt_banned_discard(bool discard_drawn_upcard, const uint8_t *hand,
                                        int64_t drawn) {
    return (drawn >= 0 && !tt_upcard_may_go(discard_drawn_upcard, hand[drawn])) ? drawn : -1;
}

/* Whether discarding kind a comes before kind b in the agents' order (GreedyAgent's choice,
   the card features' candidates, the go-outs of greedy and counting): the fewest penalty left
   (dv, tt_discard_values()), then the card worth more (par), then the higher kind. No two kinds
   compare equal. Compared field by field: an integer key packing the three would need a bound
   on the penalties, and unused_wild_penalty reaches 1,000. */
static inline bool tt_discard_before(const int64_t *dv, const int64_t *par, int64_t a, int64_t b) {
    if (dv[a] != dv[b]) return dv[a] < dv[b];
    if (par[a] != par[b]) return par[a] > par[b];
    return a > b;
}

/* The penalty of `hand` after taking `top` from the discard pile and making the best discard
   the rules allow (tt_banned_discard(): the card taken may not go straight back); when only the
   card taken can go (a hand of nothing else), it goes back. */
static inline tt_penalty tt_take_penalty(const tt_solver *S, const uint8_t *hand, int64_t top,
                                         bool discard_drawn_upcard) {
    uint8_t more[TT_KNOW_KINDS];
    int64_t dv[TT_KNOW_KINDS];
    memcpy(more, hand, sizeof more);
    more[top] += 1;
    const tt_penalty uncertified = {.certified = false, .penalty = -1};
    if (tt_discard_values(S, more, dv) < 0) return uncertified;
    const int64_t banned = tt_banned_discard(discard_drawn_upcard, more, top);
    int64_t take = TT_BIG, any = TT_BIG;
    for (int64_t k = 0; k < TT_KNOW_KINDS; k++) {
        if (dv[k] == TT_NOT_CERTIFIED) return uncertified;
        if (dv[k] < 0) continue; /* not held */
        if (dv[k] < any) any = dv[k];
        if (k != banned && dv[k] < take) take = dv[k];
    }
    return (tt_penalty){.certified = true, .penalty = take == TT_BIG ? any : take};
}

/* The mean of after[x] over one draw among the `total` (> 0) unseen copies, each equally
   likely: an exact integer sum, divided once. */
static inline double tt_mean_over_unseen(const int64_t *after, const int64_t *unseen,
                                         int64_t total) {
    int64_t acc = 0;
    for (int64_t x = 0; x < TT_KNOW_KINDS; x++)
        if (unseen[x] > 0) acc += after[x] * unseen[x];
    return (double)acc / (double)total;
}

/* The expected penalty of `hand` after one stock draw (any of the `unseen` cards, equally
   likely) and its best discard; the hand's own penalty when nothing is unseen. */
static inline tt_expectation tt_expected_after_draw(const tt_solver *S, const uint8_t *hand,
                                                    const int64_t *unseen) {
    int64_t after[TT_KNOW_KINDS], dv[TT_KNOW_KINDS];
    const tt_expectation uncertified = {.certified = false, .penalty = -1.0};
    int64_t total = 0;
    for (int64_t k = 0; k < TT_KNOW_KINDS; k++) total += unseen[k];
    int64_t value = tt_after_draw_values(S, hand, unseen, after, dv);
    if (value < 0) return uncertified;
    if (total <= 0) return (tt_expectation){.certified = true, .penalty = (double)value};
    for (int64_t x = 0; x < TT_KNOW_KINDS; x++)
        if (unseen[x] > 0 && after[x] < 0) return uncertified;
    return (tt_expectation){.certified = true,
                            .penalty = tt_mean_over_unseen(after, unseen, total)};
}

#endif /* TT_VALUATION_KNOWLEDGE_H */
