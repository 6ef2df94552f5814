"""The go-out check against the solver asked about every discard, on many random hands."""

from __future__ import annotations

import random

import pytest

from tt_env.cards import make_deck, parse_cards, to_counts
from tt_env.going_out import go_out_discards
from tt_env.melds import min_penalty
from tt_env.rules import Rules


def slow_go_out(counts, wild_rank, rules):
    out = []
    for k, n in enumerate(counts):
        if n:
            rest = list(counts)
            rest[k] -= 1
            if min_penalty(tuple(rest), wild_rank, rules) == 0:
                out.append(k)
    return tuple(out)


RULE_SETS = [
    Rules(),
    Rules.preset("one-wild"),
    Rules(aces_high=True),
    Rules(max_wilds_per_meld=0),
    Rules(max_wilds_per_meld=2, aces_high=True),
    Rules(num_decks=2, jokers_per_deck=2),
    Rules(num_decks=3, jokers_per_deck=2, all_wild_melds=True, aces_high=True),
]


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: repr(r)[:60])
def test_go_out_discards_equal_solver_on_every_discard(rules):
    rnd = random.Random(7)
    deck = make_deck(rules.decks, rules.jokers_per_deck)
    found = 0
    for _ in range(400):
        wild_rank = rnd.randint(1, 13)
        size = rnd.randint(3, 16)
        if rnd.random() < 0.5:
            # Clustered hands: few ranks and suits, so that going out is often possible.
            low = rnd.randint(1, 10)
            pool = [c for c in deck if c == 52 or (c.rank in range(low, low + 5)
                                                   and c.suit in "HS")] or deck
            hand = rnd.sample(pool, min(size, len(pool)))
        else:
            hand = rnd.sample(deck, size)
        counts = to_counts(hand)
        expected = slow_go_out(counts, wild_rank, rules)
        assert go_out_discards(counts, wild_rank, rules) == expected, (hand, wild_rank)
        found += bool(expected)
    assert found >= 20  # the test meets hands that can go out, not only hopeless ones


def test_go_out_examples():
    rules = Rules()
    counts = to_counts(parse_cards("4H 5H 6H 9C"))
    assert go_out_discards(counts, 3, rules) == (parse_cards("9C")[0],)
    counts = to_counts(parse_cards("4H 5H 9D 9C"))
    assert go_out_discards(counts, 3, rules) == ()
