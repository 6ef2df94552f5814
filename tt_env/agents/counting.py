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

from tt_env.agents.base import BaseAgent, legal_actions
from tt_env.agents.specs import builtin_agent
from tt_env.valuation.heuristics import CompiledExpectedPenalty, ExpectedPenalty
from tt_env.valuation.values import valuation_for


@builtin_agent
class CountingAgent(BaseAgent):
    """Expected-penalty play from counted unseen cards (see the module docstring; the rule is
    :class:`tt_env.valuation.heuristics.ExpectedPenalty`).

    ``lookahead``: weight of the expected gain of the next draw in a discard's value (0 plays
    like greedy with card counting). ``feed_cost``/``wild_feed_cost``: points charged for a
    discard that the next player is known to collect / for discarding a wild card.
    ``candidates``: how many of the lowest-penalty discards get the look-ahead.
    """

    name = "counting"
    stateless = True  # no random numbers, no memory: see BaseAgent

    def __init__(
        self,
        num_players: int = 2,
        rules=None,
        seed: int | None = None,
        *,
        lookahead: float = 1.0,
        feed_cost: float = 2.0,
        wild_feed_cost: float = 6.0,
        candidates: int = 4,
        margin: int = 12,
    ) -> None:
        super().__init__(num_players, rules, seed)
        self.rule = ExpectedPenalty(
            lookahead=lookahead,
            feed_cost=feed_cost,
            wild_feed_cost=wild_feed_cost,
            candidates=candidates,
            margin=margin,
        )
        self.valuation = valuation_for(self.rules)
        self._compiled = None  # the rule's compiled twin, built on first use

    def __getstate__(self) -> dict:
        # The compiled code's entry points do not pickle or copy: rebuilt on first use.
        state = self.__dict__.copy()
        state["_compiled"] = None
        return state

    @property
    def compiled_rule(self) -> CompiledExpectedPenalty:
        """The rule's compiled twin, built on first use (shared by :meth:`act_many`)."""
        if self._compiled is None:
            self._compiled = CompiledExpectedPenalty(self.rule, self.rules)
        return self._compiled

    def batch_key(self) -> tuple:
        """Agents with equal keys decide alike: :func:`tt_env.agents.together.act_together`
        answers them in one call of :meth:`act_many`."""
        r = self.rule
        return (self.rules, r.lookahead, r.feed_cost, r.wild_feed_cost, r.candidates, r.margin)

    @classmethod
    def act_many(cls, agents, observations: np.ndarray, masks: np.ndarray) -> list[int]:
        """:meth:`act` of ``agents[i]`` (all of one :meth:`batch_key`) on each row: one compiled
        rule serves them all (the rule keeps no state between decisions)."""
        compiled = agents[0].compiled_rule
        obs = np.ascontiguousarray(observations, np.float32)
        masks = np.ascontiguousarray(masks, np.int8)
        actions = []
        for agent, o, m in zip(agents, obs, masks):
            action = compiled.act(o, m) if m.any() else None
            actions.append(agent.act(o, m) if action is None else action)
        return actions

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal_actions(mask)
        action = self.compiled_rule.act(observation, mask)
        if action is not None:
            return action
        seen = self.valuation.see(observation)
        if seen.draw_phase:
            return self.rule.draw(self.valuation, seen, mask)[0]
        return self.rule.discard(self.valuation, seen, mask)[0]
