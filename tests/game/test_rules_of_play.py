"""One test per rule of RULES.md that the engine plays (the meld rules are in test_melds.py).

Rounds are scripted with ``Game.arrange``: hands as strings, the stock's last card is drawn
next, the discard pile's last card is the top discard.
"""

from __future__ import annotations

from collections import Counter

import pytest

from tt_env.game.cards import make_deck, parse_cards
from tt_env.game.engine import (
    DISCARD,
    DRAW_STOCK,
    GO_OUT,
    TAKE_DISCARD,
    Game,
    IllegalMoveError,
    MoveKind,
    Phase,
)
from tt_env.game.rules import Rules


def card(name: str):
    return parse_cards(name)[0]


def scripted(rules: Rules | None = None, **arrange) -> Game:
    game = Game(rules or Rules(), seed=0)
    game.arrange(current=0, **arrange)
    return game


def play(game: Game, *moves: str) -> None:
    for move in moves:
        game.apply(move)


# ---------------------------------------------------------------- cards and players
def test_players_two_to_eight():
    for n in range(2, 9):
        game = Game(Rules(num_players=n), seed=n)
        assert len(game.all_hands()) == n
    for n in (1, 9):
        with pytest.raises(ValueError, match="num_players"):
            Rules(num_players=n)


def test_decks_chosen_automatically_with_enough_stock():
    for n in range(2, 9):
        rules = Rules(num_players=n)
        game = Game(rules, seed=1)
        dealt = sum(sum(h) for h in game.all_hands()) + len(game.discard_pile) + game.stock_size
        assert dealt == rules.decks * 52
        assert rules.decks * 52 - n * 13 - 1 >= 20
    assert Rules(num_players=2).decks == 1
    assert Rules(num_players=3).decks == Rules(num_players=4).decks == 2


def test_several_decks_hand_may_hold_identical_cards():
    game = scripted(
        Rules(num_decks=2), hands=["7H 7H 7S", "2C 9D KD"], stock="5C QD", discard_pile="4S"
    )
    play(game, "draw stock")
    assert game.hand_counts(0)[card("7H")] == 2
    assert GO_OUT[card("QD")] in game.legal_moves()  # 7H 7H 7S is a set


# ---------------------------------------------------------------- rounds and wild cards
def test_eleven_rounds_three_to_thirteen_cards_wild_rank_equals_cards():
    game = Game(Rules(max_turns_per_round=1), seed=2)
    seen = []
    while not game.is_over:
        seen.append((game.cards_dealt, game.wild_rank, sum(game.all_hands()[0])))
        game.apply(game.legal_moves()[0])
        game.apply(next(m for m in game.legal_moves() if m.kind == MoveKind.DISCARD))
    assert seen == [(n, n, n) for n in range(3, 14)]
    assert [r.wild_rank for r in game.round_results] == list(range(3, 14))


# ---------------------------------------------------------------- dealing and turn order
def test_first_dealer_random_and_deal_passes_left():
    firsts = {Game(Rules(num_players=4), seed=s).first_dealer for s in range(40)}
    assert firsts == {0, 1, 2, 3}
    game = Game(Rules(num_players=3, max_turns_per_round=1), seed=5)
    dealers = []
    while not game.is_over:
        dealers.append(game.dealer)
        assert game.current == (game.dealer + 1) % 3  # left of the dealer plays first
        game.apply(DRAW_STOCK)
        game.apply(next(m for m in game.legal_moves() if m.kind == MoveKind.DISCARD))
    assert dealers == [(game.first_dealer + i) % 3 for i in range(11)]


def test_deal_hands_stock_and_upcard():
    game = Game(Rules(num_players=4), seed=6)
    assert [sum(h) for h in game.all_hands()] == [3, 3, 3, 3]
    assert len(game.discard_pile) == 1
    assert game.stock_size == 2 * 52 - 12 - 1


def test_play_goes_clockwise_in_seat_order():
    game = Game(Rules(num_players=4), seed=7)
    order = []
    for _ in range(8):
        order.append(game.current)
        game.apply(DRAW_STOCK)
        game.apply(next(m for m in game.legal_moves() if m.kind == MoveKind.DISCARD))
    first = order[0]
    assert order == [(first + i) % 4 for i in range(8)]


# ---------------------------------------------------------------- a turn
def test_draw_from_stock_or_take_top_discard():
    game = scripted(hands=["4H 5H 9C", "KC KD 2S"], stock="TC 8D", discard_pile="2D QH")
    assert game.legal_moves() == [DRAW_STOCK, TAKE_DISCARD]
    play(game, "take discard")
    assert card("QH") in game.hand(0) and game.top_discard == card("2D")
    play(game, "discard 9C")
    play(game, "draw stock")
    assert card("8D") in game.hand(1)
    assert game.stock_size == 1


def test_go_out_when_all_cards_but_one_meld_scores_zero():
    game = scripted(hands=["4H 5H 6H", "KC KD 2S"], stock="TC 9D 7S", discard_pile="QH")
    play(game, "draw stock")
    outs = {m.card for m in game.legal_moves() if m.kind == MoveKind.GO_OUT}
    assert outs == {card("7S")}
    play(game, "go out, discard 7S")
    assert game.went_out == 0
    # seat 1 has its final turn, then the round is scored
    play(game, "draw stock", "discard 9D")
    result = game.round_results[0]
    assert result.went_out == 0 and result.ended_by == "out"
    assert result.penalties == (0, 10 + 10 + 2)


def test_going_out_is_a_choice():
    game = scripted(hands=["4H 5H 6H", "KC KD 2S"], stock="TC 9D 7S", discard_pile="QH")
    play(game, "draw stock", "discard 7S")
    assert game.went_out is None and game.current == 1 and not game.round_results


def test_card_taken_from_discard_pile_may_not_be_discarded_same_turn():
    game = scripted(hands=["4H 5H 9C", "KC KD 2S"], stock="TC", discard_pile="QH")
    play(game, "take discard")
    assert DISCARD[card("QH")] not in game.legal_moves()
    with pytest.raises(IllegalMoveError, match="just taken"):
        game.apply("discard QH")
    game2 = scripted(
        Rules(num_decks=2), hands=["QH 5H 9C", "KC KD 2S"], stock="TC", discard_pile="QH"
    )
    play(game2, "take discard")
    assert DISCARD[card("QH")] in game2.legal_moves()  # an identical card held from before


def test_discard_drawn_upcard_option():
    game = scripted(
        Rules(discard_drawn_upcard=True),
        hands=["4H 5H 9C", "KC KD 2S"],
        stock="TC",
        discard_pile="QH",
    )
    play(game, "take discard", "discard QH")
    assert game.top_discard == card("QH")


def test_empty_stock_is_rebuilt_from_discard_pile_except_top():
    game = scripted(hands=["4H 5H 9C", "KC KD 2S"], stock="", discard_pile="2D 8C 7S QH")
    play(game, "draw stock")
    assert game.discard_pile == [card("QH")]
    assert game.stock_size == 2
    drawn = Counter(game.hand(0)) - Counter(parse_cards("4H 5H 9C"))
    assert list(drawn)[0] in parse_cards("2D 8C 7S")


def test_player_must_take_discard_when_no_stock_can_be_made():
    game = scripted(hands=["4H 5H 9C", "KC KD 2S"], stock="", discard_pile="QH")
    assert game.legal_moves() == [TAKE_DISCARD]
    with pytest.raises(IllegalMoveError, match="stock is empty"):
        game.apply(DRAW_STOCK)


def test_round_ends_and_is_scored_when_neither_stock_nor_discard_pile_can_be_drawn():
    game = scripted(hands=["4H 5H 9C", "KC KD 2S"], stock="", discard_pile="")
    result = game.round_results[0]
    assert result.ended_by == "no_cards" and result.went_out is None
    assert result.penalties == (18, 22)  # threes wild: nothing melds
    assert game.scores == [18, 22] and game.round_index == 1 and game.legal_moves()
    last = scripted(hands=["4H 5H 9C", "KC KD 2S"], stock="", discard_pile="", round_index=10)
    assert last.is_over and last.round_results[0].ended_by == "no_cards"
    assert not last.legal_moves()


def test_arranged_hands_hold_a_card_each():
    # An empty hand could take the top discard and then have nothing it may discard.
    with pytest.raises(ValueError, match="at least one card"):
        scripted(hands=["4H 5H 9C", ""], stock="2C", discard_pile="QH")


def test_turn_cap_ends_round_nobody_out():
    game = scripted(
        Rules(max_turns_per_round=3),
        hands=["4H 5H 9C", "KC KD 2S"],
        stock="2H 3S TC 8D 7D",
        discard_pile="QH",
    )
    play(game, "draw stock", "discard 7D", "draw stock", "discard 8D", "draw stock")
    assert not game.round_results
    play(game, "discard 9C")
    result = game.round_results[0]
    assert result.ended_by == "turn_cap" and result.went_out is None
    assert Rules(num_players=3).turn_cap == 150  # default: 50 turns per player


# ---------------------------------------------------------------- after someone goes out
def test_every_other_player_gets_exactly_one_final_turn():
    game = scripted(
        Rules(num_players=3),
        hands=["4H 5H 6H", "KC KD 2S", "9S 9H 5C"],
        stock="AD 2D TC 9D 7S",
        discard_pile="QH",
    )
    play(game, "draw stock", "go out, discard 7S")
    play(game, "draw stock", "discard 2S")
    assert not game.round_results and game.current == 2
    play(game, "draw stock", "discard TC")
    assert len(game.round_results) == 1
    assert game.round_index == 1 and game.phase == Phase.DRAW


# ---------------------------------------------------------------- scoring
def test_best_arrangement_is_used_at_scoring():
    # Round 4, sixes wild. Seat 1 ends with 7C 8C 9C 9D 9S KD: the run 7C 8C 9C leaves
    # 9 + 9 + 10 = 28, the set of nines leaves 7 + 8 + 10 = 25: the set is used.
    game = scripted(
        round_index=3,
        hands=["4H 5H 6H 7H 8H 9H", "7C 8C 9C 9D 9S KD"],
        stock="2D 7S",
        discard_pile="QH",
    )
    play(game, "draw stock", "go out, discard 7S", "draw stock", "discard 2D")
    result = game.round_results[0]
    assert result.penalties == (0, 25)
    assert sorted(map(str, result.arrangements[1].deadwood)) == ["7C", "8C", "KD"]


def test_round_scores_add_up_and_lowest_total_wins():
    game = Game(Rules(max_turns_per_round=2), seed=3)
    while not game.is_over:
        game.apply(game.legal_moves()[-1])
    totals = [sum(r.penalties[s] for r in game.round_results) for s in range(2)]
    assert game.scores == totals
    assert game.winners == [s for s in range(2) if totals[s] == min(totals)]


def test_equal_lowest_totals_share_the_win():
    game = Game(Rules(max_turns_per_round=1), seed=0)
    while game.round_index < game.rules.num_rounds - 1:
        game.apply(DRAW_STOCK)
        game.apply(next(m for m in game.legal_moves() if m.kind == MoveKind.DISCARD))
    game.scores = [40, 40]
    game.arrange(
        current=0,
        hands=[
            "4H 5H 6H" + " 2C 3C 4C 5C 6C 7C 8C 9C TC JC",
            "4D 5D 6D" + " 2S 3S 4S 5S 6S 7S 8S 9S TS JS",
        ],
        stock="KC KH",
        discard_pile="AD",
    )
    play(game, "draw stock", "go out, discard KH", "draw stock", "go out, discard KC")
    assert game.is_over and game.scores == [40, 40] and game.winners == [0, 1]


# ---------------------------------------------------------------- options
def test_max_wilds_per_meld_option():
    hands = ["7H 3C 3D", "KC KD 2S"]
    free = scripted(Rules(), hands=hands, stock="KS", discard_pile="QH")
    one = scripted(Rules(max_wilds_per_meld=1), hands=hands, stock="KS", discard_pile="QH")
    play(free, "draw stock")
    play(one, "draw stock")
    assert GO_OUT[card("KS")] in free.legal_moves()  # 7H with two wild threes
    assert GO_OUT[card("KS")] not in one.legal_moves()


def test_unused_wild_penalty_option():
    def final_penalty(rules):
        game = scripted(rules, hands=["4H 5H 6H", "3C KD 9S"], stock="2C 7S", discard_pile="QH")
        play(game, "draw stock", "go out, discard 7S", "draw stock", "discard 2C")
        return game.round_results[0].penalties[1]

    assert final_penalty(Rules()) == 3 + 10 + 9
    assert final_penalty(Rules(unused_wild_penalty=15)) == 15 + 10 + 9


def test_aces_high_option():
    def can_go_out(rules):
        game = scripted(rules, hands=["QH KH AH", "KC KD 2S"], stock="7S", discard_pile="9C")
        play(game, "draw stock")
        return GO_OUT[card("7S")] in game.legal_moves()

    assert can_go_out(Rules(aces_high=True)) and not can_go_out(Rules())
    game = scripted(
        Rules(aces_high=True), hands=["4H 5H 6H", "AC KD 9S"], stock="2D 7S", discard_pile="QH"
    )
    play(game, "draw stock", "go out, discard 7S", "draw stock", "discard 2D")
    assert game.round_results[0].penalties[1] == 15 + 10 + 9


def test_court_values_option():
    game = scripted(
        Rules(court_values=True), hands=["4H 5H 6H", "JC QD KS"], stock="2D 7S", discard_pile="9H"
    )
    play(game, "draw stock", "go out, discard 7S", "draw stock", "discard 2D")
    assert game.round_results[0].penalties[1] == 11 + 12 + 13


def test_extra_rounds_option():
    rules = Rules(extra_rounds=2, max_turns_per_round=1)
    game = Game(rules, seed=4)
    while not game.is_over:
        game.apply(DRAW_STOCK)
        game.apply(next(m for m in game.legal_moves() if m.kind == MoveKind.DISCARD))
    assert [(r.cards_dealt, r.wild_rank) for r in game.round_results][-3:] == [
        (13, 13),
        (14, 1),
        (15, 1),
    ]


def test_there_and_back_option():
    rules = Rules(there_and_back=True, max_turns_per_round=1)
    game = Game(rules, seed=4)
    while not game.is_over:
        game.apply(DRAW_STOCK)
        game.apply(next(m for m in game.legal_moves() if m.kind == MoveKind.DISCARD))
    sizes = [r.cards_dealt for r in game.round_results]
    assert sizes == list(range(3, 14)) + list(range(13, 2, -1))


def test_jokers_per_deck_option():
    rules = Rules(jokers_per_deck=2)
    assert Counter(make_deck(rules.decks, 2))[card("JK")] == 2
    game = scripted(rules, hands=["4H JK 9C", "JK KD 2S"], stock="2D 6H", discard_pile="QH")
    play(game, "draw stock")
    assert GO_OUT[card("9C")] in game.legal_moves()  # 4H JK 6H
    play(game, "go out, discard 9C", "draw stock", "discard 2D")
    assert game.round_results[0].penalties[1] == 20 + 10 + 2  # a leftover joker costs 20


def test_joker_layoff_option():
    def penalty(rules):
        game = scripted(rules, hands=["4H 5H 6H", "JK KD 2S"], stock="2D 7S", discard_pile="QH")
        play(game, "draw stock", "go out, discard 7S", "draw stock", "discard 2D")
        return game.round_results[0].penalties[1]

    assert penalty(Rules(jokers_per_deck=2)) == 20 + 10 + 2
    assert penalty(Rules(jokers_per_deck=2, joker_layoff=True)) == 10 + 2


def test_redemption_option():
    def penalty(rules):
        game = scripted(rules, hands=["4H 5H 6H", "7H KD 2S"], stock="2D 7S", discard_pile="QH")
        play(game, "draw stock", "go out, discard 7S", "draw stock", "discard 2D")
        return game

    plain = penalty(Rules())
    assert plain.round_results[0].penalties[1] == 7 + 10 + 2
    redeemed = penalty(Rules(redemption=True))
    assert redeemed.round_results[0].penalties[1] == 10 + 2  # 7H laid off on 4H 5H 6H


def test_double_court_rounds_option():
    rules = Rules(double_court_rounds=True)
    for index in range(rules.num_rounds):
        assert rules.score_multiplier(rules.rounds[index].wild_rank) == (2 if index >= 8 else 1)
    game = Game(Rules(double_court_rounds=True, max_turns_per_round=1), seed=1)
    while not game.is_over:
        game.apply(DRAW_STOCK)
        game.apply(next(m for m in game.legal_moves() if m.kind == MoveKind.DISCARD))
    for r in game.round_results:
        mult = 2 if r.wild_rank >= 11 else 1
        assert r.penalties == tuple(mult * d for d in r.deadwood_points)


def test_all_wild_melds_option():
    rules = dict(num_decks=2, jokers_per_deck=2)

    def can_go_out(**extra):
        game = scripted(
            Rules(**rules, **extra), hands=["JK JK JK", "KC KD 2S"], stock="9S", discard_pile="QH"
        )
        play(game, "draw stock")
        return GO_OUT[card("9S")] in game.legal_moves()

    assert can_go_out(all_wild_melds=True) and not can_go_out()


def test_false_out_penalty_option():
    game = scripted(
        Rules(false_out_penalty=20),
        hands=["4H 5H 9C", "KC KD 2S"],
        stock="2D TC 8D",
        discard_pile="QH",
    )
    play(game, "draw stock")
    assert {m for m in game.legal_moves() if m.kind == MoveKind.GO_OUT} == {
        GO_OUT[c] for c in parse_cards("4H 5H 9C 8D")
    }
    play(game, "go out, discard 9C")  # 4H 5H 8D do not meld: a false go-out
    assert game.went_out is None and game.current == 1 and game.top_discard == card("9C")


def test_max_turns_per_round_option():
    assert Rules().turn_cap == 100
    assert Rules(max_turns_per_round=7).turn_cap == 7
    with pytest.raises(ValueError, match="max_turns_per_round"):
        Rules(max_turns_per_round=0)
