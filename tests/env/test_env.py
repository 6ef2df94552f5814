"""The PettingZoo AEC environment three_thirteen_v0: PettingZoo's own tests, then ours.

Games are kept short (``episode="round"`` or a small ``max_turns_per_round``) so that the file
runs in seconds.
"""

from __future__ import annotations

import functools
import pickle
import random
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test
from pettingzoo.test.state_test import test_state as pz_state_test
from pettingzoo.test.state_test import test_state_space as pz_state_space_test
from pettingzoo.utils import wrappers

from tt_env.encoding.actions import GO_OUT_ACTION_BASE, NUM_ACTIONS, moves_to_actions, parse_action
from tt_env.encoding.observation import decode, encode, hand_of, top_discard_of
from tt_env.env import aec as three_thirteen_v0
from tt_env.env.aec import ActionOutOfBoundsError, IllegalActionError
from tt_env.game.cards import parse_card, parse_cards
from tt_env.game.engine import Game
from tt_env.game.rules import Rules

VARIANTS = {
    "2p": dict(num_players=2, episode="round"),
    "3p-one-wild": dict(num_players=3, rules="one-wild", episode="round"),
    "4p-jokers": dict(num_players=4, jokers_per_deck=2, episode="round"),
    "8p": dict(num_players=8, episode="round", max_turns_per_round=40),
    "2p-aces-high": dict(num_players=2, aces_high=True, episode="round"),
    "2p-there-and-back": dict(num_players=2, there_and_back=True, episode="round"),
    "3p-false-out": dict(num_players=3, false_out_penalty=20, episode="round"),
    "2p-game": dict(num_players=2, max_turns_per_round=6),
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's advice on Dict spaces, illegal moves...
        yield


def random_play(env, rnd: random.Random, check=None, go_out: float = 0.0) -> dict[str, float]:
    """Random legal play to the end of the episode; returns each agent's summed rewards.

    With ``go_out`` > 0 a legal go-out is played with that probability, so that final turns,
    lay-downs and redemption are exercised (random play alone rarely goes out)."""
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        agent = env.agent_selection
        obs, reward, termination, truncation, info = env.last()
        totals[agent] += reward
        if termination or truncation:
            env.step(None)
            continue
        if check is not None:
            check(env, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        outs = legal[legal >= GO_OUT_ACTION_BASE]
        if len(outs) and rnd.random() < go_out:
            legal = outs
        env.step(int(legal[rnd.randrange(len(legal))]))
    return totals


# ------------------------------------------------------------------ PettingZoo's tests
def test_import_and_metadata():
    from tt_env.env import aec as module

    assert module.raw_env.metadata["name"] == "three_thirteen_v0"
    assert module.raw_env.metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    assert module.raw_env.metadata["is_parallelizable"] is False
    env = module.env(num_players=3)
    assert isinstance(env, wrappers.OrderEnforcingWrapper)
    assert isinstance(env.env, module.raw_env)  # only the order-enforcing wrapper
    assert env.possible_agents == ["player_0", "player_1", "player_2"]


def test_env_enforces_the_order_of_calls():
    env = three_thirteen_v0.env()
    with pytest.raises(AttributeError, match="before reset"):
        env.last()
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    with pytest.raises(AssertionError, match="before step"):
        env.step(0)
    with pytest.raises(AssertionError, match="before observe"):
        env.observe("player_0")


@pytest.mark.parametrize("name", list(VARIANTS))
def test_pettingzoo_api(name):
    api_test(three_thirteen_v0.env(**VARIANTS[name]), num_cycles=200)


@pytest.mark.parametrize("n", [2, 3])
def test_pettingzoo_api_raw(n):
    api_test(three_thirteen_v0.raw_env(num_players=n, episode="round"), num_cycles=200)


@pytest.mark.parametrize("name", ["2p", "4p-jokers", "2p-game"])
def test_pettingzoo_seed(name):
    seed_test(functools.partial(three_thirteen_v0.env, **VARIANTS[name]), num_cycles=100)


@pytest.mark.parametrize("name", ["2p", "8p"])
def test_pettingzoo_state(name):
    env = three_thirteen_v0.env(**VARIANTS[name])
    env.reset(seed=0)
    pz_state_space_test(env)
    pz_state_test(env, num_cycles=20)  # unmasked random actions: the first illegal one ends it


def test_pettingzoo_render():
    def ansi(text):
        return isinstance(text, str) and "wild" in text

    render_test(
        functools.partial(
            three_thirteen_v0.env, num_players=2, episode="round", max_turns_per_round=4
        ),
        custom_tests={"ansi": ansi},
    )


# Not applicable: bombardment_test (it compares a dict observation's shape, so it fails on every
# env with an action mask in the observation, PettingZoo's classic ones included),
# max_cycles_test and parallel_api_test (no parallel API: is_parallelizable is False),
# test_save_obs (image observations only). performance_benchmark: benchmarks/bench_env.py.


# ------------------------------------------------------------------ observation and mask
@pytest.mark.parametrize(
    "name, kwargs",
    [
        ("2p", dict(num_players=2, max_turns_per_round=40)),
        (
            "3p-jokers-upcard",
            dict(
                num_players=3, jokers_per_deck=2, discard_drawn_upcard=True, max_turns_per_round=30
            ),
        ),
        ("2p-rebuilt-stock", dict(num_players=2, max_turns_per_round=120, episode="round")),
        ("4p-false-out", dict(num_players=4, false_out_penalty=20, max_turns_per_round=12)),
        ("2p-redemption", dict(num_players=2, redemption=True, max_turns_per_round=12)),
        ("8p", dict(num_players=8, max_turns_per_round=24, episode="round")),
    ],
)
def test_mask_and_observation_match_the_engine_at_every_step(name, kwargs):
    env = three_thirteen_v0.raw_env(**kwargs)
    env.reset(seed=11)
    game_seen = set()

    def check(env, agent, obs):
        game, rules = env.game, env.rules
        seat = env.possible_agents.index(agent)
        assert seat == game.current
        expected = np.zeros(NUM_ACTIONS, np.int8)
        expected[moves_to_actions(game.legal_moves())] = 1
        assert np.array_equal(obs["action_mask"], expected)
        for other, name in enumerate(env.possible_agents):
            seen = env.observe(name)
            assert np.array_equal(seen["observation"], encode(game.view(other), rules)), name
            if other != seat:
                assert not seen["action_mask"].any()
        vector = obs["observation"]
        assert hand_of(vector) == game.hand(seat)
        assert top_discard_of(vector) == game.top_discard
        assert env.observation_space(agent).contains(obs)
        game_seen.add((game.round_index, game.phase))

    random_play(env, random.Random(5), check, go_out=1.0)
    assert len(game_seen) > 1
    if env.episode == "game" and env.rules.false_out_penalty is None:
        # a whole game of eager going out goes out (with false_out_penalty most are false outs)
        assert any(r.ended_by == "out" for r in env.game.round_results)


def test_terminal_observation_has_nobody_to_move():
    env = three_thirteen_v0.raw_env(num_players=2, episode="round", max_turns_per_round=4)
    env.reset(seed=2)
    random_play(env, random.Random(0))
    for agent in env.possible_agents:
        obs = env.observe(agent)
        parts = decode(obs["observation"], 2)
        assert not obs["action_mask"].any()
        assert not parts["phase"].any() and not parts["to_move"].any()
        # float32 arithmetic on every numpy (numpy 1's float32 * int would widen to float64)
        score = parts["score"][0] * np.float32(100)
        assert score == env.game.scores[env.possible_agents.index(agent)]


@pytest.mark.parametrize("episode", ["round", "game"])
def test_final_observation_shows_the_cards_as_after_the_last_move(episode):
    """Seat 0 goes out, seat 1 plays its final turn and discards 7D: the episode ends with
    seat 1 holding its three cards (not four), 7D on top, seat 0's melds on the table, whatever
    the engine dealt next."""
    rules = Rules(num_players=2)
    game = Game(rules, seed=5)
    game.arrange(
        hands=["4H 5H 6H", "KC KD 2S"],
        stock="7D 9C",
        discard_pile="QH",
        current=0,
        round_index=0 if episode == "round" else rules.num_rounds - 1,
    )
    env = three_thirteen_v0.raw_env(rules=rules, episode=episode)
    env.reset(options={"game": game})
    for move in ("draw stock", "go out, discard 9C", "draw stock", "discard 7D"):
        env.step(parse_action(move))
    assert all(env.terminations.values())
    final = env.game.ended_round()
    for seat, agent in enumerate(env.possible_agents):
        obs = env.observe(agent)
        parts = decode(obs["observation"], 2)
        assert parts["hand_size"].tolist() == ([0, 3] if seat == 0 else [3, 0])
        assert top_discard_of(obs["observation"]) == parse_card("7D")
        assert parts["discard_below"].sum() == 2  # QH and 9C
        assert parts["table"].sum() == 3 and parts["went_out"].tolist() == [seat == 0, seat == 1]
        assert not parts["phase"].any() and not parts["to_move"].any()
        expected = encode(final.view(seat), rules)
        np.testing.assert_array_equal(obs["observation"], expected)
        view = env.public_view(agent)
        assert view["top_discard"] == "7D" and len(view["hand"]) == (0 if seat == 0 else 3)
        assert view["legal_moves"] == [] and not view["your_turn"]
    assert decode(env.observe("player_1")["observation"], 2)["hand"].sum() == 3
    assert final.hand(1) == parse_cards("KC KD 2S")


def test_final_observation_of_random_episodes_equals_the_encoded_end_of_round():
    for episode, kwargs in (("round", {}), ("game", {"max_turns_per_round": 4})):
        env = three_thirteen_v0.raw_env(num_players=3, episode=episode, **kwargs)
        env.reset(seed=6)
        random_play(env, random.Random(1), go_out=0.5)
        final = env.game.ended_round()
        for seat, agent in enumerate(env.possible_agents):
            expected = encode(final.view(seat), env.rules)
            np.testing.assert_array_equal(env.observe(agent)["observation"], expected)
            parts = decode(expected, 3)
            cards = final.rules.rounds[final.round_index].cards
            assert parts["hand_size"].max() <= cards  # nobody still holds a drawn card


# ------------------------------------------------------------------ rewards and episodes
@pytest.mark.parametrize("n", [2, 3])
def test_rewards_over_a_game_sum_to_minus_the_final_scores(n):
    env = three_thirteen_v0.raw_env(num_players=n, max_turns_per_round=8)
    env.reset(seed=n)
    totals = random_play(env, random.Random(n), go_out=0.5)
    game = env.game
    assert game.is_over
    assert [totals[a] for a in env.possible_agents] == [-s for s in game.scores]
    info = env.infos if env.agents else None
    assert info is None  # every agent has left after its last step


def test_infos_and_winners():
    env = three_thirteen_v0.raw_env(num_players=3, max_turns_per_round=6)
    env.reset(seed=4)
    assert env.infos["player_0"]["round"] == 1 and env.infos["player_0"]["round_penalty"] is None
    rnd = random.Random(1)
    while not all(env.terminations.values()):
        obs = env.observe(env.agent_selection)
        legal = np.flatnonzero(obs["action_mask"])
        round_before = env.game.round_index
        env.step(int(legal[rnd.randrange(len(legal))]))
        if env.game.round_index != round_before and not env.game.is_over:
            info = env.infos["player_1"]
            result = env.game.round_results[-1]
            assert info["round"] == env.game.round_index + 1
            assert info["round_penalty"] == result.penalties[1]
            assert info["round_penalties"]["player_2"] == result.penalties[2]
            assert info["scores"]["player_0"] == env.game.scores[0]
    winners = env.infos["player_0"]["winners"]
    assert winners == [env.possible_agents[s] for s in env.game.winners]
    assert env.infos["player_2"]["round"] == env.rules.num_rounds
    assert not any(env.truncations.values())


def test_relative_rewards():
    env = three_thirteen_v0.raw_env(num_players=3, reward="relative", max_turns_per_round=6)
    env.reset(seed=8)
    totals = random_play(env, random.Random(2), go_out=0.5)
    scores = env.game.scores
    for s, agent in enumerate(env.possible_agents):
        others = [scores[o] for o in range(3) if o != s]
        assert totals[agent] == pytest.approx(-(scores[s] - sum(others) / 2))
    assert sum(totals.values()) == pytest.approx(0)


def test_relative_reward_is_positive_for_the_player_who_did_better():
    """reward="relative": the mean of the others' round penalties minus the own (README, env
    docstring): seat 0 goes out (0 points), seat 1 is left with KC KD 2S (22 points)."""
    rules = Rules(num_players=2)
    game = Game(rules, seed=5)
    game.arrange(hands=["4H 5H 6H", "KC KD 2S"], stock="7D 9C", discard_pile="QH", current=0)
    env = three_thirteen_v0.raw_env(rules=rules, reward="relative", episode="round")
    env.reset(options={"game": game})
    for move in ("draw stock", "go out, discard 9C", "draw stock", "discard 7D"):
        env.step(parse_action(move))
    assert env.game.round_results[0].penalties == (0, 22)
    assert env.rewards == {"player_0": 22.0, "player_1": -22.0}


def test_round_episodes_play_the_rounds_of_a_game_in_turn():
    env = three_thirteen_v0.raw_env(num_players=2, episode="round", max_turns_per_round=6)
    env.reset(seed=3)
    game = env.game
    for round_index in range(3):
        assert env.game is game and game.round_index == round_index
        assert env.infos["player_0"]["round"] == round_index + 1
        totals = random_play(env, random.Random(round_index))
        penalties = game.round_results[round_index].penalties
        assert [totals[a] for a in env.possible_agents] == [-p for p in penalties]
        env.reset()
    env.reset(seed=3)
    assert env.game is not game and env.game.round_index == 0
    env_illegal = three_thirteen_v0.raw_env(
        num_players=2, episode="round", illegal_action="terminate"
    )
    env_illegal.reset(seed=3)
    env_illegal.step(7)
    assert all(env_illegal.terminations.values())
    first = env_illegal.game
    env_illegal.reset()
    assert env_illegal.game is not first and env_illegal.game.round_index == 0


def test_reset_with_a_seed_reproduces_the_game():
    def trajectory(seed):
        env = three_thirteen_v0.raw_env(num_players=3, max_turns_per_round=5)
        env.reset(seed=seed)
        seen = []
        random_play(env, random.Random(0), lambda e, a, o: seen.append(o["observation"].copy()))
        return env, seen

    env_a, a = trajectory(21)
    env_b, b = trajectory(21)
    assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b))
    record = env_a.game.record()
    assert record["seed"] == 21
    assert Game.from_record(record).scores == env_a.game.scores
    _, c = trajectory(22)
    assert not all(np.array_equal(x, y) for x, y in zip(a, c))
    # resets without a seed follow from the last seed
    env_a.reset()
    env_b.reset()
    assert env_a.game.seed == env_b.game.seed != 21


# ------------------------------------------------------------------ illegal actions
def _snapshot(env):
    return (
        env.game.to_json(),
        env.state().tobytes(),
        env.agent_selection,
        {a: env.observe(a)["observation"].tobytes() for a in env.possible_agents},
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
    )


@pytest.mark.parametrize(
    "action",
    [
        5,  # a discard in the draw phase
        55,  # going out in the draw phase
    ],
)
def test_raw_env_raises_on_an_illegal_action_and_changes_nothing(action):
    env = three_thirteen_v0.raw_env(num_players=2)
    env.reset(seed=1)
    before = _snapshot(env)
    with pytest.raises(IllegalActionError, match="must draw first"):
        env.step(action)
    assert _snapshot(env) == before
    env.step(1)  # take the discard
    taken = env.game.drawn_upcard
    before = _snapshot(env)
    with pytest.raises(IllegalActionError, match="just taken from the discard pile"):
        env.step(2 + taken)
    with pytest.raises(IllegalActionError, match="already drawn"):
        env.step(0)
    assert _snapshot(env) == before


@pytest.mark.parametrize("make", [three_thirteen_v0.raw_env, three_thirteen_v0.env])
@pytest.mark.parametrize("bad", [108, -1, 2.0, "3", None, np.array([3])])
def test_out_of_bounds_actions_raise(make, bad):
    env = make(num_players=2)
    env.reset(seed=0)
    with pytest.raises(AssertionError):
        env.step(bad)
    with pytest.raises(ActionOutOfBoundsError):
        env.unwrapped.step(bad)


def test_numpy_integers_are_actions():
    env = three_thirteen_v0.raw_env(num_players=2)
    env.reset(seed=0)
    env.step(np.int64(0))
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(np.array(legal[0], dtype=np.int32))
    assert env.game.phase.name == "DRAW"


def _illegal_trace(env, illegal: int):
    env.reset(seed=5)
    env.step(0)  # draw
    env.step(illegal)  # discard a card kind that is not held
    trace = []
    while env.agents:
        agent = env.agent_selection
        _, reward, term, trunc, _ = env.last()
        trace.append((agent, reward, term, trunc, dict(env.rewards)))
        env.step(None)
    return trace


def test_env_ends_the_game_on_an_illegal_action_as_terminate_illegal_wrapper():
    ours = three_thirteen_v0.env(num_players=3, illegal_reward=-7)
    reference = wrappers.OrderEnforcingWrapper(
        wrappers.AssertOutOfBoundsWrapper(
            wrappers.TerminateIllegalWrapper(
                three_thirteen_v0.raw_env(num_players=3, illegal_action="raise"), illegal_reward=-7
            )
        )
    )
    ours.reset(seed=5)
    ours.step(0)
    hand = ours.unwrapped.game.hand_counts(ours.unwrapped.game.current)
    not_held = 2 + next(k for k in range(52) if not hand[k])
    trace = _illegal_trace(ours, not_held)
    assert trace == _illegal_trace(reference, not_held)
    offender = trace[0][0]
    assert dict((a, r) for a, r, *_ in trace) == {
        a: (-7.0 if a == offender else 0.0) for a in ours.possible_agents
    }
    assert all(term and trunc for _, _, term, trunc, _ in trace)


def test_default_illegal_reward_is_worse_than_any_game():
    env = three_thirteen_v0.raw_env(num_players=2, illegal_action="terminate")
    env.reset(seed=0)
    env.step(5)
    offender = env.agent_selection
    assert env._cumulative_rewards[offender] <= -1000
    assert env.infos[offender]["illegal_move"] == "discard 4C"


# ------------------------------------------------------------------ construction
def test_unknown_keyword_lists_the_valid_ones():
    with pytest.raises(TypeError, match="max_wilds_per_meld.*") as excinfo:
        three_thirteen_v0.env(num_player=3)
    assert "num_player" in str(excinfo.value) and "episode" in str(excinfo.value)


def test_rules_and_rule_keywords():
    env = three_thirteen_v0.raw_env(rules=Rules.preset("one-wild"), num_players=4)
    assert env.rules == Rules(num_players=4, max_wilds_per_meld=1, unused_wild_penalty=15)
    assert three_thirteen_v0.raw_env(rules="one-wild").rules.max_wilds_per_meld == 1
    with pytest.raises(ValueError, match="given twice"):
        three_thirteen_v0.raw_env(rules=Rules(num_players=3), num_players=4)
    with pytest.raises(ValueError, match="episode"):
        three_thirteen_v0.raw_env(episode="hand")
    with pytest.raises(ValueError):
        three_thirteen_v0.raw_env(num_players=9)


def test_spaces_are_cached():
    env = three_thirteen_v0.raw_env(num_players=4)
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == 108
        assert env.observation_space(agent)["observation"].shape == (32 + 53 * 5 + 58 * 4,)


# ------------------------------------------------------------------ render, pickle, views
def test_render_ansi_shows_the_table():
    rules = Rules(num_players=2)
    game = Game(rules, seed=3)
    game.arrange(
        hands=["3H 4H 5H 3C KS", "KD 9C 2C 7D 8D"],
        stock="AS 8S 6C",
        discard_pile="QC 7H",
        current=0,
        round_index=2,
    )
    env = three_thirteen_v0.raw_env(rules=rules, render_mode="ansi")
    env.reset(options={"game": game})
    env.step(0)  # draw 6C
    text = env.render()
    assert "Round 3/11: 5 cards dealt, 5s wild" in text
    assert "7♥ on top" in text
    assert "player_0's hand:" in text and "[3♥ 4♥ 5♥*]" in text
    assert "hand  6" in text and "hand  5" in text and "score" in text
    env.step(2 + int(parse_card("KS")))
    assert "K♠ on top" in env.render()


def test_render_rgb_array_pictures_the_table():
    rules = Rules(num_players=2)
    game = Game(rules, seed=3)
    game.arrange(
        hands=["3H 4H 5H 3C KS", "KD 9C 2C 7D 8D"],
        stock="AS 8S 6C",
        discard_pile="QC 7H",
        current=0,
        round_index=2,
    )
    env = three_thirteen_v0.raw_env(rules=rules, render_mode="rgb_array")
    env.reset(options={"game": game})
    before = env.render()
    assert before.shape == (540, 960, 3) and before.dtype == np.uint8
    env.step(0)  # draw 6C: one more card in the picture
    after = env.render()
    assert not np.array_equal(before, after)
    np.testing.assert_array_equal(after, env.frame())  # render() is frame() of the seat to move
    assert not np.array_equal(env.frame(seat=1), after)
    from tt_env.env.render import table_scene

    scene = table_scene(
        env.game,
        env.rules,
        env.possible_agents,
        over=False,
        result=None,
        winners=[],
        seat=None,
        notes=(),
    )
    assert scene.melds[0] == tuple(parse_cards("3H 4H 5H"))  # a run in its order
    assert scene.title == "Round 3/11: 5 cards, 5s wild" and scene.top_discard == parse_card("7H")


def test_runs_are_shown_in_their_order_wilds_where_they_stand():
    from tt_env.env.render import shown_melds
    from tt_env.game.melds import solve

    assert shown_melds(solve("6H 4H 9S 7S 7D 7C", wild_rank=9)) == [
        parse_cards("7C 7D 7S"),
        parse_cards("4H 9S 6H"),
    ]
    assert shown_melds(solve("AH KH QH", wild_rank=3, rules=Rules(aces_high=True))) == [
        parse_cards("QH KH AH")
    ]


def test_render_human_prints(capsys):
    env = three_thirteen_v0.env(num_players=2, render_mode="human")
    env.reset(seed=0)
    env.step(0)
    assert env.render() is None
    assert "wild" in capsys.readouterr().out


def test_pickle_round_trip_mid_game():
    env = three_thirteen_v0.env(num_players=3, max_turns_per_round=6)
    env.reset(seed=9)
    rnd = random.Random(3)
    for _ in range(25):
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(legal[rnd.randrange(len(legal))]))
    copy = pickle.loads(pickle.dumps(env))
    a = random_play(env, random.Random(4))
    b = random_play(copy, random.Random(4))
    assert a == b and env.unwrapped.game.scores == copy.unwrapped.game.scores


def test_public_view_of_the_env():
    env = three_thirteen_v0.raw_env(num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    view = env.public_view(agent)
    assert view["agent"] == agent and view["legal_moves"] == ["draw stock", "take discard"]
    assert len(view["hand"]) == 3
    other = [a for a in env.possible_agents if a != agent][0]
    assert env.public_view(other)["legal_moves"] == []
