/* The solver's compiled kernel: the fewest penalty of a hand with no cap on wilds per meld.

   Plain C, header only (every function static): the solver's extension module
   (_csolver.c) includes it, and so do the kernels of the layers above (the valuation's rule,
   the features, the search agent), which call these functions from their own compiled code.
   It knows nothing of Python: the bindings check every input before it reaches this code.
   It is one file of about 2,000 lines, and stays so: a header of static functions is how the
   kernels above compile the solver into their own code (and inline its small functions).

   Same mathematics as the Python fast path (see the package docstring of tt_env.game.melds),
   laid out for a compiler:

   Suit tables. T[mask][d] is the fewest points of one suit's cards (13-bit mask, one copy
   each) left out of runs that need at most d wilds for their gaps, for every mask and
   d = 0..15; MD[mask][d] is the costliest card left out in such an arrangement (the costliest
   over all of them: ties broken towards the costliest deadwood card; -1 for none) and
   DW[mask][d] its deadwood. One array TT[mask] holds the four rows of a mask side by side
   (T, MD, DW and G, the fewest points less one card), so that one suit's rows share cache
   lines. They are built once per penalty table (a few ms), by the lowest card: it is
   deadwood, or the lowest natural card of a run with any subset of the cards above it (an ace
   with aces_high may also stand above the king). A suit holding several copies of a card
   (several decks) has a 3-bit count per position and the same recursion, memoised in a hash
   table of fixed size that empties itself when half full.

   The hand. Sets are chosen first: a depth-first search over the ranks holding 2 natural
   cards or more (3 or more without wilds) tries, per rank, "no set" and every sub-multiset big
   enough (one set per rank: with no cap two sets of a rank never need fewer wilds than their
   union); each leaf combines the four suits' rows with the wilds left by a min-plus
   convolution. A leaf is skipped when the suits as they are, less the points of the set
   cards, cannot beat the best found. With no cap every spare wild joins a meld once one
   exists: always when a set is chosen, and when only runs are, whenever no suit holds more
   than top - W natural positions (a run of n naturals needs at most D gap wilds and has room
   for top - n - D more). Otherwise, or beyond the sizes the tables cover (a rank with too
   many options, more than 7 copies of a card, more than 90 wilds), the kernel answers -1 and
   the caller runs the exact search in Python. When no natural meld exists, the wilds can only
   meld by themselves: a set of the wild rank (one wild-rank card, natural there, and any
   jokers; three cards or more), or, with all_wild_melds, three jokers or more.

   One copy each. A hand holding at most one copy of each natural card (every one-deck hand)
   takes tt_evaluate_one(): the same search over 13-bit masks, with a rank's set options read
   from a table by the suits it holds, the set ranks found bit-parallel, and a tighter bound for
   points alone (the suits left for runs valued at every set chosen, less what the ranks below
   can take with the wilds left); for the costliest deadwood card and the plan it prunes as
   tt_evaluate() does, so both find the same arrangement. Any other hand takes tt_evaluate().

   Tie-breaking towards the costliest deadwood card (among the best arrangements the search
   meets) puts costly cards in the plan's deadwood, and tt_discard_values() values every card
   of that deadwood without a search (dropping it saves exactly its penalty).

   Card kinds: k = 13 * suit + position (position 0 the ace .. 12 the king), 52 the joker.
   A hand is 53 counts (uint8). w is the wild rank's position (wild rank - 1). */

#ifndef TT_SOLVER_H
#define TT_SOLVER_H

#include <stdint.h>
#include <string.h>

#define TT_NB 16           /* budgets 0..15 per suit row; a suit's runs never need more than 13 */
#define TT_MAX_NODES 20000 /* search nodes before the kernel gives up (-1) and Python decides */
#define TT_MAX_OPTIONS 64  /* set options of one rank (every sub-multiset of its cards) */
#define TT_MAX_WILDS 90
#define TT_MAX_CARDS 31 /* the solver's largest hand (MAX_HAND_CARDS) and a draw; beyond: -3 */
#define TT_MAX_HAND 30  /* the largest hand min_penalty takes (MAX_HAND_CARDS) */
#define TT_INF 30000    /* "no such arrangement" in the int16 tables (a drop from an empty suit) */
#define TT_MASKS 8192   /* 13-bit suit masks */

/* par: the per-configuration parameters (int64). */
#define TT_P_TOP 53      /* highest position: 13, or 14 with aces_high */
#define TT_P_ALL_WILD 54 /* 1 with all_wild_melds */
#define TT_PAR_SIZE 55   /* par[0..52]: the penalty of each card kind (the joker's at 52) */

/* ws: the workspace (int64); the outputs of a call are read from it. */
#define TT_W_MD 0        /* the costliest deadwood card's penalty (lexicographic modes) */
#define TT_W_NSETS 1     /* plan: sets chosen */
#define TT_W_D 2         /* plan: wilds the chosen sets and runs need */
#define TT_W_UNSURE 3    /* discard_values: entries the kernel could not certify */
#define TT_W_ALLNAT 4    /* plan: the points of every natural card */
#define TT_W_CARDS 5     /* plan: the cards of the hand */
#define TT_W_NDEAD 6     /* plan: the natural cards of the deadwood */
#define TT_W_SETS 8      /* plan: (rank position, takes per suit in 3-bit fields) per set */
#define TT_W_SUITS 40    /* plan: (code left, budget) per suit */
#define TT_W_DEAD 56     /* deadwood: 53 counts */
#define TT_W_DEADCODE 112 /* plan: the natural deadwood of each suit, as a code (3-bit counts) */
#define TT_W_SCRATCH 128
#define TT_WS_SIZE 8192
#define TT_WR_SIZE (4 * 8 * TT_NB) /* wr: scratch rows [4][8][NB] */

#define TT_GENERAL 8 /* added to evaluate()'s mode: never the lean search (tests compare) */

/* arrange(): the sizes of its output buffers (cards, meld keys, runs). */
#define TT_ARRANGE_CARDS 64
#define TT_ARRANGE_KEYS 32
#define TT_ARRANGE_RUNS 256

/* The suit tables of one penalty table (top and the 13 natural penalties), and the memo of
   the suits with several copies of a card. Several configurations share them. */
typedef struct {
    int16_t *TT;     /* [TT_MASKS][4][TT_NB]: T, MD, DW, G */
    int64_t *mkeys;  /* [slots + 1]: the memo's keys (-1 free); the last counts the entries */
    int16_t *mv;     /* [2][slots][TT_NB]: values, costliest deadwood */
    int64_t *mdw;    /* [slots][TT_NB]: deadwood codes */
    int64_t slots;   /* a power of two, 2 or more */
} tt_tables;

/* One configuration (rules, wild rank, joker penalty): what every solver function reads. */
typedef struct {
    tt_tables *tab;
    const int64_t *par; /* [TT_PAR_SIZE] */
    int64_t w;          /* the wild rank's position, 0..12 */
    int64_t *ws;        /* [TT_WS_SIZE] */
    int64_t *wr;        /* [TT_WR_SIZE] */
} tt_solver;

/* The solver's functions (each documented where it is defined, below).

   tt_evaluate(S, counts, lex): the fewest penalty of the hand (53 counts); -1 when the kernel
   cannot certify it, -3 for more than TT_MAX_CARDS cards. lex 0: points only; 1: also the
   costliest deadwood card (ws[TT_W_MD]); 2: also the plan (ws[TT_W_DEAD..] etc.); 3: the
   fewest penalty of the hand less its best natural card to drop (TT_INF with none).

   tt_discard_values(S, counts, out): out[k] the fewest penalty without one card of kind k
   (-2 not held, -1 not certified); returns the hand's own value (or < 0).

   tt_after_draw_values(S, b, weights, out, dv): out[x] for every x with weights[x] > 0, the
   fewest penalty of b + x after its best discard; dv the discard values of b; returns b's
   value; -1 anywhere marks what the kernel could not certify. */
static int64_t tt_evaluate(const tt_solver *S, const uint8_t *counts, int64_t lex);
static int64_t tt_discard_values(const tt_solver *S, const uint8_t *counts, int64_t *out);
static int64_t tt_after_draw_values(const tt_solver *S, const uint8_t *b, const int64_t *weights,
                                    int64_t *out, int64_t *dv);


/* ------------------------------------------------------------------------------------ bits */
#if defined(_MSC_VER)
#include <intrin.h>
static inline int64_t tt_tz(uint64_t x) { /* trailing zero bits of x > 0 */
    unsigned long i;
    _BitScanForward64(&i, x);
    return (int64_t)i;
}
static inline int64_t tt_popcount(uint64_t x) { return (int64_t)__popcnt64(x); }
static inline int64_t tt_bitlen(uint64_t x) { /* length in bits of x >= 0 */
    unsigned long i;
    return _BitScanReverse64(&i, x) ? (int64_t)i + 1 : 0;
}
#else
static inline int64_t tt_tz(uint64_t x) { return (int64_t)__builtin_ctzll(x); }
static inline int64_t tt_popcount(uint64_t x) { return (int64_t)__builtin_popcountll(x); }
static inline int64_t tt_bitlen(uint64_t x) { return x ? 64 - (int64_t)__builtin_clzll(x) : 0; }
#endif

static inline int64_t tt_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t tt_max(int64_t a, int64_t b) { return a > b ? a : b; }

/* Lexicographic: fewer points, then a costlier deadwood card. */
static inline int tt_better(int64_t v, int64_t md, int64_t bv, int64_t bmd) {
    return v < bv || (v == bv && md > bmd);
}

/* 3-bit count fields holding 2 or more: a suit code with any of them holds several copies. */
#define TT_HI_FIELDS 0x6DB6DB6DB6LL

/* TT_FIELD_MASK[x]: the 4-bit mask of the non-zero 3-bit fields of a 12-bit x (a table built
   by the preprocessor, so that no module has to fill it at load). */
#define TT_F(x) (((x) & 7) != 0) | ((((x) >> 3) & 7) != 0) << 1 | ((((x) >> 6) & 7) != 0) << 2 \
    | ((((x) >> 9) & 7) != 0) << 3
#define TT_F4(x) TT_F(x), TT_F((x) + 1), TT_F((x) + 2), TT_F((x) + 3)
#define TT_F16(x) TT_F4(x), TT_F4((x) + 4), TT_F4((x) + 8), TT_F4((x) + 12)
#define TT_F64(x) TT_F16(x), TT_F16((x) + 16), TT_F16((x) + 32), TT_F16((x) + 48)
#define TT_F256(x) TT_F64(x), TT_F64((x) + 64), TT_F64((x) + 128), TT_F64((x) + 192)
#define TT_F1024(x) TT_F256(x), TT_F256((x) + 256), TT_F256((x) + 512), TT_F256((x) + 768)
static const uint8_t TT_FIELD_MASK[4096] = {
    TT_F1024(0), TT_F1024(1024), TT_F1024(2048), TT_F1024(3072)};

/* TT_FIELD_CODE[x]: the 3-bit count fields (one each) of the 4-bit mask x (a set's take too). */
static const int64_t TT_FIELD_CODE[16] = {
    0x000, 0x001, 0x008, 0x009, 0x040, 0x041, 0x048, 0x049,
    0x200, 0x201, 0x208, 0x209, 0x240, 0x241, 0x248, 0x249};

/* The 13-bit mask of the positions a suit's code holds (four fields per table read). */
static inline int64_t tt_mask_of(int64_t code) {
    return (int64_t)TT_FIELD_MASK[code & 0xFFF] | (int64_t)TT_FIELD_MASK[(code >> 12) & 0xFFF] << 4
           | (int64_t)TT_FIELD_MASK[(code >> 24) & 0xFFF] << 8 | (((code >> 36) & 7) ? 4096 : 0);
}

/* The code (3-bit counts) of a 13-bit mask (four positions per table read). */
static inline int64_t tt_code_of(int64_t mask) {
    return TT_FIELD_CODE[mask & 15] | TT_FIELD_CODE[(mask >> 4) & 15] << 12
           | TT_FIELD_CODE[(mask >> 8) & 15] << 24 | TT_FIELD_CODE[(mask >> 12) & 1] << 36;
}

/* Bits set in a 13-bit mask. */
static inline int64_t tt_popcount13(int64_t x) { return tt_popcount((uint64_t)x); }

/* The field of position p of a code. */
static inline int64_t tt_field(int64_t code, int64_t p) { return (code >> (3 * p)) & 7; }

/* The tables' rows: TT[mask][row][d], row 0 T, 1 MD, 2 DW, 3 G. */
#define TT_ROW(TT, mask, row) ((TT) + ((int64_t)(mask) * 4 + (row)) * TT_NB)
/* The scratch rows wr[a][b][d]. */
#define TT_WR(wr, a, b) ((wr) + ((a) * 8 + (b)) * TT_NB)

/* --------------------------------------------------------------------------------- one suit */
/* (low, high, naturals) of a run whose lowest card is at index i (head h: 0 in its place, 1 an
   ace above the king, 2 two aces at both ends) with sub (the bits above i). */
static inline void tt_run_span(int64_t i, int64_t h, int64_t sub, int64_t *low, int64_t *high,
                               int64_t *n) {
    *n = 1 + tt_popcount((uint64_t)sub);
    if (h == 0) {
        *low = i + 1;
        *high = i + 1 + tt_bitlen((uint64_t)sub);
    } else if (h == 1) {
        *low = sub ? tt_tz((uint64_t)sub) + 2 : 14;
        *high = 14;
    } else {
        *low = 1;
        *high = 14;
        *n += 1;
    }
}

/* Fill the four rows T, MD, DW, G of every 13-bit mask (see the top of this file). */
static inline void tt_build_suit_tables(const int64_t *pen13, int64_t top, int16_t *TT) {
    for (int64_t d = 0; d < TT_NB; d++) {
        TT_ROW(TT, 0, 0)[d] = 0;
        TT_ROW(TT, 0, 1)[d] = -1; /* no deadwood */
        TT_ROW(TT, 0, 2)[d] = 0;
    }
    for (int64_t mask = 1; mask < TT_MASKS; mask++) {
        int64_t i = tt_tz((uint64_t)mask);
        int64_t rest = mask & (mask - 1);
        int16_t *T = TT_ROW(TT, mask, 0), *MD = TT_ROW(TT, mask, 1), *DW = TT_ROW(TT, mask, 2);
        const int16_t *Tr = TT_ROW(TT, rest, 0), *MDr = TT_ROW(TT, rest, 1),
                      *DWr = TT_ROW(TT, rest, 2);
        for (int64_t d = 0; d < TT_NB; d++) {
            T[d] = (int16_t)(pen13[i] + Tr[d]);
            MD[d] = (int16_t)tt_max(pen13[i], MDr[d]);
            DW[d] = (int16_t)(DWr[d] | (1 << i));
        }
        int64_t above = rest >> (i + 1);
        int64_t heads = (i == 0 && top == 14) ? 2 : 1;
        for (int64_t h = 0; h < heads; h++) {
            int64_t sub = above;
            for (;;) {
                int64_t low, high, n;
                tt_run_span(i, h, sub, &low, &high, &n);
                int64_t span = high - low + 1;
                int64_t lo = tt_max(3, span) - n;
                if (span <= top && lo < TT_NB) {
                    int64_t child = rest & ~(sub << (i + 1));
                    const int16_t *Tc = TT_ROW(TT, child, 0), *MDc = TT_ROW(TT, child, 1),
                                  *DWc = TT_ROW(TT, child, 2);
                    for (int64_t d = lo; d < TT_NB; d++) {
                        if (tt_better(Tc[d - lo], MDc[d - lo], T[d], MD[d])) {
                            T[d] = Tc[d - lo];
                            MD[d] = MDc[d - lo];
                            DW[d] = DWc[d - lo];
                        }
                    }
                }
                if (sub == 0) break;
                sub = (sub - 1) & above;
            }
        }
    }
    for (int64_t d = 0; d < TT_NB; d++) TT_ROW(TT, 0, 3)[d] = TT_INF;
    for (int64_t mask = 1; mask < TT_MASKS; mask++) {
        int16_t *G = TT_ROW(TT, mask, 3);
        for (int64_t d = 0; d < TT_NB; d++) {
            int64_t best = TT_INF;
            int64_t x = mask;
            while (x) {
                int64_t low = x & -x;
                int64_t v = TT_ROW(TT, mask ^ low, 0)[d];
                if (v < best) best = v;
                x ^= low;
            }
            G[d] = (int16_t)best;
        }
    }
}

/* The memo slot of code (>= 0), or -1 - the free slot where it would go. */
static inline int64_t tt_slot(const tt_tables *tab, int64_t code) {
    int64_t size = tab->slots;
    int64_t s = (int64_t)(((uint64_t)code * 0x9E3779B97F4A7C15ULL) >> 40) & (size - 1);
    for (;;) {
        int64_t k = tab->mkeys[s];
        if (k == code) return s;
        if (k == -1) return -1 - s;
        s = (s + 1) & (size - 1);
    }
}

/* Empty the memo (also its count of entries). */
static void tt_memo_clear(tt_tables *tab) {
    for (int64_t s = 0; s < tab->slots; s++) tab->mkeys[s] = -1;
    tab->mkeys[tab->slots] = 0;
}

/* One suit's row for any counts (3-bit fields): values, costliest deadwood and deadwood (as a
   code) for every budget, into the three outputs. Several copies: memoised. */
static void tt_suit_row(const tt_solver *S, int64_t code, int64_t *out, int64_t *outmd,
                        int64_t *outdw) {
    tt_tables *tab = S->tab;
    const int64_t *par = S->par;
    if ((code & TT_HI_FIELDS) == 0) {
        int64_t m = tt_mask_of(code);
        const int16_t *T = TT_ROW(tab->TT, m, 0), *MD = TT_ROW(tab->TT, m, 1),
                      *DW = TT_ROW(tab->TT, m, 2);
        for (int64_t d = 0; d < TT_NB; d++) {
            out[d] = T[d];
            outmd[d] = MD[d];
            outdw[d] = tt_code_of(DW[d]);
        }
        return;
    }
    int64_t slots = tab->slots;
    int64_t s = tt_slot(tab, code);
    if (s >= 0) {
        for (int64_t d = 0; d < TT_NB; d++) {
            out[d] = tab->mv[s * TT_NB + d];
            outmd[d] = tab->mv[(slots + s) * TT_NB + d];
            outdw[d] = tab->mdw[s * TT_NB + d];
        }
        return;
    }
    int64_t top = par[TT_P_TOP];
    int64_t i = 0;
    while (!tt_field(code, i)) i++;
    int64_t c0 = tt_field(code, i);
    int64_t rest = code - ((int64_t)1 << (3 * i));
    int64_t cv[TT_NB], cmd[TT_NB], cdw[TT_NB], vals[TT_NB], mds[TT_NB], dws[TT_NB];
    tt_suit_row(S, rest, cv, cmd, cdw);
    for (int64_t d = 0; d < TT_NB; d++) {
        vals[d] = par[i] + cv[d];
        mds[d] = tt_max(par[i], cmd[d]);
        dws[d] = cdw[d] + ((int64_t)1 << (3 * i));
    }
    int64_t above = 0;
    for (int64_t p = i + 1; p < 13; p++)
        if (tt_field(rest, p)) above |= (int64_t)1 << (p - i - 1);
    int64_t nheads = 1;
    if (i == 0 && top == 14) nheads = c0 >= 2 ? 3 : 2;
    for (int64_t h = 0; h < nheads; h++) {
        int64_t sub = above;
        for (;;) {
            int64_t low, high, n;
            tt_run_span(i, h, sub, &low, &high, &n);
            int64_t span = high - low + 1;
            int64_t lo = tt_max(3, span) - n;
            if (span <= top && lo < TT_NB) {
                int64_t nxt = rest - (h == 2 ? 1 : 0);
                int64_t x = sub;
                while (x) {
                    nxt -= (int64_t)1 << (3 * (tt_tz((uint64_t)x) + i + 1));
                    x &= x - 1;
                }
                tt_suit_row(S, nxt, cv, cmd, cdw);
                for (int64_t d = lo; d < TT_NB; d++) {
                    if (tt_better(cv[d - lo], cmd[d - lo], vals[d], mds[d])) {
                        vals[d] = cv[d - lo];
                        mds[d] = cmd[d - lo];
                        dws[d] = cdw[d - lo];
                    }
                }
            }
            if (sub == 0) break;
            sub = (sub - 1) & above;
        }
    }
    if (tab->mkeys[slots] * 2 >= slots) tt_memo_clear(tab); /* half full: empty it */
    s = -1 - tt_slot(tab, code);
    tab->mkeys[s] = code;
    tab->mkeys[slots] += 1;
    for (int64_t d = 0; d < TT_NB; d++) {
        tab->mv[s * TT_NB + d] = (int16_t)vals[d];
        tab->mv[(slots + s) * TT_NB + d] = (int16_t)mds[d];
        tab->mdw[s * TT_NB + d] = dws[d];
        out[d] = vals[d];
        outmd[d] = mds[d];
        outdw[d] = dws[d];
    }
}

/* One suit's drop row: out[d], the fewest points of the suit less one of its cards (the best
   one to drop) with d wilds; TT_INF for an empty suit. tv, tmd, tdw: scratch rows. */
static void tt_drop_row(const tt_solver *S, int64_t code, int64_t *out, int64_t *tv,
                        int64_t *tmd, int64_t *tdw) {
    if ((code & TT_HI_FIELDS) == 0) {
        const int16_t *G = TT_ROW(S->tab->TT, tt_mask_of(code), 3);
        for (int64_t d = 0; d < TT_NB; d++) out[d] = G[d];
        return;
    }
    for (int64_t d = 0; d < TT_NB; d++) out[d] = TT_INF;
    for (int64_t p = 0; p < 13; p++) {
        if (tt_field(code, p)) {
            tt_suit_row(S, code - ((int64_t)1 << (3 * p)), tv, tmd, tdw);
            for (int64_t d = 0; d < TT_NB; d++)
                if (tv[d] < out[d]) out[d] = tv[d];
        }
    }
}

/* -------------------------------------------------------------------------------- four suits */
/* The fewest total of four suit rows sharing b wilds: a min-plus convolution, in place in acc;
   with every, acc[0..b] holds the total at every budget (rows never rise with the budget, so
   the total at exactly i wilds is the fewest with at most i). Rows of the tables (int16) or
   of the scratch rows (int64): one body for both. */
#define TT_DEFINE_CONV(NAME, ROW)                                                               \
    static inline int64_t NAME(const ROW *r0, const ROW *r1, const ROW *r2, const ROW *r3,     \
                               int64_t b, int64_t *acc, int every) {                           \
        int64_t tot = (int64_t)r0[0] + r1[0] + r2[0] + r3[0];                                   \
        if (b == 0) {                                                                           \
            if (every) acc[0] = tot;                                                            \
            return tot;                                                                         \
        }                                                                                       \
        if (b == 1) {                                                                           \
            int64_t gain = tt_max(tt_max((int64_t)r0[0] - r0[1], (int64_t)r1[0] - r1[1]),      \
                                  tt_max((int64_t)r2[0] - r2[1], (int64_t)r3[0] - r3[1]));     \
            int64_t one = tot - gain;                                                           \
            if (every) {                                                                        \
                acc[0] = tot;                                                                   \
                acc[1] = one;                                                                   \
            }                                                                                   \
            return one;                                                                         \
        }                                                                                       \
        const int64_t last = TT_NB - 1;                                                         \
        for (int64_t i = 0; i <= b; i++) acc[i] = r0[tt_min(i, last)];                          \
        for (int s = 0; s < 3; s++) {                                                           \
            const ROW *r = s == 0 ? r1 : (s == 1 ? r2 : r3);                                    \
            if (r[last] == r[0]) { /* wilds do not help this suit */                            \
                for (int64_t i = 0; i <= b; i++) acc[i] += r[0];                                \
                continue;                                                                       \
            }                                                                                   \
            for (int64_t i = b; i >= 0; i--) { /* in place: acc[i - d] is the previous suit's */ \
                int64_t best = acc[i] + r[0];                                                   \
                int64_t top = tt_min(i, last);                                                  \
                for (int64_t d = 1; d <= top; d++) {                                            \
                    int64_t v = acc[i - d] + r[d];                                              \
                    if (v < best) best = v;                                                     \
                }                                                                               \
                acc[i] = best;                                                                  \
            }                                                                                   \
        }                                                                                       \
        return acc[b];                                                                          \
    }
TT_DEFINE_CONV(tt_conv16, int16_t)
TT_DEFINE_CONV(tt_conv64, int64_t)

/* Lexicographic (points, costliest deadwood) convolution of four suits' rows (points v,
   costliest deadwood g) at b wilds; returns the points, and the costliest deadwood and the
   wilds per suit (alloc) of the best allocation in accmd[b] / alloc (among equals the first
   found: the fewest wilds to the later suits). tmp: 500 entries (it also holds the choices). */
#define TT_DEFINE_CONV_LEX(NAME, ROW)                                                           \
    static inline int64_t NAME(const ROW *v0, const ROW *v1, const ROW *v2, const ROW *v3,     \
                               const ROW *g0, const ROW *g1, const ROW *g2, const ROW *g3,     \
                               int64_t b, int64_t *acc, int64_t *accmd, int64_t *tmp,          \
                               int64_t *tmpmd, int64_t *alloc) {                               \
        const ROW *vs[4] = {v0, v1, v2, v3};                                                    \
        const ROW *gs[4] = {g0, g1, g2, g3};                                                    \
        if (b <= 1) { /* the same, unrolled: the wild (if any) to the last suit it improves */  \
            int64_t a0 = v0[0], md0 = g0[0], a1 = v0[b], md1 = g0[b];                           \
            int who = 0;                                                                        \
            for (int s = 1; s < 4; s++) {                                                       \
                const ROW *v = vs[s], *g = gs[s];                                               \
                if (b) {                                                                        \
                    int64_t x = a0 + v[1];                                                      \
                    int64_t xmd = tt_max(md0, g[1]);                                            \
                    a1 += v[0];                                                                 \
                    md1 = tt_max(md1, g[0]);                                                    \
                    if (tt_better(x, xmd, a1, md1)) {                                           \
                        a1 = x;                                                                 \
                        md1 = xmd;                                                              \
                        who = s;                                                                \
                    }                                                                           \
                }                                                                               \
                a0 += v[0];                                                                     \
                md0 = tt_max(md0, g[0]);                                                        \
            }                                                                                   \
            for (int s = 0; s < 4; s++) alloc[s] = 0;                                           \
            alloc[who] = b;                                                                     \
            accmd[b] = b ? md1 : md0;                                                           \
            return b ? a1 : a0;                                                                 \
        }                                                                                       \
        const int64_t last = TT_NB - 1;                                                         \
        const int64_t cw = TT_MAX_WILDS + 1;                                                    \
        int64_t *choice = tmp + cw; /* choice[s * cw + i]: the wilds given to suit s */         \
        for (int64_t i = 0; i <= b; i++) {                                                      \
            acc[i] = v0[tt_min(i, last)];                                                       \
            accmd[i] = g0[tt_min(i, last)];                                                     \
            choice[i] = i;                                                                      \
        }                                                                                       \
        for (int s = 1; s < 4; s++) {                                                           \
            const ROW *v = vs[s], *g = gs[s];                                                   \
            for (int64_t i = 0; i <= b; i++) {                                                  \
                int64_t bv = acc[i] + v[0];                                                     \
                int64_t bmd = tt_max(accmd[i], g[0]);                                           \
                int64_t bd = 0;                                                                 \
                int64_t top = tt_min(i, last);                                                  \
                for (int64_t d = 1; d <= top; d++) {                                            \
                    int64_t x = acc[i - d] + v[d];                                              \
                    int64_t md = tt_max(accmd[i - d], g[d]);                                    \
                    if (tt_better(x, md, bv, bmd)) {                                            \
                        bv = x;                                                                 \
                        bmd = md;                                                               \
                        bd = d;                                                                 \
                    }                                                                           \
                }                                                                               \
                tmp[i] = bv;                                                                    \
                tmpmd[i] = bmd;                                                                 \
                choice[s * cw + i] = bd;                                                        \
            }                                                                                   \
            for (int64_t i = 0; i <= b; i++) {                                                  \
                acc[i] = tmp[i];                                                                \
                accmd[i] = tmpmd[i];                                                            \
            }                                                                                   \
        }                                                                                       \
        int64_t i = b;                                                                          \
        for (int s = 3; s > 0; s--) {                                                           \
            alloc[s] = choice[s * cw + i];                                                      \
            i -= choice[s * cw + i];                                                            \
        }                                                                                       \
        alloc[0] = i;                                                                           \
        return acc[b];                                                                          \
    }
TT_DEFINE_CONV_LEX(tt_conv_lex16, int16_t)
TT_DEFINE_CONV_LEX(tt_conv_lex64, int64_t)

/* Fewest total of four suits sharing b wilds with one card dropped from one of them (its drop
   row g; the others' rows r). */
static inline int64_t tt_conv_drop(const int64_t **r, const int64_t **g,
                                   int64_t b, int64_t *acc, int64_t *acc1, int64_t *tmp,
                                   int64_t *tmp1) {
    const int64_t last = TT_NB - 1;
    for (int64_t i = 0; i <= b; i++) {
        acc[i] = r[0][tt_min(i, last)];
        acc1[i] = g[0][tt_min(i, last)];
    }
    for (int s = 1; s < 4; s++) {
        const int64_t *rs = r[s], *gs = g[s];
        for (int64_t i = 0; i <= b; i++) {
            int64_t best0 = acc[i] + rs[0];
            int64_t best1 = tt_min(acc1[i] + rs[0], acc[i] + gs[0]);
            int64_t top = tt_min(i, last);
            for (int64_t d = 1; d <= top; d++) {
                int64_t v0 = acc[i - d] + rs[d];
                if (v0 < best0) best0 = v0;
                int64_t v1 = tt_min(acc1[i - d] + rs[d], acc[i - d] + gs[d]);
                if (v1 < best1) best1 = v1;
            }
            tmp[i] = best0;
            tmp1[i] = best1;
        }
        for (int64_t i = 0; i <= b; i++) {
            acc[i] = tmp[i];
            acc1[i] = tmp1[i];
        }
    }
    return acc1[b];
}

/* ----------------------------------------------------------------------------- one copy each */
/* A hand holding at most one copy of each natural card (every hand of one deck) takes the
   search of tt_evaluate() over 13-bit suit masks, lean. A rank's set options depend only on
   the suits it holds (4 bits) and on whether the hand has a wild card, so they are a table:
   TT_OPT_COUNT[wild][held] options, TT_OPT_TAKE[wild][held][o] the suits option o takes (bit s
   for suit s); option 0 is "no set", then every sub-set of held big enough (3 cards or more
   with no wild, 2 or more with one) in the order tt_evaluate() tries them (suit 0's card first,
   as its loops over the count taken of each suit run), so that both find the same arrangement
   among equals (tests compare the two searches on every mode). TT_OPT_WILDS[take]: the wilds a
   set of take needs; TT_TAKE_SIZE[take]: its cards. */
static const int8_t TT_OPT_COUNT[2][16] = {
    {1, 1, 1, 1, 1, 1, 1, 2, 1, 1, 1, 2, 1, 2, 2, 6},
    {1, 1, 1, 2, 1, 2, 2, 5, 1, 2, 2, 5, 2, 5, 5, 12},
};
static const int8_t TT_OPT_TAKE[2][16][12] = {
    {{0}, {0}, {0}, {0}, {0}, {0}, {0}, {0, 7}, {0}, {0}, {0}, {0, 11}, {0}, {0, 13}, {0, 14},
     {0, 14, 13, 11, 7, 15}},
    {{0}, {0}, {0}, {0, 3}, {0}, {0, 5}, {0, 6}, {0, 6, 5, 3, 7}, {0}, {0, 9}, {0, 10},
     {0, 10, 9, 3, 11}, {0, 12}, {0, 12, 9, 5, 13}, {0, 12, 10, 6, 14},
     {0, 12, 10, 6, 14, 9, 5, 13, 3, 11, 7, 15}},
};
static const int8_t TT_OPT_WILDS[16] = {0, 2, 2, 1, 2, 1, 1, 0, 2, 1, 1, 0, 1, 0, 0, 0};
static const int8_t TT_TAKE_SIZE[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};

/* The lean search's arrays in the workspace: the places tt_evaluate() keeps the same things
   in, so no caller's data there is overwritten that tt_evaluate() would not overwrite too. */
#define TT_L_ACC (TT_W_SCRATCH + 8)          /* 96: a convolution's totals by wilds */
#define TT_L_ACCMD (TT_W_SCRATCH + 200)      /* 96: its costliest deadwood card by wilds (lex) */
#define TT_L_TMPMD (TT_W_SCRATCH + 296)      /* 96: (lex) */
#define TT_L_ALLOC (TT_W_SCRATCH + 392)      /* 4: the wilds of each suit in the best (lex) */
#define TT_L_BEST_ALLOC (TT_W_SCRATCH + 396) /* 4: the same for the best arrangement (lex) */
#define TT_L_BEST_MASK (TT_W_SCRATCH + 400)  /* 4: the suit masks left for runs in it (lex) */
#define TT_L_RANK (TT_W_SCRATCH + 404)       /* 13: the set ranks */
#define TT_L_HELD (TT_W_SCRATCH + 420)       /* 13: the suits each holds */
#define TT_L_IDX (TT_W_SCRATCH + 436)        /* 13: the option tried, by depth */
#define TT_L_BEST_IDX (TT_W_SCRATCH + 452)   /* 13: the options of the best arrangement (lex) */
#define TT_L_BOUND (TT_W_SCRATCH + 468)      /* 96: the totals of the whole suits, by wilds */
#define TT_L_FUT (TT_W_SCRATCH + 1600)       /* 14 x 16: what the set ranks from j on take */
#define TT_L_D (TT_W_SCRATCH + 580)          /* 14: wilds the sets need, by depth */
#define TT_L_S (TT_W_SCRATCH + 596)          /* 14: points of the set cards, by depth */
#define TT_L_CUR (TT_W_SCRATCH + 670)        /* 14: the suits left for runs, by depth */
#define TT_L_TMP (TT_W_SCRATCH + 3400)       /* 500: a convolution's scratch (lex) */
#define TT_L_MASK (TT_W_SCRATCH + 3904)      /* 56: the four suit masks, by depth */

/* With no natural meld: whether the wild cards leave no deadwood, melding by themselves (a set
   of the wild rank: one wild-rank card, natural there, and any others, three cards or more;
   with all_wild_melds, three jokers or more) or being none. */
static inline int tt_wilds_meld_alone(int64_t W, int64_t M, int64_t J, int64_t all_wild) {
    return W == 0 || (M >= 1 && W >= 3) || (all_wild && J >= 3);
}

/* tt_conv16 of the rows of four suit masks, in place in acc. */
static inline int64_t tt_conv_masks(const int16_t *TT, int64_t m0, int64_t m1, int64_t m2,
                                    int64_t m3, int64_t b, int64_t *acc, int every) {
    return tt_conv16(TT_ROW(TT, m0, 0), TT_ROW(TT, m1, 0), TT_ROW(TT, m2, 0), TT_ROW(TT, m3, 0),
                     b, acc, every);
}

/* tt_conv_lex16 of the suit masks ws[at..at + 3] at b wilds: the points, and the costliest
   deadwood card in *md; the wilds of each suit in ws[TT_L_ALLOC..]. */
static inline int64_t tt_conv_lex_masks(const int16_t *TT, int64_t *ws, int64_t at, int64_t b,
                                        int64_t *md) {
    int64_t m0 = ws[at], m1 = ws[at + 1], m2 = ws[at + 2], m3 = ws[at + 3];
    int64_t v = tt_conv_lex16(TT_ROW(TT, m0, 0), TT_ROW(TT, m1, 0), TT_ROW(TT, m2, 0),
                              TT_ROW(TT, m3, 0), TT_ROW(TT, m0, 1), TT_ROW(TT, m1, 1),
                              TT_ROW(TT, m2, 1), TT_ROW(TT, m3, 1), b, ws + TT_L_ACC,
                              ws + TT_L_ACCMD, ws + TT_L_TMP, ws + TT_L_TMPMD, ws + TT_L_ALLOC);
    *md = ws[TT_L_ACCMD + b];
    return v;
}

/* tt_evaluate() in mode lex 0, 1 or 2 of a hand holding at most one copy of each natural card,
   with the same results (the same arrangement among equals: the same options in the same
   order, the same bounds); -2 for any other hand (the caller runs tt_evaluate()), -3 for a
   hand of more than limit cards. */
static int64_t tt_evaluate_one(const tt_solver *S, const uint8_t *counts, int64_t limit,
                               int64_t lex) {
    const int64_t *par = S->par;
    const int16_t *TT = S->tab->TT;
    int64_t *ws = S->ws;
    const int64_t w = S->w;
    int64_t J = counts[52];
    int64_t M = (int64_t)counts[w] + counts[13 + w] + counts[26 + w] + counts[39 + w];
    int64_t cards = J, all_nat = 0, many = 0, maxpos = 0;
    for (int s = 0; s < 4; s++) { /* no branch on the cards: they are random */
        const uint8_t *suit = counts + 13 * s;
        int64_t m = 0;
        for (int64_t p = 0; p < 13; p++) {
            if (p != w) {
                int64_t k = suit[p];
                many |= k;
                m |= (int64_t)(k != 0) << p;
                all_nat += k * par[p];
            }
        }
        ws[TT_L_MASK + s] = m;
        maxpos = tt_max(maxpos, tt_popcount13(m));
        cards += tt_popcount13(m);
    }
    if (many > 1) return -2;
    cards += M;
    int64_t W = J + M;
    if (W > TT_MAX_WILDS) return -2;
    if (cards > limit) return -3;
    int64_t m0 = ws[TT_L_MASK], m1 = ws[TT_L_MASK + 1], m2 = ws[TT_L_MASK + 2],
            m3 = ws[TT_L_MASK + 3];
    int wild = W > 0 ? 1 : 0;
    /* The set ranks, lowest first: two suits or more with a wild, three or more without
       (bit-parallel over the ranks; the masks hold no wild-rank card). */
    int64_t ranks = wild ? ((m0 & m1) | (m2 & m3) | ((m0 | m1) & (m2 | m3)))
                         : ((m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1)));
    int64_t nr = 0;
    while (ranks) {
        int64_t p = tt_tz((uint64_t)ranks);
        ranks &= ranks - 1;
        ws[TT_L_RANK + nr] = p;
        ws[TT_L_HELD + nr] = ((m0 >> p) & 1) | ((m1 >> p) & 1) << 1 | ((m2 >> p) & 1) << 2
                             | ((m3 >> p) & 1) << 3;
        nr++;
    }
    int64_t best, best_md = 0;
    if (!lex) { /* with set ranks, the bound at every budget too */
        best = tt_conv_masks(TT, m0, m1, m2, m3, W, ws + TT_L_BOUND, nr > 0);
    } else {
        if (nr) tt_conv_masks(TT, m0, m1, m2, m3, W, ws + TT_L_BOUND, 1);
        best = tt_conv_lex_masks(TT, ws, TT_L_MASK, W, &best_md);
        for (int s = 0; s < 4; s++) {
            ws[TT_L_BEST_ALLOC + s] = ws[TT_L_ALLOC + s];
            ws[TT_L_BEST_MASK + s] = ws[TT_L_MASK + s];
        }
    }
    int has_set = 0;
    int64_t nsets = 0, best_D = 0;
    if (nr) {
        /* The most points the set ranks from j on can take with at most k wilds: fut[j][k]
           for k = 0..min(W, 12), by a knapsack (a pair takes a wild, three cards or more take
           none), and fut[j][15], every card of those ranks: what they take with 12 wilds or
           more (there are 12 pairs at most), and tt_evaluate()'s bound, which the
           lexicographic modes keep so as to prune as it does (see below). */
        int64_t K = tt_min(W, 12);
        for (int64_t k = 0; k <= K; k++) ws[TT_L_FUT + 16 * nr + k] = 0;
        ws[TT_L_FUT + 16 * nr + 15] = 0;
        for (int64_t j = nr - 1; j >= 0; j--) {
            int64_t size = TT_TAKE_SIZE[ws[TT_L_HELD + j]];
            int64_t q = size * par[ws[TT_L_RANK + j]];
            int64_t at = TT_L_FUT + 16 * j;
            ws[at + 15] = ws[at + 31] + q;
            if (size >= 3) {
                for (int64_t k = 0; k <= K; k++) ws[at + k] = ws[at + 16 + k] + q;
            } else {
                ws[at] = ws[at + 16];
                for (int64_t k = 1; k <= K; k++)
                    ws[at + k] = tt_max(ws[at + 16 + k], ws[at + 16 + k - 1] + q);
            }
        }
        ws[TT_L_D] = 0;
        ws[TT_L_S] = 0;
        ws[TT_L_CUR] = best; /* every suit for runs, every wild: the value with no set */
        ws[TT_L_IDX] = -1;
        int64_t j = 0, nodes = 0;
        while (j >= 0) {
            int64_t o = ws[TT_L_IDX + j] + 1;
            ws[TT_L_IDX + j] = o;
            int64_t held = ws[TT_L_HELD + j];
            if (o >= TT_OPT_COUNT[wild][held]) {
                j--;
                continue;
            }
            if (++nodes > TT_MAX_NODES) return -1;
            int64_t take = TT_OPT_TAKE[wild][held][o];
            int64_t D = ws[TT_L_D + j] + TT_OPT_WILDS[take];
            int64_t p = ws[TT_L_RANK + j];
            int64_t sp = ws[TT_L_S + j] + TT_TAKE_SIZE[take] * par[p];
            if (D > W) continue;
            int64_t here = TT_L_MASK + 4 * j;
            int64_t keep = ~((int64_t)1 << p);
            for (int s = 0; s < 4; s++) {
                int64_t m = ws[here + s];
                ws[here + 4 + s] = ((take >> s) & 1) ? (m & keep) : m;
            }
            /* cur: the suits left for runs with the wilds left (the leaf's value when no more
               sets are chosen). A leaf below keeps at least cur less the points the sets
               below can take with those wilds: it cannot win when that is not below the best.
               The lexicographic modes find the arrangement tt_evaluate() finds: they skip
               what it skips (with its bound: the whole suits less the set cards, and every
               card of the ranks below, at a bound equal to the best) and else only what holds
               no leaf even equal to the best (it would reject them all). */
            int64_t cur;
            if (take) {
                int64_t at = here + 4;
                cur = tt_conv_masks(TT, ws[at], ws[at + 1], ws[at + 2], ws[at + 3], W - D,
                                    ws + TT_L_ACC, 0);
            } else {
                cur = ws[TT_L_CUR + j];
            }
            int64_t tight = cur - ws[TT_L_FUT + 16 * (j + 1) + (W - D <= 12 ? W - D : 15)];
            if (tight > best || (tight == best && !lex)) continue;
            if (lex && ws[TT_L_BOUND + W - D] - sp - ws[TT_L_FUT + 16 * (j + 1) + 15] >= best)
                continue;
            ws[TT_L_CUR + j + 1] = cur;
            ws[TT_L_D + j + 1] = D;
            ws[TT_L_S + j + 1] = sp;
            if (j + 1 < nr) {
                j++;
                ws[TT_L_IDX + j] = -1;
                continue;
            }
            if (sp == 0) continue; /* no set at all: done above */
            int64_t leaf = here + 4;
            if (!lex) { /* cur < best: it wins */
                best = cur;
                has_set = 1;
                continue;
            }
            int64_t md;
            int64_t v = tt_conv_lex_masks(TT, ws, leaf, W - D, &md);
            if (tt_better(v, md, best, best_md)) {
                best = v;
                best_md = md;
                has_set = 1;
                best_D = D;
                nsets = 0;
                for (int64_t jj = 0; jj < nr; jj++) {
                    ws[TT_L_BEST_IDX + jj] = ws[TT_L_IDX + jj];
                    if (ws[TT_L_IDX + jj]) nsets++;
                }
                for (int s = 0; s < 4; s++) {
                    ws[TT_L_BEST_ALLOC + s] = ws[TT_L_ALLOC + s];
                    ws[TT_L_BEST_MASK + s] = ws[leaf + s];
                }
            }
        }
    }
    int meld = best < all_nat;
    int wild_dead;
    int64_t value;
    if (meld) {
        /* As in tt_evaluate(): every spare wild joins a meld, sure when a set is chosen or no
           suit holds more than top - W natural positions. */
        if (W > 0 && !has_set && maxpos > par[TT_P_TOP] - W) return -1;
        if (!lex) return best;
        value = best;
        wild_dead = 0;
    } else {
        int meld_alone = tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD]);
        value = meld_alone ? all_nat : all_nat + J * par[52] + M * par[w];
        if (!lex) return value;
        /* the costliest deadwood card: every natural card, and the wild ones if dead */
        best_md = -1;
        for (int s = 0; s < 4; s++) {
            int64_t m = ws[TT_L_MASK + s];
            while (m) {
                best_md = tt_max(best_md, par[tt_tz((uint64_t)m)]);
                m &= m - 1;
            }
        }
        wild_dead = !meld_alone;
        if (wild_dead) {
            if (J && par[52] > best_md) best_md = par[52];
            if (M && par[w] > best_md) best_md = par[w];
        }
        nsets = 0;
        best_D = 0;
    }
    ws[TT_W_MD] = best_md;
    if (lex > 1) {
        /* the plan, as tt_evaluate() leaves it: sets, the suits' runs, the deadwood */
        ws[TT_W_NSETS] = nsets;
        ws[TT_W_D] = best_D;
        int64_t n = 0;
        if (meld && has_set) {
            for (int64_t jj = 0; jj < nr; jj++) {
                int64_t o = ws[TT_L_BEST_IDX + jj];
                if (o) {
                    ws[TT_W_SETS + 2 * n] = ws[TT_L_RANK + jj];
                    ws[TT_W_SETS + 2 * n + 1] =
                        TT_FIELD_CODE[TT_OPT_TAKE[wild][ws[TT_L_HELD + jj]][o]];
                    n++;
                }
            }
        }
        ws[TT_W_ALLNAT] = all_nat;
        ws[TT_W_CARDS] = cards;
        int64_t ndead = 0;
        for (int s = 0; s < 4; s++) {
            int64_t m, d, left;
            if (meld) {
                m = ws[TT_L_BEST_MASK + s];
                d = ws[TT_L_BEST_ALLOC + s];
                left = TT_ROW(TT, m, 2)[tt_min(d, TT_NB - 1)];
            } else {
                m = ws[TT_L_MASK + s];
                d = 0;
                left = m;
            }
            ws[TT_W_SUITS + 2 * s] = tt_code_of(m);
            ws[TT_W_SUITS + 2 * s + 1] = d;
            ws[TT_W_DEADCODE + s] = tt_code_of(left);
            ndead += tt_popcount13(left);
            for (int64_t p = 0; p < 13; p++) ws[TT_W_DEAD + 13 * s + p] = (left >> p) & 1;
        }
        ws[TT_W_NDEAD] = ndead;
        ws[TT_W_DEAD + 52] = 0;
        if (wild_dead) {
            ws[TT_W_DEAD + 52] = J;
            for (int s = 0; s < 4; s++) ws[TT_W_DEAD + 13 * s + w] = counts[13 * s + w];
        }
    }
    return value;
}

/* ---------------------------------------------------------------------------------- the hand */
/* Fewest penalty of the hand (53 counts) with no cap on wilds per meld; -1 when this method
   cannot certify it (the caller then runs the exact search in Python), -3 for more than
   TT_MAX_CARDS cards.

   lex 0: points only. 1: also the costliest deadwood card of the best arrangements
   (ws[TT_W_MD]). 2: also that arrangement: its deadwood (ws[TT_W_DEAD..], 53 counts), its sets
   and the suits' codes and budgets left for runs (ws[TT_W_SETS..], ws[TT_W_SUITS..]). 3 (drop):
   the fewest penalty of the hand less one natural card, the best one to drop (TT_INF when it
   holds none): an arrangement of the hand less k is one of the hand with k left out, so the
   suits' drop rows (tt_drop_row) replace one suit's row. Modes 0 to 2 of a hand with one copy
   of each natural card take tt_evaluate_one() (unless TT_GENERAL is added to the mode). */
static int64_t tt_evaluate(const tt_solver *S, const uint8_t *counts, int64_t lex) {
    const int64_t *par = S->par;
    const int16_t *TT = S->tab->TT;
    int64_t *ws = S->ws, *wr = S->wr;
    const int64_t w = S->w;
    if (lex & TT_GENERAL) {
        lex &= ~(int64_t)TT_GENERAL;
    } else if (lex < 3) {
        int64_t value = tt_evaluate_one(S, counts, TT_MAX_CARDS, lex);
        if (value != -2) return value;
    }
    int64_t J = counts[52];
    int64_t M = (int64_t)counts[w] + counts[13 + w] + counts[26 + w] + counts[39 + w];
    int64_t W = J + M;
    if (W > TT_MAX_WILDS) return -1;
    int64_t top = par[TT_P_TOP];
    int64_t *sc = ws + TT_W_SCRATCH;
    int64_t *codes = sc + 0, *masks = sc + 4;
    int64_t all_nat = 0, nat_md = -1, maxpos = 0, cards = W;
    int multi = 0;
    for (int s = 0; s < 4; s++) {
        int64_t c = 0, m = 0, npos = 0;
        const uint8_t *suit = counts + 13 * s;
        for (int64_t p = 0; p < 13; p++) {
            int64_t k = suit[p];
            if (k && p != w) {
                if (k > 7) return -1;
                c |= k << (3 * p);
                m |= (int64_t)1 << p;
                all_nat += k * par[p];
                cards += k;
                if (par[p] > nat_md) nat_md = par[p];
                npos++;
            }
        }
        if (c & TT_HI_FIELDS) {
            multi = 1;
            if (top == 14 && w != 0 && suit[0] >= 2) npos++;
        }
        codes[s] = c;
        masks[s] = m;
        if (npos > maxpos) maxpos = npos;
    }
    if (cards > TT_MAX_CARDS) return -3; /* refused (the Python side says why) */
    /* wr[0..3]: V (points), MDr (costliest deadwood), DWr (deadwood), Gr (drop rows), each 8
       rows: 0..3 the suits as they are, 4..7 at a leaf of the search. */
    const int64_t *Vc[8], *Gc[8];
    int64_t *V[8], *MDr[8], *DWr[8], *Gr[8];
    for (int r = 0; r < 8; r++) {
        Vc[r] = V[r] = TT_WR(wr, 0, r);
        MDr[r] = TT_WR(wr, 1, r);
        DWr[r] = TT_WR(wr, 2, r);
        Gc[r] = Gr[r] = TT_WR(wr, 3, r);
    }
    int drop = lex == 3;
    for (int s = 0; s < 4; s++) {
        if (multi) {
            tt_suit_row(S, codes[s], V[s], MDr[s], DWr[s]);
            if (drop) tt_drop_row(S, codes[s], Gr[s], MDr[4], DWr[4], DWr[5]);
        } else if (lex) {
            int64_t m = masks[s];
            for (int64_t d = 0; d < TT_NB; d++) {
                V[s][d] = TT_ROW(TT, m, 0)[d];
                MDr[s][d] = TT_ROW(TT, m, 1)[d];
                Gr[s][d] = TT_ROW(TT, m, 3)[d];
            }
        }
    }
    int64_t *acc = sc + 8, *tmp = sc + 3400; /* tmp also holds tt_conv_lex's choices */
    int64_t *accmd = sc + 200, *tmpmd = sc + 296, *alloc = sc + 392;
    int64_t *best_alloc = sc + 396, *best_codes = sc + 400;
    int64_t best, best_md = 0;
    if (drop) {
        best = tt_conv_drop(Vc, Gc, W, acc, accmd, tmp, tmpmd);
    } else if (lex) {
        best = tt_conv_lex64(V[0], V[1], V[2], V[3], MDr[0], MDr[1], MDr[2], MDr[3], W, acc, accmd,
                             tmp, tmpmd, alloc);
        best_md = accmd[W];
        for (int s = 0; s < 4; s++) {
            best_alloc[s] = alloc[s];
            best_codes[s] = codes[s];
        }
    } else if (multi) {
        best = tt_conv64(V[0], V[1], V[2], V[3], W, acc, 0);
    } else {
        best = tt_conv_masks(TT, masks[0], masks[1], masks[2], masks[3], W, acc, 0);
    }
    int64_t best_D = 0, nsets = 0;
    /* Ranks that can hold a set: 2 natural cards or more (3 or more with no wilds). */
    int64_t minsize = W > 0 ? 2 : 3;
    int64_t *ranks = sc + 404, *nopt = sc + 420, *idx = sc + 436, *best_idx = sc + 452;
    int64_t *bound = sc + 468, *futmax = sc + 564, *stD = sc + 580, *stS = sc + 596;
    int64_t *stC = sc + 612;  /* stC[4 * j + s]: suit s's code at depth j */
    int64_t *stM = sc + 3904; /* the same as a 13-bit mask (one copy per card) */
    int64_t *optD = sc + 700; /* optD[TT_MAX_OPTIONS * j + o]: option o of rank j */
    int64_t *optS = sc + 1600;
    int64_t *optT = sc + 2500;
    int64_t nr = 0;
    for (int64_t p = 0; p < 13; p++) {
        if (p == w) continue;
        int64_t c0 = tt_field(codes[0], p), c1 = tt_field(codes[1], p), c2 = tt_field(codes[2], p),
                c3 = tt_field(codes[3], p);
        if (c0 + c1 + c2 + c3 < minsize) continue;
        if ((c0 + 1) * (c1 + 1) * (c2 + 1) * (c3 + 1) > TT_MAX_OPTIONS) return -1;
        int64_t k = 1;
        int64_t *oD = optD + TT_MAX_OPTIONS * nr, *oS = optS + TT_MAX_OPTIONS * nr,
                *oT = optT + TT_MAX_OPTIONS * nr;
        oD[0] = 0;
        oS[0] = 0;
        oT[0] = 0;
        for (int64_t t0 = 0; t0 <= c0; t0++)
            for (int64_t t1 = 0; t1 <= c1; t1++)
                for (int64_t t2 = 0; t2 <= c2; t2++)
                    for (int64_t t3 = 0; t3 <= c3; t3++) {
                        int64_t size = t0 + t1 + t2 + t3;
                        if (size < minsize || (size < 3 && 3 - size > W)) continue;
                        oD[k] = size < 3 ? 3 - size : 0;
                        oS[k] = size * par[p];
                        oT[k] = t0 | (t1 << 3) | (t2 << 6) | (t3 << 9);
                        k++;
                    }
        ranks[nr] = p;
        nopt[nr] = k;
        nr++;
    }
    int best_has_set = 0;
    if (nr) {
        /* the bound: the suits as they are, at every budget (one convolution) */
        if (drop) {
            for (int64_t b = 0; b <= W; b++) bound[b] = tt_conv_drop(Vc, Gc, b, acc, accmd, tmp, tmpmd);
        } else if (multi || lex) {
            tt_conv64(V[0], V[1], V[2], V[3], W, bound, 1);
        } else {
            tt_conv_masks(TT, masks[0], masks[1], masks[2], masks[3], W, bound, 1);
        }
        futmax[nr] = 0;
        for (int64_t j = nr - 1; j >= 0; j--) {
            int64_t mx = 0;
            for (int64_t o = 0; o < nopt[j]; o++) mx = tt_max(mx, optS[TT_MAX_OPTIONS * j + o]);
            futmax[j] = futmax[j + 1] + mx;
        }
        /* Depth-first over the set ranks, one option each ("no set" first); level j holds the
           wilds needed, the points of the set cards and the suits left after ranks < j. The
           lexicographic modes also skip a bound equal to the best (points only keep it):
           among arrangements of equal points the costliest deadwood card is then the best of
           those met, not always of all. Harmless (every use of it stays exact), and the
           arrangement solve() lays down depends on it, so it stays (the lean search prunes
           alike, see tt_evaluate_one). */
        int64_t slack = (lex && !drop) ? 1 : 0;
        stD[0] = 0;
        stS[0] = 0;
        for (int s = 0; s < 4; s++) {
            stC[s] = codes[s];
            stM[s] = masks[s];
        }
        idx[0] = -1;
        int64_t j = 0, nodes = 0;
        while (j >= 0) {
            idx[j] += 1;
            int64_t o = idx[j];
            if (o >= nopt[j]) {
                j--;
                continue;
            }
            if (++nodes > TT_MAX_NODES) return -1;
            int64_t D = stD[j] + optD[TT_MAX_OPTIONS * j + o];
            int64_t sp = stS[j] + optS[TT_MAX_OPTIONS * j + o];
            if (D > W || bound[W - D] - sp - futmax[j + 1] + slack > best) continue;
            int64_t t = optT[TT_MAX_OPTIONS * j + o];
            int64_t p = ranks[j];
            for (int s = 0; s < 4; s++) {
                int64_t ts = (t >> (3 * s)) & 7;
                stC[4 * (j + 1) + s] = stC[4 * j + s] - (ts << (3 * p));
                stM[4 * (j + 1) + s] = ts ? (stM[4 * j + s] & ~((int64_t)1 << p)) : stM[4 * j + s];
            }
            stD[j + 1] = D;
            stS[j + 1] = sp;
            if (j + 1 < nr) {
                j++;
                idx[j] = -1;
                continue;
            }
            if (sp == 0 || bound[W - D] - sp + slack > best) continue; /* no set, or hopeless */
            int64_t *leafC = stC + 4 * nr, *leafM = stM + 4 * nr;
            if (!lex && !multi) {
                int64_t v = tt_conv_masks(TT, leafM[0], leafM[1], leafM[2], leafM[3], W - D, acc, 0);
                if (v < best) {
                    best = v;
                    best_has_set = 1;
                }
                continue;
            }
            for (int s = 0; s < 4; s++) {
                if (leafC[s] == codes[s]) {
                    for (int64_t d = 0; d < TT_NB; d++) {
                        V[4 + s][d] = V[s][d];
                        MDr[4 + s][d] = MDr[s][d];
                        Gr[4 + s][d] = Gr[s][d];
                    }
                } else if (multi) {
                    tt_suit_row(S, leafC[s], V[4 + s], MDr[4 + s], DWr[4 + s]);
                    if (drop) tt_drop_row(S, leafC[s], Gr[4 + s], MDr[0], DWr[0], DWr[1]);
                } else {
                    int64_t m = leafM[s];
                    for (int64_t d = 0; d < TT_NB; d++) {
                        V[4 + s][d] = TT_ROW(TT, m, 0)[d];
                        MDr[4 + s][d] = TT_ROW(TT, m, 1)[d];
                        Gr[4 + s][d] = TT_ROW(TT, m, 3)[d];
                    }
                }
            }
            int64_t v, md = 0;
            int win;
            if (drop) {
                v = tt_conv_drop(Vc + 4, Gc + 4, W - D, acc, accmd, tmp, tmpmd);
                win = v < best;
            } else if (lex) {
                v = tt_conv_lex64(V[4], V[5], V[6], V[7], MDr[4], MDr[5], MDr[6], MDr[7], W - D, acc,
                                  accmd, tmp, tmpmd, alloc);
                md = accmd[W - D];
                win = tt_better(v, md, best, best_md);
            } else {
                v = tt_conv64(V[4], V[5], V[6], V[7], W - D, acc, 0);
                win = v < best;
            }
            if (win) {
                best = v;
                best_md = md;
                best_has_set = 1;
                best_D = D;
                nsets = 0;
                for (int64_t jj = 0; jj < nr; jj++) {
                    best_idx[jj] = idx[jj];
                    if (idx[jj]) nsets++;
                }
                for (int s = 0; s < 4; s++) {
                    best_alloc[s] = alloc[s];
                    best_codes[s] = leafC[s];
                }
            }
        }
    }
    if (drop) {
        /* One natural card dropped: an arrangement with a meld and a card to drop leaves less
           than all the natural cards less the costliest (what no meld leaves). */
        if (nat_md < 0) return TT_INF;
        if (best < all_nat - nat_md) {
            if (W > 0 && !best_has_set && maxpos > top - W) return -1;
            return best;
        }
        if (tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD])) return all_nat - nat_md;
        return all_nat - nat_md + J * par[52] + M * par[w];
    }
    int meld = best < all_nat;
    int wild_dead = 0;
    int64_t value;
    if (meld) {
        /* Some meld of natural cards exists; with no cap every spare wild joins one, provided
           a set is chosen or a run has room: sure when no suit holds more than top - W
           natural positions (a run of n naturals needs <= D gap wilds, has top - n - D room). */
        if (W > 0 && !best_has_set && maxpos > top - W) return -1;
        value = best;
    } else {
        /* No natural meld: the wilds alone (a set of the wild rank; jokers with all_wild). */
        value = all_nat;
        best_md = nat_md;
        nsets = 0;
        best_D = 0;
        wild_dead = !tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD]);
        if (wild_dead) {
            value += J * par[52] + M * par[w];
            if (J && par[52] > best_md) best_md = par[52];
            if (M && par[w] > best_md) best_md = par[w];
        }
    }
    ws[TT_W_MD] = best_md;
    if (lex > 1) {
        ws[TT_W_NSETS] = nsets;
        ws[TT_W_D] = best_D;
        int64_t n = 0;
        if (meld && best_has_set) {
            for (int64_t jj = 0; jj < nr; jj++) {
                if (best_idx[jj]) {
                    ws[TT_W_SETS + 2 * n] = ranks[jj];
                    ws[TT_W_SETS + 2 * n + 1] = optT[TT_MAX_OPTIONS * jj + best_idx[jj]];
                    n++;
                }
            }
        }
        int64_t *dead = ws + TT_W_DEAD;
        for (int k = 0; k < 53; k++) dead[k] = 0;
        ws[TT_W_ALLNAT] = all_nat;
        ws[TT_W_CARDS] = cards;
        int64_t ndead = 0;
        for (int s = 0; s < 4; s++) {
            int64_t code, d, left;
            if (meld) {
                code = best_codes[s];
                d = best_alloc[s];
                tt_suit_row(S, code, V[4 + s], MDr[4 + s], DWr[4 + s]);
                left = DWr[4 + s][tt_min(d, TT_NB - 1)];
            } else {
                code = codes[s];
                d = 0;
                left = code;
            }
            ws[TT_W_SUITS + 2 * s] = code;
            ws[TT_W_SUITS + 2 * s + 1] = d;
            ws[TT_W_DEADCODE + s] = left;
            for (int64_t p = 0; p < 13; p++) {
                dead[s * 13 + p] = tt_field(left, p);
                ndead += dead[s * 13 + p];
            }
        }
        ws[TT_W_NDEAD] = ndead;
        if (wild_dead) {
            dead[52] = J;
            for (int s = 0; s < 4; s++) dead[s * 13 + w] = counts[s * 13 + w];
        }
    }
    return value;
}

/* ----------------------------------------------------------------------------- more than one */
/* out[k]: the fewest penalty of the hand without one card of kind k, for every kind held (-2
   for kinds not held, -1 where the kernel cannot certify it). A card that is deadwood in a best
   arrangement needs no search: dropping it saves exactly its penalty (no arrangement without
   it does better, since adding it back as deadwood costs only that). Returns the hand's own
   value (or < 0); ws[TT_W_UNSURE]: how many entries are -1. */
static int64_t tt_discard_values(const tt_solver *S, const uint8_t *counts, int64_t *out) {
    int64_t *ws = S->ws;
    int64_t value = tt_evaluate(S, counts, 2);
    for (int k = 0; k < 53; k++) out[k] = -2;
    ws[TT_W_UNSURE] = 0;
    if (value < 0) {
        for (int k = 0; k < 53; k++) {
            if (counts[k]) {
                out[k] = -1;
                ws[TT_W_UNSURE] += 1;
            }
        }
        return value;
    }
    int64_t *less = ws + TT_W_SCRATCH + 7000;
    for (int k = 0; k < 53; k++) less[k] = ws[TT_W_DEAD + k]; /* before tt_evaluate() below */
    uint8_t hand[53];
    memcpy(hand, counts, 53);
    for (int k = 0; k < 53; k++) {
        if (!counts[k]) continue;
        if (less[k]) {
            out[k] = value - S->par[k];
        } else {
            hand[k] -= 1;
            out[k] = tt_evaluate(S, hand, 0);
            hand[k] += 1;
            if (out[k] < 0) ws[TT_W_UNSURE] += 1;
        }
    }
    return value;
}

/* (points, costliest deadwood) of one suit's row at budget d: read from the table when the
   suit holds one copy of each card, else through the memo (cv, cmd, cdw: scratch rows). */
static inline int64_t tt_row_at(const tt_solver *S, int64_t code, int64_t d, int64_t *cv,
                                int64_t *cmd, int64_t *cdw, int64_t *md) {
    if ((code & TT_HI_FIELDS) == 0) {
        int64_t m = tt_mask_of(code);
        *md = TT_ROW(S->tab->TT, m, 1)[d];
        return TT_ROW(S->tab->TT, m, 0)[d];
    }
    tt_suit_row(S, code, cv, cmd, cdw);
    *md = cmd[d];
    return cv[d];
}

/* Record a run of the walk: its lowest card at index i (head h, as tt_run_span), sub the bits
   above it, lo wilds needed, n naturals. */
static inline int64_t tt_found_run(int64_t *out, int64_t at, int64_t nruns, int64_t i, int64_t h,
                                   int64_t sub, int64_t lo, int64_t n) {
    int64_t places = sub << (i + 1);
    if (h == 0)
        places |= (int64_t)1 << i;
    else if (h == 1)
        places |= (int64_t)1 << 13;
    else
        places |= 1 | ((int64_t)1 << 13);
    out[at + 3 * nruns] = places;
    out[at + 3 * nruns + 1] = lo;
    out[at + 3 * nruns + 2] = n;
    return nruns + 1;
}

/* tt_suit_runs() of a suit holding one copy of each card (13-bit m): the same walk over the
   mask, read from the tables (every hand of one deck takes it). The table's deadwood DW tells
   which cards the walk finds to be deadwood (the table kept the first best option in the
   walk's order, and its deadwood with it), so a run is looked for among the other cards
   only. */
static int64_t tt_suit_runs_one(const tt_solver *S, int64_t m, int64_t d, int64_t *out,
                                int64_t at) {
    const int16_t *TT = S->tab->TT;
    int64_t top = S->par[TT_P_TOP];
    int64_t dead = TT_ROW(TT, m, 2)[d]; /* also the deadwood of what is left after each run */
    int64_t nruns = 0;
    while (m) {
        int64_t i = tt_tz((uint64_t)m);
        int64_t rest = m & (m - 1);
        if ((dead >> i) & 1) {
            m = rest; /* the lowest card is deadwood */
            continue;
        }
        int64_t tv = TT_ROW(TT, m, 0)[d], tmd = TT_ROW(TT, m, 1)[d];
        int64_t above = (rest & ~dead) >> (i + 1);
        int found = 0;
        int64_t heads = (i == 0 && top == 14) ? 2 : 1;
        for (int64_t h = 0; h < heads && !found; h++) {
            int64_t sub = above;
            for (;;) {
                int64_t low, high, n;
                tt_run_span(i, h, sub, &low, &high, &n);
                int64_t span = high - low + 1;
                int64_t lo = tt_max(3, span) - n;
                if (span <= top && lo <= d) {
                    int64_t nxt = rest & ~(sub << (i + 1));
                    if (TT_ROW(TT, nxt, 0)[d - lo] == tv && TT_ROW(TT, nxt, 1)[d - lo] == tmd) {
                        nruns = tt_found_run(out, at, nruns, i, h, sub, lo, n);
                        m = nxt;
                        d -= lo;
                        found = 1;
                        break;
                    }
                }
                if (sub == 0) break;
                sub = (sub - 1) & above;
            }
        }
        if (!found) return -1; /* unreachable: the row was computed by these very options */
    }
    return nruns;
}

/* The runs of one suit's best arrangement at budget d (as tt_evaluate() chose it):
   out[at + 3r .. at + 3r + 2] = (natural positions as bits 0..13 for positions 1..14, wilds
   needed, naturals); returns the number of runs (wr[3]: scratch rows). */
static int64_t tt_suit_runs(const tt_solver *S, int64_t code, int64_t d, int64_t *out,
                            int64_t at) {
    d = tt_min(d, TT_NB - 1);
    if ((code & TT_HI_FIELDS) == 0) return tt_suit_runs_one(S, tt_mask_of(code), d, out, at);
    const int64_t *par = S->par;
    int64_t top = par[TT_P_TOP];
    int64_t *cv = TT_WR(S->wr, 3, 0), *cmd = TT_WR(S->wr, 3, 1), *cdw = TT_WR(S->wr, 3, 2);
    int64_t nruns = 0;
    while (code) {
        int64_t tmd, rmd;
        int64_t tv = tt_row_at(S, code, d, cv, cmd, cdw, &tmd);
        int64_t i = 0;
        while (!tt_field(code, i)) i++;
        int64_t c0 = tt_field(code, i);
        int64_t rest = code - ((int64_t)1 << (3 * i));
        int64_t rv = tt_row_at(S, rest, d, cv, cmd, cdw, &rmd);
        if (par[i] + rv == tv && tt_max(par[i], rmd) == tmd) {
            code = rest; /* the lowest card is deadwood */
            continue;
        }
        int64_t above = 0;
        for (int64_t p = i + 1; p < 13; p++)
            if (tt_field(rest, p)) above |= (int64_t)1 << (p - i - 1);
        int64_t nheads = 1;
        if (i == 0 && top == 14) nheads = c0 >= 2 ? 3 : 2;
        int found = 0;
        for (int64_t h = 0; h < nheads && !found; h++) {
            int64_t sub = above;
            for (;;) {
                int64_t low, high, n;
                tt_run_span(i, h, sub, &low, &high, &n);
                int64_t span = high - low + 1;
                int64_t lo = tt_max(3, span) - n;
                if (span <= top && lo <= d) {
                    int64_t nxt = rest - (h == 2 ? 1 : 0);
                    int64_t x = sub;
                    while (x) {
                        nxt -= (int64_t)1 << (3 * (tt_tz((uint64_t)x) + i + 1));
                        x &= x - 1;
                    }
                    int64_t nmd;
                    int64_t nv = tt_row_at(S, nxt, d - lo, cv, cmd, cdw, &nmd);
                    if (nv == tv && nmd == tmd) {
                        nruns = tt_found_run(out, at, nruns, i, h, sub, lo, n);
                        code = nxt;
                        d -= lo;
                        found = 1;
                        break;
                    }
                }
                if (sub == 0) break;
                sub = (sub - 1) & above;
            }
        }
        if (!found) return -1; /* unreachable: the row was computed by these very options */
    }
    return nruns;
}

/* Whether the natural card kind x can be in any meld of the hand b + x (53 counts; W wild
   cards in b). If not, x is deadwood in every arrangement of b + x.

   A set holding x needs two more cards of its rank, naturals or wilds; a run holding x and at
   most one wild has another natural of its suit within two places, and one with no wild three
   consecutive naturals; two wilds meld any card. */
static int tt_can_meld(int64_t x, const uint8_t *b, int64_t w, int64_t top, int64_t W) {
    if (W >= 2) return 1;
    int64_t s = x / 13, p = x % 13, n = 0;
    for (int t = 0; t < 4; t++)
        if (p != w) n += b[t * 13 + p];
    if (n + W >= 2) return 1;
    /* suited naturals at positions 1..14 (an ace also at 14 with aces high) */
    int64_t near = 0;
    for (int64_t q = 0; q < 13; q++) {
        if (q != w && b[s * 13 + q]) {
            near |= (int64_t)1 << (q + 1);
            if (q == 0 && top == 14) near |= (int64_t)1 << 14;
        }
    }
    int64_t places = (int64_t)1 << (p + 1);
    if (p == 0 && top == 14) places |= (int64_t)1 << 14;
    for (int64_t pos = 1; pos < 15; pos++) {
        if (!((places >> pos) & 1)) continue;
        if (W == 1) {
            static const int64_t steps[4] = {-2, -1, 1, 2};
            for (int i = 0; i < 4; i++) {
                int64_t q = pos + steps[i];
                if (1 <= q && q <= top && ((near >> q) & 1)) return 1;
            }
        } else {
            for (int64_t lowp = pos - 2; lowp <= pos; lowp++) {
                if (lowp < 1 || lowp + 2 > top) continue;
                int ok = 1;
                for (int64_t q = lowp; q < lowp + 3; q++)
                    if (q != pos && !((near >> q) & 1)) ok = 0;
                if (ok) return 1;
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------ every draw at once */
#define TT_WB (TT_MAX_WILDS + 1) /* a row by budget 0..TT_MAX_WILDS */

/* out[i] for i = 0..B: the fewest total of the rows r[4][NB] but skip sharing i wilds (with
   drop, out1[i]: the same with one card dropped from one of them, its drop row g). */
static void tt_vec3(const int64_t (*r)[TT_NB], const int64_t (*g)[TT_NB], int drop, int skip,
                    int64_t B, int64_t *out, int64_t *out1, int64_t *tmp, int64_t *tmp1) {
    const int64_t last = TT_NB - 1;
    int first = 1;
    for (int s = 0; s < 4; s++) {
        if (s == skip) continue;
        if (first) {
            for (int64_t i = 0; i <= B; i++) {
                out[i] = r[s][tt_min(i, last)];
                if (drop) out1[i] = g[s][tt_min(i, last)];
            }
            first = 0;
            continue;
        }
        for (int64_t i = 0; i <= B; i++) {
            int64_t b0 = out[i] + r[s][0];
            int64_t b1 = drop ? tt_min(out1[i] + r[s][0], out[i] + g[s][0]) : 0;
            int64_t top = tt_min(i, last);
            for (int64_t d = 1; d <= top; d++) {
                int64_t v0 = out[i - d] + r[s][d];
                if (v0 < b0) b0 = v0;
                if (drop) {
                    int64_t v1 = tt_min(out1[i - d] + r[s][d], out[i - d] + g[s][d]);
                    if (v1 < b1) b1 = v1;
                }
            }
            tmp[i] = b0;
            if (drop) tmp1[i] = b1;
        }
        for (int64_t i = 0; i <= B; i++) {
            out[i] = tmp[i];
            if (drop) out1[i] = tmp1[i];
        }
    }
}

/* The rows (and drop rows) of the four suits lc (codes) into rT, rG. */
static void tt_leaf_rows(const tt_solver *S, const int64_t *lc, int multi, int64_t (*rT)[TT_NB],
                         int64_t (*rG)[TT_NB], int dropping, int64_t *sv, int64_t *smd,
                         int64_t *sdw) {
    for (int s = 0; s < 4; s++) {
        int64_t code = lc[s];
        if (multi && (code & TT_HI_FIELDS)) {
            tt_suit_row(S, code, rT[s], smd, sdw);
            if (dropping) tt_drop_row(S, code, rG[s], sv, smd, sdw);
        } else {
            int64_t m = tt_mask_of(code);
            for (int64_t d = 0; d < TT_NB; d++) {
                rT[s][d] = TT_ROW(S->tab->TT, m, 0)[d];
                rG[s][d] = TT_ROW(S->tab->TT, m, 3)[d];
            }
        }
    }
}

/* For each natural kind x = xs[i] (i < nx): res[x], the fewest penalty of base + x (dropping
   0) or of base + x less its best natural card to drop (1: tt_evaluate() mode 3), all in one
   pass over base's set choices. Returns 0, or -1 when the caller must value the draws one by
   one (too many set choices); an entry -1 marks a value this method cannot certify.

   Part A: x stands in its suit's row. Each choice of sets of base (a leaf) is combined with
   every x: the other three suits' rows are convolved once per leaf and suit, so x costs one
   pass over the budgets. Part B: x in a set of its rank with cards of base: the same leaves
   with that rank's options replaced by x's sets, whatever x's suit. */
static int64_t tt_draws_at_once(const tt_solver *S, const uint8_t *base, const int64_t *xs,
                                int64_t nx, int dropping, int64_t *res) {
    const int64_t *par = S->par;
    const int16_t *TT = S->tab->TT;
    const int64_t w = S->w;
    int64_t J = base[52];
    int64_t M = (int64_t)base[w] + base[13 + w] + base[26 + w] + base[39 + w];
    int64_t W = J + M;
    if (W > TT_MAX_WILDS) return -1;
    int64_t top = par[TT_P_TOP];
    int64_t codes[4] = {0}, npos[4] = {0};
    int64_t all_nat = 0, nat_md = -1;
    int multi = 0;
    for (int s = 0; s < 4; s++) {
        int64_t c = 0;
        for (int64_t p = 0; p < 13; p++) {
            int64_t k = base[s * 13 + p];
            if (k && p != w) {
                if (k > 6) return -1;
                c |= k << (3 * p);
                all_nat += k * par[p];
                nat_md = tt_max(nat_md, par[p]);
                npos[s] += 1;
            }
        }
        codes[s] = c;
    }
    for (int64_t i = 0; i < nx; i++) /* x may make a second copy */
        if (tt_field(codes[xs[i] / 13], xs[i] % 13)) multi = 1;
    for (int s = 0; s < 4; s++)
        if (codes[s] & TT_HI_FIELDS) multi = 1;
    /* Set options of base (as tt_evaluate), and of base + x at x's rank (x in the set). */
    int64_t minsize = W > 0 ? 2 : 3;
    int64_t ranks[13], rank_of[13];
    int64_t nr = 0;
    for (int p = 0; p < 13; p++) rank_of[p] = -1;
    for (int64_t p = 0; p < 13; p++) {
        if (p == w) continue;
        int64_t c0 = tt_field(codes[0], p), c1 = tt_field(codes[1], p), c2 = tt_field(codes[2], p),
                c3 = tt_field(codes[3], p);
        if (c0 + c1 + c2 + c3 == 0) continue;
        if ((c0 + 1) * (c1 + 1) * (c2 + 1) * (c3 + 1) > TT_MAX_OPTIONS) return -1;
        ranks[nr] = p;
        rank_of[p] = nr;
        nr++;
    }
    /* optD/optT: the options of base at each rank ("no set" first); optDB/optTB: with x added
       (size + 1) */
    int64_t optD[13][TT_MAX_OPTIONS], optT[13][TT_MAX_OPTIONS];
    int64_t optDB[13][TT_MAX_OPTIONS], optTB[13][TT_MAX_OPTIONS];
    int64_t nA[13] = {0}, nB[13] = {0};
    for (int64_t j = 0; j < nr; j++) {
        int64_t p = ranks[j];
        int64_t c0 = tt_field(codes[0], p), c1 = tt_field(codes[1], p), c2 = tt_field(codes[2], p),
                c3 = tt_field(codes[3], p);
        optD[j][0] = 0;
        optT[j][0] = 0;
        int64_t ka = 1, kb = 0;
        for (int64_t t0 = 0; t0 <= c0; t0++)
            for (int64_t t1 = 0; t1 <= c1; t1++)
                for (int64_t t2 = 0; t2 <= c2; t2++)
                    for (int64_t t3 = 0; t3 <= c3; t3++) {
                        int64_t size = t0 + t1 + t2 + t3;
                        int64_t t = t0 | (t1 << 3) | (t2 << 6) | (t3 << 9);
                        if (size >= minsize && !(size < 3 && 3 - size > W)) {
                            optD[j][ka] = size < 3 ? 3 - size : 0;
                            optT[j][ka] = t;
                            ka++;
                        }
                        int64_t sb = size + 1;
                        if (size >= 1 && sb >= minsize && !(sb < 3 && 3 - sb > W)) {
                            optDB[j][kb] = sb < 3 ? 3 - sb : 0;
                            optTB[j][kb] = t;
                            kb++;
                        }
                    }
        nA[j] = ka;
        nB[j] = kb;
    }
    /* Leaves: every choice of base's options (Part A), then per rank with x-sets (Part B). */
    int64_t best[53];
    uint8_t hasset[53] = {0};
    for (int k = 0; k < 53; k++) best[k] = (int64_t)1 << 40;
    int64_t rT[4][TT_NB], rG[4][TT_NB], xT[TT_NB], xG[TT_NB], sv[TT_NB], smd[TT_NB], sdw[TT_NB];
    int64_t P[4][TT_WB], Q[4][TT_WB], t1[TT_WB], t2[TT_WB];
    int64_t lc[4], idx[14] = {0};
    uint8_t need_b[13] = {0};
    for (int64_t i = 0; i < nx; i++) {
        int64_t j = rank_of[xs[i] % 13];
        if (j >= 0 && nB[j] > 0) need_b[j] = 1;
    }
    int64_t leaves = 0;
    for (int64_t part = 0; part < 1 + nr; part++) {
        int64_t jb = part - 1; /* Part B for the rank index jb (Part A: -1) */
        if (jb >= 0 && !need_b[jb]) continue;
        for (int64_t j = 0; j < nr; j++) idx[j] = 0;
        for (;;) {
            /* the leaf idx: options per rank (rank jb from the x-set options) */
            int64_t D = 0;
            int has = 0;
            for (int s = 0; s < 4; s++) lc[s] = codes[s];
            for (int64_t j = 0; j < nr; j++) {
                int64_t o = idx[j], t;
                if (j == jb) {
                    D += optDB[j][o];
                    t = optTB[j][o];
                    has = 1;
                } else if (o) {
                    D += optD[j][o];
                    t = optT[j][o];
                    has = 1;
                } else {
                    continue;
                }
                int64_t p = ranks[j];
                for (int s = 0; s < 4; s++) lc[s] -= ((t >> (3 * s)) & 7) << (3 * p);
            }
            if (D <= W) {
                if (++leaves > 4096) return -1;
                int64_t B = W - D;
                tt_leaf_rows(S, lc, multi, rT, rG, dropping, sv, smd, sdw);
                if (jb >= 0) {
                    /* x in the set: the rows are base's less the set's cards, whatever x is */
                    tt_vec3((const int64_t(*)[TT_NB])rT, (const int64_t(*)[TT_NB])rG, dropping,
                            -1, B, P[0], Q[0], t1, t2);
                    int64_t v = dropping ? Q[0][B] : P[0][B];
                    for (int64_t i = 0; i < nx; i++) {
                        int64_t x = xs[i];
                        if (rank_of[x % 13] == jb && v < best[x]) {
                            best[x] = v;
                            hasset[x] = 1;
                        }
                    }
                } else {
                    for (int s = 0; s < 4; s++)
                        tt_vec3((const int64_t(*)[TT_NB])rT, (const int64_t(*)[TT_NB])rG,
                                dropping, s, B, P[s], Q[s], t1, t2);
                    for (int64_t i = 0; i < nx; i++) {
                        int64_t x = xs[i];
                        int64_t s = x / 13, p = x % 13;
                        int64_t code2 = lc[s] + ((int64_t)1 << (3 * p));
                        int single = (code2 & TT_HI_FIELDS) == 0;
                        int64_t m2 = 0;
                        if (single) {
                            m2 = tt_mask_of(code2);
                        } else {
                            tt_suit_row(S, code2, xT, smd, sdw);
                            if (dropping) tt_drop_row(S, code2, xG, sv, smd, sdw);
                        }
                        int64_t v = (int64_t)1 << 40;
                        int64_t dmax = tt_min(B, TT_NB - 1);
                        for (int64_t d = 0; d <= dmax; d++) {
                            int64_t tv, gv;
                            if (single) {
                                tv = TT_ROW(TT, m2, 0)[d];
                                gv = TT_ROW(TT, m2, 3)[d];
                            } else {
                                tv = xT[d];
                                gv = dropping ? xG[d] : 0;
                            }
                            int64_t u = dropping ? tt_min(Q[s][B - d] + tv, P[s][B - d] + gv)
                                                 : P[s][B - d] + tv;
                            if (u < v) v = u;
                        }
                        if (v < best[x]) {
                            best[x] = v;
                            hasset[x] = (uint8_t)has;
                        }
                    }
                }
            }
            /* next leaf */
            int64_t j = 0;
            while (j < nr) {
                idx[j] += 1;
                if (idx[j] < (j == jb ? nB[j] : nA[j])) break;
                idx[j] = 0;
                j++;
            }
            if (j == nr) break;
        }
    }
    /* The final rule of tt_evaluate(), per x. */
    for (int64_t i = 0; i < nx; i++) {
        int64_t x = xs[i];
        int64_t s = x / 13, p = x % 13;
        int64_t nat_x = all_nat + par[x];
        int64_t md_x = tt_max(nat_md, par[x]);
        int64_t pos = npos[s] + (tt_field(codes[s], p) ? 0 : 1);
        if (top == 14 && w != 0) {
            int64_t aces = (codes[s] & 7) + (p == 0 ? 1 : 0);
            if (aces >= 2) pos += 1;
        }
        int64_t maxpos = pos;
        for (int t = 0; t < 4; t++) {
            int64_t other = npos[t] + ((top == 14 && w != 0 && (codes[t] & 7) >= 2) ? 1 : 0);
            if (t != s && other > maxpos) maxpos = other;
        }
        int64_t limit = dropping ? nat_x - md_x : nat_x;
        if (best[x] < limit) {
            res[x] = (W > 0 && !hasset[x] && maxpos > top - W) ? -1 : best[x];
        } else if (tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD])) {
            res[x] = limit;
        } else {
            res[x] = limit + J * par[52] + M * par[w];
        }
    }
    return 0;
}

/* For every kind x with weights[x] > 0: out[x], the fewest penalty of b + x after its best
   discard (any card, x itself included). dv: the discard values of b (as tt_discard_values).
   Returns b's own value; -1 anywhere (value or an entry of out) marks what the kernel could
   not certify.

   A card that cannot meld with b (see tt_can_meld) is valued in closed form: keep it and make
   b's best discard, or throw it back. For the others one search finds the best natural card
   to drop from b + x (tt_evaluate(), mode 3); each wild kind held is tried as a discard on its
   own. */
static int64_t tt_after_draw_values(const tt_solver *S, const uint8_t *b, const int64_t *weights,
                                    int64_t *out, int64_t *dv) {
    const int64_t *par = S->par;
    const int64_t w = S->w;
    int64_t value = tt_discard_values(S, b, dv);
    for (int k = 0; k < 53; k++) out[k] = 0;
    if (value < 0) {
        for (int k = 0; k < 53; k++)
            if (weights[k] > 0) out[k] = -1;
        return value;
    }
    int64_t best_drop = value; /* b's best discard, or b itself when it is empty */
    int exact = 1, first = 1;
    for (int k = 0; k < 53; k++) {
        if (dv[k] >= 0) {
            if (first || dv[k] < best_drop) {
                best_drop = dv[k];
                first = 0;
            }
        } else if (dv[k] == -1) {
            exact = 0;
        }
    }
    int64_t top = par[TT_P_TOP];
    int64_t W = (int64_t)b[52] + b[w] + b[13 + w] + b[26 + w] + b[39 + w];
    uint8_t c[53];
    memcpy(c, b, 53);
    /* The natural cards that can meld: all at once (one search over b's set choices for the
       best card to drop, one more per wild kind held for discarding that wild instead). */
    int64_t xs[53];
    int64_t nx = 0;
    for (int64_t x = 0; x < 53; x++) {
        if (weights[x] > 0 && x != 52 && x % 13 != w) {
            if (tt_can_meld(x, b, w, top, W))
                xs[nx++] = x;
            else
                out[x] = exact ? tt_min(value, par[x] + best_drop) : -1;
        }
    }
    int64_t batch[53];
    for (int k = 0; k < 53; k++) batch[k] = -1;
    if (nx) {
        int64_t res[53];
        if (tt_draws_at_once(S, b, xs, nx, 1, res) == 0) {
            for (int64_t i = 0; i < nx; i++)
                batch[xs[i]] = res[xs[i]] >= 0 ? tt_min(value, res[xs[i]]) : -1;
            for (int64_t k = 0; k < 53; k++) {
                if (b[k] && (k == 52 || k % 13 == w)) {
                    c[k] -= 1;
                    int64_t ok = tt_draws_at_once(S, c, xs, nx, 0, res);
                    c[k] += 1;
                    for (int64_t i = 0; i < nx; i++) {
                        int64_t x = xs[i];
                        if (ok != 0 || res[x] < 0)
                            batch[x] = -1;
                        else if (batch[x] >= 0 && res[x] < batch[x])
                            batch[x] = res[x];
                    }
                }
            }
        }
    }
    for (int64_t x = 0; x < 53; x++) {
        if (weights[x] <= 0) continue;
        int wild = x == 52 || x % 13 == w;
        if (!wild && !tt_can_meld(x, b, w, top, W)) continue;
        if (!wild && batch[x] >= 0) {
            out[x] = batch[x];
            continue;
        }
        c[x] += 1;
        /* The best discard of b + x: x itself (back to b), the best natural card to drop (one
           search over the hand less any natural card), or a wild card. */
        int64_t best = value;
        int64_t u = tt_evaluate(S, c, 3);
        if (u < 0) {
            out[x] = -1;
            c[x] -= 1;
            continue;
        }
        if (u < best) best = u;
        for (int64_t k = 0; k < 53; k++) {
            if (c[k] && k != x && (k == 52 || k % 13 == w)) {
                c[k] -= 1;
                u = tt_evaluate(S, c, 0);
                c[k] += 1;
                if (u < 0) {
                    best = -1;
                    break;
                }
                if (u < best) best = u;
            }
        }
        out[x] = best;
        c[x] -= 1;
    }
    return value;
}

/* --------------------------------------------------------------------------- the arrangement */
#define TT_ARRANGE_WILDS (TT_W_SCRATCH + 7200) /* arrange(): the wild cards to hand out (90) */

/* A meld's shape as one integer: kind (0 set, 1 run, 2 wild cards alone), rank, suit, low,
   high, wilds and size (tt_env.game.melds._kernel.meld_of_key reads it). */
static inline int64_t tt_meld_key(int64_t kind, int64_t rank, int64_t suit, int64_t low,
                                  int64_t high, int64_t wilds, int64_t size) {
    return kind | rank << 2 | (suit + 1) << 6 | low << 9 | high << 13 | wilds << 17 | size << 24;
}

/* What tt_arrange() found: melds, cards in melds, deadwood cards, points (-1: not certified). */
typedef struct {
    int64_t melds, cards, dead, points;
} tt_arrangement;

/* The best arrangement of counts spelled out: the melds' cards then the deadwood in out (card
   kinds, TT_ARRANGE_CARDS; a run in position order), one key per meld in keys (TT_ARRANGE_KEYS;
   tt_meld_key: its kind, rank, suit, positions, wilds and size); runs: TT_ARRANGE_RUNS of
   scratch.

   The plan is tt_evaluate()'s (mode 2): its sets, each suit's runs (walked back from the suit's
   table at the budget the plan gave it) and its deadwood. With a natural meld every wild card
   joins one: first the wilds each meld needs (a set to 3 cards, a run's gaps and length), then
   the spare ones to the first set, else to the runs while they have room (the kernel checked
   they have). Without one, the wild cards meld alone when they can (a set of the wild rank, or
   jokers only with all_wild_melds) or are deadwood. */
static inline tt_arrangement tt_arrange(const tt_solver *S, const uint8_t *counts, uint8_t *out,
                                        int64_t *keys, int64_t *runs) {
    const tt_arrangement refused = {0, 0, 0, -1};
    const int64_t *par = S->par;
    int64_t *ws = S->ws;
    const int64_t w = S->w;
    int64_t value = tt_evaluate(S, counts, 2);
    if (value < 0) return refused;
    int64_t top = par[TT_P_TOP];
    int64_t J = counts[52];
    int64_t M = (int64_t)counts[w] + counts[13 + w] + counts[26 + w] + counts[39 + w];
    int64_t W = J + M; /* at most TT_MAX_WILDS: tt_evaluate() answered */
    int64_t *wilds = ws + TT_ARRANGE_WILDS; /* jokers first, then the wild-rank cards */
    int64_t i = 0;
    for (int64_t n = 0; n < J; n++) wilds[i++] = 52;
    for (int s = 0; s < 4; s++)
        for (int64_t n = 0; n < counts[s * 13 + w]; n++) wilds[i++] = s * 13 + w;
    int64_t total = ws[TT_W_CARDS];
    int64_t nd = ws[TT_W_NDEAD]; /* the natural deadwood (the wild cards below) */
    int meld = value < ws[TT_W_ALLNAT];
    if (!meld && !(W && tt_wilds_meld_alone(W, M, J, par[TT_P_ALL_WILD])))
        nd += W; /* no meld at all: the wild cards are deadwood too */
    int64_t nc = total - nd;
    int64_t d = nc;
    for (int s = 0; s < 4; s++) {
        int64_t code = ws[TT_W_DEADCODE + s];
        while (code) {
            int64_t p = tt_tz((uint64_t)code) / 3;
            for (int64_t n = 0; n < tt_field(code, p); n++) out[d++] = (uint8_t)(s * 13 + p);
            code &= ~((int64_t)7 << (3 * p));
        }
    }
    if (!meld) {
        if (nc) { /* the wild cards meld alone */
            for (int64_t j = 0; j < W; j++) out[j] = (uint8_t)wilds[j];
            keys[0] = M >= 1 ? tt_meld_key(0, w + 1, -1, 0, 0, J, W)
                             : tt_meld_key(2, 0, -1, 0, 0, J, W);
            return (tt_arrangement){1, nc, nd, value};
        }
        for (int64_t j = 0; j < W; j++) out[d + j] = (uint8_t)wilds[j];
        return (tt_arrangement){0, 0, nd, value};
    }
    /* the sets */
    int64_t nm = 0, pos = 0, used = 0; /* used: wild cards handed out */
    int64_t nsets = ws[TT_W_NSETS];
    int64_t first_size = 0;
    for (int64_t k = 0; k < nsets; k++) {
        int64_t p = ws[TT_W_SETS + 2 * k];
        int64_t take = ws[TT_W_SETS + 2 * k + 1];
        int64_t start = pos;
        for (int s = 0; s < 4; s++)
            for (int64_t n = 0; n < ((take >> (3 * s)) & 7); n++) out[pos++] = (uint8_t)(s * 13 + p);
        int64_t need = tt_max(0, 3 - (pos - start));
        for (int64_t n = 0; n < need; n++) out[pos++] = (uint8_t)wilds[used++];
        if (k == 0) first_size = pos;
        keys[nm++] = tt_meld_key(0, p + 1, -1, 0, 0, need, pos - start);
    }
    /* the runs of each suit, and the wilds they need */
    int64_t nr = 0;
    for (int s = 0; s < 4; s++) {
        int64_t code = ws[TT_W_SUITS + 2 * s];
        int64_t budget = ws[TT_W_SUITS + 2 * s + 1];
        if (code == 0) continue;
        int64_t n = tt_suit_runs(S, code, budget, runs, nr * 3);
        if (n < 0) return refused; /* unreachable: the rows were computed by these options */
        for (int64_t r = 0; r < n; r++)
            runs[(nr + r) * 3 + 2] = runs[(nr + r) * 3 + 2] * 4 + s; /* naturals and suit */
        nr += n;
    }
    int64_t need_total = 0;
    for (int64_t r = 0; r < nr; r++) need_total += runs[r * 3 + 1];
    int64_t spare = W - used - need_total;
    if (nsets && spare > 0) { /* the spare wilds to the first set (it starts at 0) */
        for (int64_t j = pos - 1; j >= first_size; j--) out[j + spare] = out[j]; /* make room */
        for (int64_t j = 0; j < spare; j++) out[first_size + j] = (uint8_t)wilds[used++];
        pos += spare;
        keys[0] += (spare << 17) + (spare << 24); /* the same set, spare more wilds and cards */
        spare = 0;
    }
    for (int64_t r = 0; r < nr; r++) {
        int64_t places = runs[r * 3];
        int64_t lo = runs[r * 3 + 1];
        int64_t s = runs[r * 3 + 2] % 4;
        int64_t nat = runs[r * 3 + 2] / 4;
        int64_t more = 0;
        if (spare > 0) {
            more = tt_min(spare, top - (nat + lo));
            spare -= more;
        }
        int64_t k = lo + more; /* wilds in this run */
        int64_t length = nat + k;
        int64_t low = 0, high = 0;
        for (int64_t q = 0; q < 14; q++) {
            if ((places >> q) & 1) {
                if (low == 0) low = q + 1;
                high = q + 1;
            }
        }
        if (high - low + 1 < length) high = tt_min(top, low + length - 1);
        low = high - length + 1;
        int64_t j = 0, nwild = 0;
        for (int64_t q = low; q <= high; q++) {
            if ((places >> (q - 1)) & 1) {
                out[pos] = (uint8_t)(s * 13 + (q == 14 ? 0 : q - 1));
            } else {
                int64_t c = wilds[used + j];
                out[pos] = (uint8_t)c;
                j++;
                /* a wild-rank card of this suit in its own place is natural there */
                int natural =
                    c != 52 && c / 13 == s && (c % 13 + 1 == q || (c % 13 == 0 && q == 14));
                if (!natural) nwild++;
            }
            pos++;
        }
        used += k;
        keys[nm++] = tt_meld_key(1, 0, s, low, high, nwild, length);
    }
    if (used != W || spare || pos != nc)
        return refused; /* unreachable: the kernel checked that every wild finds a place */
    return (tt_arrangement){nm, nc, nd, value};
}

/* The discards that leave counts (a hand just after a draw) with no deadwood, as bits (bit k:
   discarding one card of kind k); -1 when the kernel cannot certify it. out: 53 of scratch.

   Most hands are rejected with one evaluation: a hand of fewest penalty V less a card k keeps
   at least V - pen(k) (an arrangement of the rest, with k added back as deadwood, is one of
   the hand), so when V exceeds the penalty of every card held, no discard goes out. Otherwise
   every discard is valued (tt_discard_values). */
static inline int64_t tt_go_out(const tt_solver *S, const uint8_t *counts, int64_t *out) {
    const int64_t *par = S->par;
    int64_t most = 0;
    for (int k = 0; k < 53; k++)
        if (counts[k] && par[k] > most) most = par[k];
    int64_t value = tt_evaluate(S, counts, 0);
    if (value < 0) return -1;
    if (value > most) return 0;
    value = tt_discard_values(S, counts, out);
    if (value < 0 || S->ws[TT_W_UNSURE]) return -1;
    int64_t bits = 0;
    for (int k = 0; k < 53; k++)
        if (out[k] == 0) bits |= (int64_t)1 << k;
    return bits;
}

/* The number of cards of a hand (53 counts). */
static inline int64_t tt_hand_size(const uint8_t *counts) {
    int64_t cards = 0;
    for (int k = 0; k < 53; k++) cards += counts[k];
    return cards;
}

#endif /* TT_SOLVER_H */
