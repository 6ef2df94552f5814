"""What the two engines share: the part of :class:`Game`'s API that reads the game only
through its accessors (views, records, why a move is illegal) and the checks of
:meth:`Game.arrange`.

:class:`GameAPI` is the base class of :class:`tt_env.game.engine.Game` (the C engine) and of
:class:`tt_env.game.reference.Game` (the rules in plain Python: the test oracle, and the engine
where the C one is not built); each gives the state's accessors and plays the moves.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tt_env.game.cards import ALL_CARDS, NUM_KINDS, Card, format_cards, from_counts, parse_cards
from tt_env.game.melds import Arrangement, MeldShape, solve
from tt_env.game.moves import (
    _CANONICAL_IDS,
    ACTION_MOVES,
    IllegalMoveError,
    Move,
    MoveKind,
    Phase,
    PlayerView,
    RecordError,
    TableMeld,
    _as_move,
    _is_index,
    _short,
    action_of,
    check_seed,
)
from tt_env.game.records import RECORD_VERSION, read_record
from tt_env.game.rules import Rules


@dataclass(frozen=True)
class ArrangedRound:
    """A round set up by :meth:`Game.arrange`, every value checked (see there)."""

    round_index: int
    current: int
    hands: list[bytearray]  # per seat, 53 counts
    stock: list[int]  # bottom first
    discard_pile: list[int]  # bottom first
    table: list[TableMeld]
    went_out: int | None
    taken: list[list[int]]  # per seat, 53 counts known to be held
    turns: int
    false_outs: list[int]
    scores: list[int]
    laid: list[int]  # the seats that laid down: scored from the table as it lies


class GameAPI:
    """The API both engines share, over the accessors each gives."""

    rules: Rules
    seed: int
    num_players: int
    moves: list[Move]

    def _start(self, rules: Rules | None, seed: int | None) -> None:
        """Check and set the rules and the seed (a random one for None)."""
        if rules is not None and not isinstance(rules, Rules):
            raise TypeError(
                f"rules must be a tt_env Rules (Rules.preset(name) for a preset), "
                f"got {_short(rules)}"
            )
        self.rules = rules if rules is not None else Rules()
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.seed = check_seed(seed)
        self.num_players = self.rules.num_players
        self._rounds = self.rules.rounds  # every round's cards and wild rank
        self.moves = []
        self._arranged = False

    # ------------------------------------------------------------------ round flow
    @property
    def cards_dealt(self) -> int:
        return self._rounds[min(self.round_index, len(self._rounds) - 1)].cards

    @property
    def wild_rank(self) -> int:
        return self._rounds[min(self.round_index, len(self._rounds) - 1)].wild_rank

    @property
    def dealer(self) -> int:
        # RULES.md: the deal passes to the left (next seat) each round.
        return (self.first_dealer + self.round_index) % self.num_players

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    @property
    def winners(self) -> list[int]:
        """Seats with the lowest total (ties share the win); empty until the game is over."""
        if not self.is_over:
            return []
        scores = self.scores
        best = min(scores)
        return [s for s, score in enumerate(scores) if score == best]

    # ------------------------------------------------------------------ moves
    def check(self, move: Move | str) -> None:
        """Raise :class:`IllegalMoveError` saying why, if ``move`` is not legal now."""
        self._validated(move)

    def _validated(self, move: Move | str) -> Move:
        """The move as the engine's own :class:`Move` if it is legal now; else
        :class:`IllegalMoveError` naming what is wrong (malformed, or against the rules)."""
        if id(move) not in _CANONICAL_IDS:  # not one of DRAW_STOCK, ..., GO_OUT[k] itself
            move = _as_move(move)
        if move in self.legal_moves():
            return move
        raise IllegalMoveError(self._why_illegal(move))

    def _why_illegal(self, move: Move) -> str:
        who = f"seat {self.current}"
        phase = self.phase
        if phase == Phase.GAME_OVER:
            return "the game is over"
        if phase == Phase.ROUND_OVER:
            return "the round is over (a snapshot of its end: Game.ended_round)"
        if phase == Phase.DRAW:
            if move.kind in (MoveKind.DISCARD, MoveKind.GO_OUT):
                return f"{who} must draw first (draw stock or take discard), not {move}"
            if move.kind == MoveKind.DRAW_STOCK:
                return "the stock is empty and the discard pile cannot rebuild it"
            return "the discard pile is empty"
        if move.kind in (MoveKind.DRAW_STOCK, MoveKind.TAKE_DISCARD):
            return f"{who} has already drawn this turn and must discard or go out"
        if not 0 <= move.card < NUM_KINDS:
            return f"no such card kind: {move.card}"
        card = ALL_CARDS[move.card]
        hand = self.hand_counts(self.current)
        if not hand[move.card]:
            return f"{who} does not hold {card}"
        if move.card == self.drawn_upcard and not self.rules.discard_drawn_upcard:
            if hand[move.card] <= 1:
                return (
                    f"{card} was just taken from the discard pile and may not be discarded "
                    "this turn (rule option discard_drawn_upcard)"
                )
        return f"{who} cannot go out discarding {card}: the other cards do not all meld"

    # ------------------------------------------------------------------ views
    def hand(self, seat: int) -> list[Card]:
        return from_counts(self.hand_counts(seat))

    def taken_from_discard(self, seat: int) -> list[Card]:
        """:meth:`known_cards` as cards: what ``seat`` is known to hold (public)."""
        return from_counts(self.known_cards(seat))

    @property
    def top_discard(self) -> Card | None:
        pile = self.discard_pile
        return pile[-1] if pile else None

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may see: its own hand and the public information, nothing hidden."""
        n = self.num_players
        hands = self.all_hands()
        current = self.current
        drawn = self.drawn_upcard
        return PlayerView(
            seat=seat,
            num_players=n,
            round_index=self.round_index,
            cards_dealt=self.cards_dealt,
            wild_rank=self.wild_rank,
            dealer=self.dealer,
            current=current,
            phase=self.phase,
            hand=hands[seat],
            discard_pile=tuple(int(c) for c in self.discard_pile),
            drawn_upcard=int(drawn) if drawn is not None and seat == current else -1,
            hand_sizes=tuple(sum(h) for h in hands),
            taken=tuple(self.known_cards(s) for s in range(n)),
            went_out=self.went_out,
            table=tuple(self.table),
            scores=tuple(self.scores),
            stock_size=self.stock_size,
            turns=self.turns,
            legal_moves=tuple(self.legal_moves()) if seat == current else (),
        )

    def full_state(self) -> dict[str, Any]:
        """The whole state, hidden cards included (for debugging and centralised critics)."""
        return {
            "round_index": self.round_index,
            "wild_rank": self.wild_rank,
            "dealer": self.dealer,
            "current": self.current,
            "phase": self.phase.name,
            "hands": [format_cards(from_counts(h)) for h in self.all_hands()],
            "stock": format_cards(self.stock_cards()),
            "discard_pile": format_cards(self.discard_pile),
            "went_out": self.went_out,
            "scores": list(self.scores),
            "turns": self.turns,
        }

    def observation(self, seat: int, layout) -> np.ndarray:
        """``seat``'s observation vector (``float32``, a new array) as ``layout`` lays it out
        (:class:`tt_env.encoding.observation.EngineLayout`)."""
        return layout.encode(self.view(seat))

    def legal_mask(self) -> bytes:
        """The legal actions of the seat to move as 108 bytes of 0/1 (action ids:
        :data:`tt_env.game.moves.ACTION_MOVES`); all 0 when nobody is to move."""
        mask = bytearray(len(ACTION_MOVES))
        for move in self.legal_moves():
            mask[action_of(move)] = 1
        return bytes(mask)

    # ------------------------------------------------------------------ records
    def record(self) -> dict[str, Any]:
        """A JSON-ready record: rules, seed and moves, which replay to this exact game, and what
        they lead to (rounds played, scores, winners), which :meth:`from_record` checks."""
        if self._arranged:
            raise RecordError(
                "an arranged game (Game.arrange) cannot be recorded: its deal is not the seed's"
            )
        return {
            "format": "tt_env.game",
            "version": RECORD_VERSION,
            "rules": self.rules.to_dict(),
            "seed": self.seed,
            "moves": [str(m) for m in self.moves],
            "scores": list(self.scores),
            "rounds_played": len(self.round_results),
            "winners": self.winners,  # empty until the game is over
        }

    def to_json(self) -> str:
        return json.dumps(self.record())

    @classmethod
    def from_record(cls, record: dict[str, Any] | str | bytes) -> GameAPI:
        """Replay a record (a dict, or its JSON as text or UTF-8 bytes).

        The record must replay to exactly what it says: every move legal in turn, then
        ``rounds_played`` rounds, the ``scores`` and (when given) the ``winners``. Otherwise, and
        for anything malformed (bad bytes, wrong JSON types, absurd nesting), it raises
        :class:`RecordError` naming the first disagreement.
        """
        rules, seed, moves, rounds_played, scores, winners = read_record(record)
        game = cls(rules, seed=seed)
        for i, text in enumerate(moves):
            try:
                game.apply(text)
            except IllegalMoveError as exc:
                raise RecordError(
                    f"game record does not replay: move {i} {_short(text)}: {exc}"
                ) from None
        played = len(game.round_results)
        if rounds_played != played:
            raise RecordError(
                f"game record does not match: it says {rounds_played} round(s) "
                f"played, its {len(moves)} moves play {played}"
            )
        if scores != game.scores:
            raise RecordError(
                f"game record does not match: it says scores {scores}, the "
                f"replay gives {game.scores}"
            )
        if winners is not None and winners != game.winners:
            raise RecordError(
                f"game record does not match: it says winners {winners}, the "
                f"replay gives {game.winners}"
            )
        return game

    # ------------------------------------------------------------------ set-up positions
    def arrange(
        self,
        hands: list[str | list[int]],
        stock: str | list[int] = "",
        discard_pile: str | list[int] = "",
        current: int | None = None,
        *,
        round_index: int | None = None,
        table: Sequence[TableMeld | tuple[int, str | list[int]]] = (),
        went_out: int | None = None,
        known: Sequence[str | list[int]] | None = None,
        turns: int = 0,
        false_outs: Sequence[int] | None = None,
        scores: Sequence[int] | None = None,
    ) -> None:
        """Replace the round in play (for tests, puzzles and tutorials): set up the start of
        ``current``'s turn (the draw) in any position that play reaches.

        ``hands`` per seat, ``stock`` bottom first (its last card is drawn next) and
        ``discard_pile`` bottom first, as card strings or kind lists. The cards need not form
        whole decks (at most 255 copies of a card kind and 672 cards in all, the cards of 12
        decks). With an empty stock and an empty discard pile nothing can be drawn: the round
        ends at once and is scored (RULES.md). The game can no longer be recorded: its deal is
        not the seed's.

        The rest of a round under way, all public (a game's :attr:`table`, :attr:`went_out`,
        :meth:`taken_from_discard`, :attr:`turns`, :attr:`scores` give them):

        - ``table``: the melds on the table, as :class:`TableMeld` or ``(seat, cards)`` (cards
          that form one meld);
        - ``went_out``: the seat that went out; the final turns are then under way, and the
          seats from the one after it to the one before ``current`` have had theirs. Its hand
          is empty, and so may be those of the seats that laid everything down in their final
          turn (redemption); every seat still to play holds at least one card (a seat with none
          could take the top discard and then have nothing it may discard);
        - ``known``: per seat, the cards everyone knows it holds (:meth:`known_cards`), in its
          hand (default: none);
        - ``turns``: the turns played this round (the turn cap counts them);
        - ``false_outs``: per seat, the false go-out penalties of this round (not doubled);
        - ``scores``: the game's totals before this round (default: as they are).

        A seat that laid down (the one that went out and, with redemption, those that had their
        final turn) is scored at the end of the round from its melds on the table as they lie
        then (cards laid off onto them since included) and the cards left in its hand. A
        stock rebuilt after this is shuffled by the round's own random stream from its start,
        as in a seeded game whose stock was not rebuilt yet this round. To set up a discard
        phase, arrange the turn and apply its draw.
        """
        # Everything is checked before anything changes: a refused arrangement leaves the game.
        arranged = arranged_round(
            self,
            hands=hands,
            stock=stock,
            discard_pile=discard_pile,
            current=current,
            round_index=round_index,
            table=table,
            went_out=went_out,
            known=known,
            turns=turns,
            false_outs=false_outs,
            scores=scores,
        )
        self._set_round(arranged)
        self._arranged = True

    def _set_round(self, arranged: ArrangedRound) -> None:  # each engine sets its own state
        raise NotImplementedError


# ---------------------------------------------------------------------- arrange's checks
def arranged_round(game: GameAPI, **given: Any) -> ArrangedRound:
    """The round :meth:`GameAPI.arrange` sets up in ``game``, every value checked, or a
    :class:`ValueError` naming the first problem (``given``: arrange's arguments)."""
    rules, n = game.rules, game.num_players
    hands, current, round_index = given["hands"], given["current"], given["round_index"]
    went_out, turns = given["went_out"], given["turns"]
    if isinstance(hands, (str, bytes)) or not hasattr(hands, "__len__"):
        raise ValueError(f"arrange needs a list of {n} hands, got {_short(hands)}")
    if len(hands) != n:
        raise ValueError(f"arrange needs {n} hands, got {len(hands)}")
    if round_index is not None and not (
        _is_index(round_index) and 0 <= round_index < rules.num_rounds
    ):
        raise ValueError(
            f"round_index must be 0..{rules.num_rounds - 1}, got {_short(round_index)}"
        )
    if current is not None and not (_is_index(current) and 0 <= current < n):
        raise ValueError(f"current must be a seat 0..{n - 1}, got {_short(current)}")
    seat_to_move = game.current if current is None else int(current)
    if went_out is not None and not (_is_index(went_out) and 0 <= went_out < n):
        raise ValueError(f"went_out must be a seat 0..{n - 1} or None, got {_short(went_out)}")
    if went_out is not None and went_out == seat_to_move:
        raise ValueError(
            f"seat {went_out} went out: its final turns end before it would move again"
        )
    # The seats still to play this round: all of them, or those before the one out.
    to_play = set(range(n))
    if went_out is not None:
        to_play = {(seat_to_move + i) % n for i in range((went_out - seat_to_move) % n)}
    counts = []
    for seat, cards in enumerate(hands):
        row = [0] * NUM_KINDS
        for c in _parse(cards):
            row[c] += 1
        if max(row) > 254:  # room for one more: a draw adds to a byte
            raise ValueError("a hand may hold at most 254 cards of one kind")
        if seat == went_out and any(row):
            raise ValueError(f"seat {seat} went out: its hand must be empty")
        if seat in to_play and not any(row):
            raise ValueError(
                f"seat {seat} holds no card: every seat still to play this round needs "
                "at least one card"
            )
        counts.append(bytearray(row))
    stock_cards, pile_cards = _parse(given["stock"]), _parse(given["discard_pile"])
    index = min(game.round_index, rules.num_rounds - 1) if round_index is None else round_index
    wild_rank = rules.rounds[int(index)].wild_rank
    melds = [_table_meld(game, m, wild_rank) for m in given["table"]]
    _check_copies(counts, stock_cards, pile_cards, melds)
    taken = _arranged_known(game, given["known"], counts)
    # The turn cap ends a round nobody went out of; the final turns after a go-out in the
    # last turn before the cap run past it.
    low, high = (0, rules.turn_cap - 1) if went_out is None else (1, rules.turn_cap + n - 2)
    if not (_is_index(turns) and low <= turns <= high):
        raise ValueError(
            f"turns must be {low}..{high} (the turn cap ends the round), got {_short(turns)}"
        )
    laid = []
    if went_out is not None:  # the seats that laid down: scored as the table shows them
        laid = sorted(set(range(n)) - to_play) if rules.redemption else [went_out]
    return ArrangedRound(
        round_index=int(index),
        current=seat_to_move,
        hands=counts,
        stock=stock_cards,
        discard_pile=pile_cards,
        table=melds,
        went_out=None if went_out is None else int(went_out),
        taken=taken,
        turns=int(turns),
        false_outs=_per_seat(n, "false_outs", given["false_outs"], [0] * n),
        scores=_per_seat(n, "scores", given["scores"], game.scores),
        laid=laid,
    )


def _check_copies(hands, stock: list[int], pile: list[int], table: list[TableMeld]) -> None:
    copies = [0] * NUM_KINDS
    for row in hands:
        for k in range(NUM_KINDS):
            copies[k] += row[k]
    for c in (*stock, *pile, *(c for m in table for c in m.cards)):
        copies[c] += 1
    if max(copies) > 255:  # a hand may come to hold them all, in a byte
        raise ValueError("at most 255 copies of a card kind may be in play")
    if sum(copies) > 672:
        raise ValueError(f"at most 672 cards (12 decks) may be in play, got {sum(copies)}")


def _table_meld(game: GameAPI, meld, wild_rank: int) -> TableMeld:
    """A meld for :meth:`GameAPI.arrange`'s ``table``: a :class:`TableMeld`, or ``(seat,
    cards)`` whose cards form one meld."""
    n = game.num_players
    if isinstance(meld, TableMeld):
        seat, cards = meld.seat, meld.cards
    elif isinstance(meld, tuple) and len(meld) == 2:
        seat, cards = meld
    else:
        raise ValueError(f"a table meld is a TableMeld or (seat, cards), got {_short(meld)}")
    if not (_is_index(seat) and 0 <= seat < n):
        raise ValueError(f"a table meld's seat must be 0..{n - 1}, got {_short(seat)}")
    parsed = [ALL_CARDS[c] for c in _parse(cards)]
    if isinstance(meld, TableMeld):
        if not isinstance(meld.shape, MeldShape):
            raise ValueError(f"a table meld's shape must be a MeldShape, got {meld.shape!r}")
        if not _shape_in_range(meld.shape) or meld.shape.size > len(parsed):
            raise ValueError(f"a table meld's shape does not fit its cards: {meld.shape!r}")
        return TableMeld(seat=int(seat), cards=tuple(parsed), shape=meld.shape)
    arrangement = solve(parsed, wild_rank, game.rules)
    if len(arrangement.melds) != 1 or arrangement.deadwood:
        raise ValueError(f"table meld {format_cards(parsed)!r} is not one meld")
    return TableMeld(seat=int(seat), cards=tuple(arrangement.melds[0]), shape=arrangement.shapes[0])


def _shape_in_range(shape: MeldShape) -> bool:
    """A shape whose fields are in their ranges (see MeldShape): what an engine can hold."""
    return (
        shape.kind in ("set", "run", "wild")
        and all(_is_index(v) for v in (shape.rank, shape.suit, shape.low, shape.high))
        and 0 <= shape.rank <= 13
        and -1 <= shape.suit <= 3
        and 0 <= shape.low <= 14
        and 0 <= shape.high <= 14
        and _is_index(shape.wilds)
        and _is_index(shape.size)
        and 0 <= shape.wilds <= 672
        and 1 <= shape.size <= 672
    )


def _arranged_known(game: GameAPI, known, counts: list[bytearray]) -> list[list[int]]:
    n = game.num_players
    if known is None:
        return [[0] * NUM_KINDS for _ in range(n)]
    if isinstance(known, (str, bytes)) or not hasattr(known, "__len__") or len(known) != n:
        raise ValueError(f"known must be a list of {n} lists of cards, got {_short(known)}")
    taken = []
    for seat, cards in enumerate(known):
        row = [0] * NUM_KINDS
        for c in _parse(cards):
            row[c] += 1
            if row[c] > counts[seat][c]:
                raise ValueError(
                    f"seat {seat} is known to hold {ALL_CARDS[c]}, which its hand does not"
                )
        taken.append(row)
    return taken


def _per_seat(n: int, name: str, values, default: list[int]) -> list[int]:
    if values is None:
        return list(default)
    if (
        isinstance(values, (str, bytes))
        or not hasattr(values, "__len__")
        or len(values) != n
        or not all(_is_index(v) and v >= 0 for v in values)
    ):
        raise ValueError(f"{name} must be {n} integers >= 0, got {_short(values)}")
    if any(v > 2**50 for v in values):
        raise ValueError(f"{name} must be at most 2**50, got {_short(values)}")
    return [int(v) for v in values]


def scored_from_table(
    table: Sequence[TableMeld], seat: int, hand, wild_rank: int, *, rules: Rules, joker_free: bool
) -> tuple[int, Arrangement]:
    """The score that laying down gave ``seat`` in an arranged round: its melds on the table
    and what is left in its ``hand`` (counts), best arranged."""
    rest = solve(from_counts(hand), wild_rank, rules, joker_penalty=0 if joker_free else None)
    own = [m for m in table if m.seat == seat]
    arrangement = Arrangement(
        melds=[list(m.cards) for m in own] + rest.melds,
        shapes=[m.shape for m in own] + rest.shapes,
        deadwood=rest.deadwood,
        points=rest.points,
    )
    return arrangement.points, arrangement


def _parse(cards: str | list[int]) -> list[int]:
    return [int(c) for c in parse_cards(cards)]
