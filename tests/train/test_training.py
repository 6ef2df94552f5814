"""Training: a short run end to end, resuming, the model file and its errors, configs, features.

The runs are tiny (a few thousand steps, ``DummyVecEnv``, ``episode="round"``, cheap opponents,
one torch thread) so that the whole file stays well under a minute.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from helpers import play_checked, sb3_steps, tiny_config, tiny_model  # noqa: E402

from tt_env.agents import GreedyAgent, make_agent  # noqa: E402
from tt_env.agents.learned import LearnedAgent  # noqa: E402
from tt_env.arena import run_tournament  # noqa: E402
from tt_env.encoding.actions import DISCARD_ACTION_BASE, GO_OUT_ACTION_BASE  # noqa: E402
from tt_env.env import aec as three_thirteen_v0  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402
from tt_env.learned.features import CARD_FEATURES, CARD_WIDTH, CardFeatures, feature_names  # noqa: E402
from tt_env.learned.model import ModelError, build_metadata, load_model, save_model  # noqa: E402
from tt_env.train import (  # noqa: E402
    TrainConfig,
    TrainingEnv,
    build_parser,
    collect_teacher_data,
    config_from_args,
    config_to_toml,
    learning_curve_figure,
    load_config_file,
    main,
    parse_pool,
    plot_run,
    train,
)

torch.set_num_threads(1)
CONFIG_DIR = Path(__file__).resolve().parents[2] / "training" / "config"


# ---------------------------------------------------------------------------------- end to end
def test_short_run_saves_a_model_that_reloads_and_plays_legal_moves(tmp_path):
    config = tiny_config(
        tmp_path, total_timesteps=2048, checkpoint_every=1024, eval_every=2048, eval_games=1
    )
    model_path = train(config, command="tt-train (test)")
    root = model_path.parent
    for name in (
        "config.toml",
        "command.txt",
        "progress.csv",
        "evaluations.csv",
        "bc.npz",
        "learning_curve.png",
        "state.json",
    ):
        assert (root / name).exists(), name
    assert sorted(p.name for p in (root / "checkpoints").iterdir()) == [
        "ckpt_000001024.zip",
        "ckpt_000002048.zip",
    ]

    evaluations = (root / "evaluations.csv").read_text().splitlines()
    assert [line.split(",")[0] for line in evaluations[1:]] == ["0", "2048"]

    model = load_model(model_path, Rules(num_players=2))
    meta = model.metadata
    assert meta["num_players"] == 2 and meta["rules"] == Rules().to_dict()
    assert meta["observation"]["size"] == 413
    assert meta["features"]["name"] == "card-features"
    assert meta["training"]["timesteps"] == 2048
    assert meta["training"]["commands"] == ["tt-train (test)"]
    # the backend names its PPO and its packages (tt_env.train.backends.sb3)
    assert meta["training"]["algorithm"].endswith(", then MaskablePPO (sb3-contrib)")
    assert list(meta["training"]["versions"]) == [
        "torch",
        "stable_baselines3",
        "sb3_contrib",
        "python",
    ]
    assert meta["training"]["config"]["episode"] == "round"

    agent = make_agent(str(model_path), 2)
    assert isinstance(agent, LearnedAgent) and agent.name == "model"
    # The arena raises ArenaError on any illegal action: a few rounds against two agents.
    result = run_tournament(
        [str(model_path), "random", "greedy"], Rules(), games=2, seed=1, seats=2, episode="round"
    )
    assert len(result.results) == 2 * 3 * 2
    # And a whole game step by step, checking each action against the mask.
    assert play_checked(agent, seed=5, max_turns=20) > 0


def test_warm_start_alone_is_evaluated_once_and_kept(tmp_path):
    """``--total-timesteps 0``: behaviour cloning only; the starting evaluation is not repeated
    as the final one, and the warm start is the model."""
    config = tiny_config(
        tmp_path,
        total_timesteps=0,
        eval_every=512,
        eval_games=1,
        eval_opponents="random",
        output=str(tmp_path / "out.npz"),
    )
    final = train(config, command="warm start only")
    rows = (final.parent / "evaluations.csv").read_text().splitlines()[1:]
    assert len(rows) == 1 and rows[0].split(",")[0] == "0" and rows[0].split(",")[2] == "random"
    bc = load_model(final.parent / "bc.npz")
    out = load_model(tmp_path / "out.npz")
    assert out.metadata["training"]["timesteps"] == 0
    for name, weight in bc.weights.items():
        np.testing.assert_array_equal(out.weights[name], weight)


def test_saved_teacher_data_refits_the_same_warm_start(tmp_path):
    """A run keeps its teacher's decisions (bc_data.npz); a later run given them (bc_data)
    fits them again without playing, to the same weights; data of another table is refused."""
    first = train(tiny_config(tmp_path, total_timesteps=0), command="collect")
    data = first.parent / "bc_data.npz"
    with np.load(data) as f:
        n = len(f["action"])
        assert n >= 300 and f["x"].shape[0] == f["mask"].shape[0] == f["return"].shape[0] == n
    with zipfile.ZipFile(data) as z:  # compressed: the features are mostly zeros
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_DEFLATED}
    second = train(
        tiny_config(tmp_path, total_timesteps=0, run_name="again", bc_data=str(data)),
        command="refit",
    )
    state = json.loads((second.parent / "state.json").read_text())
    assert state["bc"]["samples"] == n
    assert not (second.parent / "bc_data.npz").exists()
    a, b = load_model(first.parent / "bc.npz"), load_model(second.parent / "bc.npz")
    for name, weight in a.weights.items():
        np.testing.assert_array_equal(b.weights[name], weight)
    # Twice the same file: twice the decisions.
    both = f"{data},{data}"
    third = train(
        tiny_config(tmp_path, total_timesteps=0, run_name="twice", bc_data=both), command="x"
    )
    assert json.loads((third.parent / "state.json").read_text())["bc"]["samples"] == 2 * n
    with pytest.raises(ValueError, match="do not fit this run"):
        train(
            tiny_config(tmp_path, total_timesteps=0, run_name="3p", players=3, bc_data=str(data)),
            command="x",
        )
    with pytest.raises(ValueError, match=r"bc_data.*no\.npz"):
        train(tiny_config(tmp_path, run_name="none", bc_data=str(tmp_path / "no.npz")))


def test_the_search_led_by_a_model_distils_into_a_new_network(tmp_path):
    """The recipe of led_distilled_2p_standard, short: the search led by a shipped model is the
    teacher, its decisions (with the choice that led each and its candidates' values) are kept,
    and the new network fitted to them plays."""
    teacher = "search(samples=4, prior=ppo_long_2p_standard)"
    config = tiny_config(
        tmp_path, total_timesteps=0, bc_teacher=teacher, bc_opponents="counting", lookahead=True
    )
    final = train(config, command="led")
    with np.load(final.parent / "bc_data.npz") as f:
        action, led, values = f["action"], f["led"], f["values"]
    rows = np.arange(len(action))
    searched = ~np.isnan(values).all(axis=1)
    assert len(action) >= 300 and searched.any()
    assert not np.isnan(values[rows, action][searched]).any()
    # Where the search overruled the network, it searched and its choice scored no worse.
    over = led != action
    assert over.any()  # the search overruled the network somewhere: the checks below bite
    assert searched[over].all()
    assert (values[rows, action][over] <= values[rows, led][over]).all()
    model = load_model(final)
    assert model.metadata["training"]["algorithm"] == f"behaviour cloning of {teacher}"
    result = run_tournament([str(final), "counting"], Rules(), games=1, seed=4, episode="round")
    assert len(result.results) == 2


def test_teacher_collection_reports_progress_and_its_data_do_not_depend_on_it(tmp_path):
    config = tiny_config(tmp_path, bc_samples=600)
    calls = []
    data = collect_teacher_data(config, 2, lambda *a: calls.append(a), every=0.05)
    assert calls, "no progress report"
    done, total, seconds = calls[-1]
    assert total == 600 and 0 <= done <= len(data["action"]) and seconds > 0
    assert [c[0] for c in calls] == sorted(c[0] for c in calls)  # the count only grows
    again = collect_teacher_data(config, 2)
    for key, values in data.items():
        np.testing.assert_array_equal(again[key], values)


def test_resume_continues_the_step_count(tmp_path):
    config = tiny_config(tmp_path, total_timesteps=1024)
    first = train(config, command="first")
    root = first.parent
    # An interruption after the first checkpoint: the second one never got written.
    (root / "checkpoints" / "ckpt_000001024.zip").unlink()
    assert main(["--resume", str(root), "--total-timesteps", "1536", "--no-progress-bar"]) == 0
    names = sorted(p.name for p in (root / "checkpoints").iterdir())
    assert names == ["ckpt_000000512.zip", "ckpt_000001024.zip", "ckpt_000001536.zip"]
    assert sb3_steps(root / "checkpoints" / "ckpt_000001536.zip") == 1536
    meta = load_model(root / "model.npz").metadata["training"]
    assert meta["timesteps"] == 1536
    assert meta["commands"][0] == "first"
    assert meta["commands"][1].startswith("tt-train --resume")
    state = json.loads((root / "state.json").read_text())
    assert state["timesteps"] == 1536
    with pytest.raises(ModelError, match="checkpoint"):  # for --resume, not for playing
        make_agent(str(root / "checkpoints" / "ckpt_000001536.zip"), 2)


# ---------------------------------------------------------------------------------- networks
def test_numpy_network_computes_what_the_torch_network_computes(tmp_path):
    """Agents play a model with NumpyCardNet; it must compute CardNet's logits and value."""
    from tt_env.learned.network import CardNet, card_net_from_weights, numpy_weights

    rules = Rules()
    features = CardFeatures(rules)
    kwargs = {"global_width": features.global_width, "card_hidden": 16, "trunk_hidden": 24}
    torch.manual_seed(0)
    net = CardNet(**kwargs)
    path = save_model(
        tmp_path / "m.npz", numpy_weights(net), build_metadata(rules, features, kwargs)
    )
    model = load_model(path)
    env = three_thirteen_v0.raw_env()
    env.reset(seed=5)
    xs = []
    for _ in range(30):
        obs = env.observe(env.agent_selection)
        xs.append(features(obs["observation"]))
        env.step(GreedyAgent(2, rules).act(obs["observation"], obs["action_mask"]))
    x = np.stack(xs + [np.random.default_rng(1).normal(size=features.size)]).astype(np.float32)
    with torch.no_grad():
        logits, value = net(torch.from_numpy(x))
    np.testing.assert_allclose(model.net.actor(x), logits.numpy(), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(model.net.critic(x), value.numpy(), rtol=1e-4, atol=1e-5)
    # and back: the file's weights rebuild the same torch network
    again = card_net_from_weights(model.weights, **kwargs)
    for name, tensor in net.state_dict().items():
        assert torch.equal(again.state_dict()[name], tensor)


# ---------------------------------------------------------------------------------- features
def test_features_name_every_value_and_agree_with_greedy():
    rules = Rules()
    transform = CardFeatures(rules)
    assert len(feature_names(2)) == transform.size == 53 * CARD_WIDTH + transform.global_width
    greedy = GreedyAgent(2, rules)
    env = three_thirteen_v0.raw_env()
    checked = 0
    for seed in range(4):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            x = transform(obs["observation"])
            assert x.shape == (transform.size,) and np.isfinite(x).all()
            action = greedy.act(obs["observation"], obs["action_mask"])
            if action >= DISCARD_ACTION_BASE:
                table = x[: 53 * CARD_WIDTH].reshape(53, CARD_WIDTH)
                kind = (action - DISCARD_ACTION_BASE) % 53
                assert table[kind, CARD_FEATURES.index("best_discard")] == 1
                if action >= GO_OUT_ACTION_BASE:
                    assert table[kind, CARD_FEATURES.index("goes_out")] == 1
                checked += 1
            env.step(action)
            if checked > 60:
                break
    assert checked > 60


def test_training_env_and_agent_use_the_same_transform(tmp_path):
    rules = Rules()
    env = TrainingEnv(rules, {"greedy": 1.0}, lookahead=True)
    x, info = env.reset(seed=4)
    # The agent's transform is rebuilt from the model file's record.
    agent = LearnedAgent(load_model(tiny_model(tmp_path / "m.npz", rules, lookahead=True)))
    assert agent.features.spec() == env.features.spec()
    np.testing.assert_array_equal(agent.features(env.raw_observation), x)
    assert env.observation_space.shape == x.shape


# ---------------------------------------------------------------------------------- config
def test_config_files_and_flags(tmp_path):
    toml = tmp_path / "c.toml"
    toml.write_text('seed = 5\nopponents = "greedy=1"\n[rules]\naces_high = true\n')
    args = build_parser().parse_args(["--config", str(toml), "--seed", "9", "--court-values"])
    config, given = config_from_args(args, load_config_file(toml))
    assert config.seed == 9 and config.opponents == "greedy=1"
    assert config.make_rules() == Rules(aces_high=True, court_values=True)
    assert given["seed"] == 9
    yaml_file = tmp_path / "c.yaml"
    yaml_file.write_text("players: 3\nopponents:\n  counting: 2\n  league: 1\n")
    assert load_config_file(yaml_file) == {"players": 3, "opponents": "counting=2,league=1"}
    # config.toml round-trips
    again = tmp_path / "again.toml"
    again.write_text(config_to_toml(config))
    assert TrainConfig(**load_config_file(again)) == config
    bad = tmp_path / "bad.toml"
    bad.write_text("sed = 1\n")
    with pytest.raises(ValueError, match="unknown setting"):
        load_config_file(bad)
    assert parse_pool("counting=0.4, greedy=0.6,league") == {
        "counting": 0.4,
        "greedy": 0.6,
        "league": 1.0,
    }


@pytest.mark.parametrize("path", sorted(CONFIG_DIR.glob("*.*")), ids=lambda p: p.name)
def test_shipped_configs_load(path):
    config = TrainConfig(**load_config_file(path))
    config.make_rules()
    parse_pool(config.opponents)


def test_plot_of_a_run(tmp_path):
    root = tmp_path / "run"
    root.mkdir()
    (root / "progress.csv").write_text(
        "timesteps,wall_time,opponents,episodes,mean_reward\n"
        "100,1,all,5,-3\n100,1,greedy,5,-3\n200,2,all,5,-1\n200,2,greedy,5,-1\n"
    )
    (root / "evaluations.csv").write_text(
        "timesteps,wall_time,opponent,deals,games,diff,diff_low,diff_high,score,win_rate\n"
        "200,2,greedy,10,20,-1.5,-4,1,40,0.55\n"
    )
    out = plot_run(root)
    assert out.exists() and out.read_bytes()[:4] == b"\x89PNG"


def test_plot_of_a_duplicate_deal_run_draws_the_reward_less_the_baseline(tmp_path):
    import matplotlib.pyplot as plt

    root = tmp_path / "run"
    root.mkdir()
    (root / "progress.csv").write_text(
        "timesteps,wall_time,opponents,episodes,mean_reward,mean_vs_baseline\n"
        "100,1,all,5,-3,-0.5\n200,2,all,5,1,-0.25\n"
    )
    fig = learning_curve_figure(root)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert labels == ["all", "all, less the baseline on the same deal"]
    dots = [list(line.get_ydata()) for line in fig.axes[0].get_lines() if line.get_marker() == "o"]
    assert dots == [[-3.0, 1.0], [-0.5, -0.25]]
    plt.close(fig)


@pytest.mark.parametrize("rollouts", [1, 3])
def test_plot_shows_a_run_shorter_than_the_smoothing_window(tmp_path, rollouts):
    import matplotlib.pyplot as plt

    root = tmp_path / "run"
    root.mkdir()
    rows = "".join(f"{100 * (i + 1)},1,all,5,{-3 + i}\n" for i in range(rollouts))
    (root / "progress.csv").write_text(
        "timesteps,wall_time,opponents,episodes,mean_reward\n" + rows
    )
    fig = learning_curve_figure(root, smooth=10)
    dots = [
        [float(x) for x in line.get_xdata()]
        for line in fig.axes[0].get_lines()
        if line.get_marker() == "o"
    ]
    assert dots == [[100.0 * (i + 1) for i in range(rollouts)]]  # every rollout is a point
    plt.close(fig)
    assert plot_run(root).exists()


def test_duplicate_deal_baseline_pays_the_difference_to_the_baseline():
    # With counting in the learner's seat and counting as the baseline the replays are the
    # very same games: every round pays exactly 0. Greedy in the seat is paid its difference,
    # and info keeps the plain reward beside the baseline's.
    from tt_env.agents import make_agent

    for learner_spec, zero in (("counting", True), ("greedy", False)):
        env = TrainingEnv(Rules(), {"counting": 1.0}, baseline="counting", seed=3)
        env.reset(seed=5)
        learner = make_agent(learner_spec, 2)
        paid = []
        while len(paid) < 8:
            action = learner.act(env.raw_observation, env.action_masks().astype(np.int8))
            _, reward, terminated, _, info = env.step(action)
            if terminated:
                episode = info["tt_episode"]
                assert reward == pytest.approx(
                    (episode["reward"] - episode["baseline"]) * env.reward_scale
                )
                paid.append(reward)
                env.reset()
        assert all(r == 0 for r in paid) == zero
    with pytest.raises(ValueError, match="episode='round'"):
        TrainingEnv(Rules(), {"counting": 1.0}, episode="game", baseline="counting")


def test_duplicate_deal_run_saves_resumes_and_plays(tmp_path):
    # The learning method of the shipped models: duplicate deals against counting, here with
    # three players (the evaluation seats the learner against two counting players).
    config = tiny_config(
        tmp_path,
        players=3,
        total_timesteps=1024,
        baseline="counting",
        opponents="counting=1",
        bc_opponents="counting=1",
        bc_teacher="counting",
        eval_every=1024,
        eval_games=1,
        eval_opponents="counting",
    )
    first = train(config, command="dup")
    root = first.parent
    rows = (root / "evaluations.csv").read_text().splitlines()[1:]
    assert [r.split(",")[0] for r in rows] == ["0", "1024"]
    assert main(["--resume", str(root), "--total-timesteps", "1536", "--no-progress-bar"]) == 0
    assert load_model(root / "model.npz").metadata["training"]["timesteps"] == 1536
    assert load_model(root / "model.npz").metadata["training"]["config"]["baseline"] == "counting"
    agent = make_agent(str(root / "model.npz"), 3)
    result = run_tournament(
        [str(root / "model.npz"), "counting", "counting"],
        Rules(num_players=3),
        games=1,
        seed=2,
        episode="round",
    )
    assert len(result.results) == 3 and agent.num_players == 3


def test_distill_curve_refits_cuts_of_the_teacher_data_and_draws_them(tmp_path):
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "training" / "distill_curve.py"
    spec = importlib.util.spec_from_file_location("distill_curve", path)
    curve = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(curve)
    # The cut takes the first decisions of each process's part.
    data = tmp_path / "data.npz"
    n = 10
    np.savez(
        data,
        x=np.arange(n * 2, dtype=np.float32).reshape(n, 2),
        mask=np.ones((n, 3), bool),
        action=np.arange(n),
        **{"return": np.zeros(n, np.float32)},
    )
    curve.cut(data, 4, 2, tmp_path / "cut.npz")
    with np.load(tmp_path / "cut.npz") as f:
        assert f["action"].tolist() == [0, 1, 5, 6]
    # End to end on a tiny run: one cut and the whole, each evaluated, then the picture.
    config = tiny_config(
        tmp_path, total_timesteps=0, eval_every=512, eval_games=1, eval_opponents="random"
    )
    run = train(config, command="x").parent
    out = tmp_path / "curve.png"
    assert curve.main([str(run), "--sizes", "100", "--eval-games", "1", "--output", str(out)]) == 0
    assert out.read_bytes()[:4] == b"\x89PNG"
    fitted = sorted(p.name for p in (run / "curve").glob("n*") if p.is_dir())
    total = json.loads((run / "state.json").read_text())["bc"]["samples"]
    assert fitted == sorted([f"n{total}", "n100"])
    assert json.loads((run / "curve" / "n100" / "state.json").read_text())["bc"]["samples"] == 100


@pytest.mark.parametrize("baseline", ["", "counting"])
def test_the_batch_plays_what_sb3s_dummy_vec_env_plays(tmp_path, baseline):
    """tt-train's default vec env (every table stepped together, the league's snapshot run once
    for all tables; with a baseline, the replays of every table's deal answered together) gives
    the learner the games and rewards one TrainingEnv per table gives."""
    from tt_env.train.env import make_vec_env

    league = tmp_path / "league"
    league.mkdir()
    tiny_model(league / "step_000000512.npz", Rules())
    runs = {}
    for vec_env in ("batch", "dummy"):
        config = tiny_config(
            tmp_path,
            vec_env=vec_env,
            n_envs=4,
            opponents="counting=1,random=1,league=2",
            baseline=baseline,
        )
        env = make_vec_env(config, seed=11, league_dir=str(league))
        rng = np.random.default_rng(0)
        seen = [env.reset()]
        for _ in range(120):
            masks = np.stack(env.env_method("action_masks"))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, dones, infos = env.step(actions)
            seen += [obs, rewards, dones]
            seen += [i["terminal_observation"] for i in infos if "terminal_observation" in i]
            seen += [i["tt_episode"]["opponents"] for i in infos if "tt_episode" in i]
        env.close()
        runs[vec_env] = seen
    labels = [x for x in runs["batch"] if isinstance(x, str)]
    assert any("league" in label for label in labels) and len(labels) >= 4
    assert len(runs["batch"]) == len(runs["dummy"])
    for a, b in zip(runs["batch"], runs["dummy"]):
        assert np.array_equal(a, b)


def test_plot_zooms_past_an_untrained_start(tmp_path):
    """An untrained start hundreds of points away would flatten the curve: the evaluations'
    axis shows the later ones (and zero), the start is written in a corner."""
    import matplotlib.pyplot as plt

    root = tmp_path / "run"
    root.mkdir()
    head = "timesteps,wall_time,opponent,deals,games,diff,diff_low,diff_high,score,win_rate\n"
    rows = "0,1,counting,10,20,360,350,370,380,0\n" + "".join(
        f"{t},2,counting,10,20,{d},{d - 2},{d + 2},40,0.5\n" for t, d in [(100, 3), (200, -1)]
    )
    (root / "evaluations.csv").write_text(head + rows)
    fig = learning_curve_figure(root)
    low, high = fig.axes[1].get_ylim()
    assert low < -3 and 5 < high < 50
    texts = [t.get_text() for t in fig.axes[1].texts]
    assert texts == ["off the scale: vs counting at 0 steps: +360.0"]
    plt.close(fig)
    # no start far away: the axis is matplotlib's own
    (root / "evaluations.csv").write_text(head + rows.replace("360,350,370", "4,2,6"))
    fig = learning_curve_figure(root)
    assert len(fig.axes[1].texts) == 0
    plt.close(fig)
