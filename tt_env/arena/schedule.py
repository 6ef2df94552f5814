"""The schedule of a tournament: the tables, the seat rotations and each game's seeds, derived from
the tournament's seed (duplicate deals: every table plays every deal in every rotation)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tt_env.arena.results import TournamentResult


DEFAULT_AGENTS = ("random", "greedy", "counting", "search(samples=16)")
# Shipped models that join the default run of tt-arena when they fit its rules (models/); a
# model for another number of players is skipped without a note.
DEFAULT_MODELS = (
    "led_distilled_2p_standard",
    "ppo_long_2p_standard",
    "led_values_4p_standard",
    "led_distilled_4p_standard",
)
DEFAULT_GAMES = 50  # deals of the default run: about 100 s of CPU, under a minute on 2 idle cores


class ArenaError(RuntimeError):
    """A tournament could not be played as asked (bad agents, an illegal action, ...)."""


class AgentFailed(ArenaError):
    """An agent raised an exception in a game: the message names the agent, its seat and the
    game; ``details`` is the traceback, as text (it crosses from a worker process), which
    ``tt-arena --debug`` prints."""

    def __init__(self, message: str, details: str = "") -> None:
        super().__init__(message)
        self.details = details


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_tournament`: ``result`` holds the games finished so far (their
    statistics; ``None`` when no game had finished). Pass ``result.results`` as ``done`` to
    :func:`run_tournament` to play the rest."""

    def __init__(self, result: TournamentResult | None) -> None:
        super().__init__("tournament interrupted")
        self.result = result


# ---------------------------------------------------------------------------------- schedule
@dataclass(frozen=True)
class Match:
    """One game to play: its coordinates, the agent (index) in each seat, and the tournament's
    seed, from which the game's seeds are derived when it is played (deriving them costs tens
    of microseconds each: a schedule of 100,000 deals took seconds when it derived them all
    before the first game). Plain properties, not cached ones: Ray may pickle the class by value,
    and a ``cached_property`` holds a lock that does not pickle."""

    deal: int
    table: int
    rotation: int
    seats: tuple[int, ...]  # agent index per seat
    seed: int  # the tournament's

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.deal, self.table, self.rotation)

    @property
    def env_seed(self) -> int:
        """The environment's ``reset`` seed: the deal's (:func:`deal_seed`), shared by every
        table and rotation of it."""
        return deal_seed(self.seed, self.deal)

    @property
    def agent_seeds(self) -> tuple[int, ...]:
        """The seed of the agent in each seat."""
        return tuple(
            _derive_seed(self.seed, 1, self.deal, self.table, self.rotation, s)
            for s in range(len(self.seats))
        )


def _derive_seed(*words: int) -> int:
    return int(np.random.SeedSequence([int(w) for w in words]).generate_state(1)[0])


def deal_seed(seed: int, deal: int) -> int:
    """The environment's ``reset`` seed of deal number ``deal`` in a tournament seeded ``seed``."""
    return _derive_seed(seed, 0, deal)


def tables_for(num_agents: int, seats: int) -> list[tuple[int, ...]]:
    """The tables of a tournament: every combination of ``seats`` agents (one if equal)."""
    if not 2 <= seats <= num_agents:
        raise ArenaError(
            f"{num_agents} agent(s) cannot fill {seats} seats: give at least as many agents as "
            "seats (repeat a name to seat an agent twice, e.g. 'greedy greedy')"
        )
    return list(itertools.combinations(range(num_agents), seats))


def schedule(num_agents: int, seats: int, games: int, seed: int) -> list[Match]:
    """Every game of a tournament in canonical order (deal, table, rotation).

    Rotation ``r`` of a table ``(a_0, ..., a_{n-1})`` puts agent ``a_{(s + r) mod n}`` in seat
    ``s``; all rotations of a deal share the environment seed, hence the cards of every seat.
    """
    if games < 1:
        raise ArenaError(f"games must be at least 1, got {games}")
    # Checked here: the seeds are derived from it when each game is played, maybe elsewhere.
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ArenaError(f"the seed must be an integer >= 0, got {seed!r}")
    matches = []
    tables = tables_for(num_agents, seats)
    orders = [
        [tuple(table[(s + r) % seats] for s in range(seats)) for r in range(seats)]
        for table in tables
    ]
    for deal in range(games):
        for t, rotations in enumerate(orders):
            for r, order in enumerate(rotations):
                matches.append(Match(deal=deal, table=t, rotation=r, seats=order, seed=seed))
    return matches


@dataclass(frozen=True)
class GameResult:
    """The outcome of one game (or of one round with ``episode="round"``)."""

    deal: int
    table: int
    rotation: int
    seats: tuple[int, ...]  # agent index per seat
    scores: tuple[int, ...]  # final score per seat
    round_penalties: tuple[tuple[int, ...], ...]  # per round, per seat
    went_out: tuple[int | None, ...]  # per round, the seat that went out or None
    winners: tuple[int, ...]  # seats with the lowest score
    steps: int  # agent steps (actions) in the game
    # per seat: what the agent reports of its costs (``usage()``: an ``llm`` agent's requests,
    # tokens, seconds, fallbacks), or None
    usage: tuple[dict[str, float] | None, ...] = ()

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.deal, self.table, self.rotation)
