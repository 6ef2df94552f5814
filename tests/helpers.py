"""Builders that several test modules share: a tiny model file, a checked game of an agent,
recorded positions of games, a training run of seconds."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tt_env import three_thirteen_v0
from tt_env.agents import make_agent
from tt_env.game.rules import Rules
from tt_env.learned.features import CardFeatures
from tt_env.learned.model import build_metadata, parameter_shapes, save_model

# Rule sets that together set every option of Rules at least once (as keyword arguments of
# Rules and of the environments).
RULE_OPTIONS = {
    "standard": {},
    "3p-one-wild": dict(num_players=3, max_wilds_per_meld=1, unused_wild_penalty=15),
    "4p-jokers-layoff": dict(num_players=4, jokers_per_deck=2, joker_layoff=True),
    "2p-aces-court": dict(aces_high=True, court_values=True),
    "2p-extra-there-back": dict(extra_rounds=2, there_and_back=True),
    "3p-redemption-double": dict(num_players=3, redemption=True, double_court_rounds=True),
    "2p-all-wild": dict(all_wild_melds=True, jokers_per_deck=1, num_decks=2),
    "3p-false-out": dict(num_players=3, false_out_penalty=20),
    "2p-upcard-cap": dict(discard_drawn_upcard=True, max_turns_per_round=8),
}


def tiny_model(path: Path, rules: Rules, lookahead: bool = False, seed: int = 0) -> Path:
    """A small model with random weights (it plays legal, if poor, moves)."""
    features = CardFeatures(rules, lookahead=lookahead)
    kwargs = {"global_width": features.global_width, "card_hidden": 8, "trunk_hidden": 8}
    rng = np.random.default_rng(seed)
    weights = {
        name: rng.normal(0, 0.3, shape) for name, shape in parameter_shapes(**kwargs).items()
    }
    return save_model(path, weights, build_metadata(rules, features, kwargs))


def play_checked(agent, seed: int, rules: Rules | None = None, max_turns: int = 20) -> int:
    """A whole game of ``agent`` against itself, checking every action against the mask."""
    env = three_thirteen_v0.raw_env(rules=rules or Rules(max_turns_per_round=max_turns))
    env.reset(seed=seed)
    moves = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)
        moves += 1
    return moves


def tiny_config(tmp_path: Path, **changes):
    """A training run of seconds (a TrainConfig; needs the train extra)."""
    from tt_env.train import TrainConfig

    values = dict(
        backend="sb3",  # the machinery these tests check (tests/train/test_lean.py: "lean")
        run_dir=str(tmp_path / "runs"),
        run_name="tiny",
        seed=3,
        vec_env="batch",
        n_envs=2,
        n_steps=256,
        batch_size=256,
        n_epochs=2,
        total_timesteps=1024,
        episode="round",
        opponents="greedy=1,random=1,league=1",
        bc_teacher="greedy",
        bc_samples=300,
        bc_epochs=1,
        bc_opponents="random",
        checkpoint_every=512,
        league_every=512,
        eval_every=0,
        eval_games=2,
        eval_episode="round",
        eval_workers=1,
        progress_bar=False,
        card_hidden=16,
        trunk_hidden=32,
    )
    values.update(changes)
    return TrainConfig(**values)


def sb3_steps(checkpoint: Path) -> int:
    """The step count of a stable-baselines3 checkpoint."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(checkpoint, device="cpu").num_timesteps


def positions(rules, count, seed):
    """(observation, mask) of the seat to move in games of counting against greedy."""
    env = three_thirteen_v0.raw_env(rules=rules)
    n = rules.num_players
    agents = [make_agent("counting" if i % 2 == 0 else "greedy", n, rules, seed) for i in range(n)]
    out = []
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                seed += 1
                env.reset(seed=seed)
            continue
        out.append((obs["observation"].copy(), obs["action_mask"].copy()))
        if len(out) >= count:
            return out
        env.step(agents[env.possible_agents.index(agent)].act(*out[-1]))
