"""The oracle critic (``oracle_critic = true``): the critic also reads the hidden cards in
training, the policy never does, and a model file holds the policy alone."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from helpers import sb3_steps, tiny_config  # noqa: E402

from tt_env.agents import make_agent  # noqa: E402
from tt_env.game.cards import NUM_KINDS  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402
from tt_env.learned.features import CardFeatures  # noqa: E402
from tt_env.learned.model import load_model  # noqa: E402
from tt_env.learned.network import CardNet, load_numpy_weights, numpy_weights  # noqa: E402
from tt_env.train import TrainingEnv, build_parser, config_from_args, main, train  # noqa: E402
from tt_env.train.env import oracle_width  # noqa: E402

torch.set_num_threads(1)


def test_oracle_features_are_the_hidden_cards_after_the_observation():
    rules = Rules(num_players=3)
    env = TrainingEnv(rules, {"counting": 1.0}, seed=1, oracle=True)
    plain = TrainingEnv(rules, {"counting": 1.0}, seed=1)
    width = env.features.size
    assert env.observation_space.shape == (width + oracle_width(rules),)
    assert oracle_width(rules) == 4 * NUM_KINDS
    x, _ = env.reset(seed=4)
    y, _ = plain.reset(seed=4)
    rng = np.random.default_rng(0)
    for _ in range(40):
        np.testing.assert_array_equal(x[:width], y)  # the policy's part is unchanged
        game, seat = env.env.game, env.env.learner_seat
        rows = x[width:].reshape(4, NUM_KINDS)
        for k in (1, 2):  # the other seats in playing order from the learner's left
            np.testing.assert_array_equal(rows[k - 1], game.hand_counts((seat + k) % 3))
        stock = game.stock_cards()
        assert rows[2].sum() == len(stock) == game.stock_size
        np.testing.assert_array_equal(rows[2], np.bincount(stock, minlength=NUM_KINDS))
        assert rows[3].sum() == (1 if stock else 0)
        if stock:
            assert rows[3][stock[-1]] == 1  # the next card drawn from the stock
        action = rng.choice(np.flatnonzero(env.action_masks()))
        x, _, done, _, _ = env.step(action)
        y, _, _, _, _ = plain.step(action)
        if done:
            seed = int(rng.integers(100))
            x, _ = env.reset(seed=seed)
            y, _ = plain.reset(seed=seed)


def test_the_actor_never_reads_the_hidden_cards_and_the_file_leaves_them_out():
    rules = Rules()
    features = CardFeatures(rules)
    kwargs = {"global_width": features.global_width, "card_hidden": 16, "trunk_hidden": 24}
    torch.manual_seed(0)
    net = CardNet(**kwargs, oracle_width=oracle_width(rules))
    rng = np.random.default_rng(2)
    x = torch.from_numpy(rng.normal(size=(5, features.size)).astype(np.float32))
    hidden = torch.from_numpy(rng.integers(0, 2, (5, oracle_width(rules))).astype(np.float32))
    with torch.no_grad():
        for p in net.oracle_head.parameters():  # as if trained: the head reads the cards
            p.normal_()
        logits, value = net(torch.cat([x, hidden], 1))
        logits2, value2 = net(torch.cat([x, 1 - hidden], 1))
        plain_value = net.value_head(net._encode(x)[1])
        assert torch.equal(logits, logits2) and torch.equal(logits, net.actor(x))
        assert not torch.allclose(value, value2)  # the critic does read them
        assert torch.equal(net.critic(x), plain_value)  # features alone: the plain value
    weights = numpy_weights(net)
    assert weights and not any(k.startswith("oracle_head") for k in weights)
    plain = CardNet(**kwargs)
    load_numpy_weights(plain, weights)  # a model file's weights fit the plain network
    kept = {k: v.clone() for k, v in net.oracle_head.state_dict().items()}
    load_numpy_weights(net, numpy_weights(plain))  # and the oracle net keeps its head
    for k, v in net.oracle_head.state_dict().items():
        assert torch.equal(v, kept[k])
    with pytest.raises(ValueError, match="expected"):
        net(torch.zeros(2, features.size + 3))
    fresh = CardNet(**kwargs, oracle_width=oracle_width(rules))
    with torch.no_grad():  # the head starts at zero: the critic starts as the plain one
        assert torch.equal(fresh(torch.cat([x, hidden], 1))[1], fresh.critic(x))


def test_oracle_critic_run_trains_the_head_saves_resumes_and_plays(tmp_path):
    config = tiny_config(
        tmp_path,
        total_timesteps=1024,
        baseline="counting",
        opponents="counting=1,league=1",
        oracle_critic=True,
    )
    first = train(config, command="oracle")
    root = first.parent
    assert main(["--resume", str(root), "--total-timesteps", "1536", "--no-progress-bar"]) == 0
    checkpoint = root / "checkpoints" / "ckpt_000001536.zip"
    assert sb3_steps(checkpoint) == 1536
    from sb3_contrib import MaskablePPO

    policy = MaskablePPO.load(checkpoint, device="cpu").policy
    head = policy.mlp_extractor.net.oracle_head
    assert head[-1].weight.abs().sum() > 0  # trained from its zero start
    model = load_model(root / "model.npz")
    assert model.metadata["training"]["config"]["oracle_critic"] is True
    assert "oracle_width" not in model.metadata["network"]["kwargs"]
    assert not any(k.startswith("oracle_head") for k in model.weights)
    agent = make_agent(str(root / "model.npz"), 2)
    env = TrainingEnv(Rules(), {"counting": 1.0}, seed=0)
    env.reset(seed=1)
    action = agent.act(env.raw_observation, env.action_masks().astype(np.int8))
    assert env.action_masks()[action]


def test_oracle_critic_is_a_flag():
    config, given = config_from_args(build_parser().parse_args(["--oracle-critic"]))
    assert config.oracle_critic and given == {"oracle_critic": True}
