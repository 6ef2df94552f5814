"""A slow, obviously correct reference for the meld solver (tests only).

It shares nothing with :mod:`tt_env.melds`. A group of cards is a meld when one literal reading
of RULES.md ("Melds", "Wild cards in melds") fits it: a set of some rank, or a run of some suit
starting at some position, with every card either natural in its own place or a wild. The best
arrangement of a hand is found by trying every subset of the hand as a meld and packing
disjoint melds with a memo over the cards still free. Cards are handled by index, so identical
cards (several decks) are simply different indices.

Slow on purpose: about 2^n meld checks for an n-card hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from itertools import product

from tt_env.cards import JOKER, NUM_RANKS, NUM_SUITS, Card, parse_cards
from tt_env.rules import Rules

CardsLike = str | Iterable[int]


def as_cards(cards: CardsLike) -> list[Card]:
    """Cards from a string (``"3H 4H JK"``) or from card indices."""
    if isinstance(cards, str):
        return parse_cards(cards)
    return [Card(int(c)) for c in cards]


def is_wild(card: int, wild_rank: int) -> bool:
    """Jokers and every card of the wild rank (any suit)."""
    return card == JOKER or Card(card).rank == wild_rank


def _count_ok(naturals: int, wilds: int, rules: Rules) -> bool:
    # RULES.md: at most max_wilds_per_meld cards used as wilds; at least one natural card
    # unless all_wild_melds.
    if rules.max_wilds_per_meld is not None and wilds > rules.max_wilds_per_meld:
        return False
    return naturals >= 1 or rules.all_wild_melds


def _fits_set(cards: Sequence[Card], rank: int, wild_rank: int, rules: Rules) -> bool:
    """The cards read as a set of ``rank``: its natural cards are the non-jokers of that rank."""
    naturals = sum(1 for c in cards if c != JOKER and c.rank == rank)
    wilds = len(cards) - naturals
    if any(not is_wild(c, wild_rank) for c in cards if c == JOKER or c.rank != rank):
        return False
    return _count_ok(naturals, wilds, rules)


def _natural_places(card: Card, suit: int, rules: Rules) -> tuple[int, ...]:
    """Positions where ``card`` is natural in a run of ``suit`` (ace: 1, or 1 and 14)."""
    if card == JOKER or card.suit_index != suit:
        return ()
    if card.rank == 1 and rules.aces_high:
        return (1, 14)
    return (card.rank,)


def _fits_run(
    cards: Sequence[Card], suit: int, low: int, wild_rank: int, rules: Rules
) -> bool:
    """The cards read as the run of ``suit`` at positions ``low .. low + len - 1``.

    Every card picks one reading: natural in its own place (inside the window), or a wild
    (only if it is wild). The naturals' places must differ; the wilds fill the other places.
    """
    window = range(low, low + len(cards))
    choices = []
    for card in cards:
        options: list[int | None] = [p for p in _natural_places(card, suit, rules) if p in window]
        if is_wild(card, wild_rank):
            options.append(None)  # used as a wild
        if not options:
            return False
        choices.append(options)
    for reading in product(*choices):
        places = [p for p in reading if p is not None]
        if len(set(places)) != len(places):
            continue
        if _count_ok(len(places), len(cards) - len(places), rules):
            return True
    return False


def brute_force_is_meld(cards: CardsLike, wild_rank: int, rules: Rules = Rules()) -> bool:
    """Whether the cards, all of them, form one meld (a set or a run) under ``rules``."""
    cards = as_cards(cards)
    return _is_meld_sorted(tuple(sorted(cards)), wild_rank, rules)


@lru_cache(maxsize=200_000)
def _is_meld_sorted(cards: tuple[Card, ...], wild_rank: int, rules: Rules) -> bool:
    n = len(cards)
    if n < 3:
        return False
    if any(_fits_set(cards, rank, wild_rank, rules) for rank in range(1, NUM_RANKS + 1)):
        return True
    top = 14 if rules.aces_high else 13  # highest position; runs never wrap
    for suit in range(NUM_SUITS):
        for low in range(1, top - n + 2):
            if _fits_run(cards, suit, low, wild_rank, rules):
                return True
    return False


def deadwood_penalty(
    card: int, wild_rank: int, rules: Rules, joker_penalty: int | None = None
) -> int:
    """What one leftover card costs (RULES.md "Scoring"; a joker may cost ``joker_penalty``)."""
    if card == JOKER and joker_penalty is not None:
        return joker_penalty
    return rules.penalty_table(wild_rank)[card]


def brute_force_points(
    cards: CardsLike, wild_rank: int, rules: Rules = Rules(), joker_penalty: int | None = None
) -> int:
    """The fewest penalty points of deadwood over every split into disjoint melds + deadwood."""
    cards = as_cards(cards)
    n = len(cards)
    cost = [deadwood_penalty(c, wild_rank, rules, joker_penalty) for c in cards]
    # Every meld (as a bit mask of card indices), filed under its lowest card.
    melds_from: list[list[int]] = [[] for _ in range(n)]
    for mask in range(1 << n):
        members = [i for i in range(n) if mask >> i & 1]
        if len(members) >= 3 and brute_force_is_meld([cards[i] for i in members], wild_rank, rules):
            melds_from[members[0]].append(mask)

    @lru_cache(maxsize=None)
    def best(free: int) -> int:
        if free == 0:
            return 0
        first = (free & -free).bit_length() - 1
        # The lowest free card is either deadwood or in one of the melds starting with it.
        result = cost[first] + best(free & ~(1 << first))
        for meld in melds_from[first]:
            if meld & free == meld:
                result = min(result, best(free & ~meld))
        return result

    return best((1 << n) - 1)
