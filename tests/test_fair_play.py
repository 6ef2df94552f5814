"""Fair play: nothing hidden reaches a seat (STYLE.md, "a leak test").

Twin games have identical public histories and different hidden cards: an opponent's card
swapped with one in the stock or in another hand, or the stock in another order. Both are played
with the same moves (only moves legal in both, and no go-out or lay-down whose melds could
differ); at every position, every seat whose own hand is the same in both games cannot tell them
apart, so its observation, mask, ``view()``, ``public_view()`` and language-model prompt
(:mod:`tt_env.text`) must be identical; the public
parts of every seat's view must be identical in any case. With several decks this is what catches
a ``known`` piece read from the hands (a seat that takes 7H and later discards a 7H may have kept
an identical 7H held from before, or not: the table cannot tell).
"""

from __future__ import annotations

import dataclasses
import random
import warnings

import numpy as np
import pytest

from tt_env.encoding.actions import moves_to_actions
from tt_env.encoding.observation import encode
from tt_env.encoding.words import public_view
from tt_env.env import aec as three_thirteen_v0
from tt_env.game.cards import shuffled_deck
from tt_env.game.engine import Game, MoveKind
from tt_env.game.rules import Rules
from tt_env.text import decision_prompt, position_text

RULE_SETS = {
    "1 deck": Rules(num_players=2),
    "2 decks": Rules(num_players=3),
    "3 decks, jokers": Rules(num_players=2, num_decks=3, jokers_per_deck=2),
    "2 decks, jokers, redemption": Rules(
        num_players=4, jokers_per_deck=2, redemption=True, discard_drawn_upcard=True
    ),
}
PRIVATE_VIEW_FIELDS = ("hand", "legal_moves")  # what only the seat itself sees
PRIVATE_PUBLIC_VIEW_KEYS = ("hand", "legal_moves", "legal_actions")


def deal(rules: Rules, rnd: random.Random):
    """A random deal of a random round, sometimes with a short stock (to force rebuilds)."""
    round_index = rnd.randrange(min(rules.num_rounds, 8))
    size = rules.rounds[round_index].cards
    deck = [
        int(c)
        for c in shuffled_deck(
            np.random.default_rng(rnd.randrange(2**32)), rules.decks, rules.jokers_per_deck
        )
    ]
    hands = [[deck.pop() for _ in range(size)] for _ in range(rules.num_players)]
    pile = [deck.pop()]
    if rnd.random() < 0.3:
        deck = deck[: rnd.randrange(1, 8)]
    return round_index, hands, deck, pile


def twin_of(hands, stock, rnd: random.Random):
    """The same deal with some hidden cards moved: (hands, stock, the seats that can tell)."""
    hands = [list(h) for h in hands]
    stock = list(stock)
    how = rnd.choice(["stock", "hand", "shuffle"])
    if how == "stock" or (how == "hand" and len(hands) < 2):
        s = rnd.randrange(len(hands))
        i, j = rnd.randrange(len(hands[s])), rnd.randrange(len(stock))
        hands[s][i], stock[j] = stock[j], hands[s][i]
    elif how == "hand":
        s, t = rnd.sample(range(len(hands)), 2)
        i, j = rnd.randrange(len(hands[s])), rnd.randrange(len(hands[t]))
        hands[s][i], hands[t][j] = hands[t][j], hands[s][i]
    else:
        rnd.shuffle(stock)
    return hands, stock


def make_env(rules: Rules, round_index: int, hands, stock, pile, current: int):
    game = Game(rules, seed=1)
    game.arrange(
        hands=hands, stock=stock, discard_pile=pile, current=current, round_index=round_index
    )
    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(options={"game": game})
    return env


def public_parts(view):
    return dataclasses.replace(view, **{name: () for name in PRIVATE_VIEW_FIELDS})


def check_twins(env_a, env_b) -> int:
    """Compare what every seat sees in both environments; returns the seats that can tell."""
    a, b = env_a.game, env_b.game
    rules = env_a.rules
    can_tell = 0
    for seat, agent in enumerate(env_a.possible_agents):
        view_a, view_b = a.view(seat), b.view(seat)
        assert public_parts(view_a) == public_parts(view_b)
        pv_a, pv_b = env_a.public_view(agent), env_b.public_view(agent)
        for key in PRIVATE_PUBLIC_VIEW_KEYS:
            pv_a.pop(key), pv_b.pop(key)
        if a.hand_counts(seat) != b.hand_counts(seat):
            can_tell += 1
            assert pv_a == pv_b
            continue
        assert view_a == view_b
        assert public_view(view_a, rules) == public_view(view_b, rules)
        assert env_a.public_view(agent) == env_b.public_view(agent)
        obs_a, obs_b = env_a.observe(agent), env_b.observe(agent)
        np.testing.assert_array_equal(obs_a["observation"], obs_b["observation"])
        np.testing.assert_array_equal(obs_a["action_mask"], obs_b["action_mask"])
        np.testing.assert_array_equal(encode(view_a, rules), encode(view_b, rules))
        np.testing.assert_array_equal(obs_a["observation"], encode(view_a, rules))
        # The language-model prompt is written from what the seat sees: the same in both.
        prompt_a = position_text(obs_a["observation"], obs_a["action_mask"], rules)
        assert prompt_a == position_text(obs_b["observation"], obs_b["action_mask"], rules)
        if obs_a["action_mask"].any():
            assert decision_prompt(
                obs_a["observation"], obs_a["action_mask"], rules
            ) == decision_prompt(obs_b["observation"], obs_b["action_mask"], rules)
    return can_tell


def common_move(a: Game, b: Game, rnd: random.Random):
    """A move legal in both games that reveals nothing hidden; None if there is none."""
    seat = a.current
    same_hand = a.hand_counts(seat) == b.hand_counts(seat)
    moves = [m for m in a.legal_moves() if m in b.legal_moves()]
    if not same_hand:
        # Melds laid down (going out; a final turn with redemption) would show the hands.
        moves = [m for m in moves if m.kind != MoveKind.GO_OUT]
        if a.went_out is not None and a.rules.redemption and a.phase.name == "DISCARD":
            moves = []
    if not moves:
        return None
    takes = [m for m in moves if m.kind == MoveKind.TAKE_DISCARD]
    if takes and rnd.random() < 0.5:  # take often: the taken cards are what `known` tracks
        return takes[0]
    return rnd.choice(moves)


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_twin_games_look_the_same_to_every_seat_that_cannot_tell(name):
    rules = RULE_SETS[name]
    rnd = random.Random(f"twins {name}")
    positions = known_positions = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(12):
            round_index, hands, stock, pile = deal(rules, rnd)
            twin_hands, twin_stock = twin_of(hands, stock, rnd)
            current = rnd.randrange(rules.num_players)
            env_a = make_env(rules, round_index, hands, stock, pile, current)
            env_b = make_env(rules, round_index, twin_hands, twin_stock, pile, current)
            rounds = len(env_a.game.round_results)
            for _ in range(400):
                check_twins(env_a, env_b)
                positions += 1
                known_positions += any(
                    env_a.game.known_cards(s) != (0,) * 53 for s in range(rules.num_players)
                )
                move = common_move(env_a.game, env_b.game, rnd)
                if move is None:
                    break
                action = moves_to_actions([move])[0]
                env_a.step(action)
                env_b.step(action)
                if len(env_a.game.round_results) != rounds:
                    break  # the scores now show the hands
    assert positions > 1000 and known_positions > 300  # the walks reached what they test


def test_known_cards_come_from_public_events_only():
    """Seat 1 takes 7H and later discards a 7H: whether it held a second 7H from the deal is
    hidden, so the others know of no 7H in its hand either way (RULES.md, several decks)."""
    rules = Rules(num_players=2, num_decks=2)
    seen = []
    for hand_1 in ("7H 2C 5D", "9S 2C 5D"):  # a second 7H, or not
        game = Game(rules, seed=0)
        game.arrange(hands=["KC KD KS", hand_1], stock="4S 4C 4D 8H", discard_pile="7H", current=1)
        for move in (
            "take discard",
            "discard 5D",
            "draw stock",
            "discard KC",
            "draw stock",
            "discard 7H",
        ):
            game.apply(move)
        assert sum(game.hand_counts(1)) == 3
        seen.append((game.known_cards(1), game.view(0).taken, game.view(0).hand))
        assert game.known_cards(1) == (0,) * 53
    assert seen[0] == seen[1]


def test_known_cards_never_exceed_the_hand():
    """The public count is a lower bound of what the seat holds, under every rule set."""
    rnd = random.Random(3)
    for rules in RULE_SETS.values():
        game = Game(rules, seed=rnd.randrange(1000))
        for _ in range(1500):
            if game.is_over:
                break
            for seat in range(rules.num_players):
                assert all(k <= h for k, h in zip(game.known_cards(seat), game.hand_counts(seat)))
            moves = game.legal_moves()
            takes = [m for m in moves if m.kind == MoveKind.TAKE_DISCARD]
            game.apply(takes[0] if takes and rnd.random() < 0.5 else rnd.choice(moves))
