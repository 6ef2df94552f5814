"""Checking what callers pass in: hands as cards or as 53 counts."""

from __future__ import annotations

from tt_env.game.cards import NUM_KINDS, Card, parse_card, parse_cards

MAX_HAND_CARDS = 30
"""The largest hand the solver takes (a hand in play holds at most 16 cards: 15 dealt with
``extra_rounds=2``, and the card just drawn); beyond it the exact search could take minutes."""


def _check_size(counts: bytes) -> bytes:
    """``counts`` unchanged, or ValueError when it holds more than :data:`MAX_HAND_CARDS`."""
    total = sum(counts)
    if total > MAX_HAND_CARDS:
        raise ValueError(f"the solver takes hands of at most {MAX_HAND_CARDS} cards, got {total}")
    return counts


def _counts_of(cards) -> bytes:
    """53 counts (as bytes) from a string or an iterable of cards / kinds / card names."""
    if isinstance(cards, str):
        cards = parse_cards(cards)
    elif (
        cards is None
        or isinstance(cards, (bytes, bytearray, memoryview))
        or not hasattr(cards, "__iter__")
    ):
        raise TypeError(
            "cards must be a string of card names or an iterable of cards, kinds "
            f"or names, got {type(cards).__name__}"
        )
    counts = bytearray(NUM_KINDS)
    try:
        for c in cards:
            if c.__class__ is not Card and not (c.__class__ is int and 0 <= c < NUM_KINDS):
                c = parse_card(c)
            counts[c] += 1
    except ValueError as e:
        if "byte must be" in str(e):
            raise ValueError("a hand may hold at most 255 cards of one kind") from None
        raise
    return _check_size(bytes(counts))


def _check_counts(counts) -> bytes:
    """53 counts as bytes (ValueError unless they are 53 integers 0..255)."""
    cls = counts.__class__
    if cls is not tuple and cls is not bytes and cls is not bytearray:
        if (
            counts is None
            or isinstance(counts, (int, float, str))
            or not hasattr(counts, "__iter__")
        ):
            raise ValueError(f"counts must be a sequence of {NUM_KINDS} integers, got {counts!r}")
        counts = list(counts)
    try:
        key = bytes(counts)  # every entry an integer 0..255, checked in C
    except (TypeError, ValueError):
        bad = next((c for c in counts if not hasattr(c, "__index__") or not 0 <= c <= 255), None)
        raise ValueError(f"counts must be integers 0..255, got {bad!r}") from None
    if len(key) != NUM_KINDS:
        raise ValueError(
            f"counts must have {NUM_KINDS} entries (one per card kind), got {len(key)}"
        )
    return key
