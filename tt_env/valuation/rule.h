/* The expected-penalty rule's compiled kernel: the play of `counting`, and of every seat in the
   search agent's counting rollouts (the rule itself: tt_env.valuation.heuristics.ExpectedPenalty).

   Plain C, header only (every function static): the rule's extension module (_crule.c)
   includes it, and so do the built-in agents' decisions (valuation/decisions.h), which the
   batch's counting seats and the search's rollouts call. It knows nothing of Python: the
   bindings check every input before it reaches this code.

   tt_decide() works on a seat's position (tt_position: its hand, the cards it has not seen,
   what the next seat is known to hold, the legal moves), so that the rollouts call it on a
   simulated table; tt_decide_seen() takes the position from a decoded observation
   (valuation/knowledge.h, tt_see(): what the seat knows) and an action mask, as the agents do
   (tt_seen_position()).
   Both make the Python rule's decisions, with its sorts and tie-breaks; where the solver cannot
   certify a value they need they answer -1 and the caller asks the Python rule. Tests check
   both on recorded positions.

   The rule, in short (the Python class has the full text):
   - draw: take the top discard when the penalty after taking it (and the best discard
     allowed) is below both the penalty now and the expected penalty after a stock draw;
   - discard: go out when possible; else rank the allowed discards by the penalty they leave
     plus a feed cost, and among the `candidates` best within `margin` points choose the lowest
     penalty - lookahead * (penalty - expected after the next draw) + feed cost. On the final
     turn (or with no look-ahead) only the penalty and the feed cost count.

   Card kinds: k = 13 * suit + position (position 0 the ace .. 12 the king), 52 the joker;
   a hand is 53 counts. */

#ifndef TT_RULE_H
#define TT_RULE_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "game/core/ids.h"
#include "game/melds/solver.h"
#include "valuation/knowledge.h"

/* The values are float64 sums and products as in the Python rule, which compares them
   exactly: no fused multiply-add may change a rounding. gcc keeps them apart under -std=c11
   and implements no such pragma (it would warn that it ignores it); clang and others need it. */
#if !defined(__GNUC__) || defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

/* The rule's parameters (ExpectedPenalty's fields) and the one rule option it reads. */
typedef struct {
    double lookahead;      /* weight of the next draw's expected gain in a discard's value */
    double feed_cost;      /* points charged for a card the next seat is known to collect */
    double wild_feed_cost; /* points charged for discarding a wild card */
    int64_t candidates;    /* the lowest-penalty discards that get the look-ahead */
    double margin;         /* ... within this many points of the best */
    bool discard_drawn_upcard;
} tt_rule;

/* One seat about to move, as the rule sees it. */
typedef struct {
    const uint8_t *hand;       /* [53] */
    const int64_t *unseen;     /* [53] the copies it has not seen (stock or hidden hands) */
    const int64_t *next_known; /* [53] what the next seat is known to hold */
    int64_t top_discard;       /* -1: the discard pile is empty */
    bool draw_phase;
    bool final_turn;          /* someone went out: this is the seat's last turn */
    bool can_stock, can_take; /* the legal draws (draw phase) */
    const uint8_t *allowed;   /* [53] the legal discards (discard phase) */
    const uint8_t *go_ok;     /* [53] the legal go-outs (discard phase) */
} tt_position;

/* Room for the arrays a position points to, where its maker builds them. */
typedef struct {
    uint8_t allowed[TT_KINDS], go_ok[TT_KINDS];
    int64_t unseen[TT_KINDS], next_known[TT_KINDS];
} tt_position_room;

/* The legal moves of `mask` (TT_ACTIONS entries, non-zero for legal) into `pos`, their arrays
   in `room`: the draws, the discards allowed and the go-outs. With `offer_go_out` a go-out is
   offered with every allowed discard, for a caller whose mask leaves the go-outs to the
   solver (the search's rollouts): a decision goes out only where the solver certifies that
   the discard leaves no points, which is where the engine's mask offers it. */
static inline void tt_position_moves(const int8_t *mask, bool offer_go_out, tt_position_room *room,
                                     tt_position *pos) {
    for (int k = 0; k < TT_KINDS; k++) {
        room->allowed[k] = mask[TT_ACT_DISCARD + k] != 0;
        room->go_ok[k] = offer_go_out ? room->allowed[k] : mask[TT_ACT_GO_OUT + k] != 0;
    }
    pos->can_stock = mask[TT_ACT_DRAW_STOCK] != 0;
    pos->can_take = mask[TT_ACT_TAKE_DISCARD] != 0;
    pos->allowed = room->allowed;
    pos->go_ok = room->go_ok;
}

/* The position of the seat whose decoded observation (tt_see(): what it knows) and action mask
   these are, its arrays in `room`. */
static inline tt_position tt_seen_position(const tt_seen *seen, const int8_t *mask,
                                           tt_position_room *room) {
    tt_position pos = {
        .hand = seen->hand,
        .unseen = seen->unseen,
        .next_known = seen->known[1],
        .top_discard = seen->top_discard,
        .draw_phase = seen->draw_phase,
        .final_turn = seen->final_turn,
    };
    tt_position_moves(mask, false, room, &pos);
    return pos;
}

/* What a decision weighed, for the search agent (it searches among these). */
typedef struct {
    int64_t take;           /* draw phase: the penalty after taking (-1: not valued) */
    int64_t now;            /* draw phase: the penalty now (when take was valued) */
    int64_t shortlist;      /* discard phase: the candidates weighed (0: no look-ahead) */
    int64_t short_kind[53]; /* ... best first */
    double short_value[53];
} tt_decision;

/* The feed cost of discarding kind k (heuristics.feed_cost): a wild card, or a card of a rank
   the next seat is known to collect, or of its suit within two ranks of one. */
static double tt_feed(const tt_rule *rule, int64_t k, int64_t w, const int64_t *next_known) {
    if (k == 52 || k % 13 == w) return rule->wild_feed_cost;
    int64_t suit = k / 13, r = k % 13;
    for (int s = 0; s < 4; s++)
        if (next_known[s * 13 + r]) return rule->feed_cost;
    static const int near[4] = {-2, -1, 1, 2};
    for (int i = 0; i < 4; i++) {
        int64_t q = r + near[i];
        if (q >= 0 && q < 13 && next_known[suit * 13 + q]) return rule->feed_cost;
    }
    return 0.0;
}

/* Whether a comes before b in the order (key, penalty, -card points, -kind). */
static bool tt_before(double a_key, int64_t a_pen, int64_t a_par, int64_t a_k, double b_key,
                      int64_t b_pen, int64_t b_par, int64_t b_k) {
    if (a_key != b_key) return a_key < b_key;
    if (a_pen != b_pen) return a_pen < b_pen;
    if (a_par != b_par) return a_par > b_par;
    return a_k > b_k;
}

/* The draw: TT_ACT_DRAW_STOCK or TT_ACT_TAKE_DISCARD, or -1. */
static int64_t tt_decide_draw(const tt_solver *S, const tt_rule *rule, const tt_position *pos,
                              tt_decision *out) {
    if (!pos->can_stock) return TT_ACT_TAKE_DISCARD;
    if (!pos->can_take || pos->top_discard < 0) return TT_ACT_DRAW_STOCK;
    const uint8_t *hand = pos->hand;
    int64_t now = tt_evaluate(S, hand, TT_POINTS);
    tt_penalty taken = tt_take_penalty(S, hand, pos->top_discard, rule->discard_drawn_upcard);
    if (now < 0 || !taken.certified) return -1;
    int64_t take = taken.penalty;
    out->take = take;
    out->now = now;
    if (take >= now) return TT_ACT_DRAW_STOCK; /* the discard does not help at all */
    tt_expectation stock = tt_expected_after_draw(S, hand, pos->unseen);
    if (!stock.certified) return -1;
    return (double)take < stock.penalty ? TT_ACT_TAKE_DISCARD : TT_ACT_DRAW_STOCK;
}

/* The discard or the go-out: TT_ACT_DISCARD + k or TT_ACT_GO_OUT + k, or -1. */
static int64_t tt_decide_discard(const tt_solver *S, const tt_rule *rule, const tt_position *pos,
                                 tt_decision *out) {
    const int64_t *par = S->par;
    int64_t w = S->w;
    int64_t dv[53];
    if (tt_discard_values(S, pos->hand, dv) < 0) return -1;
    for (int k = 0; k < 53; k++)
        if (dv[k] == -1) return -1;
    /* go out whenever possible: with the card worth most, then the highest kind */
    int64_t out_k = -1;
    for (int64_t k = 0; k < 53; k++) {
        if (pos->go_ok[k] && dv[k] == 0 && (out_k < 0 || tt_discard_before(dv, par, k, out_k)))
            out_k = k;
    }
    if (out_k >= 0) return TT_ACT_GO_OUT + out_k;
    /* the legal discards ranked by (penalty + feed cost, -points, -kind); insertion sort:
       a dozen cards at most */
    int64_t kinds[53];
    double keys[53], feed[53]; /* feed by kind: the look-ahead adds it itself, as Python does */
    int m = 0;
    for (int64_t k = 0; k < 53; k++) {
        if (pos->allowed[k]) {
            kinds[m] = k;
            feed[k] = tt_feed(rule, k, w, pos->next_known);
            keys[m] = (double)dv[k] + feed[k];
            m++;
        }
    }
    if (m == 0) return -1; /* no legal discard: not a position of the game */
    for (int i = 1; i < m; i++) {
        for (int j = i; j > 0 && tt_before(keys[j], 0, par[kinds[j]], kinds[j], keys[j - 1], 0,
                                           par[kinds[j - 1]], kinds[j - 1]);
             j--) {
            double key = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = key;
            int64_t kind = kinds[j];
            kinds[j] = kinds[j - 1];
            kinds[j - 1] = kind;
        }
    }
    if (pos->final_turn || rule->lookahead == 0) return TT_ACT_DISCARD + kinds[0];
    /* the shortlist: the look-ahead of each candidate within the margin of the best */
    double floor = keys[0];
    int64_t n = 0;
    uint8_t less[53];
    memcpy(less, pos->hand, sizeof less);
    int64_t count = rule->candidates < m ? rule->candidates : m;
    for (int64_t i = 0; i < count; i++) {
        int64_t k = kinds[i];
        if (keys[i] > floor + rule->margin) continue;
        less[k] -= 1;
        tt_expectation e = tt_expected_after_draw(S, less, pos->unseen);
        less[k] += 1;
        if (!e.certified) return -1;
        out->short_kind[n] = k;
        out->short_value[n] = (double)dv[k] - rule->lookahead * ((double)dv[k] - e.penalty) +
                              feed[k];
        n++;
    }
    if (n == 0) return -1; /* no candidate (candidates < 1 or a negative margin) */
    /* best first: (value, penalty, -points, -kind) */
    int64_t *sk = out->short_kind;
    double *sv = out->short_value;
    for (int64_t i = 1; i < n; i++) {
        for (int64_t j = i; j > 0 && tt_before(sv[j], dv[sk[j]], par[sk[j]], sk[j], sv[j - 1],
                                               dv[sk[j - 1]], par[sk[j - 1]], sk[j - 1]);
             j--) {
            double v = sv[j];
            sv[j] = sv[j - 1];
            sv[j - 1] = v;
            int64_t kind = sk[j];
            sk[j] = sk[j - 1];
            sk[j - 1] = kind;
        }
    }
    out->shortlist = n;
    return TT_ACT_DISCARD + sk[0];
}

/* The expected-penalty rule's action for the seat at `pos`: a draw (TT_ACT_DRAW_STOCK or
   TT_ACT_TAKE_DISCARD) in the draw phase, else a discard or a go-out (TT_ACT_DISCARD + k / TT_ACT_GO_OUT + k); -1 when
   the solver cannot certify a value it needs (the caller then asks the Python rule). `out`
   gets what it weighed: the draw phase's values, the discard phase's shortlist. */
static int64_t tt_decide(const tt_solver *S, const tt_rule *rule, const tt_position *pos,
                         tt_decision *out) {
    out->take = -1;
    out->now = -1;
    out->shortlist = 0;
    if (pos->draw_phase) return tt_decide_draw(S, rule, pos, out);
    return tt_decide_discard(S, rule, pos, out);
}

/* tt_decide() for the seat whose decoded observation (tt_see()) and action mask (TT_ACTIONS
   entries, non-zero for legal) these are. `S` must be the solver of the observation's wild rank
   (seen->wild). */
static inline int64_t tt_decide_seen(const tt_solver *S, const tt_rule *rule, const tt_seen *seen,
                                     const int8_t *mask, tt_decision *out) {
    tt_position_room room;
    const tt_position pos = tt_seen_position(seen, mask, &room);
    return tt_decide(S, rule, &pos, out);
}

#endif /* TT_RULE_H */
