"""Training learned agents: PPO against a pool of opponents and the learner itself.

``tt-train`` (:func:`main`) trains one policy for any number of players and any
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
``checkpoints/``      checkpoints (``ckpt_<steps>.zip``), for ``--resume``
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
2. **Warm start** (optional, ``bc_teacher``; none by default): behaviour cloning of an agent
   (e.g. :class:`~tt_env.agents.CountingAgent`): its decisions in ``bc_samples`` positions, a
   cross-entropy fit of the policy and a fit of the value to the rounds' returns.
3. **PPO** (``backend``: the lean one-file PPO on the compiled batch by default, sb3-contrib's
   ``MaskablePPO``, or RLlib's) against opponents drawn per episode and per seat from a
   weighted pool: ``self`` (the learner itself), ``random``, ``greedy``, ``counting``, any agent
   spec, and ``league``: the latest snapshots of the learner (a self-play league, refreshed
   every ``league_every`` steps).
   With ``episode="round"`` (default) an episode is one round and the next reset plays the next
   round of the same game, so every round size is trained; ``reward="relative"`` (default) pays
   the opponents' mean penalty minus the own at the end of each round: the score difference that
   duplicate tournaments measure, not a shaped proxy.
4. **Evaluation** every ``eval_every`` steps: a duplicate tournament of the current policy against
   each of ``eval_opponents`` (:func:`tt_env.arena.run_tournament`), logged with its 95% interval.

Resuming: ``tt-train --resume runs/<name>`` reloads the run's config and its last checkpoint and
continues; the step count, the logs and the league carry on (flags given with ``--resume``, such as
a larger ``--total-timesteps``, override the saved config; the rules may not change).

The package, by concern:

==================  =========================================================================
module              owns
==================  =========================================================================
``config``          :class:`TrainConfig`, config files, the checks of a run before it starts
``opponents``       the weighted pool of opponents and the self-play league
``env``             the training environment (features, scaled rewards, the pool)
``imitation``       a teacher's decisions (collected in worker processes); behaviour cloning
``runs``            a run's directory and files
``run``             :class:`TrainingRun`, a run whatever its backend: files, warm start,
                    evaluations, model files
``backends.lean``   the lean backend (the default): PPO in one file on the compiled batch;
                    not imported here
``backends.sb3``    the MaskablePPO backend: policy, callback, :class:`SB3Trainer`
``backends.rllib``  the RLlib backend (extra ``ray``); not imported here
``plot``            a run's learning curve
``cli``             ``tt-train`` (:func:`main`) and :func:`train`
==================  =========================================================================
"""

from tt_env.train.backends.sb3 import CardPolicy, SB3Trainer, Trainer
from tt_env.train.cli import (
    build_parser,
    config_from_args,
    main,
    train,
)
from tt_env.train.config import (
    BUILTIN_OPPONENTS,
    CONFIG_FIELDS,
    LEAGUE,
    SELF,
    TrainConfig,
    check_run,
    config_help,
    config_to_toml,
    load_config_file,
    parse_pool,
)
from tt_env.train.env import (
    TrainingEnv,
    make_training_env,
    make_vec_env,
)
from tt_env.train.imitation import (
    behaviour_clone,
    collect_teacher_data,
    load_teacher_data,
    save_teacher_data,
)
from tt_env.train.opponents import (
    OpponentPool,
    PoolSeat,
)
from tt_env.train.plot import (
    learning_curve_figure,
    plot_run,
)
from tt_env.train.run import TrainingRun, net_kwargs_for
from tt_env.train.runs import RunFiles, hardware

__all__ = [
    "BUILTIN_OPPONENTS",
    "CONFIG_FIELDS",
    "CardPolicy",
    "LEAGUE",
    "OpponentPool",
    "PoolSeat",
    "RunFiles",
    "SB3Trainer",
    "SELF",
    "TrainConfig",
    "Trainer",
    "TrainingEnv",
    "TrainingRun",
    "behaviour_clone",
    "build_parser",
    "check_run",
    "collect_teacher_data",
    "config_from_args",
    "config_help",
    "config_to_toml",
    "hardware",
    "learning_curve_figure",
    "load_config_file",
    "load_teacher_data",
    "main",
    "make_training_env",
    "make_vec_env",
    "net_kwargs_for",
    "parse_pool",
    "plot_run",
    "save_teacher_data",
    "train",
]
