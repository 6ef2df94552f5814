"""``python -m tt_env.text``: print the prompt a language model gets at a decision of a seeded
game (after ``--moves`` random legal moves), and how its answers are read.

    python -m tt_env.text --seed 7 --moves 9
    python -m tt_env.text --seed 7 --players 3 --moves 20 --answer "Move: 2"
"""

from __future__ import annotations

import sys

import numpy as np

DESCRIPTION = (
    "Print the prompt a language model gets at a decision of a seeded game of Three Thirteen "
    "(after --moves random legal moves), and with --answer how an answer is read."
)
EPILOG = (
    "Examples: python -m tt_env.text --seed 7 --moves 9; python -m tt_env.text --seed 7 "
    '--players 3 --moves 20 --answer "Move: 2"'
)


def main(argv: list[str] | None = None) -> int:
    from tt_env.encoding.mask import action_mask
    from tt_env.encoding.observation import encode
    from tt_env.game.engine import Game
    from tt_env.game.moves import MoveKind
    from tt_env.game.rules import Rules
    from tt_env.text.protocol import AnswerError, decision_prompt, describe_answer
    from tt_env.util.args import Parser, non_negative_int

    parser = Parser(prog="python -m tt_env.text", description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument(
        "--seed", type=non_negative_int, default=0, help="the game's seed (default 0)"
    )
    parser.add_argument("--players", type=int, default=2, help="players, 2 to 8 (default 2)")
    parser.add_argument(
        "--moves",
        type=non_negative_int,
        default=0,
        help="random legal moves played first, an integer >= 0 (default 0)",
    )
    parser.add_argument("--answer", help="an answer to read against the legal moves")
    args = parser.parse_args(argv)
    try:
        rules = Rules(num_players=args.players)
    except ValueError as exc:
        parser.error(str(exc))
    game = Game(rules, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    drawn = None  # the card the seat on turn drew from the stock (its observation lacks it)
    for played in range(args.moves):
        moves = game.legal_moves()
        if not moves:
            parser.error(
                f"argument --moves: the game of seed {args.seed} ends after {played} moves; "
                "give fewer"
            )
        outcome = game.apply(moves[rng.integers(len(moves))])
        drawn = outcome.card if outcome.move.kind == MoveKind.DRAW_STOCK else None
    if game.is_over:
        parser.error(
            f"argument --moves: the game of seed {args.seed} ends after {args.moves} moves; "
            "give fewer"
        )
    view = game.view(game.current)
    observation, mask = encode(view, rules), action_mask(view)
    print(decision_prompt(observation, mask, rules, drawn=drawn))
    if args.answer is not None:
        try:
            print(f"\nanswer {args.answer!r}: {describe_answer(args.answer, mask)}")
        except AnswerError as exc:
            print(f"\nanswer {args.answer!r}: cannot be played: {exc}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
