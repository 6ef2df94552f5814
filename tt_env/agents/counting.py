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

The fewest-penalty arrangements come from the exact solver (:mod:`tt_env.melds`). To keep a
decision to a few milliseconds, an unseen card that cannot touch the hand (no card of its rank,
no suited neighbour within two ranks, not wild) is valued in closed form instead of by the solver
(this overlooks the rare meld it could make with two wild cards), and the best discard after a
draw is taken to be the costliest deadwood card (see :meth:`CountingAgent.best_after_draw`).
"""

from __future__ import annotations

import numpy as np

from ..actions import (
    DISCARD_ACTION_BASE, DRAW_STOCK_ACTION, GO_OUT_ACTION_BASE, TAKE_DISCARD_ACTION,
)
from ..cards import JOKER, NUM_KINDS, NUM_RANKS
from ..melds import discard_penalties, solve
from ._view import Seen, full_deck, see
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
        self._deck = full_deck(self.rules)
        self._cache: dict[tuple[tuple[int, ...], int], tuple[int, tuple[int, ...]]] = {}

    # -------------------------------------------------------------- acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal_actions(mask)
        seen = see(observation, self.rules, self._deck)
        if seen.draw_phase:
            return self._draw(seen, mask)
        return self._discard(seen, mask)

    def _draw(self, seen: Seen, mask: np.ndarray) -> int:
        if not mask[DRAW_STOCK_ACTION]:
            return TAKE_DISCARD_ACTION
        if not mask[TAKE_DISCARD_ACTION] or seen.top_discard < 0:
            return DRAW_STOCK_ACTION
        top = seen.top_discard
        counts = list(seen.hand)
        counts[top] += 1
        banned = -1 if self.rules.discard_drawn_upcard or seen.hand[top] else top
        take = self.best_after_draw(tuple(counts), seen.wild_rank, banned)
        if take >= self._solved(seen.hand, seen.wild_rank)[0]:
            return DRAW_STOCK_ACTION  # the discard does not help at all
        stock = self.expected_after_draw(seen.hand, seen.unseen, seen.wild_rank)
        return TAKE_DISCARD_ACTION if take < stock else DRAW_STOCK_ACTION

    def _discard(self, seen: Seen, mask: np.ndarray) -> int:
        rules, wild = self.rules, seen.wild_rank
        penalties = discard_penalties(seen.hand, wild, rules)
        table = rules.penalty_table(wild)
        outs = [k for k in range(NUM_KINDS)
                if mask[GO_OUT_ACTION_BASE + k] and penalties.get(k, 1) == 0]
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
            counts = list(seen.hand)
            counts[k] -= 1
            expected = self.expected_after_draw(tuple(counts), seen.unseen, wild)
            value = penalties[k] - self.lookahead * (penalties[k] - expected) + feed[k]
            key = (value, penalties[k], -table[k], -k)
            if best_key is None or key < best_key:
                best_key, best = key, k
        return DISCARD_ACTION_BASE + best

    # -------------------------------------------------------------- valuation
    def _solved(self, counts: tuple[int, ...], wild_rank: int) -> tuple[int, tuple[int, ...]]:
        """``(penalty, deadwood kinds)`` of one fewest-penalty arrangement, cached."""
        key = (counts, wild_rank)
        hit = self._cache.get(key)
        if hit is None:
            cards = [k for k, c in enumerate(counts) if c for _ in range(c)]
            arrangement = solve(cards, wild_rank, self.rules)
            hit = (arrangement.points, tuple(int(c) for c in arrangement.deadwood))
            if len(self._cache) > 20_000:
                self._cache.clear()
            self._cache[key] = hit
        return hit

    def best_after_draw(self, counts: tuple[int, ...], wild_rank: int, banned: int = -1) -> int:
        """The penalty of a hand that has just drawn, after its best discard (not ``banned``).

        Discarding a deadwood card ``z`` of an optimal arrangement leaves exactly the penalty
        minus ``z``'s points, and no discard lowers the penalty by more than its own points. So
        the costliest deadwood card is the best discard unless a melded card worth more does
        better (rare; ignored, which makes this an upper bound). A hand without a deadwood card
        to spare is solved exactly for every discard.
        """
        points, deadwood = self._solved(counts, wild_rank)
        table = self.rules.penalty_table(wild_rank)
        values = [table[z] for z in deadwood if z != banned]
        if values:
            return points - max(values)
        penalties = discard_penalties(counts, wild_rank, self.rules)
        allowed = [p for k, p in penalties.items() if k != banned]
        return min(allowed) if allowed else points

    def expected_after_draw(self, hand: tuple[int, ...], unseen: np.ndarray,
                            wild_rank: int) -> float:
        """The expected fewest penalty after drawing one unseen card at random into ``hand``
        and making the best discard."""
        total = int(unseen.sum())
        now, deadwood = self._solved(hand, wild_rank)
        if total == 0:
            return float(now)
        table = self.rules.penalty_table(wild_rank)
        best_drop = now - max((table[z] for z in deadwood), default=0)
        relevant = self._relevant(hand, wild_rank)
        acc = 0.0
        counts = list(hand)
        for x in np.flatnonzero(unseen):
            x = int(x)
            copies = int(unseen[x])
            if relevant[x]:
                counts[x] += 1
                after = self.best_after_draw(tuple(counts), wild_rank)
                counts[x] -= 1
            else:
                # x cannot meld with anything in hand: keep it instead of the costliest
                # deadwood card, or throw it back.
                after = min(now, best_drop + table[x])
            acc += copies * after
        return acc / total

    def _relevant(self, hand: tuple[int, ...], wild_rank: int) -> np.ndarray:
        """Card kinds that could join a meld with the cards of ``hand`` (else: closed form)."""
        relevant = np.zeros(NUM_KINDS, dtype=bool)
        relevant[JOKER] = True
        for suit in range(4):
            relevant[suit * NUM_RANKS + wild_rank - 1] = True
        aces_high = self.rules.aces_high
        for k in range(JOKER):
            if not hand[k]:
                continue
            suit, r = divmod(k, NUM_RANKS)  # r: 0 (ace) .. 12 (king)
            for s in range(4):  # same rank: a set
                relevant[s * NUM_RANKS + r] = True
            for d in (-2, -1, 1, 2):  # suited neighbours: a run
                q = r + d
                if q == NUM_RANKS and aces_high:  # above the king: the high ace
                    q = 0
                if 0 <= q < NUM_RANKS:
                    relevant[suit * NUM_RANKS + q] = True
            if aces_high and r == 0:  # a high ace runs with Q and K
                relevant[suit * NUM_RANKS + 11] = relevant[suit * NUM_RANKS + 12] = True
        return relevant

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
