"""Decision rules shared by agents: pure functions of one seat's view (:class:`Seen`) and mask.

The *expected-penalty* rule is :class:`~tt_env.agents.CountingAgent`'s play, kept here so that
other agents (the search agent's first guess and its candidates) use the very same rule without
importing an agent:

* **draw**: take the top discard when the penalty after taking it (and the best discard
  allowed) is below both the penalty now and the expected penalty after a stock draw;
* **discard**: go out when possible; else rank the allowed discards by the penalty they leave
  plus a *feed cost* (a wild card, or a card the next player is known to collect: same rank, or
  same suit within two ranks), and among the ``candidates`` best within ``margin`` points choose
  the lowest ``penalty - lookahead * (penalty - expected after the next draw) + feed``. On the
  final turn only the penalty and the feed cost count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tt_env.encoding.actions import (
    DISCARD_ACTION_BASE,
    DRAW_STOCK_ACTION,
    GO_OUT_ACTION_BASE,
    TAKE_DISCARD_ACTION,
)
from tt_env.game.cards import JOKER, NUM_KINDS, NUM_RANKS
from tt_env.valuation.values import Seen, Valuation, deck_counts

try:  # built at install from rule.h; without a C compiler the Python rule plays
    from tt_env.valuation import _crule
except ImportError:
    _crule = None

__all__ = ["CompiledExpectedPenalty", "ExpectedPenalty", "feed_cost"]


def feed_cost(kind: int, seen: Seen, feed: float, wild_feed: float) -> float:
    """Points charged for handing ``kind`` to the next player: ``wild_feed`` for a wild card,
    ``feed`` for a card of a rank the next player is known to collect, or of its suit within
    two ranks of one, else 0."""
    if kind == JOKER or kind % NUM_RANKS + 1 == seen.wild_rank:
        return wild_feed
    collected = seen.next_known
    if not collected.any():
        return 0.0
    suit, r = divmod(kind, NUM_RANKS)
    for s in range(4):
        if collected[s * NUM_RANKS + r]:
            return feed
    for d in (-2, -1, 1, 2):
        q = r + d
        if 0 <= q < NUM_RANKS and collected[suit * NUM_RANKS + q]:
            return feed
    return 0.0


@dataclass
class ExpectedPenalty:
    """The expected-penalty rule (see the module docstring) with its parameters."""

    lookahead: float = 1.0
    feed_cost: float = 2.0
    wild_feed_cost: float = 6.0
    candidates: int = 4
    margin: int = 12

    def draw(self, v: Valuation, seen: Seen, mask: np.ndarray) -> tuple[int, float, float]:
        """(the draw action, the penalty after taking, the expected one after a stock draw);
        the values are NaN when the choice needed no valuation."""
        if not mask[DRAW_STOCK_ACTION]:
            return TAKE_DISCARD_ACTION, np.nan, np.nan
        if not mask[TAKE_DISCARD_ACTION] or seen.top_discard < 0:
            return DRAW_STOCK_ACTION, np.nan, np.nan
        take = v.take_value(seen.hand, seen.top_discard, seen.wild_rank)
        if take >= v.hand_value(seen.hand, seen.wild_rank):
            return DRAW_STOCK_ACTION, float(take), np.nan  # the discard does not help at all
        stock = v.expected_after_draw(seen.hand, seen.unseen, seen.wild_rank)
        return (TAKE_DISCARD_ACTION if take < stock else DRAW_STOCK_ACTION), float(take), stock

    def discard(
        self, v: Valuation, seen: Seen, mask: np.ndarray
    ) -> tuple[int, list[tuple[int, float]]]:
        """(the discard or go-out action, the shortlist as (action, value) pairs, best first).
        The shortlist is empty when the choice needed no look-ahead (going out, the final
        turn, no look-ahead)."""
        wild = seen.wild_rank
        _, penalties, _ = v.discard_choices(seen)
        table = v.penalties(wild)
        outs = [k for k in range(NUM_KINDS) if mask[GO_OUT_ACTION_BASE + k] and penalties[k] == 0]
        if outs:
            return GO_OUT_ACTION_BASE + max(outs, key=lambda k: (table[k], k)), []
        choices = [k for k in range(NUM_KINDS) if mask[DISCARD_ACTION_BASE + k]]
        feed = {k: feed_cost(k, seen, self.feed_cost, self.wild_feed_cost) for k in choices}
        ranked = sorted(choices, key=lambda k: (penalties[k] + feed[k], -table[k], -k))
        if seen.final_turn or self.lookahead == 0:
            return DISCARD_ACTION_BASE + ranked[0], []
        floor = penalties[ranked[0]] + feed[ranked[0]]
        shortlist = [
            k for k in ranked[: self.candidates] if penalties[k] + feed[k] <= floor + self.margin
        ]
        scored = []
        for k in shortlist:
            counts = seen.hand.copy()
            counts[k] -= 1
            expected = v.expected_after_draw(counts, seen.unseen, wild)
            value = penalties[k] - self.lookahead * (penalties[k] - expected) + feed[k]
            scored.append(((value, penalties[k], -table[k], -k), k, value))
        scored.sort()
        return DISCARD_ACTION_BASE + scored[0][1], [
            (DISCARD_ACTION_BASE + k, value) for _, k, value in scored
        ]


class CompiledExpectedPenalty:
    """:class:`ExpectedPenalty` for one seat count and rules, through its compiled twin
    (``tt_env.valuation._crule``, built at install from ``rule.h``): one call per decision, the
    same decisions. ``act`` returns None when the compiled code does not serve the rules (the
    kernels are not built) or a hand it cannot certify: then ask the Python rule."""

    def __init__(self, rule: ExpectedPenalty, rules) -> None:
        from tt_env.encoding.observation import piece_starts
        from tt_env.game.melds import kernel_of, solver_config

        self.rule = rule
        kernels = [kernel_of(solver_config(rules, w, None)) for w in range(1, NUM_RANKS + 1)]
        self.ok = _crule is not None and all(k is not None for k in kernels)
        if not self.ok:
            return
        starts, size = piece_starts(rules.num_players, _crule.PIECES)
        self._rule = _crule.Rule(
            [k.c for k in kernels],
            starts,
            size,
            num_players=rules.num_players,
            deck=deck_counts(rules).tolist(),
            discard_drawn_upcard=bool(rules.discard_drawn_upcard),
            lookahead=rule.lookahead,
            feed_cost=rule.feed_cost,
            wild_feed_cost=rule.wild_feed_cost,
            candidates=rule.candidates,
            margin=rule.margin,
        )

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int | None:
        """The rule's action, or None (see the class docstring). After a draw decision
        :meth:`draw_values` gives the penalties it compared, after a discard decision
        :meth:`shortlist` the candidates it weighed."""
        if not self.ok:
            return None
        action = self._rule.decide(
            np.ascontiguousarray(observation, np.float32), np.ascontiguousarray(mask, np.int8)
        )
        return None if action < 0 else action

    def draw_values(self) -> tuple[int, int]:
        """The last draw decision's (penalty after taking the top discard, penalty now); -1
        when the choice needed no valuation (one draw possible, or nothing to take)."""
        return self._rule.take, self._rule.now

    def shortlist(self) -> list[tuple[int, float]]:
        """The last discard decision's shortlist as (action, value) pairs, best first."""
        return [(DISCARD_ACTION_BASE + k, v) for k, v in self._rule.shortlist]
