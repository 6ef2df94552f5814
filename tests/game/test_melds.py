"""The exact meld solver (tt_env.game.melds) against RULES.md and a brute-force reference.

Scripted hands, one test per rule of RULES.md ("Melds", "Wild cards in melds", "Scoring",
"Options"), each with its points worked out by hand; then hypothesis hands compared with
``tests/brute_force.py`` under every rule option that changes melds or penalties.
"""

from collections import Counter

import numpy as np
import pytest
from brute_force import (
    brute_force_fewest_wilds,
    brute_force_is_meld,
    brute_force_lay_off_points,
    brute_force_points,
    count_ok,
    deadwood_penalty,
    extension_ok,
    grown_shape_ok,
    is_wild,
    shape_wild_counts,
    wilds_in_laid_run,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tt_env.game.cards import JOKER, Card, make_deck, parse_cards, to_counts
from tt_env.game.melds import (
    Arrangement,
    MeldShape,
    discard_penalties,
    is_meld,
    lay_off,
    min_penalty,
    solve,
)
from tt_env.game.rules import Rules

HEARTS = 2  # suit index of H
JOKERS = Rules(jokers_per_deck=2)


# ---------------------------------------------------------------------------- checks
def check_arrangement(arrangement, cards, wild_rank, rules, joker_penalty=None):
    """Melds valid (by the brute force and by is_meld), shapes true to their cards, melds and
    deadwood exactly the hand, points exactly the deadwood's penalty."""
    assert isinstance(arrangement, Arrangement)
    assert len(arrangement.shapes) == len(arrangement.melds)
    laid = [c for meld in arrangement.melds for c in meld]
    assert Counter(laid + list(arrangement.deadwood)) == Counter(cards)
    for meld, shape in zip(arrangement.melds, arrangement.shapes):
        check_shape(meld, shape, wild_rank, rules)
        if shape.kind == "run":  # listed in position order
            assert wilds_in_laid_run(meld, shape.suit, shape.low, wild_rank, rules) == shape.wilds
        assert brute_force_is_meld(meld, wild_rank, rules), meld
        check_shape(meld, is_meld(meld, wild_rank, rules), wild_rank, rules)
    expected = sum(
        deadwood_penalty(c, wild_rank, rules, joker_penalty) for c in arrangement.deadwood
    )
    assert arrangement.points == expected


def check_shape(meld, shape, wild_rank, rules):
    """``shape`` describes ``meld``: its kind, its rank or its suit and places, and a number
    of cards used as wilds that one reading of the meld as that shape gives and the rules
    allow."""
    assert isinstance(shape, MeldShape), (meld, shape)
    assert shape.size == len(meld) >= 3
    assert shape.wilds in shape_wild_counts(meld, shape, wild_rank, rules), (meld, shape)
    assert count_ok(shape.size - shape.wilds, shape.wilds, rules), (meld, shape)


def points(hand, wild_rank, rules=Rules(), joker_penalty=None):
    """The solver's points for a hand written as a string, checked every way we can."""
    cards = parse_cards(hand)
    arrangement = solve(hand, wild_rank, rules, joker_penalty=joker_penalty)
    check_arrangement(arrangement, cards, wild_rank, rules, joker_penalty)
    assert arrangement.points == brute_force_points(cards, wild_rank, rules, joker_penalty)
    assert min_penalty(to_counts(cards), wild_rank, rules, joker_penalty) == arrangement.points
    return arrangement.points


def shape_of(hand, wild_rank, rules=Rules()):
    return is_meld(parse_cards(hand), wild_rank, rules)


# ---------------------------------------------------------------------------- Melds
def test_empty_hand():
    assert points("", 3) == 0
    assert solve([], 3).melds == []


def test_set_of_three():
    # 7C 7D 7H is a set; KS is left: 10.
    assert points("7C 7D 7H KS", 3) == 10
    shape = shape_of("7C 7D 7H", 3)
    assert (shape.kind, shape.rank, shape.wilds, shape.size) == ("set", 7, 0, 3)


def test_set_of_four():
    assert points("7C 7D 7H 7S", 3) == 0


def test_two_cards_are_no_meld():
    # 7C 7D: 14; 7C 7D 8C: no set, no run: 7 + 7 + 8 = 22.
    assert points("7C 7D", 3) == 14
    assert points("7C 7D 8C", 3) == 22
    assert shape_of("7C 7D", 3) is None


def test_run_of_three():
    # 3H 4H 5H is a run; KS is left: 10.
    assert points("3H 4H 5H KS", 7) == 10
    assert solve("3H 4H 5H KS", wild_rank=7).points == 10
    shape = shape_of("3H 4H 5H", 7)
    assert (shape.kind, shape.suit, shape.low, shape.high, shape.wilds, shape.size) == (
        "run",
        HEARTS,
        3,
        5,
        0,
        3,
    )


def test_run_needs_one_suit():
    # 3H 4S 5H: 3 + 4 + 5 = 12.
    assert points("3H 4S 5H", 7) == 12


def test_run_no_rank_twice():
    # Two decks: 3H 4H 5H is a run, the second 4H is left: 4.
    assert points("3H 4H 4H 5H", 7) == 4
    assert shape_of("3H 4H 4H 5H", 7) is None


def test_run_thirteen_long():
    assert points("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH", 13) == 0


def test_run_aces_low_no_wrap():
    # A-2-3 is a run; Q-K-A is not: 10 + 10 + 1 = 21; K-A-2 is not: 10 + 1 + 2 = 13.
    assert points("AH 2H 3H", 5) == 0
    assert points("QH KH AH", 5) == 21
    assert points("KH AH 2H", 5) == 13
    assert shape_of("QH KH AH", 5) is None


def test_run_at_most_13_long():
    # Two decks, no wilds allowed (5H stands in its own place): A..K is a run, the second ace
    # fits nowhere (no 14th place, no set of aces without a wild): 1.
    hand = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
    assert points(hand, 5, Rules(max_wilds_per_meld=0)) == 1
    assert shape_of(hand, 5, Rules(max_wilds_per_meld=0)) is None
    # A joker cannot make a 14th place either.
    assert shape_of("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH JK", 5, JOKERS) is None


def test_card_belongs_to_one_meld():
    # 7H could end the run 5H 6H 7H or join the set 7H 7S 7D, not both:
    # run + 7S 7D left = 14, or set + 5H 6H left = 11.
    assert points("5H 6H 7H 7S 7D", 3) == 11


def test_best_arrangement_is_used():
    # The longest run 4H-7H leaves 7S 7D (14); run 4H-6H and set 7H 7S 7D leave nothing: 0.
    assert points("4H 5H 6H 7H 7S 7D", 10) == 0
    # Run AC 2C 3C leaves 3D 3H (6); set 3C 3D 3H leaves AC 2C (3): 3.
    assert points("AC 2C 3C 3D 3H", 9) == 3


# ---------------------------------------------------------------------------- aces high
def test_aces_high_queen_king_ace():
    assert points("QH KH AH", 5, Rules(aces_high=True)) == 0
    shape = shape_of("QH KH AH", 5, Rules(aces_high=True))
    assert (shape.kind, shape.low, shape.high) == ("run", 12, 14)


def test_aces_high_ace_still_low():
    assert points("AH 2H 3H", 5, Rules(aces_high=True)) == 0


def test_aces_high_never_wraps():
    # K-A-2 is no run: 10 + 15 (a leftover ace costs 15 with aces high) + 2 = 27.
    assert points("KH AH 2H", 5, Rules(aces_high=True)) == 27


def test_aces_high_leftover_ace_costs_15():
    assert points("AH 5C", 9, Rules(aces_high=True)) == 20
    assert points("AH 5C", 9) == 6


def test_run_14_long_with_aces_high():
    # Two different aces: A..K..A, 14 cards, no wild used (5H in its own place).
    rules = Rules(aces_high=True, max_wilds_per_meld=0)
    hand = "AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KH AH"
    assert points(hand, 5, rules) == 0
    shape = shape_of(hand, 5, rules)
    assert (shape.kind, shape.low, shape.high, shape.size) == ("run", 1, 14, 14)
    # A joker has no 15th place.
    assert shape_of(hand + " JK", 5, Rules(aces_high=True, jokers_per_deck=2)) is None


def test_aces_high_wild_ace_in_its_natural_place():
    # Aces wild (extra rounds): AH above KH stands in its own place, no wild used.
    assert points("QH KH AH", 1, Rules(aces_high=True, max_wilds_per_meld=0)) == 0
    # AS is a wild standing for AH.
    assert points("QH KH AS", 1, Rules(aces_high=True)) == 0
    assert points("QH KH AS", 1, Rules(aces_high=True, max_wilds_per_meld=0)) == 35


# ---------------------------------------------------------------------------- wild cards
def test_wild_stands_for_a_card_in_a_set():
    # 3S stands for a 7 (threes wild).
    assert points("7C 7D 3S", 3) == 0


def test_wild_stands_for_a_card_in_a_run():
    # 3S stands for 5H; 3D for 7H or 3H: 4H 3S 6H 3D is a run of four.
    assert points("4H 3S 6H", 3) == 0
    assert points("4H 3S 6H 3D", 3) == 0
    # Two wilds stand for the gap of a run: 4H _ _ 7H.
    assert points("4H 3S 3D 7H", 3) == 0


def test_any_number_of_wilds_by_default():
    # 5H + four wilds: one run (or set) of five.
    assert points("5H 9C 9D 9S JK", 9, JOKERS) == 0


def test_meld_needs_a_natural_card():
    # Three jokers have no natural card: 60 left.
    assert points("JK JK JK", 5, Rules(jokers_per_deck=2, num_decks=2)) == 60
    assert shape_of("JK JK JK", 5, JOKERS) is None


def test_wild_in_natural_place_counts_as_natural():
    no_wilds = Rules(max_wilds_per_meld=0)
    # Round 1 (threes wild): 3H 3S 3D is a set of threes using no wild.
    assert points("3H 3S 3D", 3, no_wilds) == 0
    shape = shape_of("3H 3S 3D", 3, no_wilds)
    assert (shape.kind, shape.rank, shape.wilds) == ("set", 3, 0)
    # 3H in its own place in the run 2H 3H 4H: no wild.
    assert points("2H 3H 4H", 3, no_wilds) == 0
    assert shape_of("2H 3H 4H", 3).wilds == 0
    # 3S is not in its own place in a hearts run: it is a wild. 2 + 3 + 4 = 9.
    assert points("2H 3S 4H", 3, no_wilds) == 9
    assert points("2H 3S 4H", 3, Rules(max_wilds_per_meld=1)) == 0
    # A set of threes made of one three and two jokers has a natural card.
    assert points("3S JK JK", 3, Rules(jokers_per_deck=2, num_decks=2)) == 0


def test_max_wilds_per_meld_zero():
    rules = Rules(max_wilds_per_meld=0)
    # 3S cannot stand for a 7: 7 + 7 + 3 = 17.
    assert points("7C 7D 3S", 3, rules) == 17
    # 7C 7D 7S is a set, 3S left: 3.
    assert points("7C 7D 7S 3S", 3, rules) == 3


def test_max_wilds_per_meld_one():
    rules = Rules(max_wilds_per_meld=1)
    # 7C 7D 3S is a set with one wild; 3H cannot join: 3 left.
    assert points("7C 7D 3S 3H", 3, rules) == 3
    assert points("7C 7D 3S 3H", 3) == 0
    # 4H _ _ 7H needs two wilds: nothing melds, 4 + 3 + 3 + 7 = 17.
    assert points("4H 3S 3D 7H", 3, rules) == 17
    assert shape_of("4H 3S 3D 7H", 3, rules) is None


def test_max_wilds_per_meld_two():
    rules = Rules(max_wilds_per_meld=2)
    assert points("4H 3S 3D 7H", 3, rules) == 0
    shape = shape_of("4H 3S 3D 7H", 3, rules)
    assert (shape.kind, shape.low, shape.high, shape.wilds) == ("run", 4, 7, 2)
    # 5H with three jokers needs three wilds: 5H JK JK is a meld, one joker is left: 20.
    assert (
        points("5H JK JK JK", 9, Rules(max_wilds_per_meld=2, jokers_per_deck=2, num_decks=2)) == 20
    )


def test_unused_wild_penalty():
    rules = Rules(unused_wild_penalty=15)
    # A leftover 7 (sevens wild) costs 15; KS 10.
    assert points("7H KS", 7, rules) == 25
    # A leftover joker costs 20 whatever unused_wild_penalty says.
    assert points("7H JK", 7, Rules(unused_wild_penalty=15, jokers_per_deck=2)) == 35
    # Only the wild rank: 8H costs 8.
    assert points("8H", 7, rules) == 8


def test_unused_wild_penalty_default_face_value():
    assert points("7H", 7) == 7
    assert points("KH", 13) == 10
    assert points("KH", 13, Rules(court_values=True)) == 13


def test_one_wild_preset():
    rules = Rules.preset("one-wild")
    # 7C 7D 3S; 3H left costs 15 (unused wild).
    assert points("7C 7D 3S 3H", 3, rules) == 15


def test_court_values():
    # J 11 + Q 12 + K 13 + 2 = 38; by default 10 + 10 + 10 + 2 = 32.
    assert points("JH QS KD 2C", 5, Rules(court_values=True)) == 38
    assert points("JH QS KD 2C", 5) == 32


def test_leftover_card_values():
    # A 1, 2..10 face value, J Q K 10.
    assert points("AC 2D 9S TH JC", 5) == 1 + 2 + 9 + 10 + 10


def test_jokers_always_wild_cost_20():
    # JK stands for 5H.
    assert points("4H 6H JK", 9, JOKERS) == 0
    # JK stands for a 9 in a set of nines (even though nines are not wild here).
    assert points("9C 9D JK", 5, JOKERS) == 0
    # A leftover joker: 20 + 2.
    assert points("JK 2C", 9, JOKERS) == 22
    assert points("JK", 9, Rules(jokers_per_deck=2, unused_wild_penalty=15)) == 20
    assert points("JK", 9, Rules(jokers_per_deck=2, unused_wild_penalty=0)) == 20


def test_jokers_never_natural():
    # Under a cap of 0, a joker can stand nowhere.
    assert points("4H 6H JK", 9, Rules(jokers_per_deck=2, max_wilds_per_meld=0)) == 30


def test_joker_penalty_argument():
    # joker_layoff: a leftover joker may cost nothing (the engine passes joker_penalty=0).
    rules = Rules(jokers_per_deck=2, joker_layoff=True)
    assert points("JK 2C", 9, rules, joker_penalty=0) == 2
    assert points("JK 2C", 9, rules) == 22


def test_all_wild_melds():
    rules = Rules(all_wild_melds=True, jokers_per_deck=2, num_decks=2)
    # JK JK JK is a meld of wild cards only: 0. Without the option: 60.
    assert points("JK JK JK", 9, rules) == 0
    assert points("JK JK JK", 9, Rules(jokers_per_deck=2, num_decks=2)) == 60
    shape = shape_of("JK JK JK", 9, rules)
    assert (shape.wilds, shape.size) == (3, 3)
    # Six jokers, at most three wilds a meld: two melds of three, 0.
    assert points("JK JK JK JK JK JK", 9, rules.replace(max_wilds_per_meld=3, num_decks=3)) == 0


def test_all_wild_melds_with_a_cap():
    rules = Rules(all_wild_melds=True, max_wilds_per_meld=3, jokers_per_deck=2, num_decks=2)
    # Four jokers: a meld of three, one left: 20.
    assert points("JK JK JK JK", 9, rules) == 20
    assert points("JK JK JK JK", 9, rules.replace(max_wilds_per_meld=None)) == 0


def test_several_decks_identical_cards_in_set():
    # A set may repeat a suit: 7H 7H 7H.
    assert points("7H 7H 7H", 3) == 0
    # 7H 7H 7S 7S is a set of four; KC left: 10.
    assert points("7H 7H 7S 7S KC", 3) == 10
    assert shape_of("7H 7H 7H 7H 7H", 3).size == 5


def test_several_decks_identical_cards_two_runs():
    # One card per place: 7H 7H 8H is no run (22); two 7-8-9 runs make 0.
    assert points("7H 7H 8H", 3) == 22
    assert points("7H 7H 8H 8H 9H 9H", 3) == 0


def test_solve_accepts_cards_and_indices():
    cards = parse_cards("3H 4H 5H KS")
    assert solve(cards, 7).points == 10
    assert solve([int(c) for c in cards], 7, Rules()).points == 10


def test_min_penalty_cache_keeps_rules_apart():
    # One hand, three rule sets, asked in turn: each answer is its own (sevens wild).
    counts = to_counts(parse_cards("5H 6H 7S KC"))
    for _ in range(2):
        assert min_penalty(counts, 7, Rules()) == 10
        assert min_penalty(counts, 7, Rules(max_wilds_per_meld=0)) == 5 + 6 + 7 + 10
        assert min_penalty(counts, 7, Rules(court_values=True)) == 13
        assert min_penalty(counts, 8, Rules()) == 5 + 6 + 7 + 10


def test_bad_arguments():
    with pytest.raises(ValueError):
        solve("3H 4H 5H", 0)
    with pytest.raises(ValueError):
        solve("3H 4H 5H", 14)
    with pytest.raises(ValueError):
        solve("3H 4H XX", 5)
    with pytest.raises(ValueError):
        min_penalty((0,) * 52, 5, Rules())
    with pytest.raises(ValueError):
        min_penalty((-1,) + (0,) * 52, 5, Rules())


def test_bad_arguments_are_refused_before_any_cache():
    hand = to_counts(parse_cards("3H 4H 5H KS"))
    assert min_penalty(hand, 3, Rules()) == 10  # warms the caches for wild rank 3
    for wild in (3.0, True, "3", None, 3.5):
        with pytest.raises((ValueError, TypeError), match="wild_rank"):
            min_penalty(hand, wild, Rules())
    assert min_penalty(hand, np.int64(3), Rules()) == 10  # a numpy integer is an integer
    with pytest.raises(ValueError, match="joker_penalty"):
        min_penalty(hand, 3, Rules(), joker_penalty=2.0)
    for cards in (None, 7, b"\x01\x02\x03", bytearray(b"\x01"), 3.5):
        with pytest.raises(TypeError, match="cards must be"):
            solve(cards, 3)
    with pytest.raises((ValueError, TypeError)):
        solve([1.5, 2, 3], 3)
    with pytest.raises(ValueError, match="counts must"):
        min_penalty(None, 3, Rules())


def test_solve_refuses_bad_cards_also_on_its_fast_path():
    # A list or tuple of Cards / ints goes to the compiled kernel as bytes once the rules
    # have been served: every card the checked path refuses is refused there too, by name.
    rules = Rules()
    assert solve([1, 2, 3], 3, rules).points == 0  # serves (rules, 3)
    refused = {
        "got True": [True, 2, 3],
        "got 53": [53, 1, 2],
        "got -1": [4, -1, 2],
        "got 300": (300, 1),
        "got 2.0": (1, 2.0),
        "at most 30 cards": list(range(14)) * 3,
    }
    for message, cards in refused.items():
        with pytest.raises((ValueError, TypeError), match=message):
            solve(cards, 3, rules)
    # Names and numpy integers in a list are taken (by the checked path), as before.
    assert solve(["3H", 29, np.int64(30)], 3, rules).points == 0
    # The fast path's arrangement is the checked path's (from a string, never fast).
    hand = "3H 4H 5H 7C 7D 7S 9D KH 2C TD JS QS AS 3S"
    cards = parse_cards(hand)
    for w in (3, 7, 13):
        assert solve(list(cards), w, rules) == solve(tuple(cards), w, rules) == solve(hand, w)


def test_the_compiled_arrangement_is_an_arrangement_like_any():
    # solve() builds the kernel's Arrangement without the dataclass's __init__ (faster): it
    # must equal, print, copy and refuse changes as one built by Arrangement(...).
    import dataclasses

    got = solve("3H 4H 5H 7C 7D 7S KS", 9)
    made = Arrangement(melds=got.melds, shapes=got.shapes, deadwood=got.deadwood, points=got.points)
    assert got == made and repr(got) == repr(made) and type(got) is Arrangement
    assert dataclasses.asdict(got) == dataclasses.asdict(made)
    assert dataclasses.replace(got, points=3) == Arrangement(
        melds=got.melds, shapes=got.shapes, deadwood=got.deadwood, points=3
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        got.points = 0


def test_the_fast_paths_serve_every_rules_object_equal_ones_too(monkeypatch):
    # min_penalty and solve answer a Rules object they have seen without configuring again,
    # also when an equal Rules object configured the solver first (the configuration is
    # shared, the fast path is keyed by the caller's object).
    from tt_env.game.melds import _kernel, api

    if _kernel.kernel_module() is None:
        pytest.skip("the compiled kernel is off")
    first, second = Rules(aces_high=True), Rules(aces_high=True)
    hand = to_counts(parse_cards("3H 4H 5H KS"))
    for rules in (first, second, first):
        assert min_penalty(hand, 6, rules) == 10
        assert solve("3H 4H 5H KS", 6, rules).points == 10
    configured = []
    real = api._config
    monkeypatch.setattr(api, "_config", lambda *a: configured.append(a) or real(*a))
    for rules in (second, first, second):
        assert min_penalty(hand, 6, rules) == 10
        assert solve(parse_cards("3H 4H 5H KS"), 6, rules).points == 10
    assert configured == []


def test_oversized_hands_are_refused_at_once():
    # The largest hand in play holds 16 cards; the solver refuses more than MAX_HAND_CARDS
    # (a 40-card one-wild hand used to take a minute and gigabytes).
    from tt_env.game.melds import MAX_HAND_CARDS

    deck = make_deck(3, 2)
    big = deck[:40]
    for rules in (Rules.preset("one-wild"), Rules(num_decks=3, jokers_per_deck=2)):
        with pytest.raises(ValueError, match=f"at most {MAX_HAND_CARDS} cards"):
            solve(big, 5, rules)
        with pytest.raises(ValueError, match=f"at most {MAX_HAND_CARDS} cards"):
            min_penalty(to_counts(big), 5, rules)
        with pytest.raises(ValueError, match=f"at most {MAX_HAND_CARDS} cards"):
            discard_penalties(to_counts(big), 5, rules)
    assert solve(deck[:MAX_HAND_CARDS], 5, Rules(num_decks=3)).points >= 0


# ---------------------------------------------------------------------------- discard_penalties
def test_discard_penalties_scripted():
    # 3H 4H 5H KS 2C (sevens wild): discarding KS leaves 2, discarding 2C leaves 10,
    # discarding 3H leaves 4 + 5 + 10 + 2 = 21, 4H 20, 5H 19.
    counts = to_counts(parse_cards("3H 4H 5H KS 2C"))
    result = discard_penalties(counts, 7, Rules())
    by_name = {str(Card(k)): v for k, v in result.items()}
    assert by_name == {"3H": 21, "4H": 20, "5H": 19, "KS": 2, "2C": 10}
    # Going out: all but one card melds.
    assert min(result.values()) == 2
    assert (
        discard_penalties(to_counts(parse_cards("3H 4H 5H KS")), 7, Rules())[parse_cards("KS")[0]]
        == 0
    )


# ---------------------------------------------------------------------------- lay_off
def table_of(*melds, wild_rank, rules=Rules()):
    shapes = [is_meld(parse_cards(m), wild_rank, rules) for m in melds]
    assert all(s is not None for s in shapes)
    return shapes


def check_lay_off(hand, table, wild_rank, rules=Rules(), joker_penalty=None):
    """The lay-off result: cards laid off plus melds plus deadwood is the hand, each grown
    table meld is valid, the points are the brute force's. Returns the result."""
    cards = parse_cards(hand)
    result = lay_off(cards, table, wild_rank, rules, joker_penalty=joker_penalty)
    arrangement = result.arrangement
    laid = [c for _, group in result.layoffs for c in group]
    assert Counter(
        laid + [c for m in arrangement.melds for c in m] + list(arrangement.deadwood)
    ) == Counter(cards)
    grown = {i: [] for i in range(len(table))}
    for i, group in result.layoffs:
        grown[i] += list(group)
    for i, group in grown.items():
        assert extension_ok(table[i], group, wild_rank, rules), (table[i], group)
        assert grown_shape_ok(table[i], result.table[i], group, wild_rank, rules), (
            table[i],
            result.table[i],
            group,
        )
    assert len(result.table) == len(table)
    rest = list(arrangement.deadwood) + [c for m in arrangement.melds for c in m]
    check_arrangement(arrangement, rest, wild_rank, rules, joker_penalty)
    assert arrangement.points == brute_force_lay_off_points(
        cards, table, wild_rank, rules, joker_penalty
    )
    return result


def test_lay_off_onto_a_set():
    table = table_of("7C 7D 7H", wild_rank=5)
    result = check_lay_off("7S 2C", table, 5)
    # 7S goes onto the sevens; 2C is left: 2.
    assert result.arrangement.points == 2
    assert [(i, [str(c) for c in g]) for i, g in result.layoffs] == [(0, ["7S"])]
    assert result.table[0].size == 4


def test_lay_off_extends_a_run_at_both_ends_with_chains():
    table = table_of("5H 6H 7H", wild_rank=11)
    # 4H then 3H below, 8H then 9H above; KC is left: 10.
    result = check_lay_off("3H 4H 8H 9H KC", table, 11)
    assert result.arrangement.points == 10
    after = result.table[0]
    assert (after.kind, after.low, after.high, after.size) == ("run", 3, 9, 7)


def test_lay_off_wilds_under_a_cap():
    # Twos wild. Cap 1: 2S stands for 8H under 9H, 2D cannot follow: 2 left.
    table = table_of("5H 6H 7H", wild_rank=2)
    assert check_lay_off("9H 2S 2D", table, 2, Rules(max_wilds_per_meld=1)).arrangement.points == 2
    # Unlimited: 2S for 8H, 9H, 2D for 10H (or 4H): 0.
    assert check_lay_off("9H 2S 2D", table, 2).arrangement.points == 0
    # A table meld that already holds its one wild takes naturals only: 8H yes, 2D no.
    capped = Rules(max_wilds_per_meld=1)
    table = table_of("5H 2S 7H", wild_rank=2, rules=capped)
    assert check_lay_off("8H 2D", table, 2, capped).arrangement.points == 2


def test_lay_off_joker_onto_a_set():
    rules = Rules(jokers_per_deck=2)
    table = table_of("7C 7D 7H", wild_rank=5, rules=rules)
    assert check_lay_off("JK", table, 5, rules).arrangement.points == 0


def test_lay_off_onto_a_meld_of_wilds():
    rules = Rules(all_wild_melds=True, jokers_per_deck=2, num_decks=2)
    table = table_of("JK JK JK", wild_rank=9, rules=rules)
    assert table[0].kind == "wild"
    # 5H and 6H join the jokers (a run, or 5H a set of fives); KC is left: 10.
    result = check_lay_off("5H 6H KC", table, 9, rules)
    assert result.arrangement.points == 10
    assert result.table[0].size == 5


def test_lay_off_nothing_fits():
    table = table_of("7C 7D 7H", "5H 6H 7S", wild_rank=7)
    # KC 2D 9S fit nowhere (9S is no heart): 10 + 2 + 9 = 21.
    result = check_lay_off("KC 2D 9S", table, 7, Rules(max_wilds_per_meld=1))
    assert result.arrangement.points == 21
    assert result.layoffs == [] or all(not g for _, g in result.layoffs)


def test_lay_off_never_wraps_and_aces_high():
    table = table_of("JH QH KH", wild_rank=5)
    assert check_lay_off("AH", table, 5).arrangement.points == 1
    high = Rules(aces_high=True)
    assert (
        check_lay_off(
            "AH", table_of("JH QH KH", wild_rank=5, rules=high), 5, high
        ).arrangement.points
        == 0
    )
    assert (
        check_lay_off(
            "AH 2H", table_of("JH QH KH", wild_rank=5, rules=high), 5, high
        ).arrangement.points
        == 2
    )


def test_lay_off_and_meld_the_rest():
    table = table_of("7C 7D 7H", wild_rank=10)
    assert check_lay_off("3C 3D 3S 7S", table, 10).arrangement.points == 0


# ---------------------------------------------------------------------------- hypothesis
# Every rule option that changes melds or penalties, and the joker_penalty argument.
OPTION_SETS = {
    "standard": (Rules(), None),
    "cap-0": (Rules(max_wilds_per_meld=0), None),
    "cap-1": (Rules(max_wilds_per_meld=1), None),
    "cap-2": (Rules(max_wilds_per_meld=2), None),
    "cap-3": (Rules(max_wilds_per_meld=3), None),
    "one-wild": (Rules.preset("one-wild"), None),
    "unused-wild-15": (Rules(unused_wild_penalty=15), None),
    "aces-high": (Rules(aces_high=True), None),
    "aces-high-cap-1": (Rules(aces_high=True, max_wilds_per_meld=1), None),
    "court-values": (Rules(court_values=True), None),
    "jokers": (Rules(jokers_per_deck=2), None),
    "jokers-cap-1-unused-15": (
        Rules(jokers_per_deck=2, max_wilds_per_meld=1, unused_wild_penalty=15),
        None,
    ),
    "jokers-joker-penalty-0": (Rules(jokers_per_deck=2, joker_layoff=True), 0),
    "all-wild-melds": (Rules(all_wild_melds=True, jokers_per_deck=2), None),
    "all-wild-melds-cap-3": (
        Rules(all_wild_melds=True, max_wilds_per_meld=3, jokers_per_deck=2, num_decks=2),
        None,
    ),
    "two-decks": (Rules(num_decks=2), None),
    "two-decks-cap-2-aces-high": (Rules(num_decks=2, max_wilds_per_meld=2, aces_high=True), None),
    "three-decks-jokers": (Rules(num_decks=3, jokers_per_deck=2), None),
    "three-decks-all-wild-court": (
        Rules(num_decks=3, all_wild_melds=True, court_values=True, unused_wild_penalty=15),
        None,
    ),
    "everything": (
        Rules(
            num_decks=2,
            jokers_per_deck=2,
            aces_high=True,
            court_values=True,
            unused_wild_penalty=15,
            all_wild_melds=True,
            max_wilds_per_meld=3,
        ),
        0,
    ),
}

EXAMPLES_PER_OPTION_SET = 120


def examples(n):
    """Hypothesis settings for ``n`` hands: reproducible (CI), no deadline (the brute force)."""
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        database=None,
        print_blob=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


@st.composite
def deals(
    draw,
    rules,
    sizes=st.integers(0, 12) | st.integers(4, 12),
    clustered=st.booleans(),
    wild_ranks=st.integers(1, 13),
):
    """A wild rank and a hand drawn from the decks ``rules`` play with.

    Half the hands are uniform; the other half come from a few adjacent ranks (possibly
    around the king-ace corner) in one or two suits plus every wild card, so that they hold
    runs, sets, gaps, identical cards and several wilds.
    """
    wild_rank = draw(wild_ranks)
    pool = make_deck(rules.decks, rules.jokers_per_deck)
    if draw(clustered):
        low = draw(st.integers(1, 13))
        ranks = {(low - 1 + i) % 13 + 1 for i in range(draw(st.integers(2, 5)))}
        suits = set(draw(st.lists(st.sampled_from("CDHS"), min_size=1, max_size=2)))
        pool = [c for c in pool if is_wild(c, wild_rank) or (c.rank in ranks and c.suit in suits)]
    size = min(draw(sizes), len(pool))
    picks = draw(st.lists(st.integers(0, len(pool) - 1), unique=True, min_size=size, max_size=size))
    return wild_rank, [pool[i] for i in picks]


def compare_with_brute_force(cards, wild_rank, rules, joker_penalty):
    arrangement = solve(cards, wild_rank, rules, joker_penalty=joker_penalty)
    expected = brute_force_points(cards, wild_rank, rules, joker_penalty)
    assert arrangement.points == expected
    check_arrangement(arrangement, cards, wild_rank, rules, joker_penalty)
    counts = to_counts(cards)
    assert min_penalty(counts, wild_rank, rules, joker_penalty) == expected
    # discard_penalties: the min penalty of the hand without one card of each kind held.
    after_discard = discard_penalties(counts, wild_rank, rules, joker_penalty)
    assert set(after_discard) == {k for k, n in enumerate(counts) if n}
    for kind, value in after_discard.items():
        rest = list(counts)
        rest[kind] -= 1
        assert value == min_penalty(tuple(rest), wild_rank, rules, joker_penalty), Card(kind)


@pytest.mark.parametrize("name", OPTION_SETS)
def test_solver_matches_brute_force(name, solver_path):
    rules, joker_penalty = OPTION_SETS[name]

    @examples(EXAMPLES_PER_OPTION_SET)
    @given(deals(rules))
    def check(deal):
        wild_rank, cards = deal
        compare_with_brute_force(cards, wild_rank, rules, joker_penalty)

    check()


@st.composite
def any_rules(draw):
    """Rules with every option that changes melds or penalties drawn at random."""
    cap = draw(st.sampled_from([None, 0, 1, 2, 3, 4]))
    all_wild = draw(st.booleans()) and (cap is None or cap >= 3)
    jokers = draw(st.sampled_from([0, 2]))
    rules = Rules(
        num_decks=draw(st.integers(1, 3)),
        max_wilds_per_meld=cap,
        unused_wild_penalty=draw(st.sampled_from([None, 0, 15])),
        aces_high=draw(st.booleans()),
        court_values=draw(st.booleans()),
        jokers_per_deck=jokers,
        all_wild_melds=all_wild,
    )
    joker_penalty = draw(st.sampled_from([None, 0])) if jokers else None
    return rules, joker_penalty


RANDOM_OPTION_EXAMPLES = 300


def test_solver_matches_brute_force_any_options(solver_path):
    @examples(RANDOM_OPTION_EXAMPLES)
    @given(st.data())
    def check(data):
        rules, joker_penalty = data.draw(any_rules())
        wild_rank, cards = data.draw(deals(rules))
        compare_with_brute_force(cards, wild_rank, rules, joker_penalty)

    check()


BIG_HAND_EXAMPLES = 16


@pytest.mark.parametrize("name", ["standard", "one-wild", "aces-high", "jokers", "two-decks"])
def test_solver_matches_brute_force_big_hands(name, solver_path):
    # 13 to 16 cards: the largest deals (13, 14 and 15 with extra rounds) plus the drawn card.
    rules, joker_penalty = OPTION_SETS[name]

    @examples(BIG_HAND_EXAMPLES)
    @given(deals(rules, sizes=st.integers(13, 16), clustered=st.just(False)))
    def check(deal):
        wild_rank, cards = deal
        arrangement = solve(cards, wild_rank, rules, joker_penalty=joker_penalty)
        assert arrangement.points == brute_force_points(cards, wild_rank, rules, joker_penalty)
        check_arrangement(arrangement, cards, wild_rank, rules, joker_penalty)

    check()


@examples(400)
@given(st.data())
def test_is_meld_matches_brute_force(data):
    rules, _ = data.draw(any_rules())
    wild_rank, cards = data.draw(deals(rules, sizes=st.integers(0, 9), clustered=st.just(True)))
    shape = is_meld(cards, wild_rank, rules)
    assert (shape is not None) == brute_force_is_meld(cards, wild_rank, rules)
    if shape is not None:
        check_shape(cards, shape, wild_rank, rules)
        # Of the valid readings, is_meld gives one with the fewest wilds.
        assert shape.wilds == brute_force_fewest_wilds(cards, wild_rank, rules)


LAY_OFF_EXAMPLES = 200


@examples(LAY_OFF_EXAMPLES)
@given(st.data())
def test_lay_off_matches_brute_force(data):
    rules, joker_penalty = data.draw(any_rules())
    wild_rank = data.draw(st.integers(1, 13))
    # The hand and the table come from one clustered deal, so that cards often fit the
    # table melds: the first cards are the hand, the melds of the others the table.
    _, cards = data.draw(
        deals(
            rules, sizes=st.integers(6, 14), clustered=st.just(True), wild_ranks=st.just(wild_rank)
        )
    )
    split = data.draw(st.integers(1, 5))
    hand = cards[:split]
    table = solve(cards[split:], wild_rank, rules).shapes[:3]
    if rules.all_wild_melds and data.draw(st.booleans()):
        table.append(is_meld([Card(JOKER)] * 3, wild_rank, rules))  # a meld of wilds only
    result = lay_off(hand, table, wild_rank, rules, joker_penalty=joker_penalty)
    expected = brute_force_lay_off_points(hand, table, wild_rank, rules, joker_penalty)
    assert result.arrangement.points == expected
    laid = [c for _, group in result.layoffs for c in group]
    rest = [c for m in result.arrangement.melds for c in m] + list(result.arrangement.deadwood)
    assert Counter(laid + rest) == Counter(hand)
    for i, shape in enumerate(table):
        group = [c for j, g in result.layoffs if j == i for c in g]
        assert extension_ok(shape, group, wild_rank, rules), (shape, group)
        assert grown_shape_ok(shape, result.table[i], group, wild_rank, rules), (
            shape,
            result.table[i],
            group,
        )
    assert len(result.table) == len(table)
    check_arrangement(result.arrangement, rest, wild_rank, rules, joker_penalty)
