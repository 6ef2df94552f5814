"""RandomAgent: a uniformly random legal action, from a seeded generator."""

from __future__ import annotations

import numpy as np

from tt_env.agents.base import BaseAgent, legal_actions
from tt_env.agents.specs import builtin_agent


@builtin_agent
class RandomAgent(BaseAgent):
    """Picks uniformly among the legal actions of the mask; ``reset(seed)`` reseeds it."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_actions(action_mask)
        return int(legal[self.rng.integers(legal.size)])
