"""The observation table: layout, encode/decode, no leaks, the public view and the docs."""

from __future__ import annotations

import numpy as np
import pytest

from tt_env.encoding.actions import describe, discard_action
from tt_env.encoding.mask import action_mask
from tt_env.encoding.observation import (
    OBSERVATION_PIECES,
    STATE_PIECES,
    decode,
    decode_state,
    encode,
    hand_of,
    markdown_table,
    observation_layout,
    observation_size,
    observation_space,
    state_space,
    top_discard_of,
)
from tt_env.encoding.words import public_view
from tt_env.env import aec as three_thirteen_v0
from tt_env.game.cards import NUM_KINDS, parse_card, parse_cards, to_counts
from tt_env.game.engine import DRAW_STOCK, TAKE_DISCARD, Game
from tt_env.game.rules import Rules


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_layout_size_and_shapes(n):
    assert observation_size(n) == 32 + 53 * 5 + 58 * n
    lay = observation_layout(n)
    assert lay.shapes["known"] == (n, NUM_KINDS) and lay.shapes["score"] == (n,)
    pieces = decode(np.arange(lay.size, dtype=np.float32), n)
    assert list(pieces) == [p.name for p in OBSERVATION_PIECES]
    assert sum(v.size for v in pieces.values()) == lay.size
    assert observation_space(Rules(num_players=n)).shape == (lay.size,)


def test_names_are_unique():
    for table in (OBSERVATION_PIECES, STATE_PIECES):
        names = [p.name for p in table]
        assert len(names) == len(set(names))


def _game(rules: Rules, hands, stock, pile, current=0, seed=3) -> Game:
    game = Game(rules, seed=seed)
    game.arrange(hands=hands, stock=stock, discard_pile=pile, current=current)
    return game


def test_encode_a_scripted_view():
    rules = Rules(num_players=3)
    game = _game(rules, ["3H 4H 5H", "KS KD 9C", "2C 2D 7S"], "AS 8D 6C 5C", "QC JD", current=1)
    game.apply(TAKE_DISCARD)  # seat 1 takes JD: now known to everyone
    obs = encode(game.view(1), rules)
    p = decode(obs, 3)
    assert hand_of(obs) == sorted(parse_cards("KS KD 9C JD"))
    assert top_discard_of(obs) == parse_card("QC")
    assert p["drawn_upcard"][parse_card("JD")] == 1 and p["drawn_upcard"].sum() == 1
    assert p["discard_below"].sum() == 0
    assert p["wild_rank"][2] == 1 and p["cards_dealt"][0] == 1
    assert p["phase"].tolist() == [0, 1]
    assert p["known"][0][parse_card("JD")] == 1  # row 0 is the observer
    assert p["hand_size"].tolist() == [4, 3, 3]  # observer, then seats 2 and 0
    assert p["to_move"].tolist() == [1, 0, 0]
    assert p["stock_size"][0] == pytest.approx(4 / (2 * 52))
    # seat 2 sees seat 1 as the previous player (row 2) and does not see the drawn upcard
    other = decode(encode(game.view(2), rules), 3)
    assert other["known"][2][parse_card("JD")] == 1 and other["drawn_upcard"].sum() == 0
    assert other["hand_size"].tolist() == [3, 3, 4]


def _pair(seat_seen: int):
    """Two games that differ only in what ``seat_seen`` cannot see: the other hand, the stock."""
    rules = Rules(num_players=2)
    mine = "3H 4H 5H 9D"
    theirs_a, theirs_b = "KS KD 9C 2S", "AC 2D TS 2S"
    stock_a, stock_b = "AC 2D TS 7C 8C 6S", "7C KS 6S KD 8C 9C"  # the same cards in play overall
    hands_a = [mine, theirs_a] if seat_seen == 0 else [theirs_a, mine]
    hands_b = [mine, theirs_b] if seat_seen == 0 else [theirs_b, mine]
    other = 1 - seat_seen
    a = _game(rules, hands_a, stock_a, "QC JD", current=other)
    b = _game(rules, hands_b, stock_b, "QC JD", current=other)
    return rules, a, b


@pytest.mark.parametrize("seat", [0, 1])
def test_no_leak_hidden_cards_never_change_an_observation(seat):
    rules, a, b = _pair(seat)
    env_a = three_thirteen_v0.raw_env(rules=rules)
    env_b = three_thirteen_v0.raw_env(rules=rules)
    env_a.reset(options={"game": a})
    env_b.reset(options={"game": b})
    me, other = f"player_{seat}", f"player_{1 - seat}"

    def same():
        oa, ob = env_a.observe(me), env_b.observe(me)
        assert np.array_equal(oa["observation"], ob["observation"])
        assert np.array_equal(oa["action_mask"], ob["action_mask"])
        assert np.array_equal(
            encode(env_a.game.view(seat), rules), encode(env_b.game.view(seat), rules)
        )

    same()
    assert not env_a.observe(me)["action_mask"].any()  # not on turn: all zeros
    # the other player draws a hidden card (different in a and b), discards a card both hold
    for env in (env_a, env_b):
        assert env.agent_selection == other
        env.step(0)
    same()
    for env in (env_a, env_b):
        env.step(discard_action(parse_card("2S")))
    same()
    assert env_a.observe(me)["action_mask"].any()  # now on turn
    for env in (env_a, env_b):
        env.step(1)  # take the 2S
    same()


def test_action_mask_of_view_and_game():
    rules = Rules()
    game = _game(rules, ["3H 4H 5H", "KS KD 9C"], "AS 8D", "QC", current=0)
    assert action_mask(game).tolist()[:2] == [1, 1]
    assert not action_mask(game, seat=1).any()
    assert not action_mask(game.view(1)).any()
    game.apply(DRAW_STOCK)  # 8D
    mask = action_mask(game.view(0))
    held = [int(c) for c in parse_cards("3H 4H 5H 8D")]
    assert np.flatnonzero(mask[2:55]).tolist() == sorted(held)
    assert mask.dtype == np.int8 and mask.shape == (108,)
    assert np.flatnonzero(mask[55:]).tolist() == [int(parse_card("8D"))]  # 3-4-5 melds: go out


def test_public_view_words():
    rules = Rules(num_players=3)
    game = _game(rules, ["3H 4H 5H", "KS KD 9C", "2C 2D 7S"], "AS 8D 6C 5C", "QC JD", current=1)
    game.apply(TAKE_DISCARD)
    view = public_view(game.view(1), rules)
    assert view["hand"] == ["9C", "JD", "KD", "KS"]  # in card-kind order
    assert view["top_discard"] == "QC" and view["drawn_upcard"] == "JD"
    assert view["wild_rank"] == "3" and view["round"] == 1 and view["phase"] == "discard"
    assert view["players"][0]["you"] and view["players"][0]["known_cards"] == ["JD"]
    assert [p["seat"] for p in view["players"]] == [1, 2, 0]
    assert "discard KS" in view["legal_moves"] and "discard JD" not in view["legal_moves"]
    assert view["legal_moves"] == [describe(a) for a in view["legal_actions"]]
    quiet = public_view(game.view(0), rules)
    assert quiet["legal_moves"] == [] and not quiet["your_turn"]
    assert "KS" not in str(quiet)  # another seat's hidden card


def test_state_holds_everything():
    rules = Rules(num_players=2)
    game = _game(rules, ["3H 4H 5H", "KS KD 9C"], "AS 8D 6C", "QC", current=0)
    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(options={"game": game})
    state = env.state()
    assert env.state_space.contains(state)
    p = decode_state(state, 2)
    assert p["hands"][1].tolist() == list(to_counts(parse_cards("KS KD 9C")))
    assert p["stock"].tolist() == list(to_counts(parse_cards("AS 8D 6C")))
    assert np.flatnonzero(p["next_stock"]).tolist() == [int(parse_card("6C"))]
    assert state_space(rules).shape == state.shape


def test_docs_show_the_table():
    assert markdown_table() in three_thirteen_v0.__doc__
    table = markdown_table(num_players=2)
    assert "| 0..52 | `hand` |" in table and "`known` | (n, 53)" in table
