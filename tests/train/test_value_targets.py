"""A fit to the search's action values (bc_value_temperature): the targets, what the network
learns from them that the played actions alone do not teach, and the settings it refuses."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

pytest.importorskip("sb3_contrib")

from helpers import sb3_steps, tiny_config  # noqa: E402

from tt_env.arena import run_tournament  # noqa: E402
from tt_env.encoding.actions import NUM_ACTIONS  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402
from tt_env.learned.features import CardFeatures  # noqa: E402
from tt_env.learned.model import load_model  # noqa: E402
from tt_env.learned.network import CardNet, masked_logits  # noqa: E402
from tt_env.train import check_run, main, train  # noqa: E402
from tt_env.train.imitation import behaviour_clone, value_targets  # noqa: E402


def test_targets_are_the_softmax_of_the_values_where_the_search_weighed_two_or_more():
    nan = float("nan")
    values = torch.full((3, 6), nan)
    values[0, [1, 3, 4]] = torch.tensor([-2.0, 0.0, 1.0])  # searched: three candidates
    values[1, 2] = 5.0  # one candidate: no choice was weighed
    action = torch.tensor([3, 2, 5])  # row 2: not searched at all
    target = value_targets(values, action, temperature=2.0)
    assert torch.allclose(target.sum(1), torch.ones(3))
    expect = np.exp(np.array([2.0, 0.0, -1.0]) / 2.0)
    assert np.allclose(target[0, [1, 3, 4]].numpy(), expect / expect.sum(), atol=1e-6)
    assert target[0, [0, 2, 5]].sum() == 0  # the candidates the search did not weigh
    assert target[1].tolist() == [0, 0, 1, 0, 0, 0] and target[2].argmax() == 5
    # the lower (better) the value, the more of the target; a cold temperature is the argmin
    assert target[0, 1] > target[0, 3] > target[0, 4]
    cold = value_targets(values, action, temperature=1e-3)
    assert math.isclose(cold[0, 1].item(), 1.0, abs_tol=1e-6)


def _decisions(n: int, width: int, global_width: int) -> dict[str, np.ndarray]:
    """Teacher decisions of two kinds, told apart by the first feature: searched ones where the
    teacher played action 40 though the search valued 41 three points better (the incumbent
    kept), and unsearched ones (41 and 42 legal) where it played 42. The kinds differ in the
    global features (all 1 or all -1); the cards' rows (one fixed pattern) tell the cards
    apart, as the network scores every card with the same weights."""
    x = np.tile(np.random.default_rng(0).normal(size=width).astype(np.float32), (n, 1))
    kind = np.arange(n) % 2 == 0
    x[:, -global_width:] = np.where(kind, 1.0, -1.0)[:, None]
    mask = np.zeros((n, NUM_ACTIONS), bool)
    mask[kind, 40:44] = True
    mask[~kind, 41:43] = True
    values = np.full((n, NUM_ACTIONS), np.nan, np.float32)
    values[kind, 40], values[kind, 41], values[kind, 43] = 0.0, -3.0, 2.0
    action = np.where(kind, 40, 42)
    ret = np.zeros(n, np.float32)
    return {"x": x, "mask": mask, "action": action, "return": ret, "values": values}, kind


@pytest.mark.parametrize("temperature, searched_choice", [(0.0, 40), (1.0, 41)])
def test_the_network_learns_the_values_not_only_the_action_played(temperature, searched_choice):
    torch.manual_seed(0)
    features = CardFeatures(Rules())
    net = CardNet(features.global_width, card_hidden=8, trunk_hidden=16)
    data, kind = _decisions(512, features.size, features.global_width)
    behaviour_clone(net, data, epochs=10, lr=1e-2, batch_size=64, seed=1, temperature=temperature)
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(data["x"]))
        chosen = masked_logits(logits, torch.from_numpy(data["mask"])).argmax(1).numpy()
    assert (chosen[kind] == searched_choice).all()
    assert (chosen[~kind] == 42).all()  # where the search did not weigh, the action played


def test_a_fit_to_values_needs_data_that_has_them():
    features = CardFeatures(Rules())
    data, _ = _decisions(8, features.size, features.global_width)
    del data["values"]
    net = CardNet(features.global_width, card_hidden=8, trunk_hidden=16)
    with pytest.raises(ValueError, match="bc_value_temperature.*no search values"):
        behaviour_clone(net, data, epochs=1, lr=1e-3, batch_size=4, seed=1, temperature=1.0)


def test_the_settings_refuse_a_teacher_without_values(tmp_path):
    with pytest.raises(ValueError, match="bc_value_temperature.*'greedy' is not a search"):
        check_run(tiny_config(tmp_path, bc_value_temperature=1.0))
    with pytest.raises(ValueError, match="bc_value_temperature.*no bc_teacher"):
        check_run(tiny_config(tmp_path, bc_teacher="", bc_value_temperature=1.0))
    with pytest.raises(ValueError, match="bc_value_temperature"):
        check_run(tiny_config(tmp_path, bc_value_temperature=-1.0))
    plain = tmp_path / "plain.npz"
    np.savez(plain, x=np.zeros((1, 2)), mask=np.zeros((1, 2)), action=[0], **{"return": [0.0]})
    with pytest.raises(ValueError, match="plain.npz holds no search values"):
        check_run(tiny_config(tmp_path, bc_data=str(plain), bc_value_temperature=1.0))
    check_run(tiny_config(tmp_path, bc_teacher="search(samples=4)", bc_value_temperature=1.0))
    # with expert iteration the rounds' fits have values, whatever the warm start's teacher
    exit_run = dict(exit_iterations=1, exit_teacher="search(samples=4)", bc_value_temperature=1.0)
    check_run(tiny_config(tmp_path, **exit_run))


def test_the_value_fit_recipe_saves_resumes_and_plays(tmp_path):
    """The recipe of led_values_4p_standard, short: a led search's decisions are collected; a
    new network is fitted to their values from two files joined (not to the choices: another
    network than the choice fit of the same files); PPO goes on from it; the run resumes; the
    model plays."""
    teacher = "search(samples=4, prior=ppo_long_2p_standard)"
    led = dict(bc_teacher=teacher, bc_opponents="counting", lookahead=True)
    first = train(tiny_config(tmp_path, total_timesteps=0, run_name="collect", **led), "collect")
    data = first.parent / "bc_data.npz"
    with np.load(data) as f:
        n = len(f["action"])
    both = f"{data},{data}"
    choices = tiny_config(tmp_path, total_timesteps=0, run_name="choices", bc_data=both, **led)
    by_choice = load_model(train(choices, "choices").parent / "bc.npz")
    config = tiny_config(
        tmp_path,
        run_name="values",
        bc_data=both,
        bc_value_temperature=1.0,
        total_timesteps=512,
        **led,
    )
    root = train(config, "values").parent
    assert json.loads((root / "state.json").read_text())["bc"]["samples"] == 2 * n
    by_value = load_model(root / "bc.npz")
    assert any(not np.array_equal(by_value.weights[k], w) for k, w in by_choice.weights.items())
    assert main(["--resume", str(root), "--total-timesteps", "1024", "--no-progress-bar"]) == 0
    names = sorted(p.name for p in (root / "checkpoints").iterdir())
    assert names == ["ckpt_000000512.zip", "ckpt_000001024.zip"]
    assert sb3_steps(root / "checkpoints" / "ckpt_000001024.zip") == 1024
    meta = load_model(root / "model.npz").metadata["training"]
    assert meta["timesteps"] == 1024 and meta["config"]["bc_value_temperature"] == 1.0
    assert meta["commands"][0] == "values" and meta["commands"][1].startswith("tt-train --resume")
    result = run_tournament([str(root / "model.npz"), "counting"], Rules(), games=1, seed=4)
    assert len(result.results) == 2
