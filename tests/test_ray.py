"""Ray: tt-arena --ray gives the results of the process pool, keeps its games on Ctrl-C and says
in one line when Ray is missing or unreachable; tt-train --backend rllib trains CardNet with
RLlib's PPO, never takes a masked action, pays every seat its rewards, and writes a model file
that plays.

Skipped without Ray (the extra ``ray``), except under CI (``CI`` set), which installs it: there
the tests must run. One local Ray instance of 2 CPUs serves the whole module.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("CI"):
    import ray  # CI installs the extra: a missing Ray is a failure, not a skip
else:
    ray = pytest.importorskip("ray")

from tt_env import arena
from tt_env.arena import run_tournament  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402
from tt_env.util import ray as _ray  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHORT = ["random", "greedy", "counting", "--games", "3", "--episode", "round", "--seed", "21"]
SHORT += ["--max-turns-per-round", "12", "--quiet"]


@pytest.fixture(scope="module")
def local_ray():
    """A local Ray instance of 2 CPUs for the module (tt_env's sessions join it as it is)."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    yield ray
    ray.shutdown()


def comparable(path: Path) -> dict:
    """A tournament's JSON without what depends on how it was run (time, workers)."""
    data = json.loads(path.read_text())
    for key in ("elapsed_seconds", "workers"):
        data["settings"].pop(key)
    return data


def run_cli(args: list[str], env: dict[str, str] | None = None, timeout: float = 120):
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------- tt-arena
class CountingBar:
    """A progress bar that counts the games it is told of."""

    def __init__(self) -> None:
        self.games = 0

    def update(self, n: int = 1) -> None:
        self.games += n

    def close(self) -> None:
        pass


def test_ray_plays_the_games_of_the_pool_exactly(local_ray, tmp_path, monkeypatch):
    """The same per-game results and statistics as --workers 1 and --workers 2; the progress
    bar hears of every game."""
    outputs = {}
    for name, extra in (
        ("one", ["--workers", "1"]),
        ("two", ["--workers", "2"]),
        ("ray", ["--ray"]),
    ):
        outputs[name] = tmp_path / f"{name}.json"
        bar = CountingBar()
        monkeypatch.setattr(
            "tt_env.arena.tournament._progress_bar", lambda total, enabled, warm=0, bar=bar: bar
        )
        assert arena.main([*SHORT, *extra, "--json", str(outputs[name])]) == 0
        assert bar.games == 18
    one, two, on_ray = (comparable(outputs[n]) for n in ("one", "two", "ray"))
    assert len(on_ray["games"]) == 3 * 3 * 2  # deals x tables x rotations
    assert on_ray["games"] == one["games"] == two["games"]
    assert on_ray == one == two  # statistics and settings too
    assert json.loads(outputs["ray"].read_text())["settings"]["workers"] == 2  # Ray's CPUs


def test_ray_tasks_batch_games_but_keep_every_cpu_busy():
    assert arena.ray_games_per_task(6, 2) == 1
    assert arena.ray_games_per_task(80, 2) == 10
    assert arena.ray_games_per_task(100_000, 2) == arena.RAY_MAX_GAMES_PER_TASK
    assert arena.ray_games_per_task(100_000, 64) == arena.RAY_MAX_GAMES_PER_TASK


def test_ctrl_c_on_ray_keeps_the_finished_games_and_resume_plays_the_rest(
    local_ray, tmp_path, monkeypatch, capsys
):
    class CtrlCOnFirstGames:
        """A progress bar that presses Ctrl-C when the first task's games arrive."""

        def update(self, n: int = 1) -> None:
            signal.raise_signal(signal.SIGINT)

        def close(self) -> None:
            pass

    out = tmp_path / "r.json"
    many = ["greedy", "random", "--games", "40", "--episode", "round", "--seed", "3", "-q"]
    with monkeypatch.context() as m:
        m.setattr(
            "tt_env.arena.tournament._progress_bar",
            lambda total, enabled, warm=0: CtrlCOnFirstGames(),
        )
        assert arena.main([*many, "--ray", "--json", str(out)]) == 130
    assert f"play the rest with: tt-arena --resume {out}" in capsys.readouterr().err
    partial = json.loads(out.read_text())
    assert partial["settings"]["complete"] is False
    assert 0 < len(partial["games"]) < 80
    assert arena.main(["--resume", str(out), "--ray", "-q"]) == 0
    full = tmp_path / "full.json"
    assert arena.main([*many, "--workers", "1", "--json", str(full)]) == 0
    assert comparable(out)["games"] == comparable(full)["games"]


def test_a_real_ctrl_c_stops_ray_quietly_and_keeps_the_games(tmp_path):
    """SIGINT to the whole process group, as a terminal sends it: the driver and Ray's own
    processes (a Ray instance of its own, started by tt-arena) get it."""
    from test_faults import ctrl_c_the_group

    args = ["greedy", "random", "--games", "5000", "--episode", "round", "--ray", "--workers", "2"]
    ctrl_c_the_group(args, tmp_path / "r.json", 5000, after=20)


def test_an_error_in_a_ray_task_is_the_agents_own(local_ray):
    """The agent's own exception, named with its game as on this machine (AgentFailed), not
    Ray's wrapper with a remote traceback."""
    from tt_env.arena import AgentFailed

    with pytest.raises(AgentFailed, match="raised NotImplementedError"):
        run_tournament(
            ["tt_env.agents.base:BaseAgent", "random"],
            Rules(),
            games=1,
            episode="round",
            ray_address="local",
        )


def test_without_ray_installed_tt_arena_ray_is_one_line(tmp_path):
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['ray'] = None\n")
    out = tmp_path / "r.json"
    done = run_cli(
        ["tt_env.arena", *SHORT, "--ray", "--json", str(out)], env={"PYTHONPATH": str(tmp_path)}
    )
    assert done.returncode == 2
    assert done.stderr == (
        'tt-arena: error: --ray needs Ray, which is not installed: pip install "tt_env[ray]"\n'
    )
    assert not out.exists()  # no game was played


def test_an_unreachable_ray_address_is_one_line_and_quick(tmp_path):
    port = free_port()  # nothing listens there
    for address in (f"ray://127.0.0.1:{port}", f"127.0.0.1:{port}"):
        done = run_cli(["tt_env.arena", *SHORT, "--ray", address], timeout=60)
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"tt-arena: error: cannot reach Ray at {address}: ")
        assert len(done.stderr.splitlines()) == 1 and "ray start --head" in done.stderr
    done = run_cli(["tt_env.arena", "--ray", "greedy", "random", "--games", "1"])
    assert done.returncode == 2
    assert "'greedy' is not a Ray address" in done.stderr and "before --ray" in done.stderr


def test_a_ray_address_that_does_not_answer_times_out(monkeypatch):
    def silent(address, timeout):
        raise TimeoutError("timed out")

    monkeypatch.setattr(socket, "create_connection", silent)
    with pytest.raises(
        _ray.RayError, match="cannot reach Ray at ray://head:10001: no answer within"
    ):
        _ray.probe("ray://head:10001")


# ---------------------------------------------------------------------------------- tt-train
def test_rllib_env_pays_every_seat_its_rewards_in_a_turn_based_game():
    """Over a whole game of self-play, the rewards each learning seat receives add up to minus
    its score, though rounds end on the other seat's moves; with a built-in opponent the one
    learning seat gets its own, and the opponent is never asked by RLlib."""
    from tt_env.train import TrainConfig
    from tt_env.train.backends.rllib import RLlibEnv

    for opponents, learners in (("self", 2), ("greedy", 1)):
        config = TrainConfig(
            opponents=opponents, episode="game", reward="penalty", reward_scale=1.0
        )
        config.rules = {"max_turns_per_round": 8}
        env = RLlibEnv({"config": vars(config)})
        obs, _ = env.reset(seed=5)
        rng = np.random.default_rng(0)
        received = dict.fromkeys(env.possible_agents, 0.0)
        seen = set(obs)
        done = False
        while not done:
            (agent,) = obs  # one seat moves at a time
            legal = np.flatnonzero(obs[agent]["action_mask"])
            obs, rewards, terminateds, _, _ = env.step({agent: int(rng.choice(legal))})
            for a, r in rewards.items():
                received[a] += r
            seen |= set(obs)
            done = terminateds["__all__"]
        assert len(seen) == learners and set(obs) == seen  # every learner sees the end
        scores = env.env.game.scores
        for a in seen:
            assert received[a] == -scores[env.possible_agents.index(a)]
        assert env.masked_actions == 0 and env.actions > 0


def test_rllib_starts_from_the_weights_it_is_given(local_ray):
    """The warm start's (or a model file's) weights reach the learner and the env runners."""
    from tt_env.learned.features import CardFeatures
    from tt_env.learned.network import CardNet, numpy_weights
    from tt_env.train import TrainConfig, net_kwargs_for
    from tt_env.train.backends.rllib import POLICY, algorithm_config, module_weights

    config = TrainConfig(
        backend="rllib", env_runners=0, n_envs=1, n_steps=32, batch_size=32, opponents="random"
    )
    config.card_hidden, config.trunk_hidden = 8, 16
    features = CardFeatures(config.make_rules())
    net_kwargs = net_kwargs_for(config, features)
    weights = numpy_weights(CardNet(**net_kwargs))
    algo = algorithm_config(config, net_kwargs, weights).build_algo()
    try:
        learner = module_weights(algo.learner_group.get_weights([POLICY])[POLICY])
        sampler = module_weights(algo.get_module(POLICY).state_dict())
    finally:
        algo.stop()
    for got in (learner, sampler):
        assert sorted(got) == sorted(weights)
        assert all(np.array_equal(got[k], weights[k]) for k in weights)


def test_rllib_backend_trains_and_the_model_plays(local_ray, tmp_path):
    """A warm start, then a few PPO iterations with 2 env runners on the local Ray instance, in
    self-play and against greedy: no masked action is ever taken, the weights move from the
    warm start's, and tt-arena plays the model file with numpy."""
    from tt_env.agents.learned import LearnedAgent
    from tt_env.learned.model import read_model_file
    from tt_env.train import main

    run = tmp_path / "runs" / "ray"
    status = main(
        [
            "--backend",
            "rllib",
            "--env-runners",
            "2",
            "--n-envs",
            "1",
            "--n-steps",
            "128",
            "--batch-size",
            "128",
            "--n-epochs",
            "2",
            "--total-timesteps",
            "512",
            "--opponents",
            "greedy=1,self=1",
            "--bc-teacher",
            "greedy",
            "--bc-samples",
            "200",
            "--bc-epochs",
            "1",
            "--bc-opponents",
            "random",
            "--eval-every",
            "100000",
            "--eval-games",
            "1",
            "--eval-episode",
            "round",
            "--eval-workers",
            "1",
            "--card-hidden",
            "16",
            "--trunk-hidden",
            "32",
            "--run-dir",
            str(tmp_path / "runs"),
            "--run-name",
            "ray",
            "--no-progress-bar",
        ]
    )
    assert status == 0
    metadata, weights = read_model_file(run / "model.npz")
    assert metadata["training"]["algorithm"].startswith(
        "behaviour cloning of greedy, then PPO (RLlib "
    )
    assert list(metadata["training"]["versions"]) == ["torch", "ray", "python"]
    assert metadata["training"]["timesteps"] >= 512
    _, start = read_model_file(run / "eval" / "step_000000000.npz")  # before any update
    _, cloned = read_model_file(run / "bc.npz")  # the warm start, where PPO began
    assert all(np.array_equal(start[k], cloned[k]) for k in weights)
    assert any(not np.array_equal(weights[k], start[k]) for k in weights)
    state = json.loads((run / "state.json").read_text())
    assert state["timesteps"] >= 512
    # every action of both env runners' environments, checked against its mask
    assert state["actions"]["masked"] == 0 and state["actions"]["all"] >= 512
    log = (run / "command.txt").read_text()
    assert "--backend rllib" in log
    printed = [line for line in (run / "progress.csv").read_text().splitlines()[1:]]
    assert printed  # a row per iteration
    agent = LearnedAgent(str(run / "model.npz"), 2)
    assert agent.features.size > 0
    out = tmp_path / "games.json"
    assert (
        arena.main(
            [str(run / "model.npz"), "greedy", "--games", "1", "--workers", "1", "-q"]
            + ["--json", str(out)]
        )
        == 0
    )
    assert json.loads(out.read_text())["settings"]["games_played"] == 2  # whole games, legal


def test_rllib_backend_counts_no_masked_action(local_ray, tmp_path, monkeypatch, capsys):
    """The count comes from every environment of every env runner (the run logs it)."""
    from tt_env.train import main

    assert (
        main(
            [
                "--backend",
                "rllib",
                "--env-runners",
                "0",
                "--n-envs",
                "2",
                "--n-steps",
                "64",
                "--batch-size",
                "64",
                "--n-epochs",
                "1",
                "--total-timesteps",
                "128",
                "--opponents",
                "random",
                "--bc-teacher",
                "none",
                "--eval-every",
                "0",
                "--eval-opponents",
                "",
                "--card-hidden",
                "8",
                "--trunk-hidden",
                "16",
                "--run-dir",
                str(tmp_path),
                "--run-name",
                "counted",
                "--no-progress-bar",
            ]
        )
        == 0
    )
    done = [line for line in capsys.readouterr().out.splitlines() if "done:" in line]
    assert len(done) == 1 and "(128 actions, 0 masked)" in done[0]
    state = json.loads((tmp_path / "counted" / "state.json").read_text())
    assert state["actions"] == {"all": 128, "masked": 0}


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--opponents", "greedy=1,league=1"], "league (snapshots on this machine's disk)"),
        (["--baseline", "counting"], "duplicate deals are the sb3 backend's"),
        (["--target-kl", "0.02"], "target_kl"),
        (["--oracle-critic"], "setting oracle_critic: the sb3 backend's"),
        (["--ray-address", "nowhere"], "setting ray_address: 'nowhere' is not a Ray address"),
    ],
)
def test_rllib_backend_refuses_what_it_does_not_do(tmp_path, capsys, flags, message):
    from tt_env.train import main

    base = ["--backend", "rllib", "--opponents", "greedy", "--run-dir", str(tmp_path)]
    assert main(base + flags) == 2
    err = capsys.readouterr().err
    assert err.startswith("tt-train: error: ") and message in err and len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_sb3_backend_names_self_play_as_the_rllib_backends(tmp_path, capsys):
    from tt_env.train import main

    argv = ["--backend", "sb3", "--opponents", "greedy=1,self=1", "--run-dir", str(tmp_path)]
    assert main(argv) == 2
    assert "needs backend = 'lean' or 'rllib'" in capsys.readouterr().err


def test_without_ray_installed_the_rllib_backend_is_one_line(tmp_path):
    (tmp_path / "sitecustomize.py").write_text("import sys\nsys.modules['ray'] = None\n")
    done = run_cli(
        ["tt_env.train", "--backend", "rllib", "--opponents", "greedy"],
        env={"PYTHONPATH": str(tmp_path)},
    )
    assert done.returncode == 2
    assert done.stderr == (
        "tt-train: error: backend = 'rllib' needs Ray, which is not installed: "
        'pip install "tt_env[ray]"\n'
    )


def test_rllib_env_counts_a_masked_action_and_ends_the_episode():
    from tt_env.train import TrainConfig
    from tt_env.train.backends.rllib import RLlibEnv

    env = RLlibEnv({"config": vars(TrainConfig(opponents="greedy", reward_scale=1.0))})
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    illegal = int(np.flatnonzero(obs[agent]["action_mask"] == 0)[0])
    _, rewards, terminateds, _, _ = env.step({agent: illegal})
    assert env.masked_actions == 1 and env.actions == 1
    assert terminateds["__all__"] and rewards[agent] == env.env.illegal_reward < 0
