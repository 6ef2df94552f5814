"""The engine's vocabulary: the phases of a turn, the moves (:class:`Move`, with their checked
parsing), the melds on the table, a round's result and the :class:`Outcome` of each move, and the
errors an illegal move or a bad record raise. :mod:`tt_env.game.engine` plays them."""

from __future__ import annotations

import reprlib
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, NamedTuple

import numpy as np

from tt_env.game.cards import (
    ALL_CARDS,
    NUM_KINDS,
    Card,
    parse_card,
)
from tt_env.game.melds import Arrangement, MeldShape


class IllegalMoveError(ValueError):
    """A move that the rules do not allow in the current state; the state is left unchanged."""


class RecordError(ValueError):
    """A game record that is corrupt or does not replay to the game it claims."""


def check_seed(seed: Any) -> int:
    """``seed`` as an ``int`` if it is a non-negative integer (Python or NumPy, not a bool);
    else :class:`ValueError` naming ``seed``. Shared by the engine and the environments, which
    check a seed before they change anything."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(
            f"seed must be a non-negative integer or None, got {type(seed).__name__} {_short(seed)}"
        )
    if seed < 0:
        raise ValueError(f"seed must be a non-negative integer or None, got {int(seed)}")
    return int(seed)


class Phase(IntEnum):
    DRAW = 0
    DISCARD = 1
    GAME_OVER = 2
    ROUND_OVER = 3  # only in Game.ended_round(): the round has ended, the game goes on

    @property
    def in_play(self) -> bool:
        """True in the phases of a turn (draw, discard): a seat is to move."""
        return self <= Phase.DISCARD


class MoveKind(IntEnum):
    DRAW_STOCK = 0
    TAKE_DISCARD = 1
    DISCARD = 2
    GO_OUT = 3


class Move(NamedTuple):
    """One move: a draw (``card`` is -1) or a discard / go-out with the discarded card kind."""

    kind: MoveKind
    card: int = -1

    def __str__(self) -> str:
        if self.kind == MoveKind.DRAW_STOCK:
            return "draw stock"
        if self.kind == MoveKind.TAKE_DISCARD:
            return "take discard"
        name = str(ALL_CARDS[self.card]) if 0 <= self.card < NUM_KINDS else f"card #{self.card}"
        return f"discard {name}" if self.kind == MoveKind.DISCARD else f"go out, discard {name}"

    @staticmethod
    def parse(text: str) -> Move:
        """The inverse of ``str(move)``: ``"draw stock"``, ``"discard 7H"``,
        ``"go out, discard KD"``."""
        words = text.strip().lower().replace(",", " ").split()
        if words in (["draw", "stock"], ["draw"], ["stock"]):
            return DRAW_STOCK
        if words in (["take", "discard"], ["take"]):
            return TAKE_DISCARD
        if len(words) == 2 and words[0] == "discard":
            return DISCARD[parse_card(words[1])]
        if words[:2] == ["go", "out"]:
            rest = words[2:]
        else:
            rest = words[1:] if words[:1] == ["out"] else None
        if rest is not None:
            rest = rest[1:] if rest[:1] == ["discard"] else rest
            if len(rest) == 1:
                return GO_OUT[parse_card(rest[0])]
        raise ValueError(
            f"unknown move {text!r}: expected 'draw stock', 'take discard', 'discard 7H' or "
            "'go out, discard 7H'"
        )


DRAW_STOCK = Move(MoveKind.DRAW_STOCK)
TAKE_DISCARD = Move(MoveKind.TAKE_DISCARD)
DISCARD: tuple[Move, ...] = tuple(Move(MoveKind.DISCARD, k) for k in range(NUM_KINDS))
GO_OUT: tuple[Move, ...] = tuple(Move(MoveKind.GO_OUT, k) for k in range(NUM_KINDS))
ACTION_MOVES: tuple[Move, ...] = (DRAW_STOCK, TAKE_DISCARD, *DISCARD, *GO_OUT)
"""The move of each action id, the one numbering of moves: 0 draw from the stock, 1 take the top
discard, 2 + k discard card kind k, 55 + k go out discarding k (the C engine's ``TT_ACT_*``)."""
_ACTION_OF_ID = {id(m): a for a, m in enumerate(ACTION_MOVES)}  # the engine's own Move -> id
_CANONICAL_IDS = frozenset(_ACTION_OF_ID)


def action_of(move: Move) -> int:
    """The action id of one of the engine's own moves (:data:`ACTION_MOVES`), or -1 for any
    other object (an equal Move built elsewhere included: :func:`_as_move` finds the engine's)."""
    return _ACTION_OF_ID.get(id(move), -1)


def _is_index(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _short(value: Any) -> str:
    """``repr(value)``, shortened (an error message must not be huge, nor recurse)."""
    return reprlib.repr(value)


def _as_move(move: Any) -> Move:
    """The engine's own :class:`Move` equal to ``move`` (a Move with any integer types, or its
    words); :class:`IllegalMoveError` naming the problem for anything malformed. A float card
    (``8.0``) equals the card 8 but is refused: the engine indexes hands with it."""
    if isinstance(move, str):
        try:
            return Move.parse(move)
        except ValueError as exc:
            raise IllegalMoveError(str(exc)) from None
    if not isinstance(move, Move):
        raise IllegalMoveError(
            f"not a move: {type(move).__name__} {_short(move)} (expected a "
            "tt_env Move or its words, like 'discard 7H')"
        )
    kind, card = move
    if not _is_index(kind) or not 0 <= kind < len(MoveKind):
        raise IllegalMoveError(
            f"not a move: {_short(move)} (its kind {_short(kind)} is not a MoveKind)"
        )
    kind = MoveKind(int(kind))
    if kind in (MoveKind.DRAW_STOCK, MoveKind.TAKE_DISCARD):
        if not (_is_index(card) and card == -1):
            raise IllegalMoveError(
                f"not a move: {kind.name.lower()} names no card, got card {_short(card)}"
            )
        return DRAW_STOCK if kind == MoveKind.DRAW_STOCK else TAKE_DISCARD
    if not _is_index(card):
        raise IllegalMoveError(
            f"not a move: the card of {kind.name.lower()} must be a card "
            f"index 0..{NUM_KINDS - 1} (an int), got {type(card).__name__} "
            f"{_short(card)}"
        )
    if not 0 <= card < NUM_KINDS:
        raise IllegalMoveError(
            f"not a move: no such card kind {int(card)} (card kinds are 0..{NUM_KINDS - 1})"
        )
    return (DISCARD if kind == MoveKind.DISCARD else GO_OUT)[int(card)]


@dataclass(frozen=True)
class TableMeld:
    """A meld laid on the table: whose it is, its cards and its shape (for lay-offs)."""

    seat: int
    cards: tuple[Card, ...]
    shape: MeldShape


@dataclass(frozen=True)
class RoundResult:
    """The result of one round."""

    round_index: int
    cards_dealt: int
    wild_rank: int
    went_out: int | None  # seat that went out, None when the round ended otherwise
    penalties: tuple[int, ...]  # per seat, after doubling: what the seat scores this round
    deadwood_points: tuple[int, ...]  # per seat, the solver's penalty of the final hand
    false_outs: tuple[int, ...]  # per seat, points from false go-outs (before doubling)
    arrangements: tuple[Arrangement, ...]  # per seat, the arrangement that was scored
    ended_by: str  # "out", "turn_cap" or "no_cards"


@dataclass(frozen=True)
class PlayerView:
    """Everything one seat may see (no hidden card of another seat, no stock order)."""

    seat: int
    num_players: int
    round_index: int
    cards_dealt: int
    wild_rank: int
    dealer: int
    current: int
    phase: Phase
    hand: tuple[int, ...]  # 53 counts
    discard_pile: tuple[int, ...]  # bottom first
    drawn_upcard: int  # the card this seat took from the discard pile this turn, or -1
    hand_sizes: tuple[int, ...]
    taken: tuple[tuple[int, ...], ...]  # per seat: counts known to be held (Game.known_cards)
    went_out: int | None
    table: tuple[TableMeld, ...]
    scores: tuple[int, ...]
    stock_size: int
    turns: int
    legal_moves: tuple[Move, ...]


class Outcome(NamedTuple):
    """What one move did: :meth:`Game.apply` returns it, so that nobody has to poll the game
    to learn it (the environment's encoder updates from it, rewards come from it).

    ``card`` is the card drawn (from the stock: for the drawer's eyes only; taken from the
    discard pile: public) or discarded. ``known`` is what the seat is then publicly known to
    hold of that card (:meth:`Game.known_cards`). ``laid`` says that cards went to the table
    (going out; with redemption, a final turn's lay-downs and lay-offs). ``round_result`` is the
    round this move ended, scored (the next round is already dealt unless ``game_over``).
    """

    move: Move
    seat: int  # who moved
    card: int  # drawn or discarded
    known: int  # seat's public count of card after the move
    stock_size: int  # cards in the stock after the move
    rebuilt: bool  # the stock was rebuilt from the discard pile for this draw
    went_out: bool  # a valid go-out
    false_out: bool  # a go-out announced with deadwood (false_out_penalty)
    laid: bool  # cards went to the table
    next_seat: int  # the seat to move next in this round (the mover when the round ended)
    turns: int  # turns completed in the round after the move
    round_result: RoundResult | None
    game_over: bool
