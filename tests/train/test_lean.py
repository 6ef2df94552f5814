"""The lean PPO backend (tt_env.train.backends.lean): its advantages, a run end to end (train,
save, resume, play the model in tt-arena), its settings, and CUDA where there is a GPU."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("tt_env.vector._cbatch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import torch  # noqa: E402
from helpers import tiny_config  # noqa: E402

from tt_env.learned.model import load_model  # noqa: E402
from tt_env.train import check_run, train  # noqa: E402
from tt_env.train.backends.lean import advantages  # noqa: E402
from tt_env.train.cli import main  # noqa: E402


def lean_config(tmp_path, **changes):
    values = dict(
        backend="lean",
        device="cpu",
        bc_teacher="none",
        opponents="self=1,greedy=1,league=1",
        n_envs=8,
        n_steps=16,
        batch_size=64,
        total_timesteps=300,
        checkpoint_every=100,
        league_every=100,
        lookahead=False,
    )
    values.update(changes)
    return tiny_config(tmp_path, **values)


def test_advantages_follow_each_seats_own_decisions():
    # One table, two seats taking turns: seat 0, 1, 0, 1; the episode ends at the fourth
    # step, which pays seat 0 +1 and seat 1 -1. Seat 0's rewards: 0 then +1 (earned after its
    # second decision); seat 1's: 0 then -1. gamma = lambda = 1: each advantage is the
    # return less the value.
    rewards = np.zeros((4, 1, 2), np.float32)
    rewards[3, 0] = [1.0, -1.0]
    values = np.array([[0.5], [0.1], [0.2], [-0.3]], np.float32)
    seats = np.array([[0], [1], [0], [1]])
    done = np.array([[False], [False], [False], [True]])
    adv = advantages(
        rewards=rewards,
        values=values,
        seats=seats,
        valid=np.ones((4, 1), bool),
        done=done,
        bootstrap=np.array([np.nan]),
        bootstrap_seats=np.array([0]),
        gamma=1.0,
        lam=1.0,
    )
    np.testing.assert_allclose(adv[:, 0], [1 - 0.5, -1 - 0.1, 1 - 0.2, -1 + 0.3], atol=1e-6)


def test_advantages_bootstrap_a_cut_stream_and_skip_a_waiting_table():
    # Two steps, both of seat 0, then the rollout ends with seat 0 to move (value 2.0); a step
    # of a table waiting for its reset is no decision and changes nothing.
    rewards = np.zeros((3, 1, 2), np.float32)
    rewards[1, 0] = [0.5, 0.0]
    values = np.array([[1.0], [9.0], [1.5]], np.float32)
    adv = advantages(
        rewards=rewards,
        values=values,
        seats=np.array([[0], [0], [0]]),
        valid=np.array([[True], [False], [True]]),
        done=np.zeros((3, 1), bool),
        bootstrap=np.array([2.0]),
        bootstrap_seats=np.array([0]),
        gamma=1.0,
        lam=0.5,
    )
    # step 2: 2.0 - 1.5; step 0: its reward 0.5 (earned in step 1) + 1.5 - 1.0, plus half of
    # the next advantage
    np.testing.assert_allclose(adv[:, 0], [0.5 + 1.5 - 1.0 + 0.5 * 0.5, 0.0, 0.5], atol=1e-6)
    # a seat that is not to move when the rollout ends keeps its own value (no advantage)
    adv = advantages(
        rewards=np.zeros((1, 1, 2), np.float32),
        values=np.array([[0.7]], np.float32),
        seats=np.array([[1]]),
        valid=np.ones((1, 1), bool),
        done=np.zeros((1, 1), bool),
        bootstrap=np.array([3.0]),
        bootstrap_seats=np.array([0]),
        gamma=1.0,
        lam=1.0,
    )
    assert adv[0, 0] == 0.0


def test_lean_run_trains_saves_resumes_and_plays_in_the_arena(tmp_path, capsys):
    config = lean_config(tmp_path)
    check_run(config)
    final = train(config, command="first")
    root = final.parent
    state = json.loads((root / "state.json").read_text())
    first_steps = state["timesteps"]
    assert first_steps >= 300
    model = load_model(final)
    assert model.metadata["training"]["algorithm"].startswith("PPO (tt_env lean")
    assert (root / "progress.csv").read_text().startswith("timesteps,")
    assert list((root / "tb").rglob("events.out.tfevents.*"))
    assert len(list((root / "league").glob("step_*.npz"))) >= 2

    more = first_steps + 200
    assert main(["--resume", str(root), "--total-timesteps", str(more), "--no-progress-bar"]) == 0
    state = json.loads((root / "state.json").read_text())
    assert state["timesteps"] >= more
    commands = load_model(root / "model.npz").metadata["training"]["commands"]
    assert commands[0] == "first" and commands[1].startswith("tt-train --resume")

    from tt_env.arena.cli import main as arena

    capsys.readouterr()
    code = arena([str(root / "model.npz"), "random", "--games", "1", "--workers", "1", "--plain"])
    assert code == 0
    assert "model" in capsys.readouterr().out


def test_lean_refuses_what_it_does_not_do(tmp_path):
    with pytest.raises(ValueError, match="baseline.*backend = 'lean'"):
        check_run(lean_config(tmp_path, baseline="counting"))
    with pytest.raises(ValueError, match="setting device"):
        lean_config(tmp_path, device="tpu")
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="sees no GPU"):
            check_run(lean_config(tmp_path, device="cuda"))


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_lean_run_on_cuda(tmp_path):
    final = train(lean_config(tmp_path, device="cuda", total_timesteps=200), command="cuda")
    assert load_model(final).metadata["training"]["timesteps"] >= 200


def test_anneal_lr_lowers_the_learning_rate_toward_zero(tmp_path):
    import io
    import zipfile

    config = lean_config(tmp_path, anneal_lr=True, learning_rate=1e-3)
    root = train(config, command="anneal").parent
    last = sorted((root / "checkpoints").glob("ckpt_*.zip"))[-1]
    with zipfile.ZipFile(last) as archive:
        state = torch.load(io.BytesIO(archive.read("policy.pth")), weights_only=True)
    lr = state["optimizer"]["param_groups"][0]["lr"]
    # the last update ran at 1e-3 * (1 - steps before it / 300)
    assert 0.0 < lr < 1e-3 * (1 - 100 / 300)
    with pytest.raises(ValueError, match="anneal_lr"):
        check_run(tiny_config(tmp_path, anneal_lr=True))  # the sb3 backend
