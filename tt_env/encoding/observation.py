"""Observations: one table of named pieces defines the flat vector, its decoder and its docs.

:data:`OBSERVATION_PIECES` is the layout of what one seat sees, :data:`STATE_PIECES` the
perfect-information state (every hand, the stock). A piece is a block of the flat ``float32``
vector with a name, a shape and a meaning; per-seat pieces have one row per seat. In an
observation the per-seat rows are in play order *from the observer*: row 0 is the observer, row 1
the seat that plays after it, and so on. In the state they are in absolute seat order.

* :func:`encode` builds an observation from a :class:`~tt_env.game.engine.PlayerView` (the
  reference, used in tests and by anyone holding a view); :class:`IncrementalEncoder` keeps the
  state vector of a live :class:`~tt_env.game.engine.Game` up to date move by move and cuts
  observations out of it with one precomputed gather (the environment's fast path; tests check it
equals :func:`encode`).
* :func:`decode` turns a vector back into named views; :func:`hand_of` and :func:`top_discard_of`
  recover the observer's hand and the top discard.
* The mask of the 108 actions is :mod:`tt_env.encoding.mask`'s; the same public information as
  a plain dict of words is :mod:`tt_env.encoding.words`'s.
* :func:`markdown_table` renders the table for the README and the environment's docs.

Values are ``float32``: counts and one-hots as they are, scores divided by 100, the stock and the
turns left as fractions. Everything is ``>= 0``; :func:`observation_space` gives exact bounds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from tt_env.game.cards import ALL_CARDS, JOKER, NUM_KINDS, NUM_RANKS, Card
from tt_env.game.engine import Game, MoveKind, Outcome, PlayerView
from tt_env.game.rules import JOKER_PENALTY, Rules

SCORE_SCALE = 100.0  # scores are given in hundreds of points
MIN_CARDS_DEALT = 3  # RULES.md: round 1 deals 3 cards
CARDS_DEALT_SLOTS = 13  # one-hot of 3..15 cards (13 + extra_rounds <= 15)


@dataclass(frozen=True)
class Piece:
    """One named block of a flat vector.

    ``width`` values per row; ``per_seat`` pieces have one row per seat. ``bound`` names the
    upper bound of the values (see :func:`_piece_high`): ``"copies"`` (copies of a card kind in
    play), ``"one"`` (0/1), ``"unit"`` (a fraction), ``"hand"`` (cards in a hand), ``"score"``.
    """

    name: str
    width: int
    per_seat: bool
    bound: str
    values: str
    description: str

    def shape(self, num_players: int) -> tuple[int, ...]:
        if self.per_seat:
            return (num_players, self.width) if self.width > 1 else (num_players,)
        return (self.width,)

    def size(self, num_players: int) -> int:
        return self.width * (num_players if self.per_seat else 1)


_P = Piece
_HAND = _P(
    "hand",
    NUM_KINDS,
    False,
    "copies",
    "count",
    "the observer's hand: copies held of each card kind",
)
_DRAWN = _P(
    "drawn_upcard",
    NUM_KINDS,
    False,
    "one",
    "one-hot",
    "the card the observer just took from the discard pile this turn (it may not be "
    "discarded in the same turn unless `discard_drawn_upcard`); zeros otherwise",
)
_COMMON: tuple[Piece, ...] = (
    _P(
        "top_discard",
        NUM_KINDS,
        False,
        "one",
        "one-hot",
        "the top card of the discard pile; zeros when the pile is empty",
    ),
    _P(
        "discard_below",
        NUM_KINDS,
        False,
        "copies",
        "count",
        "the cards lower in the discard pile (public: every discard was seen)",
    ),
    _P(
        "table",
        NUM_KINDS,
        False,
        "copies",
        "count",
        "the cards laid down in melds this round (by the player who went out and, with "
        "`redemption`, by the others on their final turn)",
    ),
    _P("wild_rank", NUM_RANKS, False, "one", "one-hot", "the wild rank of the round, A..K"),
    _P(
        "cards_dealt",
        CARDS_DEALT_SLOTS,
        False,
        "one",
        "one-hot",
        "cards dealt to each player this round, 3..15",
    ),
    _P(
        "rounds_left",
        1,
        False,
        "unit",
        "fraction",
        "rounds still to play after this one / rounds in the game",
    ),
    _P(
        "phase",
        2,
        False,
        "one",
        "one-hot",
        "the phase of the seat to move: [draw, discard]; zeros once the episode is over",
    ),
    _P(
        "final_turn",
        1,
        False,
        "one",
        "0/1",
        "1 once a player has gone out this round: every other player has one last turn",
    ),
    _P("stock_size", 1, False, "unit", "fraction", "cards in the stock / cards in the decks"),
    _P(
        "turns_left",
        1,
        False,
        "unit",
        "fraction",
        "turns left before the round ends by the turn cap / `max_turns_per_round`",
    ),
    _P(
        "known",
        NUM_KINDS,
        True,
        "copies",
        "count",
        "per seat: cards it is known to hold: taken from the discard pile this round, less one "
        "for each card of that kind it discarded or laid down since (public events only: with "
        "several decks the copy that left may be another); row 0 shows what the others know of "
        "the observer's hand",
    ),
    _P("hand_size", 1, True, "hand", "count", "per seat: cards held"),
    _P("went_out", 1, True, "one", "0/1", "per seat: 1 for the seat that went out this round"),
    _P("score", 1, True, "score", "points / 100", "per seat: cumulative score of the game / 100"),
    _P("to_move", 1, True, "one", "one-hot", "per seat: 1 for the seat to move"),
    _P("dealer", 1, True, "one", "one-hot", "per seat: 1 for the dealer of the round"),
)

OBSERVATION_PIECES: tuple[Piece, ...] = (_HAND, _DRAWN, *_COMMON)
"""The observation of one seat; per-seat rows in play order from the observer (row 0)."""

STATE_PIECES: tuple[Piece, ...] = (
    _P("hands", NUM_KINDS, True, "copies", "count", "per seat: its hand"),
    _P(
        "drawn_upcard",
        NUM_KINDS,
        True,
        "one",
        "one-hot",
        "per seat: the card just taken from the discard pile (only the seat to move has one)",
    ),
    *_COMMON,
    _P("stock", NUM_KINDS, False, "copies", "count", "the cards in the stock"),
    _P(
        "next_stock",
        NUM_KINDS,
        False,
        "one",
        "one-hot",
        "the card on top of the stock (drawn next); zeros when the stock is empty",
    ),
)
"""The perfect-information state (``state()``); per-seat rows in absolute seat order."""

_STATE_EXTRA = ("stock", "next_stock")  # computed on demand, not kept by IncrementalEncoder


class Layout:
    """Offsets of a piece table for a given number of players."""

    def __init__(self, pieces: Sequence[Piece], num_players: int) -> None:
        self.pieces = tuple(pieces)
        self.num_players = num_players
        self.slices: dict[str, slice] = {}
        self.shapes: dict[str, tuple[int, ...]] = {}
        start = 0
        for p in self.pieces:
            self.slices[p.name] = slice(start, start + p.size(num_players))
            self.shapes[p.name] = p.shape(num_players)
            start += p.size(num_players)
        self.size = start

    def start(self, name: str) -> int:
        return self.slices[name].start

    def decode(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        vector = np.asarray(vector)
        if vector.shape != (self.size,):
            raise ValueError(
                f"expected a vector of {self.size} values for {self.num_players} players, "
                f"got shape {vector.shape}"
            )
        return {
            p.name: vector[self.slices[p.name]].reshape(self.shapes[p.name]) for p in self.pieces
        }


@cache
def observation_layout(num_players: int) -> Layout:
    """The observation layout for ``num_players`` seats."""
    return Layout(OBSERVATION_PIECES, num_players)


@cache
def state_layout(num_players: int) -> Layout:
    """The state layout for ``num_players`` seats."""
    return Layout(STATE_PIECES, num_players)


def piece_starts(num_players: int, names: Sequence[str]) -> tuple[tuple[int, ...], int]:
    """Where each named piece starts in the observation of ``num_players`` seats, in the order
    of ``names``, and the vector's size: the layout a compiled writer of the observation takes
    (the C engine names the pieces it writes: ``tt_env.game._ccore.PIECES``)."""
    layout = observation_layout(num_players)
    return tuple(layout.start(name) for name in names), layout.size


class EngineLayout:
    """The observation layout as an engine writes it (:meth:`tt_env.game.engine.Game.observation`):
    ``starts``, where each piece starts by name, and ``size``; :meth:`encode` is the Python
    encoder, for the reference engine (which writes no vector itself)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        layout = observation_layout(rules.num_players)
        self.starts = {p.name: layout.start(p.name) for p in OBSERVATION_PIECES}
        self.size = layout.size

    def encode(self, view: PlayerView) -> np.ndarray:
        return encode(view, self.rules)


def observation_size(num_players: int) -> int:
    """Length of the observation vector: 413 for 2 players, 32 + 53 * 5 + 58 * n in general."""
    return observation_layout(num_players).size


# ---------------------------------------------------------------------------------- bounds
def max_round_penalty(rules: Rules) -> int:
    """An upper bound of what one seat can score in one round (for bounds and penalties)."""
    worst_card = max(
        [rules.card_points(r) for r in range(1, NUM_RANKS + 1)]
        + [rules.wild_penalty(r.wild_rank) for r in rules.rounds]
        + ([JOKER_PENALTY] if rules.jokers_per_deck else [])
    )
    false_outs = (rules.false_out_penalty or 0) * (rules.turn_cap // rules.num_players + 1)
    multiplier = 2 if rules.double_court_rounds else 1
    return multiplier * (rules.max_cards * worst_card + false_outs)


def max_game_score(rules: Rules) -> int:
    """An upper bound of one seat's total score over a game."""
    return rules.num_rounds * max_round_penalty(rules)


def _piece_high(piece: Piece, rules: Rules) -> np.ndarray:
    n = rules.num_players
    if piece.bound == "copies":
        row = np.full(NUM_KINDS, rules.decks, np.float32)
        row[JOKER] = max(1, rules.decks * rules.jokers_per_deck)
        high = np.tile(row, n if piece.per_seat else 1)
    elif piece.bound == "hand":
        high = np.full(piece.size(n), rules.max_cards + 1, np.float32)
    elif piece.bound == "score":
        high = np.full(piece.size(n), max_game_score(rules) / SCORE_SCALE, np.float32)
    else:  # "one", "unit"
        high = np.ones(piece.size(n), np.float32)
    return high


def _high(pieces: Sequence[Piece], rules: Rules) -> np.ndarray:
    return np.concatenate([_piece_high(p, rules) for p in pieces]).astype(np.float32)


def observation_space(rules: Rules):
    """The ``gymnasium.spaces.Box`` of the observation vector under ``rules``."""
    from gymnasium import spaces

    high = _high(OBSERVATION_PIECES, rules)
    return spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32)


def state_space(rules: Rules):
    """The ``gymnasium.spaces.Box`` of the perfect-information state vector under ``rules``."""
    from gymnasium import spaces

    high = _high(STATE_PIECES, rules)
    return spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32)


# ---------------------------------------------------------------------------------- encode
def encode(view: PlayerView, rules: Rules) -> np.ndarray:
    """The observation vector of ``view`` (``float32``, layout :data:`OBSERVATION_PIECES`)."""
    n = view.num_players
    lay = observation_layout(n)
    out = np.zeros(lay.size, np.float32)
    p = lay.decode(out)  # writable views into out
    p["hand"][:] = view.hand
    if view.drawn_upcard >= 0:
        p["drawn_upcard"][view.drawn_upcard] = 1
    pile = view.discard_pile
    if pile:
        p["top_discard"][pile[-1]] = 1
        for c in pile[:-1]:
            p["discard_below"][c] += 1
    for meld in view.table:
        for c in meld.cards:
            p["table"][c] += 1
    _encode_round(p, rules, view.round_index, view.wild_rank, view.cards_dealt)
    if view.phase.in_play:
        p["phase"][int(view.phase)] = 1
    p["final_turn"][0] = view.went_out is not None
    p["stock_size"][0] = view.stock_size / _total_cards(rules)
    p["turns_left"][0] = max(0, rules.turn_cap - view.turns) / rules.turn_cap
    for k in range(n):
        s = (view.seat + k) % n
        p["known"][k] = view.taken[s]
        p["hand_size"][k] = view.hand_sizes[s]
        p["went_out"][k] = view.went_out == s
        p["score"][k] = view.scores[s] / SCORE_SCALE
        p["to_move"][k] = view.current == s and view.phase.in_play
        p["dealer"][k] = view.dealer == s
    return out


def _encode_round(p, rules: Rules, round_index: int, wild_rank: int, cards_dealt: int) -> None:
    p["wild_rank"][wild_rank - 1] = 1
    p["cards_dealt"][cards_dealt - MIN_CARDS_DEALT] = 1
    p["rounds_left"][0] = (rules.num_rounds - 1 - round_index) / rules.num_rounds


def _total_cards(rules: Rules) -> int:
    return rules.decks * rules.cards_per_deck


def decode(vector: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Named views of an observation vector: ``{"hand": (53,), "known": (n, 53), ...}``."""
    return observation_layout(num_players).decode(vector)


def decode_state(vector: np.ndarray, num_players: int) -> dict[str, np.ndarray]:
    """Named views of a state vector (``state()``)."""
    return state_layout(num_players).decode(vector)


def hand_of(vector: np.ndarray) -> list[Card]:
    """The observer's hand, recovered from an observation vector alone (any number of players)."""
    counts = np.asarray(vector)[:NUM_KINDS]
    return [ALL_CARDS[k] for k in range(NUM_KINDS) for _ in range(int(round(counts[k])))]


def top_discard_of(vector: np.ndarray) -> Card | None:
    """The top discard, recovered from an observation vector alone; None if the pile is empty."""
    start = observation_layout(2).start("top_discard")  # before any per-seat piece: same for all n
    row = np.asarray(vector)[start : start + NUM_KINDS]
    hits = np.flatnonzero(row)
    return ALL_CARDS[int(hits[0])] if len(hits) else None


# ---------------------------------------------------------------------------------- fast path
class IncrementalEncoder:
    """The state vector of a live :class:`Game`, kept up to date move by move.

    :meth:`sync` rebuilds it from the game; :meth:`update` writes only the values a move changed
    (a few scalar writes), from the :class:`~tt_env.game.engine.Outcome` that :meth:`Game.apply`
    returned: the encoder never calls the engine. Moves that change much (going out, lay-downs,
    the end of a round) are followed by :meth:`sync` or :meth:`finish` instead.
    :meth:`observation` cuts a seat's observation out of it with one precomputed gather, so it
    costs the same for 2 or 8 players. The vector is the state layout without the stock pieces;
    :meth:`state` appends them.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        n = self.num_players = rules.num_players
        slay = state_layout(n)
        self.size = slay.size - 2 * NUM_KINDS  # without the _STATE_EXTRA pieces
        assert all(slay.start(name) >= self.size for name in _STATE_EXTRA)
        self.v = np.zeros(self.size, np.float32)
        self._mv = memoryview(self.v)
        st = slay.start
        self._hands, self._drawn, self._top, self._below = (
            st("hands"),
            st("drawn_upcard"),
            st("top_discard"),
            st("discard_below"),
        )
        self._phase, self._stock, self._turns = st("phase"), st("stock_size"), st("turns_left")
        self._known, self._hand_size, self._to_move = st("known"), st("hand_size"), st("to_move")
        self._inv_total = 1.0 / _total_cards(rules)
        self._cap = rules.turn_cap
        self._redemption = rules.redemption
        self.pile: list[int] = []  # mirror of the (public) discard pile, bottom first
        self._drawn_at = -1  # index in v of the set drawn_upcard value, or -1
        # The gather: observation value j of seat o is v[self._gather[o][j]].
        olay = observation_layout(n)
        self._gather = []
        for o in range(n):
            index = np.empty(olay.size, np.intp)
            for p in OBSERVATION_PIECES:
                dst = olay.slices[p.name]
                if p.name in ("hand", "drawn_upcard"):
                    src = st("hands" if p.name == "hand" else "drawn_upcard") + o * NUM_KINDS
                    index[dst] = np.arange(src, src + NUM_KINDS)
                elif p.per_seat:
                    rows = [(o + k) % n for k in range(n)]
                    base = st(p.name)
                    index[dst] = np.concatenate(
                        [np.arange(base + r * p.width, base + (r + 1) * p.width) for r in rows]
                    )
                else:
                    index[dst] = np.arange(st(p.name), st(p.name) + p.width)
            self._gather.append(index)

    # -------------------------------------------------------------- rebuild
    def sync(self, game: Game) -> None:
        """Rebuild the whole vector from ``game``."""
        n, rules = self.num_players, self.rules
        slay = state_layout(n)
        v = self.v
        v[:] = 0
        p = {
            piece.name: v[slay.slices[piece.name]].reshape(slay.shapes[piece.name])
            for piece in STATE_PIECES
            if piece.name not in _STATE_EXTRA
        }
        hands = game.all_hands()
        for s in range(n):
            p["hands"][s] = hands[s]
            p["known"][s] = game.known_cards(s)
        self._drawn_at = -1
        drawn = game.drawn_upcard
        if drawn is not None:
            p["drawn_upcard"][game.current, drawn] = 1
            self._drawn_at = self._drawn + game.current * NUM_KINDS + drawn
        self.pile = [int(c) for c in game.discard_pile]
        if self.pile:
            p["top_discard"][self.pile[-1]] = 1
            for c in self.pile[:-1]:
                p["discard_below"][c] += 1
        for meld in game.table:
            for c in meld.cards:
                p["table"][c] += 1
        _encode_round(p, rules, game.round_index, game.wild_rank, game.cards_dealt)
        if game.phase.in_play:
            p["phase"][int(game.phase)] = 1
            p["to_move"][game.current] = 1
        went_out = game.went_out
        p["final_turn"][0] = went_out is not None
        p["stock_size"][0] = game.stock_size * self._inv_total
        p["turns_left"][0] = max(0, self._cap - game.turns) / self._cap
        for s in range(n):
            p["hand_size"][s] = sum(hands[s])
            p["went_out"][s] = went_out == s
            p["score"][s] = game.scores[s] / SCORE_SCALE
            p["dealer"][s] = game.dealer == s

    def finish(self, final: Game) -> None:
        """End of an episode: the vector shows ``final``, the game as the episode left it, with
        nobody to move. When the last move ended a round, pass :meth:`Game.ended_round`: the
        engine has already dealt the next round, which stays hidden."""
        self.sync(final)
        slay = state_layout(self.num_players)
        self.v[slay.slices["phase"]] = 0
        self.v[slay.slices["to_move"]] = 0

    # -------------------------------------------------------------- one move
    def update(self, outcome: Outcome) -> None:
        """Update the vector after one move from what the engine says happened
        (:class:`~tt_env.game.engine.Outcome`): a draw, or a discard that neither ended the round
        nor put cards on the table (for those, :meth:`sync` or :meth:`finish`). A few scalar
        writes; the engine is never called."""
        kind = outcome.move.kind
        seat = outcome.seat
        card = outcome.card
        row = seat * NUM_KINDS + card
        m = self._mv  # a memoryview of self.v: scalar access at half NumPy's cost
        if kind == MoveKind.DRAW_STOCK:
            pile = self.pile
            if outcome.rebuilt and pile:  # all but the top discard went into the stock
                for c in pile[:-1]:
                    m[self._below + c] = 0.0
                del pile[:-1]
            m[self._hands + row] += 1.0
            m[self._hand_size + seat] += 1.0
            m[self._stock] = outcome.stock_size * self._inv_total
            m[self._phase] = 0.0
            m[self._phase + 1] = 1.0
            return
        if kind == MoveKind.TAKE_DISCARD:
            pile = self.pile
            pile.pop()
            m[self._hands + row] += 1.0
            m[self._known + row] = outcome.known
            self._drawn_at = self._drawn + row
            m[self._drawn_at] = 1.0
            m[self._top + card] = 0.0
            if pile:
                below = pile[-1]
                m[self._top + below] = 1.0
                m[self._below + below] -= 1.0
            m[self._hand_size + seat] += 1.0
            m[self._phase] = 0.0
            m[self._phase + 1] = 1.0
            return
        # a discard, or going out and discarding, that left the round going on
        m[self._hands + row] -= 1.0
        m[self._known + row] = outcome.known
        if self._drawn_at >= 0:
            m[self._drawn_at] = 0.0
            self._drawn_at = -1
        pile = self.pile
        if pile:
            below = pile[-1]
            m[self._top + below] = 0.0
            m[self._below + below] += 1.0
        pile.append(card)
        m[self._top + card] = 1.0
        m[self._hand_size + seat] -= 1.0
        m[self._phase] = 1.0
        m[self._phase + 1] = 0.0
        m[self._to_move + seat] = 0.0
        m[self._to_move + outcome.next_seat] = 1.0
        m[self._turns] = max(0, self._cap - outcome.turns) / self._cap

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        del state["_mv"]  # a memoryview does not pickle; it is rebuilt from v
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._mv = memoryview(self.v)

    # -------------------------------------------------------------- outputs
    def observation(self, seat: int) -> np.ndarray:
        """A fresh observation vector of ``seat`` (equal to :func:`encode` of its view)."""
        return self.v.take(self._gather[seat])

    def state(self, game: Game) -> np.ndarray:
        """The perfect-information state vector (layout :data:`STATE_PIECES`)."""
        extra = np.zeros(2 * NUM_KINDS, np.float32)
        stock = game.stock_cards()
        for c in stock:
            extra[c] += 1
        if stock:
            extra[NUM_KINDS + stock[-1]] = 1
        return np.concatenate([self.v, extra])


# ---------------------------------------------------------------------------------- docs
def markdown_table(
    num_players: int | None = None, pieces: Sequence[Piece] = OBSERVATION_PIECES
) -> str:
    """The piece table as Markdown. With ``num_players`` the index ranges are shown too."""
    header = "| piece | shape | values | description |"
    rule = "| --- | --- | --- | --- |"
    if num_players is not None:
        lay = Layout(pieces, num_players)
        header = "| indices " + header
        rule = "| --- " + rule
    lines = [header, rule]
    for p in pieces:
        shape = (
            f"(n, {p.width})"
            if p.per_seat and p.width > 1
            else "(n,)"
            if p.per_seat
            else (f"({p.width},)")
        )
        row = f"| `{p.name}` | {shape} | {p.values} | {p.description} |"
        if num_players is not None:
            sl = lay.slices[p.name]
            row = f"| {sl.start}..{sl.stop - 1} " + row
        lines.append(row)
    return "\n".join(lines)


__all__ = [
    "OBSERVATION_PIECES",
    "STATE_PIECES",
    "SCORE_SCALE",
    "IncrementalEncoder",
    "Layout",
    "Piece",
    "decode",
    "decode_state",
    "encode",
    "hand_of",
    "markdown_table",
    "max_game_score",
    "max_round_penalty",
    "observation_layout",
    "observation_size",
    "observation_space",
    "state_layout",
    "state_space",
    "top_discard_of",
]
