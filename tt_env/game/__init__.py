"""The rules engine: cards, :class:`Rules`, the game (state machine, outcomes, records), the
exact meld solver (:mod:`tt_env.game.melds`) and the going-out check. It knows nothing of
reinforcement learning: the environments (:mod:`tt_env.env`) translate it.

==================  =====================================================================
module              owns
==================  =====================================================================
``cards``           card kinds 0..52 (52 the joker), parsing and formatting, counts
``rules``           :class:`Rules`: every option of RULES.md, its presets, the rounds
``moves``           the moves of a turn, their outcomes, a round's result, the errors
``engine``          :class:`Game`: the state machine, scoring and records
``melds``           the exact meld solver: fewest penalty points, arrangements, lay-offs
``going_out``       which discards let a hand go out (exact, with a cheap pre-check)
==================  =====================================================================
"""

from tt_env.game import melds
from tt_env.game.cards import (
    ALL_CARDS,
    JOKER,
    NUM_KINDS,
    NUM_RANKS,
    NUM_SUITS,
    RANK_NAMES,
    SUITS,
    Card,
    format_cards,
    from_counts,
    parse_card,
    parse_cards,
    to_counts,
)
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
    PlayerView,
    RecordError,
    RoundResult,
    TableMeld,
    check_seed,
)
from tt_env.game.going_out import go_out_discards
from tt_env.game.melds import Arrangement, min_penalty, solve
from tt_env.game.rules import FIELD_NAMES, PRESETS, Round, Rules

__all__ = [
    "ALL_CARDS",
    "DISCARD",
    "DRAW_STOCK",
    "FIELD_NAMES",
    "GO_OUT",
    "JOKER",
    "NUM_KINDS",
    "NUM_RANKS",
    "NUM_SUITS",
    "PRESETS",
    "RANK_NAMES",
    "SUITS",
    "TAKE_DISCARD",
    "Arrangement",
    "Card",
    "Game",
    "IllegalMoveError",
    "Move",
    "MoveKind",
    "Outcome",
    "Phase",
    "PlayerView",
    "RecordError",
    "Round",
    "RoundResult",
    "Rules",
    "TableMeld",
    "check_seed",
    "format_cards",
    "from_counts",
    "go_out_discards",
    "melds",
    "min_penalty",
    "parse_card",
    "parse_cards",
    "solve",
    "to_counts",
]
