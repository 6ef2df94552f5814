"""The engine: invariants over many random games, records, errors, views."""

from __future__ import annotations

import copy
import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tt_env.game.cards import NUM_KINDS, make_deck, to_counts
from tt_env.game.engine import (
    DISCARD,
    DRAW_STOCK,
    GO_OUT,
    TAKE_DISCARD,
    Game,
    IllegalMoveError,
    Move,
    MoveKind,
    Outcome,
    Phase,
    RecordError,
)
from tt_env.game.melds import solve
from tt_env.game.rules import Rules


def random_rules(rnd: random.Random) -> Rules:
    """Random rule options, every option of RULES.md drawn, short rounds to keep games quick."""
    jokers = rnd.choice([0, 0, 2])
    cap = rnd.choice([None, None, 1, 2, 3])
    all_wild = rnd.random() < 0.2 and (cap is None or cap >= 3)
    return Rules(
        num_players=rnd.choice([2, 2, 3, 4, 5, 8]),
        max_wilds_per_meld=cap,
        unused_wild_penalty=rnd.choice([None, 15]),
        aces_high=rnd.random() < 0.3,
        court_values=rnd.random() < 0.3,
        extra_rounds=rnd.choice([0, 0, 1, 2]),
        there_and_back=rnd.random() < 0.15,
        jokers_per_deck=jokers,
        joker_layoff=jokers > 0 and rnd.random() < 0.5,
        redemption=rnd.random() < 0.3,
        double_court_rounds=rnd.random() < 0.3,
        all_wild_melds=all_wild,
        false_out_penalty=rnd.choice([None, None, 20]),
        discard_drawn_upcard=rnd.random() < 0.3,
        max_turns_per_round=rnd.randint(1, 12),
    )


def pick(rnd: random.Random, moves: list[Move]) -> Move:
    """Random legal play that goes out often, so that every path of the engine is exercised."""
    outs = [m for m in moves if m.kind == MoveKind.GO_OUT]
    if outs and rnd.random() < 0.7:
        return rnd.choice(outs)
    return rnd.choice(moves)


def check_invariants(game: Game) -> None:
    rules = game.rules
    deck = to_counts(make_deck(rules.decks, rules.jokers_per_deck))
    total = [0] * NUM_KINDS
    for hand in game.all_hands():
        for k in range(NUM_KINDS):
            total[k] += hand[k]
    for c in game.stock_cards():
        total[c] += 1
    for c in game.discard_pile:
        total[c] += 1
    for meld in game.table:
        for c in meld.cards:
            total[c] += 1
    assert tuple(total) == deck, "cards were created or lost"
    if game.is_over:
        return
    sizes = [sum(h) for h in game.all_hands()]
    laid = {m.seat for m in game.table}
    for seat, size in enumerate(sizes):
        drew = seat == game.current and game.phase == Phase.DISCARD
        expected = game.cards_dealt + (1 if drew else 0)
        if seat in laid or (game.went_out is not None and rules.redemption):
            # Cards laid down or laid off on the table (redemption) have left the hand.
            assert size <= expected
        else:
            assert size == expected, f"seat {seat} holds {size} cards, expected {expected}"
    legal = game.legal_moves()
    assert legal, "the seat to move has no legal move"
    kinds = {m.kind for m in legal}
    if game.phase == Phase.DRAW:
        assert kinds <= {MoveKind.DRAW_STOCK, MoveKind.TAKE_DISCARD}
    else:
        assert kinds <= {MoveKind.DISCARD, MoveKind.GO_OUT} and MoveKind.DISCARD in kinds


def check_results(game: Game) -> None:
    rules = game.rules
    assert len(game.round_results) == rules.num_rounds
    totals = [0] * game.num_players
    for result, rnd in zip(game.round_results, rules.rounds):
        assert (result.cards_dealt, result.wild_rank) == rnd
        mult = rules.score_multiplier(result.wild_rank)
        for seat in range(game.num_players):
            arrangement = result.arrangements[seat]
            assert result.penalties[seat] == mult * (
                result.deadwood_points[seat] + result.false_outs[seat]
            )
            assert arrangement.points == result.deadwood_points[seat]
            if seat == result.went_out:
                assert arrangement.points == 0
            elif not rules.redemption and not rules.joker_layoff:
                # The scored arrangement is the solver's best for the final hand.
                hand = [c for meld in arrangement.melds for c in meld] + list(arrangement.deadwood)
                assert solve(hand, result.wild_rank, rules).points == arrangement.points
            totals[seat] += result.penalties[seat]
    assert totals == game.scores
    best = min(game.scores)
    assert game.winners == [s for s, v in enumerate(game.scores) if v == best]


@pytest.mark.parametrize("block", range(4))
def test_invariants_over_random_games_and_rules(block):
    """Invariants at every step of random games under random rule options (RULES.md, all)."""
    rnd = random.Random(1000 + block)
    for _ in range(60):
        rules = random_rules(rnd)
        game = Game(rules, seed=rnd.randrange(2**31))
        limit = rules.num_rounds * (rules.turn_cap + rules.num_players + 1) * 2
        steps = 0
        while not game.is_over:
            check_invariants(game)
            game.apply(pick(rnd, game.legal_moves()))
            steps += 1
            assert steps <= limit, "the game did not end"
        check_invariants(game)
        check_results(game)


def test_record_replays_identically():
    rnd = random.Random(5)
    for _ in range(10):
        rules = random_rules(rnd)
        game = Game(rules, seed=rnd.randrange(2**31))
        while not game.is_over:
            game.apply(pick(rnd, game.legal_moves()))
        text = game.to_json()
        replay = Game.from_record(text)
        assert replay.moves == game.moves
        assert replay.scores == game.scores
        assert [r.penalties for r in replay.round_results] == [
            r.penalties for r in game.round_results
        ]


def test_record_of_unfinished_game_replays_to_same_state():
    game = Game(Rules(num_players=3), seed=11)
    rnd = random.Random(0)
    for _ in range(57):
        game.apply(pick(rnd, game.legal_moves()))
    replay = Game.from_record(game.record())
    assert replay.full_state() == game.full_state()
    assert replay.legal_moves() == game.legal_moves()


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda r: "{not json", "not valid JSON"),
        (lambda r: {**r, "format": "other"}, "not a tt_env game record"),
        (lambda r: {**r, "version": 99}, "version"),
        (lambda r: {k: v for k, v in r.items() if k != "seed"}, "no 'seed'"),
        (lambda r: {**r, "rules": {**r["rules"], "colour": 1}}, "unknown rule option"),
        (lambda r: {**r, "rules": {**r["rules"], "num_players": 1}}, "num_players"),
        (lambda r: {**r, "moves": r["moves"][:3] + ["discard ZZ"]}, "move 3"),
        (lambda r: {**r, "moves": ["discard 7H"] + r["moves"]}, "move 0"),
        (lambda r: {**r, "scores": [s + 1 for s in r["scores"]]}, "does not match"),
        (lambda r: {**r, "seed": r["seed"] + 1}, "record"),
    ],
)
def test_corrupt_record_raises_clear_error(mutate, message):
    game = Game(Rules(), seed=3)
    rnd = random.Random(3)
    while not game.is_over:
        game.apply(pick(rnd, game.legal_moves()))
    with pytest.raises(RecordError, match=message):
        Game.from_record(mutate(json.loads(game.to_json())))


def test_illegal_moves_raise_and_leave_state_unchanged():
    game = Game(Rules(num_players=2), seed=4)
    before = (game.full_state(), game.legal_moves(), list(game.moves))
    for move in [DISCARD[0], GO_OUT[5], Move(MoveKind.DISCARD, 99), "nonsense"]:
        with pytest.raises((IllegalMoveError, ValueError)):
            game.apply(move)
        assert (game.full_state(), game.legal_moves(), list(game.moves)) == before
    game.apply(TAKE_DISCARD)
    before = (game.full_state(), game.legal_moves())
    taken = game.drawn_upcard
    with pytest.raises(IllegalMoveError, match="just taken from the discard pile"):
        game.apply(DISCARD[taken])
    with pytest.raises(IllegalMoveError, match="already drawn"):
        game.apply(DRAW_STOCK)
    missing = next(k for k in range(52) if game.hand_counts(game.current)[k] == 0)
    with pytest.raises(IllegalMoveError, match="does not hold"):
        game.apply(DISCARD[missing])
    assert (game.full_state(), game.legal_moves()) == before


def test_seeded_games_are_identical_and_seeds_differ():
    a, b, c = Game(seed=8), Game(seed=8), Game(seed=9)
    assert a.full_state() == b.full_state()
    assert a.full_state() != c.full_state()
    with pytest.raises(ValueError, match="seed"):
        Game(seed=-1)


def test_view_hides_other_hands_and_stock():
    game = Game(Rules(num_players=3), seed=2)
    view = game.view(1)
    assert view.hand == game.hand_counts(1)
    assert not hasattr(view, "hands") and not hasattr(view, "stock")
    assert view.hand_sizes == tuple(sum(h) for h in game.all_hands())
    assert view.legal_moves == (() if game.current != 1 else tuple(game.legal_moves()))


def test_move_text_round_trip():
    for move in [DRAW_STOCK, TAKE_DISCARD, *DISCARD, *GO_OUT]:
        assert Move.parse(str(move)) == move
    with pytest.raises(ValueError, match="unknown move"):
        Move.parse("fold")


def test_arrange_refuses_a_hand_that_a_draw_would_overflow():
    game = Game(Rules(num_players=2), seed=1)
    with pytest.raises(ValueError, match="at most 254 cards of one kind"):
        game.arrange(hands=[[0] * 255, "KD 9C 2C"], stock="AS 8S", discard_pile="QC")
    with pytest.raises(ValueError, match="at most 255 copies of a card kind"):
        game.arrange(hands=[[0] * 254, "KD 9C 2C"], stock="AC AC", discard_pile="QC")
    game.arrange(hands=[[0] * 254, "KD 9C 2C"], stock="2C AC", discard_pile="QC", current=0)
    game.apply("draw stock")  # the 255th copy still fits
    assert game.hand_counts(0)[0] == 255


@settings(max_examples=120, deadline=None)
@given(st.data())
def test_no_position_without_a_legal_move_while_the_game_goes_on(data):
    """Arranged deals down to one card a hand and an empty stock or discard pile, then random
    play: while the game goes on the seat to move always has a legal move (RULES.md: when nothing
    can be drawn the round ends and is scored; seeded games are checked by the invariants)."""
    rules = Rules(
        num_players=data.draw(st.integers(2, 3)),
        discard_drawn_upcard=data.draw(st.booleans()),
        false_out_penalty=data.draw(st.sampled_from([None, 20])),
        redemption=data.draw(st.booleans()),
        max_turns_per_round=12,
    )
    kinds = st.integers(0, NUM_KINDS - 2)
    hands = [data.draw(st.lists(kinds, min_size=1, max_size=4)) for _ in range(rules.num_players)]
    game = Game(rules, seed=data.draw(st.integers(0, 99)))
    game.arrange(
        hands=hands,
        stock=data.draw(st.lists(kinds, max_size=3)),
        discard_pile=data.draw(st.lists(kinds, max_size=3)),
        current=data.draw(st.integers(0, rules.num_players - 1)),
        round_index=data.draw(st.integers(0, rules.num_rounds - 1)),
    )
    rnd = random.Random(data.draw(st.integers(0, 2**16)))
    for _ in range(60):
        if game.is_over:
            break
        moves = game.legal_moves()
        assert moves, f"no legal move in {game.full_state()}"
        game.apply(pick(rnd, moves))


def arranged_like(game: Game) -> Game:
    """A game of the same rules and seed arranged into ``game``'s position from its state
    (hidden cards and public state, as its accessors give them)."""
    n = game.num_players
    arranged = Game(game.rules, seed=game.seed)
    arranged.arrange(
        hands=[game.hand(s) for s in range(n)],
        stock=game.stock_cards(),
        discard_pile=game.discard_pile,
        current=game.current,
        round_index=game.round_index,
        table=game.table,
        went_out=game.went_out,
        known=[game.taken_from_discard(s) for s in range(n)],
        turns=game.turns,
        false_outs=game.false_outs,
        scores=game.scores,
    )
    return arranged


def same_outcome(arranged: Outcome, original: Outcome) -> None:
    """The same, but that an arranged game shows the melds that a seat laid down before the
    arrangement as they lie on the table at the end, with the cards laid off onto them since
    (Game.arrange)."""
    assert arranged._replace(round_result=None) == original._replace(round_result=None)
    a, b = arranged.round_result, original.round_result
    if a is None or b is None:
        assert a is b
        return
    assert dataclasses.replace(a, arrangements=()) == dataclasses.replace(b, arrangements=())
    for mine, theirs in zip(a.arrangements, b.arrangements, strict=True):
        assert (mine.deadwood, mine.points) == (theirs.deadwood, theirs.points)
        assert len(mine.melds) == len(theirs.melds)
        for meld, laid in zip(mine.melds, theirs.melds):
            assert meld[: len(laid)] == laid


def test_arrange_sets_up_every_position_that_play_reaches():
    """Seeded games, and at many of their turns (every one of the final turns, after a seat went
    out) a game arranged from the position: every seat sees the same, and the same moves from
    there do the same to the end of the round (outcomes, round results, scores)."""
    rnd = random.Random(24)
    seen = {"positions": 0, "final turns": 0, "laid down in a final turn": 0}
    for g in range(24):
        rules = random_rules(rnd)
        if g % 3 == 0:  # lay-downs and lay-offs in the final turns, jokers on the table
            rules = Rules(
                num_players=rnd.choice([2, 3, 4]),
                jokers_per_deck=2,
                joker_layoff=True,
                redemption=True,
                false_out_penalty=rnd.choice([None, 20]),
                max_turns_per_round=rnd.randint(4, 12),
            )
        game = Game(rules, seed=g)
        rebuilt = False  # this round's stock was rebuilt: its random stream is past its start
        while not game.is_over:
            if (
                game.phase == Phase.DRAW
                and not rebuilt
                and (game.went_out is not None or rnd.random() < 0.15)
            ):
                arranged = arranged_like(game)
                n = game.num_players
                assert [arranged.view(s) for s in range(n)] == [game.view(s) for s in range(n)]
                assert arranged.full_state() == game.full_state()
                seen["positions"] += 1
                seen["final turns"] += game.went_out is not None
                original = copy.deepcopy(game)
                play = random.Random(rnd.random())
                while True:
                    move = pick(play, original.legal_moves())
                    done = original.apply(move)
                    same_outcome(arranged.apply(move), done)
                    seen["laid down in a final turn"] += done.laid and not done.went_out
                    if done.round_result is not None:
                        break
                assert arranged.scores == original.scores
            outcome = game.apply(pick(rnd, game.legal_moves()))
            rebuilt = (rebuilt or outcome.rebuilt) and outcome.round_result is None
    assert seen["positions"] > 300 and seen["final turns"] > 40, seen
    assert seen["laid down in a final turn"] > 20, seen


def test_arrange_refuses_positions_that_play_cannot_reach():
    game = Game(Rules(num_players=3), seed=1)
    before = copy.deepcopy(game.full_state())
    hands = ["3H 4H 5H", "", "KD 9C 2C"]
    table = [(1, "7S 7D 7C")]
    with pytest.raises(ValueError, match="seat 1 holds no card: every seat still to play"):
        game.arrange(hands=hands, stock="AS", discard_pile="QC", current=0)
    with pytest.raises(ValueError, match="seat 0 went out: its hand must be empty"):
        game.arrange(hands=hands, stock="AS", current=2, went_out=0, table=table)
    with pytest.raises(ValueError, match="seat 1 went out: its final turns end before"):
        game.arrange(hands=hands, stock="AS", current=1, went_out=1, table=table)
    with pytest.raises(ValueError, match="'7S 8D 2C' is not one meld"):
        game.arrange(hands=hands, stock="AS", current=2, went_out=1, table=[(1, "7S 8D 2C")])
    with pytest.raises(ValueError, match="seat 0 is known to hold KD, which its hand does not"):
        game.arrange(hands=hands, stock="AS", current=2, went_out=1, known=["KD", "", ""])
    with pytest.raises(ValueError, match="turns must be 1..151"):
        game.arrange(hands=hands, stock="AS", current=2, went_out=1, turns=10**6)
    with pytest.raises(ValueError, match="scores must be 3 integers"):
        game.arrange(hands=hands, stock="AS", current=2, went_out=1, turns=4, scores=[1, 2])
    assert game.full_state() == before
    # Seat 1 went out; seat 2 has had its final turn, seat 0 has its own now.
    game.arrange(
        hands=["3H 4H 5H", "", "KD 9C 2C"],
        stock="AS",
        discard_pile="QC",
        current=0,
        table=table,
        went_out=1,
        turns=7,
        scores=[10, 20, 30],
    )
    assert game.went_out == 1 and game.current == 0 and game.turns == 7
    assert game.apply("draw stock").round_result is None
    result = game.apply("discard AS").round_result
    assert result is not None and result.went_out == 1 and result.penalties[1] == 0
    assert result.arrangements[1].melds == [list(game.ended_round().table[0].cards)]
    assert game.scores == [10 + 0, 20, 30 + result.penalties[2]]


# ---------------------------------------------------------------------------- outcomes
def test_apply_says_what_happened():
    """Game.apply returns an Outcome that agrees with the state it leaves, move by move, over
    random games with every option (the encoder and the rewards read nothing else)."""
    rnd = random.Random(11)
    seen = {"rebuilt": 0, "went_out": 0, "false_out": 0, "laid": 0, "ended": 0, "over": 0}
    for i in range(12):
        # random options (short rounds), and standard rules, where stocks run out
        rules = random_rules(rnd) if i % 3 else Rules(num_players=rnd.choice([2, 3]))
        game = Game(rules, seed=rnd.randrange(1000))
        while not game.is_over:
            seat, rounds = game.current, len(game.round_results)
            hand = game.hand_counts(seat)
            stock = game.stock_size
            legal = game.legal_moves()
            # mostly stock draws, so that stocks run out and get rebuilt
            move = DRAW_STOCK if DRAW_STOCK in legal and rnd.random() < 0.9 else rnd.choice(legal)
            outcome = game.apply(move)
            assert outcome.move == move and outcome.seat == seat
            ended = len(game.round_results) > rounds
            assert (outcome.round_result is not None) == ended
            assert outcome.game_over == game.is_over
            if ended:
                assert outcome.round_result is game.round_results[-1]
                seen["ended"] += 1
                seen["over"] += outcome.game_over
                continue
            assert outcome.stock_size == game.stock_size
            assert outcome.known == game.known_cards(seat)[outcome.card]
            if move.kind in (MoveKind.DRAW_STOCK, MoveKind.TAKE_DISCARD):
                assert game.hand_counts(seat)[outcome.card] == hand[outcome.card] + 1
                assert outcome.rebuilt == (move.kind == MoveKind.DRAW_STOCK and stock == 0)
                seen["rebuilt"] += outcome.rebuilt
                assert outcome.next_seat == seat == game.current
            else:
                assert outcome.card == move.card
                assert outcome.next_seat == game.current and outcome.turns == game.turns
                assert outcome.went_out == (game.went_out == seat and move.kind == MoveKind.GO_OUT)
                seen["went_out"] += outcome.went_out
                seen["false_out"] += outcome.false_out
                seen["laid"] += outcome.laid
                if not outcome.laid:
                    assert game.hand_counts(seat)[move.card] == hand[move.card] - 1
    assert all(seen.values()), seen


def test_a_deep_copy_plays_on_alone_as_the_original_would():
    """copy.deepcopy(game) shares the immutable records (a field-by-field copy, for the copy per
    round of duplicate-deal training): the copy and the original, given the same moves, give the
    same outcomes and states, and playing on the copy never changes the original."""
    rnd = random.Random(11)
    copies = 0
    for _ in range(30):
        game = Game(random_rules(rnd), seed=rnd.randrange(2**32))
        while not game.is_over:
            if rnd.random() < 0.05:
                twin = copy.deepcopy(game)
                assert set(vars(twin)) == set(vars(game))
                before = (game.record(), game.full_state(), game.to_json())
                ended = [game.view(s) for s in range(game.num_players)]
                other = copy.deepcopy(game)  # a second copy, played on by the same moves
                play = random.Random(rnd.random())
                for _ in range(rnd.randrange(1, 200)):
                    if twin.is_over:
                        break
                    move = pick(play, twin.legal_moves())
                    assert twin.apply(move) == other.apply(move)
                    assert twin.full_state() == other.full_state()
                    assert twin.known_cards(twin.current) == other.known_cards(other.current)
                assert twin.record() == other.record() and twin.table == other.table
                assert (game.record(), game.full_state(), game.to_json()) == before
                assert [game.view(s) for s in range(game.num_players)] == ended
                copies += 1
            game.apply(pick(rnd, game.legal_moves()))
    assert copies > 100
