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

Python API: :func:`run_tournament` returns a :class:`TournamentResult` (``.table()``,
``.to_json()``, ``.to_csv()``, ``.plot()``). Command line: ``tt-arena --help``.

Faults lose no finished game: Ctrl-C raises :class:`TournamentInterrupted`, which holds the
result of the games finished so far (``tt-arena`` writes it to its ``--json`` file and says so);
:func:`load_results` reads such a file back and ``run_tournament(..., done=games)`` (``tt-arena
--resume FILE``) plays only the missing games. Every game is determined by its coordinates, so
the resumed tournament gives the figures of an uninterrupted one.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import json
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ._files import atomic_path, write_text_atomically
from ._workers import CtrlC, pool_ignoring_ctrl_c
from .rules import Rules

DEFAULT_AGENTS = ("random", "greedy", "counting", "search(samples=16)")
# Shipped models that join the default run of tt-arena when they fit its rules (models/); a
# model for another number of players is skipped without a note.
DEFAULT_MODELS = ("distilled_2p_standard", "distilled_4p_standard")
DEFAULT_GAMES = 50  # deals of the default run: ~4 min of CPU, about 2 minutes on 2 idle cores
CONFIDENCE = 0.95


class ArenaError(RuntimeError):
    """A tournament could not be played as asked (bad agents, an illegal action, ...)."""


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C during :func:`run_tournament`: ``result`` holds the games finished so far (their
    statistics; ``None`` when no game had finished). Pass ``result.results`` as ``done`` to
    :func:`run_tournament` to play the rest."""

    def __init__(self, result: TournamentResult | None) -> None:
        super().__init__("tournament interrupted")
        self.result = result


# ---------------------------------------------------------------------------------- statistics
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """The distribution function of Student's *t* with ``df`` degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's *t* (``0.5 <= p < 1``), by bisection on :func:`t_cdf`.

    Accurate to about 1e-12 (``t_quantile(0.975, 10)`` = 2.228138851986...). Kept here so that
    the arena needs no SciPy.
    """
    if not 0.5 <= p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0.5 <= p < 1 and df > 0, got p={p}, df={df}")
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval over ``n`` independent units (deals).

    ``low``/``high`` are NaN when there are fewer than 2 units.
    """

    mean: float
    low: float
    high: float
    n: int
    sd: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    def excludes(self, value: float = 0.0) -> bool:
        """Whether the interval lies entirely on one side of ``value``."""
        return self.low > value or self.high < value

    def format(self, digits: int = 1) -> str:
        if math.isnan(self.low):
            return f"{self.mean:.{digits}f}"
        return f"{self.mean:.{digits}f} ± {self.half_width:.{digits}f}"


def mean_ci(values: Iterable[float], confidence: float = CONFIDENCE) -> Estimate:
    """The mean of independent ``values`` with Student's *t* interval."""
    x = np.asarray(list(values), dtype=float)
    n = int(x.size)
    if n == 0:
        nan = float("nan")
        return Estimate(nan, nan, nan, 0, nan)
    mean = float(x.mean())
    if n < 2:
        nan = float("nan")
        return Estimate(mean, nan, nan, n, nan)
    sd = float(x.std(ddof=1))
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * sd / math.sqrt(n)
    return Estimate(mean, mean - half, mean + half, n, sd)


# ---------------------------------------------------------------------------------- schedule
@dataclass(frozen=True)
class Match:
    """One game to play: its coordinates, the agent (index) in each seat, and the tournament's
    seed, from which the game's seeds are derived when it is played (deriving them costs tens
    of microseconds each: a schedule of 100,000 deals took seconds when it derived them all
    before the first game). Plain properties, not cached ones: run as ``python -m
    tt_env.arena`` the class lives in ``__main__``, Ray pickles it by value, and a
    ``cached_property`` holds a lock that does not pickle."""

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
                matches.append(Match(deal, t, r, order, seed))
    return matches


# ---------------------------------------------------------------------------------- one game
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

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.deal, self.table, self.rotation)


def replay_name(key: tuple[int, int, int]) -> str:
    """The file name (without suffix) of a game's replay in ``--replays DIR``, from its
    coordinates (deal, table, rotation)."""
    deal, table, rotation = key
    return f"game-d{deal:04d}-t{table:02d}-r{rotation}"


def play_game(
    match: Match,
    agents: Sequence[Any],
    rules: Rules,
    episode: str = "game",
    replays: str | os.PathLike | None = None,
    names: Sequence[str] | None = None,
) -> GameResult:
    """Play one game of ``match`` with ``agents[s]`` in seat ``s`` through the AEC environment.

    The agents get only the observation and the mask; the arena, as referee, reads the round
    results from the environment's engine. With ``replays`` (a directory) the game's record,
    with the seats' ``names`` and the agents' explanations (:func:`tt_env.replay.explain_move`),
    and its replay page are written there (:func:`replay_name`).
    """
    from . import three_thirteen_v0
    from .actions import describe

    if replays is not None:
        from .replay import explain_move
    notes: list[dict | None] = []

    env = three_thirteen_v0.raw_env(rules=rules, episode=episode)
    for agent, agent_seed in zip(agents, match.agent_seeds):
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset(agent_seed)
    env.reset(seed=match.env_seed)
    game = env.unwrapped.game
    seat_of = {name: i for i, name in enumerate(env.possible_agents)}
    rounds_seen = len(game.round_results)
    steps = 0
    for name in env.agent_iter():
        observation, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        if len(game.round_results) != rounds_seen:  # a new round was dealt
            rounds_seen = len(game.round_results)
            for agent in agents:
                hook = getattr(agent, "new_round", None)
                if callable(hook):
                    hook()
        seat = seat_of[name]
        mask = observation["action_mask"]
        action = agents[seat].act(observation["observation"], mask)
        if not (isinstance(action, (int, np.integer)) and 0 <= action < mask.size and mask[action]):
            what = (
                describe(int(action))
                if isinstance(action, (int, np.integer)) and (0 <= action < mask.size)
                else repr(action)
            )
            raise ArenaError(
                f"agent {getattr(agents[seat], 'name', agents[seat])!r} in seat "
                f"{seat} chose an illegal action: {what} (deal {match.deal})"
            )
        if replays is not None:
            notes.append(explain_move(agents[seat], observation["observation"], mask))
        env.step(int(action))
        steps += 1
    if replays is not None:
        _write_replay(replays, match.key, game, names, notes)
    results = game.round_results
    scores = tuple(int(s) for s in game.scores)
    if episode == "round":  # the environment stops after one round; score only that one
        results = results[:1]
        scores = tuple(int(p) for p in results[0].penalties)
    best = min(scores)
    return GameResult(
        deal=match.deal,
        table=match.table,
        rotation=match.rotation,
        seats=match.seats,
        scores=scores,
        round_penalties=tuple(tuple(int(p) for p in r.penalties) for r in results),
        went_out=tuple(r.went_out for r in results),
        winners=tuple(s for s, score in enumerate(scores) if score == best),
        steps=steps,
    )


def _write_replay(directory, key, game, names, notes) -> None:
    """A game's record (``.json``, with names and explanations) and its replay page
    (``.html``) in ``directory``, each written whole or not at all."""
    from .replay import annotated_record, write_replay

    record = annotated_record(game, names, notes)
    base = os.path.join(directory, replay_name(key))
    write_text_atomically(base + ".json", json.dumps(record) + "\n")
    deal, table, rotation = key
    title = f"tt-arena deal {deal}, table {table}, rotation {rotation}: " + " vs ".join(names or ())
    write_replay(record, base + ".html", title=title)


class _Runner:
    """Plays matches in one process, keeping its agents between games (reset per game)."""

    def __init__(
        self,
        specs: Sequence[str],
        rules: Rules,
        episode: str,
        replays: str | os.PathLike | None = None,
    ) -> None:
        self.specs = list(specs)
        self.rules = rules
        self.episode = episode
        self.replays = replays
        self.labels = _labels(specs)
        self._agents: dict[int, Any] = {}

    def agent(self, index: int, seed: int) -> Any:
        from .agents import make_agent

        agent = self._agents.get(index)
        if agent is None or not callable(getattr(agent, "reset", None)):
            # Agents without reset() are rebuilt for every game, so that no state carries over.
            agent = make_agent(self.specs[index], self.rules.num_players, self.rules, seed)
            self._agents[index] = agent
        return agent

    def play(self, match: Match) -> GameResult:
        agents = [self.agent(i, s) for i, s in zip(match.seats, match.agent_seeds)]
        if self.replays is None:
            return play_game(match, agents, self.rules, self.episode)
        names = [self.labels[i] for i in match.seats]
        return play_game(match, agents, self.rules, self.episode, replays=self.replays, names=names)


_WORKER: _Runner | None = None


def _init_worker(
    specs: Sequence[str], rules: Rules, episode: str, replays: str | None = None
) -> None:
    global _WORKER
    _WORKER = _Runner(specs, rules, episode, replays)


def _pool_ignoring_ctrl_c(ctx, workers: int, initargs: tuple):
    """The pool of workers that play the games; they ignore Ctrl-C from their first
    instruction (:func:`tt_env._workers.pool_ignoring_ctrl_c`): it is the main process's to
    handle (it keeps the finished games and stops the pool)."""
    return pool_ignoring_ctrl_c(ctx, workers, _init_worker, initargs)


def _next_chunk(played: Any, ctrl_c: CtrlC, poll: float = 0.1) -> list[GameResult]:
    """The next finished chunk of games from ``pool.imap_unordered``, waiting in short slices
    so that a Ctrl-C (noted by ``ctrl_c``) is seen within ``poll`` seconds."""
    while True:
        ctrl_c.check()
        try:
            return played.next(timeout=poll)
        except multiprocessing.TimeoutError:
            continue


def _play_in_worker(matches: Sequence[Match]) -> list[GameResult]:
    assert _WORKER is not None, "worker not initialised"
    return [_WORKER.play(match) for match in matches]


# ---------------------------------------------------------------------------------- on Ray
RAY_MAX_GAMES_PER_TASK = 16
"""Most games one Ray task plays. A task costs about a millisecond of Ray's own work (scheduling,
moving its arguments and result; more across a network), a whole game with the built-in agents
tens to hundreds of milliseconds: a few games per task make that cost vanish, while enough tasks
remain for every CPU to stay busy to the end (:func:`ray_games_per_task`), and a Ctrl-C loses
at most one task's games per CPU. ``benchmarks/bench_ray.py`` measures it."""

_RAY_RUNNER: tuple[str, _Runner] | None = None  # this Ray worker's runner, kept between tasks


def ray_games_per_task(games: int, cpus: int) -> int:
    """Games per Ray task: about 4 tasks per CPU, between 1 and :data:`RAY_MAX_GAMES_PER_TASK`."""
    return max(1, min(RAY_MAX_GAMES_PER_TASK, games // (4 * max(1, cpus))))


def _play_on_ray_worker(setup: tuple, matches: Sequence[Match]) -> list[GameResult]:
    """A Ray task: play ``matches`` with a :class:`_Runner` kept in the worker process between
    tasks of the same tournament, the very job of a pool worker (:func:`_play_in_worker`)."""
    global _RAY_RUNNER
    specs, rules, episode, replays = setup
    key = json.dumps([list(specs), rules.to_dict(), episode, replays])
    if _RAY_RUNNER is None or _RAY_RUNNER[0] != key:
        _RAY_RUNNER = (key, _Runner(specs, rules, episode, replays))
    runner = _RAY_RUNNER[1]
    return [runner.play(match) for match in matches]


def _cancel(ray: Any, refs: list[Any]) -> None:
    """Cancel the tasks still running (after Ctrl-C or a failed game), and take the results of
    those that ended meanwhile: Ray prints an "unhandled error" for each failed task whose
    result nobody took."""
    for ref in refs:
        ray.cancel(ref)
    ended, _ = ray.wait(refs, num_returns=len(refs), timeout=0) if refs else ([], [])
    for ref in ended:
        try:
            ray.get(ref, timeout=0)
        except Exception:  # noqa: S110 - the result of a task given up on
            pass


def _play_on_ray(
    matches: Sequence[Match],
    setup: tuple,
    address: str,
    workers: int,
    results: list[GameResult],
    bar: Any,
) -> int:
    """Play ``matches`` as Ray tasks, appending each finished task's games to ``results``;
    returns the number of CPUs they ran on. ``address``: see :func:`tt_env._ray.ray_session`
    (a local instance gets ``workers`` CPUs, a cluster is used whole). Ctrl-C cancels the tasks
    still running and raises KeyboardInterrupt, the finished games kept in ``results``."""
    from ._ray import RayError, ray_session, task_error_cause

    try:
        with ray_session(address, workers, "tt-arena --ray") as ray:
            cpus = max(1, int(ray.cluster_resources().get("CPU", 1)))
            play = ray.remote(num_cpus=1, max_retries=0)(_play_on_ray_worker)
            setup_ref = ray.put(setup)
            size = ray_games_per_task(len(matches), cpus)
            waiting = [matches[i : i + size] for i in range(0, len(matches), size)][::-1]
            running: dict[Any, int] = {}
            with CtrlC() as ctrl_c:
                try:
                    while waiting or running:
                        # Two tasks per CPU in flight: each CPU has its next task at hand,
                        # and a Ctrl-C has little to cancel.
                        while waiting and len(running) < 2 * cpus:
                            chunk = waiting.pop()
                            running[play.remote(setup_ref, chunk)] = len(chunk)
                        ctrl_c.check()
                        done, _ = ray.wait(list(running), num_returns=1, timeout=0.1)
                        for ref in done:
                            del running[ref]
                            try:
                                finished = ray.get(ref)
                            except ray.exceptions.RayTaskError as exc:
                                raise task_error_cause(exc) from None
                            results.extend(finished)
                            bar.update(len(finished))
                finally:
                    _cancel(ray, list(running))
            return cpus
    except RayError as exc:
        raise ArenaError(str(exc)) from None


# ---------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class AgentStats:
    """The figures of one agent over a tournament (see the module docstring)."""

    label: str
    spec: str
    games: int
    score: Estimate  # final score per game
    round_penalty: Estimate  # penalty per round
    win_rate: Estimate
    out_rate: Estimate  # share of rounds the agent went out
    rating_mu: float | None = None
    rating_sigma: float | None = None
    rating_ordinal: float | None = None


@dataclass(frozen=True)
class PairStats:
    """``score(a) - score(b)`` paired by deal, over the games where ``a`` and ``b`` met."""

    a: str
    b: str
    diff: Estimate
    games: int


def _labels(specs: Sequence[str]) -> list[str]:
    from .agents import spec_label

    base = [spec_label(s) for s in specs]
    labels, seen = [], {}
    for name in base:
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if base.count(name) == 1 else f"{name}#{seen[name]}")
    return labels


def agent_statistics(
    results: Sequence[GameResult], labels: Sequence[str], specs: Sequence[str] | None = None
) -> list[AgentStats]:
    """Per-agent estimates with intervals over deals (module docstring); ratings not included."""
    specs = list(specs) if specs is not None else list(labels)
    by_deal: dict[int, list[GameResult]] = {}
    for r in results:  # one pass: a quadratic scan took minutes on a big interrupted run
        by_deal.setdefault(r.deal, []).append(r)
    stats = []
    for a, label in enumerate(labels):
        per_deal: dict[str, list[float]] = {"score": [], "round": [], "win": [], "out": []}
        games = 0
        for deal in sorted(by_deal):
            scores, rounds, wins, outs = [], [], [], []
            for r in by_deal[deal]:
                if a not in r.seats:
                    continue
                seat = r.seats.index(a)
                scores.append(r.scores[seat])
                rounds.extend(p[seat] for p in r.round_penalties)
                wins.append(1.0 / len(r.winners) if seat in r.winners else 0.0)
                outs.extend(1.0 if w == seat else 0.0 for w in r.went_out)
            if not scores:
                continue
            games += len(scores)
            per_deal["score"].append(float(np.mean(scores)))
            per_deal["round"].append(float(np.mean(rounds)) if rounds else 0.0)
            per_deal["win"].append(float(np.mean(wins)))
            per_deal["out"].append(float(np.mean(outs)) if outs else 0.0)
        stats.append(
            AgentStats(
                label=label,
                spec=specs[a],
                games=games,
                score=mean_ci(per_deal["score"]),
                round_penalty=mean_ci(per_deal["round"]),
                win_rate=mean_ci(per_deal["win"]),
                out_rate=mean_ci(per_deal["out"]),
            )
        )
    return stats


def pairwise_statistics(results: Sequence[GameResult], labels: Sequence[str]) -> list[PairStats]:
    """For every ordered pair of agents that met: mean score difference, paired by deal."""
    pairs = []
    for a, b in itertools.permutations(range(len(labels)), 2):
        per_deal: dict[int, list[float]] = {}
        for r in results:
            if a in r.seats and b in r.seats:
                diff = r.scores[r.seats.index(a)] - r.scores[r.seats.index(b)]
                per_deal.setdefault(r.deal, []).append(float(diff))
        if per_deal:
            values = [float(np.mean(per_deal[d])) for d in sorted(per_deal)]
            games = sum(len(v) for v in per_deal.values())
            pairs.append(PairStats(labels[a], labels[b], mean_ci(values), games))
    return pairs


def openskill_ratings(
    results: Sequence[GameResult], num_agents: int
) -> list[tuple[float, float, float]] | None:
    """``(mu, sigma, ordinal)`` per agent from the Plackett-Luce model of OpenSkill.

    Games are rated one by one in canonical order (deal, table, rotation), each as a free-for-all
    ranked by final score (lower is better, ties share a rank). ``None`` if openskill is missing.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    ratings = [model.rating(name=str(i)) for i in range(num_agents)]
    for r in sorted(results, key=lambda g: g.key):
        teams = [[ratings[a]] for a in r.seats]
        new = model.rate(teams, ranks=[float(s) for s in r.scores])
        for a, team in zip(r.seats, new):
            ratings[a] = team[0]
    return [(float(x.mu), float(x.sigma), float(x.ordinal())) for x in ratings]


@dataclass
class TournamentResult:
    """Everything a tournament produced: its settings, every game and the statistics."""

    specs: list[str]
    labels: list[str]
    rules: Rules
    seats: int
    games: int  # deals
    seed: int
    episode: str
    results: list[GameResult]
    agents: list[AgentStats] = field(default_factory=list)
    pairwise: list[PairStats] = field(default_factory=list)
    elapsed: float = 0.0
    workers: int = 1

    @classmethod
    def from_results(
        cls,
        specs: Sequence[str],
        rules: Rules,
        seats: int,
        games: int,
        seed: int,
        episode: str,
        results: Sequence[GameResult],
        elapsed: float = 0.0,
        workers: int = 1,
    ) -> TournamentResult:
        """Compute every statistic from the games (sorted into canonical order first)."""
        labels = _labels(specs)
        ordered = sorted(results, key=lambda g: g.key)
        stats = agent_statistics(ordered, labels, specs)
        ratings = openskill_ratings(ordered, len(labels))
        if ratings is not None:
            stats = [
                AgentStats(
                    **{
                        **_shallow(s),
                        "rating_mu": mu,
                        "rating_sigma": sigma,
                        "rating_ordinal": ordinal,
                    }
                )
                for s, (mu, sigma, ordinal) in zip(stats, ratings)
            ]
        return cls(
            specs=list(specs),
            labels=labels,
            rules=rules,
            seats=seats,
            games=games,
            seed=seed,
            episode=episode,
            results=ordered,
            agents=stats,
            pairwise=pairwise_statistics(ordered, labels),
            elapsed=elapsed,
            workers=workers,
        )

    # -------------------------------------------------------------- views
    @property
    def leaderboard(self) -> list[AgentStats]:
        """Agents from the lowest (best) mean score to the highest."""
        return sorted(self.agents, key=lambda s: (s.score.mean, s.label))

    def versus_table(self, label: str) -> Estimate:
        """``label``'s score less the mean of the other seats' scores, per game, averaged over
        each deal's games, with its 95% interval over deals (negative: it scores less than its
        table). With two seats this is the pairwise difference."""
        a = self.labels.index(label)
        per_deal: dict[int, list[float]] = {}
        for r in self.results:
            if a in r.seats:
                mine = r.scores[r.seats.index(a)]
                others = [x for s, x in zip(r.seats, r.scores) if s != a]
                if not others:  # the same agent in every seat
                    continue
                per_deal.setdefault(r.deal, []).append(mine - float(np.mean(others)))
        return mean_ci([float(np.mean(per_deal[d])) for d in sorted(per_deal)])

    def pair(self, a: str, b: str) -> PairStats:
        """The pairwise statistics of ``a`` against ``b`` (labels)."""
        for p in self.pairwise:
            if p.a == a and p.b == b:
                return p
        raise KeyError(f"{a!r} and {b!r} never met")

    @property
    def games_expected(self) -> int:
        """Games of the whole tournament: deals x tables x seat rotations."""
        return self.games * len(tables_for(len(self.specs), self.seats)) * self.seats

    @property
    def complete(self) -> bool:
        """False for the games finished before an interruption (:class:`TournamentInterrupted`)."""
        return len(self.results) >= self.games_expected

    def summary_dict(self) -> dict[str, Any]:
        """The settings and the statistics as plain data (what ``--json`` writes, without games)."""
        return {
            "format": RESULTS_FORMAT,
            "settings": {
                "agents": self.specs,
                "labels": self.labels,
                "seats": self.seats,
                "games": self.games,
                "games_played": len(self.results),
                "games_expected": self.games_expected,
                "complete": self.complete,
                "seed": self.seed,
                "episode": self.episode,
                "rules": self.rules.to_dict(),
                "confidence": CONFIDENCE,
                "workers": self.workers,
                "elapsed_seconds": round(self.elapsed, 3),
            },
            "agents": [_jsonable(asdict(s)) for s in self.leaderboard],
            "pairwise": [_jsonable(asdict(p)) for p in self.pairwise],
        }

    def to_dict(self) -> dict[str, Any]:
        data = self.summary_dict()
        data["games"] = [_jsonable(asdict(g)) for g in self.results]
        return data

    def to_json(self, path: str | os.PathLike | None = None, include_games: bool = True) -> str:
        """The result as JSON (with every game unless ``include_games=False``); written to
        ``path`` if given."""
        text = json.dumps(self.to_dict() if include_games else self.summary_dict(), indent=2)
        if path is not None:
            write_text_atomically(path, text + "\n")
        return text

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        """One row per agent (leaderboard order): every estimate with its interval."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        head = ["rank", "agent", "spec", "games"]
        for name in ("score", "round_penalty", "win_rate", "out_rate"):
            head += [name, f"{name}_low", f"{name}_high"]
        head += ["deals", "rating_mu", "rating_sigma", "rating_ordinal"]
        writer.writerow(head)
        for rank, s in enumerate(self.leaderboard, 1):
            row: list[Any] = [rank, s.label, s.spec, s.games]
            for est in (s.score, s.round_penalty, s.win_rate, s.out_rate):
                row += [_num(est.mean), _num(est.low), _num(est.high)]
            row += [s.score.n, _num(s.rating_mu), _num(s.rating_sigma), _num(s.rating_ordinal)]
            writer.writerow(row)
        text = out.getvalue()
        if path is not None:
            write_text_atomically(path, text)
        return text

    _COLUMNS = (
        "#",
        "agent",
        "games",
        "score/game",
        "penalty/round",
        "win rate",
        "out rate",
        "rating",
    )

    def _rows(self) -> list[list[str]]:
        rows = []
        for rank, s in enumerate(self.leaderboard, 1):
            rows.append(
                [
                    str(rank),
                    s.label,
                    str(s.games),
                    s.score.format(1),
                    s.round_penalty.format(2),
                    _pct(s.win_rate),
                    _pct(s.out_rate),
                    "n/a" if s.rating_ordinal is None else f"{s.rating_ordinal:.1f}",
                ]
            )
        return rows

    def _pair_rows(self) -> list[list[str]]:
        order = [s.label for s in self.leaderboard]
        return [[a] + ["" if a == b else _pair_cell(self, a, b) for b in order] for a in order]

    def table(self) -> str:
        """The leaderboard and the pairwise table as plain text."""
        lines = [self._title(), ""]
        lines += _grid([list(self._COLUMNS)] + self._rows())
        lines += ["", _LEGEND]
        note = self.rating_note()
        if note:
            lines += [note]
        if self.pairwise:
            lines += ["", _PAIR_TITLE + ":"]
            lines += _grid([[""] + [s.label for s in self.leaderboard]] + self._pair_rows())
        lines += self._table_lines()
        return "\n".join(lines)

    def _table_lines(self) -> list[str]:
        """With more than two seats: each agent's score less the mean of the rest of its table
        (the duplicate comparison of one agent against a whole table)."""
        if self.seats <= 2:
            return []
        lines = ["", _TABLE_TITLE + ":"]
        width = max(len(s.label) for s in self.leaderboard)
        for s in self.leaderboard:
            lines.append(f"  {s.label:<{width}}  {self.versus_table(s.label).format(1)}")
        return lines

    def rating_note(self) -> str:
        """A sentence when the ratings order the agents otherwise than the leaderboard (which
        ranks by mean score), saying why; empty when they agree."""
        board = [s for s in self.leaderboard if s.rating_ordinal is not None]
        swapped = [
            (a.label, b.label)
            for i, a in enumerate(board)
            for b in board[i + 1 :]
            if b.rating_ordinal > a.rating_ordinal
        ]
        if not swapped:
            return ""
        pairs = "; ".join(f"{b} above {a}" for a, b in swapped)
        return (
            f"note: the rating puts {pairs}. The rank is by mean score; the rating counts "
            "only who finished ahead of whom, game by game, not by how many points, and "
            "its uncertainty (3 sigma) is subtracted: when the scores are close the two can "
            "disagree (see the pairwise intervals)."
        )

    def _title(self) -> str:
        tables = len(tables_for(len(self.labels), self.seats))
        if tables == 1:
            layout = f"{self.games} deals x {self.seats} seat rotations"
        else:
            layout = (
                f"{self.games} deals x {tables} tables (every {self.seats} of the "
                f"{len(self.labels)} agents) x {self.seats} seat rotations"
            )
        played = (
            f"{len(self.results)} games"
            if self.complete
            else f"{len(self.results)} of {self.games_expected} games (interrupted)"
        )
        return (
            f"tt-arena: {played} = {layout}; episode={self.episode}, "
            f"seed={self.seed}, {self.rules.brief()}; {self.elapsed:.1f} s on "
            f"{self.workers} worker(s)"
        )

    def print(self, file=None) -> None:
        """Print the tables: with rich on a terminal (when installed), else as plain text."""
        file = file or sys.stdout
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            Console = None
        if Console is None or not getattr(file, "isatty", lambda: False)():
            print(self.table(), file=file)
            return
        console = Console(file=file)
        console.print(self._title())
        board = Table(caption=_LEGEND, caption_justify="left")
        for col in self._COLUMNS:
            board.add_column(col, justify="left" if col == "agent" else "right")
        for row in self._rows():
            board.add_row(*row)
        console.print(board)
        note = self.rating_note()
        if note:
            console.print(note)
        if self.pairwise:
            pairs = Table(title=_PAIR_TITLE, title_justify="left")
            pairs.add_column("")
            for s in self.leaderboard:
                pairs.add_column(s.label, justify="right")
            for row in self._pair_rows():
                pairs.add_row(*row)
            console.print(pairs)
        for line in self._table_lines():
            console.print(line)

    def plot(self, path: str | os.PathLike) -> None:
        """A PNG of each agent's mean score per game and win rate, with 95% intervals."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        board = self.leaderboard
        names = [s.label for s in board]
        y = np.arange(len(board))
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 1.2 + 0.6 * len(board)), sharey=True)
        for ax, attr, title in (
            (ax1, "score", "score per game (lower is better)"),
            (ax2, "win_rate", "win rate"),
        ):
            est = [getattr(s, attr) for s in board]
            means = np.array([e.mean for e in est])
            err = np.array([[e.mean - e.low, e.high - e.mean] for e in est]).T
            err = np.nan_to_num(err)
            ax.barh(y, means, xerr=err, color="#4c72b0", alpha=0.85, capsize=4)
            for yi, e in zip(y, est):
                label = f"{e.mean:.1f}" if attr == "score" else f"{100 * e.mean:.0f}%"
                ax.annotate(
                    label,
                    (max(e.mean, 0), yi),
                    xytext=(4, 6),
                    textcoords="offset points",
                    fontsize=8,
                )
            positive = means[means > 0]
            if attr == "score" and positive.size and positive.max() > 10 * max(positive.min(), 1.0):
                ax.set_xscale("symlog", linthresh=10)  # keep weak and strong agents readable
                title += ", log scale"
            ax.set_title(title)
            ax.margins(x=0.15)
            ax.grid(axis="x", alpha=0.3)
        ax2.axvline(1.0 / self.seats, color="grey", linestyle=":", linewidth=1)
        ax1.set_yticks(y, names)
        ax1.invert_yaxis()
        fig.suptitle(
            f"tt-arena: {len(self.results)} games ({self.games} deals), "
            f"{self.seats} seats, 95% intervals over deals",
            fontsize=10,
        )
        fig.tight_layout()
        try:
            with atomic_path(path) as tmp:
                fig.savefig(tmp, dpi=120, format="png")
        finally:
            plt.close(fig)


def _shallow(obj) -> dict[str, Any]:
    return {f: getattr(obj, f) for f in obj.__dataclass_fields__}


def _jsonable(value):
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _num(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.6g}"


def _pct(est: Estimate) -> str:
    if math.isnan(est.low):
        return f"{100 * est.mean:.1f}%"
    return f"{100 * est.mean:.1f}% ± {100 * est.half_width:.1f}"


_LEGEND = (
    "rank by score: final score per game, lower is better; ± : 95% interval over "
    "deals; win rate: ties share; out rate: rounds gone out; rating: OpenSkill "
    "mu - 3 sigma from the finishing order of each game (higher is better)"
)
_PAIR_TITLE = (
    "mean score difference, row minus column, paired by deal (negative: row better), 95% interval"
)
_TABLE_TITLE = (
    "score less the mean of the rest of the table, per game, paired by deal (negative: better "
    "than its table), 95% interval"
)


def _pair_cell(result: TournamentResult, a: str, b: str) -> str:
    try:
        return result.pair(a, b).diff.format(1)
    except KeyError:
        return "-"


def _grid(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for j, row in enumerate(rows):
        out.append(
            "  ".join(
                c.ljust(w) if i == 1 or (i == 0 and j > 0 and not c.isdigit()) else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths))
            )
        )
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


RESULTS_FORMAT = "tt_env.tournament"


def load_results(path: str | os.PathLike) -> tuple[dict[str, Any], list[GameResult]]:
    """The settings and the games of a tournament's JSON (``--json``, also of an interrupted
    run); :class:`ArenaError` naming the problem if the file is not one."""
    where = f"tournament file {path}"
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read().decode("utf-8"))
    except OSError as exc:
        raise ArenaError(f"cannot read {where}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ArenaError(f"{where} is not tt-arena JSON ({type(exc).__name__})") from None
    settings = data.get("settings") if isinstance(data, dict) else None
    games = data.get("games") if isinstance(data, dict) else None
    if not isinstance(settings, dict) or not isinstance(games, list):
        raise ArenaError(f"{where} is not tt-arena JSON with every game (--json writes one)")
    kinds = {"agents": list, "seats": int, "games": int, "seed": int, "episode": str, "rules": dict}
    for key, kind in kinds.items():
        value = settings.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ArenaError(f"{where}: its settings have no valid {key!r}")
    if not all(isinstance(a, str) for a in settings["agents"]):
        raise ArenaError(f"{where}: its agents are not names")
    results = []
    for i, g in enumerate(games):
        try:
            results.append(_game_from_json(g))
        except (KeyError, TypeError, ValueError) as exc:
            raise ArenaError(f"{where}: game {i} is damaged ({exc})") from None
    return settings, results


def _game_from_json(g: dict[str, Any]) -> GameResult:
    def ints(values) -> tuple[int, ...]:
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise ValueError(f"expected a list of integers, got {str(values)[:40]}")
        return tuple(values)

    if not isinstance(g, dict):
        raise TypeError("not a JSON object")
    seats, scores = ints(g["seats"]), ints(g["scores"])
    penalties = g["round_penalties"]
    if not isinstance(penalties, list):
        raise ValueError("round_penalties is not a list")
    went_out = g["went_out"]
    if not isinstance(went_out, list) or not all(
        w is None or (isinstance(w, int) and not isinstance(w, bool)) for w in went_out
    ):
        raise ValueError("went_out is not a list of seats")
    result = GameResult(
        deal=ints([g["deal"]])[0],
        table=ints([g["table"]])[0],
        rotation=ints([g["rotation"]])[0],
        seats=seats,
        scores=scores,
        round_penalties=tuple(ints(p) for p in penalties),
        went_out=tuple(went_out),
        winners=ints(g["winners"]),
        steps=ints([g["steps"]])[0],
    )
    if len(scores) != len(seats) or any(len(p) != len(seats) for p in result.round_penalties):
        raise ValueError("scores or penalties do not have one value per seat")
    return result


# ---------------------------------------------------------------------------------- the runner
def run_tournament(
    agent_specs: Sequence[str] = DEFAULT_AGENTS,
    rules: Rules | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    workers: int = 1,
    seats: int | None = None,
    episode: str = "game",
    progress: bool = False,
    done: Sequence[GameResult] = (),
    elapsed_before: float = 0.0,
    replays: str | os.PathLike | None = None,
    ray_address: str | None = None,
    on_start: Callable[[], object] | None = None,
) -> TournamentResult:
    """Play a duplicate tournament and compute its statistics (see the module docstring).

    ``agent_specs``: names for :func:`tt_env.agents.make_agent` (``"random"``, ``"greedy"``,
    ``"counting"``, ``"module.path:ClassName"``, a model path). ``games``: the number of deals;
    each is played at every table in every seat rotation. ``seats``: players per game, by default
    ``rules.num_players`` when ``rules`` is given, else the number of agents (at most 4).
    ``workers``: processes (1 plays in this process). ``episode``: ``"game"`` (all rounds) or
    ``"round"`` (the first round only, for quick checks). ``done``: games already played (from
    an interrupted run of the same tournament, :func:`load_results`): only the others are
    played. Ctrl-C raises :class:`TournamentInterrupted` with the games finished so far.
    ``replays``: a directory (made if missing) where every game played writes its record and its
    replay page (:func:`replay_name`; :func:`tt_env.replay.write_tournament_index` links them;
    on Ray, a directory every node can reach).
    ``ray_address``: play the games as Ray tasks (extra ``ray``) instead of in a process pool,
    with the same results: ``"local"`` starts a Ray instance of ``workers`` CPUs on this
    machine; ``"auto"``, ``"host:port"`` or ``"ray://host:port"`` uses a running cluster whole
    (and a Ray instance this process has already initialised is used as it is).
    ``on_start``: called once every argument is checked, before the first game is played (when
    any is left to play); tt-arena prints the first-compile notice there
    (:func:`tt_env.precompile.notice_if_cold`).
    """
    specs = [str(s) for s in agent_specs]
    if seats is None:
        seats = rules.num_players if rules is not None else min(len(specs), 4)
    if rules is None:
        rules = Rules(num_players=seats)
    elif rules.num_players != seats:
        rules = rules.replace(num_players=seats)
    if episode not in ("game", "round"):
        raise ArenaError(f"episode must be 'game' or 'round', got {episode!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ArenaError(f"workers must be at least 1, got {workers!r}")
    if isinstance(games, bool) or not isinstance(games, int):
        raise ArenaError(f"games must be an integer, got {games!r}")
    if not specs:
        raise ArenaError("no agents to play")
    # Build every agent once here, so that a bad spec fails at once with a clear message.
    from .agents import make_agent

    for spec in dict.fromkeys(specs):
        make_agent(spec, seats, rules, 0)
    if replays is not None:
        try:
            os.makedirs(replays, exist_ok=True)
        except OSError as exc:
            raise ArenaError(f"cannot make the replays directory {replays}: {exc}") from None
    matches = schedule(len(specs), seats, games, seed)
    results = _check_done(done, matches)
    finished = {r.key for r in results}
    matches = [m for m in matches if m.key not in finished]

    if on_start is not None and matches:
        on_start()
    bar = _progress_bar(len(matches), progress)
    start = time.perf_counter()
    interrupted = False
    try:
        if ray_address is not None and matches:
            setup = (specs, rules, episode, None if replays is None else str(replays))
            workers = _play_on_ray(matches, setup, ray_address, workers, results, bar)
        elif workers == 1 or not matches:
            runner = _Runner(specs, rules, episode, replays)
            for match in matches:
                results.append(runner.play(match))
                bar.update(1)
        else:
            ctx = multiprocessing.get_context("spawn")
            chunk = max(1, min(8, len(matches) // (workers * 8)))
            initargs = (specs, rules, episode, None if replays is None else str(replays))
            # Chunks are lists played by one task (not ``chunksize``, which hides the iterator
            # whose ``next(timeout)`` lets a Ctrl-C be seen between two waits).
            chunks = [matches[i : i + chunk] for i in range(0, len(matches), chunk)]
            with CtrlC() as ctrl_c, _pool_ignoring_ctrl_c(ctx, workers, initargs) as pool:
                played = pool.imap_unordered(_play_in_worker, chunks)
                for _ in chunks:
                    finished_chunk = _next_chunk(played, ctrl_c)
                    results.extend(finished_chunk)
                    bar.update(len(finished_chunk))
    except KeyboardInterrupt:
        interrupted = True  # keep every finished game
    finally:
        bar.close()
    elapsed = elapsed_before + time.perf_counter() - start
    result = None
    if results or not interrupted:
        result = TournamentResult.from_results(
            specs, rules, seats, games, seed, episode, results, elapsed=elapsed, workers=workers
        )
    if interrupted:
        raise TournamentInterrupted(result)
    return result


def _check_done(done: Sequence[GameResult], matches: Sequence[Match]) -> list[GameResult]:
    """The games of ``done``, checked against the schedule (same seats at the same key, no
    game twice): they must come from the same tournament."""
    seats_at = {m.key: m.seats for m in matches}
    kept: dict[tuple[int, int, int], GameResult] = {}
    for r in done:
        if seats_at.get(r.key) != r.seats:
            raise ArenaError(
                f"game (deal {r.deal}, table {r.table}, rotation {r.rotation}) "
                "is not a game of this tournament (other agents, seats or deals)"
            )
        if r.key in kept:
            raise ArenaError(
                f"game (deal {r.deal}, table {r.table}, rotation {r.rotation}) appears twice"
            )
        kept[r.key] = r
    return list(kept.values())


class _NoBar:
    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


def _progress_bar(total: int, enabled: bool):
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, unit="game", desc="tt-arena", dynamic_ncols=True, leave=False)


# ---------------------------------------------------------------------------------- CLI
def default_agents(rules: Rules) -> tuple[list[str], list[str]]:
    """The agents of a plain ``tt-arena`` under ``rules``: the built-in agents and the shipped
    models (:data:`DEFAULT_MODELS`) trained for these rules; and a note for each model left out."""
    from .agents.learned import LearnedAgent, find_model
    from .model import ModelError, read_model_file

    specs, notes = list(DEFAULT_AGENTS), []
    for name in DEFAULT_MODELS:
        try:  # loads the whole file: a missing, damaged or unfit model is left out, not played
            path = find_model(name)
            if path is None:
                raise ModelError(f"no model named {name}")
            if read_model_file(path)[0].get("num_players") != rules.num_players:
                continue  # made for tables of another size: not a candidate
            LearnedAgent(str(path), rules.num_players, rules)
        except ModelError as exc:
            notes.append(f"{name} left out: {exc}")
            continue
        specs.append(name)
    return specs, notes


def build_parser() -> argparse.ArgumentParser:
    from ._cli import UNSET, Parser, add_rules_arguments, non_negative_int, positive_int

    parser = Parser(
        prog="tt-arena",
        description="Duplicate tournaments between Three Thirteen agents, with 95% intervals "
        "over deals. With no arguments: the built-in agents "
        f"({', '.join(DEFAULT_AGENTS)}) and the shipped models trained for the rules "
        f"({', '.join(DEFAULT_MODELS)}), {DEFAULT_GAMES} deals, 2 seats (a round "
        "robin of all pairs).",
        epilog="Agents: random, greedy, counting, module.path:ClassName (imports and runs that "
        "module: only name code you trust), or a saved model's path or name (models/). "
        "Ctrl-C keeps the games finished so far (in the --json file, or in "
        "tt-arena-interrupted-<time>.json) and --resume FILE plays the rest. "
        "Example: tt-arena greedy counting --games 200 --workers 2 --plot scores.png",
    )
    parser.add_argument(
        "agents",
        nargs="*",
        metavar="AGENT",
        help="agents to play (also comma-separated); default: "
        + " ".join(DEFAULT_AGENTS + DEFAULT_MODELS),
    )
    parser.add_argument(
        "--agents",
        dest="agents_opt",
        default=None,
        metavar="LIST",
        help="agents as one comma-separated list (instead of positionals)",
    )
    parser.add_argument(
        "--games",
        "-n",
        type=positive_int,
        default=None,
        help="deals; each is played once per seat rotation at every table "
        f"(default: {DEFAULT_GAMES}; with --resume: the file's, or more)",
    )
    parser.add_argument(
        "--seats",
        type=int,
        default=None,
        help="players per game, 2..8 (default: 2; tables are all combinations of that many agents)",
    )
    parser.add_argument(
        "--seed", type=non_negative_int, default=None, help="tournament seed (default: 0)"
    )
    parser.add_argument(
        "--workers",
        "-j",
        type=non_negative_int,
        default=0,
        help="processes; 0 = one per CPU core (default); with --ray: the CPUs of a local Ray "
        "instance; results do not depend on it",
    )
    parser.add_argument(
        "--ray",
        nargs="?",
        const="local",
        default=None,
        metavar="ADDRESS",
        help="play the games as Ray tasks (extra ray), with the same results: alone, on a local "
        "Ray instance; 'auto', host:port or ray://host:port: on that cluster, all its CPUs "
        "(give the agents before --ray)",
    )
    parser.add_argument(
        "--episode",
        choices=("game", "round"),
        default=None,
        help="score whole games (default) or only the first round",
    )
    parser.add_argument("--csv", metavar="PATH", help="write the leaderboard as CSV")
    parser.add_argument(
        "--json", metavar="PATH", help="write settings, statistics and every game as JSON"
    )
    parser.add_argument("--plot", metavar="PATH", help="write a PNG chart of the scores")
    parser.add_argument(
        "--replays",
        metavar="DIR",
        help="write every game's record (.json) and replay page (.html, see tt-replay) into DIR "
        "(made if missing), and DIR/index.html linking each game from the pairings",
    )
    parser.add_argument(
        "--resume",
        metavar="FILE",
        help="continue the tournament of a --json FILE (an interrupted run): "
        "play only its missing games, with its agents and settings, and "
        "write the whole result back to FILE (or to --json)",
    )
    parser.add_argument(
        "--quiet", "-q", action="store_true", help="no progress bar and no table (files only)"
    )
    parser.add_argument("--plain", action="store_true", help="plain-text table (no rich)")
    add_rules_arguments(parser)
    for action in parser._actions:  # to tell a --preset given from the default (--resume)
        if action.dest == "preset":
            action.default = UNSET
    return parser


@dataclass
class _Plan:
    """Everything a run of tt-arena needs, checked before any game is played."""

    specs: list[str] = field(default_factory=list)
    rules: Rules = field(default_factory=Rules)
    seats: int = 2
    games: int = DEFAULT_GAMES
    seed: int = 0
    episode: str = "game"
    workers: int = 1
    ray_address: str | None = None  # --ray: play on Ray (see run_tournament)
    done: list[GameResult] = field(default_factory=list)  # games of an interrupted run
    elapsed_before: float = 0.0
    json_path: str | None = None
    replays: str | None = None  # the directory of --replays
    notes: list[str] = field(default_factory=list)  # shipped models left out, and why


def _plan(args: argparse.Namespace) -> _Plan:
    """The run that ``args`` ask for, every argument checked (:class:`ValueError` or
    :class:`ArenaError` naming the first bad one); nothing is played or written."""
    import importlib.util

    from ._cli import UNSET, rule_overrides, rules_from_args
    from ._files import check_writable
    from .agents import split_specs

    plan = _Plan()
    given = [args.agents_opt] if args.agents_opt is not None else []
    given += list(args.agents)
    specs: list[str] = []
    for item in given:
        specs += split_specs(item)
    if given and not specs:
        raise ArenaError(
            f"no agent named in {' '.join(map(repr, given))}: give agent names "
            "such as 'greedy,counting' (or none for the default run)"
        )
    plan.workers = args.workers if args.workers > 0 else max(1, os.cpu_count() or 1)
    if args.ray is not None:  # before anything else: no game is played without Ray
        from ._ray import RayError, check_ray

        try:
            plan.ray_address = check_ray(
                args.ray, "--ray", "--ray", " (the agents go before --ray)"
            )
        except RayError as exc:
            raise ArenaError(str(exc)) from None
    plan.json_path = args.json
    if args.resume:
        settings_given = [
            flag
            for flag, value in (
                ("agents", specs),
                ("--seats", args.seats),
                ("--seed", args.seed),
                ("--episode", args.episode),
                ("--preset", None if args.preset is UNSET else 1),
                ("rule options", rule_overrides(args)),
            )
            if value
        ]
        if settings_given:
            raise ArenaError(
                f"--resume plays on with the agents and settings of "
                f"{args.resume}; do not give {', '.join(settings_given)} (only "
                "--games to add deals, --workers, --ray and the output options)"
            )
        settings, plan.done = load_results(args.resume)
        plan.specs, plan.seats = settings["agents"], settings["seats"]
        plan.seed, plan.episode = settings["seed"], settings["episode"]
        try:
            plan.rules = Rules.from_dict(settings["rules"])
        except ValueError as exc:
            raise ArenaError(f"{args.resume}: its rules are damaged ({exc})") from None
        plan.games = settings["games"] if args.games is None else args.games
        if plan.games < settings["games"]:
            raise ArenaError(
                f"--games {plan.games}: {args.resume} has {settings['games']} "
                "deals; --resume may add deals, not drop them"
            )
        plan.elapsed_before = float(settings.get("elapsed_seconds") or 0.0)
        plan.json_path = args.json or args.resume
    else:
        plan.seats = args.seats if args.seats is not None else 2
        plan.seed = args.seed if args.seed is not None else 0
        plan.episode = args.episode or "game"
        plan.games = args.games if args.games is not None else DEFAULT_GAMES
        if args.preset is UNSET:
            args.preset = "standard"
        plan.rules = rules_from_args(args, plan.seats)
        if not specs:
            specs, plan.notes = default_agents(plan.rules)
        plan.specs = specs
    outputs = {}
    for flag, path in (("--json", plan.json_path), ("--csv", args.csv), ("--plot", args.plot)):
        if path:
            target = os.path.realpath(check_writable(path, flag))
            if target in outputs:
                raise ArenaError(f"{flag} and {outputs[target]} name the same file {path}")
            outputs[target] = flag
    if args.plot and importlib.util.find_spec("matplotlib") is None:
        raise ArenaError("--plot needs matplotlib (pip install 'tt_env[arena]')")
    if args.replays is not None:
        plan.replays = _check_replays_dir(args.replays)
    return plan


def _check_replays_dir(path: str) -> str:
    """``path`` if it is a directory that can be written, or can be made (its parent can);
    :class:`ValueError` naming ``--replays`` otherwise. Makes nothing that stays."""
    from ._files import check_directory_writable

    what = f"--replays {path}"
    if path == "":
        raise ValueError("--replays '': not a directory name")
    if os.path.isdir(path):
        check_directory_writable(path, what)
    elif os.path.exists(path):
        raise ValueError(f"{what}: is a file, not a directory")
    else:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise ValueError(f"{what}: no such directory {parent}")
        check_directory_writable(parent, what)
    return path


def _write_outputs(
    result: TournamentResult,
    json_path: str | None,
    csv_path: str | None,
    plot_path: str | None,
    replays: str | None = None,
) -> bool:
    """Write the files asked for (each whole or not at all); False if one could not be."""

    def write_index(directory: str) -> None:  # the replays' index.html
        from .replay import write_tournament_index

        write_tournament_index(result, directory)

    ok = True
    for path, write in (
        (json_path, result.to_json),
        (csv_path, result.to_csv),
        (plot_path, result.plot),
        (replays, write_index),
    ):
        if not path:
            continue
        try:
            write(path)
        except OSError as exc:
            print(
                f"tt-arena: error: could not write {path}: {exc.strerror or exc}", file=sys.stderr
            )
            ok = False
    return ok


def main(argv: Sequence[str] | None = None) -> int:
    """``tt-arena``: run a tournament from the command line; returns the exit status."""
    from ._cli import one_line
    from .precompile import notice_if_cold

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        plan = _plan(args)
        for note in plan.notes if not args.quiet else ():
            print(f"tt-arena: {note}", file=sys.stderr)
        result = run_tournament(
            plan.specs,
            plan.rules,
            games=plan.games,
            seed=plan.seed,
            workers=plan.workers,
            seats=plan.seats,
            episode=plan.episode,
            progress=not args.quiet and sys.stderr.isatty(),
            done=plan.done,
            elapsed_before=plan.elapsed_before,
            replays=plan.replays,
            ray_address=plan.ray_address,
            # Not on Ray: this machine's cache says nothing of the nodes that play the games.
            on_start=None if args.quiet or plan.ray_address is not None else notice_if_cold,
        )
    except (ArenaError, ValueError, ImportError, FileNotFoundError) as exc:
        print(f"tt-arena: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:  # a replay of --replays that could not be written (a full disk)
        print(f"tt-arena: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except TournamentInterrupted as exc:
        return _interrupted(exc.result, plan, args)
    except KeyboardInterrupt:
        print("tt-arena: interrupted before any game was played", file=sys.stderr)
        return 130
    if not args.quiet:
        if args.plain:
            print(result.table())
        else:
            result.print()
    ok = _write_outputs(result, plan.json_path, args.csv, args.plot, plan.replays)
    if ok and plan.replays is not None and not args.quiet:
        print(f"tt-arena: replays in {os.path.join(plan.replays, 'index.html')}")
    return 0 if ok else 1


def _interrupted(result: TournamentResult | None, plan: _Plan, args: argparse.Namespace) -> int:
    """Ctrl-C: show and keep the games finished so far, and say how to play the rest."""
    if result is None:
        print("tt-arena: interrupted before any game finished; nothing written", file=sys.stderr)
        return 130
    json_path = plan.json_path or time.strftime("tt-arena-interrupted-%Y%m%d-%H%M%S.json")
    if not args.quiet:
        if args.plain:
            print(result.table())
        else:
            result.print()
    _write_outputs(result, json_path, args.csv, args.plot, plan.replays)
    if os.path.exists(json_path):
        print(
            f"tt-arena: interrupted: {len(result.results)} of {result.games_expected} games "
            f"finished, kept in {json_path}; play the rest with: tt-arena --resume "
            f"{json_path}",
            file=sys.stderr,
        )
    else:
        print(
            f"tt-arena: interrupted: {len(result.results)} of {result.games_expected} games "
            "finished, but they could not be written",
            file=sys.stderr,
        )
    return 130


if __name__ == "__main__":
    sys.exit(main())
