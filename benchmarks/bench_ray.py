"""Ray beside this machine's own parallelism, side by side in one run: Ray's cost per task,
tournament games/s (``tt-arena --workers 1``, ``--workers 2``, ``--ray`` on 1 and 2 CPUs, the
same games, results compared), and training env-steps/s (MaskablePPO as ``tt-train`` runs it,
RLlib's PPO with 1 and 2 env runners: the same 2 environments, 1,024 steps per update,
minibatches of 512, 4 epochs, CardNet, torch on one thread). Needs the extra ``ray``.

    python benchmarks/bench_ray.py --games 40 --steps 4096

Each Ray instance is local (``num_cpus`` as shown) and started before its clock runs; its start
and the start of its worker processes are printed apart. The process pool's start is inside its
end-to-end figure, as a user meets it; "1 deal" is the time of a 1-deal tournament (for the
pool nearly all start-up), "running" the games/s beyond it.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run from a checkout, uninstalled

import ray  # noqa: E402
import torch  # noqa: E402

from tt_env.arena import RAY_MAX_GAMES_PER_TASK, run_tournament  # noqa: E402
from tt_env.game.melds import _kernel  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402

RAY_OPTIONS = dict(include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR)


def start_ray(cpus: int) -> float:
    t0 = time.perf_counter()
    ray.init(num_cpus=cpus, **RAY_OPTIONS)
    return time.perf_counter() - t0


def task_cost(tasks: int) -> tuple[float, float]:
    """Milliseconds per trivial task, one at a time (a round trip) and many in flight."""

    @ray.remote
    def nothing(x):
        return x

    ray.get(nothing.remote(0))  # a worker is up
    t0 = time.perf_counter()
    for i in range(tasks):
        ray.get(nothing.remote(i))
    one = (time.perf_counter() - t0) / tasks
    t0 = time.perf_counter()
    ray.get([nothing.remote(i) for i in range(tasks)])
    many = (time.perf_counter() - t0) / tasks
    return 1000 * one, 1000 * many


def tournament(args, deals: int, **how) -> tuple[int, float, dict]:
    """Games played, seconds, and the result without its timing."""
    t0 = time.perf_counter()
    result = run_tournament(args.agents.split(","), Rules(), games=deals, seed=args.seed, **how)
    seconds = time.perf_counter() - t0
    data = result.to_dict()
    data["settings"].pop("elapsed_seconds")
    data["settings"].pop("workers")
    return len(result.results), seconds, data


def rates(args, **how) -> tuple[float, float, float, dict]:
    """Games/s end to end (``args.games`` deals), the start-up (the seconds of a 1-deal
    tournament: a pool's processes and their imports, nearly all of it), and the games/s once
    running: ``(games - games of 1 deal) / (seconds - seconds of 1 deal)``."""
    small_games, small_seconds, _ = tournament(args, 1, **how)
    games, seconds, data = tournament(args, args.games, **how)
    running = (games - small_games) / (seconds - small_seconds)
    return games / seconds, small_seconds, running, data


def sb3_rate(config, steps: int) -> float:
    from bench_training import maskable_ppo  # this folder is on the path of its scripts

    from tt_env.train import make_vec_env

    env = make_vec_env(config, seed=0, league_dir=None)
    model = maskable_ppo(config, env)
    model.learn(total_timesteps=config.n_steps * config.n_envs)  # warm: first rollout
    t0 = time.perf_counter()
    model.learn(total_timesteps=steps, reset_num_timesteps=False)
    seconds = time.perf_counter() - t0
    env.close()
    return steps / seconds


def rllib_rate(config, steps: int) -> float:
    from ray.rllib.utils.metrics import (
        ENV_RUNNER_RESULTS,
        ENV_RUNNER_SAMPLING_TIMER,
        LEARNER_UPDATE_TIMER,
        NUM_ENV_STEPS_SAMPLED_LIFETIME,
        TIMERS,
    )

    from tt_env.learned.features import CardFeatures
    from tt_env.train import net_kwargs_for
    from tt_env.train.backends.rllib import action_counts, algorithm_config

    features = CardFeatures(config.make_rules(), lookahead=config.lookahead)
    algo = algorithm_config(config, net_kwargs_for(config, features), None).build_algo()

    def lifetime_steps(result) -> int:
        return int(result[ENV_RUNNER_RESULTS][NUM_ENV_STEPS_SAMPLED_LIFETIME])

    first = lifetime_steps(algo.train())  # warm: workers' first rollout
    t0 = time.perf_counter()
    done, sampling, learning, updates = first, 0.0, 0.0, 0
    while done - first < steps:
        result = algo.train()
        done = lifetime_steps(result)
        timers = result.get(TIMERS, {})
        sampling += float(timers.get(ENV_RUNNER_SAMPLING_TIMER, 0.0))
        learning += float(timers.get(LEARNER_UPDATE_TIMER, 0.0))
        updates += 1
    seconds = time.perf_counter() - t0
    masked, _ = action_counts(algo)
    algo.stop()
    assert masked == 0, f"{masked} masked actions"
    return (done - first) / seconds, sampling / updates, learning / updates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="deals of the tournament")
    parser.add_argument("--agents", default="greedy,counting", help="its agents")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--steps", type=int, default=4096, help="timed training steps")
    parser.add_argument("--opponents", default="counting=1", help="training opponents")
    parser.add_argument("--tasks", type=int, default=500, help="trivial Ray tasks timed")
    args = parser.parse_args()
    torch.set_num_threads(1)
    print(f"ray {ray.__version__}, torch {torch.__version__}; {_kernel.status()}")

    print(f"\nRay's own cost per task (a local instance of 2 CPUs, {args.tasks} trivial tasks)")
    print(f"  started in {start_ray(2):.1f} s")
    one, many = task_cost(args.tasks)
    ray.shutdown()
    print(f"  {'one at a time (a round trip)':46}{one:8.2f} ms per task")
    print(f"  {'all in flight':46}{many:8.2f} ms per task")

    print(
        f"\ntournament: {args.agents}, {args.games} deals x 2 seat rotations, standard rules, "
        f"whole games (Ray: up to {RAY_MAX_GAMES_PER_TASK} games per task)"
    )
    rows, same = [], True
    tournament(args, 1, workers=1)  # warm: the kernel loaded in this process
    *figures, reference = rates(args, workers=1)
    rows.append(("--workers 1 (this process)", *figures))
    *figures, data = rates(args, workers=2)
    rows.append(("--workers 2 (process pool)", *figures))
    same &= data == reference
    for cpus in (1, 2):
        started = start_ray(cpus)
        t0 = time.perf_counter()
        tournament(args, 1, ray_address="local")  # Ray starts its worker processes
        warm = time.perf_counter() - t0
        *figures, data = rates(args, ray_address="local")
        ray.shutdown()
        same &= data == reference
        rows.append((f"--ray, {cpus} CPU(s) (Ray {started:.1f} s, workers {warm:.1f} s)", *figures))
    print(f"  {'':46}{'end to end':>12}{'1 deal':>9}{'running':>12}")
    for label, end_to_end, start, running in rows:
        print(f"  {label:46}{end_to_end:8.1f} g/s{start:8.1f} s{running:8.1f} g/s")
    print(f"  the same games and statistics every way: {'yes' if same else 'NO'}")

    from tt_env.train import TrainConfig

    base = TrainConfig(
        n_envs=2,
        opponents=args.opponents,
        n_steps=512,
        batch_size=512,
        n_epochs=4,
        vec_env="dummy",
        bc_teacher="none",
        eval_every=0,
    )
    print(
        f"\ntraining: PPO steps/s, opponents {args.opponents}, {args.steps} timed steps after one "
        "warm-up update; 2 environments, 1024 steps per update, minibatch 512, 4 epochs"
    )
    label = "MaskablePPO (tt-train), 2 envs in this process"
    print(f"  {label:46}{sb3_rate(base, args.steps):8.0f} steps/s")
    for runners in (1, 2):
        config = dataclasses.replace(
            base, backend="rllib", env_runners=runners, n_envs=2 // runners
        )
        start_ray(2)
        rate, sampling, learning = rllib_rate(config, args.steps)
        ray.shutdown()
        label = f"RLlib PPO, {runners} env runner(s) x {2 // runners} env(s)"
        print(
            f"  {label:46}{rate:8.0f} steps/s  (per update: sampling {sampling:.1f} s, "
            f"learning {learning:.1f} s)"
        )


if __name__ == "__main__":
    main()
