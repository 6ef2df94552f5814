"""GreedyAgent: the fewest penalty points now, one decision at a time (issue 4).

- Draw: take the top discard when, after taking it and making the best discard allowed, the
  hand's penalty is lower than it is now; otherwise draw from the stock.
- Discard: the card whose discard leaves the fewest penalty points (ties: the card worth more,
  then the higher card kind), so the agent is deterministic.
- Go out whenever it can.

Every value comes from :mod:`tt_env.valuation` (the exact solver on the hand decoded from the
observation); nothing else is used.
"""

from __future__ import annotations

import numpy as np

from tt_env.agents.base import BaseAgent, legal_actions
from tt_env.agents.specs import builtin_agent
from tt_env.encoding.actions import (
    DISCARD_ACTION_BASE,
    DRAW_STOCK_ACTION,
    GO_OUT_ACTION_BASE,
    TAKE_DISCARD_ACTION,
)
from tt_env.game.cards import NUM_KINDS
from tt_env.valuation.values import Seen, valuation_for


@builtin_agent
class GreedyAgent(BaseAgent):
    """Minimises the penalty of its hand after every decision (see the module docstring)."""

    name = "greedy"
    stateless = True  # no random numbers, no memory: see BaseAgent

    def __init__(self, num_players: int = 2, rules=None, seed: int | None = None) -> None:
        super().__init__(num_players, rules, seed)
        self.valuation = valuation_for(self.rules)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal_actions(mask)  # raises if not on turn
        seen = self.valuation.see(observation)
        if seen.draw_phase:
            return self._draw(seen, mask)
        return self._discard(seen, mask)

    def _draw(self, seen: Seen, mask: np.ndarray) -> int:
        if not mask[DRAW_STOCK_ACTION]:
            return TAKE_DISCARD_ACTION
        if mask[TAKE_DISCARD_ACTION] and seen.top_discard >= 0:
            v = self.valuation
            take = v.take_value(seen.hand, seen.top_discard, seen.wild_rank)
            if take < v.hand_value(seen.hand, seen.wild_rank):
                return TAKE_DISCARD_ACTION
        return DRAW_STOCK_ACTION

    def _discard(self, seen: Seen, mask: np.ndarray) -> int:
        _, after, _ = self.valuation.discard_choices(seen)
        table = self.valuation.penalties(seen.wild_rank)
        # Going out: any discard that leaves no deadwood (with false_out_penalty every go-out
        # action is legal, so check the penalty too).
        outs = [k for k in range(NUM_KINDS) if mask[GO_OUT_ACTION_BASE + k] and after[k] == 0]
        if outs:
            return GO_OUT_ACTION_BASE + max(outs, key=lambda k: (table[k], k))
        choices = [k for k in range(NUM_KINDS) if mask[DISCARD_ACTION_BASE + k]]
        best = min(choices, key=lambda k: (after[k], -table[k], -k))
        return DISCARD_ACTION_BASE + best
