"""Expert iteration (tt_env.train.expert): the search led by the network plays, the network is
fitted to it, the run resumes from its last whole round, and its model plays."""

from __future__ import annotations

import csv
import json

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from helpers import play_checked, tiny_config  # noqa: E402

from tt_env.agents import make_agent  # noqa: E402
from tt_env.arena import run_tournament  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402
from tt_env.learned.model import load_model  # noqa: E402
from tt_env.train import TrainConfig, check_run, main, train  # noqa: E402
from tt_env.train.expert import teacher_spec  # noqa: E402

torch.set_num_threads(1)


def exit_config(tmp_path, **changes):
    values = dict(
        total_timesteps=0,
        bc_teacher="greedy",
        exit_iterations=2,
        exit_samples=150,
        exit_teacher="search(samples=4, min_samples=4)",
        exit_window=2,
        bc_opponents="counting",
        eval_games=1,
        eval_opponents="counting",
        output=str(tmp_path / "out.npz"),
    )
    values.update(changes)
    return tiny_config(tmp_path, **values)


def test_expert_iteration_saves_resumes_and_its_model_plays(tmp_path):
    final = train(exit_config(tmp_path), command="exit")
    root = final.parent
    folder = root / "exit"
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(
        ["net_000.npz"]
        + [f"{kind}_{k:03d}.npz" for kind in ("data", "net", "prior") for k in (1, 2)]
    )
    # The first round is led by the warm start, the second by the first round's fit.
    bc, prior2, net1 = (
        load_model(p) for p in (root / "bc.npz", folder / "prior_002.npz", folder / "net_001.npz")
    )
    for name, weight in bc.weights.items():
        np.testing.assert_array_equal(load_model(folder / "prior_001.npz").weights[name], weight)
        np.testing.assert_array_equal(prior2.weights[name], net1.weights[name])
    assert any(not np.array_equal(net1.weights[n], w) for n, w in bc.weights.items())
    # The decisions of each round are the search's, with the choice that led it.
    with np.load(folder / "data_002.npz") as f:
        assert len(f["action"]) >= 150 and f["led"].shape == f["action"].shape
        legal = f["mask"][np.arange(len(f["action"])), f["action"]]
        assert legal.all()
        assert f["mask"][np.arange(len(f["led"])), f["led"]].all()
        # ... and the mean result of each candidate it weighed: legal actions only, among them
        # the one it played and the one that led it; no values where it did not search.
        values, rows = f["values"], np.arange(len(f["action"]))
        assert values.shape == f["mask"].shape
        searched = ~np.isnan(values).all(axis=1)
        assert 0 < searched.sum() < len(searched)
        assert not np.isnan(values[rows, f["action"]][searched]).any()
        assert not np.isnan(values[rows, f["led"]][searched]).any()
        assert (np.sum(~np.isnan(values[searched]), axis=1) >= 2).all()
        assert f["mask"][~np.isnan(values)].all()
    rows = list(csv.DictReader((root / "exit.csv").open()))
    # Round 0 is the starting network (the warm start), on the same deals.
    assert [(r["round"], r["opponent"]) for r in rows] == [
        ("0", "counting"),
        ("1", "counting"),
        ("2", "counting"),
    ]
    assert int(rows[2]["decisions"]) > int(rows[1]["decisions"]) >= 150
    assert rows[0]["decisions"] == "0"
    for name, weight in bc.weights.items():
        np.testing.assert_array_equal(load_model(folder / "net_000.npz").weights[name], weight)
    assert not (root / "evaluations.csv").exists()  # no PPO: the rounds were the evaluations
    state = json.loads((root / "state.json").read_text())
    assert state["exit"]["done"] == 2 and [r["round"] for r in state["exit"]["rounds"]] == [1, 2]
    best = state["best"]["round"]  # the output is the best round's network
    meta = load_model(tmp_path / "out.npz").metadata["training"]
    rounds = f", then {best} round(s) of expert iteration" if best else ""
    assert meta["algorithm"].startswith(f"behaviour cloning of greedy{rounds}")
    assert meta["expert_iteration"]["done"] == best
    for name, weight in load_model(folder / f"net_{best:03d}.npz").weights.items():
        np.testing.assert_array_equal(load_model(tmp_path / "out.npz").weights[name], weight)

    # Resume with one more round: it starts from the last round's network.
    assert main(["--resume", str(root), "--exit-iterations", "3", "--no-progress-bar"]) == 0
    prior3 = load_model(folder / "prior_003.npz")
    net2 = load_model(folder / "net_002.npz")
    for name, weight in net2.weights.items():
        np.testing.assert_array_equal(prior3.weights[name], weight)
    assert json.loads((root / "state.json").read_text())["exit"]["done"] == 3
    rows = list(csv.DictReader((root / "exit.csv").open()))
    assert [r["round"] for r in rows] == ["0", "1", "2", "3"]  # round 0 not evaluated again
    assert (root / "learning_curve.png").stat().st_size > 0

    agent = make_agent(str(root / "model.npz"), 2)
    assert play_checked(agent, seed=4, max_turns=20) > 0
    result = run_tournament(
        [str(root / "model.npz"), "search(samples=4)"], Rules(), games=1, seed=3, episode="round"
    )
    assert len(result.results) == 2


def test_init_model_starts_from_its_weights(tmp_path):
    first = train(exit_config(tmp_path, exit_iterations=0, run_name="a"), command="a")
    second = train(
        exit_config(tmp_path, run_name="b", exit_iterations=1, init_model=str(first), output=""),
        command="b",
    )
    start = load_model(first)
    led = load_model(second.parent / "exit" / "prior_001.npz")
    for name, weight in start.weights.items():
        np.testing.assert_array_equal(led.weights[name], weight)
    assert not (second.parent / "bc.npz").exists()  # no warm start
    with pytest.raises(ValueError, match="init_model: no model file or name"):
        check_run(exit_config(tmp_path, init_model="no_such_model"))
    with pytest.raises(ValueError, match="does not fit this run"):
        train(exit_config(tmp_path, run_name="c", init_model=str(first), card_hidden=8, output=""))


@pytest.mark.parametrize(
    "teacher, message",
    [
        ("counting", "needs 'search'"),
        ("search(prior=distilled_2p_standard)", "leave out 'prior'"),
        ("search(samples=0)", "exit_teacher"),
    ],
)
def test_exit_teacher_must_be_the_search_without_a_prior(tmp_path, teacher, message):
    with pytest.raises(ValueError, match=message):
        check_run(TrainConfig(exit_iterations=1, exit_teacher=teacher, run_dir=str(tmp_path)))
    check_run(TrainConfig(exit_iterations=0, exit_teacher=teacher, run_dir=str(tmp_path)))


def test_teacher_spec_adds_the_prior_to_the_options():
    assert teacher_spec("search", "r/net.npz") == "search(prior=r/net.npz)"
    assert teacher_spec("search(samples=8)", "r/n.npz") == "search(samples=8, prior=r/n.npz)"
    with pytest.raises(ValueError, match="may not hold"):
        teacher_spec("search", "runs/a,b/n.npz")
