"""The round and game engine: a state machine that plays exactly what ``RULES.md`` says.

A :class:`Game` is created from :class:`~tt_env.game.rules.Rules` and a seed; all randomness (the
first dealer, every shuffle) comes from one ``numpy.random.Generator`` seeded with it, so a game
*is* its seed plus its moves (:meth:`Game.record`, :meth:`Game.from_record`).

A turn has two phases of the same seat: :attr:`Phase.DRAW` (draw from the stock or take the top
discard) then :attr:`Phase.DISCARD` (discard, or go out and discard). When a round ends it is
scored and the next one is dealt at once; :attr:`Game.round_results` keeps every round's result.

The engine knows nothing of reinforcement learning: :mod:`tt_env.three_thirteen_v0` translates.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import compress
from typing import Any

import numpy as np

from tt_env.game.cards import (
    ALL_CARDS,
    JOKER,
    NUM_KINDS,
    Card,
    format_cards,
    parse_cards,
    shuffled_deck,
)
from tt_env.game.going_out import go_out_discards
from tt_env.game.melds import Arrangement, MeldShape, lay_off, solve
from tt_env.game.moves import (
    _CANONICAL_IDS,
    DISCARD,
    DRAW_STOCK,
    GO_OUT,
    TAKE_DISCARD,
    IllegalMoveError,
    Move,
    MoveKind,
    Outcome,
    Phase,
    RecordError,
    RoundResult,
    TableMeld,
    _as_move,
    _is_index,
    _short,
    check_seed,
)
from tt_env.game.records import RECORD_VERSION, read_record
from tt_env.game.rules import Rules


@dataclass
class _Round:
    """Mutable state of the round in play (internal)."""

    hands: list[bytearray]  # per seat, 53 counts (bytes: cheap to copy, hash and scan)
    stock: list[int]  # top of the stock is the end of the list
    discard_pile: list[int]  # top discard is the end of the list
    taken: list[list[int]]  # per seat, counts known to be held (public): see Game.known_cards
    table: list[TableMeld] = field(default_factory=list)
    drawn_upcard: int = -1  # the card taken from the discard pile this turn, or -1
    went_out: int | None = None
    false_outs: list[int] = field(default_factory=list)
    scored: dict[int, tuple[int, Arrangement]] = field(default_factory=dict)  # redemption
    turns: int = 0
    rng: np.random.Generator | None = None  # stock rebuilds

    def __deepcopy__(self, memo: dict) -> _Round:
        # Field by field: the containers are new, the records in them (cards, frozen
        # TableMelds, scored Arrangements) are immutable and shared. 20x cheaper than the
        # generic walk, which matters to duplicate-deal training (a copy per round).
        new = _Round(
            hands=[bytearray(h) for h in self.hands],
            stock=list(self.stock),
            discard_pile=list(self.discard_pile),
            taken=[list(t) for t in self.taken],
            table=list(self.table),
            drawn_upcard=self.drawn_upcard,
            went_out=self.went_out,
            false_outs=list(self.false_outs),
            scored=dict(self.scored),
            turns=self.turns,
            rng=copy.deepcopy(self.rng, memo),
        )
        memo[id(self)] = new
        return new


class Game:
    """A game of Three Thirteen under ``rules``, seeded for reproducibility.

    >>> game = Game(Rules(num_players=2), seed=7)
    >>> while not game.is_over:
    ...     game.apply(game.legal_moves()[0])
    >>> len(game.round_results)
    11
    """

    def __init__(self, rules: Rules | None = None, seed: int | None = None) -> None:
        if rules is not None and not isinstance(rules, Rules):
            raise TypeError(
                f"rules must be a tt_env Rules (Rules.preset(name) for a preset), "
                f"got {_short(rules)}"
            )
        self.rules = rules if rules is not None else Rules()
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.seed = check_seed(seed)
        n = self.rules.num_players
        self.num_players = n
        self.scores = [0] * n
        self.round_results: list[RoundResult] = []
        self.moves: list[Move] = []
        self.round_index = 0
        self.first_dealer = int(np.random.default_rng(self.seed).integers(n))
        self.phase = Phase.DRAW
        self.current = 0
        self._legal_cache: list[Move] | None = None
        self._arranged = False
        self._ended: tuple[_Round, int, int] | None = None  # see ended_round()
        self._deal()

    # Copied as a list, not walked: append-only lists of immutable records (moves, results).
    _SHARED_RECORDS = ("moves", "round_results", "_legal_cache")

    def __deepcopy__(self, memo: dict) -> Game:
        """An independent copy (``copy.deepcopy(game)``): playing on either never changes the
        other. The records both hold (moves, round results, the frozen ``Rules``, the ended
        round of :meth:`ended_round`, never changed again) are shared, not copied."""
        new = object.__new__(type(self))
        memo[id(self)] = new
        for name, value in self.__dict__.items():
            if name in self._SHARED_RECORDS:
                value = None if value is None else list(value)
            elif name not in ("rules", "_ended"):
                value = copy.deepcopy(value, memo)
            new.__dict__[name] = value
        return new

    # ------------------------------------------------------------------ round flow
    @property
    def cards_dealt(self) -> int:
        return self.rules.rounds[min(self.round_index, self.rules.num_rounds - 1)].cards

    @property
    def wild_rank(self) -> int:
        return self.rules.rounds[min(self.round_index, self.rules.num_rounds - 1)].wild_rank

    @property
    def dealer(self) -> int:
        # RULES.md: the deal passes to the left (next seat) each round.
        return (self.first_dealer + self.round_index) % self.num_players

    @property
    def is_over(self) -> bool:
        return self.phase == Phase.GAME_OVER

    def _deal(self) -> None:
        rules, n = self.rules, self.num_players
        # Each round has random streams of its own (the deal, then stock rebuilds), derived from
        # the seed and the round, so that a round's deal does not depend on what happened in
        # earlier rounds: duplicate tournaments replay the same deals in every seating.
        deal_rng = np.random.default_rng((self.seed, self.round_index, 0))
        deck = shuffled_deck(deal_rng, rules.decks, rules.jokers_per_deck)
        hands = [bytearray(NUM_KINDS) for _ in range(n)]
        size = self.cards_dealt
        # Deal one card at a time, starting left of the dealer.
        for i in range(size * n):
            hands[(self.dealer + 1 + i) % n][deck.pop()] += 1
        upcard = deck.pop()
        self._round = _Round(
            hands=hands,
            stock=[int(c) for c in deck],
            discard_pile=[int(upcard)],
            taken=[[0] * NUM_KINDS for _ in range(n)],
            false_outs=[0] * n,
            rng=np.random.default_rng((self.seed, self.round_index, 1)),
        )
        self.current = (self.dealer + 1) % n  # RULES.md: left of the dealer plays first
        self.phase = Phase.DRAW
        self._legal_cache = None

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
        whole decks. With an empty stock and an empty discard pile nothing can be drawn: the
        round ends at once and is scored (RULES.md). The game can no longer be recorded: its
        deal is not the seed's.

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
        n = self.num_players
        if isinstance(hands, (str, bytes)) or not hasattr(hands, "__len__"):
            raise ValueError(f"arrange needs a list of {n} hands, got {_short(hands)}")
        if len(hands) != n:
            raise ValueError(f"arrange needs {n} hands, got {len(hands)}")
        if round_index is not None and not (
            _is_index(round_index) and 0 <= round_index < self.rules.num_rounds
        ):
            raise ValueError(
                f"round_index must be 0..{self.rules.num_rounds - 1}, got {_short(round_index)}"
            )
        if current is not None and not (_is_index(current) and 0 <= current < n):
            raise ValueError(f"current must be a seat 0..{n - 1}, got {_short(current)}")
        seat_to_move = self.current if current is None else int(current)
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
        stock_cards, pile_cards = _parse(stock), _parse(discard_pile)
        index = min(self.round_index, self.rules.num_rounds - 1)
        wild_rank = self.rules.rounds[index if round_index is None else int(round_index)].wild_rank
        melds = [self._table_meld(m, wild_rank) for m in table]
        taken = self._arranged_known(known, counts)
        # The turn cap ends a round nobody went out of; the final turns after a go-out in the
        # last turn before the cap run past it.
        low, high = (
            (0, self.rules.turn_cap - 1) if went_out is None else (1, self.rules.turn_cap + n - 2)
        )
        if not (_is_index(turns) and low <= turns <= high):
            raise ValueError(
                f"turns must be {low}..{high} (the turn cap ends the round), got {_short(turns)}"
            )
        false_outs = self._per_seat("false_outs", false_outs, [0] * n)
        scores = self._per_seat("scores", scores, self.scores)
        if round_index is not None:
            self.round_index = int(round_index)
        self._round = _Round(
            hands=counts,
            stock=stock_cards,
            discard_pile=pile_cards,
            taken=taken,
            table=melds,
            went_out=went_out,
            false_outs=false_outs,
            turns=int(turns),
            rng=np.random.default_rng((self.seed, self.round_index, 1)),
        )
        self.scores = scores
        self.current = seat_to_move
        if went_out is not None:  # the seats that laid down: scored as the table shows them
            laid = set(range(n)) - to_play if self.rules.redemption else {went_out}
            for seat in sorted(laid):
                self._round.scored[seat] = self._scored_from_table(seat)
        self.phase = Phase.DRAW
        self._legal_cache = None
        self._arranged = True
        self._end_round_if_nothing_to_draw()

    def _table_meld(self, meld, wild_rank: int) -> TableMeld:
        """A meld for :meth:`arrange`'s ``table``: a :class:`TableMeld`, or ``(seat, cards)``
        whose cards form one meld."""
        n = self.num_players
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
            return TableMeld(seat=int(seat), cards=tuple(parsed), shape=meld.shape)
        arrangement = solve(parsed, wild_rank, self.rules)
        if len(arrangement.melds) != 1 or arrangement.deadwood:
            raise ValueError(f"table meld {format_cards(parsed)!r} is not one meld")
        return TableMeld(
            seat=int(seat), cards=tuple(arrangement.melds[0]), shape=arrangement.shapes[0]
        )

    def _arranged_known(self, known, counts: list[bytearray]) -> list[list[int]]:
        n = self.num_players
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

    def _per_seat(self, name: str, values, default: list[int]) -> list[int]:
        n = self.num_players
        if values is None:
            return list(default)
        if (
            isinstance(values, (str, bytes))
            or not hasattr(values, "__len__")
            or len(values) != n
            or not all(_is_index(v) and v >= 0 for v in values)
        ):
            raise ValueError(f"{name} must be {n} integers >= 0, got {_short(values)}")
        return [int(v) for v in values]

    def _scored_from_table(self, seat: int) -> tuple[int, Arrangement]:
        """The score that laying down gave ``seat``, rebuilt by :meth:`arrange`: its melds on
        the table and what is left in its hand."""
        r = self._round
        rest = solve(
            _cards_of(r.hands[seat]),
            self.wild_rank,
            self.rules,
            joker_penalty=self._joker_penalty(seat),
        )
        own = [m for m in r.table if m.seat == seat]
        arrangement = Arrangement(
            melds=[list(m.cards) for m in own] + rest.melds,
            shapes=[m.shape for m in own] + rest.shapes,
            deadwood=rest.deadwood,
            points=rest.points,
        )
        return arrangement.points, arrangement

    # ------------------------------------------------------------------ moves
    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to move (empty when the game is over)."""
        if self._legal_cache is None:
            self._legal_cache = self._compute_legal()
        return self._legal_cache

    def _compute_legal(self) -> list[Move]:
        r = self._round
        if self.phase == Phase.DRAW:
            moves = []
            if r.stock or len(r.discard_pile) > 1:  # an empty stock is rebuilt at the draw
                moves.append(DRAW_STOCK)
            if r.discard_pile:
                moves.append(TAKE_DISCARD)
            return moves
        if self.phase == Phase.DISCARD:
            hand = r.hands[self.current]
            moves = list(compress(DISCARD, hand))  # a discard of each kind held, ascending
            upcard = r.drawn_upcard
            barred = upcard if upcard >= 0 and not self._may_discard(upcard) else -1
            if barred >= 0:
                moves.remove(DISCARD[barred])
            if self.rules.false_out_penalty is not None:
                moves += [GO_OUT[m.card] for m in moves]
            else:
                outs = go_out_discards(hand, self.wild_rank, self.rules)
                moves += [GO_OUT[k] for k in outs if k != barred]
            return moves
        return []

    def _may_discard(self, kind: int) -> bool:
        r = self._round
        if kind != r.drawn_upcard or self.rules.discard_drawn_upcard:
            return True
        # Decided here (RULES.md): the card just taken from the discard pile may not be discarded
        # in the same turn; an identical card held from before (several decks) may.
        return r.hands[self.current][kind] > 1

    def go_out_discards(self) -> set[int]:
        """In the discard phase: the card kinds whose discard leaves a hand with no deadwood."""
        return set(go_out_discards(self._round.hands[self.current], self.wild_rank, self.rules))

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
        r = self._round
        who = f"seat {self.current}"
        if self.phase == Phase.GAME_OVER:
            return "the game is over"
        if self.phase == Phase.ROUND_OVER:
            return "the round is over (a snapshot of its end: Game.ended_round)"
        if self.phase == Phase.DRAW:
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
        if not r.hands[self.current][move.card]:
            return f"{who} does not hold {card}"
        if not self._may_discard(move.card):
            return (
                f"{card} was just taken from the discard pile and may not be discarded "
                "this turn (rule option discard_drawn_upcard)"
            )
        return f"{who} cannot go out discarding {card}: the other cards do not all meld"

    def apply(self, move: Move | str) -> Outcome:
        """Play ``move`` (a :class:`Move` or its words, ``"discard 7H"``) for the seat to move
        and say what happened (:class:`Outcome`).

        The move is checked completely before anything changes: a malformed or illegal move
        raises :class:`IllegalMoveError` naming it and leaves the game as it was.
        """
        move = self._validated(move)
        self.moves.append(move)
        self._legal_cache = None
        r = self._round
        seat = self.current
        kind = move.kind
        if kind == MoveKind.DRAW_STOCK:
            rebuilt = not r.stock
            if rebuilt:
                self._rebuild_stock()
            card = r.stock.pop()
            r.hands[seat][card] += 1
            r.drawn_upcard = -1
        elif kind == MoveKind.TAKE_DISCARD:
            rebuilt = False
            card = r.discard_pile.pop()
            r.hands[seat][card] += 1
            r.taken[seat][card] += 1
            r.drawn_upcard = card
        else:
            return self._discard(seat, move)
        self.phase = Phase.DISCARD
        return Outcome(
            move=move,
            seat=seat,
            card=card,
            known=r.taken[seat][card],
            stock_size=len(r.stock),
            rebuilt=rebuilt,
            went_out=False,
            false_out=False,
            laid=False,
            next_seat=seat,
            turns=r.turns,
            round_result=None,
            game_over=False,
        )

    def _rebuild_stock(self) -> None:
        # Decided here (RULES.md): the discard pile except its top card is shuffled into a new
        # stock when the stock is empty at a draw.
        r = self._round
        top = r.discard_pile.pop()
        order = r.rng.permutation(len(r.discard_pile))
        r.stock = [r.discard_pile[i] for i in order]
        r.discard_pile = [top]

    def _discard(self, seat: int, move: Move) -> Outcome:
        r, rules = self._round, self.rules
        card = move.card
        going_out = move.kind == MoveKind.GO_OUT
        valid_out = False
        if going_out:
            valid_out = rules.false_out_penalty is None or card in self.go_out_discards()
        hand = r.hands[seat]
        hand[card] -= 1
        r.discard_pile.append(card)
        self._forget(seat, card)
        r.drawn_upcard = -1
        r.turns += 1
        if going_out and not valid_out:
            # RULES.md, false_out_penalty: the discard stands, the player is not out.
            r.false_outs[seat] += rules.false_out_penalty
        final_turn = r.went_out is not None
        went_out = going_out and valid_out and not final_turn
        laid = False
        known = r.taken[seat][card]
        if went_out:
            r.went_out = seat
            arrangement = self._lay_down(seat)
            r.scored[seat] = (0, arrangement)
            laid = True
        elif final_turn and rules.redemption:
            size = sum(r.hands[seat])
            r.scored[seat] = self._redeem(seat)
            laid = sum(r.hands[seat]) != size
        turns = r.turns
        nxt = (seat + 1) % self.num_players
        result = None
        if r.went_out is not None:
            if nxt == r.went_out:  # everyone else has had a final turn
                result = self._end_round("out")
        elif r.turns >= rules.turn_cap:
            # Decided here (RULES.md): the turn cap ends the round; nobody went out.
            result = self._end_round("turn_cap")
        if result is None:
            self.current = nxt
            self.phase = Phase.DRAW
            result = self._end_round_if_nothing_to_draw()
        return Outcome(
            move=move,
            seat=seat,
            card=card,
            known=known,
            stock_size=len(r.stock),
            rebuilt=False,
            went_out=went_out,
            false_out=going_out and not valid_out,
            laid=laid,
            next_seat=nxt if result is None else seat,
            turns=turns,
            round_result=result,
            game_over=self.phase == Phase.GAME_OVER,
        )

    def _end_round_if_nothing_to_draw(self) -> RoundResult | None:
        # Decided here (RULES.md): when neither the stock nor the discard pile can be drawn from,
        # the round ends and is scored. After a discard the pile always has a card, so only an
        # arranged deal gets here; the check stays at the start of every turn all the same.
        r = self._round
        if not r.stock and not r.discard_pile:
            return self._end_round("no_cards")
        return None

    def _forget(self, seat: int, card: int) -> None:
        # A card of this kind left the seat's hand, in public (a discard, a lay-down): one known
        # copy fewer. With several decks the copy that left may have been held from before and
        # the taken one still be in the hand; but the table cannot tell them apart, so public
        # knowledge drops by one whichever it was (reading the hand would leak it).
        taken = self._round.taken[seat]
        if taken[card]:
            taken[card] -= 1

    def _lay_down(self, seat: int) -> Arrangement:
        r = self._round
        hand = r.hands[seat]
        arrangement = solve(_cards_of(hand), self.wild_rank, self.rules)
        if arrangement.points:
            raise AssertionError("a valid go-out left deadwood")  # guarded by go_out_discards
        self._move_to_table(seat, arrangement.melds, arrangement.shapes)
        return arrangement

    def _move_to_table(self, seat, melds, shapes) -> None:
        r = self._round
        hand = r.hands[seat]
        for cards, shape in zip(melds, shapes):
            for c in cards:
                hand[c] -= 1
                self._forget(seat, c)
            r.table.append(TableMeld(seat=seat, cards=tuple(cards), shape=shape))

    def _joker_penalty(self, seat: int) -> int | None:
        # RULES.md, joker_layoff: a leftover joker may be dropped on another player's meld.
        r = self._round
        if self.rules.joker_layoff and any(m.seat != seat for m in r.table):
            return 0
        return None

    def _redeem(self, seat: int) -> tuple[int, Arrangement]:
        """Redemption: lay down own melds and lay off loose cards onto the table."""
        r = self._round
        hand = r.hands[seat]
        result = lay_off(
            _cards_of(hand),
            [m.shape for m in r.table],
            self.wild_rank,
            self.rules,
            joker_penalty=self._joker_penalty(seat),
        )
        for index, cards in result.layoffs:
            old = r.table[index]
            for c in cards:
                hand[c] -= 1
                self._forget(seat, c)
            r.table[index] = TableMeld(
                seat=old.seat, cards=old.cards + tuple(cards), shape=result.table[index]
            )
        arrangement = result.arrangement
        self._move_to_table(seat, arrangement.melds, arrangement.shapes)
        return arrangement.points, arrangement

    def _end_round(self, ended_by: str) -> RoundResult:
        r, rules, n = self._round, self.rules, self.num_players
        multiplier = rules.score_multiplier(self.wild_rank)
        deadwood, arrangements = [], []
        for seat in range(n):
            if seat in r.scored:
                points, arrangement = r.scored[seat]
            else:
                arrangement = solve(
                    _cards_of(r.hands[seat]),
                    self.wild_rank,
                    rules,
                    joker_penalty=self._joker_penalty(seat),
                )
                points = arrangement.points
            deadwood.append(points)
            arrangements.append(arrangement)
        # Decided here: doubling applies to the whole round score, false go-outs included.
        penalties = tuple(multiplier * (d + f) for d, f in zip(deadwood, r.false_outs))
        for seat in range(n):
            self.scores[seat] += penalties[seat]
        result = RoundResult(
            round_index=self.round_index,
            cards_dealt=self.cards_dealt,
            wild_rank=self.wild_rank,
            went_out=r.went_out,
            penalties=penalties,
            deadwood_points=tuple(deadwood),
            false_outs=tuple(r.false_outs),
            arrangements=tuple(arrangements),
            ended_by=ended_by,
        )
        self.round_results.append(result)
        self._ended = (r, self.round_index, self.current)  # before the next deal replaces r
        if self.round_index + 1 < rules.num_rounds:
            self.round_index += 1
            self._deal()
        else:
            self.phase = Phase.GAME_OVER
            self._legal_cache = None
        return result

    def ended_round(self) -> Game:
        """The game as it stood right after the last move of the round that ended last.

        The engine scores a round and deals the next one within the move that ends it; this
        read-only snapshot keeps what that move left on the table: the hands (the cards laid
        down by a seat that went out are on the table), the discard pile with the last discard on
        top, the known cards, the turns, with the scores that include the round. Nobody is to
        move in it: its phase is :attr:`Phase.ROUND_OVER` (:attr:`Phase.GAME_OVER` after the
        last round) and it has no legal move. For showing how an episode ended; playing on it
        raises :class:`IllegalMoveError`.
        """
        if self._ended is None:
            raise ValueError("no round has ended yet")
        ended, round_index, current = self._ended
        # A shallow copy (the ended round's state is never changed again), its fields set as
        # __deepcopy__ sets a copy's: a new object's, before anyone holds it.
        snapshot = object.__new__(type(self))
        snapshot.__dict__.update(
            self.__dict__,
            _round=ended,
            round_index=round_index,
            current=current,
            phase=Phase.GAME_OVER if self.is_over else Phase.ROUND_OVER,
            _legal_cache=[],
            scores=list(self.scores),
            moves=list(self.moves),
            round_results=list(self.round_results),
        )
        return snapshot

    # ------------------------------------------------------------------ views
    @property
    def winners(self) -> list[int]:
        """Seats with the lowest total (ties share the win); empty until the game is over."""
        if not self.is_over:
            return []
        best = min(self.scores)
        return [s for s, score in enumerate(self.scores) if score == best]

    def hand(self, seat: int) -> list[Card]:
        return _cards_of(self._round.hands[seat])

    def hand_counts(self, seat: int) -> tuple[int, ...]:
        return tuple(self._round.hands[seat])

    @property
    def discard_pile(self) -> list[Card]:
        """The discard pile, bottom first; the last card is the top discard."""
        return [ALL_CARDS[c] for c in self._round.discard_pile]

    @property
    def top_discard(self) -> Card | None:
        pile = self._round.discard_pile
        return ALL_CARDS[pile[-1]] if pile else None

    @property
    def stock_size(self) -> int:
        return len(self._round.stock)

    @property
    def went_out(self) -> int | None:
        return self._round.went_out

    @property
    def turns(self) -> int:
        """Turns completed in this round (all seats)."""
        return self._round.turns

    @property
    def table(self) -> list[TableMeld]:
        return list(self._round.table)

    @property
    def false_outs(self) -> list[int]:
        """Per seat, the false go-out penalties of this round so far (public; not doubled)."""
        return list(self._round.false_outs)

    @property
    def drawn_upcard(self) -> Card | None:
        c = self._round.drawn_upcard
        return ALL_CARDS[c] if c >= 0 else None

    def known_cards(self, seat: int) -> tuple[int, ...]:
        """What everyone knows ``seat`` holds, as 53 counts: the cards it took from the discard
        pile this round, less one for each card of that kind it discarded or laid down since
        (never below 0). Derived from public events only: with several decks a seat may discard
        an identical copy it held from before, so this is a lower bound of what it holds, the
        same whatever the hidden cards are."""
        return tuple(self._round.taken[seat])

    def taken_from_discard(self, seat: int) -> list[Card]:
        """:meth:`known_cards` as cards: what ``seat`` is known to hold (public)."""
        return _cards_of(self._round.taken[seat])

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may see: its own hand and the public information, nothing hidden."""
        r, n = self._round, self.num_players
        return PlayerView(
            seat=seat,
            num_players=n,
            round_index=self.round_index,
            cards_dealt=self.cards_dealt,
            wild_rank=self.wild_rank,
            dealer=self.dealer,
            current=self.current,
            phase=self.phase,
            hand=tuple(r.hands[seat]),
            discard_pile=tuple(r.discard_pile),
            drawn_upcard=r.drawn_upcard if seat == self.current else -1,
            hand_sizes=tuple(sum(h) for h in r.hands),
            taken=tuple(tuple(t) for t in r.taken),
            went_out=r.went_out,
            table=tuple(r.table),
            scores=tuple(self.scores),
            stock_size=len(r.stock),
            turns=r.turns,
            legal_moves=tuple(self.legal_moves()) if seat == self.current else (),
        )

    def full_state(self) -> dict[str, Any]:
        """The whole state, hidden cards included (for debugging and centralised critics)."""
        r = self._round
        return {
            "round_index": self.round_index,
            "wild_rank": self.wild_rank,
            "dealer": self.dealer,
            "current": self.current,
            "phase": self.phase.name,
            "hands": [format_cards(_cards_of(h)) for h in r.hands],
            "stock": format_cards(r.stock),
            "discard_pile": format_cards(r.discard_pile),
            "went_out": r.went_out,
            "scores": list(self.scores),
            "turns": r.turns,
        }

    def all_hands(self) -> list[tuple[int, ...]]:
        """Every seat's hand as 53 counts (hidden information)."""
        return [tuple(h) for h in self._round.hands]

    def stock_cards(self) -> list[int]:
        """The stock, bottom first (hidden information)."""
        return list(self._round.stock)

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
    def from_record(cls, record: dict[str, Any] | str | bytes) -> Game:
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


def _parse(cards: str | list[int]) -> list[int]:
    return [int(c) for c in parse_cards(cards)]


def _cards_of(counts) -> list[Card]:
    return [ALL_CARDS[k] for k in compress(range(NUM_KINDS), counts) for _ in range(counts[k])]


__all__ = [
    "DISCARD",
    "DRAW_STOCK",
    "GO_OUT",
    "TAKE_DISCARD",
    "Game",
    "IllegalMoveError",
    "Move",
    "MoveKind",
    "Outcome",
    "Phase",
    "PlayerView",
    "RecordError",
    "RoundResult",
    "TableMeld",
    "JOKER",
    "check_seed",
]
