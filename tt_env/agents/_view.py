"""What a scripted agent reads from an observation: the decoded pieces it needs, as plain values.

Only :func:`tt_env.observation.decode` is used: the agents see what a player sees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..cards import CARDS_PER_DECK, JOKER, NUM_KINDS
from ..observation import decode
from ..rules import Rules


@dataclass(frozen=True)
class Seen:
    """One seat's view of the table, decoded from its observation vector."""

    hand: tuple[int, ...]  # 53 counts
    top_discard: int  # card kind, -1 when the pile is empty
    drawn_upcard: int  # the card just taken from the discard pile, -1 if none
    wild_rank: int  # 1..13
    draw_phase: bool
    final_turn: bool  # someone went out: this is the last turn
    discard_below: np.ndarray  # (53,) counts, public
    known: np.ndarray  # (n, 53): cards each seat took from the pile and holds; row 0 = self
    stock_size: int
    turns_left: float  # fraction of the turn cap left
    unseen: np.ndarray  # (53,) counts of cards this seat has not seen (stock + hidden hands)

    @property
    def next_known(self) -> np.ndarray:
        """Cards the next player (the one who may take our discard) is known to hold."""
        return self.known[1]


def full_deck(rules: Rules) -> np.ndarray:
    """Copies of each card kind in play under ``rules``."""
    counts = np.full(NUM_KINDS, rules.decks, dtype=np.int64)
    counts[JOKER] = rules.decks * rules.jokers_per_deck
    return counts


def see(observation: np.ndarray, rules: Rules, deck: np.ndarray | None = None) -> Seen:
    """Decode ``observation`` (of a seat under ``rules``) into a :class:`Seen`."""
    p = decode(observation, rules.num_players)
    hand = np.rint(p["hand"]).astype(np.int64)
    top = np.flatnonzero(p["top_discard"])
    drawn = np.flatnonzero(p["drawn_upcard"])
    below = np.rint(p["discard_below"]).astype(np.int64)
    known = np.rint(p["known"]).astype(np.int64)
    top_kind = int(top[0]) if top.size else -1
    deck = full_deck(rules) if deck is None else deck
    unseen = deck - hand - below - known[1:].sum(axis=0)
    if top_kind >= 0:
        unseen[top_kind] -= 1
    np.maximum(unseen, 0, out=unseen)  # melds laid on the table are not in the observation
    total = rules.decks * (CARDS_PER_DECK + rules.jokers_per_deck)
    return Seen(
        hand=tuple(int(x) for x in hand),
        top_discard=top_kind,
        drawn_upcard=int(drawn[0]) if drawn.size else -1,
        wild_rank=int(np.argmax(p["wild_rank"])) + 1,
        draw_phase=bool(p["phase"][0] > 0.5),
        final_turn=bool(p["final_turn"][0] > 0.5),
        discard_below=below,
        known=known,
        stock_size=int(round(float(p["stock_size"][0]) * total)),
        turns_left=float(p["turns_left"][0]),
        unseen=unseen,
    )

