"""One game of a tournament (:func:`play_game`), its replay files, and the worker processes that
play games side by side."""

from __future__ import annotations

import json
import multiprocessing
import os
from collections.abc import Sequence
from typing import Any

from tt_env.agents.base import Forfeit
from tt_env.arena.forfeits import Forfeits
from tt_env.arena.schedule import AgentFailed, ArenaError, GameResult, Match
from tt_env.arena.stats import _labels
from tt_env.game.rules import Rules
from tt_env.util.files import write_text_atomically
from tt_env.util.workers import CtrlC, pool_ignoring_ctrl_c


# ---------------------------------------------------------------------------------- one game
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
    *,
    replays: str | os.PathLike | None = None,
    names: Sequence[str] | None = None,
) -> GameResult:
    """Play one game of ``match`` with ``agents[s]`` in seat ``s`` through the AEC environment.

    The agents get only the observation and the mask; the arena, as referee, reads the round
    results from the environment's engine, and rules on an agent that forfeits a round
    (:class:`tt_env.agents.Forfeit`, :mod:`tt_env.arena.forfeits`). With ``replays`` (a
    directory) the game's record, with the seats' ``names`` and the agents' explanations
    (:func:`tt_env.replay.explain_move`), and its replay page are written there
    (:func:`replay_name`).
    """
    from tt_env.env import aec as three_thirteen_v0

    if replays is not None:
        from tt_env.replay import explain_move
    notes: list[dict | None] = []

    env = three_thirteen_v0.raw_env(rules=rules, episode=episode)
    for agent, agent_seed in zip(agents, match.agent_seeds):
        reset = getattr(agent, "reset", None)
        if callable(reset):
            reset(agent_seed)
    env.reset(seed=match.env_seed)
    game = env.unwrapped.game
    forfeits = Forfeits(game, rules)
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
            forfeits.new_round()
            for agent in agents:
                hook = getattr(agent, "new_round", None)
                if callable(hook):
                    hook()
        seat = seat_of[name]
        mask = observation["action_mask"]
        forfeits.see(seat)
        action, note = None, None
        if seat not in forfeits.reasons:
            try:
                action = _action_of(agents[seat], seat, match, observation["observation"], mask)
            except Forfeit as exc:
                forfeits.forfeit(seat, str(exc) or "forfeited")
                note = {"kind": "forfeit", "values": {}, "text": forfeits.reasons[seat]}
        if action is None:  # out of this round: the referee passes for it
            action = forfeits.pass_move(seat, mask)
            note = note or {"kind": "forfeit", "values": {}, "text": "a pass (forfeited)"}
        elif replays is not None:
            note = explain_move(agents[seat], observation["observation"], mask)
        if replays is not None:
            notes.append(note)
        env.step(int(action))
        steps += 1
    if replays is not None:
        _write_replay(replays, match.key, game, names, notes)
    results = game.round_results
    if episode == "round":  # the environment stops after one round; score only that one
        results = results[:1]
    penalties = forfeits.penalties(results)
    scores = tuple(sum(p[seat] for p in penalties) for seat in range(len(agents)))
    best = min(scores)
    usage = tuple(_usage_of(agent, n) for agent, n in zip(agents, forfeits.counts))
    return GameResult(
        deal=match.deal,
        table=match.table,
        rotation=match.rotation,
        seats=match.seats,
        scores=scores,
        round_penalties=penalties,
        went_out=tuple(r.went_out for r in results),
        winners=tuple(s for s, score in enumerate(scores) if score == best),
        steps=steps,
        usage=usage if any(u is not None for u in usage) else (),
    )


def _action_of(agent: Any, seat: int, match: Match, observation, mask) -> int:
    """The legal action ``agent`` plays in ``seat``; an :class:`ArenaError` naming the agent,
    the seat and the game when it raises (:class:`AgentFailed`, with the traceback) or its
    answer is not a legal action."""
    import traceback

    from tt_env.agents.base import as_action
    from tt_env.encoding.actions import describe

    who = f"agent {getattr(agent, 'name', type(agent).__name__)!r} in seat {seat}"
    where = f"deal {match.deal}, table {match.table}, rotation {match.rotation}"
    try:
        chosen = agent.act(observation, mask)
    except Forfeit:
        raise
    except Exception as exc:
        raise AgentFailed(
            f"{who} raised {type(exc).__name__}: {exc} ({where}; tt-arena --debug shows the "
            "traceback)",
            "".join(traceback.format_exception(exc)),
        ) from exc
    try:
        action = as_action(chosen)
    except TypeError as exc:
        raise ArenaError(f"{who} did not answer with an action: {exc} ({where})") from None
    if not (0 <= action < mask.size and mask[action]):
        what = describe(action) if 0 <= action < mask.size else repr(action)
        raise ArenaError(f"{who} chose an illegal action: {what} ({where})")
    return action


def _usage_of(agent: Any, forfeits: int = 0) -> dict[str, float] | None:
    """The costs an agent reports for the game just played (``usage()``; counted since its
    ``reset``) with the rounds it forfeited (``forfeits``, the referee's count), or None when
    it reports none and forfeited none."""
    usage = getattr(agent, "usage", None)
    if not callable(usage):
        return {"forfeits": float(forfeits)} if forfeits else None
    counts = {str(k): float(v) for k, v in usage().items()}
    if forfeits or "forfeits" in counts:
        counts["forfeits"] = float(forfeits)
    return counts


def _write_replay(directory, key, game, names, notes) -> None:
    """A game's record (``.json``, with names and explanations) and its replay page
    (``.html``) in ``directory``, each written whole or not at all."""
    from tt_env.replay import annotated_record, write_replay

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
        from tt_env.agents import make_agent

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
    instruction (:func:`tt_env.util.workers.pool_ignoring_ctrl_c`): it is the main process's to
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
