"""``Game`` (the C engine, game/core/game.h) against the reference engine, step by step, on
every option (the reference: ``tt_env.game.reference.Game``, the rules in plain Python).

Both play the same seeded games with the same random moves; after every move they must agree
on everything ``Game`` shows: the seat to move, the phase, the legal moves and the mask, every
hand, the stock, the discard pile, the known cards, the melds on the table, the turns, the false
go-outs, the scores, every seat's view and observation, the move's outcome and the round's
result with the arrangement each seat was scored by. Copies, pickles and set-up positions
(``Game.arrange``) play on alike, and no state set from outside reaches the engine unchecked.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest

from tt_env.encoding.actions import NUM_ACTIONS, action_to_move, move_to_action
from tt_env.encoding.observation import OBSERVATION_PIECES, EngineLayout
from tt_env.game import reference
from tt_env.game.engine import Game, IllegalMoveError, Phase, TableMeld
from tt_env.game.native import SolverService, core_module, rules_tuple
from tt_env.game.rules import Rules

pytestmark = pytest.mark.skipif(core_module() is None, reason="the C engine is not built")

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


def state_of(game) -> dict:
    """Everything a game shows, through its public API (the same for both engines)."""
    n = game.num_players
    return {
        "round_index": game.round_index,
        "phase": game.phase,
        "current": game.current,
        "dealer": game.dealer,
        "first_dealer": game.first_dealer,
        "scores": list(game.scores),
        "hands": game.all_hands(),
        "known": [game.known_cards(s) for s in range(n)],
        "stock": game.stock_cards(),
        "stock_size": game.stock_size,
        "discard_pile": game.discard_pile,
        "top_discard": game.top_discard,
        "table": game.table,
        "drawn_upcard": game.drawn_upcard,
        "went_out": game.went_out,
        "false_outs": list(game.false_outs),
        "turns": game.turns,
        "rounds_played": len(game.round_results),
        "legal_moves": list(game.legal_moves()),
        "legal_mask": game.legal_mask(),
        "winners": game.winners,
        "views": [game.view(s) for s in range(n)],
    }


def canonical(result):
    """A round result with each arrangement's deadwood in card order: a redemption's deadwood
    is the same cards in either engine, listed in the order each found them."""
    if result is None:
        return None
    arrangements = tuple(
        (a.melds, a.shapes, sorted(a.deadwood), a.points) for a in result.arrangements
    )
    return (result.__dict__ | {"arrangements": arrangements},)


def compare(game: Game, ref, where: str) -> None:
    ours, theirs = state_of(game), state_of(ref)
    for key, value in theirs.items():
        assert ours[key] == value, f"{where}: {key} differs: C {ours[key]!r}, reference {value!r}"
    layout = EngineLayout(game.rules)
    for seat in range(game.num_players):
        observed = game.observation(seat, layout)
        assert observed.dtype == np.float32 and observed.flags.writeable
        assert np.array_equal(observed, ref.observation(seat, layout)), (
            f"{where}: seat {seat}'s observation differs"
        )


def compare_outcomes(outcome, expected, where: str) -> None:
    assert outcome._replace(round_result=None) == expected._replace(round_result=None), where
    assert canonical(outcome.round_result) == canonical(expected.round_result), where


def play_both(rules: Rules, seed: int, moves_rng: np.random.Generator, max_moves: int) -> int:
    """Play one game on both engines with random moves (going out when possible half the
    time); compare after every move. The number of moves played."""
    game, ref = Game(rules, seed=seed), reference.Game(rules, seed=seed)
    compare(game, ref, f"seed {seed} start")
    step = 0
    for step in range(max_moves):
        if ref.is_over:
            break
        legal = [move_to_action(m) for m in ref.legal_moves()]
        outs = [a for a in legal if a >= 55]
        action = int(moves_rng.choice(outs if outs and moves_rng.random() < 0.5 else legal))
        where = f"seed {seed} step {step} ({action_to_move(action)})"
        expected = ref.apply(action_to_move(action))
        compare_outcomes(game.apply(action_to_move(action)), expected, where)
        compare(game, ref, where)
        if expected.round_result is not None:
            compare(game.ended_round(), ref.ended_round(), f"{where}, the ended round")
    return step


@pytest.mark.parametrize("name", sorted(RULE_SETS))
def test_game_plays_as_the_reference_engine(name):
    rules = RULE_SETS[name]
    moves_rng = np.random.default_rng(sum(map(ord, name)))
    for seed in (0, 1, 2**32 + 7):
        play_both(rules, seed, moves_rng, max_moves=300)


def test_game_is_the_c_engine():
    assert Game is not reference.Game
    assert sorted(core_module().PIECES) == sorted(p.name for p in OBSERVATION_PIECES)


def test_records_replay_on_both_engines():
    rules = RULE_SETS["jokers-redemption"]
    game = Game(rules, seed=5)
    rng = np.random.default_rng(5)
    while not game.is_over:
        game.apply(game.legal_moves()[int(rng.integers(len(game.legal_moves())))])
    record = game.record()
    replayed, ref = Game.from_record(record), reference.Game.from_record(record)
    assert replayed.scores == ref.scores == game.scores
    assert ref.record() == record


def play_on(a, b, rng: np.random.Generator, moves: int, where: str) -> None:
    """Play the same random moves on two games and compare them after each."""
    for step in range(moves):
        if b.is_over:
            return
        move = b.legal_moves()[int(rng.integers(len(b.legal_moves())))]
        compare_outcomes(a.apply(move), b.apply(move), f"{where} step {step}")
        compare(a, b, f"{where} step {step}")


@pytest.mark.parametrize("name", ["standard", "jokers-redemption", "false-out"])
def test_copies_and_pickles_play_on_alike(name):
    rules = RULE_SETS[name]
    game, ref = Game(rules, seed=3), reference.Game(rules, seed=3)
    rng = np.random.default_rng(3)
    for _ in range(6):
        play_on(game, ref, rng, 37, "before the copy")
        if ref.is_over:
            break
        before = state_of(game)
        for twin in (copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
            compare(twin, ref, "a fresh copy")
            mirror = copy.deepcopy(ref)
            play_on(twin, mirror, np.random.default_rng(len(ref.moves)), 25, "the copy")
            assert state_of(game) == before, "playing on a copy changed the original"
            if twin.round_results:
                compare(twin.ended_round(), mirror.ended_round(), "the copy's ended round")


ARRANGED = [
    # (rules, arrange's arguments): positions play reaches, some at a round's end
    (Rules(), {"hands": ["5C 6C 7C 9D", "KD KH QS"], "stock": "2S 3S", "discard_pile": "8C"}),
    (Rules(), {"hands": ["5C 6C", "KD"], "stock": "", "discard_pile": "8C 9C 2H", "turns": 5}),
    (Rules(), {"hands": ["5C 6C", "KD"], "stock": "", "discard_pile": "", "current": 1}),
    (
        Rules(redemption=True, joker_layoff=True, jokers_per_deck=1, num_players=3),
        {
            "hands": ["", "8H 9H 4S JK", "KD KS 2C"],
            "stock": "3C 3D 7H",
            "discard_pile": "TC",
            "current": 1,
            "round_index": 4,
            "table": [(0, "5H 6H 7H"), (0, "QC QD QH")],
            "went_out": 0,
            "known": ["", "JK", ""],
            "turns": 9,
            "false_outs": [0, 0, 0],
            "scores": [10, 20, 30],
        },
    ),
    (
        Rules(redemption=True, num_players=3),
        {
            "hands": ["", "", "KD KS 2C"],
            "stock": "3C",
            "discard_pile": "TC",
            "current": 2,
            "table": [(0, "5H 6H 7H"), (1, "9S TS JS")],
            "went_out": 0,
            "turns": 4,
        },
    ),
]


@pytest.mark.parametrize("index", range(len(ARRANGED)))
def test_arranged_positions_play_on_alike(index):
    rules, arguments = ARRANGED[index]
    game, ref = Game(rules, seed=9), reference.Game(rules, seed=9)
    game.arrange(**arguments)
    ref.arrange(**arguments)
    compare(game, ref, "arranged")
    assert [canonical(r) for r in game.round_results] == [canonical(r) for r in ref.round_results]
    play_on(game, ref, np.random.default_rng(index), 200, "from the arrangement")
    assert [canonical(r) for r in game.round_results] == [canonical(r) for r in ref.round_results]


def test_an_arranged_table_meld_keeps_a_given_shape_in_range():
    game = Game(Rules(), seed=1)
    meld = reference.Game(Rules(), seed=1)
    meld.arrange(hands=["5C", "KD"], stock="2S", table=[(0, "5H 6H 7H")])
    (laid,) = meld.table
    game.arrange(hands=["5C", "KD"], stock="2S", table=[laid])
    assert game.table == [laid]
    bad = TableMeld(seat=0, cards=laid.cards, shape=dataclasses.replace(laid.shape, size=4))
    with pytest.raises(ValueError, match="does not fit"):
        game.arrange(hands=["5C", "KD"], stock="2S", table=[bad])
    assert game.table == [laid]  # refused: nothing changed


def test_the_python_solver_alone_gives_the_same_games():
    """The C engine asking the Python solver for every answer (no compiled kernel) plays the
    same game, state for state."""
    rules = RULE_SETS["jokers-redemption"]
    moves_rng = np.random.default_rng(3)
    for seed in (4, 5):
        game = Game(rules, seed=seed)
        core = core_module().CoreGame(rules_tuple(rules), seed, SolverService(rules))
        while not game.is_over:
            action = int(
                moves_rng.choice(np.flatnonzero(np.frombuffer(game.legal_mask(), np.int8)))
            )
            game.apply(action_to_move(action))
            core.apply(action)
            assert core.state() == game.__getstate__()["_core_state"][0], f"seed {seed}"


def test_an_illegal_move_is_refused_and_changes_nothing():
    game = Game(Rules(), seed=3)
    before = state_of(game)
    for move in ("discard 7H", "go out, discard 7H"):
        with pytest.raises(IllegalMoveError, match="must draw first"):
            game.apply(move)
    assert state_of(game) == before
    assert Phase(game.phase) == Phase.DRAW


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
    spec = list(rules_tuple(Rules()))
    spec[field] = value
    with pytest.raises((ValueError, TypeError)):
        core_module().CoreGame(tuple(spec), 0, SolverService(Rules()))


def test_random_and_illegal_actions_never_corrupt_a_game():
    """Fuzz: every action id, legal or not, at random; an illegal one is refused with the
    state unchanged, a legal one plays as the reference does."""
    rules = Rules(num_players=3, jokers_per_deck=1, redemption=True)
    rng = np.random.default_rng(9)
    game, ref = Game(rules, seed=2), reference.Game(rules, seed=2)
    core = core_module().CoreGame(rules_tuple(rules), 2, SolverService(rules))
    for _ in range(3000):
        if ref.is_over:
            break
        legal = ref.legal_mask()
        if rng.random() < 0.5:
            action = int(rng.integers(-3, NUM_ACTIONS + 3))
        else:
            action = int(rng.choice([a for a in range(NUM_ACTIONS) if legal[a]]))
        if 0 <= action < NUM_ACTIONS and legal[action]:
            game.apply(action_to_move(action))
            ref.apply(action_to_move(action))
            core.apply(action)
        else:
            before = core.state()
            with pytest.raises(ValueError, match="not legal"):
                core.apply(action)
            assert core.state() == before
    compare(game, ref, "after the fuzz")
    assert core.state()["scores"] == ref.scores


# ---------------------------------------------------------------------- states set from outside
def mutations(state: dict, rng: np.random.Generator):
    """Ways to spoil a valid state: each key replaced by a value of the wrong type, out of
    range, too long or too short."""
    for key, value in state.items():
        if isinstance(value, int):
            for bad in (-(2**70), -2, 2**31, 10**6, "x", None):
                yield key, bad
        elif isinstance(value, bytes):
            yield key, bytes([200]) + value
            yield key, value + bytes(700)
            yield key, list(value)
        elif isinstance(value, list):
            yield key, value[:-1]
            yield key, value + value
            if value and isinstance(value[0], bytes):
                yield key, [bytes([255] * 53)] * len(value)
                yield key, [v[:-1] for v in value]
            if value and isinstance(value[0], int):
                yield key, [2**60] * len(value)
                yield key, [-1] * len(value)
            if value and isinstance(value[0], tuple):
                seat, cards, shape, laid = value[0]
                yield key, [(9, cards, shape, laid)] + value[1:]
                yield key, [(seat, cards, shape[:-1], laid)] + value[1:]
                yield key, [(seat, cards, (2, 99, 9, 0, 0, 0, 3), laid)] + value[1:]
                yield key, [(seat, cards[:1], shape, laid)] + value[1:]
                yield key, [(seat, bytes([60]) + cards, shape, laid)] + value[1:]
                yield key, value * 200
        elif isinstance(value, tuple):
            yield key, value[:-1]
            yield key, (-1,) * len(value)
        yield key, object()
    yield "missing", None


def test_states_set_from_outside_are_checked_before_the_engine_takes_them():
    """Every field of a state spoiled in turn: the engine refuses it with an error and keeps
    playing the state it had, or takes it (a value still in range) and plays on without
    failing."""
    rules = Rules(num_players=3, redemption=True, jokers_per_deck=1)
    game, ref = Game(rules, seed=4), reference.Game(rules, seed=4)
    rng = np.random.default_rng(4)
    play_on(game, ref, rng, 140, "to a table with melds")
    core = core_module().CoreGame(rules_tuple(rules), 4, SolverService(rules))
    state = copy.deepcopy(game).__getstate__()["_core_state"][0]
    core.set_state(state)
    assert core.state() == state
    refused = 0
    for key, bad in mutations(state, rng):
        spoiled = dict(state)
        if key == "missing":
            del spoiled["turns"]
        else:
            spoiled[key] = bad
        try:
            core.set_state(spoiled)
        except (ValueError, TypeError, KeyError, OverflowError):
            refused += 1
            assert core.state() == state, f"a refused {key} changed the game"
            continue
        for _ in range(60):  # taken: it plays on, legally
            mask = core.legal_mask()
            legal = [a for a in range(NUM_ACTIONS) if mask[a]]
            if not legal:
                break
            core.apply(int(rng.choice(legal)))
        core.set_state(state)
    assert refused > 100


def test_whole_games_agree_on_every_rule_set_and_replay():
    """One whole game per rule set by the long run's script (native_differential.py, which
    takes --games 10000): every move, every ended round, the scores and the records."""
    from native_differential import play

    assert sum(play(g) for g in range(len(RULE_SETS))) > 1000
