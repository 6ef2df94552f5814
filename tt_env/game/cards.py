"""Cards: the 53 card kinds (52 standard cards and the joker), parsing, formatting, decks.

Every card kind has a stable index used everywhere in tt_env (hands, observations, actions):

=========  ==========================================  ==================
index      card kind                                   example
=========  ==========================================  ==================
0 .. 12    clubs, ace (rank 1) .. king (rank 13)       ``0`` = AC
13 .. 25   diamonds                                    ``13 + 6`` = 7D
26 .. 38   hearts                                      ``26 + 9`` = TH
39 .. 51   spades                                      ``51`` = KS
52         the joker                                   ``52`` = JK
=========  ==========================================  ==================

:class:`Card` is an ``int`` subclass, so a card *is* its index and can be used wherever an index
is expected; ``str(card)`` gives the short name (``"3H"``, ``"TS"``, ``"JK"``).
Hot paths use the compact hand form: a tuple of 53 counts (:func:`to_counts`).
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Iterable

import numpy as np

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
RANK_NAMES = ("", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K")
NUM_RANKS = 13
NUM_SUITS = 4
JOKER = 52
NUM_KINDS = 53  # 52 standard card kinds + the joker
CARDS_PER_DECK = 52


class Card(int):
    """One card kind: an ``int`` in ``0..52`` with a rank, a suit and a short name.

    ``Card(k)`` returns the shared instance for index ``k``; ``Card.of(rank, suit)`` builds one
    from a rank (1..13) and a suit letter (``"C"``, ``"D"``, ``"H"``, ``"S"``).
    """

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if (
            isinstance(index, (int, np.integer))
            and not isinstance(index, bool)
            and (0 <= index < NUM_KINDS)
        ):
            return ALL_CARDS[index]
        raise ValueError(
            f"card index must be an integer in 0..{NUM_KINDS - 1}, got {_short(index)}"
        )

    @classmethod
    def of(cls, rank: int, suit: str) -> Card:
        if not 1 <= rank <= NUM_RANKS:
            raise ValueError(f"rank must be 1..13, got {rank!r}")
        if suit not in SUITS or len(suit) != 1:
            raise ValueError(f"suit must be one of C, D, H, S, got {suit!r}")
        return cls(SUITS.index(suit) * NUM_RANKS + rank - 1)

    @property
    def is_joker(self) -> bool:
        return self == JOKER

    @property
    def rank(self) -> int:
        """1 (ace) .. 13 (king); 0 for the joker."""
        return 0 if self == JOKER else self % NUM_RANKS + 1

    @property
    def suit(self) -> str:
        """``"C"``, ``"D"``, ``"H"`` or ``"S"``; ``""`` for the joker."""
        return "" if self == JOKER else SUITS[self // NUM_RANKS]

    @property
    def suit_index(self) -> int:
        """0..3 (C, D, H, S); -1 for the joker."""
        return -1 if self == JOKER else self // NUM_RANKS

    @property
    def pretty(self) -> str:
        """The name with a suit symbol and ``10`` spelled out: ``"10♥"``, ``"JK"``."""
        if self == JOKER:
            return "JK"
        rank = "10" if self.rank == 10 else RANK_NAMES[self.rank]
        return rank + SUIT_SYMBOLS[self // NUM_RANKS]

    def __str__(self) -> str:
        if self == JOKER:
            return "JK"
        return RANK_NAMES[self.rank] + SUITS[self // NUM_RANKS]

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def __reduce__(self):
        return (Card, (int(self),))


# The shared instances that Card(k) returns, made once (int.__new__: Card.__new__ hands them out).
ALL_CARDS: tuple[Card, ...] = tuple(int.__new__(Card, k) for k in range(NUM_KINDS))

_RANK_TOKENS = {name: r for r, name in enumerate(RANK_NAMES) if name}
_RANK_TOKENS.update({"10": 10, "1": 1})
_SUIT_TOKENS = {s: s for s in SUITS}
_SUIT_TOKENS.update(zip("♣♦♥♠", SUITS))
_SUIT_TOKENS.update(zip("♧♢♡♤", SUITS))
_JOKER_TOKENS = {"JK", "JOKER", "🃏"}
_TOKEN_RE = re.compile(r"(10|[2-9AJQKT1])([CDHS♣♦♥♠♧♢♡♤])")
# Upper case for ASCII letters only: str.upper() turns some other letters into ASCII ones
# ("ſ", the long s, becomes "S"; "ß" becomes "SS"), which would read "10ſ" as the ten of spades.
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _short(value: object) -> str:
    """``repr(value)``, shortened: an error message must not be a megabyte long, nor recurse."""
    return reprlib.repr(value)


def parse_card(token: str | int) -> Card:
    """Parse one card name (``"3H"``, ``"10S"``, ``"TS"``, ``"7♥"``, ``"JK"``) or index."""
    if isinstance(token, (int, np.integer)) and not isinstance(token, bool):
        return Card(int(token))
    if not isinstance(token, str):
        raise TypeError(f"a card is a name like '7H' or an index 0..52, got {_short(token)}")
    text = token.strip().translate(_ASCII_UPPER).replace("\ufe0f", "")
    if text in _JOKER_TOKENS:
        return ALL_CARDS[JOKER]
    match = _TOKEN_RE.fullmatch(text)
    if not match:
        raise ValueError(
            f"unknown card {_short(token)}: expected a rank (A, 2..10, T, J, Q, K) followed by a "
            "suit (C, D, H, S or a suit symbol), or JK for the joker"
        )
    return Card.of(_RANK_TOKENS[match.group(1)], _SUIT_TOKENS[match.group(2)])


def parse_cards(text: str | Iterable[str | int]) -> list[Card]:
    """Parse cards from a string (``"3H 4H TS 10S JK 7♥ Q♠"``) or an iterable of names/indices.

    Names are separated by white space or commas. Raises :class:`ValueError` naming the first
    unknown token, and :class:`TypeError` for anything that is neither a string nor an iterable
    of names and indices (bytes too: their items are small integers, not card names).
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        raise TypeError(
            f"cards are a string of names or a list of names and indices, not "
            f"{type(text).__name__}: decode the bytes first"
        )
    if isinstance(text, str):
        tokens: Iterable[str | int] = [t for t in re.split(r"[\s,]+", text) if t]
    else:
        try:
            tokens = iter(text)
        except TypeError:
            raise TypeError(
                f"cards are a string of names or a list of names and indices, got {_short(text)}"
            ) from None
    return [parse_card(t) for t in tokens]


def format_cards(cards: Iterable[int], pretty: bool = False) -> str:
    """Card names joined by spaces: ``"3H 4H JK"`` (or ``"3♥ 4♥ JK"`` with ``pretty``)."""
    return " ".join(ALL_CARDS[c].pretty if pretty else str(ALL_CARDS[c]) for c in cards)


def to_counts(cards: Iterable[int]) -> tuple[int, ...]:
    """The compact hand form: a tuple of 53 counts, one per card kind."""
    counts = [0] * NUM_KINDS
    for c in cards:
        counts[c] += 1
    return tuple(counts)


def from_counts(counts: Iterable[int]) -> list[Card]:
    """The cards of a compact hand, in index order."""
    return [ALL_CARDS[k] for k, n in enumerate(counts) for _ in range(n)]


def make_deck(num_decks: int = 1, jokers_per_deck: int = 0) -> list[Card]:
    """``num_decks`` standard decks plus ``jokers_per_deck`` jokers each, in index order."""
    if num_decks < 1:
        raise ValueError(f"num_decks must be at least 1, got {num_decks}")
    if jokers_per_deck < 0:
        raise ValueError(f"jokers_per_deck must not be negative, got {jokers_per_deck}")
    per_deck = list(ALL_CARDS[:CARDS_PER_DECK]) + [ALL_CARDS[JOKER]] * jokers_per_deck
    return per_deck * num_decks


def shuffled_deck(
    rng: np.random.Generator, num_decks: int = 1, jokers_per_deck: int = 0
) -> list[Card]:
    """A deck as :func:`make_deck` builds it, shuffled by ``rng``."""
    deck = make_deck(num_decks, jokers_per_deck)
    order = rng.permutation(len(deck))
    return [deck[i] for i in order]
