"""GreedyAgent: the fewest penalty points now, one decision at a time (issue 4).

- Draw: take the top discard when, after taking it and making the best discard, the hand's
  fewest-penalty arrangement is lower than the hand's penalty now; otherwise draw from the stock.
- Discard: the card whose discard leaves the fewest penalty points (ties: the card worth more,
  then the higher card kind), so the agent is deterministic.
- Go out whenever it can.

Hands are scored by the exact solver (:mod:`tt_env.melds`) on the hand decoded from the
observation; nothing else is used.
"""

from __future__ import annotations

import numpy as np

from ..actions import (
    DISCARD_ACTION_BASE, DRAW_STOCK_ACTION, GO_OUT_ACTION_BASE, TAKE_DISCARD_ACTION,
)
from ..cards import NUM_KINDS
from ..melds import discard_penalties, min_penalty
from ._view import Seen, see
from .base import BaseAgent, legal_actions


def best_after_taking(hand: tuple[int, ...], card: int, wild_rank: int, rules) -> int:
    """The fewest penalty after adding ``card`` to ``hand`` and making the best discard that the
    rules allow (the card just taken may not go straight back unless ``discard_drawn_upcard``)."""
    counts = list(hand)
    counts[card] += 1
    penalties = discard_penalties(tuple(counts), wild_rank, rules)
    allowed = [p for k, p in penalties.items()
               if k != card or rules.discard_drawn_upcard or hand[card] > 0]
    return min(allowed) if allowed else min(penalties.values())


class GreedyAgent(BaseAgent):
    """Minimises the penalty of its hand after every decision (see the module docstring)."""

    name = "greedy"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal_actions(mask)  # raises if not on turn
        seen = see(observation, self.rules)
        if seen.draw_phase:
            return self._draw(seen, mask)
        return self._discard(seen, mask)

    def _draw(self, seen: Seen, mask: np.ndarray) -> int:
        can_take = bool(mask[TAKE_DISCARD_ACTION]) and seen.top_discard >= 0
        if not mask[DRAW_STOCK_ACTION]:
            return TAKE_DISCARD_ACTION
        if can_take:
            now = min_penalty(seen.hand, seen.wild_rank, self.rules)
            if best_after_taking(seen.hand, seen.top_discard, seen.wild_rank, self.rules) < now:
                return TAKE_DISCARD_ACTION
        return DRAW_STOCK_ACTION

    def _discard(self, seen: Seen, mask: np.ndarray) -> int:
        penalties = discard_penalties(seen.hand, seen.wild_rank, self.rules)
        table = self.rules.penalty_table(seen.wild_rank)
        # Going out: any discard that leaves no deadwood (with false_out_penalty every go-out
        # action is legal, so check the penalty too).
        outs = [k for k in range(NUM_KINDS)
                if mask[GO_OUT_ACTION_BASE + k] and penalties.get(k, 1) == 0]
        if outs:
            return GO_OUT_ACTION_BASE + max(outs, key=lambda k: (table[k], k))
        choices = [k for k in range(NUM_KINDS) if mask[DISCARD_ACTION_BASE + k]]
        best = min(choices, key=lambda k: (penalties[k], -table[k], -k))
        return DISCARD_ACTION_BASE + best
