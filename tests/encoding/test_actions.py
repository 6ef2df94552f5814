"""The integer action layout: tables, words and back."""

from __future__ import annotations

import pytest

from tt_env.encoding.actions import (
    ACTION_TO_MOVE,
    DISCARD_ACTION_BASE,
    DRAW_STOCK_ACTION,
    GO_OUT_ACTION_BASE,
    NUM_ACTIONS,
    TAKE_DISCARD_ACTION,
    action_to_move,
    describe,
    discard_action,
    go_out_action,
    move_to_action,
    parse_action,
)
from tt_env.game.cards import JOKER, parse_card
from tt_env.game.engine import DISCARD, DRAW_STOCK, GO_OUT, TAKE_DISCARD, MoveKind


def test_layout_matches_the_issue():
    assert (
        DRAW_STOCK_ACTION,
        TAKE_DISCARD_ACTION,
        DISCARD_ACTION_BASE,
        GO_OUT_ACTION_BASE,
        NUM_ACTIONS,
    ) == (0, 1, 2, 55, 108)
    assert action_to_move(0) == DRAW_STOCK and action_to_move(1) == TAKE_DISCARD
    assert action_to_move(2 + JOKER) == DISCARD[JOKER]
    assert action_to_move(107) == GO_OUT[JOKER]


def test_every_action_round_trips():
    for action, move in enumerate(ACTION_TO_MOVE):
        assert move_to_action(move) == action
        assert parse_action(describe(action)) == action
        assert parse_action(describe(action, pretty=True)) == action
        assert parse_action(str(action)) == action
        if move.kind in (MoveKind.DISCARD, MoveKind.GO_OUT):
            kind = action - (
                DISCARD_ACTION_BASE if move.kind == MoveKind.DISCARD else GO_OUT_ACTION_BASE
            )
            assert move.card == kind


@pytest.mark.parametrize(
    "action, words",
    [
        (0, "draw stock"),
        (1, "take discard"),
        (2 + 32, "discard 7H"),
        (55 + int(parse_card("KD")), "go out, discard KD"),
        (54, "discard JK"),
    ],
)
def test_describe(action, words):
    assert describe(action) == words
    assert parse_action(words) == action


def test_pretty_and_short_forms():
    assert describe(discard_action(parse_card("TH")), pretty=True) == "discard 10♥"
    assert parse_action("out 7h") == go_out_action(parse_card("7H"))
    assert parse_action("take") == TAKE_DISCARD_ACTION


@pytest.mark.parametrize("bad", [-1, 108, 3.5, "discard 1X", "fold"])
def test_bad_actions_raise(bad):
    with pytest.raises(ValueError):
        if isinstance(bad, str):
            parse_action(bad)
        else:
            describe(bad)
