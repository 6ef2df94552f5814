/* The search agent's compiled core: sampled deals and fast rollouts of a round.

   Plain C, header only (every function static): the search agent's extension module
   (_csearch.c) includes it. It knows nothing of Python: the binding checks every input before
   it reaches this code. Everything here works on plain arrays (53 counts per hand, the stock
   and the discard pile as card lists, top last) and on the solver (game/melds/solver.h) and
   the expected-penalty rule (valuation/rule.h); nothing reads the engine.

   A determinisation (tt_deal) deals the cards the searcher has not seen (the `unseen` counts
   of the valuation layer) to the other seats, on top of the cards each is known to hold, and
   to the stock, at random. A rollout (tt_play_round) plays the round from there to its end
   with a fast policy for every seat, greedy (take the top discard when it lowers the penalty;
   discard the card that leaves the fewest points; go out when that leaves none) or the
   expected-penalty rule, and scores every hand with the solver. The rules of RULES.md are
   followed (the drawn upcard that may not go straight back, the stock rebuilt from the discard
   pile, one final turn each after someone goes out, the cards laid down by a go-out in sight
   of every seat, the turn cap, no cards to draw, the joker lay-off), with one simplification,
   only in the rollouts: no redemption lay-downs and lay-offs on the final turns. A test plays
   rounds both here and in the engine (tt_env.game.Game) and checks they end alike.

   The searcher is seat 0 (the observation's seats are in play order from the observer).

   The deals and the stock rebuilds are shuffles of one random stream, numpy's generator
   (util/rng.h): the stream of np.random.default_rng(seed) for the searcher's seed, each
   shuffle drawn as Generator.shuffle draws. */

#ifndef TT_SEARCH_H
#define TT_SEARCH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/rng.h"
#include "valuation/rule.h"

#define TT_CARDS_IN_PLAY 1024 /* every card in play fits (12 decks of 56 at most) */

/* ------------------------------------------------------------------ the round */

#define TT_GREEDY 0   /* rollout policies: greedy, */
#define TT_COUNTING 1 /* or the expected-penalty rule */

/* The rollouts' fixed settings. */
typedef struct {
    int64_t num_players;
    int64_t deck[53]; /* the copies of each card kind in play */
    int64_t turn_cap; /* turns (all seats together) before the round ends (RULES.md) */
    int64_t horizon;  /* stop after this many more discards of seat 0 (0: the round's end) */
    int policy[TT_MAX_SEATS];
    bool joker_layoff; /* a leftover joker costs nothing once another seat has melds down */
    tt_rule rule;      /* the expected-penalty rule's parameters, and discard_drawn_upcard */
} tt_rollouts;

/* A round in play as the rollouts see it: every hand, the stock, the discard pile. */
typedef struct {
    uint8_t hands[TT_MAX_SEATS][53];
    int64_t known[TT_MAX_SEATS][53]; /* what each seat is known to hold (public: taken from the
                                        discard pile, less what it discarded since) */
    uint8_t stock[TT_CARDS_IN_PLAY]; /* the next card drawn last */
    uint8_t pile[TT_CARDS_IN_PLAY];  /* the discard pile, its top last */
    int64_t table[53];               /* the cards laid down (in sight of every seat) */
    int64_t nstock, npile;
    int64_t current; /* the seat to move */
    bool draw_phase;
    int64_t drawn;    /* the card the seat to move just took from the discard pile, -1 none */
    int64_t went_out; /* the seat that went out, -1 none */
    int64_t turns;    /* discards played this round (the turn cap counts them) */
    int64_t mine;     /* seat 0's discards so far (the horizon counts them) */
} tt_round;

/* What the searcher does not see, for the deals. */
typedef struct {
    int64_t sizes[TT_MAX_SEATS]; /* the cards each seat holds */
    int64_t unseen[53];          /* the copies the searcher has not seen */
    int64_t stock_size;
} tt_hidden;

/* ------------------------------------------------------------------ greedy */

/* The greedy discard of `hand`: the fewest points left, ties to the card worth more, then the
   higher kind; *after gets the points left. When the solver cannot value the hand the
   costliest card goes (*after = TT_BIG). -1 when the hand holds no card but `banned`. */
static int64_t tt_greedy_discard(const tt_solver *S, const uint8_t *hand, int64_t banned,
                                 int64_t *after) {
    const int64_t *par = S->par;
    int64_t dv[53];
    int64_t value = tt_discard_values(S, hand, dv);
    int64_t best_k = -1, best_v = TT_BIG;
    for (int64_t k = 0; k < 53; k++) {
        if (dv[k] < -1 || k == banned) continue;
        int64_t v = dv[k];
        if (v < 0) {
            best_k = -1;
            break;
        }
        if (v < best_v ||
            (v == best_v && (par[k] > par[best_k] || (par[k] == par[best_k] && k > best_k)))) {
            best_v = v;
            best_k = k;
        }
    }
    if (best_k >= 0 && value >= 0) {
        *after = best_v;
        return best_k;
    }
    /* not certified: throw the costliest allowed card */
    for (int64_t k = 0; k < 53; k++)
        if (hand[k] && k != banned && (best_k < 0 || par[k] >= par[best_k])) best_k = k;
    *after = TT_BIG;
    return best_k;
}

/* Whether greedy takes `top`: when the hand with it, less its best natural card to drop, has
   fewer points than the hand now. */
static bool tt_greedy_takes(const tt_solver *S, uint8_t *hand, int64_t top) {
    int64_t now = tt_evaluate(S, hand, TT_POINTS);
    hand[top] += 1;
    int64_t after = tt_evaluate(S, hand, TT_LESS_BEST_DROP);
    hand[top] -= 1;
    return now >= 0 && 0 <= after && after < now;
}

/* ------------------------------------------------------------------ a rollout */

/* What seat p has not seen: every copy in play less its hand, the discard pile (as counts),
   the table and what the others are known to hold. */
static void tt_unseen_for(const tt_rollouts *set, const tt_round *r, int64_t p,
                          const int64_t *pile_counts, int64_t *out) {
    for (int k = 0; k < 53; k++) {
        int64_t u = set->deck[k] - r->hands[p][k] - pile_counts[k] - r->table[k];
        for (int64_t o = 0; o < set->num_players; o++)
            if (o != p) u -= r->known[o][k];
        out[k] = u > 0 ? u : 0;
    }
}

/* The discard pile but its top card, shuffled, is the new stock (RULES.md). */
static void tt_rebuild_stock(tt_rng *R, tt_round *r) {
    uint8_t top = r->pile[r->npile - 1];
    int64_t m = r->npile - 1;
    memcpy(r->stock, r->pile, (size_t)m);
    tt_rng_shuffle(R, r->stock, m, 1);
    r->nstock = m;
    r->pile[0] = top;
    r->npile = 1;
}

/* Seat s's penalty at the round's end (not doubled): 0 for the seat that went out; with the
   joker lay-off, once a seat went out (its melds are down), a leftover joker costs nothing:
   the fewest penalty of the hand less any number of its jokers. A hand the solver cannot
   certify counts every card (a rollout only). */
static int64_t tt_final_penalty(const tt_solver *S, const tt_rollouts *set, tt_round *r,
                                int64_t s) {
    if (s == r->went_out) return 0;
    uint8_t *hand = r->hands[s];
    int64_t v = tt_evaluate(S, hand, TT_POINTS);
    if (v < 0) {
        v = 0;
        for (int k = 0; k < 53; k++) v += hand[k] * S->par[k];
        return v;
    }
    if (set->joker_layoff && r->went_out >= 0) {
        uint8_t jokers = hand[52];
        while (hand[52] > 0 && v > 0) {
            hand[52] -= 1;
            int64_t u = tt_evaluate(S, hand, TT_POINTS);
            if (u >= 0 && u < v) v = u;
        }
        hand[52] = jokers;
    }
    return v;
}

/* Play the round from `r` to its end, each seat s with set->policy[s], or until seat 0 (the
   searcher) has discarded set->horizon more times (0: no horizon); out[s]: each seat's penalty
   then (not doubled). Changes r. */
static void tt_play_round(tt_rng *R, const tt_solver *S, const tt_rollouts *set, tt_round *r,
                          int64_t *out) {
    const int64_t n = set->num_players;
    int64_t pile_counts[53] = {0};
    for (int64_t i = 0; i < r->npile; i++) pile_counts[r->pile[i]] += 1;
    int64_t unseen[53];
    uint8_t allowed[53] = {0};
    tt_decision weighed;
    for (;;) {
        int64_t cur = r->current;
        uint8_t *hand = r->hands[cur];
        const int64_t *next_known = r->known[(cur + 1) % n];
        bool final_turn = r->went_out >= 0;
        if (r->draw_phase) {
            bool can_stock = r->nstock > 0 || r->npile > 1;
            bool can_take = r->npile > 0;
            if (!can_stock && !can_take) break; /* nothing to draw: the round ends (RULES.md) */
            bool take;
            if (!can_take) {
                take = false;
            } else if (!can_stock) {
                take = true;
            } else {
                int64_t top = r->pile[r->npile - 1];
                int64_t act = -1;
                if (set->policy[cur] == TT_COUNTING) {
                    tt_unseen_for(set, r, cur, pile_counts, unseen);
                    tt_position pos = {
                        .hand = hand,
                        .unseen = unseen,
                        .next_known = next_known,
                        .top_discard = top,
                        .draw_phase = true,
                        .final_turn = final_turn,
                        .can_stock = true,
                        .can_take = true,
                        .allowed = allowed,
                        .go_ok = allowed,
                    };
                    act = tt_decide(S, &set->rule, &pos, &weighed);
                }
                take = act >= 0 ? act == TT_TAKE : tt_greedy_takes(S, hand, top);
            }
            uint8_t card;
            if (take) {
                card = r->pile[--r->npile];
                pile_counts[card] -= 1;
                r->known[cur][card] += 1;
                r->drawn = card;
            } else {
                if (r->nstock == 0) {
                    tt_rebuild_stock(R, r);
                    memset(pile_counts, 0, sizeof pile_counts);
                    pile_counts[r->pile[0]] = 1;
                }
                card = r->stock[--r->nstock];
                r->drawn = -1;
            }
            hand[card] += 1;
            r->draw_phase = false;
            continue;
        }
        /* the card just taken may not go straight back, unless the rules allow it or another
           copy is held (RULES.md) */
        int64_t banned = -1;
        if (r->drawn >= 0 && !set->rule.discard_drawn_upcard && hand[r->drawn] < 2)
            banned = r->drawn;
        int64_t act = -1;
        if (set->policy[cur] == TT_COUNTING) {
            tt_unseen_for(set, r, cur, pile_counts, unseen);
            for (int k = 0; k < 53; k++) allowed[k] = hand[k] > 0 && k != banned;
            tt_position pos = {
                .hand = hand,
                .unseen = unseen,
                .next_known = next_known,
                .top_discard = -1,
                .draw_phase = false,
                .final_turn = final_turn,
                .can_stock = false,
                .can_take = false,
                .allowed = allowed,
                .go_ok = allowed,
            };
            act = tt_decide(S, &set->rule, &pos, &weighed);
        }
        int64_t k, after;
        if (act >= TT_GO_OUT_BASE) {
            k = act - TT_GO_OUT_BASE;
            after = 0;
        } else if (act >= TT_DISCARD_BASE) {
            k = act - TT_DISCARD_BASE;
            after = 1; /* not a go-out */
        } else {
            k = tt_greedy_discard(S, hand, banned, &after);
            /* a seat holding nothing it may discard: only a start no game reaches (a seat with
               no cards); the round ends there */
            if (k < 0) break;
        }
        hand[k] -= 1;
        if (r->known[cur][k]) r->known[cur][k] -= 1;
        r->pile[r->npile++] = (uint8_t)k;
        pile_counts[k] += 1;
        r->turns += 1;
        if (after == 0 && r->went_out < 0) { /* out: the hand goes down, in sight of all */
            r->went_out = cur;
            for (int c = 0; c < 53; c++) {
                r->table[c] += hand[c];
                hand[c] = 0;
                r->known[cur][c] = 0;
            }
        }
        if (cur == 0) {
            r->mine += 1;
            if (set->horizon && r->mine >= set->horizon) break;
        }
        int64_t next = (cur + 1) % n;
        if (r->went_out >= 0) {
            if (next == r->went_out) break; /* every other seat had its final turn */
        } else if (r->turns >= set->turn_cap) {
            break;
        }
        r->current = next;
        r->draw_phase = true;
        r->drawn = -1;
    }
    for (int64_t s = 0; s < n; s++) out[s] = tt_final_penalty(S, set, r, s);
}

/* ------------------------------------------------------------------ the search */

/* A determinisation of `start` into `r`: seat 0 keeps its hand; every other seat s holds its
   known cards and hidden->sizes[s] cards in all, the rest drawn at random from the unseen
   cards; the stock gets hidden->stock_size more (or what is left). The binding checked that
   the unseen cards fit in TT_CARDS_IN_PLAY. */
static void tt_deal(tt_rng *R, const tt_rollouts *set, const tt_round *start,
                    const tt_hidden *hidden, tt_round *r) {
    uint8_t cards[TT_CARDS_IN_PLAY];
    int64_t total = 0;
    for (int k = 0; k < 53; k++)
        for (int64_t c = 0; c < hidden->unseen[k]; c++) cards[total++] = (uint8_t)k;
    tt_rng_shuffle(R, cards, total, 1);
    *r = *start;
    int64_t used = 0;
    for (int64_t s = 1; s < set->num_players; s++) {
        int64_t held = 0;
        for (int k = 0; k < 53; k++) {
            r->hands[s][k] = (uint8_t)start->known[s][k];
            held += start->known[s][k];
        }
        for (int64_t c = held; c < hidden->sizes[s] && used < total; c++)
            r->hands[s][cards[used++]] += 1;
    }
    int64_t m = 0;
    while (m < hidden->stock_size && used < total) r->stock[m++] = cards[used++];
    r->nstock = m;
}

/* Seat 0's penalty less the mean of the others' (lower is better). */
static double tt_relative(const int64_t *out, int64_t n) {
    int64_t rel = out[0] * (n - 1);
    for (int64_t s = 1; s < n; s++) rel -= out[s];
    return (double)rel / (double)(n - 1);
}

/* A searcher: its settings, its random generator, the position it searches from, and room
   for a deal and a rollout. */
typedef struct {
    tt_rollouts set;
    tt_rng random;    /* seeded once per search; every call after that draws on */
    tt_round start;   /* the position: seat 0's hand, the known cards, the pile, the turn */
    tt_hidden hidden; /* what the deals fill in */
    tt_round dealt, play;
} tt_searcher;

/* Play `samples` determinisations of T->start: on each, every candidate action (actions[a]:
   TT_STOCK, TT_TAKE, or TT_DISCARD_BASE + k; going out is decided before the search) is played
   and the round rolled out on that same deal (common random numbers). results[i * nact + a]:
   the searcher's penalty less the mean of the others' on deal i after action a. The binding
   checked that every action can be played from the start. */
static void tt_search(tt_searcher *T, const tt_solver *S, const int64_t *actions, int64_t nact,
                      int64_t samples, double *results) {
    const tt_rollouts *set = &T->set;
    tt_rng *R = &T->random;
    tt_round *r = &T->play;
    const int64_t n = set->num_players;
    int64_t out[TT_MAX_SEATS];
    for (int64_t sample = 0; sample < samples; sample++) {
        tt_deal(R, set, &T->start, &T->hidden, &T->dealt);
        for (int64_t a = 0; a < nact; a++) {
            *r = T->dealt;
            int64_t act = actions[a];
            uint8_t *hand = r->hands[0];
            if (act == TT_STOCK || act == TT_TAKE) { /* a draw: the rollout makes its discard */
                uint8_t card;
                if (act == TT_TAKE) {
                    card = r->pile[--r->npile];
                    r->drawn = card;
                    r->known[0][card] += 1;
                } else {
                    if (r->nstock == 0) tt_rebuild_stock(R, r);
                    card = r->stock[--r->nstock];
                    r->drawn = -1;
                }
                hand[card] += 1;
                r->draw_phase = false;
            } else { /* a discard (a go-out's id plays as its discard) */
                int64_t k = (act - TT_DISCARD_BASE) % 53;
                hand[k] -= 1;
                if (r->known[0][k]) r->known[0][k] -= 1;
                r->pile[r->npile++] = (uint8_t)k;
                r->turns += 1;
                int64_t next = 1; /* the seat after the searcher */
                bool done = r->went_out >= 0 ? next == r->went_out : r->turns >= set->turn_cap;
                r->current = next;
                r->draw_phase = true;
                r->drawn = -1;
                if (done) { /* that was the round's last turn: score the hands as they are */
                    for (int64_t s = 0; s < n; s++) out[s] = tt_final_penalty(S, set, r, s);
                    results[sample * nact + a] = tt_relative(out, n);
                    continue;
                }
            }
            tt_play_round(R, S, set, r, out);
            results[sample * nact + a] = tt_relative(out, n);
        }
    }
}

#endif /* TT_SEARCH_H */
