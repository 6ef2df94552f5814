"""Training learned agents: MaskablePPO on the single-agent view against a pool of opponents.

``tt-train`` (this module's :func:`main`) trains one policy for any number of players and any
rules, in the manner of CleanRL's ``ppo.py``: one :class:`TrainConfig` dataclass holds every
setting with a line of help under each field; a config file (TOML or YAML) and command-line flags
override it, in that order. One run writes everything into ``runs/<run name>/``:

====================  ==========================================================================
file                  what
====================  ==========================================================================
``config.toml``       the resolved configuration (``tt-train --config`` reads it back)
``command.txt``       the exact command of every start and resume of the run, one per line
``tb/``               TensorBoard logs (``tensorboard --logdir runs``)
``progress.csv``      mean round reward per opponent kind, per rollout (the learning curve)
``evaluations.csv``   periodic arena evaluations: mean score difference with 95% intervals
``checkpoints/``      stable-baselines3 checkpoints (``ckpt_<steps>.zip``), for ``--resume``
``league/``           snapshots of the learner (model files) that the self-play league plays
``bc.npz``            the behaviour-cloning warm start (when ``bc_teacher`` is set)
``bc_data.npz``       the teacher's decisions it was fitted to (``bc_data`` of a later run
                      fits them again, alone or with others, without playing them again)
``model.npz``         the final model (``best.npz``: the best evaluation against the first
                      evaluation opponent)
``learning_curve.png``  the plot of ``progress.csv`` and ``evaluations.csv`` (:func:`plot_run`)
====================  ==========================================================================

How it learns:

1. **Features.** The policy sees :class:`~tt_env.learned.features.CardFeatures` of the observation
   (what a player can compute from its own hand and the public cards, via the exact solver),
   through the card-equivariant network :class:`~tt_env.learned.network.CardNet`. The model file
records the transform.
2. **Warm start** (optional, ``bc_teacher``): behaviour cloning of a heuristic agent (by default
   :class:`~tt_env.agents.CountingAgent`): its decisions in ``bc_samples`` positions, a
   cross-entropy fit of the policy and a fit of the value to the rounds' returns.
3. **PPO** (sb3-contrib's ``MaskablePPO``) against opponents drawn per episode and per seat from a
   weighted pool: ``random``, ``greedy``, ``counting``, any agent spec, and ``league``: the latest
   snapshots of the learner itself (a self-play league, refreshed every ``league_every`` steps).
   With ``episode="round"`` (default) an episode is one round and the next reset plays the next
   round of the same game, so every round size is trained; ``reward="relative"`` (default) pays
   the opponents' mean penalty minus the own at the end of each round: the score difference that
   duplicate tournaments measure, not a shaped proxy.
4. **Evaluation** every ``eval_every`` steps: a duplicate tournament of the current policy against
   each of ``eval_opponents`` (:func:`tt_env.arena.run_tournament`), logged with its 95% interval.

Resuming: ``tt-train --resume runs/<name>`` reloads the run's config and its last checkpoint and
continues; the step count, the logs and the league carry on (flags given with ``--resume``, such as
a larger ``--total-timesteps``, override the saved config; the rules may not change).
"""

from __future__ import annotations

import argparse
import ast
import copy
import csv
import dataclasses
import datetime as _dt
import functools
import inspect
import io
import json
import math
import multiprocessing
import os
import platform
import random
import re
import reprlib
import shlex
import shutil
import sys
import time
import zipfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from torch import nn

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.game.rules import FIELD_NAMES, Rules
from tt_env.learned.features import CardFeatures
from tt_env.learned.model import ModelError, build_metadata, save_model
from tt_env.learned.network import CardNet, masked_logits, numpy_weights
from tt_env.util.cli import UNSET, Parser, one_line, rule_overrides  # UNSET: "flag not given"
from tt_env.util.files import atomic_file, atomic_path, write_text_atomically
from tt_env.util.workers import CtrlC, pool_ignoring_ctrl_c

BUILTIN_OPPONENTS = ("random", "greedy", "counting")
LEAGUE = "league"
SELF = "self"  # backend "rllib": a seat played by the learning policy (self-play)


# ---------------------------------------------------------------------------------- config
@dataclass
class TrainConfig:
    """Every setting of a training run (``tt-train --help`` lists them with their help)."""

    exp_name: str = "ppo_cards"
    """name of the experiment: the start of the run name"""
    seed: int = 0
    """seed of torch, numpy, the environments, the opponents and the evaluations"""
    players: int = 2
    """number of players, 2..8"""
    preset: str = "standard"
    """rule preset ("standard", "one-wild"); the rule options of [rules] or of flags override it"""
    rules: dict = field(default_factory=dict)
    """rule options (fields of tt_env.Rules) on top of the preset"""
    episode: str = "round"
    """"round": an episode is one round (quicker credit assignment); "game": a whole game"""
    reward: str = "relative"
    """"relative": opponents' mean penalty minus the own per round; "penalty": minus the own"""
    reward_scale: float = 0.05
    """factor applied to rewards for PPO (keeps values near 1; the objective is unchanged)"""
    baseline: str = ""
    """duplicate deals: pay each round's reward less this agent's on the same deal in the
    learner's seat ("counting"; needs episode="round"); "": the plain reward"""
    opponents: str = "counting=0.35,greedy=0.3,random=0.05,league=0.3"
    """opponent pool as agent=weight, drawn per episode and seat; league: the learner's snapshots"""
    league_every: int = 100_000
    """steps between snapshots of the learner added to the league"""
    league_size: int = 5
    """the league plays the latest this many snapshots"""
    lookahead: bool = True
    """features: expected gain of the next draw for the best discards (costlier, stronger)"""
    card_hidden: int = 64
    """width of the per-card layers of CardNet"""
    trunk_hidden: int = 128
    """width of the hidden layer of CardNet's global trunk"""
    total_timesteps: int = 1_000_000
    """PPO steps of the learner (the behaviour-cloning positions are not counted)"""
    n_envs: int = 4
    """parallel environments"""
    vec_env: str = "subproc"
    """"subproc": one process per environment (SubprocVecEnv); "dummy": all in this process"""
    learning_rate: float = 1e-4
    """Adam learning rate of PPO"""
    n_steps: int = 512
    """steps per environment per rollout"""
    batch_size: int = 512
    """PPO minibatch size"""
    n_epochs: int = 4
    """PPO epochs per rollout"""
    gamma: float = 1.0
    """discount (a round is short and only its end is rewarded)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.003
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    target_kl: float = 0.0
    """stop a PPO update early past this KL (0: never)"""
    bc_teacher: str = "counting"
    """agent to imitate before PPO (behaviour cloning warm start); "" or "none": from scratch"""
    bc_samples: int = 100_000
    """teacher decisions collected for the warm start"""
    bc_epochs: int = 6
    """epochs of the warm-start fit"""
    bc_lr: float = 1e-3
    """learning rate of the warm-start fit"""
    bc_batch_size: int = 512
    """minibatch size of the warm-start fit"""
    bc_opponents: str = "counting=0.5,greedy=0.4,random=0.1"
    """opponent pool of the teacher's games"""
    bc_data: str = ""
    """teacher decisions saved by earlier runs (their bc_data.npz; several: comma-separated) to
    fit instead of collecting new ones ("": collect bc_samples)"""
    checkpoint_every: int = 50_000
    """steps between checkpoints"""
    eval_every: int = 200_000
    """steps between evaluations (0: only at the end)"""
    eval_opponents: str = "greedy"
    """agents the evaluations play against (comma-separated); the first one picks best.npz"""
    eval_games: int = 60
    """deals per evaluation and opponent (each played in every seat rotation)"""
    eval_episode: str = "game"
    """"game": evaluate on whole games (the arena's default); "round": first rounds only"""
    eval_seed: int = 2024
    """tournament seed of the evaluations (the same deals every time)"""
    eval_workers: int = 0
    """processes of an evaluation (0: one per core)"""
    run_dir: str = "runs"
    """directory of the runs"""
    run_name: str = ""
    """name of the run ("": exp_name, players, seed and the time)"""
    output: str = ""
    """also copy the final model here (e.g. models/ppo_2p_standard.npz)"""
    final_model: str = "best"
    """model copied to output: "best" (best evaluation) or "last\""""
    progress_bar: bool = True
    """show a progress bar"""
    threads: int = 1
    """torch threads (more rarely helps with these small networks)"""
    backend: str = "sb3"
    """"sb3": MaskablePPO (sb3-contrib) here and in env processes; "rllib": RLlib's PPO on Ray
    (extra ray), its env runners in parallel processes or on a cluster (tt_env.train.rllib)"""
    env_runners: int = 2
    """backend "rllib": RLlib env runners, each a process sampling n_envs environments (0: sample
    in the learner's process)"""
    ray_address: str = "local"
    """backend "rllib": "local" (a Ray instance on this machine, one CPU per env runner), "auto",
    host:port or ray://host:port (a running cluster: ray start --head)"""

    def __post_init__(self) -> None:
        self.validate()

    def validate(self) -> None:
        """Raise :class:`ValueError` naming the first setting of the wrong type or out of range
        (a float setting given as an integer becomes a float)."""
        for name, f in CONFIG_FIELDS.items():
            value = getattr(self, name)
            kind = str(f.type)
            if kind == "float" and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
                setattr(self, name, value)
            expected = {"int": int, "float": float, "str": str, "bool": bool, "dict": dict}[kind]
            if not isinstance(value, expected) or (expected is int and isinstance(value, bool)):
                raise ValueError(
                    f"setting {name} must be {_KIND_WORDS[kind]}, got "
                    f"{type(value).__name__} {_short(value)}"
                )
            if kind == "float" and not math.isfinite(value):
                raise ValueError(f"setting {name} must be a finite number, got {value}")
            low, high = _RANGES.get(name, (None, None))
            if (low is not None and value < low) or (high is not None and value > high):
                where = f"{low}..{high}" if high is not None else f">= {low}"
                raise ValueError(f"setting {name} must be {where}, got {value}")
            if name in _POSITIVE and not value > 0:
                raise ValueError(f"setting {name} must be > 0, got {value}")
            if name in _CHOICES and value not in _CHOICES[name]:
                raise ValueError(
                    f"setting {name} must be one of "
                    f"{', '.join(map(repr, _CHOICES[name]))}, got {_short(value)}"
                )
        for name in ("exp_name", "run_name"):
            value = getattr(self, name)
            if "/" in value or os.sep in value or value in (".", "..") or "\0" in value:
                raise ValueError(
                    f"setting {name} is part of a directory name: no '/', '.' or "
                    f"'..', got {value!r}"
                )
        if not all(isinstance(k, str) for k in self.rules):
            raise ValueError("setting rules must map rule option names to values")
        if self.n_steps * self.n_envs < 2:
            raise ValueError("n_steps x n_envs must be at least 2 (a PPO rollout)")

    def make_rules(self) -> Rules:
        unknown = set(self.rules) - set(FIELD_NAMES)
        if unknown:
            raise ValueError(f"unknown rule option(s) in rules: {', '.join(sorted(unknown))}")
        return Rules.preset(self.preset, **{**self.rules, "num_players": self.players})


CONFIG_FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}
_KIND_WORDS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "dict": "a table of rule options",
}
_RANGES: dict[str, tuple[float | None, float | None]] = {
    "seed": (0, None),
    "players": (2, 8),
    "league_every": (0, None),
    "league_size": (1, None),
    "card_hidden": (1, None),
    "trunk_hidden": (1, None),
    "total_timesteps": (0, None),
    "n_envs": (1, None),
    "n_steps": (1, None),
    "batch_size": (2, None),
    "n_epochs": (1, None),
    "gamma": (0.0, 1.0),
    "gae_lambda": (0.0, 1.0),
    "ent_coef": (0.0, None),
    "vf_coef": (0.0, None),
    "target_kl": (0.0, None),
    "bc_samples": (1, None),
    "bc_epochs": (0, None),
    "bc_batch_size": (1, None),
    "checkpoint_every": (0, None),
    "eval_every": (0, None),
    "eval_games": (1, None),
    "eval_seed": (0, None),
    "eval_workers": (0, None),
    "threads": (1, None),
    "env_runners": (0, None),
}
_POSITIVE = {"reward_scale", "learning_rate", "clip_range", "max_grad_norm", "bc_lr"}
_CHOICES = {
    "episode": ("round", "game"),
    "reward": ("relative", "penalty"),
    "vec_env": ("subproc", "dummy"),
    "eval_episode": ("game", "round"),
    "final_model": ("best", "last"),
    "backend": ("sb3", "rllib"),
}


def _short(value: Any) -> str:
    return reprlib.repr(value)


@functools.cache
def config_help() -> dict[str, str]:
    """The line of help under each field of :class:`TrainConfig`, read from its source."""
    try:
        tree = ast.parse(inspect.getsource(TrainConfig))
    except (OSError, TypeError, SyntaxError):
        return {}
    helps: dict[str, str] = {}
    body = tree.body[0].body  # type: ignore[attr-defined]
    for node, nxt in zip(body, body[1:]):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(nxt, ast.Expr)
            and isinstance(nxt.value, ast.Constant)
        ):
            helps[node.target.id] = " ".join(str(nxt.value.value).split())
    return helps


def parse_pool(text: str | dict[str, float]) -> dict[str, float]:
    """``"counting=0.4,greedy=0.3"`` (or a dict) as ``{agent: weight}``; weights need not sum
    to 1. A name without ``=`` has weight 1."""
    if isinstance(text, dict):
        items = [(str(k), float(v)) for k, v in text.items()]
    else:
        items = []
        from tt_env.agents import split_specs

        for part in split_specs(str(text)):
            # the weight follows the last "=" outside an agent's options
            head, _, tail = part.rpartition("=")
            if ")" in tail or not head or head.count("(") != head.count(")"):
                name, weight = part, ""
            else:
                name, weight = head, tail
            try:
                items.append((name.strip(), float(weight) if weight else 1.0))
            except ValueError:
                raise ValueError(f"opponent pool: bad weight in {part!r}") from None
    for name, w in items:
        if not name:
            raise ValueError(f"opponent pool {text!r}: a weight without an agent name")
        if not math.isfinite(w) or w < 0:
            raise ValueError(f"opponent pool: the weight of {name} must be a number >= 0, got {w}")
    pool = {name: w for name, w in items if w > 0}
    if not pool:
        raise ValueError(f"opponent pool {text!r} has no agent with a positive weight")
    return pool


def load_config_file(path: str | os.PathLike) -> dict[str, Any]:
    """A config file (``.toml``, ``.yaml``/``.yml``) as a dict of :class:`TrainConfig` fields.

    ``[rules]`` holds rule options; ``opponents``/``bc_opponents`` may be tables of weights.
    """
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"config {path}: is a directory, not a file")
    try:
        text = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise ValueError(f"config {path}: no such file") from None
    except OSError as exc:
        raise ValueError(f"config {path}: cannot read it ({exc.strerror or exc})") from None
    except UnicodeDecodeError:
        raise ValueError(f"config {path}: not UTF-8 text") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as exc:
                raise ValueError(
                    f"config {path}: not valid YAML: {' '.join(str(exc).split())}"
                ) from None
            data = {} if data is None else data
        else:
            try:
                import tomllib
            except ImportError:  # Python 3.10
                import tomli as tomllib  # type: ignore[no-redef]
            try:
                data = tomllib.loads(text)
            except tomllib.TOMLDecodeError as exc:
                raise ValueError(
                    f"config {path}: not valid TOML ({exc}); a .yaml or .yml file is read as YAML"
                ) from None
    except RecursionError:
        raise ValueError(f"config {path}: nested too deeply to be a config") from None
    if not isinstance(data, dict):
        raise ValueError(f"config {path}: expected a table of settings, got {type(data).__name__}")
    unknown = [k for k in data if k not in CONFIG_FIELDS]
    if unknown:
        raise ValueError(
            f"config {path}: unknown setting(s) {', '.join(sorted(map(str, unknown)))}"
        )
    for key in ("opponents", "bc_opponents"):
        if isinstance(data.get(key), dict):
            data[key] = ",".join(f"{k}={v}" for k, v in data[key].items())
    return data


def check_run(config: TrainConfig, resume_dir: str | os.PathLike | None = None) -> Rules:
    """Check everything a run needs before any work starts or any file is written: the rules,
    every agent named (opponent pools, teacher, evaluation opponents: built once here, in this
    process, so that a bad name fails now and not inside the environment processes), and the
    places the run writes to. Raises :class:`ValueError` naming the first problem; returns the
    rules."""
    from tt_env.agents import make_agent

    rules = config.make_rules()
    n = rules.num_players
    pools = [("opponents", config.opponents)]
    from tt_env.agents import split_specs

    named = [("eval_opponents", s) for s in split_specs(config.eval_opponents)]
    if config.bc_teacher.strip().lower() not in ("", "none"):
        pools.append(("bc_opponents", config.bc_opponents))
        named.append(("bc_teacher", config.bc_teacher.strip()))
        for path in _data_paths(config.bc_data):
            if not path.is_file():
                raise ValueError(f"setting bc_data: no such file: {path}")
    if config.baseline.strip():
        if config.episode != "round":
            raise ValueError("setting baseline: duplicate deals need episode = 'round'")
        named.append(("baseline", config.baseline.strip()))
    for setting, text in pools:
        try:
            pool = parse_pool(text)
        except ValueError as exc:
            raise ValueError(f"setting {setting}: {exc}") from None
        named += [(setting, name) for name in pool if name not in (LEAGUE, SELF)]
    _check_backend(config, resume_dir)  # the pools parse: what may they hold?
    for setting, spec in dict.fromkeys(named):
        try:
            make_agent(spec, n, rules, 0)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"setting {setting}: {exc}") from None
    if resume_dir is not None:
        root = Path(resume_dir)
        if not (root / "config.toml").is_file():
            raise ValueError(f"--resume {resume_dir}: not a run directory (no config.toml)")
        _check_can_create(root / "checkpoints" / "probe", f"--resume {resume_dir}")
    else:
        _check_can_create(Path(config.run_dir) / "probe", f"run_dir {config.run_dir}")
    if config.output:
        _check_can_create(Path(config.output), f"output {config.output}")
    return rules


def _check_backend(config: TrainConfig, resume_dir: str | os.PathLike | None) -> None:
    """The settings that only one backend has (:mod:`tt_env.train.rllib` says what the
    rllib backend takes), and Ray for the rllib backend: :class:`ValueError` naming the first."""
    pool = parse_pool(config.opponents)
    if SELF in parse_pool(config.bc_opponents) and config.bc_teacher.strip().lower() not in (
        "",
        "none",
    ):
        raise ValueError(f"setting bc_opponents: {SELF} has no policy to play before training")
    if config.backend == "sb3":
        if SELF in pool:
            raise ValueError(
                f"setting opponents: {SELF} (the learning policy itself in a seat) needs "
                f"backend = 'rllib'; the sb3 backend plays its own snapshots as {LEAGUE}"
            )
        return
    from tt_env.util.ray import RayError, check_ray

    refused = [
        (resume_dir is not None, "--resume: the rllib backend starts runs afresh"),
        (bool(config.baseline.strip()), "setting baseline: duplicate deals are the sb3 backend's"),
        (
            LEAGUE in pool,
            f"setting opponents: {LEAGUE} (snapshots on this machine's disk) is the sb3 "
            f"backend's; the rllib backend plays the learning policy itself as {SELF}, e.g. "
            f"'counting=0.4,greedy=0.3,{SELF}=0.3'",
        ),
        (config.target_kl > 0, "setting target_kl: the rllib backend never stops an update early"),
    ]
    for bad, message in refused:
        if bad:
            raise ValueError(f"{message} (backend = 'rllib')")
    try:
        check_ray(config.ray_address, "backend = 'rllib'", "setting ray_address")
    except RayError as exc:
        raise ValueError(str(exc)) from None


def _check_can_create(path: Path, what: str) -> None:
    """:class:`ValueError` unless ``path`` (and its missing directories) can be created."""
    from tt_env.util.files import check_directory_writable

    if path.is_dir():
        raise ValueError(f"{what}: {path} is a directory")
    existing = path.parent
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{what}: {existing} is a file, not a directory")
    check_directory_writable(existing, what)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(str(value))  # a JSON string is a valid TOML basic string


def config_to_toml(config: TrainConfig) -> str:
    """The config as TOML (what ``config.toml`` holds); ``None`` rule values are left out
    (they mean "automatic", the default)."""
    lines = ["# tt-train configuration (tt-train --config this-file)"]
    for name in CONFIG_FIELDS:
        if name == "rules":
            continue
        lines.append(f"{name} = {_toml_value(getattr(config, name))}")
    lines.append("")
    lines.append("[rules]")
    for key, value in config.rules.items():
        if value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------------- CLI
def build_parser() -> argparse.ArgumentParser:
    from tt_env.util.cli import add_rules_arguments

    parser = Parser(
        prog="tt-train",
        description="Train a Three Thirteen agent with MaskablePPO (sb3-contrib) against a pool "
        "of opponents and a self-play league. Settings: defaults < --config file < "
        "flags. 'tt-train plot RUN_DIR' draws a run's learning curve.",
        epilog="Example: tt-train --config training/config/ppo_2p_standard.toml "
        "--output models/ppo_2p_standard.npz",
    )
    parser.add_argument("--config", metavar="FILE", help="TOML or YAML file of settings")
    parser.add_argument(
        "--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint"
    )
    helps = config_help()
    for name, f in CONFIG_FIELDS.items():
        if name in ("rules", "preset"):
            continue  # --preset and the rule flags come from add_rules_arguments
        flag = "--" + name.replace("_", "-")
        text = helps.get(name, "")
        default = f.default
        kind = {"bool": bool, "int": int, "float": float}.get(str(f.type), str)
        if kind is bool:
            parser.add_argument(
                flag,
                default=UNSET,
                action=argparse.BooleanOptionalAction,
                help=f"{text} (default: {default})",
            )
        else:
            parser.add_argument(
                flag, default=UNSET, type=kind, help=f"{text} (default: {default!r})"
            )
    add_rules_arguments(parser)
    for action in parser._actions:  # the preset's default comes from the config, not argparse
        if action.dest == "preset":
            action.default = UNSET
    return parser


def config_from_args(
    args: argparse.Namespace, base: dict[str, Any] | None = None
) -> tuple[TrainConfig, dict[str, Any]]:
    """The config of defaults < ``base`` (a config file) < the flags given; also returns the
    settings given as flags."""
    values: dict[str, Any] = dict(base or {})
    given: dict[str, Any] = {}
    for name in CONFIG_FIELDS:
        if name == "rules":
            continue
        value = getattr(args, name, UNSET)
        if value is not UNSET:
            given[name] = value
    rule_flags = rule_overrides(args)
    if rule_flags:
        given["rules"] = {**values.get("rules", {}), **rule_flags}
    values.update(given)
    config = TrainConfig(**values)
    config.rules = dict(config.rules)
    return config, given


# ---------------------------------------------------------------------------------- opponents
class OpponentPool:
    """Agents drawn per episode with weights; ``league`` draws one of the latest snapshots
    (model files in ``league_dir``) of the learner. Each seat keeps its own agent instances."""

    def __init__(
        self,
        weights: dict[str, float],
        rules: Rules,
        seed: int,
        league_dir: str | None = None,
        league_size: int = 5,
    ) -> None:
        self.rules = rules
        self.weights = dict(weights)
        self.rng = np.random.default_rng(seed)
        self.league_dir = Path(league_dir) if league_dir else None
        self.league_size = league_size
        self._agents: dict[tuple[int, str], Any] = {}

    def league(self) -> list[Path]:
        """The snapshots the league plays, oldest first."""
        if self.league_dir is None or not self.league_dir.is_dir():
            return []
        found = sorted(self.league_dir.glob("step_*.npz"), key=_step_of)
        return found[-self.league_size :]

    def sample(self, seat: int) -> tuple[str, Any]:
        """``(label, agent)`` for one seat in the next episode."""
        names = list(self.weights)
        snapshots = self.league() if LEAGUE in self.weights else []
        if not snapshots and LEAGUE in names:
            names.remove(LEAGUE)
            if not names:  # only the league, and no snapshot yet: the first heuristic
                names = ["counting"]
        w = np.array([self.weights.get(n, 1.0) for n in names], float)
        name = names[int(self.rng.choice(len(names), p=w / w.sum()))]
        spec = str(snapshots[int(self.rng.integers(len(snapshots)))]) if name == LEAGUE else name
        key = (seat, spec)
        agent = self._agents.get(key)
        if agent is None:
            from tt_env.agents import make_agent

            if name == LEAGUE:  # forget snapshots that left the league
                live = {str(p) for p in snapshots}
                for old in [
                    k
                    for k in self._agents
                    if k[0] == seat
                    and k[1].endswith(".npz")
                    and k[1] not in live
                    and Path(k[1]).parent == self.league_dir
                ]:
                    del self._agents[old]
            agent = make_agent(
                spec, self.rules.num_players, self.rules, int(self.rng.integers(2**31))
            )
            self._agents[key] = agent
        return name, agent


def _step_of(path: Path) -> int:
    match = re.search(r"(\d+)", path.stem)
    return int(match.group(1)) if match else -1


def _int_or_none(text: Any) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _checkpoint_is_whole(path: Path) -> bool:
    """Whether a stable-baselines3 checkpoint is a whole zip (every entry's CRC checked),
    with its data and policy."""
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.testzip() is None and {"data", "policy.pth"} <= set(archive.namelist())
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, RuntimeError):
        return False


class PoolSeat:
    """One opponent seat of the single-agent view; :class:`TrainingEnv` swaps its agent per
    episode. It forwards the agent protocol (``act``, ``reset``, ``new_round``)."""

    name = "pool"

    def __init__(self) -> None:
        self.agent: Any = None
        self.label = ""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.agent.act(observation, action_mask)

    def reset(self, seed: int | None = None) -> None:
        hook = getattr(self.agent, "reset", None)
        if callable(hook):
            hook(seed)

    def new_round(self) -> None:
        hook = getattr(self.agent, "new_round", None)
        if callable(hook):
            hook()


# ---------------------------------------------------------------------------------- environment
class TrainingEnv(gymnasium.Env):
    """The single-agent view (:class:`tt_env.env.single_agent.SingleAgentEnv`) as the learner sees
    it in training: :class:`~tt_env.learned.features.CardFeatures` of its observation, rewards times
    ``reward_scale``, opponents drawn from an :class:`OpponentPool` every episode.

    ``action_masks()`` is the wrapped env's. At the end of an episode ``info["tt_episode"]`` holds
    the unscaled episode reward and the opponents' labels (for the learning curve);
    :attr:`raw_observation` is the last observation before the transform.

    ``baseline`` (an agent spec, with ``episode="round"``): *duplicate deals*. At the learner's
    first decision of each round, a copy of the game (the same deal, the same stock order, the
    same opponents, copied) is played to the round's end with the baseline agent in the
    learner's seat; the learner is then paid its round reward *less* the baseline's on that
    deal. The deal's luck cancels out, and since the baseline's result never depends on the
    learner's actions the policy gradient keeps its expectation (a baseline, in the REINFORCE
    sense) while its variance drops. ``info["tt_episode"]`` keeps the plain reward too.
    """

    metadata = {"render_modes": []}

    def __init__(
        self,
        rules: Rules,
        opponents: dict[str, float],
        episode: str = "round",
        reward: str = "relative",
        reward_scale: float = 1.0,
        lookahead: bool = True,
        league_dir: str | None = None,
        league_size: int = 5,
        seed: int = 0,
        baseline: str = "",
    ) -> None:
        from tt_env.env.single_agent import SingleAgentEnv

        self.rules = rules
        self.features = CardFeatures(rules, lookahead=lookahead)
        self.seats = [PoolSeat() for _ in range(rules.num_players - 1)]
        self.pool = OpponentPool(opponents, rules, seed, league_dir, league_size)
        # MaskablePPO never picks a masked action: one would be a bug, so it raises.
        self.env = SingleAgentEnv(
            opponents=self.seats,
            rules=rules,
            episode=episode,
            reward=reward,
            illegal_action="raise",
        )
        self.reward_scale = reward_scale
        self.observation_space = spaces.Box(-np.inf, np.inf, (self.features.size,), np.float32)
        self.action_space = self.env.action_space
        self.raw_observation: np.ndarray | None = None
        self._episode_reward = 0.0
        self._episode_length = 0
        self.baseline = baseline
        self._reference = 0.0  # the baseline's round reward on this deal
        if baseline:
            if episode != "round":
                raise ValueError("a duplicate-deal baseline needs episode='round'")
            from tt_env.agents import make_agent
            from tt_env.env.aec import raw_env

            self._baseline_agent = make_agent(baseline, rules.num_players, rules, seed)
            self._replay = raw_env(rules=rules, episode="round", reward=reward)

    def reference_reward(self) -> float:
        """The learner seat's round reward when the baseline agent plays the rest of this round
        in its place, on a copy of the game as it stands (see the class docstring)."""
        env = self._replay
        env.reset(options={"game": self.env.game})  # a copy: the real game is untouched
        learner = self.env.learner
        seated = {a: copy.deepcopy(self.env._seated[i]) for i, a in enumerate(env.possible_agents)}
        seated[learner] = self._baseline_agent
        reward = 0.0
        for agent in env.agent_iter():
            obs, r, term, trunc, _ = env.last()
            if agent == learner:
                reward += r
            if term or trunc:
                env.step(None)
                continue
            env.step(seated[agent].act(obs["observation"], obs["action_mask"]))
        return reward

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self.pool.rng = np.random.default_rng([seed, 1])
        for i, seat in enumerate(self.seats):
            seat.label, seat.agent = self.pool.sample(i)
        obs, info = self.env.reset(seed=seed, options=options)
        self._episode_reward, self._episode_length = 0.0, 0
        self.raw_observation = obs
        if self.baseline:
            self._reference = self.reference_reward()
        return self.features(obs), info

    def step(self, action):
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        self.raw_observation = obs
        self._episode_reward += reward
        self._episode_length += 1
        if terminated or truncated:
            info["tt_episode"] = {
                "reward": self._episode_reward,
                "length": self._episode_length,
                "opponents": "+".join(sorted(s.label for s in self.seats)),
            }
            if self.baseline:
                info["tt_episode"]["baseline"] = self._reference
                reward -= self._reference
        return self.features(obs), reward * self.reward_scale, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        return self.env.action_masks()

    def close(self) -> None:
        self.env.close()


def make_training_env(
    config: TrainConfig, rank: int, seed: int, league_dir: str | None, opponents: str | None = None
) -> TrainingEnv:
    """The environment of worker ``rank`` (a module-level function: picklable for subprocesses)."""
    torch.set_num_threads(1)
    return TrainingEnv(
        config.make_rules(),
        parse_pool(opponents or config.opponents),
        episode=config.episode,
        reward=config.reward,
        reward_scale=config.reward_scale,
        lookahead=config.lookahead,
        league_dir=league_dir,
        league_size=config.league_size,
        seed=seed * 1000 + rank,
        baseline=config.baseline,
    )


def make_vec_env(config: TrainConfig, seed: int, league_dir: str | None):
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecMonitor

    fns = [
        functools.partial(make_training_env, config, rank, seed, league_dir)
        for rank in range(config.n_envs)
    ]
    if config.vec_env == "subproc" and config.n_envs > 1:
        vec = SubprocVecEnv(fns, start_method="spawn")
    elif config.vec_env in ("dummy", "subproc"):
        vec = DummyVecEnv(fns)
    else:
        raise ValueError(f"vec_env must be 'subproc' or 'dummy', got {config.vec_env!r}")
    vec.seed(seed)
    return VecMonitor(vec)


# ---------------------------------------------------------------------------------- policy
class _Extractor(nn.Module):
    """SB3's ``mlp_extractor`` slot: the whole :class:`CardNet`, whose "latents" are already the
    108 logits and the value."""

    def __init__(self, net: CardNet) -> None:
        super().__init__()
        self.net = net
        self.latent_dim_pi = NUM_ACTIONS
        self.latent_dim_vf = 1

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.net(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.net.actor(features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.net.critic(features)


class CardPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's policy with :class:`CardNet` as actor and critic (``net_kwargs`` builds it);
    the logits and the value come straight out of the network."""

    def __init__(self, *args, net_kwargs: dict[str, Any] | None = None, **kwargs) -> None:
        self.net_kwargs = dict(net_kwargs or {})
        kwargs["ortho_init"] = False  # CardNet keeps PyTorch's default initialisation
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _Extractor(CardNet(**self.net_kwargs))

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()
        self.value_net = nn.Identity()
        self.optimizer = self.optimizer_class(
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data["net_kwargs"] = self.net_kwargs
        return data


def net_kwargs_for(config: TrainConfig, features: CardFeatures) -> dict[str, Any]:
    return {
        "global_width": features.global_width,
        "card_hidden": config.card_hidden,
        "trunk_hidden": config.trunk_hidden,
    }


# ---------------------------------------------------------------------------------- warm start
_COLLECTED = None  # a worker's shared counter of decisions collected (set by _collect_init)


def _collect_init(counter) -> None:
    global _COLLECTED
    _COLLECTED = counter


def _collect_worker(job: tuple[dict[str, Any], int, int]) -> dict[str, np.ndarray]:
    """Play the teacher as the learner; return its decisions (features, masks, actions) and
    the returns of their episodes (complete episodes only). Adds the decisions of each
    finished episode to the shared counter, when there is one (progress reports)."""
    values, seed, samples = job
    torch.set_num_threads(1)
    config = TrainConfig(**values)
    from tt_env.agents import make_agent

    env = make_training_env(config, 0, seed, None, opponents=config.bc_opponents)
    rules = env.rules
    teacher = make_agent(config.bc_teacher, rules.num_players, rules, seed)
    xs, masks, actions, returns = [], [], [], []
    obs, info = env.reset(seed=seed)
    teacher.reset(seed)
    rounds = len(env.env.game.round_results)
    ep_x, ep_m, ep_a, ep_r = [], [], [], []
    while len(xs) < samples:
        mask = env.action_masks()
        action = teacher.act(env.raw_observation, mask.astype(np.int8))
        ep_x.append(obs)
        ep_m.append(mask)
        ep_a.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        ep_r.append(reward)
        if terminated or truncated:
            ret = np.cumsum(ep_r[::-1])[::-1]
            xs += ep_x
            masks += ep_m
            actions += ep_a
            returns += list(ret)
            if _COLLECTED is not None:
                with _COLLECTED.get_lock():
                    _COLLECTED.value += len(ep_a)
            ep_x, ep_m, ep_a, ep_r = [], [], [], []
            obs, info = env.reset()
            if len(env.env.game.round_results) < rounds:  # a new game
                teacher.reset(int(env.pool.rng.integers(2**31)))
            else:
                teacher.new_round()
            rounds = len(env.env.game.round_results)
    return {
        "x": np.asarray(xs, np.float32),
        "mask": np.asarray(masks, bool),
        "action": np.asarray(actions, np.int64),
        "return": np.asarray(returns, np.float32),
    }


_DATA_KEYS = ("x", "mask", "action", "return")


def _data_paths(text: str) -> list[Path]:
    return [Path(part.strip()) for part in text.split(",") if part.strip()]


def save_teacher_data(path: Path, data: dict[str, np.ndarray]) -> None:
    """Write teacher decisions (``bc_data.npz``) atomically, for ``bc_data`` of later runs."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez(tmp, **data)
    os.replace(tmp, path)


def load_teacher_data(text: str, width: int, actions: int) -> dict[str, np.ndarray]:
    """The teacher decisions of the ``bc_data`` files, concatenated; a file that is not one, or
    whose observations or actions do not fit this run, raises :class:`ValueError` naming it."""
    parts = []
    for path in _data_paths(text):
        try:
            with np.load(path, allow_pickle=False) as f:
                part = {k: f[k] for k in _DATA_KEYS}
        except (OSError, ValueError, KeyError, EOFError) as exc:
            raise ValueError(f"bc_data {path}: not a teacher-data file ({exc})") from None
        n = len(part["action"])
        if (
            part["x"].shape != (n, width)
            or part["mask"].shape != (n, actions)
            or part["return"].shape != (n,)
        ):
            raise ValueError(
                f"bc_data {path}: its decisions do not fit this run (observations "
                f"{part['x'].shape[1:]}, masks {part['mask'].shape[1:]}; this run: ({width},), "
                f"({actions},)): other players, rules or features"
            )
        parts.append(part)
    return {k: np.concatenate([p[k] for p in parts]) for k in _DATA_KEYS}


def collect_teacher_data(
    config: TrainConfig, workers: int, progress=None, every: float = 60.0
) -> dict[str, np.ndarray]:
    """``bc_samples`` decisions of ``bc_teacher`` (about), collected over ``workers`` processes.
    ``progress(done, total, seconds)`` is called every ``every`` seconds while they play (the
    workers count their finished episodes' decisions; the data do not depend on it)."""
    per = math.ceil(config.bc_samples / workers)
    values = dataclasses.asdict(config)
    jobs = [(values, config.seed * 7919 + 17 + w, per) for w in range(workers)]
    if workers == 1:
        parts = [_collect_worker(jobs[0])]
    else:
        ctx = multiprocessing.get_context("spawn")
        counter = ctx.Value("q", 0)
        start = time.perf_counter()
        # The workers ignore Ctrl-C; here it is seen between two short waits, and leaving the
        # pool stops them (tt-train then says how to resume).
        with CtrlC() as ctrl_c:  # entered first: a press while the workers start is noted
            with pool_ignoring_ctrl_c(ctx, workers, _collect_init, (counter,)) as pool:
                result = pool.map_async(_collect_worker, jobs)
                reported = start
                while not result.ready():
                    ctrl_c.check()
                    result.wait(min(every, 0.1))
                    now = time.perf_counter()
                    if progress is not None and now - reported >= every and not result.ready():
                        reported = now
                        progress(counter.value, per * workers, now - start)
                parts = result.get()
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def behaviour_clone(
    net: CardNet,
    data: dict[str, np.ndarray],
    epochs: int,
    lr: float,
    batch_size: int,
    seed: int,
    log=None,
) -> dict[str, float]:
    """Fit ``net`` to the teacher: cross-entropy of the masked policy on its actions, and the
    value on the returns. Returns the held-out accuracy and losses."""
    gen = torch.Generator().manual_seed(seed)
    n = len(data["action"])
    order = torch.randperm(n, generator=gen)
    held = order[: max(1, n // 20)]
    train = order[max(1, n // 20) :]
    x = torch.from_numpy(data["x"])
    mask = torch.from_numpy(data["mask"])
    action = torch.from_numpy(data["action"])
    ret = torch.from_numpy(data["return"]).unsqueeze(1)
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * math.ceil(len(train) / batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, steps))
    ce = torch.nn.CrossEntropyLoss()

    def evaluate() -> dict[str, float]:
        net.eval()
        with torch.no_grad():
            logits, value = net(x[held])
            logits = masked_logits(logits, mask[held])
            acc = (logits.argmax(1) == action[held]).float().mean().item()
            return {
                "accuracy": acc,
                "policy_loss": ce(logits, action[held]).item(),
                "value_loss": torch.mean((value - ret[held]) ** 2).item(),
            }

    stats = {}
    for epoch in range(epochs):
        net.train()
        perm = train[torch.randperm(len(train), generator=gen)]
        for i in range(0, len(perm), batch_size):
            idx = perm[i : i + batch_size]
            logits, value = net(x[idx])
            loss = ce(masked_logits(logits, mask[idx]), action[idx]) + 0.5 * torch.mean(
                (value - ret[idx]) ** 2
            )
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            sched.step()
        stats = evaluate()
        if log is not None:
            log(epoch + 1, stats)
    net.eval()
    return stats


# ---------------------------------------------------------------------------------- run files
def _now() -> str:
    return _dt.datetime.now().isoformat(timespec="seconds")


def hardware() -> str:
    """A one-line description of this machine."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.release()}"


class RunFiles:
    """Paths and bookkeeping of one run directory (see the module docstring)."""

    def __init__(self, root: str | os.PathLike) -> None:
        self.root = Path(root)
        self.checkpoints = self.root / "checkpoints"
        self.league = self.root / "league"
        self.tb = self.root / "tb"
        self.state_path = self.root / "state.json"

    def create(self) -> None:
        for d in (self.root, self.checkpoints, self.league):
            d.mkdir(parents=True, exist_ok=True)

    def last_checkpoint(self, log=None) -> Path | None:
        """The newest checkpoint that is whole; a damaged newer one (a write cut short by a
        crash or a full disk) is skipped, and ``log`` says so."""
        found = sorted(self.checkpoints.glob("ckpt_*.zip"), key=_step_of)
        damaged = []
        for path in reversed(found):
            if _checkpoint_is_whole(path):
                if damaged and log is not None:
                    log(
                        f"checkpoint(s) {', '.join(damaged)} damaged (a write cut short?): "
                        f"falling back to {path.name}"
                    )
                return path
            damaged.append(path.name)
        if damaged:
            raise ValueError(
                f"no checkpoint of {self.root} can be read ({', '.join(damaged)} damaged)"
            )
        return None

    def remove_temporary_files(self) -> None:
        """Temporary files left by a run that was killed while writing (see tt_env.util.files)."""
        for folder in (self.root, self.checkpoints, self.league, self.root / "eval"):
            for tmp in folder.glob(".*.tmp") if folder.is_dir() else ():
                tmp.unlink(missing_ok=True)

    def trim_logs(self, steps: int) -> None:
        """Drop the rows of ``progress.csv`` and ``evaluations.csv`` logged after ``steps`` (by
        the part of a run after its last checkpoint, which a resume plays again), and rows cut
        short by a crash."""
        for name in ("progress.csv", "evaluations.csv"):
            path = self.root / name
            if not path.exists():
                continue
            with path.open(newline="") as fh:
                reader = csv.DictReader(fh)
                fields = reader.fieldnames or []
                rows = list(reader)
            kept = [
                r
                for r in rows
                if None not in r.values()
                and None not in r
                and _int_or_none(r.get("timesteps")) is not None
                and int(r["timesteps"]) <= steps
            ]
            if len(kept) == len(rows):
                continue
            out = io.StringIO()
            writer = csv.DictWriter(out, fieldnames=fields, lineterminator="\n")
            writer.writeheader()
            writer.writerows(kept)
            write_text_atomically(path, out.getvalue())

    def state(self) -> dict[str, Any]:
        fresh = {"wall_time": 0.0, "commands": [], "best": None}
        if not self.state_path.exists():
            return fresh
        try:
            state = json.loads(self.state_path.read_text(encoding="utf-8"))
            if isinstance(state, dict):
                return state
        except (OSError, ValueError):
            pass
        print(
            f"tt-train: warning: {self.state_path} is damaged; starting its bookkeeping "
            "(wall time, commands, best evaluation) afresh",
            file=sys.stderr,
        )
        return fresh

    def save_state(self, state: dict[str, Any]) -> None:
        write_text_atomically(self.state_path, json.dumps(state, indent=2))

    def append_csv(self, name: str, row: dict[str, Any]) -> None:
        path = self.root / name
        new = not path.exists()
        with path.open("a", newline="") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(row))
            if new:
                writer.writeheader()
            writer.writerow(row)


# ---------------------------------------------------------------------------------- callback
def _make_callback(trainer: Trainer):
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        """Logs the learning curve, and at rollout boundaries (after each PPO update) saves
        checkpoints, league snapshots and runs evaluations."""

        def __init__(self) -> None:
            super().__init__()
            self.episodes: dict[str, list[float]] = defaultdict(list)
            self.advantages: dict[str, list[float]] = defaultdict(list)

        def _on_step(self) -> bool:
            for info in self.locals.get("infos", []):
                ep = info.get("tt_episode")
                if ep is not None:
                    self.episodes[ep["opponents"]].append(ep["reward"])
                    if "baseline" in ep:  # duplicate deals: the reward less the baseline's
                        self.advantages[ep["opponents"]].append(ep["reward"] - ep["baseline"])
            return True

        def _on_rollout_start(self) -> None:
            trainer.at_boundary(self.model)

        def _on_rollout_end(self) -> None:
            steps = self.model.num_timesteps
            wall = trainer.wall_time()
            everything = [r for v in self.episodes.values() for r in v]
            rows = [("all", everything)] + sorted(self.episodes.items())
            for name, rewards in rows:
                if not rewards:
                    continue
                mean = float(np.mean(rewards))
                row = {
                    "timesteps": steps,
                    "wall_time": round(wall, 1),
                    "opponents": name,
                    "episodes": len(rewards),
                    "mean_reward": round(mean, 4),
                }
                if trainer.config.baseline:
                    gained = (
                        [a for v in self.advantages.values() for a in v]
                        if name == "all"
                        else self.advantages.get(name, [])
                    )
                    row["mean_vs_baseline"] = round(float(np.mean(gained)), 4) if gained else ""
                    if gained:
                        self.logger.record(f"episode/vs_baseline_{name}", float(np.mean(gained)))
                trainer.files.append_csv("progress.csv", row)
                self.logger.record(f"episode/reward_vs_{name}", mean)
            self.episodes.clear()
            self.advantages.clear()

    return TrainingCallback()


# ---------------------------------------------------------------------------------- trainer
class Trainer:
    """One training run: builds or resumes it, trains, evaluates, exports (see :func:`train`)."""

    def __init__(self, config: TrainConfig, run_root: Path, command: str, resume: bool) -> None:
        self.config = config
        self.rules = config.make_rules()
        self.files = RunFiles(run_root)
        self.command = command
        self.resume = resume
        self.features = CardFeatures(self.rules, lookahead=config.lookahead)
        self.net_kwargs = net_kwargs_for(config, self.features)
        self._start = time.perf_counter()
        self._state = self.files.state()
        self._wall_before = float(self._state.get("wall_time", 0.0))
        self.next_checkpoint = self.next_league = self.next_eval = 0
        self._evaluated_at = -1  # the step count of the last evaluation (never twice)
        from tt_env.agents import split_specs

        self.eval_specs = split_specs(config.eval_opponents)

    # -------------------------------------------------------------- helpers
    def wall_time(self) -> float:
        return self._wall_before + time.perf_counter() - self._start

    def log(self, text: str) -> None:
        print(f"[tt-train {time.strftime('%H:%M:%S')}] {text}", flush=True)

    def metadata(self, steps: int) -> dict[str, Any]:
        import sb3_contrib
        import stable_baselines3

        return build_metadata(
            self.rules,
            self.features,
            self.net_kwargs,
            training={
                "algorithm": (
                    f"behaviour cloning of {self.config.bc_teacher}, then " if self._bc_on() else ""
                )
                + "MaskablePPO (sb3-contrib)",
                "timesteps": int(steps),  # PPO steps behind this network (0: the warm start)
                "wall_time_seconds": round(self.wall_time(), 1),
                "commands": list(self._state.get("commands", [])),
                "config": dataclasses.asdict(self.config),
                "hardware": hardware(),
                "versions": {
                    "torch": torch.__version__,
                    "stable_baselines3": stable_baselines3.__version__,
                    "sb3_contrib": sb3_contrib.__version__,
                    "python": platform.python_version(),
                },
                "bc": self._state.get("bc"),
                "run": str(self.files.root),
                "saved": _now(),
            },
        )

    def network(self, model) -> CardNet:
        """The torch network that ``model`` trains."""
        return model.policy.mlp_extractor.net

    def export(self, model, path: Path) -> Path:
        return save_model(
            path, numpy_weights(self.network(model)), self.metadata(model.num_timesteps)
        )

    def _bc_on(self) -> bool:
        return self.config.bc_teacher.strip().lower() not in ("", "none")

    def _workers(self) -> int:
        return max(1, self.config.eval_workers or (os.cpu_count() or 1))

    # -------------------------------------------------------------- periodic work
    def _schedule(self, steps: int) -> None:
        c = self.config

        def nxt(every: int) -> int:
            return (steps // every + 1) * every if every > 0 else 1 << 62

        self.next_checkpoint, self.next_league, self.next_eval = (
            nxt(c.checkpoint_every),
            nxt(c.league_every),
            nxt(c.eval_every),
        )

    def at_boundary(self, model, final: bool = False) -> None:
        steps = model.num_timesteps
        if steps >= self.next_league or final:
            self.export(model, self.files.league / f"step_{steps:09d}.npz")
        if (steps >= self.next_eval or final) and steps != self._evaluated_at:
            self.evaluate(model)
        if steps >= self.next_checkpoint or final:
            self.checkpoint(model)
        if steps >= min(self.next_league, self.next_eval, self.next_checkpoint):
            self._schedule(steps)

    def checkpoint(self, model) -> None:
        steps = model.num_timesteps
        path = self.files.checkpoints / f"ckpt_{steps:09d}.zip"
        with atomic_file(path, "wb") as fh:  # a crash or a full disk leaves no torn checkpoint
            model.save(fh)
        self._state["wall_time"] = self.wall_time()
        self._state["timesteps"] = steps
        self.files.save_state(self._state)

    def evaluate(self, model) -> dict[str, Any]:
        from tt_env.agents import spec_label
        from tt_env.arena.core import run_tournament

        steps = self._evaluated_at = model.num_timesteps
        path = self.export(model, self.files.root / "eval" / f"step_{steps:09d}.npz")
        out = {}
        for spec in self.eval_specs:
            t0 = time.perf_counter()
            # The learner against the opponent in every other seat (one table: with more
            # than two players, e.g. the learner against three counting players).
            n = self.rules.num_players
            result = run_tournament(
                [str(path)] + [spec] * (n - 1),
                self.rules,
                games=self.config.eval_games,
                seed=self.config.eval_seed,
                workers=self._workers(),
                episode=self.config.eval_episode,
            )
            me, other = result.labels[0], spec_label(spec)
            pair = result.versus_table(me)
            stats = {s.label: s for s in result.agents}
            row = {
                "timesteps": steps,
                "wall_time": round(self.wall_time(), 1),
                "opponent": other,
                "deals": self.config.eval_games,
                "games": len(result.results),
                "diff": round(pair.mean, 3),
                "diff_low": round(pair.low, 3),
                "diff_high": round(pair.high, 3),
                "score": round(stats[me].score.mean, 3),
                "win_rate": round(stats[me].win_rate.mean, 4),
            }
            self.files.append_csv("evaluations.csv", row)
            if getattr(model, "_logger", None) is not None:  # none before learn() starts
                model.logger.record(f"eval/diff_vs_{other}", pair.mean)
                model.logger.record(f"eval/win_rate_vs_{other}", stats[me].win_rate.mean)
            self.log(
                f"eval at {steps:,} steps vs {other}: score difference "
                f"{pair.format(2)} per game (negative: the learner scores less), win rate "
                f"{stats[me].win_rate.mean:.1%}, {len(result.results)} games in "
                f"{time.perf_counter() - t0:.0f} s"
            )
            out[other] = row
        if self.eval_specs:
            first = out[next(iter(out))]
            best = self._state.get("best")
            if best is None or first["diff"] < best["diff"]:
                _copy_atomically(path, self.files.root / "best.npz")
                self._state["best"] = {
                    "timesteps": steps,
                    "diff": first["diff"],
                    "opponent": first["opponent"],
                }
                self.files.save_state(self._state)
        return out

    # -------------------------------------------------------------- the run
    def warm_start(self, model) -> None:
        c = self.config
        t0 = time.perf_counter()
        net = self.network(model)
        if c.bc_data.strip():
            data = load_teacher_data(c.bc_data, self.features.size, NUM_ACTIONS)
            self.log(f"behaviour cloning: {len(data['action']):,} decisions from {c.bc_data}")
        else:
            # the teacher's games run in parallel processes (whatever the PPO environments use)
            workers = max(1, min(os.cpu_count() or 1, c.n_envs))
            self.log(
                f"behaviour cloning: collecting {c.bc_samples:,} decisions of "
                f"{c.bc_teacher} on {workers} process(es)"
            )

            def progress(done: int, total: int, seconds: float) -> None:
                left = seconds * (total - done) / done if done else float("nan")
                self.log(
                    f"  {done:,} of {total:,} decisions in {seconds / 60:.0f} min"
                    + (f", about {left / 60:.0f} min left" if done else "")
                )

            data = collect_teacher_data(
                c, workers, progress, every=600.0 if not c.progress_bar else 60.0
            )
            save_teacher_data(self.files.root / "bc_data.npz", data)
            t1 = time.perf_counter()
            self.log(
                f"collected {len(data['action']):,} decisions in {t1 - t0:.0f} s "
                "(saved: bc_data.npz); fitting"
            )

        def log(epoch: int, stats: dict[str, float]) -> None:
            self.log(
                f"  epoch {epoch}: held-out accuracy {stats['accuracy']:.3f}, policy loss "
                f"{stats['policy_loss']:.3f}, value loss {stats['value_loss']:.3f}"
            )

        stats = behaviour_clone(net, data, c.bc_epochs, c.bc_lr, c.bc_batch_size, c.seed, log)
        self._state["bc"] = {
            "teacher": c.bc_teacher,
            "samples": int(len(data["action"])),
            "seconds": round(time.perf_counter() - t0, 1),
            **{k: round(v, 4) for k, v in stats.items()},
        }
        self.files.save_state(self._state)
        save_model(self.files.root / "bc.npz", numpy_weights(net), self.metadata(0))

    def run(self) -> Path:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.utils import set_random_seed

        c = self.config
        torch.set_num_threads(c.threads)
        root = self.files.root
        made = [p for p in (root, *root.parents) if not p.exists()]  # removed if setup fails
        env = None
        kwargs = dict(
            learning_rate=c.learning_rate,
            n_steps=c.n_steps,
            batch_size=c.batch_size,
            n_epochs=c.n_epochs,
            gamma=c.gamma,
            gae_lambda=c.gae_lambda,
            clip_range=c.clip_range,
            ent_coef=c.ent_coef,
            vf_coef=c.vf_coef,
            max_grad_norm=c.max_grad_norm,
            target_kl=c.target_kl or None,
        )
        try:  # setting up: a failure here leaves no half-made run directory
            self.files.create()
            checkpoint = None
            if self.resume:
                self.files.remove_temporary_files()
                checkpoint = self.files.last_checkpoint(log=self.log)
            steps0 = _step_of(checkpoint) if checkpoint else 0
            if self.resume:
                self.files.trim_logs(steps0)  # the steps after it are played again
            self._state.setdefault("commands", []).append(self.command)
            self.files.save_state(self._state)
            with (root / "command.txt").open("a") as fh:
                fh.write(self.command + "\n")
            write_text_atomically(root / "config.toml", config_to_toml(c))
            seed = c.seed + steps0  # a resumed run plays other deals than the first part
            set_random_seed(seed)
            random.seed(seed)
            env = make_vec_env(c, seed, str(self.files.league))
            if checkpoint is not None:
                self.log(f"resuming {root} from {checkpoint.name} ({steps0:,} steps done)")
                model = MaskablePPO.load(
                    checkpoint, env=env, device="cpu", tensorboard_log=str(self.files.tb), **kwargs
                )
            else:
                model = MaskablePPO(
                    CardPolicy,
                    env,
                    seed=seed,
                    device="cpu",
                    verbose=0,
                    tensorboard_log=str(self.files.tb),
                    policy_kwargs={"net_kwargs": self.net_kwargs},
                    **kwargs,
                )
        except BaseException:
            if env is not None:
                env.close()
            if made:  # the run directory and the folders above it made for it
                shutil.rmtree(made[-1], ignore_errors=True)
            raise
        try:
            if checkpoint is None:
                if self._bc_on():
                    self.warm_start(model)
                self.export(model, self.files.league / f"step_{0:09d}.npz")
                if self.eval_specs and self.config.eval_every > 0:
                    self.evaluate(model)  # the starting point of the learning curve
            self._schedule(model.num_timesteps)
            remaining = c.total_timesteps - model.num_timesteps
            if remaining > 0:
                self.log(
                    f"PPO: {model.num_timesteps:,} -> {c.total_timesteps:,} steps, "
                    f"{c.n_envs} envs ({c.vec_env}), opponents {c.opponents}"
                )
                model.learn(
                    remaining,
                    callback=_make_callback(self),
                    reset_num_timesteps=checkpoint is None,
                    tb_log_name="ppo",
                    progress_bar=c.progress_bar,
                )
            self.at_boundary(model, final=True)
            final = self.export(model, self.files.root / "model.npz")
        finally:
            env.close()
        self._state["wall_time"] = self.wall_time()
        self.files.save_state(self._state)
        self.finish(final)
        self.log(
            f"done: {model.num_timesteps:,} steps, {self.wall_time() / 60:.1f} min "
            f"in total; model {final}"
        )
        return final

    def finish(self, final: Path) -> None:
        """The learning curve, and the model copied to ``output``."""
        c = self.config
        try:
            plot_run(self.files.root)
        except Exception as exc:  # a plot is a convenience; never lose a run to it
            self.log(f"could not plot the run: {exc}")
        if c.output:
            source = (
                self.files.root / "best.npz"
                if (c.final_model == "best" and (self.files.root / "best.npz").exists())
                else final
            )
            Path(c.output).parent.mkdir(parents=True, exist_ok=True)
            _copy_atomically(source, Path(c.output))
            self.log(f"copied {source.name} to {c.output}")


def _copy_atomically(source: Path, target: Path) -> None:
    with atomic_path(target) as tmp:
        shutil.copyfile(source, tmp)


def train(config: TrainConfig, command: str = "", resume_dir: str | None = None) -> Path:
    """Train (or, with ``resume_dir``, resume) a run; returns the path of its final model."""
    if resume_dir is not None:
        root = Path(resume_dir)
    else:
        name = config.run_name or (
            f"{config.exp_name}__{config.players}p__{config.seed}__{time.strftime('%Y%m%d-%H%M%S')}"
        )
        root = Path(config.run_dir) / name
        if (root / "checkpoints").exists() and any((root / "checkpoints").iterdir()):
            raise ValueError(
                f"run {root} exists already: resume it with --resume {root}, or "
                "choose another --run-name"
            )
    if config.backend == "rllib":
        from tt_env.train.rllib import RLlibTrainer

        return RLlibTrainer(config, root, command or "tt-train", False).run()
    return Trainer(config, root, command or "tt-train", resume_dir is not None).run()


# ---------------------------------------------------------------------------------- plot
def _read_csv(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with path.open() as fh:
        return list(csv.DictReader(fh))


def plot_run(
    run_dir: str | os.PathLike, output: str | os.PathLike | None = None, smooth: int = 10
) -> Path:
    """Draw a run's learning curve (mean round reward per opponent kind: a point per rollout,
    a line through the mean of the last ``smooth`` rollouts) and its evaluations (mean score
    difference per game with 95% intervals) into a PNG; returns its path (default
    ``<run>/learning_curve.png``). A run shorter than ``smooth`` rollouts still shows its points."""
    import matplotlib.pyplot as plt

    fig = learning_curve_figure(run_dir, smooth)
    out = Path(output) if output else Path(run_dir) / "learning_curve.png"
    try:
        with atomic_path(out) as tmp:  # a failed write leaves no half a PNG
            fig.savefig(tmp, dpi=110, format="png")
    finally:
        plt.close(fig)
    return out


def learning_curve_figure(run_dir: str | os.PathLike, smooth: int = 10):
    """The matplotlib figure of :func:`plot_run` (two panels: training, evaluations)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    root = Path(run_dir)
    progress = _read_csv(root / "progress.csv")
    evals = _read_csv(root / "evaluations.csv")
    if not progress and not evals:
        raise ValueError(f"{root} has no progress.csv or evaluations.csv to plot")
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 8), sharex=True)
    series: dict[str, list[tuple[int, float]]] = defaultdict(list)
    for row in progress:
        series[row["opponents"]].append((int(row["timesteps"]), float(row["mean_reward"])))
        if row.get("mean_vs_baseline"):  # duplicate deals: the same rounds played by the baseline
            series[f"{row['opponents']}, less the baseline on the same deal"].append(
                (int(row["timesteps"]), float(row["mean_vs_baseline"]))
            )
    for name, points in sorted(series.items(), key=lambda kv: (kv[0] != "all", kv[0])):
        points.sort()
        x = np.array([p[0] for p in points])
        y = np.array([p[1] for p in points])
        # Every rollout as a point, so that a run shorter than the window still shows, and a
        # line through the mean of the last `smooth` rollouts (fewer at the start).
        dots = ax1.plot(
            x, y, "o", ms=3, alpha=0.35 if len(y) > 1 else 1.0, label=name if len(y) < 2 else None
        )[0]
        if len(y) >= 2:
            total = np.concatenate([[0.0], np.cumsum(y)])
            end = np.arange(1, len(y) + 1)
            start = np.maximum(0, end - max(1, smooth))
            ax1.plot(
                x,
                (total[end] - total[start]) / (end - start),
                color=dots.get_color(),
                label=name,
                lw=2.2 if name == "all" else 1.2,
            )
    ax1.axhline(0, color="grey", lw=0.8)
    ax1.set_ylabel("mean reward per round\n(opponents' penalty - own)")
    ax1.set_title(f"{root.name}: training")
    if series:
        ax1.legend(fontsize=8)
    by_opp: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in evals:
        by_opp[row["opponent"]].append(row)
    for name, rows in by_opp.items():
        rows.sort(key=lambda r: int(r["timesteps"]))
        x = np.array([int(r["timesteps"]) for r in rows])
        y = np.array([float(r["diff"]) for r in rows])
        lo = np.array([float(r["diff_low"]) for r in rows])
        hi = np.array([float(r["diff_high"]) for r in rows])
        ax2.errorbar(x, y, yerr=[y - lo, hi - y], marker="o", capsize=3, label=f"vs {name}")
    ax2.axhline(0, color="grey", lw=0.8)
    ax2.set_ylabel("score difference per game\n(learner - opponent, 95% CI)")
    ax2.set_xlabel("timesteps")
    ax2.set_title("evaluations (duplicate games; below 0: the learner scores less)")
    if by_opp:
        ax2.legend(fontsize=8)
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    """``tt-train``: train, resume (``--resume RUN_DIR``) or plot (``tt-train plot RUN_DIR``)."""
    from tt_env.precompile import notice_if_cold

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["plot"]:
        parser = Parser(prog="tt-train plot", description="Plot a run's learning curve as a PNG.")
        parser.add_argument("run_dir")
        parser.add_argument("-o", "--output", help="PNG path (default: RUN_DIR/learning_curve.png)")
        args = parser.parse_args(argv[1:])
        try:
            print(plot_run(args.run_dir, args.output))
        except KeyError as exc:  # a CSV without the columns tt-train writes
            print(
                f"tt-train plot: error: {args.run_dir}: a CSV of the run has no column "
                f"{one_line(exc)}",
                file=sys.stderr,
            )
            return 2
        except (ValueError, OSError) as exc:
            print(f"tt-train plot: error: {one_line(exc)}", file=sys.stderr)
            return 2
        return 0
    parser = build_parser()
    args = parser.parse_args(argv)
    command = "tt-train " + shlex.join(argv) if argv else "tt-train"
    config = None
    try:
        if args.resume:
            saved = Path(args.resume) / "config.toml"
            if not saved.is_file():
                raise ValueError(f"--resume {args.resume}: not a run directory (no config.toml)")
            base = load_config_file(saved)
            if args.config:
                base.update(load_config_file(args.config))
            config, given = config_from_args(args, base)
            before = TrainConfig(**load_config_file(saved))
            if config.make_rules() != before.make_rules():
                raise ValueError(
                    "the rules and the number of players of a run cannot change when it resumes"
                )
        else:
            config, _ = config_from_args(
                args, load_config_file(args.config) if args.config else None
            )
        check_run(config, args.resume)  # everything, before any work or any file
        notice_if_cold()
        train(config, command, args.resume)
    except (ValueError, ModelError, OSError) as exc:
        print(f"tt-train: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if config is not None and config.backend == "rllib":
            print("tt-train: interrupted; the model so far is the run's model.npz", file=sys.stderr)
        else:
            print(
                "tt-train: interrupted; continue with --resume and the run directory",
                file=sys.stderr,
            )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
