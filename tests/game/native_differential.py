"""``Game`` (the C engine) against the reference engine over many whole games: a script for
long runs.

    python tests/game/native_differential.py --games 10000      # every rule set in turn

Game g plays seed g under rule set g mod 10 (the rule sets of test_native.py, which together
set every option), with random moves (going out when it can, half the time). After every move
both engines must agree on the state, the legal actions, the mover's observation and the move's
outcome with the round's result; at the end of every round, on the ended round; at the end of
the game, on the scores, and each game's record must replay to the same game on the other.
test_native.py runs a few games of it; this prints a line per thousand games and fails at the
first difference.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_native import RULE_SETS, compare_outcomes, state_of  # noqa: E402

from tt_env.encoding.actions import action_to_move, move_to_action  # noqa: E402
from tt_env.encoding.observation import EngineLayout  # noqa: E402
from tt_env.game import reference  # noqa: E402
from tt_env.game.engine import Game  # noqa: E402

NAMES = sorted(RULE_SETS)


def play(game_index: int) -> int:
    """Play game ``game_index`` on both engines; the number of moves."""
    name = NAMES[game_index % len(NAMES)]
    rules = RULE_SETS[name]
    game, ref = Game(rules, seed=game_index), reference.Game(rules, seed=game_index)
    layout = EngineLayout(rules)
    rng = np.random.default_rng(game_index)
    moves = 0
    while not ref.is_over:
        legal = [move_to_action(m) for m in ref.legal_moves()]
        outs = [a for a in legal if a >= 55]
        action = int(rng.choice(outs if outs and rng.random() < 0.5 else legal))
        seat = ref.current
        expected = ref.apply(action_to_move(action))
        outcome = game.apply(action_to_move(action))
        moves += 1
        where = f"game {game_index} ({name}) move {moves}"
        compare_outcomes(outcome, expected, where)
        ours, theirs = state_of(game), state_of(ref)
        for key, value in theirs.items():
            assert ours[key] == value, f"{where}: {key} differs"
        if expected.round_result is None:
            observed = game.observation(seat, layout)
            assert np.array_equal(observed, ref.observation(seat, layout)), where
        else:
            ended, ref_ended = game.ended_round(), ref.ended_round()
            assert state_of(ended) == state_of(ref_ended), f"{where}: the ended round differs"
            for s in range(rules.num_players):
                observed = ended.observation(s, layout)
                assert np.array_equal(observed, ref_ended.observation(s, layout)), where
    assert Game.from_record(ref.record()).scores == ref.scores, f"game {game_index}"
    assert reference.Game.from_record(game.record()).scores == game.scores, f"game {game_index}"
    return moves


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--start", type=int, default=0, help="the first game's index")
    args = parser.parse_args()
    moves, start = 0, time.perf_counter()
    for g in range(args.start, args.start + args.games):
        moves += play(g)
        if (g + 1 - args.start) % 1000 == 0:
            seconds = time.perf_counter() - start
            print(f"{g + 1 - args.start} games, {moves} moves, equal ({seconds:.0f} s)", flush=True)
    print(f"native_differential: {args.games} games, {moves} moves, every one equal")


if __name__ == "__main__":
    main()
