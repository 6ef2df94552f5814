"""The reference engine: the rules of ``RULES.md`` in plain Python, a state machine.

:class:`tt_env.game.engine.Game` plays on the C engine; this :class:`Game` has the same API and
plays the same games move for move (the differential tests compare the two on every rule
option). It is the oracle the C engine is tested against, and the engine ``tt_env.game.Game``
plays on where the C engine is not built (an install without a C compiler). Nothing else uses
it.

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
from dataclasses import dataclass, field
from itertools import compress

import numpy as np

from tt_env.game._shared import ArrangedRound, GameAPI, scored_from_table
from tt_env.game.cards import ALL_CARDS, NUM_KINDS, Card, shuffled_deck
from tt_env.game.going_out import go_out_discards
from tt_env.game.melds import Arrangement, lay_off, solve
from tt_env.game.moves import (
    DISCARD,
    DRAW_STOCK,
    GO_OUT,
    TAKE_DISCARD,
    Move,
    MoveKind,
    Outcome,
    Phase,
    RoundResult,
    TableMeld,
)
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


class Game(GameAPI):
    """The reference engine's game: :class:`tt_env.game.engine.Game`'s API, in plain Python."""

    def __init__(self, rules: Rules | None = None, seed: int | None = None) -> None:
        self._start(rules, seed)
        n = self.num_players
        self.scores = [0] * n
        self.round_results: list[RoundResult] = []
        self.round_index = 0
        self.first_dealer = int(np.random.default_rng(self.seed).integers(n))
        self.phase = Phase.DRAW
        self.current = 0
        self._legal_cache: list[Move] | None = None
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

    def _set_round(self, arranged: ArrangedRound) -> None:
        """Replace the round in play by one set up (:meth:`arrange`, checked)."""
        a = arranged
        self.round_index = a.round_index
        self._round = _Round(
            hands=a.hands,
            stock=a.stock,
            discard_pile=a.discard_pile,
            taken=a.taken,
            table=a.table,
            went_out=a.went_out,
            false_outs=a.false_outs,
            turns=a.turns,
            rng=np.random.default_rng((self.seed, self.round_index, 1)),
        )
        self.scores = a.scores
        self.current = a.current
        for seat in a.laid:  # the seats that laid down: scored as the table shows them
            self._round.scored[seat] = scored_from_table(
                a.table,
                seat,
                a.hands[seat],
                self.wild_rank,
                rules=self.rules,
                joker_free=self._joker_penalty(seat) == 0,
            )
        self.phase = Phase.DRAW
        self._legal_cache = None
        self._end_round_if_nothing_to_draw()

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
        """As :meth:`tt_env.game.engine.Game.ended_round`."""
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

    # ------------------------------------------------------------------ views (as Game's)
    def hand_counts(self, seat: int) -> tuple[int, ...]:
        return tuple(self._round.hands[seat])

    @property
    def discard_pile(self) -> list[Card]:
        return [ALL_CARDS[c] for c in self._round.discard_pile]

    @property
    def stock_size(self) -> int:
        return len(self._round.stock)

    @property
    def went_out(self) -> int | None:
        return self._round.went_out

    @property
    def turns(self) -> int:
        return self._round.turns

    @property
    def table(self) -> list[TableMeld]:
        return list(self._round.table)

    @property
    def false_outs(self) -> list[int]:
        return list(self._round.false_outs)

    @property
    def drawn_upcard(self) -> Card | None:
        c = self._round.drawn_upcard
        return ALL_CARDS[c] if c >= 0 else None

    def known_cards(self, seat: int) -> tuple[int, ...]:
        return tuple(self._round.taken[seat])

    def all_hands(self) -> list[tuple[int, ...]]:
        return [tuple(h) for h in self._round.hands]

    def stock_cards(self) -> list[int]:
        return list(self._round.stock)


def _cards_of(counts) -> list[Card]:
    return [ALL_CARDS[k] for k in compress(range(NUM_KINDS), counts) for _ in range(counts[k])]


__all__ = ["Game"]
