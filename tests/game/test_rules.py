"""Rules: RULES.md's defaults and presets, validation, automatic decks, rounds, penalties."""

import pickle

import pytest

from tt_env.game.cards import JOKER, Card, parse_card
from tt_env.game.rules import FIELD_NAMES, Rules

# RULES.md, "Options": every option and its default.
DEFAULTS = {
    "num_players": 2,
    "num_decks": None,
    "max_wilds_per_meld": None,
    "unused_wild_penalty": None,
    "aces_high": False,
    "court_values": False,
    "extra_rounds": 0,
    "there_and_back": False,
    "jokers_per_deck": 0,
    "joker_layoff": False,
    "redemption": False,
    "double_court_rounds": False,
    "all_wild_melds": False,
    "false_out_penalty": None,
    "discard_drawn_upcard": False,
    "max_turns_per_round": None,
}


def test_defaults_as_rules_md_says():
    rules = Rules()
    assert rules.to_dict() == DEFAULTS
    assert set(FIELD_NAMES) == set(DEFAULTS)
    assert rules.turn_cap == 50 * 2  # 50 turns per player
    assert Rules(num_players=5).turn_cap == 250
    assert Rules(max_turns_per_round=7).turn_cap == 7


def test_preset_standard_is_all_defaults():
    assert Rules.preset("standard") == Rules()


def test_preset_one_wild():
    rules = Rules.preset("one-wild")
    assert rules == Rules(max_wilds_per_meld=1, unused_wild_penalty=15)
    assert Rules.preset("One_Wild") == rules
    assert Rules.preset("one-wild", num_players=4).num_players == 4


def test_unknown_preset_error():
    with pytest.raises(ValueError, match="unknown preset 'gin'.*standard.*one-wild"):
        Rules.preset("gin")


def test_dict_round_trip_and_unknown_option():
    rules = Rules(num_players=3, aces_high=True, max_wilds_per_meld=2)
    assert Rules.from_dict(rules.to_dict()) == rules
    assert rules.replace(aces_high=False) == Rules(num_players=3, max_wilds_per_meld=2)
    with pytest.raises(ValueError, match="unknown rule option.*wilds"):
        Rules.from_dict({"wilds": 2})


def test_rules_pickle_and_hash():
    rules = Rules(num_players=4, jokers_per_deck=2)
    assert rules.decks == 2
    copy = pickle.loads(pickle.dumps(rules))
    assert copy == rules and hash(copy) == hash(rules)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"num_players": 1}, "num_players"),
        ({"num_players": 9}, "num_players"),
        ({"num_players": True}, "num_players"),
        ({"num_players": 4, "num_decks": 1}, "cannot deal"),  # 4 x 13 + 1 upcard > 52
        ({"num_players": 2, "extra_rounds": 2, "num_decks": 1, "jokers_per_deck": 0}, None),
        ({"num_decks": 0}, "num_decks"),
        ({"max_wilds_per_meld": -1}, "max_wilds_per_meld"),
        ({"unused_wild_penalty": -1}, "unused_wild_penalty"),
        ({"false_out_penalty": -5}, "false_out_penalty"),
        ({"jokers_per_deck": -1}, "jokers_per_deck"),
        ({"extra_rounds": 3}, "extra_rounds"),
        ({"max_turns_per_round": 0}, "max_turns_per_round"),
        ({"joker_layoff": True}, "joker_layoff needs jokers"),
        ({"all_wild_melds": True, "max_wilds_per_meld": 2}, "all_wild_melds"),
        ({"aces_high": 1}, "aces_high must be True or False"),
        ({"redemption": "yes"}, "redemption"),
        ({"double_court_rounds": None}, "double_court_rounds"),
        ({"max_wilds_per_meld": 1.5}, "max_wilds_per_meld must be an integer"),
        ({"unused_wild_penalty": False}, "unused_wild_penalty must be an integer"),
    ],
)
def test_validation_errors(options, message):
    if message is None:  # 2 x 15 + 1 = 31 cards from one deck is fine
        Rules(**options)
        return
    with pytest.raises(ValueError, match=message):
        Rules(**options)


def test_valid_combinations():
    Rules(all_wild_melds=True)  # unlimited wilds
    Rules(all_wild_melds=True, max_wilds_per_meld=3)
    Rules(joker_layoff=True, jokers_per_deck=2)
    Rules(num_players=4, num_decks=2)
    Rules(max_wilds_per_meld=0, unused_wild_penalty=0, false_out_penalty=0)


def test_automatic_decks_two_three_four_players():
    # RULES.md: 1 deck for 2 players, 2 decks for 3 or 4.
    assert Rules(num_players=2).decks == 1
    assert Rules(num_players=3).decks == 2
    assert Rules(num_players=4).decks == 2
    assert Rules(num_players=3, num_decks=5).decks == 5


@pytest.mark.parametrize("num_players", range(2, 9))
@pytest.mark.parametrize("extra_rounds", [0, 1, 2])
@pytest.mark.parametrize("jokers_per_deck", [0, 2])
def test_automatic_decks_leave_20_cards_in_the_stock(num_players, extra_rounds, jokers_per_deck):
    rules = Rules(
        num_players=num_players, extra_rounds=extra_rounds, jokers_per_deck=jokers_per_deck
    )
    largest = 13 + extra_rounds
    assert max(r.cards for r in rules.rounds) == largest == rules.max_cards

    def stock(decks):  # cards left after the largest deal and the upcard
        return decks * (52 + jokers_per_deck) - num_players * largest - 1

    minimum = 1 if num_players == 2 else 2
    assert rules.decks >= minimum
    assert stock(rules.decks) >= 20
    # The fewest such decks.
    assert rules.decks == minimum or stock(rules.decks - 1) < 20
    Rules(
        num_players=num_players,
        extra_rounds=extra_rounds,
        jokers_per_deck=jokers_per_deck,
        num_decks=rules.decks,
    )  # valid as an explicit value


def test_automatic_decks_examples():
    # 2 players, 13 cards: 52 - 26 - 1 = 25 >= 20.
    assert Rules(num_players=2).decks == 1
    # 2 players, 15 cards: 52 - 30 - 1 = 21 >= 20.
    assert Rules(num_players=2, extra_rounds=2).decks == 1
    # 4 players: 104 - 52 - 1 = 51.  5 players: 104 - 65 - 1 = 38.  6: 104 - 79 = 25.
    # 7: 104 - 92 = 12 < 20, so 3 decks.  8 players: 156 - 105 = 51.
    assert [Rules(num_players=n).decks for n in range(2, 9)] == [1, 2, 2, 2, 2, 3, 3]


def test_rounds_3_to_13_with_wild_rank_equal_to_cards():
    rules = Rules()
    assert rules.num_rounds == 11
    assert [r.cards for r in rules.rounds] == list(range(3, 14))
    assert all(r.wild_rank == r.cards for r in rules.rounds)
    assert rules.rounds[-1] == (13, 13)  # kings wild


def test_extra_rounds_14_and_15_with_aces_wild():
    one = Rules(extra_rounds=1).rounds
    assert len(one) == 12 and one[-1] == (14, 1)
    two = Rules(extra_rounds=2).rounds
    assert len(two) == 13 and two[-2:] == ((14, 1), (15, 1))
    assert two[:11] == Rules().rounds


def test_there_and_back_22_rounds():
    rules = Rules(there_and_back=True)
    assert rules.num_rounds == 22
    sizes = [r.cards for r in rules.rounds]
    assert sizes == list(range(3, 14)) + list(range(13, 2, -1))
    assert all(r.wild_rank == r.cards for r in rules.rounds)
    with_extras = Rules(there_and_back=True, extra_rounds=2)
    assert [r.cards for r in with_extras.rounds] == list(range(3, 16)) + list(range(15, 2, -1))


def test_score_multiplier_with_double_court_rounds():
    plain = Rules()
    doubled = Rules(double_court_rounds=True)
    for wild_rank in range(1, 14):
        assert plain.score_multiplier(wild_rank) == 1
        assert doubled.score_multiplier(wild_rank) == (2 if wild_rank in (11, 12, 13) else 1)


def _penalty(rules, wild_rank, name):
    return rules.penalty_table(wild_rank)[parse_card(name)]


def test_penalty_table_default():
    rules = Rules()
    table = rules.penalty_table(7)
    assert len(table) == 53
    expected = {
        "AC": 1,
        "2D": 2,
        "5H": 5,
        "9S": 9,
        "TC": 10,
        "JD": 10,
        "QH": 10,
        "KS": 10,
        "7H": 7,
        "7C": 7,
    }
    for name, points in expected.items():
        assert table[parse_card(name)] == points, name
    assert table[JOKER] == 20
    # Every suit costs the same.
    for rank in range(1, 14):
        assert len({table[Card.of(rank, s)] for s in "CDHS"}) == 1


def test_penalty_table_unused_wild_penalty():
    rules = Rules(unused_wild_penalty=15)
    assert _penalty(rules, 7, "7H") == 15  # the wild rank
    assert _penalty(rules, 7, "8H") == 8
    assert _penalty(rules, 13, "KS") == 15
    assert _penalty(rules, 13, "QS") == 10
    assert rules.penalty_table(7)[JOKER] == 20  # a joker costs 20 whatever the option says
    assert _penalty(Rules(unused_wild_penalty=0), 3, "3C") == 0


def test_penalty_table_aces_high():
    rules = Rules(aces_high=True)
    assert _penalty(rules, 7, "AS") == 15
    assert _penalty(rules, 7, "2S") == 2
    assert _penalty(rules, 1, "AS") == 15  # a wild ace costs its face value, 15


def test_penalty_table_court_values():
    rules = Rules(court_values=True)
    assert [_penalty(rules, 5, n) for n in ("TH", "JH", "QH", "KH")] == [10, 11, 12, 13]
    assert _penalty(rules, 12, "QH") == 12  # a leftover wild costs its face value
    assert _penalty(Rules(court_values=True, unused_wild_penalty=15), 12, "QH") == 15
