/* The solver's compiled kernel: the fewest penalty of a hand, its arrangement, its discards
   and draws, and redemption's lay-offs, under every rule option.

   Plain C, header only (every function static): the solver's extension module
   (_csolver.c) includes it, and so do the kernels of the layers above (the valuation's rule,
   the features, the search agent), which call these functions from their own compiled code.
   It knows nothing of Python: the bindings check every input before it reaches this code.
   A header of static functions is how the kernels above compile the solver into their own code
   (and inline its small functions); this one is the one they include, and it includes the
   parts of the solver (solver/, one concern each) in order, each using those before it:

   basics.h        sizes, the modes of tt_evaluate() (tt_mode), the answers that are no
                   penalty (TT_NOT_CERTIFIED, TT_TOO_MANY...), bit tricks
   workspace.h     the data: the suit tables (tt_tables), the workspace a call leaves its
                   results in by name (tt_workspace), a configuration (tt_solver)
   pool.h          the pool of wild cards: what jokers and wild-rank cards cost at a leaf
   layoff_search.h redemption's search: the hand's melds and the cards laid off on the table
   layoff.h        tt_lay_off(): redemption, the plan spelled out (named input and result)
   capped.h        a cap on wilds per meld: tt_evaluate() and tt_arrange() by that search
   tables.h        the suit tables and the memo of the suits with several copies of a card
   convolve.h      the four suits sharing the wild cards (min-plus convolutions)
   evaluate_one.h  the lean search: a hand with one copy of each natural card
   evaluate.h      the hand: tt_evaluate(), the search over the set choices
   discard.h       tt_discard_values(): the hand less each card it holds
   draws.h         tt_after_draw_values(): the hand after each draw, most in one pass
   arrange.h       tt_arrange(): the best arrangement spelled out, meld keys
   go_out.h        tt_go_out(): the discards that go out

   With no cap on wilds per meld: the same mathematics as the Python fast path (see the package
   docstring of tt_env.game.melds), laid out for a compiler: per-suit tables of the best runs
   for every budget of wilds, sets chosen by a depth-first search whose leaves combine the four
   suits' rows (each part says how). Tie-breaking towards the costliest deadwood card (among the best arrangements the
   search meets) puts costly cards in the plan's deadwood, and tt_discard_values() values every
   card of that deadwood without a search (dropping it saves exactly its penalty).

   Card kinds: k = 13 * suit + position (position 0 the ace .. 12 the king), 52 the joker.
   A hand is 53 counts (uint8). w is the wild rank's position (wild rank - 1). */

#ifndef TT_SOLVER_H
#define TT_SOLVER_H

#include "solver/arrange.h"
#include "solver/basics.h"
#include "solver/capped.h"
#include "solver/convolve.h"
#include "solver/discard.h"
#include "solver/draws.h"
#include "solver/evaluate.h"
#include "solver/evaluate_one.h"
#include "solver/go_out.h"
#include "solver/layoff.h"
#include "solver/layoff_search.h"
#include "solver/pool.h"
#include "solver/tables.h"
#include "solver/workspace.h"

#endif /* TT_SOLVER_H */
