"""The go-out check against the solver asked about every discard, on many random hands.

The pre-check of :mod:`tt_env.game.going_out` may only reject discards that the solver rejects too.
Random hands rarely go out, so besides them the tests build hands from melds (some cards
replaced by wilds, an extra card or two added): hands that go out, or just miss, are where an
unsound condition would show.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from tt_env.game.cards import JOKER, NUM_KINDS, NUM_RANKS, make_deck, parse_cards, to_counts
from tt_env.game.engine import Game, MoveKind, Phase
from tt_env.game.going_out import go_out_discards
from tt_env.game.melds import min_penalty
from tt_env.game.rules import Rules


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
    Rules(max_wilds_per_meld=1, aces_high=True, jokers_per_deck=2),
    Rules(max_wilds_per_meld=2, aces_high=True),
    Rules(max_wilds_per_meld=2, num_decks=2),
    Rules(jokers_per_deck=2),
    Rules(num_decks=2, jokers_per_deck=2),
    Rules(num_players=4, num_decks=2, aces_high=True),
    Rules(num_decks=2, all_wild_melds=True),
    Rules(num_decks=3, jokers_per_deck=2, all_wild_melds=True, aces_high=True),
    Rules(num_decks=2, jokers_per_deck=2, all_wild_melds=True, max_wilds_per_meld=3),
    Rules(num_decks=2, false_out_penalty=20),
]


def _kind(rank: int, suit: int) -> int:
    return suit * NUM_RANKS + rank - 1


def melded_hand(rnd: random.Random, rules: Rules, wild_rank: int) -> list[int]:
    """Random sets and runs, some cards replaced by wilds, plus one or two loose cards."""
    top = 14 if rules.aces_high else 13
    cards = []
    for _ in range(rnd.randint(1, 4)):
        if rnd.random() < 0.4:
            rank = rnd.randint(1, 13)
            suits = [rnd.randrange(4) for _ in range(rnd.randint(3, 4))]
            if rules.decks == 1:
                suits = rnd.sample(range(4), len(suits))
            meld = [_kind(rank, s) for s in suits]
        else:
            length = rnd.randint(3, 6)
            low = rnd.randint(1, top - length + 1)
            suit = rnd.randrange(4)
            meld = [_kind(1 if p == 14 else p, suit) for p in range(low, low + length)]
        for i in range(len(meld)):
            if rnd.random() < 0.25:
                wilds = (
                    [JOKER]
                    if rules.jokers_per_deck and rnd.random() < 0.5
                    else [_kind(wild_rank, s) for s in range(4)]
                )
                meld[i] = rnd.choice(wilds)
        cards += meld
    cards += [
        rnd.randrange(NUM_KINDS if rules.jokers_per_deck else JOKER)
        for _ in range(rnd.choice([1, 1, 1, 2]))
    ]
    if rnd.random() < 0.4:  # one card fewer: a near miss
        cards.pop(rnd.randrange(len(cards)))
    return cards


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
            pool = [
                c for c in deck if c == 52 or (c.rank in range(low, low + 5) and c.suit in "HS")
            ] or deck
            hand = rnd.sample(pool, min(size, len(pool)))
        else:
            hand = rnd.sample(deck, size)
        counts = to_counts(hand)
        expected = slow_go_out(counts, wild_rank, rules)
        assert go_out_discards(counts, wild_rank, rules) == expected, (hand, wild_rank)
        found += bool(expected)
    assert found >= 20  # the test meets hands that can go out, not only hopeless ones


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: repr(r)[:60])
def test_go_out_discards_equal_solver_on_hands_built_from_melds(rules):
    rnd = random.Random(11)
    found = 0
    for _ in range(150):
        wild_rank = rnd.randint(1, 13)
        counts = to_counts(melded_hand(rnd, rules, wild_rank))
        expected = slow_go_out(counts, wild_rank, rules)
        assert go_out_discards(counts, wild_rank, rules) == expected, (counts, wild_rank)
        found += bool(expected)
    assert found >= 15  # (few with max_wilds_per_meld=0, most otherwise)


@pytest.mark.parametrize("rules", RULE_SETS[::3] + RULE_SETS[-1:], ids=lambda r: repr(r)[:60])
def test_engine_offers_exactly_the_go_outs_of_the_solver(rules):
    """In play: the go-out moves are the solver's, less the upcard just taken (RULES.md)."""
    rnd = random.Random(5)
    game = Game(rules, seed=3)
    checked = 0
    while checked < 150 and not game.is_over:
        legal = game.legal_moves()
        if game.phase == Phase.DISCARD:
            hand = game.hand_counts(game.current)
            offered = tuple(m.card for m in legal if m.kind == MoveKind.GO_OUT)
            discards = {m.card for m in legal if m.kind == MoveKind.DISCARD}
            expected = tuple(k for k in slow_go_out(hand, game.wild_rank, rules) if k in discards)
            if rules.false_out_penalty is None:
                assert offered == expected, (hand, game.wild_rank)
            else:  # any discard may be a (possibly false) go-out
                assert sorted(offered) == sorted(discards)
            checked += 1
        outs = [m for m in legal if m.kind == MoveKind.GO_OUT]
        game.apply(rnd.choice(outs) if outs and rnd.random() < 0.5 else rnd.choice(legal))
    assert checked == 150


def test_go_out_discards_takes_tuples_lists_and_bytes():
    rules = Rules()
    counts = to_counts(parse_cards("4H 5H 6H 9C 3S"))
    expected = go_out_discards(counts, 3, rules)
    assert expected == tuple(parse_cards("9C"))
    assert go_out_discards(list(counts), 3, rules) == expected
    assert go_out_discards(bytes(counts), 3, rules) == expected
    assert go_out_discards(bytearray(counts), 3, rules) == expected
    assert go_out_discards(np.array(counts, dtype=np.int64), 3, rules) == expected
    with pytest.raises(ValueError):
        go_out_discards(counts[:52], 3, rules)
    with pytest.raises(ValueError, match="sequence of 53 integers"):
        go_out_discards(53, 3, rules)  # not 53 zeros


def test_go_out_examples():
    rules = Rules()
    counts = to_counts(parse_cards("4H 5H 6H 9C"))
    assert go_out_discards(counts, 3, rules) == (parse_cards("9C")[0],)
    counts = to_counts(parse_cards("4H 5H 9D 9C"))
    assert go_out_discards(counts, 3, rules) == ()
    # Isolated cards of one suit share the wilds of one run: 5H _ _ 8H takes two of the three.
    counts = to_counts(parse_cards("5H 8H 3C 3D 3S KD"))
    assert go_out_discards(counts, 3, rules) == tuple(parse_cards("KD"))
    counts = to_counts(parse_cards("5H 8H 7H 3C 3D 3S KD"))
    assert go_out_discards(counts, 3, rules) == tuple(parse_cards("KD 5H 8H"))
    counts = to_counts(parse_cards("5H 8H JH 3C 3D 3S KD"))
    assert go_out_discards(counts, 3, rules) == ()
