"""Tournaments between agents, with duplicate deals and honest statistics (``tt-arena``).

A tournament plays ``games`` *deals* (a deal is one seed of the environment's ``reset``: the
first dealer and every shuffle). Agents sit at *tables* of ``seats`` players: with as many agents
as seats there is one table; with more agents, every combination of ``seats`` agents gets a table
(a round robin). Each deal is played at every table once per *seat rotation*: in rotation ``r``
seat ``s`` is taken by the table's agent ``(s + r) mod seats``, so every agent plays every hand
from every seat, and the luck of the cards cancels out (duplicate play, as in bridge and poker
tournaments).

Statistics, per agent:

- **score**: the game's final score (the sum of its round penalties; lower is better);
- **penalty per round**: the mean round penalty;
- **win rate**: the share of games won (lowest score; a tie of ``k`` players gives each
  ``1/k``), so the win rates of one table add up to 1 per game;
- **out rate**: the share of rounds in which the agent went out;
- an **OpenSkill** rating (Plackett-Luce model; every game rated in the fixed order of
  deal, table, rotation, ranked by final score, ties shared).

**Why the confidence intervals are taken over deals.** The games of one deal are strongly
correlated: the same cards, seat for seat, rotated between the agents. Treating them as
independent observations would understate the variance (and the whole point of duplicate
play is that they are *not* independent: their luck cancels). The deals, on the other hand,
are independent draws. So each statistic is first averaged within a deal (over the agent's
games of that deal: its seat rotations, and its tables when there are several) into one value
per deal, and the 95% interval is Student's *t* interval over those per-deal values:
``mean ± t(0.975, D-1) · sd / sqrt(D)`` for ``D`` deals. Pairwise differences are *paired by
deal*: for agents ``a`` and ``b`` the unit is, per deal, the mean of ``score(a) - score(b)`` over
the games of that deal where both sat at the same table; the interval is the *t* interval of
those per-deal differences. A negative difference means that ``a`` scores less (plays better).

Determinism: the environment's seed of deal ``d`` and every agent's seed are derived from the
tournament ``seed`` and the game's coordinates (deal, table, rotation, seat) only, and results
are ordered by those coordinates before any statistic is taken; so a tournament gives the same
figures whatever the number of ``workers`` (processes, ``spawn``-safe).

Python API: :func:`run_tournament` returns a :class:`TournamentResult`; ``tt-arena --help``.

Ctrl-C raises :class:`TournamentInterrupted`, holding the games finished so far (``tt-arena``
writes them to ``--json``); ``run_tournament(..., done=games)`` (``--resume FILE``) plays only
the missing games, with the figures of an uninterrupted run (each game is fixed by its place).

The package, by concern:

================  ===========================================================================
module            owns
================  ===========================================================================
``schedule``      tables, seat rotations and the seeds of each game (:func:`schedule`)
``games``         one game (:func:`play_game`), its replay files, the worker processes
``forfeits``      the referee's ruling on an agent that forfeits a round
``on_ray``        the games as Ray tasks (``--ray``)
``stats``         means with Student-t intervals, per agent and per pair; OpenSkill ratings
``results``       :class:`TournamentResult`: tables, CSV, JSON, plot; :func:`load_results`
``index``         the index page of ``--replays DIR``: leaderboard, pairings, every game
``tournament``    :func:`run_tournament`: the runner, its progress bar, resuming after Ctrl-C
``suite``         the evaluation suites (``--suite``): fixed deals, reference opponents and rows
``cli``           ``tt-arena`` (:func:`main`)
================  ===========================================================================
"""

from tt_env.arena.cli import build_parser, default_agents, main
from tt_env.arena.games import play_game, replay_name
from tt_env.arena.index import tournament_index_html, write_tournament_index
from tt_env.arena.on_ray import RAY_MAX_GAMES_PER_TASK, ray_games_per_task
from tt_env.arena.results import (
    RESULTS_FORMAT,
    RESULTS_SCHEMA_VERSION,
    TournamentResult,
    load_results,
)
from tt_env.arena.schedule import (
    DEFAULT_AGENTS,
    DEFAULT_GAMES,
    DEFAULT_MODELS,
    AgentFailed,
    ArenaError,
    GameResult,
    Match,
    TournamentInterrupted,
    deal_seed,
    schedule,
    tables_for,
)
from tt_env.arena.stats import (
    CONFIDENCE,
    AgentStats,
    Estimate,
    PairStats,
    agent_statistics,
    mean_ci,
    openskill_ratings,
    pairwise_statistics,
    t_cdf,
    t_quantile,
)
from tt_env.arena.suite import (
    SUITES,
    SuiteResult,
    get_suite,
    load_reference,
    load_suite_results,
    play_suite,
)
from tt_env.arena.tournament import run_tournament

__all__ = [
    "AgentFailed",
    "AgentStats",
    "ArenaError",
    "CONFIDENCE",
    "DEFAULT_AGENTS",
    "DEFAULT_GAMES",
    "DEFAULT_MODELS",
    "Estimate",
    "GameResult",
    "Match",
    "PairStats",
    "RAY_MAX_GAMES_PER_TASK",
    "RESULTS_FORMAT",
    "RESULTS_SCHEMA_VERSION",
    "SUITES",
    "SuiteResult",
    "TournamentInterrupted",
    "TournamentResult",
    "agent_statistics",
    "build_parser",
    "deal_seed",
    "default_agents",
    "get_suite",
    "load_reference",
    "load_results",
    "load_suite_results",
    "main",
    "mean_ci",
    "openskill_ratings",
    "pairwise_statistics",
    "play_game",
    "play_suite",
    "ray_games_per_task",
    "replay_name",
    "run_tournament",
    "schedule",
    "t_cdf",
    "t_quantile",
    "tables_for",
    "tournament_index_html",
    "write_tournament_index",
]
