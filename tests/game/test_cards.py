"""Cards: the 53 kinds, parsing every accepted spelling, formatting, decks, compact hands."""

import pickle

import numpy as np
import pytest

from tt_env.game.cards import (
    ALL_CARDS,
    JOKER,
    NUM_KINDS,
    Card,
    format_cards,
    from_counts,
    make_deck,
    parse_card,
    parse_cards,
    shuffled_deck,
    to_counts,
)


def test_card_indices_follow_the_table():
    assert Card.of(1, "C") == 0
    assert Card.of(7, "D") == 13 + 6
    assert Card.of(10, "H") == 26 + 9
    assert Card.of(13, "S") == 51
    assert ALL_CARDS[JOKER] == 52 and len(ALL_CARDS) == NUM_KINDS == 53


def test_rank_and_suit():
    seven_of_hearts = parse_card("7H")
    assert (seven_of_hearts.rank, seven_of_hearts.suit, seven_of_hearts.suit_index) == (7, "H", 2)
    joker = Card(JOKER)
    assert joker.is_joker and (joker.rank, joker.suit, joker.suit_index) == (0, "", -1)
    assert not seven_of_hearts.is_joker
    assert [Card(k).rank for k in range(13)] == list(range(1, 14))
    assert {Card(k).suit for k in range(52)} == set("CDHS")


def test_parse_every_accepted_spelling():
    cards = parse_cards("3H 4H TS 10S JK 7♥ Q♠")
    assert [str(c) for c in cards] == ["3H", "4H", "TS", "TS", "JK", "7H", "QS"]
    assert parse_cards("ah,2d, kc") == parse_cards("AH 2D KC")
    assert parse_card("1C") == parse_card("AC")
    assert parse_card("Joker") == parse_card("🃏") == Card(JOKER)
    assert parse_card("9♧") == parse_card("9C")
    assert parse_card("9♢") == parse_card("9D")
    assert parse_card("9♡") == parse_card("9H")
    assert parse_card("9♤") == parse_card("9S")
    assert parse_card("10♦") == parse_card("TD")
    assert parse_card("5♥\ufe0f") == parse_card("5H")  # emoji variation selector
    assert parse_card(" qd ") == parse_card("QD")


def test_parse_indices_and_iterables():
    assert parse_card(51) == parse_card("KS")
    assert parse_card(np.int64(52)) == Card(JOKER)
    assert parse_cards(["3H", 0, "JK"]) == [parse_card("3H"), Card(0), Card(JOKER)]
    assert parse_cards("") == []


def test_str_round_trip_for_all_kinds():
    for k in range(NUM_KINDS):
        card = Card(k)
        assert parse_card(str(card)) == card
        assert parse_card(card.pretty) == card
        assert repr(card) == f"Card({str(card)!r})"
    assert format_cards(ALL_CARDS) == " ".join(str(c) for c in ALL_CARDS)
    assert parse_cards(format_cards(ALL_CARDS)) == list(ALL_CARDS)
    assert parse_cards(format_cards(ALL_CARDS, pretty=True)) == list(ALL_CARDS)
    assert format_cards(parse_cards("10H JK"), pretty=True) == "10♥ JK"


@pytest.mark.parametrize("token", ["1H0", "11H", "ZZ", "3X", "H3", "0S", "JKR"])
def test_unknown_token_raises_naming_it(token):
    with pytest.raises(ValueError, match=repr(token)):
        parse_cards(f"3H {token} 4H")


def test_bad_card_values():
    for bad in (-1, 53):
        with pytest.raises(ValueError):
            Card(bad)
    with pytest.raises(TypeError):
        parse_card(3.0)
    with pytest.raises(ValueError):
        Card.of(0, "H")
    with pytest.raises(ValueError):
        Card.of(3, "X")


def test_cards_are_shared_int_instances():
    assert Card(5) is Card(5) is ALL_CARDS[5]
    assert isinstance(Card(5), int) and Card(5) + 1 == 6


def test_pickling_a_card():
    for k in (0, 26, JOKER):
        card = Card(k)
        copy = pickle.loads(pickle.dumps(card))
        assert copy is card and type(copy) is Card
    hand = parse_cards("3H 4H JK")
    assert pickle.loads(pickle.dumps(hand)) == hand


@pytest.mark.parametrize("num_decks", [1, 2, 3])
@pytest.mark.parametrize("jokers_per_deck", [0, 2])
def test_decks(num_decks, jokers_per_deck):
    deck = make_deck(num_decks, jokers_per_deck)
    assert len(deck) == num_decks * (52 + jokers_per_deck)
    counts = to_counts(deck)
    assert counts[:52] == (num_decks,) * 52
    assert counts[JOKER] == num_decks * jokers_per_deck
    assert all(type(c) is Card for c in deck)


def test_bad_decks():
    with pytest.raises(ValueError):
        make_deck(0)
    with pytest.raises(ValueError):
        make_deck(1, -1)


def test_shuffled_deck_reproducible_with_the_same_seed():
    first = shuffled_deck(np.random.default_rng(7), 2, 2)
    again = shuffled_deck(np.random.default_rng(7), 2, 2)
    other = shuffled_deck(np.random.default_rng(8), 2, 2)
    assert first == again
    assert first != other
    assert sorted(first) == sorted(make_deck(2, 2))


def test_to_counts_from_counts_round_trip():
    hand = parse_cards("7H 7H 3C JK KS JK")
    counts = to_counts(hand)
    assert len(counts) == NUM_KINDS and sum(counts) == len(hand)
    assert counts[parse_card("7H")] == 2 and counts[JOKER] == 2
    assert from_counts(counts) == sorted(hand)
    assert to_counts(from_counts(counts)) == counts
    assert from_counts(to_counts([])) == []
