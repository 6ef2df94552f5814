/* The solver's sizes, modes and answers, and the bit tricks every part of it uses (a part of
   solver.h: see there). */

#ifndef TT_SOLVER_BASICS_H
#define TT_SOLVER_BASICS_H

#include <stdint.h>
#include <string.h>

#define TT_NB 16           /* budgets 0..15 per suit row; a suit's runs never need more than 13 */
#define TT_MAX_NODES 20000 /* search nodes before the kernel gives up (-1) and Python decides */
#define TT_MAX_OPTIONS 64  /* set options of one rank (every sub-multiset of its cards) */
#define TT_MAX_WILDS 90
#define TT_WB (TT_MAX_WILDS + 1) /* a row by budget 0..TT_MAX_WILDS */
#define TT_MAX_CARDS 31 /* the solver's largest hand (MAX_HAND_CARDS) and a draw; beyond: -3 */
#define TT_MAX_HAND 30  /* the largest hand min_penalty takes (MAX_HAND_CARDS) */
#define TT_INF 30000    /* "no such arrangement" in the int16 tables (a drop from an empty suit) */
#define TT_MASKS 8192   /* 13-bit suit masks */
#define TT_SET_RANKS 13 /* ranks that may hold a set (every rank but the wild one: 12 at most) */
#define TT_LEVELS (TT_SET_RANKS + 1) /* the search's levels: one per set rank, and the leaf */

/* par: the per-configuration parameters (int64). */
#define TT_P_TOP 53      /* highest position: 13, or 14 with aces_high */
#define TT_P_ALL_WILD 54 /* 1 with all_wild_melds */
#define TT_P_CAP 55      /* wilds one meld takes at most (max_wilds_per_meld), or TT_NO_CAP */
#define TT_PAR_SIZE 56   /* par[0..52]: the penalty of each card kind (the joker's at 52) */
#define TT_NO_CAP 4096   /* par[TT_P_CAP] with no cap: more wilds than any hand holds */

/* What tt_evaluate() finds besides the fewest penalty (its `mode`). */
typedef enum {
    TT_POINTS = 0,               /* the fewest penalty alone */
    TT_POINTS_AND_COSTLIEST = 1, /* also the costliest deadwood card of the best (ws->md) */
    TT_PLAN = 2,                 /* also the best arrangement's plan (the workspace's plan) */
    TT_LESS_BEST_DROP = 3,       /* the fewest penalty less the best natural card to drop */
} tt_mode;
#define TT_GENERAL 8 /* added to a mode: never the lean search (tests compare the two) */

/* The answers that are no penalty (every penalty is >= 0). */
#define TT_NOT_CERTIFIED (-1) /* the kernel cannot certify it: the exact search in Python decides */
#define TT_NOT_LEAN (-2)      /* tt_evaluate_one() does not take the hand: tt_evaluate() does */
#define TT_NOT_HELD (-2)      /* tt_discard_values(): an entry of a kind the hand does not hold */
#define TT_TOO_MANY (-3)      /* more cards than the kernel takes (TT_MAX_CARDS, or TT_MAX_HAND) */

/* arrange(): the sizes of its output buffers (cards, meld keys, runs). */
#define TT_ARRANGE_CARDS 64
#define TT_ARRANGE_KEYS 32
#define TT_ARRANGE_RUNS 256

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
#define TT_F(x)                                                                    \
    (((x)&7) != 0) | ((((x) >> 3) & 7) != 0) << 1 | ((((x) >> 6) & 7) != 0) << 2 | \
        ((((x) >> 9) & 7) != 0) << 3
#define TT_F4(x) TT_F(x), TT_F((x) + 1), TT_F((x) + 2), TT_F((x) + 3)
#define TT_F16(x) TT_F4(x), TT_F4((x) + 4), TT_F4((x) + 8), TT_F4((x) + 12)
#define TT_F64(x) TT_F16(x), TT_F16((x) + 16), TT_F16((x) + 32), TT_F16((x) + 48)
#define TT_F256(x) TT_F64(x), TT_F64((x) + 64), TT_F64((x) + 128), TT_F64((x) + 192)
#define TT_F1024(x) TT_F256(x), TT_F256((x) + 256), TT_F256((x) + 512), TT_F256((x) + 768)
static const uint8_t TT_FIELD_MASK[4096] = {TT_F1024(0), TT_F1024(1024), TT_F1024(2048),
                                            TT_F1024(3072)};

/* TT_FIELD_CODE[x]: the 3-bit count fields (one each) of the 4-bit mask x (a set's take too). */
static const int64_t TT_FIELD_CODE[16] = {0x000, 0x001, 0x008, 0x009, 0x040, 0x041, 0x048, 0x049,
                                          0x200, 0x201, 0x208, 0x209, 0x240, 0x241, 0x248, 0x249};

/* The 13-bit mask of the positions a suit's code holds (four fields per table read). */
static inline int64_t tt_mask_of(int64_t code) {
    return (int64_t)TT_FIELD_MASK[code & 0xFFF] |
           (int64_t)TT_FIELD_MASK[(code >> 12) & 0xFFF] << 4 |
           (int64_t)TT_FIELD_MASK[(code >> 24) & 0xFFF] << 8 | (((code >> 36) & 7) ? 4096 : 0);
}

/* The code (3-bit counts) of a 13-bit mask (four positions per table read). */
static inline int64_t tt_code_of(int64_t mask) {
    return TT_FIELD_CODE[mask & 15] | TT_FIELD_CODE[(mask >> 4) & 15] << 12 |
           TT_FIELD_CODE[(mask >> 8) & 15] << 24 | TT_FIELD_CODE[(mask >> 12) & 1] << 36;
}

/* Bits set in a 13-bit mask. */
static inline int64_t tt_popcount13(int64_t x) { return tt_popcount((uint64_t)x); }

/* The field of position p of a code. */
static inline int64_t tt_field(int64_t code, int64_t p) { return (code >> (3 * p)) & 7; }

/* The tables' rows: TT[mask][row][d], row 0 T, 1 MD, 2 DW, 3 G. */
#define TT_ROW(TT, mask, row) ((TT) + ((int64_t)(mask)*4 + (row)) * TT_NB)

/* ------------------------------------------------------------------------------ the hand */
/* The number of cards of a hand (53 counts). */
static inline int64_t tt_hand_size(const uint8_t *counts) {
    int64_t cards = 0;
    for (int k = 0; k < 53; k++) cards += counts[k];
    return cards;
}

/* With no natural meld: whether the wild cards leave no deadwood, melding by themselves (a set
   of the wild rank: one wild-rank card, natural there, and any others, three cards or more;
   with all_wild_melds, three jokers or more) or being none. */
static inline int tt_wilds_meld_alone(int64_t W, int64_t M, int64_t J, int64_t all_wild) {
    return W == 0 || (M >= 1 && W >= 3) || (all_wild && J >= 3);
}

#endif /* TT_SOLVER_BASICS_H */
