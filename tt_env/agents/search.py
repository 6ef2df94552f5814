"""SearchAgent: determinised Monte-Carlo search from the observation alone.

The agent starts from the expected-penalty rule
(:class:`tt_env.valuation.heuristics.ExpectedPenalty`, the play of ``counting``): its choice, and
its shortlist of candidates. When there is a real choice (drawing, when taking the top discard
would lower the penalty; discarding, when the shortlist has two candidates or more; never when
going out or on the final turn), it

1. **deals the unseen cards at random** (a *determinisation*): every other seat keeps the cards
   it is known to hold (taken from the discard pile) and gets the rest of its hand from the
   cards this seat has not seen; the stock gets what is left, in random order. Nothing hidden
   is read: the unseen cards, hand sizes, known cards and stock size are in the observation;
2. **plays each candidate on the same deals** and rolls the round out to its end with a fast
   policy for every seat, scoring every hand with the exact solver: ``rollout="greedy"`` (take
   the top discard when it lowers the penalty, discard the card that leaves the fewest points,
   go out when possible), ``"counting"`` (the expected-penalty rule for every seat: stronger,
   about twenty times slower) or ``"counting-self"`` (that rule for this seat only). The same
   deals for every candidate (*common random numbers*) make the paired difference between
   two candidates far less noisy than their values;
3. **keeps the rule's choice unless** another candidate's mean (own penalty less the others'
   mean) is lower by more than ``confidence`` standard errors of the paired difference.

The rollouts run in compiled code (:mod:`tt_env.agents._csearch`, built at install from
``search.h``) on the game engine (``game/core/game.h``) under the full rules: redemption's
lay-downs and lay-offs, the joker lay-off, a false out, the turn cap, stock rebuilds. The
engine asks the solver's kernels (compiled code only), so the agent needs the kernels built
and no cap on wilds per meld (the kernel serves a cap by a search far too slow for rollouts);
otherwise it plays the expected-penalty rule. The melds on the table are not in the
observation, only their cards: a deal lays those cards out as the solver arranges them, as
melds of the seat that went out.

**A network as prior** (``prior``: a model path or name, e.g.
``search(prior=distilled_2p_standard)``; expert iteration's expert): the candidates are the
network's most likely legal discards (and the rule's choice, if not among them), and the
incumbent kept unless beaten is the network's choice, not the rule's; a draw is searched when
taking the top discard would lower the penalty or the network would take it. Going out and the
final turn stay the rule's; the rollouts are played as above (the network does not play them).

Parameters: ``samples`` deals per decision, ``budget`` seconds per decision (it stops adding
deals past it, after ``min_samples``; ``None``: no limit, so play is exactly reproducible from
``seed``), ``candidates`` (the shortlist's length at most), ``margin`` (points above the best
for the shortlist), ``confidence``, ``rollout``, ``horizon`` (stop each rollout after this many
more turns of this seat and score the hands as they are; 0: at the round's end).
"""

from __future__ import annotations

import time

import numpy as np

from tt_env.agents.base import BaseAgent, legal_actions
from tt_env.agents.specs import builtin_agent, make_agent
from tt_env.encoding.actions import (
    DRAW_STOCK_ACTION,
    GO_OUT_ACTION_BASE,
    TAKE_DISCARD_ACTION,
)
from tt_env.encoding.observation import observation_layout
from tt_env.game.cards import NUM_KINDS
from tt_env.game.melds import MAX_HAND_CARDS, shape_tuple, solve
from tt_env.valuation.heuristics import CompiledExpectedPenalty, ExpectedPenalty
from tt_env.valuation.values import Seen, valuation_for

try:  # built at install from search.h; without a C compiler the agent plays the rule
    from tt_env.agents import _csearch
except ImportError:
    _csearch = None

CHUNK = 8  # deals per compiled call between looks at the clock
ROLLOUTS = ("greedy", "counting", "counting-self")  # who plays the rollouts how


@builtin_agent
class SearchAgent(BaseAgent):
    """Determinised Monte-Carlo search with greedy rollouts (see the module docstring)."""

    name = "search"

    def __init__(
        self,
        num_players: int = 2,
        rules=None,
        seed: int | None = None,
        *,
        samples: int = 128,
        budget: float | None = None,
        min_samples: int = 16,
        candidates: int = 4,
        margin: int = 12,
        confidence: float = 1.0,
        horizon: int = 0,
        rollout: str = "greedy",
        prior: str | None = None,
    ) -> None:
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
        self.confidence = float(confidence)
        self.horizon = int(horizon)
        if self.horizon < 0:
            raise ValueError(f"horizon must be 0 (none) or more turns, got {horizon!r}")
        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout must be one of {', '.join(ROLLOUTS)}, got {rollout!r}")
        self.rollout = rollout
        self.prior = None  # the network whose choices lead the search (see the docstring)
        if prior is not None:
            # a model, through the registered loaders
            self.prior = make_agent(str(prior), num_players, self.rules, seed)
            if not callable(getattr(self.prior, "policy", None)):
                raise ValueError(f"prior {prior!r}: not a model with a policy to lead the search")
        self.valuation = valuation_for(self.rules)
        self.rule = ExpectedPenalty(candidates=max(self.candidates, 4), margin=margin)
        self._compiled = None  # the rule's compiled twin, built on first use
        self._searcher = None  # the compiled deals and rollouts, built on first use
        self._last_table = None  # (observation's table, its melds) of the last search
        lay = observation_layout(num_players).slices
        self._sizes = lay["hand_size"]
        self._went_out = lay["went_out"]
        self.searched = 0  # decisions searched (for benchmarks)
        self.seconds = 0.0  # time spent searching, and the longest search
        self.longest = 0.0
        self.switched = 0  # decisions where the search overruled the expected values
        self.deals = 0  # deals played
        self._explained = None  # (observation, {action: mean}) of the last search, for explain
        self.led = -1  # the choice that led the last decision (the rule's, or the prior's)

    def __getstate__(self) -> dict:
        # The compiled objects do not pickle or copy: rebuilt on first use.
        state = self.__dict__.copy()
        state["_compiled"] = None
        state["_searcher"] = None
        return state

    # -------------------------------------------------------------- acting
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        mask = np.asarray(action_mask)
        legal_actions(mask)
        obs = np.asarray(observation)
        self._explained = None
        seen = self.valuation.see(obs)
        if self._compiled is None:
            self._compiled = CompiledExpectedPenalty(self.rule, self.rules)
        compiled = self._compiled
        action = self.led = compiled.act(obs, mask)
        if action is None:  # not served by the compiled rule: the Python rule
            action = self.led = self._python_rule(seen, mask)
            return action
        if seen.draw_phase:
            take, now = compiled.draw_values()
            if take < 0:
                return action  # one draw possible
            if self.prior is not None:
                action = self.led = self.prior.act(obs, mask)  # the network's choice leads
                if take >= now and action == DRAW_STOCK_ACTION:
                    return action  # neither the rule nor the network would take it
            elif take >= now:
                return action  # the top discard does not help
            other = DRAW_STOCK_ACTION if action == TAKE_DISCARD_ACTION else TAKE_DISCARD_ACTION
            actions = [action, other]  # the leading choice first
        else:
            shortlist = compiled.shortlist()
            if len(shortlist) < 2:
                return action  # going out, the final turn, or a single candidate
            if self.prior is not None:
                actions = self._prior_candidates(obs, mask, action)
            else:
                actions = [a for a, _ in shortlist[: self.candidates]]
        self.led = actions[0]
        results = self.rollouts(obs, seen, actions)
        if results is None:
            return actions[0]
        means = results.mean(axis=0)
        self._explained = (obs.copy(), {a: float(m) for a, m in zip(actions, means)})
        return actions[self.choose(results)]

    def _prior_candidates(self, obs: np.ndarray, mask: np.ndarray, rule_action: int) -> list:
        """The network's ``candidates`` most likely legal discards, best first, and the rule's
        choice after them when it is not among them."""
        legal = legal_actions(mask)
        legal = legal[legal < GO_OUT_ACTION_BASE]  # discards (going out is the rule's)
        p = np.asarray(self.prior.policy(obs, mask))[legal]
        ranked = legal[np.argsort(-p, kind="stable")][: self.candidates]
        actions = [int(a) for a in ranked]
        if rule_action not in actions:
            actions.append(int(rule_action))
        return actions

    EXPLAINED = "mean points against the table over the deals (lower is better)"

    def explain(self, observation: np.ndarray, action_mask: np.ndarray):
        """The mean result of each candidate over the deals of the search just made on this
        observation (own penalty less the others' mean); None when :meth:`act` did not search
        (one candidate, going out, the final turn). For replays: see :mod:`tt_env.agents.base`.
        """
        explained = getattr(self, "_explained", None)
        if explained is None or not np.array_equal(explained[0], np.asarray(observation)):
            return None
        return self.EXPLAINED, dict(explained[1])

    def _python_rule(self, seen: Seen, mask: np.ndarray) -> int:
        v = self.valuation
        if seen.draw_phase:
            return self.rule.draw(v, seen, mask)[0]
        return self.rule.discard(v, seen, mask)[0]

    def choose(self, results: np.ndarray) -> int:
        """The action to play from the deals' results (rows: deals; columns: actions, the
        incumbent first): the lowest mean, if it beats the incumbent by ``confidence``
        standard errors of the paired difference; else the incumbent."""
        means = results.mean(axis=0)
        best = int(np.argmin(means))
        if best == 0:
            return 0
        diff = results[:, 0] - results[:, best]
        se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.inf
        if diff.mean() > self.confidence * se:
            self.switched += 1
            return best
        return 0

    # -------------------------------------------------------------- the search
    def _kernels(self, wild_rank: int):
        """The round's compiled kernels for the rollouts: (kernel, the same with a leftover
        joker free or None without the joker lay-off), or None when they are not built."""
        from tt_env.game.melds import kernel_of, solver_config

        if self.rules.max_wilds_per_meld is not None:
            # the kernel serves a cap exactly, but by a search far too slow for rollouts (a
            # round takes about 0.2 s): the agent plays the rule
            return None
        kernel = kernel_of(solver_config(self.rules, wild_rank, None))
        if kernel is None:
            return None
        if not self.rules.joker_layoff:
            return kernel.c, None
        free = kernel_of(solver_config(self.rules, wild_rank, 0))
        return None if free is None else (kernel.c, free.c)

    def _new_searcher(self):
        """The compiled deals and rollouts for these rules and settings (it keeps the random
        generator's state, seeded once per search)."""
        r = self.rule
        greedy, counting = _csearch.GREEDY, _csearch.COUNTING
        mine = greedy if self.rollout == "greedy" else counting
        others = counting if self.rollout == "counting" else greedy
        return _csearch.Searcher(
            num_players=self.num_players,
            deck=self.valuation.deck.tolist(),
            turn_cap=self.rules.turn_cap,
            discard_drawn_upcard=bool(self.rules.discard_drawn_upcard),
            horizon=self.horizon,
            policy=[mine] + [others] * (self.num_players - 1),
            lookahead=r.lookahead,
            feed_cost=r.feed_cost,
            wild_feed_cost=r.wild_feed_cost,
            candidates=r.candidates,
            margin=r.margin,
            joker_layoff=bool(self.rules.joker_layoff),
            redemption=bool(self.rules.redemption),
            false_out_penalty=self.rules.false_out_penalty,
        )

    def _table(self, seen: Seen, went_out: int) -> tuple[np.ndarray, np.ndarray]:
        """The melds on the table for the rollouts (``melds``, ``table_cards``): the cards on
        the table as the solver arranges them, as melds of the seat that went out (the
        observation has the cards, not the melds). Cards that do not meld are left out."""
        key = (seen.on_table.tobytes(), seen.wild_rank, went_out)
        if self._last_table is not None and self._last_table[0] == key:
            return self._last_table[1]
        cards = [int(k) for k in np.repeat(np.arange(NUM_KINDS), seen.on_table)]
        rows, laid = [], []
        # the solver takes MAX_HAND_CARDS at most: a larger table is arranged in parts
        for start in range(0, len(cards), MAX_HAND_CARDS):
            arrangement = solve(cards[start : start + MAX_HAND_CARDS], seen.wild_rank, self.rules)
            for meld, shape in zip(arrangement.melds, arrangement.shapes):
                rows.append((max(went_out, 0), *shape_tuple(shape)))
                laid.extend(int(c) for c in meld)
        table = (np.array(rows, np.int64).reshape(-1, 8), np.array(laid, np.int64))
        self._last_table = (key, table)
        return table

    def rollouts(self, observation: np.ndarray, seen: Seen, actions: list[int]):
        """The results of the deals (see :meth:`choose`), or None when the solver's kernel
        does not serve these rules (or the compiled kernels are not built)."""
        kernels = None if _csearch is None else self._kernels(seen.wild_rank)
        if kernels is None:
            return None
        if self._searcher is None:
            self._searcher = self._new_searcher()
        searcher = self._searcher
        below = seen.discard_below
        pile = np.repeat(np.arange(NUM_KINDS), below).astype(np.int64)
        self.rng.shuffle(pile)  # the order below the top is not in the observation
        if seen.top_discard >= 0:
            pile = np.append(pile, seen.top_discard)
        went = np.flatnonzero(observation[self._went_out] > 0.5)
        went_out = int(went[0]) if went.size else -1
        melds, table_cards = self._table(seen, went_out)
        cap = self.rules.turn_cap
        position = dict(
            hand=seen.hand.astype(np.uint8),
            known=seen.known.astype(np.int64),
            sizes=np.rint(observation[self._sizes]).astype(np.int64),
            unseen=seen.unseen.astype(np.int64),
            stock_size=seen.stock_size,
            pile=pile,
            draw_phase=seen.draw_phase,
            drawn_upcard=seen.drawn_upcard,
            went_out=went_out,
            turns=cap - int(round(seen.turns_left * cap)),
            actions=np.array(actions, np.int64),
            joker_kernel=kernels[1],
            melds=melds,
            table_cards=table_cards,
        )
        results = np.zeros((self.samples, len(actions)), np.float64)
        # one seed per search, from the agent's generator: the deals of default_rng(seed)
        searcher.seed(int(self.rng.integers(2**63)))
        start = time.perf_counter()
        done = 0
        while done < self.samples:
            chunk = min(CHUNK, self.samples - done)
            searcher.search(kernels[0], results=results[done : done + chunk], **position)
            done += chunk
            if (
                self.budget is not None
                and done >= self.min_samples
                and time.perf_counter() - start > self.budget
            ):
                break
        spent = time.perf_counter() - start
        self.searched += 1
        self.deals += done
        self.seconds += spent
        self.longest = max(self.longest, spent)
        return results[:done]
