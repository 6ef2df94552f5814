"""The C engine (game/core/game.h) against the Python engine, step by step, on every option.

Both play the same seeded games with the same random moves; after every move they must agree
on the seat to move, the phase, the legal actions, every hand, the stock, the discard pile,
the known cards, the melds on the table, the turns, the false go-outs and the scores.
"""

from __future__ import annotations

import numpy as np
import pytest

from tt_env.encoding.actions import NUM_ACTIONS, action_to_move, move_to_action
from tt_env.encoding.observation import OBSERVATION_PIECES, encode, piece_starts
from tt_env.game.cards import ALL_CARDS
from tt_env.game.engine import Game, Phase
from tt_env.game.native import core_module, shape_tuple
from tt_env.game.native import new_game as new_core_game
from tt_env.game.rules import Rules

pytestmark = pytest.mark.skipif(core_module() is None, reason="the C engine is not built")


def new_game(rules: Rules, seed: int, **kwargs):
    """A game on the C engine writing observations by the piece table."""
    layout = piece_starts(rules.num_players, core_module().PIECES)
    return new_core_game(rules, seed, layout=layout, **kwargs)


# Rule sets that together set every option (and several at once).
RULE_SETS = {
    "standard": Rules(),
    "3p": Rules(num_players=3),
    "one-wild": Rules.preset("one-wild"),
    "aces-high-courts": Rules(num_players=4, aces_high=True, court_values=True),
    "jokers-redemption": Rules(
        num_players=4, jokers_per_deck=2, joker_layoff=True, redemption=True
    ),
    "false-out": Rules(num_players=3, false_out_penalty=20, discard_drawn_upcard=True),
    "there-and-back": Rules(there_and_back=True, extra_rounds=2, double_court_rounds=True),
    "all-wild-8p": Rules(num_players=8, all_wild_melds=True, jokers_per_deck=4, num_decks=3),
    "short-rounds": Rules(num_players=2, max_turns_per_round=6, unused_wild_penalty=15),
    "redemption-2p": Rules(redemption=True, joker_layoff=True, jokers_per_deck=1),
}


def python_state(game: Game) -> dict:
    n = game.num_players
    return {
        "round_index": game.round_index,
        "phase": int(game.phase),
        "current": game.current,
        "dealer": game.dealer,
        "scores": list(game.scores),
        "hands": [bytes(h) for h in game.all_hands()],
        "taken": [bytes(game.known_cards(s)) for s in range(n)],
        "stock": bytes(game.stock_cards()),
        "discard_pile": bytes(int(c) for c in game.discard_pile),
        "table": [
            (m.seat, bytes(int(c) for c in m.cards), shape_tuple(m.shape)) for m in game.table
        ],
        "drawn_upcard": -1 if game.drawn_upcard is None else int(game.drawn_upcard),
        "went_out": -1 if game.went_out is None else game.went_out,
        "false_outs": list(game.false_outs),
        "turns": game.turns,
        "rounds_played": len(game.round_results),
    }


def python_mask(game: Game) -> bytes:
    mask = bytearray(NUM_ACTIONS)
    for move in game.legal_moves():
        mask[move_to_action(move)] = 1
    return bytes(mask)


def compare(game: Game, core, where: str) -> None:
    ours = core.state()
    for key, value in python_state(game).items():
        assert ours[key] == value, f"{where}: {key} differs: C {ours[key]!r}, Python {value!r}"
    assert core.legal_mask() == python_mask(game), f"{where}: legal actions differ"
    for seat in range(game.num_players):
        expected = encode(game.view(seat), game.rules)
        observed = np.frombuffer(core.observation(seat), np.float32)
        assert np.array_equal(observed, expected), f"{where}: seat {seat}'s observation differs"


def compare_ended(game: Game, core, where: str) -> None:
    ended = game.ended_round()
    for seat in range(game.num_players):
        expected = encode(ended.view(seat), game.rules)
        observed = np.frombuffer(core.observation(seat, True), np.float32)
        assert np.array_equal(observed, expected), f"{where}: seat {seat}'s final view differs"


def play_both(rules: Rules, seed: int, moves_rng: np.random.Generator, max_moves: int) -> int:
    game = Game(rules, seed=seed)
    core = new_game(rules, seed)
    assert core.state()["first_dealer"] == game.first_dealer
    compare(game, core, f"seed {seed} start")
    for step in range(max_moves):
        if game.is_over:
            break
        legal = [move_to_action(m) for m in game.legal_moves()]
        # Go out when possible half the time: rounds end by going out, as in real play.
        outs = [a for a in legal if a >= 55]
        action = int(moves_rng.choice(outs if outs and moves_rng.random() < 0.5 else legal))
        outcome = game.apply(action_to_move(action))
        core.apply(action)
        where = f"seed {seed} step {step} ({action_to_move(action)})"
        compare(game, core, where)
        ours = core.state()
        assert ours["last_card"] == outcome.card, where
        assert bool(ours["last_rebuilt"]) == outcome.rebuilt, where
        assert bool(ours["last_went_out"]) == outcome.went_out, where
        assert bool(ours["last_false_out"]) == outcome.false_out, where
        assert bool(ours["last_laid"]) == outcome.laid, where
        result = outcome.round_result
        assert bool(ours["last_round_ended"]) == (result is not None), where
        if result is not None:
            compare_ended(game, core, where)
            assert ours["last_penalties"] == list(result.penalties), where
            assert ours["last_deadwood"] == list(result.deadwood_points), where
            ended = {"out": 1, "turn_cap": 2, "no_cards": 3}[result.ended_by]
            assert ours["ended_by"] == ended, where
    return step


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_the_c_engine_plays_as_the_python_engine(name):
    rules = RULE_SETS[name]
    moves_rng = np.random.default_rng(sum(map(ord, name)))
    for seed in (0, 1, 2**32 + 7, 123456789):
        play_both(rules, seed, moves_rng, max_moves=400)


def test_the_c_engine_names_the_pieces_of_the_observation_table():
    assert sorted(core_module().PIECES) == sorted(p.name for p in OBSERVATION_PIECES)


def test_the_python_solver_alone_gives_the_same_games():
    rules = RULE_SETS["jokers-redemption"]
    moves_rng = np.random.default_rng(3)
    for seed in (4, 5):
        game, core = Game(rules, seed=seed), new_game(rules, seed, compiled_solver=False)
        while not game.is_over:
            legal = [move_to_action(m) for m in game.legal_moves()]
            action = int(moves_rng.choice(legal))
            game.apply(action_to_move(action))
            core.apply(action)
            compare(game, core, f"seed {seed}")


def test_an_illegal_action_is_refused_and_changes_nothing():
    core = new_game(Rules(), 3)
    before = core.state()
    for action in (2, 55, 107, -1, 108):
        with pytest.raises(ValueError, match="not legal"):
            core.apply(action)
    assert core.state() == before
    assert ALL_CARDS  # the card table the moves name


def test_the_game_ends_with_the_python_engine_scores():
    rules = Rules(num_players=3)
    game = Game(rules, seed=11)
    core = new_game(rules, 11)
    moves_rng = np.random.default_rng(5)
    while not game.is_over:
        legal = [move_to_action(m) for m in game.legal_moves()]
        action = legal[-1] if moves_rng.random() < 0.7 else int(moves_rng.choice(legal))
        game.apply(action_to_move(action))
        core.apply(action)
    state = core.state()
    assert state["phase"] == int(Phase.GAME_OVER)
    assert state["scores"] == game.scores
    assert core.legal_mask() == bytes(NUM_ACTIONS)


@pytest.mark.parametrize(
    "field, value",
    [
        (0, 1),  # players
        (0, 9),
        (1, 0),  # decks
        (1, 13),
        (2, 5),  # jokers per deck
        (3, (2,) * 11),  # cards dealt
        (3, (16,) * 11),
        (3, (13,) * 10),  # one round fewer than the wild ranks
        (4, (14,) * 11),  # wild rank
        (5, (3,) * 11),  # multiplier
        (6, 0),  # turn cap
        (10, 1001),  # false-out penalty
    ],
)
def test_rules_the_engine_cannot_play_are_refused(field, value):
    from tt_env.game.native import SolverService, rules_tuple

    spec = list(rules_tuple(Rules()))
    spec[field] = value
    with pytest.raises((ValueError, TypeError)):
        core_module().CoreGame(tuple(spec), 0, SolverService(Rules()))


def test_random_and_illegal_actions_never_corrupt_a_game():
    """Fuzz: every action id, legal or not, at random; an illegal one is refused with the
    state unchanged, a legal one plays as the Python engine does."""
    rules = Rules(num_players=3, jokers_per_deck=1, redemption=True)
    rng = np.random.default_rng(9)
    game, core = Game(rules, seed=2), new_game(rules, 2)
    for _ in range(3000):
        if game.is_over:
            break
        legal = core.legal_mask()
        if rng.random() < 0.5:
            action = int(rng.integers(-3, NUM_ACTIONS + 3))
        else:
            action = int(rng.choice([a for a in range(NUM_ACTIONS) if legal[a]]))
        if 0 <= action < NUM_ACTIONS and legal[action]:
            game.apply(action_to_move(action))
            core.apply(action)
        else:
            before = core.state()
            with pytest.raises(ValueError, match="not legal"):
                core.apply(action)
            assert core.state() == before
    compare(game, core, "after the fuzz")


def test_whole_games_agree_on_every_rule_set_and_replay():
    """One whole game per rule set by the long run's script (native_differential.py, which
    takes --games 10000): every move, every ended round, the scores and the record."""
    from native_differential import play

    assert sum(play(g) for g in range(len(RULE_SETS))) > 1000
