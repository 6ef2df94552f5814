"""The meld solver's entry points, which :mod:`tt_env.game.melds` re-exports (its docstring
gives the terms and the algorithm): the fewest penalty points of a hand (:func:`min_penalty`,
:func:`min_penalties`), its arrangement (:func:`solve`), the values of its discards and draws
(:func:`discard_penalties`, :func:`draw_penalties`), their caches, and the names the layers
above build on.
"""

from __future__ import annotations

import numpy as np

from tt_env.game.cards import ALL_CARDS, NUM_KINDS, Card
from tt_env.game.melds._assemble import _assemble, _capped_plan, _free_arrangement, _search_plan
from tt_env.game.melds._cache import BoundedCache, clear_all
from tt_env.game.melds._config import _Config, _config
from tt_env.game.melds._fast import _fast, _hand
from tt_env.game.melds._inputs import MAX_HAND_CARDS, _check_counts, _check_size, _counts_of
from tt_env.game.melds._kernel import kernel_for, meld_of_key
from tt_env.game.melds._search import _search
from tt_env.game.melds._types import Arrangement, _shape
from tt_env.game.rules import JOKER_PENALTY, Rules

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
