"""CountingAgent: counts the unseen cards and plays for the expected penalty.

What it does, from the observation alone:

1. **Counts the unseen cards.** Every copy in play (decks and jokers of the rules) minus its own
   hand, the whole discard pile and the cards the others are known to hold (taken from the
   discard pile). What is left is in the stock or in hidden hands; a stock draw is taken to be
   any of them with equal chance.
2. **Values a stock draw by its expected penalty.** For each unseen card kind ``x``: the fewest
   penalty after drawing ``x`` and making the best discard, weighted by the copies unseen. It
   takes the top discard only when that beats the expected stock draw (greedy takes it whenever
   it beats doing nothing, which gives information away for little).
3. **Keeps near-melds.** A discard is valued by the penalty it leaves *and* by how much the next
   draw is expected to lower it (one draw of look-ahead over the unseen cards): pairs and
   suited neighbours whose completing cards are still live are worth keeping; dead ones are not.
   On the final turn (someone went out) only the penalty counts.
4. **Does not feed the next player.** A discard that matches what the next player is known to
   collect (same rank, or same suit within two ranks, of a card it took from the pile) costs
   extra; a wild card costs more still.
5. **Goes out whenever it can.**

Every value is exact and comes from :mod:`tt_env.valuation` (the solver, one batched call per
hand valued): the penalty after each discard, after each possible draw and the best discard,
and their expectation over the unseen cards.
"""

from __future__ import annotations

import numpy as np

from ..actions import (
    DISCARD_ACTION_BASE, DRAW_STOCK_ACTION, GO_OUT_ACTION_BASE, TAKE_DISCARD_ACTION,
)
from ..cards import JOKER, NUM_KINDS, NUM_RANKS
from ..valuation import Seen, valuation_for
from .base import BaseAgent, legal_actions


class CountingAgent(BaseAgent):
    """Expected-penalty play from counted unseen cards (see the module docstring).

    ``lookahead``: weight of the expected gain of the next draw in a discard's value (0 plays
    like greedy with card counting). ``feed_cost``/``wild_feed_cost``: points charged for a
    discard that the next player is known to collect / for discarding a wild card.
    ``candidates``: how many of the lowest-penalty discards get the look-ahead.
    """

    name = "counting"

    def __init__(self, num_players: int = 2, rules=None, seed: int | None = None,
                 lookahead: float = 1.0, feed_cost: float = 2.0, wild_feed_cost: float = 6.0,
                 candidates: int = 4, margin: int = 12) -> None:
        super().__init__(num_players, rules, seed)
        self.lookahead = lookahead
        self.feed_cost = feed_cost
        self.wild_feed_cost = wild_feed_cost
        self.candidates = candidates
        self.margin = margin
        self.valuation = valuation_for(self.rules)

    # -------------------------------------------------------------- acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal_actions(mask)
        seen = self.valuation.see(observation)
        if seen.draw_phase:
            return self._draw(seen, mask)
        return self._discard(seen, mask)

    def _draw(self, seen: Seen, mask: np.ndarray) -> int:
        if not mask[DRAW_STOCK_ACTION]:
            return TAKE_DISCARD_ACTION
        if not mask[TAKE_DISCARD_ACTION] or seen.top_discard < 0:
            return DRAW_STOCK_ACTION
        v = self.valuation
        take = v.take_value(seen.hand, seen.top_discard, seen.wild_rank)
        if take >= v.hand_value(seen.hand, seen.wild_rank):
            return DRAW_STOCK_ACTION  # the discard does not help at all
        stock = v.expected_after_draw(seen.hand, seen.unseen, seen.wild_rank)
        return TAKE_DISCARD_ACTION if take < stock else DRAW_STOCK_ACTION

    def _discard(self, seen: Seen, mask: np.ndarray) -> int:
        v, wild = self.valuation, seen.wild_rank
        _, penalties, _ = v.discard_choices(seen)
        table = v.penalties(wild)
        outs = [k for k in range(NUM_KINDS)
                if mask[GO_OUT_ACTION_BASE + k] and penalties[k] == 0]
        if outs:
            return GO_OUT_ACTION_BASE + max(outs, key=lambda k: (table[k], k))
        choices = [k for k in range(NUM_KINDS) if mask[DISCARD_ACTION_BASE + k]]
        feed = {k: self._feed_cost(k, seen) for k in choices}
        if seen.final_turn or self.lookahead == 0:
            best = min(choices, key=lambda k: (penalties[k] + feed[k], -table[k], -k))
            return DISCARD_ACTION_BASE + best
        ranked = sorted(choices, key=lambda k: (penalties[k] + feed[k], -table[k], -k))
        floor = penalties[ranked[0]] + feed[ranked[0]]
        shortlist = [k for k in ranked[: self.candidates]
                     if penalties[k] + feed[k] <= floor + self.margin]
        best_key, best = None, shortlist[0]
        for k in shortlist:
            counts = seen.hand.copy()
            counts[k] -= 1
            expected = v.expected_after_draw(counts, seen.unseen, wild)
            value = penalties[k] - self.lookahead * (penalties[k] - expected) + feed[k]
            key = (value, penalties[k], -table[k], -k)
            if best_key is None or key < best_key:
                best_key, best = key, k
        return DISCARD_ACTION_BASE + best

    def _feed_cost(self, kind: int, seen: Seen) -> float:
        """Points charged for handing ``kind`` to the next player."""
        if kind == JOKER or kind % NUM_RANKS + 1 == seen.wild_rank:
            return self.wild_feed_cost
        collected = seen.next_known
        if not collected.any():
            return 0.0
        suit, r = divmod(kind, NUM_RANKS)
        for s in range(4):
            if collected[s * NUM_RANKS + r]:
                return self.feed_cost
        for d in (-2, -1, 1, 2):
            q = r + d
            if 0 <= q < NUM_RANKS and collected[suit * NUM_RANKS + q]:
                return self.feed_cost
        return 0.0
