"""The public view in words: what a seat knows, as a plain dict of card names, numbers and the
legal moves, for scripted agents, logs and language-model harnesses. It holds the same public
information as the observation vector (:mod:`tt_env.encoding.observation`), nothing hidden.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tt_env.encoding.actions import describe, moves_to_actions
from tt_env.game.cards import ALL_CARDS, NUM_KINDS, RANK_NAMES
from tt_env.game.engine import PlayerView
from tt_env.game.rules import Rules


def _names(cards: Iterable[int], pretty: bool) -> list[str]:
    return [ALL_CARDS[c].pretty if pretty else str(ALL_CARDS[c]) for c in cards]


def _counts_to_cards(counts: Sequence[int]) -> list[int]:
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def public_view(view: PlayerView, rules: Rules, pretty: bool = False) -> dict[str, Any]:
    """What ``view``'s seat knows, as a plain dict of words and numbers.

    For scripted agents, logs and language-model harnesses: the same information as
    :func:`encode` (nothing hidden), with cards as names (``"7H"``, or ``"7♥"`` with ``pretty``)
    and the legal moves both in words and as action numbers. ``players`` lists every seat in play
    order from the observer (the observer first).
    """
    n = view.num_players
    pile = view.discard_pile
    actions = moves_to_actions(view.legal_moves)
    players = []
    for k in range(n):
        s = (view.seat + k) % n
        players.append(
            {
                "seat": s,
                "you": s == view.seat,
                "hand_size": view.hand_sizes[s],
                "known_cards": _names(_counts_to_cards(view.taken[s]), pretty),
                "score": view.scores[s],
                "went_out": view.went_out == s,
                "dealer": view.dealer == s,
                "to_move": view.current == s and view.phase.in_play,
            }
        )
    return {
        "seat": view.seat,
        "round": view.round_index + 1,
        "rounds": rules.num_rounds,
        "cards_dealt": view.cards_dealt,
        "wild_rank": RANK_NAMES[view.wild_rank],
        "phase": view.phase.name.lower().replace("_", " "),
        "your_turn": view.current == view.seat and view.phase.in_play,
        "final_turn": view.went_out is not None,
        "hand": _names(_counts_to_cards(view.hand), pretty),
        "drawn_upcard": _names([view.drawn_upcard], pretty)[0] if view.drawn_upcard >= 0 else None,
        "top_discard": _names(pile[-1:], pretty)[0] if pile else None,
        "discard_pile": _names(pile, pretty),
        "stock_size": view.stock_size,
        "turns": view.turns,
        "max_turns": rules.turn_cap,
        "players": players,
        "legal_moves": [describe(a, pretty) for a in actions],
        "legal_actions": actions,
    }


__all__ = ["public_view"]
