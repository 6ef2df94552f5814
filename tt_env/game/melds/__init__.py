"""Melds: the exact meld solver of Three Thirteen and the :class:`Arrangement` it returns.

Terminology (the words of ``RULES.md``):

meld
    A group of 3 or more cards that is a *set* or a *run*, with at least one natural card
    (unless ``Rules.all_wild_melds``) and at most ``Rules.max_wilds_per_meld`` cards used as
    wilds.
set
    Cards that all stand for one rank; suits may repeat when several decks are in play.
run
    Cards of one suit at consecutive *positions*, one card per position. Positions are 1
    (ace) .. 13 (king); with ``Rules.aces_high`` an ace may also stand at position 14 (Q-K-A),
    so a run covers at most 1..14. Runs never wrap (K-A-2 is no run).
wild
    Every joker and every card of the round's wild rank. A card *used as a wild* stands for a
    card it is not.
natural place
    A wild-rank card in a set of its own rank, or in a run of its own suit at its own position,
    is natural there and not used as a wild (decided in ``RULES.md``). Jokers are never
    natural.
deadwood
    The cards left out of every meld; their penalty (``Rules.penalty_table``) is the score.

Algorithm. A hand is 53 counts; its natural cards become one integer with an 8-bit count field
per card kind (``int.from_bytes``), so several decks need no special case.

*The pool.* Wild cards are fungible as wilds: a meld only needs a number of them, and a
leftover joker differs from a leftover wild-rank card only in its penalty. So every meld built
from natural cards is summarised by the wilds it needs at least (``lo``: gaps, length 3) and
can take at most (``hi``: the cap, a run's length limit), and the wilds themselves are
counted: ``J`` jokers and ``m`` wild-rank cards must give the melds ``D = sum(lo)`` to
``H = sum(hi)`` wilds; what is left may form sets of the wild rank (its cards natural there,
jokers as wilds) or, with ``all_wild_melds``, melds of jokers only, and the rest is deadwood,
the cheapest cards left over. :meth:`_Config.leaf` solves this count problem exactly.
With no cap a wild-rank card in its natural place in a run is worth exactly what the same
card is worth as a wild there, so all wild-rank cards join the pool; with a cap the natural
place saves a wild, so they are also searched as natural run cards.

*The compiled kernel* (``solver.h``, built into :mod:`tt_env.game.melds._csolver` at install)
answers first for every rule option: with no cap on wilds per meld by per-suit tables and a
search over the set choices, with a cap (and for :func:`lay_off`) by the search below, ported
to C option for option. The Python solver answers where the kernel is not built or does not
certify a hand, and is the oracle the kernel is tested against.

*The fast path* (:func:`_fast`: most calls of the Python solver). Sets are chosen first, rank by
rank: only ranks with 2 or more cards (one card and two wilds is also a run), one set per rank
with no cap (merging two sets never needs more wilds), every split into several sets with a cap
(each set takes ``cap`` more wilds). For each choice the four suits are looked up in tables of
their best runs, keyed by the suit's 13 count fields and built lazily once per rule set: with no
cap the fewest points of the suit for each number of wilds, combined over the suits by a
min-plus sum within the wild budget; with a cap the Pareto-best (points, wilds needed, natural
wild-rank cards, wilds taken), tried in every combination and finished by the pool. Choices are
tried cheapest lower bound first (the suits' points as they are, less the points of the set
cards) and cut when the bound cannot win. It is exact under conditions it checks, else the
search below decides: with no cap it assumes that once any meld exists every spare wild finds a
place, which holds unless one suit holds more than ``top - W`` natural positions or the hand
more than 26 cards; it takes at most 12 wilds (16 with a cap shorter than the longest run).

*The search* (:func:`_search`, exact for every input). A memoised depth-first search over the
lowest uncovered card: deadwood (or, for a wild-rank card, the pool); a set of its rank (every
sub-multiset of the uncovered cards of that rank holding it); a run of its suit in which it is
the lowest natural card (every subset of the uncovered cards of the suit above it). The state
is (cards left, natural wild-rank cards used, ``D``, ``H``); it never branches on where a wild
goes. :func:`lay_off` runs the same search with the table melds as extra resources.

:func:`min_penalty` (the hot path) returns only the points and is cached; :func:`solve` spells
out the arrangement the fast path (or the search) found; :func:`discard_penalties` solves the
whole hand once: a card that is deadwood there needs no search (dropping it saves exactly its
penalty), only the melded ones do.
"""

from tt_env.game.melds._cache import set_budget as set_cache_budget
from tt_env.game.melds._inputs import MAX_HAND_CARDS
from tt_env.game.melds._kernel import kernel_module, private_kernels
from tt_env.game.melds._kernel import status as kernel_status
from tt_env.game.melds._layoff import lay_off
from tt_env.game.melds._meld import is_meld
from tt_env.game.melds._types import Arrangement, LayOff, MeldShape, shape_of, shape_tuple
from tt_env.game.melds.api import (
    after_draw,
    cached_min_penalty,
    clear_cache,
    discard_array,
    discard_penalties,
    draw_penalties,
    kernel_of,
    min_penalties,
    min_penalty,
    solve,
    solver_config,
)

__all__ = [
    "MAX_HAND_CARDS",
    "Arrangement",
    "clear_cache",
    "set_cache_budget",
    "LayOff",
    "MeldShape",
    "discard_penalties",
    "draw_penalties",
    "is_meld",
    "lay_off",
    "min_penalties",
    "min_penalty",
    "solve",
    # the solver's parts that the layers above build on (tt_env.game.melds.api says how)
    "after_draw",
    "cached_min_penalty",
    "discard_array",
    "kernel_module",
    "kernel_of",
    "kernel_status",
    "private_kernels",
    "shape_of",
    "shape_tuple",
    "solver_config",
]
