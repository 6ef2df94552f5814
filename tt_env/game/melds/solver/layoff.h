/* Redemption: tt_lay_off(), the hand's own melds laid down and its loose cards laid off onto
   the melds on the table, leaving the fewest penalty points (a part of solver.h: see there).

   The search is layoff_search.h's; this part reads the hand and the table into its context,
   walks back along the memo (the first option of each state that reaches its value) and
   spells the plan out as _LayOffSearch.build does, card for card: the pool's wilds go first to
   the gaps of the grown table runs, then to what each own meld needs, then to the own melds'
   room, then to the table melds' room; the pool forms its own melds; wild-rank cards left over
   go onto a table set of the wild rank (or a wild-only meld) when there is one. Every meld's
   shape is read as tt_env.game.melds does (is_meld for a wild-only table meld grown, the run
   laid out by _lay_run). */

#ifndef TT_SOLVER_LAYOFF_H
#define TT_SOLVER_LAYOFF_H

#include "layoff_search.h"
#include "workspace.h"

/* ------------------------------------------------------------------------- the context */
/* Whether a table meld's shape is one the kernel takes (a real table's always is). */
static inline int tt_lo_shape_ok(const tt_meld_shape *m) {
    if (m->wilds < 0 || m->wilds > 1000 || m->size < 0 || m->size > 1000) return 0;
    switch (m->kind) {
    case TT_MELD_SET: return m->rank >= 1 && m->rank <= 13;
    case TT_MELD_RUN:
        return m->suit >= 0 && m->suit <= 3 && 1 <= m->low && m->low <= m->high && m->high <= 14;
    case TT_MELD_WILD: return 1;
    default: return 0;
    }
}

/* The search's context for the hand (at most `limit` cards) and table of `in`, or NULL:
   *status says why. */
static inline tt_lo_ctx *tt_lo_new(const tt_solver *S, const tt_layoff_input *in, int64_t limit,
                                   tt_layoff_status *status) {
    const int64_t *par = S->par;
    const uint8_t *counts = in->counts;
    *status = TT_LAYOFF_OUT_OF_RANGE;
    if (in->ntable < 0 || in->ntable > TT_LAYOFF_TABLE) return NULL;
    for (int64_t i = 0; i < in->ntable; i++)
        if (!tt_lo_shape_ok(&in->table[i])) return NULL;
    int64_t cards = 0, points = 0;
    for (int k = 0; k < 53; k++) {
        cards += counts[k];
        points += counts[k] * par[k];
    }
    if (cards > limit || points >= TT_LAYOFF_PENALTY_MAX) return NULL;
    *status = TT_LAYOFF_NO_MEMORY;
    tt_lo_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->slots = 256;
    c->memo = calloc((size_t)c->slots, sizeof *c->memo);
    if (c->memo == NULL) {
        tt_lo_free(c);
        return NULL;
    }
    c->pen = par;
    c->w = S->w;
    c->top = par[TT_P_TOP];
    c->cap = par[TT_P_CAP];
    c->all_wild = par[TT_P_ALL_WILD];
    c->J = counts[52];
    c->M = counts[c->w] + counts[13 + c->w] + counts[26 + c->w] + counts[39 + c->w];
    c->W = c->J + c->M;
    uint32_t stride = 1;
    for (int k = 0; k < 52; k++) {
        c->stride[k] = stride;
        stride *= (uint32_t)counts[k] + 1; /* at most 2 ** TT_MAX_CARDS in all */
    }
    tt_pool_init(&c->pool, c->J, c->M, c->cap, c->all_wild, par[52], par[c->w]);
    c->ntable = in->ntable;
    c->table = in->table;
    for (int r = 0; r < 14; r++) c->set_of_rank[r] = -1;
    for (int64_t i = 0; i < in->ntable; i++) {
        const tt_meld_shape *m = &in->table[i];
        int64_t room = tt_max(0, c->cap - m->wilds);
        if (m->kind == TT_MELD_SET) {
            if (c->set_of_rank[m->rank] < 0) c->set_of_rank[m->rank] = (int16_t)i;
            c->set_room += room;
            if (m->rank == c->w + 1) c->w_sink = 1;
        } else if (m->kind == TT_MELD_RUN) {
            c->run_table[c->nruns] = (int16_t)i;
            c->run_suit[c->nruns] = m->suit;
            c->run0[c->nruns++] = (tt_lo_run){m->low, m->high, m->wilds};
        } else {
            c->wild_table[c->nwild] = (int16_t)i;
            c->wild_size[c->nwild++] = m->size;
        }
    }
    return c;
}

/* ------------------------------------------------------------------------ meld shapes */
static inline tt_meld_shape tt_lo_shape(int64_t kind, int64_t rank, int64_t suit, int64_t low,
                                        int64_t high, int64_t wilds, int64_t size) {
    return (tt_meld_shape){(int16_t)kind, (int16_t)rank,  (int16_t)suit, (int16_t)low,
                           (int16_t)high, (int16_t)wilds, (int16_t)size};
}

/* _run_naturals: the most natural cards when `others` (n of them, no wild-rank card; all must
   be natural) and the wild-rank cards (mine of them of this suit) stand in the run of suit over
   low..high; -1 when they cannot. */
static inline int64_t tt_lo_run_naturals(const tt_lo_ctx *c, const uint8_t *others, int64_t n,
                                         int64_t mine, int64_t low, int64_t high) {
    uint32_t taken = 0;
    int64_t aces = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t pos = others[i] % 13 + 1;
        if (pos == 1 && c->top == 14) {
            aces++;
            continue;
        }
        if (pos < low || pos > high || (taken >> pos) & 1) return -1;
        taken |= (uint32_t)1 << pos;
    }
    if (aces) {
        int64_t ends[2] = {1, 14}, free = 0;
        for (int e = 0; e < 2; e++)
            if (low <= ends[e] && ends[e] <= high && !((taken >> ends[e]) & 1)) free++;
        if (aces > free) return -1;
        for (int e = 0; e < 2 && aces; e++) {
            if (low <= ends[e] && ends[e] <= high && !((taken >> ends[e]) & 1)) {
                taken |= (uint32_t)1 << ends[e];
                aces--;
            }
        }
    }
    /* the wild-rank cards of the suit stand in their own place when it is free */
    int64_t places[2] = {c->w + 1, 14}, room = 0;
    for (int e = 0; e < (c->w == 0 && c->top == 14 ? 2 : 1); e++)
        if (low <= places[e] && places[e] <= high && !((taken >> places[e]) & 1)) room++;
    return tt_popcount(taken) + tt_min(mine, room);
}

/* is_meld of `jokers` jokers and the cards `more`: the reading with the fewest wilds (a set
   wins a tie with a run, a run with wild cards only); 0 when they are no meld. */
static inline int tt_lo_is_meld(const tt_lo_ctx *c, int64_t jokers, const uint8_t *more,
                                int64_t nmore, tt_meld_shape *out) {
    uint8_t others[TT_MAX_CARDS];
    int64_t no = 0, nw = 0, mine[4] = {0, 0, 0, 0};
    for (int64_t i = 0; i < nmore; i++) {
        if (more[i] == 52)
            jokers++;
        else if (more[i] % 13 == c->w)
            nw++, mine[more[i] / 13]++;
        else
            others[no++] = more[i];
    }
    int64_t n = jokers + nw + no;
    if (n < 3) return 0;
    int found = 0;
    if (no) {
        int same = 1;
        for (int64_t i = 1; i < no; i++) same &= others[i] % 13 == others[0] % 13;
        if (same && n - no <= c->cap) {
            *out = tt_lo_shape(TT_MELD_SET, others[0] % 13 + 1, -1, 0, 0, n - no, n);
            found = 1;
        }
    } else if (nw && jokers <= c->cap) {
        *out = tt_lo_shape(TT_MELD_SET, c->w + 1, -1, 0, 0, jokers, n);
        found = 1;
    }
    int one_suit = 1;
    for (int64_t i = 1; i < no; i++) one_suit &= others[i] / 13 == others[0] / 13;
    for (int64_t suit = no ? others[0] / 13 : 0; one_suit && suit < (no ? others[0] / 13 + 1 : 4);
         suit++) {
        for (int64_t low = 1; low <= c->top - n + 1; low++) {
            int64_t nat = tt_lo_run_naturals(c, others, no, mine[suit], low, low + n - 1);
            if (nat < 0 || (nat == 0 && !no)) continue;
            if (n - nat <= c->cap && (!found || n - nat < out->wilds)) {
                *out = tt_lo_shape(TT_MELD_RUN, 0, suit, low, low + n - 1, n - nat, n);
                found = 1;
            }
        }
    }
    if (!found && !no && !nw && c->all_wild && n <= c->cap) {
        *out = tt_lo_shape(TT_MELD_WILD, 0, -1, 0, 0, n, n);
        found = 1;
    }
    return found;
}

/* _lay_run: a run of suit with naturals at `places` (bits 1..14) and nw wilds filling the gaps,
   then extending it upwards and then downwards; its cards in position order into out. */
static inline tt_meld_shape tt_lo_lay_run(const tt_lo_ctx *c, uint32_t places, int64_t suit,
                                          const uint8_t *wilds, int64_t nw, uint8_t *out) {
    int64_t pl[15], n = 0;
    for (int64_t q = 1; q <= 14; q++)
        if ((places >> q) & 1) pl[n++] = q;
    if (!nw) {
        for (int64_t i = 0; i < n; i++) out[i] = (uint8_t)(suit * 13 + tt_lo_index(pl[i]));
        return tt_lo_shape(TT_MELD_RUN, 0, suit, pl[0], pl[n - 1], 0, n);
    }
    int64_t length = n + nw, high = pl[n - 1];
    if (high - pl[0] + 1 < length) high = tt_min(c->top, pl[0] + length - 1);
    int64_t low = high - length + 1;
    int64_t i = 0, j = 0;
    for (int64_t pos = low; pos <= high; pos++) {
        if (i < n && pl[i] == pos)
            out[pos - low] = (uint8_t)(suit * 13 + tt_lo_index(pl[i++]));
        else
            out[pos - low] = wilds[j++];
    }
    int64_t used = nw;
    for (int64_t k = 0; k < nw; k++) {
        if (wilds[k] == 52 || wilds[k] / 13 != suit) continue;
        used = 0; /* a wild-rank card of the suit may stand in its own place */
        for (int64_t pos = low; pos <= high; pos++) {
            int64_t card = out[pos - low];
            int64_t rank = card % 13 + 1;
            int natural = card != 52 && card / 13 == suit &&
                          (rank == pos || (rank == 1 && pos == 14));
            if (!natural) used++;
        }
        break;
    }
    return tt_lo_shape(TT_MELD_RUN, 0, suit, low, high, used, length);
}

/* ---------------------------------------------------------------------------- the plan */
/* An own meld of the plan. */
typedef struct {
    int kind;              /* TT_MELD_SET or TT_MELD_RUN */
    int64_t lo, hi, which; /* wilds needed and taken at most; the set's rank, the run's suit */
    int64_t into;          /* the wild-only table meld that absorbs it (its index among them), -1 */
    uint32_t places;       /* a run's positions */
    int64_t nnat, nw;
    uint8_t nat[TT_MAX_CARDS], wilds[TT_MAX_CARDS];
} tt_lo_own_meld;

/* The scratch of tt_lo_build (a few kB: on the heap, with the context). */
typedef struct {
    uint8_t added[TT_LAYOFF_TABLE][TT_MAX_CARDS];
    int64_t nadded[TT_LAYOFF_TABLE], added_wilds[TT_LAYOFF_TABLE];
    tt_lo_own_meld own[TT_MAX_CARDS];
    int64_t groups[TT_POOL_MAX][2];
} tt_lo_plan;

/* Hand out up to n of the wild cards wc[*rd .. total) into dst (appended at *len); how many. */
static inline int64_t tt_lo_hand_out(const uint8_t *wc, int64_t *rd, int64_t total, int64_t n,
                                     uint8_t *dst, int64_t *len) {
    int64_t k = tt_max(0, tt_min(n, total - *rd));
    for (int64_t i = 0; i < k; i++) dst[(*len)++] = wc[(*rd)++];
    return k;
}

/* The shape of table meld i after the cards laid off onto it (_LayOffSearch.grown_shape). */
static inline int tt_lo_grown(const tt_lo_ctx *c, const tt_lo_plan *b, const tt_lo_state *st,
                              int64_t i, tt_meld_shape *out) {
    const tt_meld_shape *m = &c->table[i];
    int64_t n = b->nadded[i];
    *out = *m;
    if (!n) return 1;
    if (m->kind == TT_MELD_SET) {
        int64_t w = 0;
        for (int64_t j = 0; j < n; j++)
            w += b->added[i][j] == 52 || b->added[i][j] % 13 + 1 != m->rank;
        *out = tt_lo_shape(TT_MELD_SET, m->rank, -1, 0, 0, m->wilds + w, m->size + n);
        return 1;
    }
    if (m->kind == TT_MELD_RUN) {
        int64_t r = 0;
        while (c->run_table[r] != i) r++;
        int64_t low = st->runs[r].low, high = st->runs[r].high, size = m->size + n;
        int64_t extra = size - (high - low + 1);
        int64_t high2 = tt_min(c->top, high + extra);
        int64_t low2 = low - (extra - (high2 - high));
        *out = tt_lo_shape(TT_MELD_RUN, 0, m->suit, low2, high2, m->wilds + b->added_wilds[i],
                           size);
        return 1;
    }
    return tt_lo_is_meld(c, m->size, b->added[i], n, out); /* read afresh */
}

/* Spell the plan out (_LayOffSearch.build): steps walked from the root to st, worth target. */
static inline tt_layoff_status tt_lo_build(const tt_lo_ctx *c, tt_lo_plan *b, int64_t target,
                                           const tt_lo_step *steps, int64_t nsteps,
                                           const tt_lo_state *st, tt_layoff *out) {
    uint8_t dead[TT_MAX_CARDS], pool_w[TT_MAX_CARDS];
    int64_t nd = 0, np = 0, no = 0;
    memset(b->nadded, 0, sizeof b->nadded);
    memset(b->added_wilds, 0, sizeof b->added_wilds);
    for (int64_t t = 0; t < nsteps; t++) {
        const tt_lo_step *x = &steps[t];
        if (x->tag == TT_LO_DEAD) {
            dead[nd++] = x->card;
        } else if (x->tag == TT_LO_POOL) {
            pool_w[np++] = x->card;
        } else if (x->tag == TT_LO_TABLE) {
            b->added[x->table][b->nadded[x->table]++] = x->card;
        } else if (x->tag == TT_LO_EXTEND) {
            int64_t i = c->run_table[x->table], s = x->card;
            b->added[i][b->nadded[i]++] = (uint8_t)(s * 13 + tt_lo_index(x->head));
            for (int64_t q = 1; q <= 14; q++)
                if ((x->places >> q) & 1) b->added[i][b->nadded[i]++] = (uint8_t)(s * 13 + q - 1);
            b->added_wilds[i] += x->lo;
        } else {
            tt_lo_own_meld *o = &b->own[no++];
            o->kind = x->tag == TT_LO_SET ? TT_MELD_SET : TT_MELD_RUN;
            o->lo = x->lo;
            o->hi = x->hi;
            o->into = x->merge;
            o->places = x->places;
            o->nnat = o->nw = 0;
            if (x->tag == TT_LO_SET) { /* its cards in kind order */
                o->which = x->card + 1;
                for (int64_t s = 0; s < 4; s++)
                    for (int64_t k = 0; k < x->take[s]; k++)
                        o->nat[o->nnat++] = (uint8_t)(s * 13 + x->card);
            } else { /* its cards in position order */
                o->which = x->card;
                for (int64_t q = 1; q <= 14; q++)
                    if ((x->places >> q) & 1)
                        o->nat[o->nnat++] = (uint8_t)(x->card * 13 + tt_lo_index(q));
            }
        }
    }
    /* the pool: a jokers and bw wild-rank cards to the melds' needs and the table's room */
    int sink = c->w_sink;
    for (int64_t j = 0; j < c->nwild; j++) sink |= !((st->used >> j) & 1);
    int64_t room_i[TT_LAYOFF_TABLE], room_n[TT_LAYOFF_TABLE], nroom = 0; /* in the dict's order */
    for (int64_t i = 0; i < c->ntable; i++) {
        if (c->table[i].kind != TT_MELD_SET) continue;
        room_i[nroom] = i;
        room_n[nroom++] = tt_max(0, c->cap - c->table[i].wilds);
    }
    for (int64_t r = 0; r < c->nruns; r++) {
        const tt_lo_run *x = &st->runs[r];
        room_i[nroom] = c->run_table[r];
        room_n[nroom++] = tt_max(0, tt_min(c->cap - x->wilds, c->top - (x->high - x->low + 1)));
    }
    for (int64_t j = 0; j < c->nwild; j++) {
        if ((st->used >> j) & 1) continue;
        room_i[nroom] = c->wild_table[j];
        room_n[nroom++] = c->all_wild ? tt_max(0, c->cap - c->wild_size[j]) : 0;
    }
    int64_t h_total = 0;
    for (int64_t t = 0; t < no; t++) {
        int64_t z = b->own[t].into >= 0 ? c->wild_size[b->own[t].into] : 0;
        h_total += b->own[t].hi - z;
    }
    for (int64_t i = 0; i < c->ntable; i++) h_total += b->added_wilds[i];
    for (int64_t t = 0; t < nroom; t++) h_total += room_n[t];
    h_total = tt_min(h_total, c->W);
    int64_t a, bw;
    int64_t ngroups = tt_pool_plan(&c->pool, sink, c->J, c->M - st->mnat, st->D, h_total, &a, &bw,
                                   b->groups);
    if (ngroups < 0 || bw > np) return TT_LAYOFF_FAILED;
    uint8_t wc[TT_MAX_CARDS];
    int64_t total = 0, rd = 0, jokers = c->J - a, pw = bw; /* pool_w[pw..np) are left */
    for (int64_t i = 0; i < a; i++) wc[total++] = 52;
    for (int64_t i = 0; i < bw; i++) wc[total++] = pool_w[i];
    /* needs first: run gaps, then own melds (less the jokers of a wild table meld) */
    for (int64_t i = 0; i < c->ntable; i++)
        tt_lo_hand_out(wc, &rd, total, b->added_wilds[i], b->added[i], &b->nadded[i]);
    for (int64_t t = 0; t < no; t++) {
        tt_lo_own_meld *o = &b->own[t];
        int64_t z = o->into >= 0 ? c->wild_size[o->into] : 0;
        tt_lo_hand_out(wc, &rd, total, tt_max(0, o->lo - z), o->wilds, &o->nw);
    }
    /* then the spare wilds wherever there is room */
    for (int64_t t = 0; t < no; t++) {
        tt_lo_own_meld *o = &b->own[t];
        int64_t z = o->into >= 0 ? c->wild_size[o->into] : 0;
        tt_lo_hand_out(wc, &rd, total, tt_max(0, o->hi - z - o->nw), o->wilds, &o->nw);
    }
    for (int64_t t = 0; t < nroom; t++) {
        int64_t i = room_i[t];
        b->added_wilds[i] += tt_lo_hand_out(wc, &rd, total, room_n[t], b->added[i], &b->nadded[i]);
    }
    if (rd != total) return TT_LAYOFF_FAILED;
    /* own melds */
    out->nmelds = out->nmeld_cards = 0;
    for (int64_t t = 0; t < no; t++) {
        tt_lo_own_meld *o = &b->own[t];
        if (o->into >= 0) { /* onto the wild-only table meld: naturals, then wilds */
            int64_t i = c->wild_table[o->into];
            for (int64_t k = 0; k < o->nnat; k++) b->added[i][b->nadded[i]++] = o->nat[k];
            for (int64_t k = 0; k < o->nw; k++) b->added[i][b->nadded[i]++] = o->wilds[k];
            continue;
        }
        uint8_t *cards = out->meld_cards + out->nmeld_cards;
        if (o->kind == TT_MELD_SET) {
            memcpy(cards, o->nat, (size_t)o->nnat);
            memcpy(cards + o->nnat, o->wilds, (size_t)o->nw);
            out->meld[out->nmelds++] = tt_lo_shape(TT_MELD_SET, o->which, -1, 0, 0, o->nw,
                                                   o->nnat + o->nw);
        } else {
            out->meld[out->nmelds++] = tt_lo_lay_run(c, o->places, o->which, o->wilds, o->nw,
                                                     cards);
        }
        out->nmeld_cards += o->nnat + o->nw;
    }
    /* the pool's own melds; the wild-rank cards left go onto a sink when there is one */
    for (int64_t g = 0; g < ngroups; g++) {
        int64_t x = b->groups[g][0], y = b->groups[g][1];
        if (x > np - pw || y > jokers) return TT_LAYOFF_FAILED; /* unreachable: a partition */
        uint8_t *cards = out->meld_cards + out->nmeld_cards;
        for (int64_t k = 0; k < x; k++) cards[k] = pool_w[pw++];
        for (int64_t k = 0; k < y; k++) cards[x + k] = 52;
        jokers -= y;
        out->meld[out->nmelds++] = x ? tt_lo_shape(TT_MELD_SET, c->w + 1, -1, 0, 0, y, x + y)
                                     : tt_lo_shape(TT_MELD_WILD, 0, -1, 0, 0, y, y);
        out->nmeld_cards += x + y;
    }
    if (sink && pw < np) {
        int64_t i = -1;
        for (int64_t t = 0; t < c->ntable && i < 0; t++)
            if (c->table[t].kind == TT_MELD_SET && c->table[t].rank == c->w + 1) i = t;
        for (int64_t j = 0; j < c->nwild && i < 0; j++)
            if (!((st->used >> j) & 1)) i = c->wild_table[j];
        while (pw < np) b->added[i][b->nadded[i]++] = pool_w[pw++];
    }
    while (pw < np) dead[nd++] = pool_w[pw++];
    for (int64_t k = 0; k < jokers; k++) dead[nd++] = 52;
    int64_t points = 0;
    for (int64_t k = 0; k < nd; k++) points += c->pen[dead[k]];
    if (points != target) return TT_LAYOFF_FAILED;
    out->points = points;
    out->ndead = nd;
    memcpy(out->dead, dead, (size_t)nd);
    out->nlaid = 0;
    for (int64_t i = 0; i < c->ntable; i++) {
        if (!tt_lo_grown(c, b, st, i, &out->table[i])) return TT_LAYOFF_FAILED;
        for (int64_t k = 0; k < b->nadded[i]; k++) {
            out->laid_card[out->nlaid] = b->added[i][k];
            out->laid_onto[out->nlaid++] = (uint8_t)i;
        }
    }
    return TT_LAYOFF_DONE;
}

/* ------------------------------------------------------------------------ the entry point */
/* The search of `in` (a hand of at most `limit` cards): its value into *value and, when out is
   not NULL, the plan spelled out into *out. */
static inline tt_layoff_status tt_lo_solve(const tt_solver *S, const tt_layoff_input *in,
                                           int64_t limit, int64_t *value, tt_layoff *out) {
    tt_layoff_status status;
    tt_lo_ctx *c = tt_lo_new(S, in, limit, &status);
    if (c == NULL) return status;
    tt_lo_state st = {.runs = c->run0};
    memcpy(st.cnt, in->counts, 52);
    for (int k = 0; k < 52; k++) st.left += in->counts[k];
    for (int k = 0; k < 52; k++) st.idx += in->counts[k] * c->stride[k];
    tt_lo_run bufs[2][TT_LAYOFF_TABLE];
    tt_lo_step steps[TT_MAX_CARDS];
    int64_t nsteps = 0;
    *value = tt_lo_value(c, &st);
    status = TT_LAYOFF_DONE;
    while (out != NULL && st.left && !c->failed) {
        tt_lo_scan sc = {.goal = tt_lo_value(c, &st), .runs_out = bufs[nsteps & 1]};
        tt_lo_options(c, &st, &sc);
        if (!sc.found || nsteps >= TT_MAX_CARDS) {
            status = TT_LAYOFF_FAILED;
            break;
        }
        steps[nsteps++] = sc.step;
        st = sc.next;
    }
    if (c->failed) status = TT_LAYOFF_NO_MEMORY;
    if (status == TT_LAYOFF_DONE && out != NULL) {
        tt_lo_plan *plan = malloc(sizeof *plan);
        status = plan == NULL ? TT_LAYOFF_NO_MEMORY
                              : tt_lo_build(c, plan, *value, steps, nsteps, &st, out);
        free(plan);
    }
    tt_lo_free(c);
    return status;
}

/* Redemption (tt_env.game.melds.lay_off): lay down own melds and lay cards off onto the
   table's melds, leaving the fewest penalty points; exact, and the same play as the Python
   solver's. Every option of the configuration applies (par: the penalties, top, all_wild_melds,
   the cap on wilds per meld). TT_LAYOFF_DONE fills *out; the other statuses leave the question
   to the Python solver. Allocates its search's memo (freed before it returns): safe on any
   thread, with no other state than its arguments'. */
static inline tt_layoff_status tt_lay_off(const tt_solver *S, const tt_layoff_input *in,
                                          tt_layoff *out) {
    int64_t value;
    return tt_lo_solve(S, in, TT_MAX_HAND, &value, out);
}

#endif /* TT_SOLVER_LAYOFF_H */
