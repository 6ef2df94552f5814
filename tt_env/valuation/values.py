"""Valuation: what a decision is worth, from one seat's observation alone.

The one layer below every agent (greedy, counting, the learned agents' features, tt-play's hints,
the search agent): it decodes an observation once (:class:`Seen`) and values the hand with the
exact solver (:mod:`tt_env.game.melds`), everything one decision needs in one batched call.

Words (of ``RULES.md``). The *unseen* cards are the copies in play less the own hand, the top
discard, the cards lower in the discard pile, the cards laid on the table this round and the
cards the others are known to hold (taken from the discard pile): they are in the stock or in
hidden hands, and a stock draw is taken to be any of them with equal chance. The *penalty* of a
hand is its fewest penalty points (:func:`~tt_env.game.melds.min_penalty`).

=========================  ==================================================================
value                      meaning
=========================  ==================================================================
``now``                    the penalty of the hand as it is
``discard[k]``             discard phase: the penalty after discarding one ``k`` (-1: not held)
``allowed``                discard phase: the kinds that may be discarded (the card just taken
                           from the discard pile may not, unless ``discard_drawn_upcard`` or
                           another copy is held)
``after_draw[x]``          draw phase: the penalty after drawing ``x`` and making the best
                           discard (for every unseen kind and the top discard)
``stock``                  draw phase: the expected ``after_draw`` of a stock draw
``take``                   draw phase: the penalty after taking the top discard and making the
                           best discard allowed (-1 when the pile is empty)
``expected_after_draw``    a hand's expected penalty after one more stock draw and its best
                           discard (the look-ahead of a discard)
=========================  ==================================================================

All exact. The compiled kernel answers in one call per hand (see
``tt_env.game.melds.after_draw``), with a cap on wilds per meld too; without the kernels the
Python solver does, more slowly.

What a seat knows (:meth:`Valuation.see`: the unseen cards, what each seat is known to hold, the
card that may not be discarded) is decoded by the compiled code that the counting rule, the
learned agents' features and the batch's built-in agents share (``knowledge.h``, through
``tt_env.valuation._crule.Observer``); :meth:`Valuation.see_reference` is the same in numpy,
which answers where the kernels are not built (tests hold the two equal).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from tt_env.encoding.observation import observation_layout, piece_starts
from tt_env.game.cards import JOKER, NUM_KINDS, NUM_RANKS
from tt_env.game.melds import after_draw, cached_min_penalty, discard_array, solver_config
from tt_env.game.rules import Rules

try:  # built at install from knowledge.h; without a C compiler numpy decodes
    from tt_env.valuation import _crule
except ImportError:
    _crule = None

__all__ = ["Seen", "Valuation", "deck_counts", "see", "valuation_for"]


@dataclass(frozen=True)
class Seen:
    """One seat's view of the table, decoded from its observation vector."""

    hand: np.ndarray  # (53,) int64 counts
    top_discard: int  # card kind, -1 when the pile is empty
    drawn_upcard: int  # the card just taken from the discard pile, -1 if none
    wild_rank: int  # 1..13
    draw_phase: bool
    discard_phase: bool
    final_turn: bool  # someone went out: this is the last turn
    discard_below: np.ndarray  # (53,) counts, public
    on_table: np.ndarray  # (53,) counts laid down in melds this round
    known: np.ndarray  # (n, 53): cards each seat took from the pile and holds; row 0 = self
    stock_size: int
    turns_left: float  # fraction of the turn cap left
    unseen: np.ndarray  # (53,) int64 counts of the cards this seat has not seen

    @property
    def next_known(self) -> np.ndarray:
        """Cards the next player (the one who may take our discard) is known to hold."""
        return self.known[1]

    @property
    def banned(self) -> int:
        """The kind that may not be discarded now (the card just taken), or -1."""
        return self.drawn_upcard


def deck_counts(rules: Rules) -> np.ndarray:
    """Copies of each card kind in play under ``rules``."""
    counts = np.full(NUM_KINDS, rules.decks, dtype=np.int64)
    counts[JOKER] = rules.decks * rules.jokers_per_deck
    return counts


class _Slices:
    """Where the pieces a valuation reads sit in the observation vector (any player count)."""

    def __init__(self, num_players: int) -> None:
        s = observation_layout(num_players).slices
        self.hand = s["hand"]
        self.drawn = s["drawn_upcard"]
        self.top = s["top_discard"]
        self.below = s["discard_below"]
        self.table = s["table"]
        self.wild = s["wild_rank"]
        self.phase = s["phase"]
        self.final = s["final_turn"].start
        self.stock = s["stock_size"].start
        self.turns = s["turns_left"].start
        self.known = s["known"]
        self.n = num_players
        self.size = observation_layout(num_players).size


def see(observation: np.ndarray, rules: Rules) -> Seen:
    """Decode ``observation`` (of a seat under ``rules``) into a :class:`Seen`."""
    return valuation_for(rules).see(observation)


@lru_cache(maxsize=32)
def valuation_for(rules: Rules) -> Valuation:
    """A shared :class:`Valuation` for ``rules`` (it keeps no state between calls)."""
    return Valuation(rules)


class Valuation:
    """The values of :mod:`tt_env.valuation` for games under ``rules``."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.deck = deck_counts(rules)
        self._s = _Slices(rules.num_players)
        self._total = rules.decks * rules.cards_per_deck
        self._penalties = {
            w: np.asarray(rules.penalty_table(w), np.int64) for w in range(1, NUM_RANKS + 1)
        }
        self._observer = False  # the compiled decoder, built on first use

    def __getstate__(self) -> dict:
        # the compiled observer does not pickle: rebuilt on first use
        state = self.__dict__.copy()
        state["_observer"] = False
        return state

    # ------------------------------------------------------------------ the observation
    def see(self, observation: np.ndarray) -> Seen:
        """Decode an observation vector of this valuation's player count (in the compiled
        code where it is built and the vector is ``float32``; else :meth:`see_reference`)."""
        obs = self._checked(observation)
        observer = self._observer
        if observer is False:
            observer = self._observer = self._build_observer()
        if observer is not None and obs.dtype == np.float32:
            out = np.empty(observer.size, np.int64)
            if observer.see(np.ascontiguousarray(obs), out):
                return self._seen_from(obs, out)
        return self.see_reference(obs)

    def _build_observer(self):
        """The compiled decoder (``tt_env.valuation._crule.Observer``), or None."""
        if _crule is None:
            return None
        starts, size = piece_starts(self._s.n, _crule.PIECES)
        return _crule.Observer(starts, size, num_players=self._s.n, deck=self.deck.tolist())

    def _checked(self, observation: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation)
        s = self._s
        if obs.shape != (s.size,):
            raise ValueError(
                f"expected an observation of {s.size} values for {s.n} players, "
                f"got shape {obs.shape}"
            )
        return obs

    def _seen_from(self, obs: np.ndarray, out: np.ndarray) -> Seen:
        """A :class:`Seen` from the compiled decoder's ``out`` (see ``_crule.Observer``)."""
        s, k = self._s, NUM_KINDS
        known_end = 4 * k + s.n * k
        top, drawn, wild, draw, discard, final = out[known_end:].tolist()
        return Seen(
            hand=out[:k],
            top_discard=top,
            drawn_upcard=drawn,
            wild_rank=wild,
            draw_phase=bool(draw),
            discard_phase=bool(discard),
            final_turn=bool(final),
            discard_below=out[k : 2 * k],
            on_table=out[2 * k : 3 * k],
            known=out[4 * k : known_end].reshape(s.n, k),
            stock_size=int(round(float(obs[s.stock]) * self._total)),
            turns_left=float(obs[s.turns]),
            unseen=out[3 * k : 4 * k],
        )

    def see_reference(self, observation: np.ndarray) -> Seen:
        """:meth:`see` in numpy: the decoding where the compiled one is not built (tests hold
        the two equal)."""
        obs = self._checked(observation)
        s = self._s
        hand = np.rint(obs[s.hand]).astype(np.int64)
        below = np.rint(obs[s.below]).astype(np.int64)
        table = np.rint(obs[s.table]).astype(np.int64)
        known = np.rint(obs[s.known]).astype(np.int64).reshape(s.n, NUM_KINDS)
        top = np.flatnonzero(obs[s.top])
        top = int(top[0]) if top.size else -1
        drawn = np.flatnonzero(obs[s.drawn])
        unseen = self.deck - hand - below - table - known[1:].sum(axis=0)
        if top >= 0:
            unseen[top] -= 1
        np.maximum(unseen, 0, out=unseen)
        phase = obs[s.phase]
        return Seen(
            hand=hand,
            top_discard=top,
            drawn_upcard=int(drawn[0]) if drawn.size else -1,
            wild_rank=int(np.argmax(obs[s.wild])) + 1,
            draw_phase=bool(phase[0] > 0.5),
            discard_phase=bool(phase[1] > 0.5),
            final_turn=bool(obs[s.final] > 0.5),
            discard_below=below,
            on_table=table,
            known=known,
            stock_size=int(round(float(obs[s.stock]) * self._total)),
            turns_left=float(obs[s.turns]),
            unseen=unseen,
        )

    def penalties(self, wild_rank: int) -> np.ndarray:
        """The penalty of each card kind left over in a round with this wild rank."""
        return self._penalties[wild_rank]

    # ------------------------------------------------------------------ hands
    def _cfg(self, wild_rank: int):
        return solver_config(self.rules, wild_rank, None)

    def hand_value(self, hand: np.ndarray, wild_rank: int) -> int:
        """The penalty of ``hand`` (53 counts)."""
        return cached_min_penalty(_as_bytes(hand), self._cfg(wild_rank))

    def discard_values(self, hand: np.ndarray, wild_rank: int) -> np.ndarray:
        """The penalty after discarding one of each kind (53 values; -1 for kinds not held)."""
        dv, _ = discard_array(self._cfg(wild_rank), _as_bytes(hand))
        out = dv.copy()
        out[out < 0] = -1
        return out

    def after_draw(self, base: np.ndarray, wild_rank: int, kinds: np.ndarray) -> np.ndarray:
        """The penalty of ``base`` after drawing each kind with ``kinds[x] > 0`` and making the
        best discard (53 values; 0 elsewhere)."""
        weights = np.asarray(kinds, np.int64)
        out, _, _ = after_draw(self._cfg(wild_rank), _as_bytes(base), weights)
        return np.where(weights > 0, out, 0)

    def expected_after_draw(self, base: np.ndarray, unseen: np.ndarray, wild_rank: int) -> float:
        """The expected penalty of ``base`` after one stock draw (any unseen card, equally
        likely) and the best discard; ``base``'s own penalty when nothing is unseen."""
        weights = np.asarray(unseen, np.int64)
        total = int(weights.sum())
        out, _, value = after_draw(self._cfg(wild_rank), _as_bytes(base), weights)
        if total <= 0:
            return float(value)
        return float((out * weights).sum()) / total

    def take_value(self, hand: np.ndarray, top: int, wild_rank: int) -> int:
        """The penalty after taking ``top`` from the discard pile and making the best discard
        the rules allow (the card just taken may not go straight back unless
        ``discard_drawn_upcard``, or another copy of it was held)."""
        more = np.array(hand, np.int64)
        more[top] += 1
        dv, _ = discard_array(self._cfg(wild_rank), _as_bytes(more))
        allowed = dv >= 0
        if not self.rules.discard_drawn_upcard and hand[top] == 0:
            allowed[top] = False
        # only the card taken can go (a hand of nothing else): it goes back, as the rule's
        # kernel has it
        return int(dv[allowed].min()) if allowed.any() else int(dv[dv >= -1].min())

    # ------------------------------------------------------------------ one decision
    def draw_values(self, seen: Seen) -> tuple[int, np.ndarray, float, int]:
        """Draw phase: ``(now, after_draw, stock, take)`` (see the module docstring):
        ``after_draw`` over the unseen kinds (0 elsewhere), ``take`` -1 when the pile is
        empty. One solver call for all draws, one for the take."""
        weights = seen.unseen
        out, _, now = after_draw(self._cfg(seen.wild_rank), _as_bytes(seen.hand), weights)
        after = np.where(weights > 0, out, 0)
        total = int(weights.sum())
        stock = float((after * weights).sum()) / total if total > 0 else float(now)
        take = -1
        if seen.top_discard >= 0:
            take = self.take_value(seen.hand, seen.top_discard, seen.wild_rank)
        return int(now), after, stock, take

    def discard_choices(
        self, seen: Seen, action_mask: np.ndarray | None = None
    ) -> tuple[int, np.ndarray, np.ndarray]:
        """Discard phase: ``(now, discard, allowed)``: the penalty now, after each discard
        (-1: not held) and the kinds that may be discarded (a boolean mask of 53; from the
        action mask when given, else from the rules)."""
        dv, now = discard_array(self._cfg(seen.wild_rank), _as_bytes(seen.hand))
        discard = dv.copy()
        discard[discard < 0] = -1
        if action_mask is not None:
            from tt_env.encoding.actions import DISCARD_ACTION_BASE

            allowed = (
                np.asarray(action_mask[DISCARD_ACTION_BASE : DISCARD_ACTION_BASE + NUM_KINDS]) > 0
            )
        else:
            allowed = discard >= 0
            k = seen.drawn_upcard
            if k >= 0 and not self.rules.discard_drawn_upcard and seen.hand[k] < 2:
                allowed = allowed.copy()
                allowed[k] = False
        return int(now), discard, allowed


def _as_bytes(counts) -> bytes:
    """53 counts as bytes (the solver's hand key)."""
    if isinstance(counts, np.ndarray):
        return counts.astype(np.uint8).tobytes()
    return bytes(counts)
