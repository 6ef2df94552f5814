"""The runner (:func:`run_tournament`): a tournament played in this process, in worker processes
or on Ray, with a progress bar, resumable after a Ctrl-C."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Callable, Sequence

from tt_env.arena.games import (
    GameResult,
    _next_chunk,
    _play_in_worker,
    _pool_ignoring_ctrl_c,
    _Runner,
)
from tt_env.arena.on_ray import _play_on_ray
from tt_env.arena.results import TournamentResult
from tt_env.arena.schedule import (
    DEFAULT_AGENTS,
    DEFAULT_GAMES,
    ArenaError,
    Match,
    TournamentInterrupted,
    schedule,
)
from tt_env.game.rules import Rules
from tt_env.util.workers import CtrlC


# ---------------------------------------------------------------------------------- the runner
def run_tournament(
    agent_specs: Sequence[str] = DEFAULT_AGENTS,
    rules: Rules | None = None,
    games: int = DEFAULT_GAMES,
    seed: int = 0,
    *,
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
    any is left to play); tt-arena loads the compiled kernel there, which says in one line if it
    is not built (:func:`tt_env.game.melds.kernel_module`).
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
    from tt_env.agents import make_agent

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
    # the estimate once every worker has played a few games
    bar = _progress_bar(len(matches), progress, warm=3 * max(1, workers))
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
            specs,
            rules,
            seats=seats,
            games=games,
            seed=seed,
            episode=episode,
            results=results,
            elapsed=elapsed,
            workers=workers,
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


# Until the first games are in, the bar gives no rate and no time left: a worker's first game
# also loads its agents (a model, the solver's tables), and an estimate from it alone misleads.
WARMING_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}, estimating]"


class _WarmingBar:
    """A tqdm bar that shows its rate and time left once ``warm`` games are done."""

    def __init__(self, bar, warm: int) -> None:
        self.bar = bar
        self.warm = warm

    def update(self, n: int = 1) -> None:
        self.bar.update(n)
        if self.bar.bar_format is not None and self.bar.n >= self.warm:
            self.bar.bar_format = None  # tqdm's own format: rate and time left
            self.bar.refresh()

    def close(self) -> None:
        self.bar.close()


def _progress_bar(total: int, enabled: bool, warm: int = 0, file=None):
    """A progress bar over ``total`` games (none when not ``enabled`` or without tqdm); its
    estimate shows after ``warm`` games."""
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    warm = min(warm, total)
    bar = tqdm(
        total=total,
        unit="game",
        desc="tt-arena",
        dynamic_ncols=True,
        leave=False,
        file=file,
        bar_format=WARMING_FORMAT if warm > 0 else None,
    )
    return _WarmingBar(bar, warm)
