"""Features a player could compute from its own observation: the input of the learned agents.

The raw observation (:mod:`tt_env.observation`) holds card *counts*; from them a network has to
discover what a meld is, which takes far more training than one run on a laptop affords. So the
learned agents see the observation through :class:`CardFeatures`, a documented, deterministic
transform of the observation vector *alone* (the same information, nothing hidden): a table with
one row per card kind, holding what the exact solver (:mod:`tt_env.melds`) says about that card,
plus a few global values. The training environment (:mod:`tt_env.training`) and
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

Cost: one solver call per decision for the penalties, plus, in the draw phase, a few per unseen card
kind that could meld with the hand (the others are valued in closed form: thrown back, or kept
as deadwood beside the best discard; this overlooks the rare meld such a card could make with two
wild cards) and, with ``lookahead``, as many again for each of the ``candidates`` best
discards in the discard phase. One to three milliseconds per decision in the 2-player standard
game (the solver's caches make consecutive turns cheaper).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .agents.greedy import best_after_taking
from .cards import JOKER, NUM_KINDS, NUM_RANKS
from .melds import discard_penalties, min_penalty
from .observation import CARDS_DEALT_SLOTS, MIN_CARDS_DEALT, observation_layout
from .rules import Rules

FEATURE_NAME = "card-features"
FEATURE_VERSION = 1

CARD_FEATURES: tuple[str, ...] = (
    "held", "drawn_upcard", "top_discard", "unseen", "discarded", "on_table", "next_known",
    "others_known", "wild", "points", "after_discard", "vs_best_discard", "best_discard",
    "goes_out", "saving", "draw_gain", "lookahead_gain", "candidate", "same_rank_held",
    "run_held_1", "run_held_2", "same_rank_unseen", "run_unseen_1", "run_unseen_2",
    "feeds_next", "rank",
)
CARD_WIDTH = len(CARD_FEATURES)
_C = {name: i for i, name in enumerate(CARD_FEATURES)}

GLOBAL_FEATURES: tuple[str, ...] = (
    "draw_phase", "discard_phase", "final_turn", "penalty", "take_gain", "stock_gain", "can_take",
    "best_after_discard", "can_go_out", "cards_dealt", *(f"dealt_{n}" for n in range(
        MIN_CARDS_DEALT, MIN_CARDS_DEALT + CARDS_DEALT_SLOTS)),
    "rounds_left", "stock_size", "turns_left",
)
SEAT_FEATURES: tuple[str, ...] = ("hand_size", "went_out", "score", "known", "dealer")
_G = {name: i for i, name in enumerate(GLOBAL_FEATURES)}

_PAD = NUM_KINDS  # index of an always-zero slot in padded per-kind arrays


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
            found = sorted({kind_at(suit, p + e) for p in positions for e in (-d, d)
                            if 1 <= p + e <= top} - {k})
            table[k, :len(found)] = found
    return same, near[1], near[2]


class CardFeatures:
    """The feature transform of the module docstring, for games under ``rules``.

    ``lookahead``: give the candidate discards their expected gain from the next stock draw
    (the costliest part; without it ``lookahead_gain`` and ``candidate`` stay zero).
    ``candidates``: how many of the best discards (within ``margin`` points of the best) get it.
    Call the instance on an observation vector; :attr:`size` is the length of the result.
    """

    def __init__(self, rules: Rules, lookahead: bool = True, candidates: int = 3,
                 margin: int = 12) -> None:
        self.rules = rules
        self.num_players = n = rules.num_players
        self.lookahead = bool(lookahead)
        self.candidates = int(candidates)
        self.margin = int(margin)
        self.layout = observation_layout(n)
        self.global_width = len(GLOBAL_FEATURES) + len(SEAT_FEATURES) * n
        self.size = NUM_KINDS * CARD_WIDTH + self.global_width
        self._slices = self.layout.slices
        self._deck = np.full(NUM_KINDS, rules.decks, np.float64)
        self._deck[JOKER] = rules.decks * rules.jokers_per_deck
        self._same, self._near1, self._near2 = _neighbour_tables(rules.aces_high)
        self._rank = np.array([(k % NUM_RANKS + 1) / NUM_RANKS for k in range(JOKER)] + [0.0])
        self._solved: dict[tuple[bytes, int], int] = {}

    # ------------------------------------------------------------------ the record
    def spec(self) -> dict[str, Any]:
        """What a model file records to rebuild this transform (:meth:`from_spec`)."""
        return {"name": FEATURE_NAME, "version": FEATURE_VERSION, "lookahead": self.lookahead,
                "candidates": self.candidates, "margin": self.margin, "size": self.size,
                "card_width": CARD_WIDTH, "global_width": self.global_width}

    @classmethod
    def from_spec(cls, spec: dict[str, Any], rules: Rules) -> CardFeatures:
        """The transform a model file describes; raises ``ValueError`` for an unknown one."""
        if spec.get("name") != FEATURE_NAME or spec.get("version") != FEATURE_VERSION:
            raise ValueError(f"unknown feature transform {spec.get('name')!r} version "
                             f"{spec.get('version')!r} (this tt_env has {FEATURE_NAME!r} "
                             f"version {FEATURE_VERSION})")
        made = cls(rules, lookahead=spec.get("lookahead", True),
                   candidates=spec.get("candidates", 3), margin=spec.get("margin", 12))
        if spec.get("size", made.size) != made.size:
            raise ValueError(f"feature transform size {spec.get('size')} does not match "
                             f"{made.size} for {rules.num_players} players")
        return made

    # ------------------------------------------------------------------ valuation
    def best_after_draw(self, counts: bytes | tuple[int, ...], wild_rank: int) -> int:
        """Fewest penalty of a hand that has just drawn (53 counts), after its best discard.

        Exact, with few solver calls: discarding ``k`` saves at most ``k``'s points, so the
        cards are tried from the costliest down until no cheaper card can beat the best found.
        """
        key = (bytes(counts), wild_rank)
        hit = self._solved.get(key)
        if hit is not None:
            return hit
        rules = self.rules
        table = rules.penalty_table(wild_rank)
        now = min_penalty(key[0], wild_rank, rules)
        less = bytearray(key[0])
        best = None
        for k in sorted((k for k in range(NUM_KINDS) if less[k]), key=lambda k: -table[k]):
            if best is not None and now - table[k] >= best:
                break
            less[k] -= 1
            value = min_penalty(bytes(less), wild_rank, rules)
            less[k] += 1
            if best is None or value < best:
                best = value
        best = now if best is None else best
        if len(self._solved) > 100_000:
            self._solved.clear()
        self._solved[key] = best
        return best

    def _relevant(self, hand: np.ndarray, wild_rank: int) -> np.ndarray:
        """Card kinds that could join a meld with the hand (the others get the closed form)."""
        held = np.append(hand[:JOKER] > 0, False)
        relevant = np.zeros(NUM_KINDS + 1, bool)
        for table in (self._same, self._near1, self._near2):
            for j in range(table.shape[1]):
                relevant[table[held[:NUM_KINDS].nonzero()[0], j]] = True
        relevant[JOKER] = True
        relevant[[s * NUM_RANKS + wild_rank - 1 for s in range(4)]] = True
        relevant[:JOKER] |= held[:JOKER]
        return relevant[:NUM_KINDS]

    def _after_each_draw(self, hand: np.ndarray, unseen: np.ndarray, wild_rank: int,
                         now: int, extra: int = -1) -> np.ndarray:
        """Fewest penalty after drawing each kind (for the unseen kinds and ``extra``) and
        making the best discard; ``now`` elsewhere."""
        after = np.full(NUM_KINDS, float(now))
        table = self.rules.penalty_table(wild_rank)
        counts = bytearray(int(c) for c in hand)
        # A card that cannot meld with the hand is either thrown back (the penalty stays) or
        # kept as deadwood while the hand makes its best discard.
        drops = discard_penalties(bytes(counts), wild_rank, self.rules) if any(counts) else {}
        best_drop = min(drops.values(), default=now)
        relevant = self._relevant(hand, wild_rank)
        kinds = set(np.flatnonzero(unseen > 0).tolist())
        if extra >= 0:
            kinds.add(extra)
        for x in kinds:
            if relevant[x]:
                counts[x] += 1
                after[x] = self.best_after_draw(counts, wild_rank)
                counts[x] -= 1
            else:
                after[x] = min(now, best_drop + table[x])
        return after

    def expected_after_draw(self, hand: np.ndarray, unseen: np.ndarray, wild_rank: int) -> float:
        """Expected fewest penalty after a stock draw (any unseen card, equally likely)."""
        now = min_penalty(bytes(int(c) for c in hand), wild_rank, self.rules)
        total = unseen.sum()
        if total <= 0:
            return float(now)
        after = self._after_each_draw(hand, unseen, wild_rank, now)
        return float((after * unseen).sum() / total)

    # ------------------------------------------------------------------ the transform
    def __call__(self, observation: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation, np.float32)
        if obs.shape != (self.layout.size,):
            raise ValueError(f"expected an observation of {self.layout.size} values for "
                             f"{self.num_players} players, got shape {obs.shape}")
        s = self._slices
        rules, n = self.rules, self.num_players
        hand = np.rint(obs[s["hand"]]).astype(np.int64)
        drawn = obs[s["drawn_upcard"]]
        top_row = obs[s["top_discard"]]
        below = obs[s["discard_below"]].astype(np.float64)
        on_table = obs[s["table"]].astype(np.float64)
        known = obs[s["known"]].reshape(n, NUM_KINDS).astype(np.float64)
        wild_rank = int(np.argmax(obs[s["wild_rank"]])) + 1
        phase = obs[s["phase"]]
        draw_phase, discard_phase = phase[0] > 0.5, phase[1] > 0.5
        final_turn = obs[s["final_turn"]][0] > 0.5
        tops = np.flatnonzero(top_row)
        top = int(tops[0]) if tops.size else -1

        unseen = self._deck - hand - below - on_table - known[1:].sum(axis=0)
        if top >= 0:
            unseen[top] -= 1
        np.maximum(unseen, 0, out=unseen)
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
            feeds = (collected[self._same].any(axis=1) | collected[self._near1].any(axis=1)
                     | collected[self._near2].any(axis=1))
            feeds[JOKER] = False
            cards[:, _C["feeds_next"]] = feeds

        counts = tuple(int(c) for c in hand)
        if draw_phase or discard_phase:
            now = min_penalty(counts, wild_rank, rules)
            g[_G["penalty"]] = now / 25.0
        if discard_phase:
            self._discard_features(cards, g, counts, hand, unseen, wild_rank, drawn, table,
                                   now, final_turn)
        elif draw_phase:
            self._draw_features(cards, g, hand, unseen, wild_rank, top, now)

        g[_G["draw_phase"]] = draw_phase
        g[_G["discard_phase"]] = discard_phase
        g[_G["final_turn"]] = final_turn
        dealt_row = obs[s["cards_dealt"]]
        g[_G["cards_dealt"]] = (int(np.argmax(dealt_row)) + MIN_CARDS_DEALT) / 13.0
        first = _G[f"dealt_{MIN_CARDS_DEALT}"]
        g[first:first + CARDS_DEALT_SLOTS] = dealt_row
        g[_G["rounds_left"]] = obs[s["rounds_left"]][0]
        g[_G["stock_size"]] = obs[s["stock_size"]][0]
        g[_G["turns_left"]] = obs[s["turns_left"]][0]
        seats = np.stack([
            obs[s["hand_size"]] / (rules.max_cards + 1),
            obs[s["went_out"]],
            obs[s["score"]] - obs[s["score"]][0],  # already in hundreds of points
            known.sum(axis=1) / 10.0,
            obs[s["dealer"]],
        ], axis=1)
        g[len(GLOBAL_FEATURES):] = seats.reshape(-1)
        return np.concatenate([cards.reshape(-1), g])

    def _draw_features(self, cards, g, hand, unseen, wild_rank, top, now) -> None:
        after = self._after_each_draw(hand, unseen, wild_rank, now, extra=top)
        gain = (now - after) / 10.0
        mask = unseen > 0
        if top >= 0:
            mask = mask.copy()
            mask[top] = True
        cards[:, _C["draw_gain"]] = np.where(mask, gain, 0.0)
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
                take = best_after_taking(tuple(int(c) for c in hand), top, wild_rank, self.rules)
            g[_G["take_gain"]] = (now - take) / 10.0

    def _discard_features(self, cards, g, counts, hand, unseen, wild_rank, drawn, table, now,
                          final_turn) -> None:
        penalties = discard_penalties(counts, wild_rank, self.rules)
        banned = -1
        hits = np.flatnonzero(drawn)
        if hits.size and not self.rules.discard_drawn_upcard and hand[hits[0]] < 2:
            banned = int(hits[0])
        allowed = {k: p for k, p in penalties.items() if k != banned} or penalties
        best = min(allowed.values())
        g[_G["best_after_discard"]] = best / 25.0
        g[_G["can_go_out"]] = best == 0
        for k, p in penalties.items():
            row = cards[k]
            row[_C["after_discard"]] = p / 25.0
            row[_C["vs_best_discard"]] = (p - best) / 10.0
            row[_C["best_discard"]] = p == best
            row[_C["goes_out"]] = p == 0
            row[_C["saving"]] = (now - p) / 10.0
        if not self.lookahead or final_turn or best == 0 or unseen.sum() <= 0:
            return
        ranked = sorted(allowed, key=lambda k: (allowed[k], -table[k], -k))
        for k in ranked[: self.candidates]:
            if allowed[k] > best + self.margin:
                break
            less = hand.copy()
            less[k] -= 1
            expected = self.expected_after_draw(less, unseen, wild_rank)
            cards[k, _C["lookahead_gain"]] = (allowed[k] - expected) / 10.0
            cards[k, _C["candidate"]] = 1.0


def feature_names(num_players: int) -> list[str]:
    """The name of every value of the feature vector, in order (for docs and debugging)."""
    from .cards import ALL_CARDS

    names = [f"{ALL_CARDS[k]}.{f}" for k in range(NUM_KINDS) for f in CARD_FEATURES]
    names += list(GLOBAL_FEATURES)
    names += [f"seat{i}.{f}" for i in range(num_players) for f in SEAT_FEATURES]
    return names


__all__ = [
    "CARD_FEATURES", "CARD_WIDTH", "CardFeatures", "FEATURE_NAME", "FEATURE_VERSION",
    "GLOBAL_FEATURES", "SEAT_FEATURES", "feature_names",
]
