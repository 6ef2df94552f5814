"""``tt-train``: the command line (:func:`main`), and :func:`train`, which runs a configuration on
its backend (:mod:`tt_env.train.backends`: sb3 or RLlib)."""

from __future__ import annotations

import argparse
import shlex
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tt_env.cli import UNSET, Parser, one_line, rule_overrides  # UNSET: "flag not given"
from tt_env.learned.model import ModelError
from tt_env.train.backends.sb3 import SB3Trainer
from tt_env.train.config import CONFIG_FIELDS, TrainConfig, check_run, config_help, load_config_file
from tt_env.train.plot import plot_run

# ---------------------------------------------------------------------------------- CLI
# The groups of tt-train --help, each with the settings it holds (every TrainConfig field but
# the rules, which add_rules_arguments groups).
HELP_GROUPS: dict[str, tuple[str, ...]] = {
    "the run": (
        "exp_name",
        "seed",
        "players",
        "episode",
        "reward",
        "reward_scale",
        "baseline",
        "total_timesteps",
        "backend",
        "device",
        "threads",
        "progress_bar",
    ),
    "opponents": ("opponents", "league_every", "league_size"),
    "network": ("lookahead", "oracle_critic", "card_hidden", "trunk_hidden"),
    "PPO": (
        "n_envs",
        "vec_env",
        "learning_rate",
        "anneal_lr",
        "n_steps",
        "batch_size",
        "n_epochs",
        "gamma",
        "gae_lambda",
        "clip_range",
        "ent_coef",
        "vf_coef",
        "max_grad_norm",
        "target_kl",
    ),
    "imitation (the behaviour-cloning warm start)": (
        "bc_teacher",
        "bc_samples",
        "bc_epochs",
        "bc_lr",
        "bc_batch_size",
        "bc_value_temperature",
        "bc_opponents",
        "bc_data",
        "init_model",
    ),
    "expert iteration (search led by the network, then a fit to its decisions)": (
        "exit_iterations",
        "exit_teacher",
        "exit_samples",
        "exit_window",
    ),
    "evaluation": (
        "eval_every",
        "eval_opponents",
        "eval_games",
        "eval_episode",
        "eval_seed",
        "eval_workers",
    ),
    "files": ("run_dir", "run_name", "output", "final_model", "checkpoint_every"),
    "Ray (backend rllib)": ("env_runners", "ray_address"),
}


def build_parser() -> argparse.ArgumentParser:
    from tt_env.cli import add_rules_arguments

    parser = Parser(
        prog="tt-train",
        description="Train a Three Thirteen agent with PPO against a pool of opponents and "
        "itself (backends: lean, sb3, rllib). Settings: defaults < --config file < "
        "flags. 'tt-train plot RUN_DIR' draws a run's learning curve.",
        epilog="Example: tt-train --config training/config/ppo_2p_standard.toml "
        "--output models/ppo_2p_standard.npz",
    )
    helps = config_help()
    groups = {title: parser.add_argument_group(title) for title in HELP_GROUPS}
    groups["files"].add_argument("--config", metavar="FILE", help="TOML or YAML file of settings")
    groups["files"].add_argument(
        "--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its last checkpoint"
    )
    for title, names in HELP_GROUPS.items():
        for name in names:
            f = CONFIG_FIELDS[name]
            flag = "--" + name.replace("_", "-")
            text = helps.get(name, "")
            default = f.default
            kind = {"bool": bool, "int": int, "float": float}.get(str(f.type), str)
            if kind is bool:
                groups[title].add_argument(
                    flag,
                    default=UNSET,
                    action=argparse.BooleanOptionalAction,
                    help=f"{text} (default: {default})",
                )
            else:
                groups[title].add_argument(
                    flag, default=UNSET, type=kind, help=f"{text} (default: {default!r})"
                )
    add_rules_arguments(parser)
    parser.set_defaults(preset=UNSET)  # the preset's default comes from the config, not argparse
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
        from tt_env.train.backends.rllib import RLlibTrainer

        return RLlibTrainer(config, root, command or "tt-train", False).run()
    if config.backend == "lean":
        from tt_env.train.backends.lean import LeanTrainer

        return LeanTrainer(config, root, command or "tt-train", resume_dir is not None).run()
    return SB3Trainer(config, root, command or "tt-train", resume_dir is not None).run()


# ---------------------------------------------------------------------------------- main
def main(argv: Sequence[str] | None = None) -> int:
    """``tt-train``: train, resume (``--resume RUN_DIR``), plot (``tt-train plot RUN_DIR``) or
    evaluate a run's snapshots against more opponents (``tt-train evaluate RUN_DIR``)."""
    from tt_env.game.melds import kernel_module

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
    if argv[:1] == ["evaluate"]:
        return _evaluate_main(argv[1:])
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
        kernel_module()  # says so now if the compiled kernel is not built
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


def _evaluate_main(argv: list[str]) -> int:
    """``tt-train evaluate RUN_DIR --opponents search``: :mod:`tt_env.train.evaluate`."""
    from tt_env.agents import split_specs
    from tt_env.arena import TournamentInterrupted
    from tt_env.train.evaluate import evaluate_snapshots

    parser = Parser(
        prog="tt-train evaluate",
        description="Play a run's evaluated snapshots (eval/step_*.npz) against more opponents, "
        "add the results to its evaluations.csv and redraw its learning curve. Snapshots "
        "already evaluated against an opponent are skipped.",
    )
    parser.add_argument("run_dir")
    parser.add_argument(
        "--opponents", required=True, help='agent specs, comma-separated ("search,counting")'
    )
    parser.add_argument("--games", type=int, help="deals per snapshot (default: eval_games)")
    parser.add_argument("--seed", type=int, help="seed of the deals (default: eval_seed)")
    parser.add_argument("--workers", type=int, help="processes (default: one per core)")
    args = parser.parse_args(argv)
    try:
        evaluate_snapshots(
            args.run_dir,
            split_specs(args.opponents),
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            log=lambda text: print(f"[tt-train evaluate] {text}", flush=True),
        )
        print(plot_run(args.run_dir))
    except (ValueError, ModelError, OSError) as exc:
        print(f"tt-train evaluate: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, TournamentInterrupted):
        print(
            "tt-train evaluate: interrupted; the rows written so far are kept, run it again "
            "to go on",
            file=sys.stderr,
        )
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
