"""Game records for the replay tests and benchmark: games played by agents (with their
explanations), and quick games of random legal moves."""

from __future__ import annotations

import numpy as np

from tt_env.agents import make_agent
from tt_env.env import aec as three_thirteen_v0
from tt_env.game.engine import Game, MoveKind
from tt_env.game.rules import Rules
from tt_env.replay import annotated_record, explain_move


def play_record(
    rules: Rules, specs, seed: int = 0, explain: bool = False, episode: str = "game"
) -> dict:
    """A game (or its first round) played by agents through the environment, as an
    (annotated) record."""
    env = three_thirteen_v0.raw_env(rules=rules, episode=episode)
    n = rules.num_players
    agents = [make_agent(spec, n, rules, seed + s) for s, spec in enumerate(specs)]
    env.reset(seed=seed)
    notes = []
    for name in env.agent_iter():
        obs, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        agent = agents[int(name.rsplit("_", 1)[1])]
        action = agent.act(obs["observation"], obs["action_mask"])
        notes.append(explain_move(agent, obs["observation"], obs["action_mask"]))
        env.step(action)
    return annotated_record(env.unwrapped.game, list(specs), notes if explain else None)


def quick_record(rules: Rules, seed: int = 0) -> dict:
    """A whole game of seeded random legal moves that go out when they can (engine only)."""
    game = Game(rules, seed=seed)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        moves = game.legal_moves()
        outs = [m for m in moves if m.kind == MoveKind.GO_OUT]
        game.apply(outs[0] if outs else moves[int(rng.integers(len(moves)))])
    return game.record()
