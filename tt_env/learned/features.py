"""Features a player could compute from its own observation: the input of the learned agents.

The raw observation (:mod:`tt_env.encoding.observation`) holds card *counts*; from them a network
has to discover what a meld is, which takes far more training than one run on a laptop affords. So
the learned agents see the observation through :class:`CardFeatures`, a documented, deterministic
transform of the observation vector *alone* (the same information, nothing hidden): a table with
one row per card kind, holding what the exact solver (:mod:`tt_env.game.melds`) says about that
card, plus a few global values. The training environment (:mod:`tt_env.train`) and
:class:`~tt_env.agents.learned.LearnedAgent` call the same transform, and the model file records
its name and options (:meth:`CardFeatures.spec`), so a model is never fed features it was not
trained on.

The vector is ``[card table (53, CARD_WIDTH) row by row, global values]``. Penalties are in
points of ``Rules.penalty_table`` (not doubled); "unseen" cards are the copies in play minus the
own hand, the whole discard pile, the cards on the table and the cards the others are known to
hold (taken from the discard pile): they are in the stock or in hidden hands.

Card table (row ``k`` describes card kind ``k``; zeros where a value does not apply):

=====================  ===========================================================================
feature                meaning
=====================  ===========================================================================
``held``               copies of ``k`` in the hand
``drawn_upcard``       1 if ``k`` was just taken from the discard pile
``top_discard``        1 if ``k`` is the top discard
``unseen``             unseen copies / decks
``discarded``          copies lower in the discard pile / decks
``on_table``           copies laid down in melds this round / decks
``next_known``         copies the next player is known to hold (took from the pile)
``others_known``       copies the other players after it are known to hold
``wild``               1 for a joker or a card of the wild rank
``points``             its penalty / 10
``after_discard``      discard phase, held: fewest penalty after discarding it / 25
``vs_best_discard``    discard phase, held: that penalty minus the fewest over all discards / 10
``best_discard``       discard phase, held: 1 if no discard leaves fewer points
``goes_out``           discard phase, held: 1 if discarding it leaves no deadwood
``saving``             discard phase, held: penalty now minus penalty after discarding it / 10
``draw_gain``          draw phase, ``k`` unseen or the top discard: how much drawing ``k`` (then
                       the best discard) lowers the penalty / 10
``lookahead_gain``     discard phase, a candidate discard (see ``lookahead``): the penalty after
                       discarding ``k`` minus the expected penalty after the next stock draw / 10
``candidate``          1 for the candidate discards that got ``lookahead_gain``
``same_rank_held``     other held cards of its rank / 3
``run_held_1``         held cards of its suit one rank away / 2
``run_held_2``         held cards of its suit two ranks away / 2
``same_rank_unseen``   unseen cards of its rank (other kinds) / (3 x decks)
``run_unseen_1``       unseen cards of its suit one rank away / (2 x decks)
``run_unseen_2``       unseen cards of its suit two ranks away / (2 x decks)
``feeds_next``         1 if the next player is known to collect its rank, or its suit within two
                       ranks (discarding it may help that player)
``rank``               rank / 13 (0 for the joker)
=====================  ===========================================================================

Global values: ``draw_phase``, ``discard_phase``, ``final_turn``, ``penalty`` (fewest penalty of
the hand now / 25), ``take_gain`` (penalty now minus the fewest after taking the top discard and
discarding the best card allowed / 10), ``stock_gain`` (penalty now minus the expected fewest
after a stock draw / 10), ``can_take``, ``best_after_discard`` (discard phase / 25), ``can_go_out``,
``cards_dealt`` (/ 13, and a one-hot of 3..15 cards), ``rounds_left``, ``stock_size``,
``turns_left``, then per seat in play order from the observer: ``hand_size`` / (largest deal + 1),
``went_out``, ``score`` minus the observer's / 100, known cards / 10, ``dealer``.

Every solver value comes from :mod:`tt_env.valuation` (exact; one batched call per hand valued:
the draw phase values every unseen draw at once, the discard phase every discard, then one call
per look-ahead candidate).

The transform is compiled (``learned/card_features.h``, which gives the numpy definition's
numbers to the last bit) where the kernels are built. :meth:`CardFeatures.batch` transforms a
whole batch in one compiled call that releases the GIL and spreads the rows over threads (the
cores this process may run on, or ``num_threads``), each solving with kernels of its own; the
numpy definition answers only the rows the compiled code leaves to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tt_env.encoding.observation import (
    CARDS_DEALT_SLOTS,
    MIN_CARDS_DEALT,
    observation_layout,
    piece_starts,
)
from tt_env.game.cards import JOKER, NUM_KINDS, NUM_RANKS
from tt_env.game.melds import kernel_of, private_kernels, solver_config
from tt_env.game.rules import Rules
from tt_env.learned._layout import (  # noqa: F401 - the layout's names are this module's too
    _C,
    _G,
    CARD_FEATURES,
    CARD_WIDTH,
    FEATURE_NAME,
    FEATURE_VERSION,
    GLOBAL_FEATURES,
    SEAT_FEATURES,
)
from tt_env.util.workers import thread_count
from tt_env.valuation.values import deck_counts, valuation_for

try:
    from tt_env.learned import _cfeatures
except ImportError:  # built without a C compiler: the numpy transform answers
    _cfeatures = None

_PAD = NUM_KINDS  # index of an always-zero slot in padded per-kind arrays
# The fewest rows a thread of CardFeatures.batch takes: waking a thread costs about as much as
# a few rows' features.
ROWS_PER_THREAD = 8


def _neighbour_tables(aces_high: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per card kind: the other kinds of its rank (53, 3), its suited neighbours one rank away
    (53, 2) and two ranks away (53, 2), padded with :data:`_PAD`. With ``aces_high`` the ace
    also stands above the king (position 14), so K-A and Q-A are neighbours; runs never wrap."""
    same = np.full((NUM_KINDS, 3), _PAD, np.int64)
    near = {1: np.full((NUM_KINDS, 2), _PAD, np.int64), 2: np.full((NUM_KINDS, 2), _PAD, np.int64)}
    top = NUM_RANKS + 1 if aces_high else NUM_RANKS

    def kind_at(suit: int, position: int) -> int:
        return suit * NUM_RANKS + (0 if position == NUM_RANKS + 1 else position - 1)

    for k in range(JOKER):
        suit, r = divmod(k, NUM_RANKS)
        same[k] = [s * NUM_RANKS + r for s in range(4) if s != suit]
        positions = [r + 1] + ([NUM_RANKS + 1] if aces_high and r == 0 else [])
        for d, table in near.items():
            found = sorted(
                {kind_at(suit, p + e) for p in positions for e in (-d, d) if 1 <= p + e <= top}
                - {k}
            )
            table[k, : len(found)] = found
    return same, near[1], near[2]


class CardFeatures:
    """The feature transform of the module docstring, for games under ``rules``.

    ``lookahead``: give the candidate discards their expected gain from the next stock draw
    (the costliest part; without it ``lookahead_gain`` and ``candidate`` stay zero).
    ``candidates``: how many of the best discards (within ``margin`` points of the best) get it.
    ``num_threads``: the threads :meth:`batch` spreads a batch's rows over (default the cores
    this process may run on; 1 keeps it on the calling thread); the features do not depend on
    it, and :meth:`spec` leaves it out.
    Call the instance on an observation vector; :attr:`size` is the length of the result.
    """

    def __init__(
        self,
        rules: Rules,
        lookahead: bool = True,
        candidates: int = 3,
        margin: int = 12,
        *,
        num_threads: int | None = None,
    ) -> None:
        self.rules = rules
        self.num_threads = thread_count(num_threads)
        self.num_players = n = rules.num_players
        self.lookahead = bool(lookahead)
        self.candidates = int(candidates)
        self.margin = int(margin)
        self.layout = observation_layout(n)
        self.global_width = len(GLOBAL_FEATURES) + len(SEAT_FEATURES) * n
        self.size = NUM_KINDS * CARD_WIDTH + self.global_width
        self._slices = self.layout.slices
        self._same, self._near1, self._near2 = _neighbour_tables(rules.aces_high)
        self._rank = np.array([(k % NUM_RANKS + 1) / NUM_RANKS for k in range(JOKER)] + [0.0])
        self._valuation = valuation_for(rules)
        self._compiled = False  # built on first use
        self._kernel_sets: list[list] = []  # batch()'s threads' own kernels, made on first use

    # ------------------------------------------------------------------ the record

    def __getstate__(self) -> dict:
        # The compiled transform holds the solver's kernels, which do not pickle or copy:
        # rebuilt on first use.
        state = self.__dict__.copy()
        state["_compiled"] = False
        state["_kernel_sets"] = []
        return state

    def spec(self) -> dict[str, Any]:
        """What a model file records to rebuild this transform (:meth:`from_spec`)."""
        return {
            "name": FEATURE_NAME,
            "version": FEATURE_VERSION,
            "lookahead": self.lookahead,
            "candidates": self.candidates,
            "margin": self.margin,
            "size": self.size,
            "card_width": CARD_WIDTH,
            "global_width": self.global_width,
        }

    @classmethod
    def from_spec(cls, spec: dict[str, Any], rules: Rules) -> CardFeatures:
        """The transform a model file describes; raises ``ValueError`` for an unknown one."""
        if spec.get("name") != FEATURE_NAME or spec.get("version") != FEATURE_VERSION:
            raise ValueError(
                f"unknown feature transform {spec.get('name')!r} version "
                f"{spec.get('version')!r} (this tt_env has {FEATURE_NAME!r} "
                f"version {FEATURE_VERSION})"
            )
        made = cls(
            rules,
            lookahead=spec.get("lookahead", True),
            candidates=spec.get("candidates", 3),
            margin=spec.get("margin", 12),
        )
        if spec.get("size", made.size) != made.size:
            raise ValueError(
                f"feature transform size {spec.get('size')} does not match "
                f"{made.size} for {rules.num_players} players"
            )
        return made

    # ------------------------------------------------------------------ valuation
    def expected_after_draw(self, hand: np.ndarray, unseen: np.ndarray, wild_rank: int) -> float:
        """Expected fewest penalty after a stock draw (any unseen card, equally likely)."""
        return self._valuation.expected_after_draw(hand, unseen, wild_rank)

    # ------------------------------------------------------------------ the transform
    def __call__(self, observation: np.ndarray) -> np.ndarray:
        obs = np.ascontiguousarray(observation, np.float32)
        if obs.shape != (self.layout.size,):
            raise ValueError(
                f"expected an observation of {self.layout.size} values for "
                f"{self.num_players} players, got shape {obs.shape}"
            )
        compiled = self._compiled
        if compiled is False:
            compiled = self._compiled = self._build_compiled()
        if compiled is not None:
            out = np.empty(self.size, np.float32)
            if compiled.fill(obs, out):
                return out
        return self.reference(obs)

    def batch(self, observations: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """The transform of every row of ``observations`` (shape (M, observation size)), as
        an (M, :attr:`size`) ``float32`` array (written into ``out`` when given: C-contiguous,
        writable and apart from ``observations``). One compiled call transforms every row,
        without the GIL and on up to :attr:`num_threads` threads; the numpy definition answers
        the rows it leaves (:meth:`reference`). The rows are the same, bit for bit, as the
        instance's answer for each row alone."""
        obs = np.ascontiguousarray(observations, np.float32)
        if obs.ndim != 2 or obs.shape[1] != self.layout.size:
            raise ValueError(
                f"expected observations of shape (M, {self.layout.size}) for "
                f"{self.num_players} players, got shape {obs.shape}"
            )
        rows = len(obs)
        if out is None:
            out = np.empty((rows, self.size), np.float32)
        else:
            self._check_out(out, rows)
        compiled = self._compiled
        if compiled is False:
            compiled = self._compiled = self._build_compiled()
        if compiled is None:
            for i, row in enumerate(obs):
                out[i] = self.reference(row)
            return out
        served = np.empty(rows, bool)
        threads = self._use_threads(compiled, rows)
        if compiled.fill_many(obs, out, served, threads=threads):
            for i in np.flatnonzero(~served):
                out[i] = self.reference(obs[i])
        return out

    def _check_out(self, out: Any, rows: int) -> None:
        shape = (rows, self.size)
        if not isinstance(out, np.ndarray) or out.dtype != np.float32 or out.shape != shape:
            got = (
                f"{out.dtype} of shape {out.shape}"
                if isinstance(out, np.ndarray)
                else type(out).__name__
            )
            raise ValueError(f"out must be a float32 array of shape {shape}, got {got}")
        if not out.flags.c_contiguous:
            raise ValueError("out must be C-contiguous (the rows are written in place)")
        if not out.flags.writeable:
            raise ValueError("out is read-only: give a writable array")

    def _use_threads(self, compiled, rows: int) -> int:
        """The threads to spread ``rows`` rows over, each given its kernels (made once)."""
        threads = max(1, min(self.num_threads, rows // ROWS_PER_THREAD))
        if compiled.threads < threads:
            configs = [solver_config(self.rules, w, None) for w in range(1, NUM_RANKS + 1)]
            while len(self._kernel_sets) < threads:
                self._kernel_sets.append([k.c for k in private_kernels(configs)])
            # False while another Python thread's batch runs on the sets: this one then
            # answers on its own thread (Features.fill_many)
            compiled.use_threads(self._kernel_sets)
        return threads

    def _build_compiled(self):
        """The compiled transform (``tt_env.learned._cfeatures.Features``) of these rules and
        options, or None: the compiled kernels were not built, or the solver's kernel does not
        serve the rules (a joker penalty beyond its range)."""
        if _cfeatures is None:
            return None
        kernels = [kernel_of(solver_config(self.rules, w, None)) for w in range(1, NUM_RANKS + 1)]
        if any(k is None for k in kernels):
            return None
        built = (_cfeatures.CARD_FEATURES, _cfeatures.GLOBAL_FEATURES, _cfeatures.SEAT_FEATURES)
        if built != (CARD_FEATURES, GLOBAL_FEATURES, SEAT_FEATURES):
            raise RuntimeError(
                "tt_env.learned._cfeatures was built for another feature layout than "
                "tt_env/learned/_layout.py: rebuild it (pip install -e .)"
            )
        rules = self.rules
        starts, size = piece_starts(self.num_players, _cfeatures.PIECES)
        return _cfeatures.Features(
            [kernel.c for kernel in kernels],
            starts,
            size,
            seats=self.num_players,
            deck=deck_counts(rules),
            rank=self._rank,
            same=self._same,
            near1=self._near1,
            near2=self._near2,
            max_cards=rules.max_cards,
            discard_drawn_upcard=rules.discard_drawn_upcard,
            lookahead=self.lookahead,
            candidates=self.candidates,
            margin=self.margin,
        )

    def reference(self, observation: np.ndarray) -> np.ndarray:
        """The transform in numpy (the definition; the compiled twin gives the same numbers)."""
        obs = np.asarray(observation, np.float32)
        s = self._slices
        rules, n = self.rules, self.num_players
        seen = self._valuation.see(obs)  # the pieces, and the unseen cards (one definition)
        hand = seen.hand
        drawn = obs[s["drawn_upcard"]]
        top_row = obs[s["top_discard"]]
        below = seen.discard_below.astype(np.float64)
        on_table = seen.on_table.astype(np.float64)
        known = seen.known.astype(np.float64)
        wild_rank = seen.wild_rank
        draw_phase, discard_phase = seen.draw_phase, seen.discard_phase
        final_turn = seen.final_turn
        top = seen.top_discard
        unseen = seen.unseen.astype(np.float64)
        decks = float(rules.decks)
        table = np.asarray(rules.penalty_table(wild_rank), np.float64)

        cards = np.zeros((NUM_KINDS, CARD_WIDTH), np.float32)
        g = np.zeros(self.global_width, np.float32)
        cards[:, _C["held"]] = hand
        cards[:, _C["drawn_upcard"]] = drawn
        cards[:, _C["top_discard"]] = top_row
        cards[:, _C["unseen"]] = unseen / decks
        cards[:, _C["discarded"]] = below / decks
        cards[:, _C["on_table"]] = on_table / decks
        cards[:, _C["next_known"]] = known[1] if n > 1 else 0
        cards[:, _C["others_known"]] = known[2:].sum(axis=0) if n > 2 else 0
        wild = np.zeros(NUM_KINDS, bool)
        wild[JOKER] = True
        wild[[x * NUM_RANKS + wild_rank - 1 for x in range(4)]] = True
        cards[:, _C["wild"]] = wild
        cards[:, _C["points"]] = table / 10.0
        cards[:, _C["rank"]] = self._rank

        held_pad = np.append(hand, 0).astype(np.float64)
        unseen_pad = np.append(unseen, 0.0)
        cards[:, _C["same_rank_held"]] = held_pad[self._same].sum(axis=1) / 3.0
        cards[:, _C["run_held_1"]] = np.minimum(held_pad[self._near1], 1).sum(axis=1) / 2.0
        cards[:, _C["run_held_2"]] = np.minimum(held_pad[self._near2], 1).sum(axis=1) / 2.0
        cards[:, _C["same_rank_unseen"]] = unseen_pad[self._same].sum(axis=1) / (3.0 * decks)
        cards[:, _C["run_unseen_1"]] = unseen_pad[self._near1].sum(axis=1) / (2.0 * decks)
        cards[:, _C["run_unseen_2"]] = unseen_pad[self._near2].sum(axis=1) / (2.0 * decks)
        if n > 1 and known[1].any():
            collected = np.append(known[1] > 0, False)
            feeds = (
                collected[self._same].any(axis=1)
                | collected[self._near1].any(axis=1)
                | collected[self._near2].any(axis=1)
            )
            feeds[JOKER] = False
            cards[:, _C["feeds_next"]] = feeds

        if discard_phase:
            self._discard_features(cards, g, hand, unseen, wild_rank, drawn, table, final_turn)
        elif draw_phase:
            self._draw_features(cards, g, hand, unseen, wild_rank, top)

        g[_G["draw_phase"]] = draw_phase
        g[_G["discard_phase"]] = discard_phase
        g[_G["final_turn"]] = final_turn
        dealt_row = obs[s["cards_dealt"]]
        g[_G["cards_dealt"]] = (int(np.argmax(dealt_row)) + MIN_CARDS_DEALT) / 13.0
        first = _G[f"dealt_{MIN_CARDS_DEALT}"]
        g[first : first + CARDS_DEALT_SLOTS] = dealt_row
        g[_G["rounds_left"]] = obs[s["rounds_left"]][0]
        g[_G["stock_size"]] = obs[s["stock_size"]][0]
        g[_G["turns_left"]] = obs[s["turns_left"]][0]
        seats = np.stack(
            [
                obs[s["hand_size"]] / (rules.max_cards + 1),
                obs[s["went_out"]],
                obs[s["score"]] - obs[s["score"]][0],  # already in hundreds of points
                known.sum(axis=1) / 10.0,
                obs[s["dealer"]],
            ],
            axis=1,
        )
        g[len(GLOBAL_FEATURES) :] = seats.reshape(-1)
        return np.concatenate([cards.reshape(-1), g])

    def _draw_features(self, cards, g, hand, unseen, wild_rank, top) -> None:
        v = self._valuation
        weights = unseen.astype(np.int64)
        if top >= 0:
            weights = weights.copy()
            weights[top] += 1  # valued too (draw_gain), though not a stock draw
        after = v.after_draw(hand, wild_rank, weights)
        now = v.hand_value(hand, wild_rank)
        g[_G["penalty"]] = now / 25.0
        gain = (now - after) / 10.0
        cards[:, _C["draw_gain"]] = np.where(weights > 0, gain, 0.0)
        total = unseen.sum()
        if total > 0:
            g[_G["stock_gain"]] = (now - (after * unseen).sum() / total) / 10.0
        if top >= 0:
            g[_G["can_take"]] = 1.0
            # The card just taken may not go straight back (unless discard_drawn_upcard): the
            # best discard allowed after taking it.
            if self.rules.discard_drawn_upcard or hand[top] > 0:
                take = after[top]
            else:
                take = v.take_value(hand, top, wild_rank)
            g[_G["take_gain"]] = (now - take) / 10.0

    def _discard_features(
        self, cards, g, hand, unseen, wild_rank, drawn, table, final_turn
    ) -> None:
        v = self._valuation
        penalties = v.discard_values(hand, wild_rank)
        now = v.hand_value(hand, wild_rank)
        g[_G["penalty"]] = now / 25.0
        held = np.flatnonzero(penalties >= 0)
        banned = -1
        hits = np.flatnonzero(drawn)
        if hits.size and not self.rules.discard_drawn_upcard and hand[hits[0]] < 2:
            banned = int(hits[0])
        allowed = {int(k): int(penalties[k]) for k in held if k != banned} or {
            int(k): int(penalties[k]) for k in held
        }
        best = min(allowed.values())
        g[_G["best_after_discard"]] = best / 25.0
        g[_G["can_go_out"]] = best == 0
        p = penalties[held].astype(np.float64)
        cards[held, _C["after_discard"]] = p / 25.0
        cards[held, _C["vs_best_discard"]] = (p - best) / 10.0
        cards[held, _C["best_discard"]] = p == best
        cards[held, _C["goes_out"]] = p == 0
        cards[held, _C["saving"]] = (now - p) / 10.0
        if not self.lookahead or final_turn or best == 0 or unseen.sum() <= 0:
            return
        ranked = sorted(allowed, key=lambda k: (allowed[k], -table[k], -k))
        for k in ranked[: self.candidates]:
            if allowed[k] > best + self.margin:
                break
            less = hand.copy()
            less[k] -= 1
            expected = v.expected_after_draw(less, unseen, wild_rank)
            cards[k, _C["lookahead_gain"]] = (allowed[k] - expected) / 10.0
            cards[k, _C["candidate"]] = 1.0


def feature_names(num_players: int) -> list[str]:
    """The name of every value of the feature vector, in order (for docs and debugging)."""
    from tt_env.game.cards import ALL_CARDS

    names = [f"{ALL_CARDS[k]}.{f}" for k in range(NUM_KINDS) for f in CARD_FEATURES]
    names += list(GLOBAL_FEATURES)
    names += [f"seat{i}.{f}" for i in range(num_players) for f in SEAT_FEATURES]
    return names


__all__ = [
    "CARD_FEATURES",
    "CARD_WIDTH",
    "CardFeatures",
    "FEATURE_NAME",
    "FEATURE_VERSION",
    "GLOBAL_FEATURES",
    "SEAT_FEATURES",
    "feature_names",
]
