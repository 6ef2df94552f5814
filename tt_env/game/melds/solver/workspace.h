/* The solver's data: the suit tables and memo (tt_tables), the workspace a call writes its
   results and scratch into (tt_workspace), the configuration every function reads (tt_solver),
   and the functions the layers above call (a part of solver.h: see there). */

#ifndef TT_SOLVER_WORKSPACE_H
#define TT_SOLVER_WORKSPACE_H

#include "basics.h"

/* The suit tables of one penalty table (top and the 13 natural penalties), and the memo of
   the suits with several copies of a card. Several configurations share them. */
typedef struct {
    int16_t *TT;    /* [TT_MASKS][4][TT_NB]: T, MD, DW, G */
    int64_t *mkeys; /* [slots + 1]: the memo's keys (-1 free); the last counts the entries */
    int16_t *mv;    /* [2][slots][TT_NB]: values, costliest deadwood */
    int64_t *mdw;   /* [slots][TT_NB]: deadwood codes */
    int64_t slots;  /* a power of two, 2 or more */
} tt_tables;

/* The scratch of the two searches (tt_evaluate(), tt_evaluate_one()): nothing in it outlives a
   call. A row by wilds 0..TT_MAX_WILDS is TT_WB long; the search's level j (0..nr, the set
   ranks and the leaf below them) holds what the set ranks before j chose. */
typedef struct {
    int64_t acc[TT_WB];          /* a convolution's totals by wilds */
    int64_t accmd[TT_WB];        /* its costliest deadwood card by wilds (lexicographic) */
    int64_t tmpmd[TT_WB];        /* (lexicographic) */
    int64_t tmp[5 * TT_WB];      /* a convolution's scratch: a row, then tt_conv_lex's choices */
    int64_t bound[TT_WB];        /* the totals of the suits as they are, by wilds */
    int64_t alloc[4];            /* the wilds of each suit in a lexicographic convolution's best */
    int64_t best_alloc[4];       /* the same for the best arrangement */
    int64_t best_codes[4];       /* the suits left for runs in it, as codes (general search) */
    int64_t best_masks[4];       /* ... as 13-bit masks (lean search) */
    int64_t codes[4], masks[4];  /* the hand's suits (general search) */
    int64_t ranks[TT_SET_RANKS]; /* the set ranks */
    int64_t nopt[TT_SET_RANKS];  /* the options of each (general search) */
    int64_t held[TT_SET_RANKS];  /* the suits each holds, 4 bits (lean search) */
    int64_t idx[TT_SET_RANKS];   /* the option tried, by depth */
    int64_t best_idx[TT_SET_RANKS]; /* the options of the best arrangement */
    int64_t futmax[TT_LEVELS];      /* the most points the set ranks from j on can take */
    int64_t wilds[TT_LEVELS];       /* the wilds the sets need, by level */
    int64_t points[TT_LEVELS];      /* the points of the set cards, by level */
    int64_t cur[TT_LEVELS]; /* the suits left for runs with the wilds left, by level (lean) */
    int64_t level_codes[TT_LEVELS][4]; /* the suits left for runs, by level, as codes */
    int64_t level_masks[TT_LEVELS][4]; /* ... as 13-bit masks (one copy per card) */
    int64_t fut[TT_LEVELS][16];        /* the points the set ranks from j on take by wilds (lean) */
    int64_t opt_wilds[TT_SET_RANKS][TT_MAX_OPTIONS];  /* option o of set rank j: wilds needed */
    int64_t opt_points[TT_SET_RANKS][TT_MAX_OPTIONS]; /* ... the points of its cards */
    int64_t opt_take[TT_SET_RANKS][TT_MAX_OPTIONS];   /* ... its take per suit (3-bit fields) */
} tt_search_scratch;

/* One configuration's workspace: the results of its last call, read by name (the binding
   exports the offset and shape of each result field, and tt_env.game.melds._kernel reads them
   through a numpy view of the same layout), and the scratch of its functions. Only int64
   fields, so that Python allocates it as an int64 array. */
typedef struct {
    /* results */
    int64_t md;     /* TT_POINTS_AND_COSTLIEST and TT_PLAN: the costliest deadwood card's penalty */
    int64_t unsure; /* tt_discard_values(): entries the kernel could not certify */
    /* the plan (TT_PLAN): the best arrangement */
    int64_t nsets;                 /* sets chosen */
    int64_t set_wilds;             /* wilds the chosen sets need */
    int64_t all_nat;               /* the points of every natural card */
    int64_t cards;                 /* the cards of the hand */
    int64_t ndead;                 /* the natural cards of the deadwood */
    int64_t sets[TT_SET_RANKS][2]; /* (rank position, take per suit in 3-bit fields) per set */
    int64_t suits[4][2];           /* (code left for runs, wilds it takes) per suit */
    int64_t dead[53];              /* the deadwood: 53 counts */
    int64_t dead_codes[4];         /* the natural deadwood of each suit, as a code */
    /* scratch */
    tt_search_scratch search;              /* the searches' */
    int64_t rows[4][8][TT_NB];             /* tt_evaluate()'s rows: points, costliest deadwood card,
                                      deadwood, drop; 0..3 the suits, 4..7 a leaf's */
    int64_t less[53];                      /* tt_discard_values(): the plan's deadwood */
    int64_t arrange_wilds[TT_MAX_WILDS];   /* tt_arrange(): the wild cards to hand out */
    int64_t arrange_runs[TT_ARRANGE_RUNS]; /* tt_arrange(): (places, wilds, naturals) per run */
} tt_workspace;

#define TT_WS_SIZE (sizeof(tt_workspace) / sizeof(int64_t)) /* its int64 entries */

/* One configuration (rules, wild rank, joker penalty): what every solver function reads. */
typedef struct {
    tt_tables *tab;
    const int64_t *par; /* [TT_PAR_SIZE] */
    int64_t w;          /* the wild rank's position, 0..12 */
    tt_workspace *ws;
} tt_solver;

/* The solver's functions that the layers above call (each documented where it is defined).

   tt_evaluate(S, counts, mode): the fewest penalty of the hand (53 counts); TT_NOT_CERTIFIED
   when the kernel cannot certify it, TT_TOO_MANY for more than TT_MAX_CARDS cards; with mode
   TT_POINTS_AND_COSTLIEST also the costliest deadwood card (ws->md), TT_PLAN also the plan
   (ws->sets, ws->suits, ws->dead...), TT_LESS_BEST_DROP the fewest penalty of the hand less its
   best natural card to drop (TT_INF with none). (evaluate.h)

   tt_discard_values(S, counts, out): out[k] the fewest penalty without one card of kind k
   (TT_NOT_HELD, TT_NOT_CERTIFIED); returns the hand's own value (or < 0). (discard.h)

   tt_after_draw_values(S, b, weights, out, dv): out[x] for every x with weights[x] > 0, the
   fewest penalty of b + x after its best discard; dv the discard values of b; returns b's
   value; TT_NOT_CERTIFIED anywhere marks what the kernel could not certify. (draws.h)

   tt_best_discard_after_draw(S, c, x, best, stop): the fewest penalty of c (b + x) after
   discarding a card other than x, or `best` when none leaves less; it may stop at the first
   value below `stop`. (draws.h) */
static int64_t tt_evaluate(const tt_solver *S, const uint8_t *counts, int mode);
static int64_t tt_discard_values(const tt_solver *S, const uint8_t *counts, int64_t *out);
static int64_t tt_after_draw_values(const tt_solver *S, const uint8_t *b, const int64_t *weights,
                                    int64_t *out, int64_t *dv);
static inline int64_t tt_best_discard_after_draw(const tt_solver *S, uint8_t *c, int64_t x,
                                                 int64_t best, int64_t stop);

#endif /* TT_SOLVER_WORKSPACE_H */
