"""Bad input at the public entries: one clear error, and nothing changed.

Hypothesis throws junk (floats, strings, bytes, bools, NumPy scalars and arrays, nested lists,
malformed moves) at every public call that changes state (``Game.apply``, ``Game.arrange``,
``raw_env.reset/step``, ``SingleAgentEnv.reset/step``) and checks that a refused call leaves the
pickled state identical; and at the parsers (``parse_cards``, ``Rules``, ``Game.from_record``)
that the only errors are the documented ones, naming the problem.
"""

from __future__ import annotations

import json
import pickle
import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tt_env.env import aec as three_thirteen_v0
from tt_env.env.aec import IllegalActionError
from tt_env.env.single_agent import SingleAgentEnv
from tt_env.game.cards import Card, parse_card, parse_cards
from tt_env.game.engine import DISCARD, Game, IllegalMoveError, Move, MoveKind, RecordError
from tt_env.game.rules import FIELD_NAMES, MAX_DECKS, Rules

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

# Junk of every kind a careless caller might pass.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.integers(),
    st.floats(),
    st.text(max_size=12),
    st.binary(max_size=8),
    st.integers(-5, 60).map(np.int64),
    st.floats(-5, 60).map(np.float64),
    st.integers(-5, 60).map(float),
    st.integers(0, 3).map(lambda k: np.array(k)),
    st.just(np.array([1, 2])),
    st.just([1, 2]),
    st.just({"a": 1}),
    st.just(Card(5)),
)
junk = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=3) | st.tuples(inner, inner), max_leaves=6
)
bad_moves = st.one_of(
    junk,
    st.builds(Move, junk, junk),
    st.builds(Move, st.sampled_from(list(MoveKind)), junk),
    st.builds(Move, st.sampled_from(list(MoveKind)), st.integers(-3, 60).map(float)),
    st.text(max_size=20),
    st.sampled_from(["discard 10ſ", "discard ²H", "go out, discard", "draw stock please"]),
)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def game_after(seed: int, moves: int, rules: Rules | None = None) -> Game:
    game = Game(rules or Rules(max_turns_per_round=8), seed=seed)
    rnd = random.Random(seed)
    for _ in range(moves):
        if game.is_over:
            break
        game.apply(rnd.choice(game.legal_moves()))
    game.legal_moves()  # the legal-move cache is part of the pickled state: fill it
    return game


# ---------------------------------------------------------------------------------- Game.apply
@FUZZ
@given(seed=st.integers(0, 50), played=st.integers(0, 40), move=bad_moves)
def test_game_apply_refuses_bad_moves_and_changes_nothing(seed, played, move):
    game = game_after(seed, played)
    before = pickle.dumps(game)
    try:
        game.apply(move)
    except IllegalMoveError as exc:
        assert str(exc)
        assert pickle.dumps(game) == before
        return
    # Accepted: then it was a legal move, stored as the engine's own move (ints, not floats).
    last = game.moves[-1]
    assert type(last.kind) is MoveKind and type(last.card) is int
    Game.from_record(game.to_json())


@pytest.mark.parametrize(
    "card",
    [
        lambda k: float(k),
        lambda k: np.float64(k),
        lambda k: str(k),
        lambda k: "7H",
        lambda k: None,
        lambda k: True,
    ],
)
def test_a_float_or_string_card_is_an_illegal_move_naming_it(card):
    game = game_after(1, 1)
    kind = game.legal_moves()[0].card
    before = pickle.dumps(game)
    with pytest.raises(IllegalMoveError, match="card of discard must be a card index"):
        game.apply(Move(MoveKind.DISCARD, card(kind)))
    assert pickle.dumps(game) == before
    assert game.to_json()  # still recordable


def test_moves_with_integer_types_are_stored_as_the_engines_own():
    game = game_after(1, 1)
    kind = game.legal_moves()[0].card
    game.apply(Move(2, np.int64(kind)))
    assert game.moves[-1] is DISCARD[kind]


def test_malformed_moves_are_named():
    game = game_after(2, 0)
    with pytest.raises(IllegalMoveError, match="kind 7 is not a MoveKind"):
        game.apply(Move(7, 3))
    with pytest.raises(IllegalMoveError, match="draw_stock names no card"):
        game.apply(Move(MoveKind.DRAW_STOCK, 5))
    with pytest.raises(IllegalMoveError, match="not a move: tuple"):
        game.apply((0, -1))
    with pytest.raises(IllegalMoveError, match="unknown move"):
        game.apply("fold")


# ---------------------------------------------------------------------------------- Game.arrange
@FUZZ
@given(hands=junk, stock=junk, current=junk, round_index=junk)
def test_game_arrange_refuses_junk_and_changes_nothing(hands, stock, current, round_index):
    game = game_after(3, 5)
    before = pickle.dumps(game)
    try:
        game.arrange(hands=hands, stock=stock, current=current, round_index=round_index)
    except (ValueError, TypeError) as exc:
        assert str(exc)
        assert pickle.dumps(game) == before


def test_arrange_with_a_bad_seat_changes_nothing():
    game = game_after(3, 5)
    before = pickle.dumps(game)
    with pytest.raises(ValueError, match="current must be a seat"):
        game.arrange(hands=["3H 4H 5H", "KD 9C 2C"], stock="AS", round_index=2, current=5)
    with pytest.raises(ValueError, match="unknown card"):
        game.arrange(hands=["3H 4H 5H", "KD 9C 2C"], stock="AS ZZ", round_index=2)
    assert pickle.dumps(game) == before


# ---------------------------------------------------------------------------------- the AEC env
def env_after(seed: int, steps: int, **kwargs):
    env = three_thirteen_v0.raw_env(num_players=2, max_turns_per_round=8, **kwargs)
    env.reset(seed=seed)
    rnd = random.Random(seed)
    for _ in range(steps):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
    if env.agents:
        env.last()  # fill the mask cache: it is part of the pickled state
    return env


@FUZZ
@given(seed=st.integers(0, 30), steps=st.integers(0, 60), action=junk)
def test_env_step_refuses_bad_actions_and_changes_nothing(seed, steps, action):
    env = env_after(seed, steps)
    if not env.agents or env.terminations[env.agent_selection]:
        return
    mask = env.observe(env.agent_selection)["action_mask"]
    if (
        isinstance(action, (int, np.integer))
        and not isinstance(action, (bool, np.bool_))
        and (0 <= action < mask.size and mask[action])
    ):
        return  # a legal action
    if (
        isinstance(action, np.ndarray)
        and action.ndim == 0
        and action.dtype.kind in "iu"
        and (0 <= action < mask.size and mask[action])
    ):
        return
    before = pickle.dumps(env)
    with pytest.raises(IllegalActionError):
        env.step(action)
    assert pickle.dumps(env) == before


@FUZZ
@given(seed=junk, options=junk)
def test_env_reset_refuses_bad_seeds_and_options_and_changes_nothing(seed, options):
    env = env_after(4, 7)
    before = pickle.dumps(env)
    try:
        env.reset(seed=seed, options=options)
    except ValueError as exc:
        assert "seed" in str(exc) or "options" in str(exc)
        assert pickle.dumps(env) == before
    else:
        assert seed is None or (isinstance(seed, (int, np.integer)) and seed >= 0)


@pytest.mark.parametrize("seed", [[1, 2], -1, 1.5, "7", np.array(3), True, np.True_, 2.0])
def test_env_reset_names_the_seed_and_keeps_the_seed_stream(seed):
    env = three_thirteen_v0.raw_env()
    env.reset(seed=11)
    reference = three_thirteen_v0.raw_env()
    reference.reset(seed=11)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        env.reset(seed=seed)
    env.reset()
    reference.reset()
    assert env.game.seed == reference.game.seed  # the next seedless reset plays the same game


def test_env_reset_with_a_bad_game_option_keeps_the_seed_stream():
    env, reference = three_thirteen_v0.raw_env(), three_thirteen_v0.raw_env()
    env.reset(seed=3)
    reference.reset(seed=3)
    with pytest.raises(ValueError, match="options\\['game'\\]"):
        env.reset(seed=99, options={"game": "not a game"})
    env.reset()
    reference.reset()
    assert env.game.seed == reference.game.seed


@pytest.mark.parametrize("make", [three_thirteen_v0.raw_env, three_thirteen_v0.env])
def test_a_finished_env_follows_the_pettingzoo_convention(make, caplog):
    env = make(num_players=2, episode="round")
    env.reset(seed=1)
    rnd = random.Random(1)
    finals = {}
    for agent in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            finals[agent] = (term, trunc, info)
            env.step(None)
        else:
            env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.agents == [] and len(finals) == 2
    before = pickle.dumps(env.unwrapped)
    env.step(None)  # PettingZoo logs a warning, as its OrderEnforcingWrapper does
    assert "Should reset() first" in caplog.text
    obs, reward, term, trunc, info = env.last()
    assert reward == 0.0 and (term, trunc, info) == finals[env.agent_selection]
    assert not obs["action_mask"].any()
    assert pickle.dumps(env.unwrapped) == before
    assert list(env.agent_iter()) == []
    env.reset(seed=2)  # and the env plays on
    assert env.agents == env.possible_agents


def test_a_dead_agent_takes_only_none_and_nothing_changes():
    env = three_thirteen_v0.raw_env(num_players=2, episode="round")
    env.reset(seed=1)
    rnd = random.Random(0)
    while not env.terminations[env.agent_selection]:
        obs = env.observe(env.agent_selection)
        env.step(int(rnd.choice(np.flatnonzero(obs["action_mask"]))))
    env.last()
    before = pickle.dumps(env)
    with pytest.raises(ValueError, match="only valid action is None"):
        env.step(3)
    assert pickle.dumps(env) == before


# ---------------------------------------------------------------------------------- single agent
@FUZZ
@given(seed=junk, options=junk, action=junk)
def test_single_agent_env_refuses_junk_and_changes_nothing(seed, options, action):
    env = SingleAgentEnv("random", max_turns_per_round=8, illegal_action="raise")
    env.reset(seed=5)
    before = pickle.dumps(env)
    try:
        env.reset(seed=seed, options=options)
    except ValueError as exc:
        assert str(exc)
        assert pickle.dumps(env) == before
    else:
        env.reset(seed=5)
        before = pickle.dumps(env)
    mask = env.action_masks()
    if (
        isinstance(action, (int, np.integer))
        and not isinstance(action, (bool, np.bool_))
        and (0 <= action < mask.size and mask[action])
    ):
        return
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        return
    with pytest.raises(IllegalActionError):
        env.step(action)
    assert pickle.dumps(env) == before


# ---------------------------------------------------------------------------------- records
def finished_game(seed: int = 3) -> Game:
    return game_after(seed, 10**6, Rules(max_turns_per_round=6))


def test_a_record_with_cut_moves_is_refused():
    record = finished_game().record()
    cut = {**record, "moves": record["moves"][:-40]}
    with pytest.raises(RecordError, match="it says 11 round\\(s\\) played"):
        Game.from_record(cut)
    with pytest.raises(RecordError, match="winners"):
        Game.from_record({**record, "winners": [s + 1 for s in record["winners"]]})
    with pytest.raises(RecordError, match="no 'rounds_played'"):
        Game.from_record({k: v for k, v in record.items() if k != "rounds_played"})


@pytest.mark.parametrize(
    "text, message",
    [
        (b"\xff\xfe\x00garbage", "not UTF-8"),
        ("[" * 100_000, "nested too deeply"),
        ('{"format": "tt_env.game", "version": true}', "version True"),
        ("[1, 2]", "not a tt_env game record"),
    ],
)
def test_bad_bytes_and_absurd_nesting_are_record_errors(text, message):
    with pytest.raises(RecordError, match=message):
        Game.from_record(text)


def test_a_record_as_utf8_bytes_replays():
    game = finished_game()
    assert Game.from_record(game.to_json().encode()).scores == game.scores


@FUZZ
@given(
    key=st.sampled_from(
        ["rules", "seed", "moves", "scores", "rounds_played", "winners", "version", "format"]
    ),
    value=st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
        lambda inner: (
            st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
        ),
        max_leaves=10,
    ),
)
def test_a_record_with_any_field_replaced_replays_or_is_a_record_error(key, value):
    record = json.loads(finished_game(4).to_json())
    changed = {**record, key: value}
    try:
        game = Game.from_record(json.dumps(changed))
    except RecordError as exc:
        assert str(exc)
    else:  # accepted: then it says what the game is
        assert game.record()["moves"] == record["moves"]


@FUZZ
@given(st.binary(max_size=60) | st.text(max_size=60))
def test_any_bytes_or_text_is_a_record_or_a_record_error(data):
    with pytest.raises(RecordError):
        Game.from_record(data)


# ---------------------------------------------------------------------------------- cards
def test_bytes_are_not_cards():
    with pytest.raises(TypeError, match="not bytes"):
        parse_cards(b"1234")
    with pytest.raises(TypeError, match="not bytearray"):
        parse_cards(bytearray(b"12"))


@pytest.mark.parametrize("token", ["10ſ", "Aſ", "ſ", "Qß", "3\u212a", "JOKER\u0131"])
def test_only_ascii_letters_name_cards(token):
    with pytest.raises(ValueError, match="unknown card"):
        parse_card(token)


@FUZZ
@given(st.text(max_size=30))
def test_parse_cards_reads_text_or_names_the_bad_token(text):
    try:
        cards = parse_cards(text)
    except ValueError as exc:
        assert "unknown card" in str(exc)
    else:
        assert all(isinstance(c, Card) for c in cards)


@FUZZ
@given(junk)
def test_parse_cards_of_junk_is_a_type_or_value_error(value):
    try:
        parse_cards(value)
    except (TypeError, ValueError) as exc:
        assert str(exc)


# ---------------------------------------------------------------------------------- rules
@FUZZ
@given(name=st.sampled_from(FIELD_NAMES), value=junk)
def test_rules_refuse_junk_with_a_value_error_naming_the_option(name, value):
    try:
        rules = Rules(**{name: value})
    except ValueError as exc:
        assert name in str(exc) or "deck" in str(exc)
    else:
        Game(rules, seed=0)  # accepted values make a game at once


@pytest.mark.parametrize(
    "options, message",
    [
        (dict(num_decks=10**7), "num_decks must be 1..12"),
        (dict(num_decks=MAX_DECKS + 1), "num_decks must be 1..12"),
        (dict(jokers_per_deck=5), "jokers_per_deck must be 0..4"),
        (dict(max_turns_per_round=10**9), "max_turns_per_round must be 1..10000"),
        (dict(unused_wild_penalty=10**6), "unused_wild_penalty must be 0..1000"),
        (dict(false_out_penalty=10**6), "false_out_penalty must be 0..1000"),
    ],
)
def test_rules_have_documented_upper_bounds(options, message):
    with pytest.raises(ValueError, match=message):
        Rules(**options)


def test_the_largest_rules_make_a_game_quickly():
    Game(Rules(num_players=8, num_decks=MAX_DECKS, jokers_per_deck=4, extra_rounds=2), seed=0)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: Rules.preset(None), "a preset is a name"),
        (lambda: Rules.preset(3), "a preset is a name"),
        (lambda: Rules.from_dict(None), "rule options are a dict"),
        (lambda: Rules.from_dict([1]), "rule options are a dict"),
        (lambda: Rules.from_dict({1: 2, "colour": 3}), "unknown rule option"),
        (lambda: Rules.preset("standard", colour=1), "unknown rule option\\(s\\): colour"),
        (lambda: Rules(aces_high=[[[[[[[[1]]]]]]]]), "aces_high must be True or False"),
    ],
)
def test_rules_constructors_name_the_problem(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@FUZZ
@given(junk)
def test_rules_from_dict_and_preset_of_junk_are_value_errors(value):
    for call in (Rules.from_dict, Rules.preset):
        try:
            call(value)
        except ValueError as exc:
            assert str(exc)
