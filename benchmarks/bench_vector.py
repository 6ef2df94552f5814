"""The batched environment against Gymnasium's and SB3's vector envs, side by side in one run.

Figures (learner steps per second; every ratio is measured in this run, the two sides
alternating in chunks so that a change in the machine's speed hits both):

1. ``env``: 64 tables, counting opponents, CardFeatures observations, a random legal learner:
   ``gymnasium.make_vec(..., vectorization_mode="sync")`` against the native batch
   (``vector_entry_point``) on the compiled batch (every table and its built-in opponents in
   one C call) and on the Python engine (``compiled=False``). Also the floor that no engine can
   go below: the compiled counting decisions and features of the same steps, timed alone.
2. ``cheap``: the same with random opponents and raw observations (the engine's own speed).
3. ``ppo``: MaskablePPO (MlpPolicy, n_epochs 4, batch 512, rollouts of 2,048 steps) on
   ``stable_baselines3.common.env_util.make_vec_env(id, n_envs=2)`` against
   ``tt_env.vector.make_sb3_vec_env(64)``, with the env's default opponents (random) and raw
   observations, and with counting opponents and CardFeatures; and MaskablePPO on a do-nothing
   ``VecEnv`` of as many tables with the same spaces (the trainer's own ceiling).
4. ``train``: tt-train's setup (CardNet, its opponent pool, CardFeatures): the default
   (``vec_env="batch"``, 16 tables, n_steps 128) against 4
   ``SubprocVecEnv`` processes (n_steps 512), and the share of a step spent in the environment
   (against a do-nothing env with the same spaces, as ``bench_training.py``), and the learner's
   arithmetic alone (CardNet's forward passes and PPO update, no environment, no SB3).
5. ``dup``: the environment of duplicate-deal training (``baseline = "counting"``: every
   round replayed from the learner's first decision with counting in its seat), 16 tables of 4
   seats against counting: tt-train's batch, whose replays of all tables are answered
   together, against SB3's ``DummyVecEnv`` of the same tables, replaying one table at a time.
6. ``memory``: the resident memory of a native batch over ``--soak`` learner steps.

Torch runs on one thread. ``python benchmarks/bench_vector.py`` runs them all (about 4
minutes on 2 cores); ``--only env,cheap`` picks some.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import gymnasium
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

import tt_env.env  # noqa: E402,F401  (registers the id)
from tt_env.game.melds import _kernel  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402
from tt_env.learned.features import CardFeatures  # noqa: E402
from tt_env.vector.sb3 import TablesVecEnv  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench_training, beside this file
from bench_training import LEGAL, LENGTH  # noqa: E402

ID = "tt_env/ThreeThirteen-v0"


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (0 where nothing is legal)."""
    scores = rng.random(masks.shape) * masks
    return scores.argmax(axis=1)


class Side:
    """One vector env stepped by a random legal learner, timed chunk by chunk."""

    def __init__(self, env, masks_of, seed: int = 0) -> None:
        self.env, self.masks_of = env, masks_of
        self.rng = np.random.default_rng(seed)
        _, self.info = env.reset(seed=seed)
        self.seconds = 0.0
        self.steps = 0

    def run(self, steps: int, timed: bool = True) -> None:
        env, n = self.env, self.env.num_envs
        start = time.perf_counter()
        for _ in range(steps):
            actions = random_legal(self.masks_of(env, self.info), self.rng)
            _, _, _, _, self.info = env.step(actions)
        if timed:
            self.seconds += time.perf_counter() - start
            self.steps += steps * n

    @property
    def rate(self) -> float:
        return self.steps / self.seconds


def sync_masks(env, info) -> np.ndarray:
    return np.stack([e.unwrapped.action_masks() for e in env.envs])


def native_masks(env, info) -> np.ndarray:
    return env.action_masks()


def side_by_side(make_a, make_b, masks_a, masks_b, steps: int, chunks: int = 6, more=()):
    """Both sides (and any ``more``, pairs of a maker and its masks) warmed, then stepped in
    alternating chunks; their rates."""
    sides = [Side(make(), masks) for make, masks in [(make_a, masks_a), (make_b, masks_b), *more]]
    for side in sides:
        side.run(20, timed=False)
    chunk = max(1, steps // chunks)
    for _ in range(chunks):
        for side in sides:
            side.run(chunk)
    return tuple(sides)


def features_wrapper(rules: Rules):
    features = CardFeatures(rules)
    space = gymnasium.spaces.Box(-np.inf, np.inf, (features.size,), np.float32)
    return lambda env: gymnasium.wrappers.TransformObservation(env, features, space)


def bench_env(args, opponents: str, observation: str, label: str) -> None:
    kwargs = dict(opponents=opponents, episode="round")
    wrappers = [features_wrapper(Rules())] if observation == "features" else []

    def sync():
        return gymnasium.make_vec(
            ID, args.tables, vectorization_mode="sync", wrappers=wrappers, **kwargs
        )

    def native():
        return gymnasium.make_vec(ID, args.tables, observation=observation, **kwargs)

    def python():
        return gymnasium.make_vec(
            ID, args.tables, observation=observation, compiled=False, **kwargs
        )

    s, nat, py = side_by_side(
        sync, native, sync_masks, native_masks, args.env_steps, more=[(python, native_masks)]
    )
    where = "compiled" if nat.env.compiled else "Python engine: the compiled batch is not built"
    print(f"\n{label}: {args.tables} tables, {opponents} opponents, {observation} observations")
    print(f"  {'gymnasium.make_vec, vectorization_mode=sync':52}{s.rate:>10,.0f} steps/s")
    print(f"  {'gymnasium.make_vec, native batch (compiled=False)':52}{py.rate:>10,.0f} steps/s")
    print(f"  {'gymnasium.make_vec, native batch (' + where + ')':52}{nat.rate:>10,.0f} steps/s")
    print(f"  native / sync: {nat.rate / s.rate:.2f}x (Python engine: {py.rate / s.rate:.2f}x)")
    if opponents == "counting" and observation == "features":
        floor = kernel_floor(args)
        print(
            f"  the compiled counting decisions and CardFeatures of these steps alone: "
            f"{floor:,.0f} steps/s, {floor / s.rate:.1f}x sync (the ceiling of any engine)"
        )


def kernel_floor(args) -> float:
    """Learner steps per second if nothing but the compiled opponent decisions and the
    features were computed: the positions of a native run, recorded, then timed alone."""
    from tt_env.agents import together

    recorded: list[tuple] = []
    act_together = together.act_together

    def recording(agents, observations, masks):
        recorded.append((agents, observations.copy(), masks.copy()))
        return act_together(agents, observations, masks)

    env = gymnasium.make_vec(ID, args.tables, opponents="counting", episode="round")
    import tt_env.vector.batch as batch

    batch.act_together = recording
    try:
        side = Side(env, native_masks)
        raw: list[np.ndarray] = []
        for _ in range(args.env_steps // 2):
            actions = random_legal(env.action_masks(), side.rng)
            obs, _, _, _, side.info = env.step(actions)
            raw.append(obs)
    finally:
        batch.act_together = act_together
    learner_steps = len(raw) * args.tables
    features = CardFeatures(Rules())
    features.batch(raw[0])  # made once, untimed: the compiled transform, its threads' kernels
    start = time.perf_counter()
    for obs in raw:
        features.batch(obs)
    for agents, observations, masks in recorded:
        type(agents[0]).act_many(agents, observations, masks)
    return learner_steps / (time.perf_counter() - start)


def ppo_rate(env, steps: int, n_steps: int, policy="MlpPolicy", policy_kwargs=None) -> float:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO(
        policy,
        env,
        n_steps=n_steps,
        batch_size=512,
        n_epochs=4,
        seed=0,
        device="cpu",
        verbose=0,
        policy_kwargs=policy_kwargs,
    )
    model.learn(2048)  # warm
    start = time.perf_counter()
    model.learn(steps, reset_num_timesteps=False)
    return steps / (time.perf_counter() - start)


def bench_ppo(args) -> None:
    from stable_baselines3.common.env_util import make_vec_env

    from tt_env.vector import make_sb3_vec_env

    for opponents, observation in (("random", "raw"), ("counting", "features")):
        kwargs = dict(opponents=opponents, episode="round")
        wrapper = features_wrapper(Rules()) if observation == "features" else None
        base = ppo_rate(
            make_vec_env(ID, n_envs=2, env_kwargs=kwargs, wrapper_class=wrapper),
            args.ppo_steps,
            1024,
        )
        ours = ppo_rate(
            make_sb3_vec_env(args.tables, observation=observation, **kwargs),
            args.ppo_steps,
            2048 // args.tables,
        )
        real = make_sb3_vec_env(args.tables, observation=observation, **kwargs)
        nothing = ppo_rate(
            DoNothingVecEnv(args.tables, real.observation_space, real.action_space),
            args.ppo_steps,
            2048 // args.tables,
        )
        real.close()
        print(f"\nppo: MaskablePPO, {opponents} opponents, {observation} observations")
        print(f"  {'make_vec_env(id, n_envs=2)':52}{base:>10,.0f} steps/s")
        print(f"  {f'make_sb3_vec_env({args.tables})':52}{ours:>10,.0f} steps/s")
        print(f"  {f'do-nothing VecEnv of {args.tables}, same spaces':52}{nothing:>10,.0f} steps/s")
        print(
            f"  batch / make_vec_env: {ours / base:.2f}x (an environment that costs nothing: "
            f"{nothing / base:.2f}x)"
        )


class DoNothingVecEnv(TablesVecEnv):
    """SB3's VecEnv interface with no game behind it: the do-nothing env of
    ``bench_training.py`` (zero observations, its legal actions and episode length) at every
    table in one array. MaskablePPO on it runs at the speed of MaskablePPO alone."""

    def __init__(self, num_envs: int, observation_space, action_space) -> None:
        super().__init__(num_envs, observation_space, action_space)
        self.tables = []
        self._obs = np.zeros((num_envs, *observation_space.shape), observation_space.dtype)
        self._masks = np.zeros((num_envs, action_space.n), bool)
        self._masks[:, LEGAL] = True
        self._t = 0

    def reset(self):
        self._t = 0
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return self._obs.copy()

    def step_wait(self):
        self._take_actions()
        self._t += 1
        done = self._t % LENGTH == 0
        dones = np.full(self.num_envs, done)
        infos = [{"terminal_observation": self._obs[0]} if done else {} for _ in dones]
        return self._obs.copy(), dones.astype(np.float32), dones, infos

    def action_masks(self) -> np.ndarray:
        return self._masks

    def close(self) -> None:
        pass


def bench_train(args) -> None:
    from bench_training import SB3_SETUP, TrivialEnv, maskable_ppo, rate
    from stable_baselines3.common.vec_env import DummyVecEnv

    from tt_env.train import TrainConfig, make_vec_env

    default = TrainConfig(**SB3_SETUP)
    subproc = TrainConfig(**{**SB3_SETUP, "vec_env": "subproc", "n_envs": 4, "n_steps": 512})
    rates = {}
    for name, config in (("default (batch)", default), ("subproc", subproc)):
        env = make_vec_env(config, seed=0, league_dir=None)
        rates[name] = rate(maskable_ppo(config, env), args.train_steps)
        env.close()
    size = CardFeatures(default.make_rules(), lookahead=default.lookahead).size
    trivial_env = DummyVecEnv([lambda: TrivialEnv(size)] * default.n_envs)
    trivial = rate(maskable_ppo(default, trivial_env), args.train_steps)
    print(
        f"\ntrain: tt-train's sb3 setup (CardNet, opponents {default.opponents}, without "
        "league snapshots, CardFeatures)"
    )
    d, b = rates["default (batch)"], rates["subproc"]
    print(f"  {'default: batch of 16 tables, n_steps 128':52}{d:>10,.0f} steps/s")
    print(f"  {'subproc: SubprocVecEnv of 4, n_steps 512':52}{b:>10,.0f} steps/s")
    print(f"  {'do-nothing env, same spaces, 16 envs':52}{trivial:>10,.0f} steps/s")
    share = 100 * (1 - d / trivial)
    print(f"  default / subproc: {d / b:.2f}x; environment side of a step: {share:.0f}%")
    alone = learner_alone(default, size, args.train_steps)
    print(
        f"  {'CardNet PPO arithmetic alone (no env, no SB3)':52}{alone:>10,.0f} steps/s "
        f"({alone / trivial:.2f}x the do-nothing env)"
    )


def learner_alone(config, size: int, steps: int) -> float:
    """Learner steps/s of the arithmetic any PPO on CardNet must do, with no environment and no
    SB3: per rollout, ``n_steps`` forward passes over ``n_envs`` rows, then ``n_epochs`` passes
    of masked log-probabilities, entropy, value loss, backward, gradient clipping and an Adam
    step over minibatches of ``batch_size``. The ceiling of a lean PPO of our own."""
    import torch

    from tt_env.learned.network import CardNet, masked_logits
    from tt_env.train import net_kwargs_for

    features = CardFeatures(config.make_rules(), lookahead=config.lookahead)
    net = CardNet(**net_kwargs_for(config, features))
    optimiser = torch.optim.Adam(net.parameters(), lr=config.learning_rate)
    rollout = config.n_steps * config.n_envs
    generator = torch.Generator().manual_seed(0)
    x = torch.rand(rollout, size, generator=generator)
    mask = torch.rand(rollout, 108, generator=generator) < 0.15
    mask[:, 0] = True
    actions = torch.zeros(rollout, dtype=torch.long)
    old_log_prob, advantages, returns = (torch.randn(rollout, generator=generator) for _ in "abc")

    def one_rollout() -> None:
        with torch.no_grad():
            for i in range(config.n_steps):
                net(x[i * config.n_envs : (i + 1) * config.n_envs])
        for _ in range(config.n_epochs):
            order = torch.randperm(rollout, generator=generator)
            for start in range(0, rollout, config.batch_size):
                rows = order[start : start + config.batch_size]
                logits, value = net(x[rows])
                log_probs = torch.log_softmax(masked_logits(logits, mask[rows]), dim=-1)
                log_prob = log_probs.gather(1, actions[rows, None]).squeeze(1)
                ratio = torch.exp(log_prob - old_log_prob[rows])
                clipped = torch.clamp(ratio, 1 - config.clip_range, 1 + config.clip_range)
                policy_loss = -torch.min(ratio * advantages[rows], clipped * advantages[rows])
                entropy = -(log_probs.exp() * log_probs).sum(-1)
                value_loss = (value.squeeze(1) - returns[rows]) ** 2
                loss = (
                    policy_loss.mean()
                    + config.vf_coef * value_loss.mean()
                    - config.ent_coef * entropy.mean()
                )
                optimiser.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), config.max_grad_norm)
                optimiser.step()

    one_rollout()  # warm
    rounds = max(1, steps // rollout)
    start = time.perf_counter()
    for _ in range(rounds):
        one_rollout()
    return rounds * rollout / (time.perf_counter() - start)


def bench_dup(args) -> None:
    from tt_env.train import TrainConfig, make_vec_env

    def side(vec_env: str):
        config = TrainConfig(
            players=4, vec_env=vec_env, n_envs=16, opponents="counting=1", baseline="counting"
        )
        env = make_vec_env(config, seed=0, league_dir=None)
        return DupSide(env)

    batch, dummy = side("batch"), side("dummy")
    for s in (batch, dummy):
        s.run(20, timed=False)
    chunk = max(1, args.dup_steps // 6)
    for _ in range(6):
        batch.run(chunk)
        dummy.run(chunk)
    print("\ndup: duplicate deals (baseline counting), 16 tables of 4 seats, counting opponents")
    print(f"  {'tt-train batch (replays answered together)':52}{batch.rate:>10,.0f} steps/s")
    print(f"  {'DummyVecEnv (replays one table at a time)':52}{dummy.rate:>10,.0f} steps/s")
    print(f"  batch / dummy: {batch.rate / dummy.rate:.2f}x")


class DupSide(Side):
    """:class:`Side` for an SB3 ``VecEnv`` (tt-train's environments)."""

    def __init__(self, env, seed: int = 0) -> None:
        self.env, self.rng = env, np.random.default_rng(seed)
        env.reset()
        self.seconds, self.steps = 0.0, 0

    def run(self, steps: int, timed: bool = True) -> None:
        env = self.env
        start = time.perf_counter()
        for _ in range(steps):
            env.step(random_legal(np.stack(env.env_method("action_masks")), self.rng))
        if timed:
            self.seconds += time.perf_counter() - start
            self.steps += steps * env.num_envs


def bench_memory(args) -> None:
    env = gymnasium.make_vec(
        ID, args.tables, opponents="counting", episode="round", observation="features"
    )
    side = Side(env, native_masks)
    points = []
    per = max(1, args.soak // args.tables // 10)
    for _ in range(10):
        side.run(per)
        points.append(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(f"\nmemory: {side.steps:,} learner steps of a native batch of {args.tables} tables")
    print("  peak resident MB after each tenth: " + ", ".join(f"{p:.0f}" for p in points))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=64)
    parser.add_argument("--env-steps", type=int, default=600, help="batch steps per env figure")
    parser.add_argument("--ppo-steps", type=int, default=16384)
    parser.add_argument("--train-steps", type=int, default=8192)
    parser.add_argument("--dup-steps", type=int, default=300, help="batch steps of dup")
    parser.add_argument("--soak", type=int, default=500_000, help="learner steps for memory")
    parser.add_argument("--only", default="env,cheap,ppo,train,dup,memory")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    only = {s.strip() for s in args.only.split(",")}
    print(f"bench_vector: {_kernel.status()}; torch threads 1")
    if "env" in only:
        bench_env(args, "counting", "features", "env")
    if "cheap" in only:
        bench_env(args, "random", "raw", "cheap")
    if "ppo" in only:
        bench_ppo(args)
    if "train" in only:
        bench_train(args)
    if "dup" in only:
        bench_dup(args)
    if "memory" in only:
        bench_memory(args)


if __name__ == "__main__":
    main()
