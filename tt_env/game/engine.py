"""The round and game engine: a state machine that plays exactly what ``RULES.md`` says.

A :class:`Game` is created from :class:`~tt_env.game.rules.Rules` and a seed; all randomness (the
first dealer, every shuffle) comes from random streams seeded with it, so a game *is* its seed
plus its moves (:meth:`Game.record`, :meth:`Game.from_record`).

A turn has two phases of the same seat: :attr:`Phase.DRAW` (draw from the stock or take the top
discard) then :attr:`Phase.DISCARD` (discard, or go out and discard). When a round ends it is
scored and the next one is dealt at once; :attr:`Game.round_results` keeps every round's result.

The state lives in the C engine (``game/core/game.h``, the extension ``tt_env.game._ccore``):
:class:`Game` is its Python face, and every move, mask and observation is the C engine's. Where
the C engine is not built (an install without a C compiler), ``Game`` is the reference engine,
:class:`tt_env.game.reference.Game`: the same API and the same games, in plain Python, more
slowly (``tt_env.game.melds.kernel_status()`` says which one plays).

The engine knows nothing of reinforcement learning: :mod:`tt_env.three_thirteen_v0` translates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tt_env.game import reference
from tt_env.game._shared import ArrangedRound, GameAPI, scored_from_table
from tt_env.game.cards import ALL_CARDS, JOKER, NUM_KINDS, Card, from_counts
from tt_env.game.going_out import go_out_discards
from tt_env.game.melds import Arrangement, solve
from tt_env.game.moves import (
    ACTION_MOVES,
    DISCARD,
    DRAW_STOCK,
    GO_OUT,
    TAKE_DISCARD,
    IllegalMoveError,
    Move,
    MoveKind,
    Outcome,
    Phase,
    PlayerView,
    RecordError,
    RoundResult,
    TableMeld,
    _as_move,
    action_of,
    check_seed,
)
from tt_env.game.native import SolverService, core_module, kernels, rules_tuple, shape_of
from tt_env.game.native import shape_tuple as _shape_tuple
from tt_env.game.rules import Rules

_PHASES = tuple(Phase)
_ENDED_BY = ("", "out", "turn_cap", "no_cards")
_CORE_PARTS: dict[Rules, tuple] = {}  # what a CoreGame of these rules is made of, made once


def _new_core(rules: Rules, seed: int):
    """A C engine game of ``rules`` dealt from ``seed``."""
    parts = _CORE_PARTS.get(rules)
    if parts is None:
        if len(_CORE_PARTS) > 64:  # rules are few in a process; never let them pile up
            _CORE_PARTS.clear()
        parts = _CORE_PARTS[rules] = (rules_tuple(rules), SolverService(rules), kernels(rules))
    spec, service, compiled = parts
    return core_module().CoreGame(spec, seed, service, compiled)


class Game(GameAPI):
    """A game of Three Thirteen under ``rules``, seeded for reproducibility.

    >>> game = Game(Rules(num_players=2), seed=7)
    >>> while not game.is_over:
    ...     game.apply(game.legal_moves()[0])
    >>> len(game.round_results)
    11
    """

    def __init__(self, rules: Rules | None = None, seed: int | None = None) -> None:
        self._start(rules, seed)
        self.round_results: list[RoundResult] = []
        self._core = _new_core(self.rules, self.seed)
        self._legal: list[Move] | None = None  # the legal moves, until the next move
        self._layout = None  # the observation layout the core writes (observation())
        self._laid: dict[int, tuple[int, Arrangement]] = {}  # arranged lay-downs' scores

    def __deepcopy__(self, memo: dict) -> Game:
        """An independent copy (``copy.deepcopy(game)``): playing on either never changes the
        other. The records both hold (moves, round results, the frozen ``Rules``) are
        shared, not copied."""
        new = object.__new__(type(self))
        memo[id(self)] = new
        legal = self._legal
        new.__dict__.update(
            self.__dict__,
            _core=self._core.copy(),
            moves=list(self.moves),
            round_results=list(self.round_results),
            _legal=None if legal is None else list(legal),
            _laid=dict(self._laid),
        )
        return new

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        core = state.pop("_core")
        state["_layout"] = None
        state["_legal"] = None  # a cache of the legal moves: computed again when asked
        state["_core_state"] = (core.state(), core.state(True))
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state = dict(state)
        now, ended = state.pop("_core_state")
        self.__dict__.update(state)
        core = _new_core(self.rules, self.seed)
        core.set_state(now)  # checked whole by the engine
        if ended is not None:
            core.set_state(ended, True)
        self._core = core

    # ------------------------------------------------------------------ the state
    @property
    def phase(self) -> Phase:
        return _PHASES[self._core.phase]

    @property
    def current(self) -> int:
        """The seat to move."""
        return self._core.current

    @property
    def round_index(self) -> int:
        """The round in play, from 0 (the last round once the game is over)."""
        return self._core.round_index

    @property
    def first_dealer(self) -> int:
        return self._core.first_dealer

    @property
    def dealer(self) -> int:
        return self._core.dealer

    @property
    def scores(self) -> list[int]:
        """The game's totals, per seat (a new list)."""
        return self._core.scores()

    @scores.setter
    def scores(self, values: list[int]) -> None:
        state = self._core.state()
        state["scores"] = list(values)
        self._core.set_state(state)  # checked by the engine

    def hand_counts(self, seat: int) -> tuple[int, ...]:
        return tuple(self._core.hand(seat))

    @property
    def discard_pile(self) -> list[Card]:
        """The discard pile, bottom first; the last card is the top discard."""
        return [ALL_CARDS[c] for c in self._core.discard_pile()]

    @property
    def top_discard(self) -> Card | None:
        top = self._core.top_discard
        return ALL_CARDS[top] if top >= 0 else None

    @property
    def stock_size(self) -> int:
        return self._core.stock_size

    @property
    def went_out(self) -> int | None:
        seat = self._core.went_out
        return None if seat < 0 else seat

    @property
    def turns(self) -> int:
        """Turns completed in this round (all seats)."""
        return self._core.turns

    @property
    def table(self) -> list[TableMeld]:
        return [
            TableMeld(seat=seat, cards=tuple(ALL_CARDS[c] for c in cards), shape=shape_of(shape))
            for seat, cards, shape, _ in self._core.table()
        ]

    @property
    def false_outs(self) -> list[int]:
        """Per seat, the false go-out penalties of this round so far (public; not doubled)."""
        return self._core.false_outs()

    @property
    def drawn_upcard(self) -> Card | None:
        card = self._core.drawn_upcard
        return ALL_CARDS[card] if card >= 0 else None

    def known_cards(self, seat: int) -> tuple[int, ...]:
        """What everyone knows ``seat`` holds, as 53 counts: the cards it took from the discard
        pile this round, less one for each card of that kind it discarded or laid down since
        (never below 0). Derived from public events only: with several decks a seat may discard
        an identical copy it held from before, so this is a lower bound of what it holds, the
        same whatever the hidden cards are."""
        return tuple(self._core.known(seat))

    def all_hands(self) -> list[tuple[int, ...]]:
        """Every seat's hand as 53 counts (hidden information)."""
        return [tuple(h) for h in self._core.hands()]

    def stock_cards(self) -> list[int]:
        """The stock, bottom first (hidden information)."""
        return list(self._core.stock())

    def observation(self, seat: int, layout) -> np.ndarray:
        """``seat``'s observation vector (``float32``, a new array) as ``layout`` lays it out
        (:class:`tt_env.encoding.observation.EngineLayout`), written by the C engine."""
        if layout is not self._layout:
            core = self._core
            core.set_layout(
                tuple(layout.starts[name] for name in core_module().PIECES), layout.size
            )
            self._layout = layout
        return np.frombuffer(self._core.observation(seat), np.float32)

    # ------------------------------------------------------------------ moves
    def legal_moves(self) -> list[Move]:
        """The legal moves of the seat to move (empty when the game is over)."""
        legal = self._legal
        if legal is None:
            legal = self._legal = list(map(ACTION_MOVES.__getitem__, self._core.legal_actions()))
        return legal

    def legal_mask(self) -> bytes:
        """The legal actions of the seat to move as 108 bytes of 0/1 (action ids:
        :data:`tt_env.game.moves.ACTION_MOVES`); all 0 when nobody is to move."""
        return self._core.legal_mask()

    def go_out_discards(self) -> set[int]:
        """In the discard phase: the card kinds whose discard leaves a hand with no deadwood."""
        return set(go_out_discards(self._core.hand(self.current), self.wild_rank, self.rules))

    def apply(self, move: Move | str) -> Outcome:
        """Play ``move`` (a :class:`Move` or its words, ``"discard 7H"``) for the seat to move
        and say what happened (:class:`Outcome`).

        The move is checked completely before anything changes: a malformed or illegal move
        raises :class:`IllegalMoveError` naming it and leaves the game as it was.
        """
        action = action_of(move)
        if action < 0:  # not one of the engine's own moves: its words, or an equal Move
            move = _as_move(move)
            action = action_of(move)
        core = self._core
        if not core.legal_mask()[action]:
            raise IllegalMoveError(self._why_illegal(move))
        seat, card, known, stock, rebuilt, out, false_out, laid, nxt, turns, ended, over = (
            core.apply(action)
        )
        self.moves.append(move)
        self._legal = None
        result = None
        if ended:
            result = self._round_result()
            self.round_results.append(result)
        return Outcome(
            move=move,
            seat=seat,
            card=card,
            known=known,
            stock_size=stock,
            rebuilt=rebuilt,
            went_out=out,
            false_out=false_out,
            laid=laid,
            next_seat=nxt,
            turns=turns,
            round_result=result,
            game_over=over,
        )

    def _round_result(self) -> RoundResult:
        """The round that just ended, scored, with the arrangement each seat was scored by."""
        index, went_out, penalties, deadwood, false_outs, ended_by, laid, hands, joker_free = (
            self._core.round_result()
        )
        round_ = self.rules.rounds[index]
        arrangements = []
        for seat, melds in enumerate(laid):
            arranged = self._laid.get(seat)
            if arranged is not None:  # laid down before Game.arrange: as arrange scored it
                arrangements.append(arranged[1])
            elif melds is None:  # scored by its hand
                arrangements.append(
                    solve(
                        from_counts(hands[seat]),
                        round_.wild_rank,
                        self.rules,
                        joker_penalty=0 if joker_free[seat] else None,
                    )
                )
            else:  # laid down: its melds as it laid them, and what it kept
                arrangements.append(
                    Arrangement(
                        # a meld's first cards are those it was laid down with (size: as_laid[6])
                        melds=[
                            [ALL_CARDS[c] for c in cards[: as_laid[6]]]
                            for *_, cards, _, as_laid in melds
                        ],
                        shapes=[shape_of(as_laid) for *_, as_laid in melds],
                        deadwood=from_counts(hands[seat]),
                        points=deadwood[seat],
                    )
                )
        self._laid = {}
        return RoundResult(
            round_index=index,
            cards_dealt=round_.cards,
            wild_rank=round_.wild_rank,
            went_out=None if went_out < 0 else went_out,
            penalties=tuple(penalties),
            deadwood_points=tuple(deadwood),
            false_outs=tuple(false_outs),
            arrangements=tuple(arrangements),
            ended_by=_ENDED_BY[ended_by],
        )

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
        if not self._core.rounds_played:
            raise ValueError("no round has ended yet")
        snapshot = object.__new__(type(self))
        snapshot.__dict__.update(
            self.__dict__,
            _core=self._core.ended_copy(),
            _legal=[],
            moves=list(self.moves),
            round_results=list(self.round_results),
            _laid={},
        )
        return snapshot

    # ------------------------------------------------------------------ set-up positions
    def _set_round(self, arranged: ArrangedRound) -> None:
        """Replace the round in play by one set up (:meth:`arrange`, checked) in the C engine,
        which checks the whole state again before it takes it."""
        a, n, core = arranged, self.num_players, self._core
        round_ = self.rules.rounds[a.round_index]
        rebuilds = np.random.default_rng((self.seed, a.round_index, 1)).bit_generator.state
        laid = {}
        for seat in a.laid:  # the seats that laid down: scored as the table shows them
            joker_free = self.rules.joker_layoff and any(m.seat != seat for m in a.table)
            laid[seat] = scored_from_table(
                a.table,
                seat,
                a.hands[seat],
                round_.wild_rank,
                rules=self.rules,
                joker_free=joker_free,
            )
        state = core.state()
        state.update(
            round_index=a.round_index,
            phase=int(Phase.DRAW),
            current=a.current,
            scores=a.scores,
            hands=[bytes(h) for h in a.hands],
            taken=[bytes(t) for t in a.taken],
            stock=bytes(a.stock),
            discard_pile=bytes(a.discard_pile),
            table=[
                (m.seat, bytes(map(int, m.cards)), *[_shape_tuple(m.shape)] * 2) for m in a.table
            ],
            drawn_upcard=-1,
            went_out=-1 if a.went_out is None else a.went_out,
            false_outs=a.false_outs,
            turns=a.turns,
            scored=[int(s in laid) for s in range(n)],
            scored_points=[laid[s][0] if s in laid else 0 for s in range(n)],
            scored_first=[0] * n,
            scored_count=[0] * n,
            rng=_rng_words(rebuilds),
        )
        core.set_state(state)
        self._laid = laid
        self._legal = None
        if core.settle():  # nothing to draw: the round ends at once (RULES.md)
            self.round_results.append(self._round_result())


def _rng_words(state: dict) -> tuple[int, ...]:
    """numpy's PCG64 state as the C engine holds it: (state high, low, inc high, low,
    has_uint32, uinteger)."""
    words = state["state"]
    mask = (1 << 64) - 1
    return (
        words["state"] >> 64,
        words["state"] & mask,
        words["inc"] >> 64,
        words["inc"] & mask,
        state["has_uint32"],
        state["uinteger"],
    )


if core_module() is None:  # the C engine is not built (no C compiler): the reference plays
    Game = reference.Game  # type: ignore[misc]  # noqa: F811


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
    "NUM_KINDS",
    "check_seed",
]
