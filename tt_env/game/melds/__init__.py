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

*The fast path* (:func:`_fast`: most calls of the Python solver; where the compiled kernel
(``solver.h``, built into :mod:`tt_env.game.melds._csolver` at install) serves the rules, it
answers first and this path is its fallback). Sets are chosen first, rank by rank: only ranks
with 2 or more cards (one card and two wilds is also a run), one set per rank with no cap
(merging two sets never needs more wilds), every split into several sets with a cap (each set
takes ``cap`` more wilds). For each choice the four suits are looked up in tables of their best
runs, keyed by the suit's 13 count fields and built lazily once per rule set: with no cap the
fewest points of the suit for each number of wilds, combined over the suits by a min-plus sum
within the wild budget; with a cap the Pareto-best (points, wilds needed, natural wild-rank
cards, wilds taken), tried in every combination and finished by the pool. Choices are tried
cheapest lower bound first (the suits' points as they are, less the points of the set cards)
and cut when the bound cannot win. It is exact under conditions it checks, else the search
below decides: with no cap it assumes that once any meld exists every spare wild finds a place,
which holds unless one suit holds more than ``top - W`` natural positions or the hand more than
26 cards; it takes at most 12 wilds (16 with a cap shorter than the longest run).

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

from __future__ import annotations

import numpy as np

from tt_env.game.cards import ALL_CARDS, NUM_KINDS, Card
from tt_env.game.melds._assemble import _assemble, _capped_plan, _free_arrangement, _search_plan
from tt_env.game.melds._cache import BoundedCache, clear_all
from tt_env.game.melds._cache import set_budget as set_cache_budget
from tt_env.game.melds._config import _Config, _config
from tt_env.game.melds._fast import _fast, _hand
from tt_env.game.melds._inputs import MAX_HAND_CARDS, _check_counts, _check_size, _counts_of
from tt_env.game.melds._kernel import kernel_for, kernel_module, meld_of_key, private_kernels
from tt_env.game.melds._kernel import status as kernel_status
from tt_env.game.melds._layoff import lay_off
from tt_env.game.melds._meld import is_meld
from tt_env.game.melds._search import _search
from tt_env.game.melds._types import Arrangement, LayOff, MeldShape, _shape
from tt_env.game.rules import JOKER_PENALTY, Rules

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
    # the solver's parts that the layers above build on: see "For the layers above" below
    "after_draw",
    "cached_min_penalty",
    "discard_array",
    "kernel_module",
    "kernel_of",
    "kernel_status",
    "private_kernels",
    "solver_config",
]


# Entries, and estimated bytes per entry (the deep size measured over a mixed soak).
_CACHE: BoundedCache = BoundedCache(1 << 16, 180, "min_penalty results")
_DISCARD_CACHE: BoundedCache = BoundedCache(1 << 13, 500, "discard_penalties results")


# The fast paths of min_penalty and solve: the rules served by the compiled kernel with the
# default joker penalty, as (rules, kernel, its evaluate method, its arrange method).
# _SERVED holds them by (id(rules), wild_rank) (the entry keeps the Rules object alive, so its
# id cannot be reused while it is here), _LAST the last one of each wild rank, found without
# building a key.
_SERVED: BoundedCache = BoundedCache(256, 100, "kernels served by min_penalty")
_LAST: BoundedCache = BoundedCache(16, 100, "the last kernel served, by wild rank")


def _served(rules: Rules, wild_rank: int):
    """(rules, kernel, ...) when the kernel serves ``rules`` and the int ``wild_rank`` with the
    default joker penalty, found before; else None."""
    served = _SERVED.get((id(rules), wild_rank))
    if served is None or served[0] is not rules:
        return None
    _LAST[wild_rank] = served
    return served


def _serve(rules: Rules, cfg: _Config, kernel) -> None:
    """Let the fast paths find ``kernel`` for the caller's ``rules`` object (``cfg.rules`` may
    be another, equal one) and ``cfg``'s wild rank, with the default joker penalty only."""
    if cfg.joker_penalty == JOKER_PENALTY:
        served = (rules, kernel, kernel.c.evaluate, kernel.c.arrange)
        _SERVED[(id(rules), cfg.wild_rank)] = _LAST[cfg.wild_rank] = served


def min_penalty(
    counts: tuple[int, ...],
    wild_rank: int,
    rules: Rules = Rules(),
    joker_penalty: int | None = None,
) -> int:
    """The fewest penalty points the hand (53 counts, :func:`~tt_env.game.cards.to_counts`) can
    keep.

    Exact. The compiled kernel answers directly (caching would cost more than it saves); the
    Python solver's answers are cached on (counts, wild_rank, rules, joker_penalty) with a
    bounded cache.
    """
    # The fast path: rules the kernel serves, seen before, with an int wild rank (checked
    # first: 3.0 == 3 would find an int's entry) and counts as 53 bytes, or a tuple of 53
    # integers 0..255 (bytearray() checks that in C). It fills no cache, so it need not count
    # towards the caches' budget.
    if wild_rank.__class__ is int and joker_penalty is None:
        served = _LAST.get(wild_rank)
        if served is None or served[0] is not rules:
            served = _served(rules, wild_rank)
        if served is not None:
            cls = counts.__class__
            if cls is tuple:
                try:  # a bytearray: faster to build from a tuple than bytes
                    key = bytearray(counts)
                except (TypeError, ValueError):
                    key = b""
            else:
                key = counts if cls is bytes else b""
            if len(key) == 53:  # NUM_KINDS
                value = served[2](key, 0)
                if value >= 0:
                    return value
    key = _check_counts(counts)
    cfg = _config(rules, wild_rank, joker_penalty)
    kernel = cfg.kernel
    if kernel is False:
        kernel = cfg.kernel = kernel_for(cfg)
    if kernel is not None:
        _serve(rules, cfg, kernel)
        value = kernel.value(key)
        if value >= 0:
            return value
    return _cached_min(key, cfg)


def min_penalties(
    hands, wild_rank: int, rules: Rules = Rules(), joker_penalty: int | None = None
) -> np.ndarray:
    """:func:`min_penalty` of many hands at once: ``hands`` is an array of shape (n, 53) of
    counts (:func:`~tt_env.game.cards.to_counts` per row); returns n values. Exact; one compiled
    call for all of them (the Python solver answers any the kernel hands over). No cache."""
    cfg = _config(rules, wild_rank, joker_penalty)
    array = np.asarray(hands)
    if array.ndim != 2 or array.shape[1] != NUM_KINDS:
        raise ValueError(f"hands must be an array of shape (n, {NUM_KINDS}), got {array.shape}")
    if array.size and (
        not np.issubdtype(array.dtype, np.integer) or array.min() < 0 or array.max() > 255
    ):
        raise ValueError("hands must hold integer counts 0..255")
    rows = np.ascontiguousarray(array, dtype=np.uint8)
    if len(rows) and int(rows.sum(axis=1).max()) > MAX_HAND_CARDS:
        raise ValueError(f"the solver takes hands of at most {MAX_HAND_CARDS} cards")
    kernel = _kernel_of(cfg)
    out = kernel.values(rows) if kernel is not None else np.full(len(rows), -1, np.int64)
    for i in np.flatnonzero(out < 0):
        out[i] = _cached_min(rows[i].tobytes(), cfg)
    return out


def _cached_min(counts: bytes, cfg: _Config) -> int:
    key = (counts, cfg)
    value = _CACHE.get(key)
    if value is None:
        value = _uncached_min(counts, cfg)
        _CACHE[key] = value
    return value


def _uncached_min(counts: bytes, cfg: _Config) -> int:
    _check_size(counts)
    kernel = cfg.kernel
    if kernel is False:
        kernel = cfg.kernel = kernel_for(cfg)
    if kernel is not None:
        value = kernel.value(counts)
        if value >= 0:
            return value
    mask, J, M = _hand(counts, cfg)
    value = _fast(cfg, mask, J, M)
    if value is None:
        value = _search(cfg, mask, J, M)
    return value


def clear_cache(tables: bool = False) -> None:
    """Empty the result caches of :func:`min_penalty` and :func:`discard_penalties`
    (benchmarks use it to time cold calls); with ``tables``, every table the solver keeps,
    the per-rule ones included."""
    _CACHE.clear()
    _DISCARD_CACHE.clear()
    if tables:
        clear_all()


def discard_penalties(
    counts: tuple[int, ...],
    wild_rank: int,
    rules: Rules = Rules(),
    joker_penalty: int | None = None,
) -> dict[int, int]:
    """For every kind ``k`` in the hand: :func:`min_penalty` of the hand minus one ``k``.

    Used after a draw: the kinds that map to 0 are the discards that let the player go out.
    A card that is deadwood in an optimal arrangement of the whole hand needs no search:
    dropping it saves exactly its penalty (no arrangement without it can do better, since
    adding it back as deadwood costs only that). Results are cached like min_penalty's.
    """
    cfg = _config(rules, wild_rank, joker_penalty)
    counts = _check_counts(counts)
    kernel = _kernel_of(cfg)
    if kernel is not None:  # the compiled kernel: no cache in front of it
        values, value = kernel.discard_values(_check_size(counts))
        listed = values.tolist()
        if value >= 0 and not kernel.unsure():
            return {k: v for k, v in enumerate(listed) if v >= 0}
        found = {}
        for k, v in enumerate(listed):
            if v == -1:  # not certified by the kernel: the Python solver decides
                less = bytearray(counts)
                less[k] -= 1
                v = _cached_min(bytes(less), cfg)
            if v >= 0:
                found[k] = v
        return found
    key = (counts, cfg)
    found = _DISCARD_CACHE.get(key)
    if found is None:
        _check_size(counts)
    if found is None:
        arrangement = _solve_counts(cfg, counts)
        value = arrangement.points
        loose = set(arrangement.deadwood)
        pen = cfg.penalties
        found = {}
        less = bytearray(counts)
        for k in range(NUM_KINDS):
            if counts[k]:
                less[k] -= 1
                if k in loose:
                    found[k] = _CACHE[(bytes(less), cfg)] = value - pen[k]
                else:
                    found[k] = _cached_min(bytes(less), cfg)
                less[k] += 1
        _DISCARD_CACHE[key] = found
    return dict(found)


def draw_penalties(
    counts: tuple[int, ...],
    wild_rank: int,
    rules: Rules = Rules(),
    *,
    joker_penalty: int | None = None,
    kinds=None,
) -> dict[int, int]:
    """For every card kind ``x`` of ``kinds`` (default: all 53): the fewest penalty of the hand
    after drawing one ``x`` and then making its best discard (any card, ``x`` included).

    Exact. A card that cannot be in any meld of the hand with it is valued in closed form
    (kept in place of the hand's best discard, or thrown back); the others are solved, with
    only the melded cards worth more than the costliest deadwood card tried as discards.
    """
    cfg = _config(rules, wild_rank, joker_penalty)
    counts = _check_size(_check_counts(counts))
    if kinds is None:
        kinds = range(NUM_KINDS)
    weights = np.zeros(NUM_KINDS, np.int64)
    for x in kinds:
        weights[Card(x)] = 1
    values = _after_draw(cfg, counts, weights)[0]
    return {x: int(values[x]) for x in range(NUM_KINDS) if weights[x]}


def _after_draw(cfg: _Config, counts: bytes, weights: np.ndarray):
    """(values after each draw with weight > 0, discard values, the hand's value) as arrays
    of 53 (see :func:`draw_penalties`; discard values are -2 for kinds not held). The arrays
    may be buffers of the kernel: read them before the next call."""
    kernel = _kernel_of(cfg)
    if kernel is not None:
        value = kernel.after_draw(counts, weights)
        out, dv = kernel.out53, kernel.dv53
        if value >= 0 and not (out[weights > 0] < 0).any() and not (dv == -1).any():
            return out, dv, value
    # The Python solver: the same definitions, case by case.
    dv = np.full(NUM_KINDS, -2, np.int64)
    for k, v in discard_penalties(counts, cfg.wild_rank, cfg.rules, _jp(cfg)).items():
        dv[k] = v
    out = np.zeros(NUM_KINDS, np.int64)
    more = bytearray(counts)
    for x in np.flatnonzero(weights > 0):
        more[x] += 1
        out[x] = min(discard_penalties(bytes(more), cfg.wild_rank, cfg.rules, _jp(cfg)).values())
        more[x] -= 1
    return out, dv, _cached_min(counts, cfg)


def _discard_array(cfg: _Config, counts: bytes):
    """(discard values as an array of 53, -2 for kinds not held; the hand's value)."""
    kernel = _kernel_of(cfg)
    if kernel is not None:
        dv, value = kernel.discard_values(counts)
        if value >= 0 and not kernel.unsure():
            return dv, value
    dv = np.full(NUM_KINDS, -2, np.int64)
    for k, v in discard_penalties(counts, cfg.wild_rank, cfg.rules, _jp(cfg)).items():
        dv[k] = v
    return dv, _cached_min(counts, cfg)


def _jp(cfg: _Config) -> int | None:
    return None if cfg.joker_penalty == JOKER_PENALTY else cfg.joker_penalty


def solve(
    cards, wild_rank: int, rules: Rules = Rules(), *, joker_penalty: int | None = None
) -> Arrangement:
    """The arrangement of ``cards`` into melds and deadwood with the fewest penalty points.

    ``cards``: an iterable of :class:`~tt_env.game.cards.Card` / kinds, or a string for
    :func:`~tt_env.game.cards.parse_cards`. Runs are listed in position order.
    """
    # The fast path, as min_penalty's: rules the kernel serves, seen before, and a list or tuple
    # of Cards / ints, handed to the kernel as bytes (bytearray() checks 0..255 in C, the
    # kernel the rest); anything else, or a hand the kernel cannot certify, takes the checked path.
    if wild_rank.__class__ is int and joker_penalty is None:
        served = _LAST.get(wild_rank)
        if served is None or served[0] is not rules:
            served = _served(rules, wild_rank)
        if served is not None:
            cls = cards.__class__
            if (cls is list or cls is tuple) and _CARD_TYPES.issuperset(map(type, cards)):
                try:
                    kinds = bytearray(cards)  # faster to build than bytes
                except ValueError:  # an int beyond 0..255: the checked path says why
                    kinds = None
                if kinds is not None:
                    nm, nc, nd, value = served[3](kinds, True)
                    if value >= 0:
                        return _compiled_arrangement(served[1], nm, nc, nd, value)
    cfg = _config(rules, wild_rank, joker_penalty)
    counts = _counts_of(cards)
    kernel = _kernel_of(cfg)
    if kernel is not None:
        _serve(rules, cfg, kernel)
    return _solve_counts(cfg, counts)


_CARD_TYPES = frozenset((Card, int))


def _kernel_of(cfg: _Config):
    """The compiled kernel serving ``cfg``, or None (built on first use)."""
    kernel = cfg.kernel
    if kernel is False:
        kernel = cfg.kernel = kernel_for(cfg)
    return kernel


def _solve_counts(cfg: _Config, counts: bytes) -> Arrangement:
    kernel = _kernel_of(cfg)
    if kernel is not None:
        nm, nc, nd, value = kernel.arrange(counts)
        if value >= 0:
            return _compiled_arrangement(kernel, nm, nc, nd, value)
    mask, J, M = _hand(counts, cfg)
    found = _fast(cfg, mask, J, M, plan=True)
    if found is None:
        return _assemble(cfg, counts, *_search_plan(cfg, mask, J, M))
    if cfg.wild_rank_natural:
        return _assemble(cfg, counts, *_capped_plan(cfg, J, M, found))
    return _free_arrangement(cfg, counts, mask, J, M, found)


# A plan is (points, set groups, run groups, leftover mask, leaf): set groups are
# (natural cards, lo, hi, rank), run groups (natural places, lo, hi, suit); the leftover mask
# holds the natural cards in no meld (wild-rank ones among them join the pool); the leaf is
# (jokers, pooled wild-rank cards, wilds needed, wilds taken at most) for Config.leaf_plan.


# The kernel's meld keys -> their shapes (immutable, shared).
_KEYED_SHAPES: BoundedCache = BoundedCache(50_000, 190, "meld shapes by kernel key")


def _compiled_arrangement(kernel, nm: int, nc: int, nd: int, value: int) -> Arrangement:
    """The arrangement the kernel spelled out (see ``tt_arrange`` in solver/arrange.h) as Python
    objects."""
    cards = [ALL_CARDS[c] for c in kernel.out_bytes[: nc + nd]]
    melds, shapes = [], []
    if nm:
        start = 0
        for key in kernel.keys[:nm].tolist():
            shape = _KEYED_SHAPES.get(key)
            if shape is None:
                shape = _KEYED_SHAPES[key] = _shape(*meld_of_key(key))
            end = start + shape.size
            melds.append(cards[start:end])
            shapes.append(shape)
            start = end
    return _arrangement(melds, shapes, cards[nc:], value)


_new = object.__new__
_set = object.__setattr__


def _arrangement(melds, shapes, deadwood, points) -> Arrangement:
    """``Arrangement(melds, shapes, deadwood, points)`` in a third less time: the frozen
    dataclass's __init__ sets each field through object.__setattr__, this sets them at once."""
    arrangement = _new(Arrangement)
    _set(
        arrangement,
        "__dict__",
        {"melds": melds, "shapes": shapes, "deadwood": deadwood, "points": points},
    )
    return arrangement


# ------------------------------------------------------------------ for the layers above
# The valuation layer, the learned features and the search agent value many hands under one
# rule set; they reach the solver through these names (its one configuration per rule set and
# wild rank, the compiled kernel of that configuration, the batched values), never through the
# modules' private parts. Their compiled twins take the extension's Kernel objects
# (``kernel_of(cfg).c``) and call the solver's C functions (solver.h) directly.
solver_config = _config
kernel_of = _kernel_of
after_draw = _after_draw
cached_min_penalty = _cached_min
discard_array = _discard_array
