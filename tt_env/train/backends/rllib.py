"""``tt-train --backend rllib``: PPO of RLlib (Ray) on the multi-agent API, the same network and
the same model file as the sb3 backend (extra ``ray``).

Ray spreads the sampling over *env runners*: processes of this machine, or of every machine of a
cluster (``ray_address``), each stepping ``n_envs`` environments; the learner updates the policy
in this process and sends the weights back. The run directory, the evaluations, the warm start
and the model file are :class:`~tt_env.train.run.TrainingRun`'s, so ``tt-arena`` and
``LearnedAgent`` play the result with numpy, as any model.

How the pieces map onto RLlib (new API stack: RLModule, Learner, EnvRunner):

- **Environment**: :class:`RLlibEnv`, a ``MultiAgentEnv`` over the AEC environment. The seats
  of the learning policy are agents of the episode; each other seat is a built-in agent drawn per
  episode from ``opponents`` (as in the sb3 backend) and played inside the environment, so RLlib
  never sees it. ``self`` in the pool puts the learning policy in that seat too: self-play,
  every learning seat mapped to the one shared policy. One learning seat is drawn per episode.
- **Rewards in a turn-based game**: a round can end on another seat's move. Each learning agent
  gets everything it earned since its last action (the AEC environment's cumulative reward)
  with its next observation, and every learning agent gets its observation and its reward
  when the episode ends, whoever moved last. Nothing is lost, nothing is paid twice.
- **Masking**: the observation is ``{"observations": CardFeatures, "action_mask": mask}``;
  :class:`CardNetModule` sets the logits of illegal actions to -1e8 (as sb3-contrib does) in
  every forward pass (sampling, inference, training), so a masked action has probability 0. The
  environment checks every action against the mask it gave and counts the masked ones
  (:func:`action_counts`); the tests require none. RLlib's environment checker, which steps with
  unmasked random actions, is switched off.
- **Network**: :class:`CardNetModule` is a ``TorchRLModule`` holding the very
  :class:`~tt_env.learned.network.CardNet` of the sb3 backend: its weights are the model file's.

Settings of :class:`~tt_env.train.TrainConfig` as this backend reads them:

=====================  ==========================================================================
setting                with ``backend = "rllib"``
=====================  ==========================================================================
``env_runners``        RLlib env runners (processes; 0: sample in this process)
``n_envs``             environments per env runner
``n_steps``            steps per environment per iteration (``rollout_fragment_length``); a train
                       batch is ``n_steps x n_envs x max(1, env_runners)`` steps
``batch_size``         minibatch size; ``n_epochs``: epochs per train batch
``ray_address``        ``local`` (a Ray instance of ``max(1, env_runners)`` CPUs), ``auto``,
                       ``host:port``, ``ray://host:port``
``opponents``          the pool of the sb3 backend, with ``self`` instead of ``league``
``bc_*``, ``eval_*``   as the sb3 backend (the warm start is fitted here before Ray starts)
learning rate, PPO     ``learning_rate``, ``gamma``, ``gae_lambda``, ``clip_range``, ``ent_coef``,
coefficients           ``vf_coef``, ``max_grad_norm`` as PPO's (no value clipping, no KL term)
not taken              ``--resume``, ``baseline``, ``league`` and ``target_kl`` (refused);
                       ``vec_env``, ``checkpoint_every``, ``league_every``, ``league_size``
                       (unused: a run writes no checkpoints and starts afresh)
=====================  ==========================================================================
"""

from __future__ import annotations

import dataclasses
import shutil
import time
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.learned.features import CardFeatures
from tt_env.learned.network import CardNet, masked_logits, numpy_weights
from tt_env.train.config import SELF, TrainConfig, config_to_toml, parse_pool
from tt_env.train.opponents import OpponentPool
from tt_env.train.run import TrainingRun
from tt_env.util.files import write_text_atomically

POLICY = "learner"
"""The module id of the learning policy (every learning seat maps to it)."""


# ---------------------------------------------------------------------------------- environment
class RLlibEnv(MultiAgentEnv):
    """Three Thirteen for RLlib's multi-agent API (see the module docstring).

    ``env_config``: ``{"config": dataclasses.asdict(TrainConfig)}``; RLlib adds the env
    runner's ``worker_index`` and ``vector_index``, which seed each copy apart.
    :attr:`masked_actions` counts the actions that the mask given with their observation
    forbade (each ends its episode with the illegal-action reward); :attr:`actions` counts all.
    """

    def __init__(self, env_config: dict[str, Any] | None = None) -> None:
        super().__init__()
        from tt_env.env.aec import raw_env

        env_config = env_config or {}
        config = TrainConfig(**env_config.get("config", {}))
        self.rules = rules = config.make_rules()
        seed = (
            config.seed * 1_000_003
            + 1000 * int(getattr(env_config, "worker_index", 0))
            + int(getattr(env_config, "vector_index", 0))
        )
        self.features = CardFeatures(rules, lookahead=config.lookahead)
        self.reward_scale = config.reward_scale
        pool = parse_pool(config.opponents)
        self_weight = pool.pop(SELF, 0.0)
        self.self_share = self_weight / (self_weight + sum(pool.values()))
        self.pool = OpponentPool(pool, rules, seed) if pool else None
        self.rng = np.random.default_rng([seed, 2])
        self.env = raw_env(
            rules=rules, episode=config.episode, reward=config.reward, illegal_action="raise"
        )
        self.possible_agents = list(self.env.possible_agents)
        self.agents = []
        space = gymnasium.spaces.Dict(
            {
                "observations": gymnasium.spaces.Box(
                    -np.inf, np.inf, (self.features.size,), np.float32
                ),
                "action_mask": gymnasium.spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        self.action_spaces = {
            a: gymnasium.spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents
        }
        self.masked_actions = 0
        self.actions = 0
        self._seated: dict[str, Any] = {}  # agent name -> its built-in agent (None: learning)
        self._mask = np.zeros(NUM_ACTIONS, np.float32)
        self._rounds_seen = 0

    # ------------------------------------------------------------------ reset
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        env, n = self.env, self.rules.num_players
        if seed is not None:
            self.rng = np.random.default_rng([seed, 2])
            if self.pool is not None:
                self.pool.rng = np.random.default_rng([seed, 1])
        previous = env.game
        if seed is not None:
            env.reset(seed=int(seed))
        elif previous is None:
            env.reset(seed=int(self.rng.integers(2**63)))
        else:
            env.reset()  # the next game, or the next round of this one (episode="round")
        learner = int(self.rng.integers(n))
        self._seated = {}
        for k in range(1, n):
            name = self.possible_agents[(learner + k) % n]
            if self.pool is None or self.rng.random() < self.self_share:
                self._seated[name] = None
            else:
                self._seated[name] = self.pool.sample(k - 1)[1]
        self._seated[self.possible_agents[learner]] = None
        self.agents = [a for a in self.possible_agents if self._seated[a] is None]
        for agent in {id(a): a for a in self._seated.values() if a is not None}.values():
            if env.game is not previous:  # a new game
                hook = getattr(agent, "reset", None)
                if callable(hook):
                    hook(int(self.rng.integers(2**63)))
            else:
                hook = getattr(agent, "new_round", None)
                if callable(hook):
                    hook()
        self._rounds_seen = len(env.game.round_results)
        if self._play_opponents():  # impossible while turn_cap >= num_players (Rules check it)
            raise RuntimeError("the episode ended before a learning seat moved")
        agent = env.agent_selection
        return {agent: self._observe(agent)}, {agent: {}}

    # ------------------------------------------------------------------ step
    def step(self, action_dict: dict[str, Any]):
        env = self.env
        agent = env.agent_selection
        action = int(action_dict[agent])
        self.actions += 1
        if not (0 <= action < NUM_ACTIONS and self._mask[action]):
            self.masked_actions += 1  # never with a masked policy: the tests require 0
            return self._illegal(agent)
        env.step(action)
        over = self._play_opponents()
        # The AEC env zeroes an agent's cumulative reward when it acts and adds every reward
        # given since: all that agent earned since its last action, whoever ended a round.
        earned = env.cumulative_reward
        if over:
            learners = self.agents
            obs = {a: self._observe(a) for a in learners}
            rewards = {a: float(earned(a)) * self.reward_scale for a in learners}
            done = dict.fromkeys(learners, True)
            return obs, rewards, {**done, "__all__": True}, {"__all__": False}, {}
        nxt = env.agent_selection
        return (
            {nxt: self._observe(nxt)},
            {nxt: float(earned(nxt)) * self.reward_scale},
            {"__all__": False},
            {"__all__": False},
            {},
        )

    def _illegal(self, agent: str):
        """End the episode as ``illegal_action="terminate"`` would: the offender gets the
        illegal-action reward, the other learning agents nothing."""
        obs = {a: self._observe(a) for a in self.agents}
        rewards = {
            a: (self.env.illegal_reward if a == agent else 0.0) * self.reward_scale
            for a in self.agents
        }
        done = dict.fromkeys(self.agents, True)
        return obs, rewards, {**done, "__all__": True}, {"__all__": False}, {}

    def _play_opponents(self) -> bool:
        """Let the built-in agents move until a learning seat is to move; True when the
        episode is over."""
        env = self.env
        game = env.game
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                return True
            if len(game.round_results) != self._rounds_seen:  # episode="game": a new round
                self._rounds_seen = len(game.round_results)
                for other in {id(a): a for a in self._seated.values() if a is not None}.values():
                    hook = getattr(other, "new_round", None)
                    if callable(hook):
                        hook()
            opponent = self._seated[agent]
            if opponent is None:
                return False
            observation = env.observe(agent)
            env.step(int(opponent.act(observation["observation"], observation["action_mask"])))

    def _observe(self, agent: str) -> dict[str, np.ndarray]:
        raw = self.env.observe(agent)
        mask = raw["action_mask"].astype(np.float32)
        if agent == self.env.agent_selection:
            self._mask = mask
        return {"observations": self.features(raw["observation"]), "action_mask": mask}


def action_counts(algo) -> tuple[int, int]:
    """``(masked, all)`` actions taken so far in every environment of every env runner of
    ``algo`` (an RLlib ``Algorithm`` on :class:`RLlibEnv`)."""

    def count(runner) -> tuple[int, int]:
        env = getattr(runner, "env", None)
        if env is None:  # the driver's env runner when remote ones sample
            return (0, 0)
        envs = [e.unwrapped for e in getattr(env, "envs", [env])]
        return (sum(e.masked_actions for e in envs), sum(e.actions for e in envs))

    counts = algo.env_runner_group.foreach_env_runner(count, local_env_runner=True)
    return (sum(c[0] for c in counts), sum(c[1] for c in counts))


# ---------------------------------------------------------------------------------- network
class CardNetModule(TorchRLModule, ValueFunctionAPI):
    """RLlib's module for the policy: :class:`~tt_env.learned.network.CardNet` with the action mask
    applied in every forward pass (illegal logits at -1e8: probability 0).

    ``model_config``: ``{"net_kwargs": {...}, "weights": {name: array} or None}`` (the weights
    a warm start or a model file gives; None: CardNet's own initialisation).
    """

    def setup(self) -> None:
        config = dict(self.model_config or {})
        self.net = CardNet(**config["net_kwargs"])
        weights = config.get("weights")
        if weights:
            self.net.load_state_dict(
                {k: torch.as_tensor(np.asarray(v, np.float32)) for k, v in weights.items()}
            )

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.net.actor(obs["observations"])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, obs["action_mask"])}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.net.critic(batch[Columns.OBS]["observations"]).squeeze(-1)


def module_weights(state: dict[str, Any]) -> dict[str, np.ndarray]:
    """CardNet's weights (as a model file names them) from :class:`CardNetModule`'s state."""
    prefix = "net."
    return {
        k[len(prefix) :]: np.asarray(v.detach().cpu() if torch.is_tensor(v) else v, np.float32)
        for k, v in state.items()
        if k.startswith(prefix)
    }


# ---------------------------------------------------------------------------------- the run
def algorithm_config(
    config: TrainConfig, net_kwargs: dict[str, Any], weights: dict[str, np.ndarray] | None
):
    """The ``PPOConfig`` of a run (see the module docstring for how the settings map)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    runners = config.env_runners
    spec = RLModuleSpec(
        module_class=CardNetModule,
        model_config={"net_kwargs": dict(net_kwargs), "weights": weights},
    )
    return (
        PPOConfig()
        .framework("torch")
        .environment(
            RLlibEnv,
            env_config={"config": dataclasses.asdict(config)},
            disable_env_checking=True,  # it would step with unmasked random actions
        )
        .env_runners(
            num_env_runners=runners,
            num_envs_per_env_runner=config.n_envs,
            rollout_fragment_length=config.n_steps,
            num_cpus_per_env_runner=1,
        )
        .learners(num_learners=0)  # the learner updates in this process
        .multi_agent(policies={POLICY}, policy_mapping_fn=lambda agent, *args, **kw: POLICY)
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY: spec}))
        .training(
            train_batch_size_per_learner=config.n_steps * config.n_envs * max(1, runners),
            minibatch_size=config.batch_size,
            num_epochs=config.n_epochs,
            lr=config.learning_rate,
            gamma=config.gamma,
            lambda_=config.gae_lambda,
            clip_param=config.clip_range,
            entropy_coeff=config.ent_coef,
            vf_loss_coeff=config.vf_coef,
            vf_clip_param=float("inf"),
            grad_clip=config.max_grad_norm,
            grad_clip_by="global_norm",
            use_kl_loss=False,
        )
        .debugging(seed=config.seed)
    )


class _Policy:
    """What :class:`RLlibTrainer` hands to the :class:`~tt_env.train.run.TrainingRun` methods
    in place of an sb3 model: the step count and the network (a torch CardNet before the algorithm
    exists, for the warm start; the learner's weights after)."""

    def __init__(self, net: CardNet) -> None:
        self.net = net
        self.algo: Any = None
        self.num_timesteps = 0

    def weights(self) -> dict[str, np.ndarray]:
        if self.algo is None:
            return numpy_weights(self.net)
        return module_weights(self.algo.learner_group.get_weights([POLICY])[POLICY])


class RLlibTrainer(TrainingRun):
    """A run of ``tt-train --backend rllib``: :class:`~tt_env.train.run.TrainingRun`'s run
    files, warm start, evaluations and model files around RLlib's PPO."""

    def network(self, model: _Policy) -> CardNet:
        return model.net

    def export(self, model: _Policy, path: Path) -> Path:
        from tt_env.learned.model import save_model

        return save_model(path, model.weights(), self.metadata(model.num_timesteps))

    def ppo_name(self) -> str:
        import ray

        c = self.config
        return f"PPO (RLlib {ray.__version__}), {c.env_runners} env runner(s) x {c.n_envs} env(s)"

    def backend_versions(self) -> dict[str, str]:
        import ray

        return {"ray": ray.__version__}

    def run(self) -> Path:
        from tt_env.util.ray import ray_session

        c = self.config
        torch.manual_seed(c.seed)
        np.random.seed(c.seed)
        torch.set_num_threads(c.threads)
        root = self.files.root
        made = [p for p in (root, *root.parents) if not p.exists()]  # removed if setup fails
        try:
            root.mkdir(parents=True, exist_ok=True)  # no checkpoints, no league: no folders
            self._state.setdefault("commands", []).append(self.command)
            self.files.save_state(self._state)
            with (root / "command.txt").open("a") as fh:
                fh.write(self.command + "\n")
            write_text_atomically(root / "config.toml", config_to_toml(c))
        except BaseException:
            if made:
                shutil.rmtree(made[-1], ignore_errors=True)
            raise
        model = _Policy(CardNet(**self.net_kwargs))
        if self._bc_on():
            self.warm_start(model)  # before Ray starts: its games use this machine's cores
        if self.eval_specs and c.eval_every > 0:
            self.evaluate(model)  # the starting point of the learning curve
        self._schedule(0)
        with ray_session(c.ray_address, max(1, c.env_runners), "backend = 'rllib'"):
            algo = algorithm_config(c, self.net_kwargs, model.weights()).build_algo()
            model.algo = algo
            try:
                self.log(
                    f"RLlib PPO: 0 -> {c.total_timesteps:,} steps, {c.env_runners} env "
                    f"runner(s) x {c.n_envs} env(s), opponents {c.opponents}"
                )
                self._train(algo, model)
                self.at_boundary(model, final=True)
            finally:  # also after Ctrl-C: the model trained so far is kept
                final = self.export(model, root / "model.npz")
                try:
                    self.masked_actions, self.actions = action_counts(algo)
                finally:
                    algo.stop()
        self._state["wall_time"] = self.wall_time()
        self._state["timesteps"] = model.num_timesteps
        self._state["actions"] = {"all": self.actions, "masked": self.masked_actions}
        self.files.save_state(self._state)
        self.finish(final)
        self.log(
            f"done: {model.num_timesteps:,} steps ({self.actions:,} actions, "
            f"{self.masked_actions} masked), {self.wall_time() / 60:.1f} min; model {final}"
        )
        return final

    def _train(self, algo, model: _Policy) -> None:
        from ray.rllib.utils.metrics import (
            ENV_RUNNER_RESULTS,
            NUM_ENV_STEPS_SAMPLED_LIFETIME,
            NUM_EPISODES,
        )

        c = self.config
        while model.num_timesteps < c.total_timesteps:
            t0 = time.perf_counter()
            result = algo.train()
            runners = result.get(ENV_RUNNER_RESULTS, {})
            model.num_timesteps = int(runners.get(NUM_ENV_STEPS_SAMPLED_LIFETIME, 0))
            returns = runners.get("module_episode_returns_mean", {})
            if POLICY in returns:
                self.files.append_csv(
                    "progress.csv",
                    {
                        "timesteps": model.num_timesteps,
                        "wall_time": round(self.wall_time(), 1),
                        "opponents": "all",
                        "episodes": int(runners.get(NUM_EPISODES, 0)),
                        "mean_reward": round(float(returns[POLICY]) / c.reward_scale, 4),
                    },
                )
            self.log(
                f"{model.num_timesteps:,} steps, {time.perf_counter() - t0:.1f} s per iteration"
            )
            self.at_boundary(model)
