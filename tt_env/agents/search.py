"""SearchAgent: determinised Monte-Carlo search from the observation alone.

For a decision worth searching, the agent

1. **deals the unseen cards at random** (a *determinisation*): every other seat keeps the cards
   it is known to hold (taken from the discard pile) and gets the rest of its hand from the
   cards this seat has not seen; the stock gets what is left, in random order. Nothing hidden
   is read: the unseen cards, hand sizes, known cards and stock size are in the observation;
2. **plays each candidate action on the same deals** and rolls the round out to its end with a
   fast policy for every seat (greedy: take the top discard when it lowers the penalty, discard
   the card that leaves the fewest points, go out when possible), scoring every hand with the
   exact solver. The same deals for every action (*common random numbers*) make the paired
   difference between two actions far less noisy than their values;
3. **picks the action with the lowest mean** of its own penalty less the others' mean.

Which decisions are searched: drawing, when taking the top discard would lower the penalty
(otherwise the stock); discarding, the ``candidates`` best discards within ``margin`` points
of the best (by the penalty they leave); going out is always taken. The rollouts run in
compiled code (:mod:`tt_env.agents._search_jit`) on the solver's kernel, so the agent needs
rules the kernel serves (no cap on wilds per meld); under other rules it plays greedily.

Parameters: ``samples`` deals per decision, ``budget`` seconds per decision (it stops adding
deals past it, after ``min_samples``; ``None``: no limit, so play is exactly reproducible from
``seed``), ``candidates`` and ``margin`` as above.
"""

from __future__ import annotations

import time

import numpy as np

from ..actions import (
    DISCARD_ACTION_BASE, DRAW_STOCK_ACTION, GO_OUT_ACTION_BASE, TAKE_DISCARD_ACTION,
)
from ..cards import NUM_KINDS
from ..observation import observation_layout
from ..valuation import Seen, valuation_for
from .base import BaseAgent, legal_actions

CHUNK = 8  # deals per compiled call between looks at the clock


class SearchAgent(BaseAgent):
    """Determinised Monte-Carlo search with greedy rollouts (see the module docstring)."""

    name = "search"

    def __init__(self, num_players: int = 2, rules=None, seed: int | None = None,
                 samples: int = 48, budget: float | None = None, min_samples: int = 8,
                 candidates: int = 4, margin: int = 10) -> None:
        super().__init__(num_players, rules, seed)
        if samples < 1 or min_samples < 1:
            raise ValueError("samples and min_samples must be at least 1")
        if budget is not None and budget <= 0:
            raise ValueError(f"budget must be positive seconds or None, got {budget!r}")
        self.samples = int(samples)
        self.budget = budget
        self.min_samples = int(min_samples)
        self.candidates = int(candidates)
        self.margin = int(margin)
        self.valuation = valuation_for(self.rules)
        lay = observation_layout(num_players).slices
        self._sizes = lay["hand_size"]
        self._went_out = lay["went_out"]
        self._jit = None
        self.searched = 0  # decisions searched (for benchmarks)
        self.deals = 0  # deals played

    # -------------------------------------------------------------- acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal_actions(mask)
        obs = np.asarray(observation)
        seen = self.valuation.see(obs)
        v = self.valuation
        if seen.draw_phase:
            if not mask[DRAW_STOCK_ACTION]:
                return TAKE_DISCARD_ACTION
            if not mask[TAKE_DISCARD_ACTION] or seen.top_discard < 0:
                return DRAW_STOCK_ACTION
            take = v.take_value(seen.hand, seen.top_discard, seen.wild_rank)
            if take >= v.hand_value(seen.hand, seen.wild_rank):
                return DRAW_STOCK_ACTION  # the top discard does not help
            actions = [DRAW_STOCK_ACTION, TAKE_DISCARD_ACTION]
            fallback = TAKE_DISCARD_ACTION
        else:
            _, after, _ = v.discard_choices(seen)
            table = v.penalties(seen.wild_rank)
            outs = [k for k in range(NUM_KINDS)
                    if mask[GO_OUT_ACTION_BASE + k] and after[k] == 0]
            if outs:
                return GO_OUT_ACTION_BASE + max(outs, key=lambda k: (table[k], k))
            choices = sorted((k for k in range(NUM_KINDS) if mask[DISCARD_ACTION_BASE + k]),
                             key=lambda k: (after[k], -table[k], -k))
            best = after[choices[0]]
            short = [k for k in choices[:self.candidates] if after[k] <= best + self.margin]
            fallback = DISCARD_ACTION_BASE + short[0]
            if len(short) == 1:
                return fallback
            actions = [DISCARD_ACTION_BASE + k for k in short]
        means = self.action_values(obs, seen, actions)
        if means is None:
            return fallback
        return actions[int(np.argmin(means))]

    # -------------------------------------------------------------- the search
    def _kernel(self, wild_rank: int):
        from ..melds import _config, _kernel_of

        return _kernel_of(_config(self.rules, wild_rank, None))

    def action_values(self, observation: np.ndarray, seen: Seen, actions: list[int]):
        """The mean over the deals of each action's own penalty less the others' mean (lower
        is better), or None when the solver's kernel does not serve these rules."""
        kernel = self._kernel(seen.wild_rank)
        if kernel is None:
            return None
        if self._jit is None:
            from . import _search_jit

            self._jit = _search_jit
        jit = self._jit
        n = self.num_players
        me_hand = seen.hand.astype(np.uint8)
        known = seen.known.astype(np.int64)
        known[0] = 0
        sizes = np.rint(observation[self._sizes]).astype(np.int64)
        went = np.flatnonzero(observation[self._went_out] > 0.5)
        below = seen.discard_below
        pile = np.repeat(np.arange(NUM_KINDS), below).astype(np.int64)
        if seen.top_discard >= 0:
            pile = np.append(pile, seen.top_discard)
        self.rng.shuffle(pile[:len(pile) - (1 if seen.top_discard >= 0 else 0)])
        pile_buf = np.zeros(1024, np.int64)
        pile_buf[:len(pile)] = pile
        cap = self.rules.turn_cap
        sim0 = np.zeros(jit.SIM_SIZE, np.int64)
        sim0[jit.S_CURRENT] = 0
        sim0[jit.S_PHASE] = jit.DRAW if seen.draw_phase else jit.DISCARD
        sim0[jit.S_DRAWN] = seen.drawn_upcard
        sim0[jit.S_WENT_OUT] = int(went[0]) if went.size else -1
        sim0[jit.S_TURNS] = cap - int(round(seen.turns_left * cap))
        sim0[jit.S_TURN_CAP] = cap
        sim0[jit.S_DDU] = int(self.rules.discard_drawn_upcard)
        sim0[jit.S_N] = n
        acts = np.array(actions, np.int64)
        totals = np.zeros(len(actions), np.float64)
        squares = np.zeros(len(actions), np.float64)
        jit.seed(int(self.rng.integers(2**31 - 1)))
        start = time.perf_counter()
        done = 0
        while done < self.samples:
            chunk = min(CHUNK, self.samples - done)
            jit.search(0, me_hand, known, sizes, seen.unseen.astype(np.int64), seen.stock_size,
                       pile_buf, len(pile), sim0, acts, len(actions), chunk, kernel.w,
                       kernel.par, kernel.TT, kernel.mkeys, kernel.mv, kernel.mdw, kernel.ws,
                       kernel.wr, totals, squares)
            done += chunk
            if (self.budget is not None and done >= self.min_samples
                    and time.perf_counter() - start > self.budget):
                break
        self.searched += 1
        self.deals += done
        return totals / done
