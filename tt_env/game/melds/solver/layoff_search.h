/* Redemption's search: the fewest points a hand keeps once it lays down its own melds and lays
   cards off onto the melds on the table (a part of solver.h: see there; layoff.h spells the
   result out and is the entry point).

   The exact search of tt_env.game.melds._layoff (_LayOffSearch), ported option for option and
   in the same order, so that the walk back along the memo picks the same optimal plan: a
   memoised depth-first search over the lowest natural card left. The lowest card is pooled (a
   wild-rank card), laid off onto a table set of its rank, or deadwood; or it heads an own set
   (every sub-multiset of its rank holding it), an own run (every subset of its suit's cards
   above it), either of them possibly absorbed by a meld of wild cards only on the table; or it
   grows a table run of its suit below or above (with more cards of the suit, and wilds for
   the gaps). A state is (the natural cards left, the wild-rank cards used as naturals, the
   wilds the melds need, the wilds they take at most, the table runs' spans, the wild-only
   table melds used); its leaf is the pool's (pool.h), with what the table can still take.

   Nothing here allocates but the search's context (tt_lo_new): its memo grows as the search
   needs, up to TT_LAYOFF_MEMO states, beyond which the search gives up and says so. */

#ifndef TT_SOLVER_LAYOFF_SEARCH_H
#define TT_SOLVER_LAYOFF_SEARCH_H

#include <stdlib.h>

#include "pool.h"

#define TT_LAYOFF_TABLE 64       /* table melds at most (MAX_TABLE_MELDS of the Python solver) */
#define TT_LAYOFF_MELDS 32       /* own melds at most (a hand of TT_MAX_CARDS cards) */
#define TT_LAYOFF_MEMO (1 << 22) /* states the search memoises at most */
#define TT_LAYOFF_PENALTY_MAX \
    ((int64_t)1 << 30)                           /* the hand's penalties add up to less (the
                                                    Python search's "infinity") */
#define TT_LO_KEY_MAX (15 + 5 * TT_LAYOFF_TABLE) /* a state's key: bytes at most */
#define TT_LO_RUN_SLOTS 1024 /* the own runs of this many suit patterns are kept at once */

/* A meld's kind, as tt_env.game.melds.MeldShape.kind. */
typedef enum { TT_MELD_SET = 0, TT_MELD_RUN = 1, TT_MELD_WILD = 2 } tt_meld_kind;

/* A meld's shape (tt_env.game.melds.MeldShape): kind (tt_meld_kind), rank of a set (else 0),
   suit 0..3 of a run (else -1), low and high positions of a run (else 0), the cards used as
   wilds, all its cards. */
typedef struct {
    int16_t kind, rank, suit, low, high, wilds, size;
} tt_meld_shape;

/* What tt_lay_off() reads: the hand and the melds on the table. */
typedef struct {
    const uint8_t *counts;      /* the hand: 53 counts */
    int64_t ntable;             /* table melds, at most TT_LAYOFF_TABLE */
    const tt_meld_shape *table; /* their shapes */
} tt_layoff_input;

/* How tt_lay_off() ended. */
typedef enum {
    TT_LAYOFF_DONE = 0,         /* solved: the result is filled in */
    TT_LAYOFF_OUT_OF_RANGE = 1, /* a hand or table beyond what the kernel takes (more than
                                   its limit of cards or TT_LAYOFF_TABLE melds, a shape outside
                                   a real table's, penalties adding up to TT_LAYOFF_PENALTY_MAX) */
    TT_LAYOFF_NO_MEMORY = 2,    /* the memo could not grow, or would pass TT_LAYOFF_MEMO */
    TT_LAYOFF_FAILED = 3,       /* unreachable: the plan did not add up (a bug to report) */
} tt_layoff_status;

/* The redemption play (tt_env.game.melds.LayOff). */
typedef struct {
    int64_t points;                       /* the deadwood's penalty */
    int64_t nmelds;                       /* own melds laid down */
    tt_meld_shape meld[TT_LAYOFF_MELDS];  /* their shapes */
    int64_t nmeld_cards;                  /* their cards, meld after meld */
    uint8_t meld_cards[TT_MAX_CARDS];     /* (a run's in position order) */
    int64_t ndead;                        /* the deadwood */
    uint8_t dead[TT_MAX_CARDS];           /* (in the Python solver's order) */
    int64_t nlaid;                        /* cards laid off, table meld after table meld */
    uint8_t laid_card[TT_MAX_CARDS];      /* each card */
    uint8_t laid_onto[TT_MAX_CARDS];      /* and the index of its table meld */
    tt_meld_shape table[TT_LAYOFF_TABLE]; /* every table meld after the lay-offs */
} tt_layoff;

/* ---------------------------------------------------------------------------- the search */
/* A table run's span and wilds, as the search grows it. */
typedef struct {
    int16_t low, high, wilds;
} tt_lo_run;

/* An own run: its natural positions (bits 1..14), wilds needed and taken at most, naturals,
   wild-rank cards natural in it. */
typedef struct {
    uint16_t places;
    int16_t lo, hi;
    int8_t n, nat;
} tt_lo_cand;

/* A step of the walk: what became of the lowest card. */
typedef enum {
    TT_LO_DEAD,   /* deadwood */
    TT_LO_POOL,   /* a wild-rank card to the pool */
    TT_LO_TABLE,  /* laid off onto a table set of its rank */
    TT_LO_SET,    /* an own set */
    TT_LO_RUN,    /* an own run */
    TT_LO_EXTEND, /* a table run grown */
} tt_lo_tag;

typedef struct {
    tt_lo_tag tag;
    int16_t merge;   /* an own meld: the wild-only table meld that absorbs it (its index among
                          them), or -1 */
    uint8_t card;    /* dead, pool, table: the card; set: its rank's position; run, extend: the
                          suit */
    int16_t table;   /* table: the table set's index; extend: the table run's (among them) */
    int16_t lo, hi;  /* an own meld: wilds needed, taken at most; extend: the gaps filled */
    uint8_t take[4]; /* set: its cards of each suit */
    uint16_t places; /* run: its positions; extend: the positions beside the head (bits) */
    int16_t head;    /* extend: the head's position (first of the cards laid off) */
} tt_lo_step;

/* A state of the search. */
typedef struct {
    uint8_t cnt[52];       /* the natural cards left */
    int64_t left;          /* how many */
    uint32_t idx;          /* their index among the sub-multisets of the hand (mixed radix) */
    int64_t mnat, D, H;    /* wild-rank cards natural in melds; wilds needed; taken at most */
    uint64_t used;         /* the wild-only table melds that absorbed an own meld (bits) */
    const tt_lo_run *runs; /* the table runs' spans */
} tt_lo_state;

/* A memo entry: the state's key (in the context's key bytes) and value. */
typedef struct {
    uint64_t hash;
    uint32_t at;
    uint16_t len; /* 0: a free slot */
    int64_t value;
} tt_lo_entry;

/* The search's context: the configuration, the hand, the table, the memo, the own runs of each
   suit's positions (built as met). */
typedef struct {
    const int64_t *pen;
    int64_t w, top, cap, all_wild;
    int64_t J, M, W;
    uint32_t stride[52];
    tt_pool pool;
    int64_t ntable;
    const tt_meld_shape *table;
    int16_t set_of_rank[14]; /* the first table set of each rank, or -1 */
    int64_t set_room;        /* wilds the table sets can still take */
    int w_sink;              /* a table set of the wild rank takes wild-rank cards as naturals */
    int64_t nruns, nwild;
    int16_t run_table[TT_LAYOFF_TABLE], run_suit[TT_LAYOFF_TABLE];
    tt_lo_run run0[TT_LAYOFF_TABLE];
    int16_t wild_table[TT_LAYOFF_TABLE];
    int64_t wild_size[TT_LAYOFF_TABLE];
    tt_lo_entry *memo;
    int64_t slots, entries;
    uint8_t *keys;
    int64_t keys_len, keys_cap;
    int32_t run_key[TT_LO_RUN_SLOTS]; /* a suit pattern (positions, two aces) + 1; 0: free */
    int32_t run_at[TT_LO_RUN_SLOTS], run_n[TT_LO_RUN_SLOTS]; /* its own runs in cands */
    int64_t run_keys;
    tt_lo_cand *cands;
    int64_t ncands, cands_cap;
    int failed; /* out of memory, or the memo full */
} tt_lo_ctx;

/* The scan of a state's options: the least value (goal < 0), or the first option reaching the
   goal (the walk), with its step and state (runs copied into runs_out). */
typedef struct {
    int64_t goal, best;
    int found;
    tt_lo_step step;
    tt_lo_state next;
    tt_lo_run *runs_out;
} tt_lo_scan;

static inline int64_t tt_lo_index(int64_t pos) { return pos == 14 ? 0 : pos - 1; }

static inline void tt_lo_free(tt_lo_ctx *c) {
    if (c == NULL) return;
    free(c->memo);
    free(c->keys);
    free(c->cands);
    free(c);
}

/* ------------------------------------------------------------------------------ the memo */
static inline uint64_t tt_lo_hash(const uint8_t *key, int64_t n) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (int64_t i = 0; i < n; i++) h = (h ^ key[i]) * 0x100000001b3ULL;
    return h ^ (h >> 29);
}

/* The key of a state: its cards' index, mnat, D, H, the melds used, and the table runs it grew
   (index, span, wilds). Returns its length. */
static inline int64_t tt_lo_key(const tt_lo_ctx *c, const tt_lo_state *st, uint8_t *key) {
    memcpy(key, &st->idx, 4);
    key[4] = (uint8_t)st->mnat;
    key[5] = (uint8_t)st->D;
    key[6] = (uint8_t)st->H;
    memcpy(key + 7, &st->used, 8);
    int64_t n = 15;
    for (int64_t r = 0; r < c->nruns; r++) {
        const tt_lo_run *a = &st->runs[r], *b = &c->run0[r];
        if (a->low == b->low && a->high == b->high && a->wilds == b->wilds) continue;
        key[n++] = (uint8_t)r;
        key[n++] = (uint8_t)a->low;
        key[n++] = (uint8_t)a->high;
        memcpy(key + n, &a->wilds, 2);
        n += 2;
    }
    return n;
}

/* The slot of a key, or of the free slot where it would go. */
static inline int64_t tt_lo_slot(const tt_lo_ctx *c, const uint8_t *key, int64_t n, uint64_t h) {
    int64_t s = (int64_t)(h & (uint64_t)(c->slots - 1));
    for (;;) {
        const tt_lo_entry *e = &c->memo[s];
        if (e->len == 0) return s;
        if (e->hash == h && e->len == n && memcmp(c->keys + e->at, key, (size_t)n) == 0) return s;
        s = (s + 1) & (c->slots - 1);
    }
}

/* Remember a state's value (the memo doubles when half full). */
static inline void tt_lo_store(tt_lo_ctx *c, const uint8_t *key, int64_t n, uint64_t h,
                               int64_t value) {
    if (c->failed) return;
    if (c->entries >= TT_LAYOFF_MEMO) {
        c->failed = 1;
        return;
    }
    if (2 * (c->entries + 1) > c->slots) {
        int64_t old = c->slots;
        tt_lo_entry *was = c->memo;
        tt_lo_entry *memo = calloc((size_t)(2 * old), sizeof *memo);
        if (memo == NULL) {
            c->failed = 1;
            return;
        }
        c->memo = memo;
        c->slots = 2 * old;
        for (int64_t s = 0; s < old; s++) {
            if (was[s].len == 0) continue;
            int64_t t = (int64_t)(was[s].hash & (uint64_t)(c->slots - 1));
            while (memo[t].len) t = (t + 1) & (c->slots - 1);
            memo[t] = was[s];
        }
        free(was);
    }
    if (c->keys_len + n > c->keys_cap) {
        int64_t cap = 2 * c->keys_cap + n;
        uint8_t *keys = realloc(c->keys, (size_t)cap);
        if (keys == NULL || cap > (int64_t)UINT32_MAX) {
            if (keys != NULL) c->keys = keys;
            c->failed = 1;
            return;
        }
        c->keys = keys;
        c->keys_cap = cap;
    }
    memcpy(c->keys + c->keys_len, key, (size_t)n);
    int64_t s = tt_lo_slot(c, key, n, h);
    c->memo[s] = (tt_lo_entry){h, (uint32_t)c->keys_len, (uint16_t)n, value};
    c->keys_len += n;
    c->entries++;
}

/* -------------------------------------------------------------------- a suit's own runs */
/* The own runs headed by the lowest card of a suit holding the positions of `held` (bits 0..12,
   position - 1), two aces or more when `two_aces`: _Tables.build_runs, in its order (by the
   head, then subsets by size and in lexicographic order, then stably by wilds needed and most
   naturals first). Returns their first index in c->cands and their number in *nout, or -1. */
static inline int64_t tt_lo_build_runs(tt_lo_ctx *c, int64_t held, int two_aces, int64_t *nout) {
    int64_t key = held | (two_aces ? 1 << 13 : 0);
    int64_t slot = (int64_t)((uint32_t)(key * 2654435761u) >> 22);
    while (c->run_key[slot] && c->run_key[slot] != key + 1)
        slot = (slot + 1) & (TT_LO_RUN_SLOTS - 1);
    if (c->run_key[slot]) {
        *nout = c->run_n[slot];
        return c->run_at[slot];
    }
    if (4 * (c->run_keys + 1) > 3 * TT_LO_RUN_SLOTS) { /* full: forget them (the lists stay) */
        memset(c->run_key, 0, sizeof c->run_key);
        c->run_keys = 0;
        slot = (int64_t)((uint32_t)(key * 2654435761u) >> 22);
    }
    int64_t first = tt_tz((uint64_t)held);
    int64_t above[13], na = 0;
    for (int64_t i = first + 1; i < 13; i++)
        if ((held >> i) & 1) above[na++] = i + 1; /* positions */
    uint16_t heads[3];
    int64_t nheads = 0;
    if (first == 0 && c->top == 14) {
        heads[nheads++] = 1 << 1;
        heads[nheads++] = 1 << 14;
        if (two_aces) heads[nheads++] = (1 << 1) | (1 << 14);
    } else {
        heads[nheads++] = (uint16_t)(1 << (first + 1));
    }
    int64_t most = nheads << na;
    if (c->ncands + 2 * most > c->cands_cap) {
        int64_t cap = 2 * c->cands_cap + 2 * most;
        tt_lo_cand *cands = realloc(c->cands, (size_t)cap * sizeof *cands);
        if (cands == NULL) {
            c->failed = 1;
            return -1;
        }
        c->cands = cands;
        c->cands_cap = cap;
    }
    tt_lo_cand *raw = c->cands + c->ncands + most; /* unsorted, after the sorted room */
    int64_t nraw = 0;
    for (int64_t h = 0; h < nheads; h++) {
        for (int64_t r = 0; r <= na; r++) {
            int64_t ix[13];
            for (int64_t i = 0; i < r; i++) ix[i] = i;
            for (;;) { /* the combinations of r positions of above, in lexicographic order */
                uint16_t places = heads[h];
                for (int64_t i = 0; i < r; i++) places |= (uint16_t)(1 << above[ix[i]]);
                int64_t n = tt_popcount(places);
                int64_t span = tt_bitlen(places) - 1 - tt_tz(places) + 1;
                int64_t lo = tt_max(3, span) - n;
                if (span <= c->top && lo <= c->cap) {
                    int64_t nat = 0;
                    for (int64_t q = 1; q <= 14; q++)
                        if ((places >> q) & 1 && tt_lo_index(q) == c->w) nat++;
                    raw[nraw++] = (tt_lo_cand){places, (int16_t)lo,
                                               (int16_t)tt_min(c->cap, c->top - n), (int8_t)n,
                                               (int8_t)nat};
                }
                int64_t i = r - 1;
                while (i >= 0 && ix[i] == na - r + i) i--;
                if (i < 0) break;
                ix[i]++;
                for (int64_t j = i + 1; j < r; j++) ix[j] = ix[j - 1] + 1;
            }
        }
    }
    /* a stable sort by (wilds needed, most naturals first): by counting */
    int64_t count[14 * 16 + 1] = {0};
    for (int64_t i = 0; i < nraw; i++) count[raw[i].lo * 16 + (15 - raw[i].n) + 1]++;
    for (int64_t k = 1; k <= 14 * 16; k++) count[k] += count[k - 1];
    tt_lo_cand *out = c->cands + c->ncands;
    for (int64_t i = 0; i < nraw; i++) out[count[raw[i].lo * 16 + (15 - raw[i].n)]++] = raw[i];
    c->run_key[slot] = (int32_t)key + 1;
    c->run_at[slot] = (int32_t)c->ncands;
    c->run_n[slot] = (int32_t)nraw;
    c->run_keys++;
    c->ncands += nraw;
    *nout = nraw;
    return c->run_at[slot];
}

/* --------------------------------------------------------------------------- the options */
static inline int64_t tt_lo_value(tt_lo_ctx *c, const tt_lo_state *st);

/* An option: its points now and its state; 1 when the scan is over. */
static inline int tt_lo_offer(tt_lo_ctx *c, tt_lo_scan *sc, int64_t now, const tt_lo_state *nx,
                              const tt_lo_step *step) {
    if (c->failed) return 1;
    if (sc->goal < 0) {
        if (now >= sc->best) return 0;
        int64_t v = now + tt_lo_value(c, nx);
        if (v < sc->best) sc->best = v;
        return sc->best == 0;
    }
    if (now > sc->goal || now + tt_lo_value(c, nx) != sc->goal) return 0;
    sc->found = 1;
    sc->step = *step;
    sc->next = *nx;
    memcpy(sc->runs_out, nx->runs, (size_t)c->nruns * sizeof *nx->runs);
    sc->next.runs = sc->runs_out;
    return 1;
}

/* An own meld (nx: the state with its cards taken): alone, then absorbed by each wild-only
   table meld that can take it. */
static inline int tt_lo_own(tt_lo_ctx *c, tt_lo_scan *sc, const tt_lo_state *st, tt_lo_state *nx,
                            int64_t nat, int64_t lo, int64_t hi, tt_lo_step *step) {
    int64_t room = c->W - st->mnat - st->D;
    nx->mnat = st->mnat + nat;
    step->merge = -1;
    if (lo + nat <= room) {
        nx->D = st->D + lo;
        nx->H = tt_min(st->H + hi, c->W);
        nx->used = st->used;
        if (tt_lo_offer(c, sc, 0, nx, step)) return 1;
    }
    for (int64_t j = 0; j < c->nwild; j++) {
        int64_t z = c->wild_size[j];
        if ((st->used >> j) & 1 || z > hi) continue;
        int64_t lo2 = tt_max(0, lo - z);
        if (lo2 + nat > room) continue;
        nx->D = st->D + lo2;
        nx->H = tt_min(st->H + hi - z, c->W);
        nx->used = st->used | (uint64_t)1 << j;
        step->merge = (int16_t)j;
        if (tt_lo_offer(c, sc, 0, nx, step)) return 1;
    }
    return 0;
}

/* Take one card of each position of `places` (bits 1..14) of suit s from nx. */
static inline void tt_lo_take_places(const tt_lo_ctx *c, tt_lo_state *nx, int64_t s,
                                     uint32_t places) {
    for (int64_t q = 1; q <= 14; q++) {
        if (!((places >> q) & 1)) continue;
        int64_t k = s * 13 + tt_lo_index(q);
        nx->cnt[k]--;
        nx->left--;
        nx->idx -= c->stride[k];
    }
}

/* The table run r of the lowest card's suit s grown below or above by it (position p + 1),
   with more of the suit's cards: _LayOffSearch.extensions. */
static inline int tt_lo_extend(tt_lo_ctx *c, tt_lo_scan *sc, const tt_lo_state *st, int64_t r,
                               int64_t s, int64_t p) {
    const tt_lo_run run = st->runs[r];
    int64_t cap_left = c->cap - run.wilds;
    int64_t len_left = c->top - (run.high - run.low + 1);
    int64_t heads[3], lows[3], highs[3], nheads = 0; /* head, and the range of more cards */
    if (p + 1 < run.low) heads[nheads] = p + 1, lows[nheads] = p + 2, highs[nheads++] = run.low - 1;
    if (p + 1 > run.high) heads[nheads] = p + 1, lows[nheads] = p + 2, highs[nheads++] = 13;
    if (p == 0 && c->top == 14 && run.high < 14)
        heads[nheads] = 14, lows[nheads] = run.high + 1, highs[nheads++] = 13;
    tt_lo_run runs[TT_LAYOFF_TABLE];
    memcpy(runs, st->runs, (size_t)c->nruns * sizeof *runs);
    for (int64_t h = 0; h < nheads; h++) {
        int64_t head = heads[h], below = head < run.low;
        int64_t more[13], nm = 0;
        for (int64_t q = tt_max(1, lows[h]); q <= highs[h]; q++)
            if (st->cnt[s * 13 + q - 1]) more[nm++] = q;
        for (int64_t r2 = 0; r2 <= nm; r2++) {
            int64_t ix[13];
            for (int64_t i = 0; i < r2; i++) ix[i] = i;
            for (;;) {
                uint32_t combo = 0;
                int64_t top_place = head;
                for (int64_t i = 0; i < r2; i++) {
                    combo |= (uint32_t)1 << more[ix[i]];
                    top_place = tt_max(top_place, more[ix[i]]);
                }
                int64_t new_low = below ? head : run.low;
                int64_t new_high = below ? run.high : top_place;
                int64_t grow = below ? run.low - head : top_place - run.high;
                int64_t gaps = grow - (1 + r2);
                int64_t nat = tt_lo_index(head) == c->w;
                for (int64_t i = 0; i < r2; i++) nat += tt_lo_index(more[ix[i]]) == c->w;
                if (grow <= len_left && gaps <= cap_left && gaps + nat <= c->W - st->mnat - st->D) {
                    tt_lo_state nx = *st;
                    tt_lo_take_places(c, &nx, s, combo | (uint32_t)1 << head);
                    runs[r] = (tt_lo_run){(int16_t)new_low, (int16_t)new_high,
                                          (int16_t)(run.wilds + gaps)};
                    nx.runs = runs;
                    nx.mnat = st->mnat + nat;
                    nx.D = st->D + gaps;
                    nx.H = tt_min(st->H + gaps, c->W);
                    tt_lo_step step = {.tag = TT_LO_EXTEND,
                                       .merge = -1,
                                       .card = (uint8_t)s,
                                       .table = (int16_t)r,
                                       .lo = (int16_t)gaps,
                                       .places = (uint16_t)combo,
                                       .head = (int16_t)head};
                    if (tt_lo_offer(c, sc, 0, &nx, &step)) return 1;
                }
                int64_t i = r2 - 1;
                while (i >= 0 && ix[i] == nm - r2 + i) i--;
                if (i < 0) break;
                ix[i]++;
                for (int64_t j = i + 1; j < r2; j++) ix[j] = ix[j - 1] + 1;
            }
        }
    }
    return 0;
}

/* Every option of a state (its lowest card k), in _LayOffSearch.options's order. */
static inline void tt_lo_options(tt_lo_ctx *c, const tt_lo_state *st, tt_lo_scan *sc) {
    int64_t k = 0;
    while (!st->cnt[k]) k++;
    int64_t s = k / 13, p = k % 13;
    tt_lo_state nx = *st;
    nx.cnt[k]--;
    nx.left--;
    nx.idx -= c->stride[k];
    tt_lo_step step = {.merge = -1, .card = (uint8_t)k, .table = -1};
    int64_t now = 0;
    if (p == c->w) {
        step.tag = TT_LO_POOL;
    } else if (c->set_of_rank[p + 1] >= 0) {
        step.tag = TT_LO_TABLE;
        step.table = c->set_of_rank[p + 1];
    } else {
        step.tag = TT_LO_DEAD;
        now = c->pen[k];
    }
    if (tt_lo_offer(c, sc, now, &nx, &step)) return;
    if (p != c->w) { /* own sets: every sub-multiset of rank p holding k, by wilds needed */
        int64_t most[4] = {0, 0, 0, 0};
        for (int64_t t = s; t < 4; t++) most[t] = st->cnt[t * 13 + p];
        for (int64_t lo = 0; lo <= 2 && lo <= c->cap; lo++) {
            uint8_t take[4] = {0, 0, 0, 0};
            take[s] = 1;
            for (;;) {
                int64_t n = take[0] + take[1] + take[2] + take[3];
                if (tt_max(0, 3 - n) == lo) {
                    nx = *st;
                    for (int64_t t = s; t < 4; t++) {
                        nx.cnt[t * 13 + p] -= take[t];
                        nx.left -= take[t];
                        nx.idx -= take[t] * c->stride[t * 13 + p];
                    }
                    tt_lo_step set = {.tag = TT_LO_SET,
                                      .card = (uint8_t)p,
                                      .lo = (int16_t)lo,
                                      .hi = (int16_t)c->cap};
                    memcpy(set.take, take, 4);
                    if (tt_lo_own(c, sc, st, &nx, 0, lo, c->cap, &set)) return;
                }
                int64_t t = 3;
                for (; t >= s; t--) {
                    if (take[t] < most[t]) {
                        take[t]++;
                        break;
                    }
                    take[t] = t == s ? 1 : 0;
                }
                if (t < s) break;
            }
        }
    }
    int64_t held = 0;
    for (int64_t q = 0; q < 13; q++)
        if (st->cnt[s * 13 + q]) held |= (int64_t)1 << q;
    int64_t n;
    int64_t at = tt_lo_build_runs(c, held, st->cnt[s * 13] >= 2, &n);
    if (at < 0) return;
    for (int64_t i = 0; i < n; i++) {             /* own runs */
        const tt_lo_cand cand = c->cands[at + i]; /* a copy: the list may move */
        nx = *st;
        tt_lo_take_places(c, &nx, s, cand.places);
        tt_lo_step run = {.tag = TT_LO_RUN,
                          .card = (uint8_t)s,
                          .lo = cand.lo,
                          .hi = cand.hi,
                          .places = cand.places};
        if (tt_lo_own(c, sc, st, &nx, cand.nat, cand.lo, cand.hi, &run)) return;
    }
    for (int64_t r = 0; r < c->nruns; r++)
        if (c->run_suit[r] == s && tt_lo_extend(c, sc, st, r, s, p)) return;
}

/* ------------------------------------------------------------------------- the values */
/* A state with no natural card left: the pool's value, with what the table still takes. */
static inline int64_t tt_lo_leaf(const tt_lo_ctx *c, const tt_lo_state *st) {
    int64_t room = st->H + c->set_room;
    for (int64_t r = 0; r < c->nruns; r++) {
        const tt_lo_run *x = &st->runs[r];
        room += tt_max(0, tt_min(c->cap - x->wilds, c->top - (x->high - x->low + 1)));
    }
    int sink = c->w_sink;
    for (int64_t j = 0; j < c->nwild; j++) {
        if ((st->used >> j) & 1) continue;
        sink = 1;
        if (c->all_wild) room += tt_max(0, c->cap - c->wild_size[j]);
    }
    return tt_pool_leaf(&c->pool, sink, c->J, c->M - st->mnat, st->D, tt_min(room, c->W));
}

/* The fewest points from a state (memoised). */
static inline int64_t tt_lo_value(tt_lo_ctx *c, const tt_lo_state *st) {
    if (st->left == 0) return tt_lo_leaf(c, st);
    uint8_t key[TT_LO_KEY_MAX];
    int64_t n = tt_lo_key(c, st, key);
    uint64_t h = tt_lo_hash(key, n);
    int64_t s = tt_lo_slot(c, key, n, h);
    if (c->memo[s].len) return c->memo[s].value;
    tt_lo_scan sc = {.goal = -1, .best = TT_POOL_INF};
    tt_lo_options(c, st, &sc);
    tt_lo_store(c, key, n, h, sc.best);
    return sc.best;
}

#endif /* TT_SOLVER_LAYOFF_SEARCH_H */
