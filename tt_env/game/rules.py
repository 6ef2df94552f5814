"""Rules: every option of ``RULES.md`` in one frozen dataclass, validated, with derived rounds.

Each option exists here and nowhere else; the engine, the solver and the environment read it
from a :class:`Rules` instance.
"""

from __future__ import annotations

import dataclasses
import reprlib
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple

from tt_env.game.cards import CARDS_PER_DECK, JOKER, NUM_KINDS, NUM_RANKS

MIN_PLAYERS, MAX_PLAYERS = 2, 8
# Upper bounds of the numeric options (decided here). None of the rule texts asks for more, and
# each keeps a game quick and its numbers small: 12 decks (624 cards) deal the largest round to
# 8 players four times over; with 4 jokers a deck (a pack has 2, some have 4) a hand holds at
# most 12 x 4 = 48 jokers; 10,000 turns a round is 25 times the default cap for 8 players;
# penalties above 1,000 points would only make the scores unreadable.
MAX_DECKS = 12
MAX_JOKERS_PER_DECK = 4
MAX_TURNS_PER_ROUND = 10_000
MAX_PENALTY = 1_000
MIN_STOCK_AFTER_DEAL = 20  # RULES.md, "enough decks for the final round"
JOKER_PENALTY = 20  # RULES.md: a leftover joker costs 20 whatever unused_wild_penalty says
ACE_HIGH_PENALTY = 15  # RULES.md, aces_high: a leftover ace costs 15
COURT_RANKS = (11, 12, 13)


class Round(NamedTuple):
    """One round of a game: how many cards each player is dealt and the wild rank."""

    cards: int
    wild_rank: int  # 1 (aces) .. 13 (kings)


def _wild_rank_for(cards: int) -> int:
    # RULES.md: the wild rank equals the number of cards dealt; the extra rounds of 14 and 15
    # cards have aces wild.
    return cards if cards <= NUM_RANKS else 1


@dataclass(frozen=True)
class Rules:
    """The rules of one game of Three Thirteen (``RULES.md``).

    Every field is an option of RULES.md with RULES.md's default. ``num_decks=None`` and
    ``max_turns_per_round=None`` are resolved automatically (see :attr:`decks` and
    :attr:`turn_cap`). Invalid values and impossible combinations raise :class:`ValueError`.
    Numbers have documented upper bounds: ``num_decks`` <= :data:`MAX_DECKS` (12),
    ``jokers_per_deck`` <= :data:`MAX_JOKERS_PER_DECK` (4), ``max_turns_per_round`` <=
    :data:`MAX_TURNS_PER_ROUND` (10,000), ``unused_wild_penalty`` and ``false_out_penalty`` <=
    :data:`MAX_PENALTY` (1,000).
    """

    num_players: int = 2
    num_decks: int | None = None
    """Standard decks; None: 1 for 2 players, 2 for 3-4, more while the stock would hold < 20."""
    max_wilds_per_meld: int | None = None
    """Cards used as wilds allowed in one meld; None: unlimited."""
    unused_wild_penalty: int | None = None
    """Penalty of a leftover wild-rank card; None: its face value. Jokers always cost 20."""
    aces_high: bool = False
    """An ace may also sit above the king in a run (Q-K-A); a leftover ace then costs 15."""
    court_values: bool = False
    """False: J, Q, K cost 10 each. True: J 11, Q 12, K 13."""
    extra_rounds: int = 0
    """0, 1 or 2 rounds of 14 and 15 cards after the 13-card round, aces wild."""
    there_and_back: bool = False
    """Deal up to the largest round, then back down to 3 cards (22 rounds with no extras)."""
    jokers_per_deck: int = 0
    """Jokers added to each deck; always wild, never natural, a leftover one costs 20."""
    joker_layoff: bool = False
    """A leftover joker may be dropped on another player's meld and costs nothing."""
    redemption: bool = False
    """Players on their final turn lay down melds and lay off loose cards on melds on the table."""
    double_court_rounds: bool = False
    """Round scores are doubled in the J, Q and K rounds."""
    all_wild_melds: bool = False
    """A meld may consist of wild cards only."""
    false_out_penalty: int | None = None
    """None: going out is only offered when valid. A number: a false go-out costs that much."""
    discard_drawn_upcard: bool = False
    """The card just taken from the discard pile may be discarded in the same turn."""
    max_turns_per_round: int | None = None
    """Turns (all players together) before a round ends with nobody gone out; None: 50 x
    players."""

    # ------------------------------------------------------------------ construction
    @classmethod
    def preset(cls, name: str, **overrides: Any) -> Rules:
        """A named rule set, ``"standard"`` or ``"one-wild"``, with optional field overrides."""
        if not isinstance(name, str):
            raise ValueError(f"a preset is a name ({', '.join(PRESETS)}), got {_short(name)}")
        key = name.strip().lower().replace("_", "-")
        if key not in PRESETS:
            raise ValueError(f"unknown preset {_short(name)}; known presets: {', '.join(PRESETS)}")
        return cls.from_dict({**PRESETS[key], **overrides})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Rules from a plain dict (as :meth:`to_dict` writes); unknown keys raise."""
        if not isinstance(data, dict):
            raise ValueError(
                f"rule options are a dict of option names and values, got {_short(data)}"
            )
        unknown = [key for key in data if key not in FIELD_NAMES]
        if unknown:
            raise ValueError(
                "unknown rule option(s): "
                + ", ".join(sorted(k if isinstance(k, str) else _short(k) for k in unknown))
            )
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in FIELD_NAMES}

    def replace(self, **changes: Any) -> Rules:
        return dataclasses.replace(self, **changes)

    def brief(self) -> str:
        """The options that differ from the defaults, in a few words (``"standard rules"``,
        ``"rules aces_high=True, jokers_per_deck=2"``); the number of players is left out."""
        default = Rules(num_players=self.num_players)
        changed = {
            k: v
            for k, v in self.to_dict().items()
            if k != "num_players" and getattr(default, k) != v
        }
        if not changed:
            return "standard rules"
        return "rules " + ", ".join(f"{k}={v}" for k, v in changed.items())

    def __post_init__(self) -> None:
        self._validate()

    def _validate(self) -> None:
        def check_int(name: str, low: int, high: int | None = None, optional: bool = False):
            value = getattr(self, name)
            if value is None and optional:
                return
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name} must be an integer, got {_short(value)}")
            if value < low or (high is not None and value > high):
                bound = f"{low}..{high}" if high is not None else f">= {low}"
                raise ValueError(f"{name} must be {bound}, got {value}")

        for name in (
            "aces_high",
            "court_values",
            "there_and_back",
            "joker_layoff",
            "redemption",
            "double_court_rounds",
            "all_wild_melds",
            "discard_drawn_upcard",
        ):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name} must be True or False, got {_short(getattr(self, name))}")
        if (
            isinstance(self.num_players, bool)
            or not isinstance(self.num_players, int)
            or not (MIN_PLAYERS <= self.num_players <= MAX_PLAYERS)
        ):
            raise ValueError(
                f"num_players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {_short(self.num_players)}"
            )
        check_int("num_decks", 1, MAX_DECKS, optional=True)
        check_int("max_wilds_per_meld", 0, optional=True)
        check_int("unused_wild_penalty", 0, MAX_PENALTY, optional=True)
        check_int("extra_rounds", 0, 2)
        check_int("jokers_per_deck", 0, MAX_JOKERS_PER_DECK)
        check_int("false_out_penalty", 0, MAX_PENALTY, optional=True)
        check_int("max_turns_per_round", 1, MAX_TURNS_PER_ROUND, optional=True)
        if self.joker_layoff and self.jokers_per_deck == 0:
            raise ValueError("joker_layoff needs jokers: set jokers_per_deck > 0")
        if (
            self.all_wild_melds
            and self.max_wilds_per_meld is not None
            and (self.max_wilds_per_meld < 3)
        ):
            raise ValueError(
                "all_wild_melds cannot be combined with max_wilds_per_meld < 3: "
                "a meld of wild cards only uses at least 3 wilds"
            )
        if self.num_decks is not None:
            needed = self.num_players * self.max_cards + 1  # the hands and the first upcard
            if self.num_decks * self.cards_per_deck < needed:
                raise ValueError(
                    f"{self.num_decks} deck(s) of {self.cards_per_deck} cards cannot deal "
                    f"{self.max_cards} cards to {self.num_players} players and turn an upcard "
                    f"({needed} cards needed)"
                )

    # ------------------------------------------------------------------ derived
    @property
    def cards_per_deck(self) -> int:
        return CARDS_PER_DECK + self.jokers_per_deck

    @property
    def max_cards(self) -> int:
        """Cards dealt in the largest round."""
        return NUM_RANKS + self.extra_rounds

    @cached_property
    def decks(self) -> int:
        """Decks in play: ``num_decks`` or the automatic choice of RULES.md."""
        if self.num_decks is not None:
            return self.num_decks
        # RULES.md: 1 deck for 2 players, 2 for 3 or 4 (and never fewer for more players), and
        # the fewest that leave >= 20 cards in the stock after the largest deal and the upcard.
        decks = 1 if self.num_players == 2 else 2
        while decks * self.cards_per_deck - self.num_players * self.max_cards - 1 < (
            MIN_STOCK_AFTER_DEAL
        ):
            decks += 1
        return decks

    @cached_property
    def turn_cap(self) -> int:
        """Turns in a round (all players together) after which the round ends."""
        if self.max_turns_per_round is not None:
            return self.max_turns_per_round
        return 50 * self.num_players

    @cached_property
    def rounds(self) -> tuple[Round, ...]:
        """Every round of a game in order: cards dealt and wild rank."""
        sizes = list(range(3, self.max_cards + 1))
        if self.there_and_back:
            # Decided here: the largest round is played twice, at the turn ("3 up to 13
            # cards, then 13 down to 3": 22 rounds).
            sizes = sizes + sizes[::-1]
        return tuple(Round(n, _wild_rank_for(n)) for n in sizes)

    @property
    def num_rounds(self) -> int:
        return len(self.rounds)

    def score_multiplier(self, wild_rank: int) -> int:
        """2 in the J, Q and K rounds with ``double_court_rounds``, else 1."""
        return 2 if self.double_court_rounds and wild_rank in COURT_RANKS else 1

    def card_points(self, rank: int) -> int:
        """Penalty of a leftover natural card of this rank (1..13)."""
        if rank == 1:
            return ACE_HIGH_PENALTY if self.aces_high else 1
        if rank >= 11:
            return rank if self.court_values else 10
        return rank

    def wild_penalty(self, wild_rank: int) -> int:
        """Penalty of a leftover card of the wild rank."""
        if self.unused_wild_penalty is not None:
            return self.unused_wild_penalty
        return self.card_points(wild_rank)

    def penalty_table(self, wild_rank: int) -> tuple[int, ...]:
        """Penalty of each of the 53 card kinds left over in a round with this wild rank."""
        return _penalty_table(self, wild_rank)


def _short(value: object) -> str:
    """``repr(value)``, shortened (an error message must not be huge, nor recurse)."""
    return reprlib.repr(value)


def _penalty_table(rules: Rules, wild_rank: int) -> tuple[int, ...]:
    key = (rules, wild_rank)
    table = _PENALTY_CACHE.get(key)
    if table is None:
        points = [0] * NUM_KINDS
        for k in range(JOKER):
            rank = k % NUM_RANKS + 1
            wild = rank == wild_rank
            points[k] = rules.wild_penalty(wild_rank) if wild else rules.card_points(rank)
        points[JOKER] = JOKER_PENALTY
        table = _PENALTY_CACHE[key] = tuple(points)
    return table


_PENALTY_CACHE: dict[tuple[Rules, int], tuple[int, ...]] = {}

FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Rules) if f.init)

PRESETS: dict[str, dict[str, Any]] = {
    "standard": {},
    "one-wild": {"max_wilds_per_meld": 1, "unused_wild_penalty": 15},
}
