"""A slow, obviously correct reference for the meld solver (tests only).

It shares nothing with :mod:`tt_env.game.melds`. A group of cards is a meld when one literal reading
of RULES.md ("Melds", "Wild cards in melds") fits it: a set of some rank, or a run of some suit
at some positions, with every card either natural in its own place or a wild. The best
arrangement of a hand is found by trying every group of cards of the hand as a meld and packing
disjoint melds with a memo over the cards still free. Cards are handled by index, so identical
cards (several decks) are simply different indices.

Slow on purpose: up to 2^n meld checks for an n-card hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache, lru_cache
from itertools import product

from tt_env.game.cards import JOKER, NUM_RANKS, NUM_SUITS, Card, parse_cards
from tt_env.game.rules import Rules

CardsLike = str | Iterable[int]


def as_cards(cards: CardsLike) -> list[Card]:
    """Cards from a string (``"3H 4H JK"``) or from card indices."""
    if isinstance(cards, str):
        return parse_cards(cards)
    return [Card(int(c)) for c in cards]


def is_wild(card: int, wild_rank: int) -> bool:
    """Jokers and every card of the wild rank (any suit)."""
    return card == JOKER or card % NUM_RANKS + 1 == wild_rank


def top_place(rules: Rules) -> int:
    """The highest place in a run: the king (13), or the high ace (14) with ``aces_high``."""
    return 14 if rules.aces_high else 13


def count_ok(naturals: int, wilds: int, rules: Rules) -> bool:
    """RULES.md: at most ``max_wilds_per_meld`` cards used as wilds; at least one natural card
    unless ``all_wild_melds``."""
    if rules.max_wilds_per_meld is not None and wilds > rules.max_wilds_per_meld:
        return False
    return naturals >= 1 or rules.all_wild_melds


def set_wilds(cards: Sequence[Card], rank: int, wild_rank: int) -> int | None:
    """Cards used as wilds when ``cards`` stand in a set of ``rank``; None if one cannot.

    The natural cards of a set are the non-jokers of its rank (a wild-rank card of that rank
    counts as natural there); every other card must be wild.
    """
    wilds = [c for c in cards if c == JOKER or c.rank != rank]
    if not all(is_wild(c, wild_rank) for c in wilds):
        return None
    return len(wilds)


def _natural_places(card: Card, suit: int, rules: Rules) -> tuple[int, ...]:
    """Places where ``card`` is natural in a run of ``suit`` (an ace: 1, and 14 if aces high)."""
    if card == JOKER or card.suit_index != suit:
        return ()
    if card.rank == 1 and rules.aces_high:
        return (1, 14)
    return (card.rank,)


def run_wilds(
    cards: Sequence[Card], suit: int, places: Iterable[int], wild_rank: int, rules: Rules
) -> set[int]:
    """Cards used as wilds, for every way to put ``cards`` one to a place into ``places`` of a
    run of ``suit``: each card is natural in its own place or, if it is wild, a wild anywhere."""
    places = set(places)
    if len(places) != len(cards):
        return set()
    choices = []
    for card in cards:
        options: list[int | None] = [p for p in _natural_places(card, suit, rules) if p in places]
        if is_wild(card, wild_rank):
            options.append(None)  # used as a wild; the wilds fill the places left over
        if not options:
            return set()
        choices.append(options)
    found = set()
    for reading in product(*choices):
        naturals = [p for p in reading if p is not None]
        if len(set(naturals)) == len(naturals):
            found.add(len(cards) - len(naturals))
    return found


def brute_force_is_meld(cards: CardsLike, wild_rank: int, rules: Rules = Rules()) -> bool:
    """Whether the cards, all of them, form one meld (a set or a run) under ``rules``."""
    return brute_force_fewest_wilds(cards, wild_rank, rules) is not None


def brute_force_fewest_wilds(cards: CardsLike, wild_rank: int, rules: Rules = Rules()):
    """The fewest cards used as wilds over every valid reading of the cards as one meld;
    None if they are no meld."""
    return _fewest_wilds_sorted(tuple(sorted(as_cards(cards))), wild_rank, rules)


@lru_cache(maxsize=200_000)
def _fewest_wilds_sorted(cards: tuple[Card, ...], wild_rank: int, rules: Rules) -> int | None:
    n = len(cards)
    if n < 3:
        return None
    found = set()
    for rank in range(1, NUM_RANKS + 1):
        found.add(set_wilds(cards, rank, wild_rank))
    natural_suits = {c.suit_index for c in cards if not is_wild(c, wild_rank)}
    # Only a shortcut: the non-wild cards of a run are naturals of its suit.
    for suit in (natural_suits or range(NUM_SUITS)) if len(natural_suits) <= 1 else ():
        # A run never wraps: its places are low .. low + n - 1 within 1 .. 13 (or 14).
        for low in range(1, top_place(rules) - n + 2):
            found |= run_wilds(cards, suit, range(low, low + n), wild_rank, rules)
    return min((w for w in found if w is not None and count_ok(n - w, w, rules)), default=None)


def _may_meld(cards: list[Card], wild_rank: int) -> bool:
    """A shortcut that only skips hopeless groups: a meld's non-wild cards share a rank (a set)
    or a suit (a run), so no bigger group holding these cards can meld either."""
    naturals = [c for c in cards if not is_wild(c, wild_rank)]
    return len({c.rank for c in naturals}) <= 1 or len({c.suit for c in naturals}) <= 1


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
    return _points_sorted(tuple(sorted(as_cards(cards))), wild_rank, rules, joker_penalty)


@lru_cache(maxsize=20_000)
def _points_sorted(
    cards: tuple[Card, ...], wild_rank: int, rules: Rules, joker_penalty: int | None
) -> int:
    n = len(cards)
    cost = [deadwood_penalty(c, wild_rank, rules, joker_penalty) for c in cards]
    # Every meld (as a bit mask of card indices), filed under its lowest card.
    melds_from: list[list[int]] = [[] for _ in range(n)]

    def visit(members: list[int], next_index: int) -> None:
        group = [cards[i] for i in members]
        if len(members) >= 3 and brute_force_is_meld(group, wild_rank, rules):
            melds_from[members[0]].append(sum(1 << i for i in members))
        for i in range(next_index, n):
            if _may_meld(group + [cards[i]], wild_rank):
                visit(members + [i], i + 1)

    visit([], 0)

    @cache
    def best(free: int) -> int:
        if free == 0:
            return 0
        first = (free & -free).bit_length() - 1
        # The lowest free card is either deadwood or in one of the melds holding it.
        result = cost[first] + best(free & ~(1 << first))
        for meld in melds_from[first]:
            if meld & free == meld:
                result = min(result, best(free & ~meld))
        return result

    return best((1 << n) - 1)


# ---------------------------------------------------------------------------- shapes, lay-offs
# A meld shape (tt_env.game.melds.MeldShape) is read through its fields only: kind ("set", "run",
# "wild"), rank, suit, low, high, wilds, size.


def shape_wild_counts(cards: CardsLike, shape, wild_rank: int, rules: Rules) -> set[int]:
    """The numbers of cards used as wilds, one per way to read ``cards`` as exactly ``shape``
    (a set of its rank, a run of its suit over ``low .. high``, or wild cards only); empty if
    the cards cannot be read so. (One way to lay a run may use more wilds than another: a 7H
    beside its own place while a joker takes it.)"""
    cards = as_cards(cards)
    if len(cards) != shape.size:
        return set()
    if shape.kind == "set":
        wilds = set_wilds(cards, shape.rank, wild_rank)
        return set() if wilds is None else {wilds}
    if shape.kind == "run":
        if not 1 <= shape.low <= shape.high <= top_place(rules):
            return set()
        return run_wilds(cards, shape.suit, range(shape.low, shape.high + 1), wild_rank, rules)
    if shape.kind == "wild":
        return {len(cards)} if all(is_wild(c, wild_rank) for c in cards) else set()
    raise ValueError(f"unknown meld kind {shape.kind!r}")


def wilds_in_laid_run(cards: CardsLike, suit: int, low: int, wild_rank: int, rules: Rules):
    """Cards used as wilds in a run laid out in position order from ``low`` (each card natural
    in its place or a wild); None if some card can be neither."""
    wilds = 0
    for place, card in enumerate(as_cards(cards), start=low):
        if place not in _natural_places(card, suit, rules):
            if not is_wild(card, wild_rank) or place > top_place(rules):
                return None
            wilds += 1
    return wilds


def extension_ok(shape, added: Sequence[Card], wild_rank: int, rules: Rules) -> bool:
    """Whether the table meld ``shape`` with the cards ``added`` is still a valid meld.

    The meld's cards keep their places: a set takes more cards of its rank or wilds; a run
    grows at its ends (the new cards fill the new places); a meld of wild cards only is read
    afresh as its wilds (jokers) plus the new cards.
    """
    if not added:
        return True
    naturals = shape.size - shape.wilds
    if shape.kind == "set":
        wilds = set_wilds(added, shape.rank, wild_rank)
        return wilds is not None and count_ok(
            naturals + len(added) - wilds, shape.wilds + wilds, rules
        )
    if shape.kind == "run":
        k = len(added)
        for low in range(max(1, shape.low - k), shape.low + 1):
            high = low + shape.size + k - 1
            if high < shape.high or high > top_place(rules):
                continue
            places = [p for p in range(low, high + 1) if not shape.low <= p <= shape.high]
            for wilds in run_wilds(added, shape.suit, places, wild_rank, rules):
                if count_ok(naturals + k - wilds, shape.wilds + wilds, rules):
                    return True
        return False
    if shape.kind == "wild":
        return brute_force_is_meld([Card(JOKER)] * shape.size + list(added), wild_rank, rules)
    raise ValueError(f"unknown meld kind {shape.kind!r}")


def grown_shape_ok(before, after, added: Sequence[Card], wild_rank: int, rules: Rules) -> bool:
    """Whether ``after`` is the table meld ``before`` with the cards ``added`` laid off: the
    same set with more cards, or the same run over wider places with the new cards in the new
    places, its wilds counted right; a meld of wild cards only may become anything."""
    added = as_cards(added)
    if after.size != before.size + len(added) or not count_ok(
        after.size - after.wilds, after.wilds, rules
    ):
        return False
    if before.kind == "wild":
        return True
    if (after.kind, after.rank, after.suit) != (before.kind, before.rank, before.suit):
        return False
    if before.kind == "set":
        return after.wilds - before.wilds == set_wilds(added, before.rank, wild_rank)
    if not (
        after.low <= before.low
        and after.high >= before.high
        and after.high - after.low + 1 == after.size
        and after.high <= top_place(rules)
    ):
        return False
    places = [p for p in range(after.low, after.high + 1) if not before.low <= p <= before.high]
    return after.wilds - before.wilds in run_wilds(added, before.suit, places, wild_rank, rules)


def brute_force_lay_off_points(
    cards: CardsLike,
    table: Sequence,
    wild_rank: int,
    rules: Rules = Rules(),
    joker_penalty: int | None = None,
) -> int:
    """The fewest penalty points after laying off cards onto the table melds and melding the
    rest: every card either stays in hand or goes onto one table meld, each grown table meld
    must stay valid, and the cards that stay are arranged as :func:`brute_force_points` does."""
    cards = as_cards(cards)
    best = None
    for targets in product(range(-1, len(table)), repeat=len(cards)):
        grown = [[c for c, t in zip(cards, targets) if t == i] for i in range(len(table))]
        if not all(extension_ok(s, g, wild_rank, rules) for s, g in zip(table, grown)):
            continue
        rest = [c for c, t in zip(cards, targets) if t == -1]
        points = brute_force_points(rest, wild_rank, rules, joker_penalty)
        best = points if best is None else min(best, points)
    return best
