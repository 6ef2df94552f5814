"""The solver's result types: :class:`MeldShape`, :class:`Arrangement`, :class:`LayOff`."""

from __future__ import annotations

from dataclasses import dataclass

from tt_env.game.cards import Card
from tt_env.game.melds._cache import BoundedCache


@dataclass(frozen=True)
class MeldShape:
    """What a meld on the table is, as far as lay-offs care.

    ``kind`` is ``"set"``, ``"run"`` or ``"wild"`` (a meld of wild cards only, with
    ``all_wild_melds``). ``rank`` is the rank of a set (else 0); ``suit`` (0..3 = C, D, H, S),
    ``low`` and ``high`` (positions 1..14) describe a run (else -1, 0, 0). ``wilds`` counts the
    cards used as wilds, ``size`` all its cards.
    """

    kind: str
    rank: int
    suit: int
    low: int
    high: int
    wilds: int
    size: int


_SHAPES: BoundedCache = BoundedCache(50_000, 190, "meld shapes")


def _shape(kind: str, rank: int, suit: int, low: int, high: int, wilds: int, size: int):
    """A shared MeldShape (they are immutable; building one costs more than looking it up)."""
    key = (kind, rank, suit, low, high, wilds, size)
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _SHAPES[key] = MeldShape(
            kind=kind, rank=rank, suit=suit, low=low, high=high, wilds=wilds, size=size
        )
    return shape


MELD_KINDS = ("set", "run", "wild")  # a meld's kind, by its index in the compiled code
_KIND_INDEX = {kind: i for i, kind in enumerate(MELD_KINDS)}


def shape_tuple(shape: MeldShape) -> tuple[int, ...]:
    """A meld shape as the compiled code holds it: (kind as an index of ``MELD_KINDS``, rank,
    suit, low, high, wilds, size)."""
    return (
        _KIND_INDEX[shape.kind],
        shape.rank,
        shape.suit,
        shape.low,
        shape.high,
        shape.wilds,
        shape.size,
    )


def shape_of(values: tuple[int, ...]) -> MeldShape:
    """The :class:`MeldShape` of a shape tuple (:func:`shape_tuple`)."""
    kind, rank, suit, low, high, wilds, size = values
    return _shape(MELD_KINDS[kind], rank, suit, low, high, wilds, size)


@dataclass(frozen=True)
class Arrangement:
    """A hand split into melds and deadwood; ``points`` is the deadwood's penalty (not doubled)."""

    melds: list[list[Card]]
    shapes: list[MeldShape]
    deadwood: list[Card]
    points: int


@dataclass(frozen=True)
class LayOff:
    """The redemption play: own melds and deadwood, cards laid off onto table melds, new table."""

    arrangement: Arrangement
    layoffs: list[tuple[int, list[Card]]]  # (index of the table meld, cards laid off onto it)
    table: list[MeldShape]  # every table meld's shape after the lay-offs
