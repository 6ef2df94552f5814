"""A training run's settings: :class:`TrainConfig` (one dataclass, a line of help under each field),
config files (TOML or YAML), opponent pools and the checks of a run before it starts."""

from __future__ import annotations

import ast
import dataclasses
import functools
import inspect
import json
import math
import os
import reprlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tt_env.game.rules import FIELD_NAMES, Rules

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
    opponents: str = "self=0.6,league=0.2,counting=0.1,greedy=0.1"
    """opponent pool as agent=weight, drawn per episode and seat; self: the learner itself
    (backends lean and rllib), league: the learner's snapshots (lean and sb3)"""
    league_every: int = 100_000
    """steps between snapshots of the learner added to the league"""
    league_size: int = 5
    """the league plays the latest this many snapshots"""
    lookahead: bool = True
    """features: expected gain of the next draw for the best discards (costlier, stronger)"""
    oracle_critic: bool = False
    """a critic that also sees the hidden cards (the opponents' hands and the stock) in
    training, the policy still acting from the observation alone; model files hold the policy"""
    card_hidden: int = 32
    """width of the per-card layers of CardNet"""
    trunk_hidden: int = 64
    """width of the hidden layer of CardNet's global trunk"""
    total_timesteps: int = 1_000_000
    """PPO steps of the learner (the behaviour-cloning positions are not counted)"""
    n_envs: int = 128
    """tables the learner plays at once (with vec_env "batch": tables in one batch)"""
    vec_env: str = "batch"
    """"batch": every table stepped together in this process, the opponents of all tables
    answered together (tt_env.vector); "subproc": one process per table (SubprocVecEnv);
    "dummy": one table after another in this process (DummyVecEnv)"""
    learning_rate: float = 3e-4
    """Adam learning rate of PPO"""
    anneal_lr: bool = False
    """lower the learning rate linearly from learning_rate to 0 at total_timesteps (as
    CleanRL's ppo.py); the lean backend's"""
    n_steps: int = 64
    """steps per table per rollout (a rollout is n_steps x n_envs)"""
    batch_size: int = 2048
    """PPO minibatch size"""
    n_epochs: int = 2
    """PPO epochs per rollout"""
    gamma: float = 1.0
    """discount (a round is short and only its end is rewarded)"""
    gae_lambda: float = 0.95
    """GAE lambda"""
    clip_range: float = 0.2
    """PPO clip range"""
    ent_coef: float = 0.01
    """entropy bonus"""
    vf_coef: float = 0.5
    """value loss weight"""
    max_grad_norm: float = 0.5
    """gradient clipping"""
    target_kl: float = 0.0
    """stop a PPO update early past this KL (0: never)"""
    bc_teacher: str = "none"
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
    bc_value_temperature: float = 0.0
    """fit the policy to the search's action values, softmax(-value / this, in points), where
    the teacher searched, instead of only the action it played (0: the action alone); for the
    warm start when its teacher is a search, and for every round of expert iteration"""
    bc_data: str = ""
    """teacher decisions saved by earlier runs (their bc_data.npz; several: comma-separated) to
    fit instead of collecting new ones ("": collect bc_samples)"""
    init_model: str = ""
    """start from this model's weights (a model file or name of the same rules, features and
    network) instead of a warm start ("": the warm start of bc_teacher, if any)"""
    exit_iterations: int = 0
    """expert iteration before PPO: rounds of exit_samples decisions of exit_teacher led by the
    network (its prior), each followed by a fit of the network to them and an evaluation"""
    exit_teacher: str = "search"
    """the search agent of expert iteration, with any options ("search(samples=256)"); its
    prior is set to the network of the round"""
    exit_samples: int = 100_000
    """decisions of exit_teacher collected per round of expert iteration"""
    exit_window: int = 2
    """each round fits the network to the decisions of the last this many rounds"""
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
    """tournament seed of the evaluations (the same deals every time; not one of the seeds kept
    for the evaluation suites, 1000000..1000999)"""
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
    backend: str = "lean"
    """"lean": the one-file PPO on the compiled batch, every seat a policy
    (tt_env.train.backends.lean); "sb3": MaskablePPO (sb3-contrib) on the single-agent view,
    with duplicate deals, expert iteration and the oracle critic; "rllib": RLlib's PPO
    on Ray (extra ray), its env runners in parallel processes or on a cluster
    (tt_env.train.backends.rllib)"""
    device: str = "auto"
    """backend "lean": "auto" (CUDA when torch sees a GPU, else the CPU), "cpu" or "cuda"
    """
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
        from tt_env.arena.suite import check_seed_not_reserved

        check_seed_not_reserved(self.eval_seed, "setting eval_seed")
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
    "exit_iterations": (0, None),
    "exit_samples": (1, None),
    "exit_window": (1, None),
    "bc_epochs": (0, None),
    "bc_batch_size": (1, None),
    "bc_value_temperature": (0.0, None),
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
    "vec_env": ("batch", "subproc", "dummy"),
    "eval_episode": ("game", "round"),
    "final_model": ("best", "last"),
    "backend": ("sb3", "lean", "rllib"),
    "device": ("auto", "cpu", "cuda"),
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
    # with expert iteration every round's search gives values; else the warm start must have them
    values_in_warm_start = config.bc_value_temperature > 0 and config.exit_iterations == 0
    if config.bc_teacher.strip().lower() not in ("", "none"):
        pools.append(("bc_opponents", config.bc_opponents))
        named.append(("bc_teacher", config.bc_teacher.strip()))
        for path in _data_paths(config.bc_data):
            if not path.is_file():
                raise ValueError(f"setting bc_data: no such file: {path}")
        if values_in_warm_start:
            _check_values_source(config)
    elif values_in_warm_start:
        raise ValueError(
            "setting bc_value_temperature: no fit to a search to weigh (no bc_teacher)"
        )
    if config.exit_iterations > 0:
        if not any(setting == "bc_opponents" for setting, _ in pools):
            pools.append(("bc_opponents", config.bc_opponents))
        _check_exit_teacher(config.exit_teacher, n, rules)  # builds it once
    if config.init_model.strip():
        from tt_env.agents.learned import find_model
        from tt_env.learned.model import load_model

        found = find_model(config.init_model.strip())
        if found is None:
            raise ValueError(f"setting init_model: no model file or name {config.init_model!r}")
        try:
            load_model(found, rules)
        except ValueError as exc:
            raise ValueError(f"setting init_model: {exc}") from None
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
        _check_can_hold(root / "checkpoints", f"--resume {resume_dir}")
    else:
        _check_can_hold(Path(config.run_dir), f"run_dir {config.run_dir}")
    if config.output:
        _check_can_create(Path(config.output), f"output {config.output}")
    return rules


def _check_values_source(config: TrainConfig) -> None:
    """With bc_value_temperature, the warm start's decisions must carry the search's values:
    every bc_data file has them, or the teacher collecting them is a search."""
    import numpy as np

    paths = _data_paths(config.bc_data)
    for path in paths:
        try:
            with np.load(path, allow_pickle=False) as f:
                has = "values" in f.files
        except (OSError, ValueError, EOFError) as exc:
            raise ValueError(f"setting bc_data {path}: not a teacher-data file ({exc})") from None
        if not has:
            raise ValueError(
                f"setting bc_value_temperature: {path} holds no search values (its teacher "
                "was not a search)"
            )
    if not paths and not config.bc_teacher.strip().lower().startswith("search"):
        raise ValueError(
            f"setting bc_value_temperature: the teacher {config.bc_teacher.strip()!r} is not a "
            "search, so it gives no action values"
        )


def _check_exit_teacher(spec: str, num_players: int, rules: Rules) -> None:
    """:class:`ValueError` naming the setting unless ``exit_teacher`` names the search agent
    without a ``prior`` (expert iteration sets it)."""
    from tt_env.agents import make_agent
    from tt_env.agents.search import SearchAgent

    spec = spec.strip()
    try:
        agent = make_agent(spec, num_players, rules, 0)
    except (ValueError, TypeError) as exc:
        raise ValueError(f"setting exit_teacher: {exc}") from None
    if not isinstance(agent, SearchAgent):
        raise ValueError(f"setting exit_teacher: expert iteration needs 'search', got {spec!r}")
    if agent.prior is not None:
        raise ValueError(
            "setting exit_teacher: leave out 'prior': each round of expert iteration sets it to "
            "the network"
        )


def _check_backend(config: TrainConfig, resume_dir: str | os.PathLike | None) -> None:
    """The settings that only one backend has (:mod:`tt_env.train.backends.rllib` says what
    the rllib backend takes), and Ray for the rllib backend: :class:`ValueError` naming the
    first."""
    pool = parse_pool(config.opponents)
    if SELF in parse_pool(config.bc_opponents) and config.bc_teacher.strip().lower() not in (
        "",
        "none",
    ):
        raise ValueError(f"setting bc_opponents: {SELF} has no policy to play before training")
    if config.backend == "lean":
        _check_lean(config)
        return
    if config.backend == "sb3":
        if config.anneal_lr:
            raise ValueError("setting anneal_lr: the lean backend's (backend = 'sb3')")
        if SELF in pool:
            raise ValueError(
                f"setting opponents: {SELF} (the learning policy itself in a seat) needs "
                f"backend = 'lean' or 'rllib'; the sb3 backend plays its own snapshots as "
                f"{LEAGUE}: give it a pool, e.g. "
                f"--opponents 'counting=0.35,greedy=0.3,random=0.05,league=0.3'"
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
        (config.anneal_lr, "setting anneal_lr: the lean backend's"),
        (
            config.exit_iterations > 0,
            "setting exit_iterations: expert iteration is the sb3 backend's",
        ),
        (bool(config.init_model.strip()), "setting init_model: the sb3 backend's"),
        (config.oracle_critic, "setting oracle_critic: the sb3 backend's"),
    ]
    for bad, message in refused:
        if bad:
            raise ValueError(f"{message} (backend = 'rllib')")
    try:
        check_ray(config.ray_address, "backend = 'rllib'", "setting ray_address")
    except RayError as exc:
        raise ValueError(str(exc)) from None


def _check_lean(config: TrainConfig) -> None:
    """The settings the lean backend does not take: :class:`ValueError` naming the first."""
    refused = [
        (bool(config.baseline.strip()), "setting baseline: duplicate deals are the sb3 backend's"),
        (
            config.exit_iterations > 0,
            "setting exit_iterations: expert iteration is the sb3 backend's",
        ),
        (config.oracle_critic, "setting oracle_critic: the sb3 backend's"),
    ]
    for bad, message in refused:
        if bad:
            raise ValueError(f"{message} (backend = 'lean')")
    if config.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            raise ValueError("setting device: 'cuda', but torch sees no GPU")


def _check_can_create(path: Path, what: str) -> None:
    """:class:`ValueError` unless the file ``path`` (and its missing directories) can be
    created."""
    if path.is_dir():
        raise ValueError(f"{what}: {path} is a directory")
    _check_can_hold(path.parent, what)


def _check_can_hold(directory: Path, what: str) -> None:
    """:class:`ValueError` unless files can be written in ``directory`` (made if missing)."""
    from tt_env.util.files import check_directory_writable

    existing = directory
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


def _data_paths(text: str) -> list[Path]:
    return [Path(part.strip()) for part in text.split(",") if part.strip()]
