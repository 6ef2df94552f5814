"""One meld: reading a group of cards as a set, a run or wild cards only."""

from __future__ import annotations

from tt_env.game.cards import (
    ALL_CARDS,
    JOKER,
    NUM_KINDS,
    NUM_RANKS,
    NUM_SUITS,
    Card,
    parse_card,
    parse_cards,
)
from tt_env.game.melds._config import _config
from tt_env.game.melds._types import MeldShape, _shape
from tt_env.game.rules import Rules


def is_meld(cards, wild_rank: int, rules: Rules = Rules()) -> MeldShape | None:
    """The shape of ``cards`` read as one meld, or None if they are no meld.

    Of the valid readings (a set of some rank, a run of some suit and places, wild cards only)
    the one using the fewest wilds is returned; a set wins a tie with a run, a run a tie with
    wild cards only.
    """
    cfg = _config(rules, wild_rank, None)
    cards = [ALL_CARDS[c] for c in _cards_list(cards)]
    n = len(cards)
    if n < 3:
        return None
    cap, wpos = cfg.wild_limit, cfg.wild_position
    jokers = sum(1 for c in cards if c == JOKER)
    wild_cards = [c for c in cards if c != JOKER and c % NUM_RANKS == wpos]
    others = [c for c in cards if c != JOKER and c % NUM_RANKS != wpos]
    best = None
    # Sets: the other cards fix the rank (wild-rank cards are wilds there); with none, a set of
    # the wild rank, its cards natural.
    if others:
        if len({c % NUM_RANKS for c in others}) == 1 and n - len(others) <= cap:
            best = _shape("set", others[0] % NUM_RANKS + 1, -1, 0, 0, n - len(others), n)
    elif wild_cards:
        if jokers <= cap:
            best = _shape("set", wild_rank, -1, 0, 0, jokers, n)
    # Runs: every card of the suit but wild-rank ones must stand in its own place.
    suits = {c // NUM_RANKS for c in others}
    for suit in suits if others else range(NUM_SUITS):
        if len(suits) > 1:
            break
        for low in range(1, cfg.top_position - n + 2):
            naturals = _run_naturals(others, wild_cards, suit, low, low + n - 1, cfg)
            if naturals is None or (naturals == 0 and not others):
                continue
            wilds = n - naturals
            if wilds <= cap and (best is None or wilds < best.wilds):
                best = _shape("run", 0, suit, low, low + n - 1, wilds, n)
    if best is None and not others and not wild_cards and cfg.all_wild_melds and n <= cap:
        best = _shape("wild", 0, -1, 0, 0, n, n)
    return best


def _run_naturals(others, wild_cards, suit, low, high, cfg) -> int | None:
    """Most natural cards when ``others`` (no wild-rank card among them; all must be natural)
    and ``wild_cards`` stand in the run of ``suit`` over ``low .. high``; None if they cannot."""
    taken = set()
    aces = 0
    for c in others:
        pos = c % NUM_RANKS + 1
        if pos == 1 and cfg.aces_high:
            aces += 1
            continue
        if not low <= pos <= high or pos in taken:
            return None
        taken.add(pos)
    if aces:
        free = [p for p in (1, 14) if low <= p <= high and p not in taken]
        if aces > len(free):
            return None
        taken.update(free[:aces])
    # Wild-rank cards of the suit stand in their own place when it is free.
    places = (1, 14) if cfg.wild_position == 0 and cfg.aces_high else (cfg.wild_position + 1,)
    room = [p for p in places if low <= p <= high and p not in taken]
    mine = sum(1 for c in wild_cards if c // NUM_RANKS == suit)
    return len(taken) + min(mine, len(room))


def _cards_list(cards) -> list[int]:
    """Card kinds from a string or an iterable of cards / kinds / names."""
    if isinstance(cards, str):
        return [int(c) for c in parse_cards(cards)]
    out = []
    for c in cards:
        if c.__class__ is not Card and not (c.__class__ is int and 0 <= c < NUM_KINDS):
            c = parse_card(c)
        out.append(int(c))
    return out
