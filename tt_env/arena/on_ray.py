"""A tournament's games as Ray tasks (``tt-arena --ray``): on a local Ray instance or a cluster."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from tt_env.arena.games import _Runner
from tt_env.arena.schedule import ArenaError, GameResult, Match
from tt_env.util.workers import CtrlC

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
    returns the number of CPUs they ran on. ``address``: see :func:`tt_env.util.ray.ray_session`
    (a local instance gets ``workers`` CPUs, a cluster is used whole). Ctrl-C cancels the tasks
    still running and raises KeyboardInterrupt, the finished games kept in ``results``."""
    from tt_env.util.ray import RayError, ray_session, task_error_cause

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
