"""The batched environments (tt_env.vector): the games of the single-agent view, move for move,
on every rule option; seeding, both autoreset modes, masks, bad input; the SB3 VecEnv; self-play."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from helpers import RULE_OPTIONS  # every rule option, each set at least once

import tt_env.env  # noqa: F401  (registers the id)
from tt_env import three_thirteen_v0
from tt_env.agents import make_agent
from tt_env.agents.together import act_together
from tt_env.encoding.actions import GO_OUT_ACTION_BASE
from tt_env.env.aec import IllegalActionError
from tt_env.env.single_agent import SingleAgentEnv
from tt_env.game.rules import Rules
from tt_env.learned.features import CardFeatures
from tt_env.vector import SelfPlayVectorEnv, ThreeThirteenVectorEnv, make_sb3_vec_env
from tt_env.vector.native import batch_module

ID = "tt_env/ThreeThirteen-v0"


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def learner_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A legal action per row: going out when possible (mostly), else at random."""
    actions = np.zeros(len(masks), np.int64)
    for i, mask in enumerate(masks):
        legal = np.flatnonzero(mask)
        if legal.size == 0:
            continue
        outs = legal[legal >= GO_OUT_ACTION_BASE]
        pool = outs if outs.size and rng.random() < 0.8 else legal
        actions[i] = pool[rng.integers(pool.size)]
    return actions


def test_make_vec_builds_the_native_batch():
    env = gymnasium.make_vec(ID, num_envs=3, opponents="greedy")
    assert isinstance(env, ThreeThirteenVectorEnv)
    assert env.metadata["autoreset_mode"] == gymnasium.vector.AutoresetMode.NEXT_STEP
    obs, infos = env.reset(seed=0)
    assert obs.shape == (3, env.single_observation_space.shape[0]) and obs.dtype == np.float32
    assert env.observation_space.contains(obs)
    assert infos["action_mask"].shape == (3, 108) and infos["seat"].shape == (3,)
    sync = gymnasium.make_vec(ID, num_envs=3, vectorization_mode="sync", opponents="greedy")
    assert isinstance(sync, gymnasium.vector.SyncVectorEnv)


@pytest.mark.parametrize("compiled", [True, False])
@pytest.mark.parametrize("name", RULE_OPTIONS)
def test_the_batch_plays_the_single_envs_games_move_for_move(name, compiled):
    """On the compiled batch (opponents in C) and on the Python engine alike."""
    if compiled and batch_module() is None:
        pytest.skip("the compiled batch is not built")
    rules = Rules(**RULE_OPTIONS[name])
    opponents = ["counting", "greedy", "random"][: rules.num_players - 1]
    kwargs = dict(RULE_OPTIONS[name], opponents=opponents, episode="round")
    n = 3
    batch = ThreeThirteenVectorEnv(n, compiled=compiled, **kwargs)
    assert batch.compiled == compiled
    singles = [SingleAgentEnv(**kwargs) for _ in range(n)]
    obs, infos = batch.reset(seed=100)
    for i, single in enumerate(singles):
        o, info = single.reset(seed=100 + i)
        assert np.array_equal(o, obs[i]) and np.array_equal(
            info["action_mask"], infos["action_mask"][i]
        )
    rng = np.random.default_rng(0)
    ended = np.zeros(n, bool)
    episodes = 0
    # (a cap on wilds per meld takes the pure-Python solver: fewer steps)
    for _ in range(400 if rules.max_wilds_per_meld is None else 120):
        actions = learner_actions(batch.action_masks(), rng)
        obs, rewards, terms, truncs, infos = batch.step(actions)
        for i, single in enumerate(singles):
            if ended[i]:
                o, info = single.reset()
                r, done = 0.0, False
            else:
                o, r, done, _, info = single.step(int(actions[i]))
            assert np.array_equal(o, obs[i])
            assert r == rewards[i] and done == terms[i] and not truncs[i]
            # an ended table's row is all ones (the single env's is all zeros)
            mask = np.ones(108, np.int8) if done else info["action_mask"]
            assert np.array_equal(mask, infos["action_mask"][i])
            assert info["seat"] == infos["seat"][i]
            if done:
                assert infos["_score"][i] and infos["score"][i] == info["score"]
        episodes += int(terms.sum())
        ended = terms
    assert episodes >= n


def test_the_batch_equals_gymnasiums_sync_vector_env():
    kwargs = dict(opponents="counting", episode="round", num_players=3)
    batch = gymnasium.make_vec(ID, num_envs=4, **kwargs)
    sync = gymnasium.make_vec(ID, num_envs=4, vectorization_mode="sync", **kwargs)
    a, _ = batch.reset(seed=7)
    b, _ = sync.reset(seed=7)
    assert np.array_equal(a, b)
    rng = np.random.default_rng(1)
    for _ in range(150):
        actions = learner_actions(batch.action_masks(), rng)
        a, ra, ta, _, _ = batch.step(actions)
        b, rb, tb, _, _ = sync.step(actions)
        assert np.array_equal(a, b) and np.array_equal(ra, rb) and np.array_equal(ta, tb)


def test_same_step_autoreset_returns_the_next_episode_at_once():
    kwargs = dict(opponents="greedy", episode="round", max_turns_per_round=6)
    batch = ThreeThirteenVectorEnv(2, autoreset_mode="same_step", observation="features", **kwargs)
    features = CardFeatures(Rules(max_turns_per_round=6))
    singles = [SingleAgentEnv(**kwargs) for _ in range(2)]
    obs, _ = batch.reset(seed=5)
    for i, s in enumerate(singles):
        assert np.array_equal(features(s.reset(seed=5 + i)[0]), obs[i])
    rng = np.random.default_rng(2)
    finished = 0
    for _ in range(40):
        actions = learner_actions(batch.action_masks(), rng)
        obs, rewards, terms, _, infos = batch.step(actions)
        for i, s in enumerate(singles):
            o, r, done, _, info = s.step(int(actions[i]))
            assert r == rewards[i] and done == terms[i]
            if done:
                finished += 1
                assert infos["_final_obs"][i] and np.array_equal(infos["final_obs"][i], features(o))
                assert infos["final_info"]["round_penalty"][i] == info["round_penalty"]
                o, info = s.reset()
            assert np.array_equal(features(o), obs[i])
            assert batch.action_masks()[i].any()  # the next episode's first turn
    assert finished >= 2


def test_next_step_autoreset_masks_a_finished_table_and_ignores_its_action():
    batch = ThreeThirteenVectorEnv(2, opponents="random", episode="round", max_turns_per_round=4)
    batch.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(50):
        obs, _, terms, _, infos = batch.step(learner_actions(batch.action_masks(), rng))
        if terms.any():
            break
    done = int(np.flatnonzero(terms)[0])
    assert batch.action_masks()[done].all()  # all True: a masked softmax stays finite
    actions = learner_actions(batch.action_masks(), rng)
    actions[done] = 999  # ignored: the table is reset
    obs, rewards, terms, _, infos = batch.step(actions)
    assert rewards[done] == 0.0 and not terms[done] and batch.action_masks()[done].any()


def test_seeds_lists_and_partial_resets():
    a = ThreeThirteenVectorEnv(3, opponents="counting")
    b = ThreeThirteenVectorEnv(3, opponents="counting")
    oa, _ = a.reset(seed=10)
    ob, _ = b.reset(seed=[10, 11, 12])
    assert np.array_equal(oa, ob)
    oc, _ = b.reset(seed=[12, 11, 10])
    assert np.array_equal(oc[0], oa[2]) and not np.array_equal(oc[0], oc[2])
    rng = np.random.default_rng(0)
    before, _, _, _, _ = a.step(learner_actions(a.action_masks(), rng))
    again, _ = a.reset(
        seed=[None, 50, None], options={"reset_mask": np.array([False, True, False])}
    )
    assert np.array_equal(again[0], before[0]) and np.array_equal(again[2], before[2])
    fresh = SingleAgentEnv(opponents="counting")
    assert np.array_equal(again[1], fresh.reset(seed=50)[0])


def test_bad_input_is_refused_with_a_clear_error_and_changes_nothing():
    with pytest.raises(ValueError, match="num_envs"):
        ThreeThirteenVectorEnv(0)
    with pytest.raises(ValueError, match="autoreset_mode"):
        ThreeThirteenVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(ValueError, match="observation"):
        ThreeThirteenVectorEnv(2, observation="pixels")
    with pytest.raises(ValueError, match="render"):
        ThreeThirteenVectorEnv(2, render_mode="human")
    env = ThreeThirteenVectorEnv(2, opponents="greedy", illegal_action="raise")
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step([0, 0])
    obs, infos = env.reset(seed=3)
    with pytest.raises(ValueError, match="2 integers"):
        env.step([0, 0, 0])
    with pytest.raises(ValueError, match="not in Discrete"):
        env.step([0, 200])
    legal = learner_actions(env.action_masks(), np.random.default_rng(0))
    illegal = legal.copy()
    illegal[1] = int(np.flatnonzero(~env.action_masks()[1])[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    # nothing moved: the legal actions play as on a fresh batch
    twin = ThreeThirteenVectorEnv(2, opponents="greedy", illegal_action="raise")
    twin.reset(seed=3)
    a, ra, _, _, _ = env.step(legal)
    b, rb, _, _, _ = twin.step(legal)
    assert np.array_equal(a, b) and np.array_equal(ra, rb)


def test_the_sb3_vec_env_gives_terminal_observations_and_masks_without_a_round_trip():
    pytest.importorskip("stable_baselines3")  # the core install has no SB3
    env = make_sb3_vec_env(3, opponents="greedy", episode="round", max_turns_per_round=4)
    env.seed(9)
    obs = env.reset()
    single = SingleAgentEnv(opponents="greedy", episode="round", max_turns_per_round=4)
    assert np.array_equal(obs[0], single.reset(seed=9)[0])
    masks = np.stack(env.env_method("action_masks"))
    assert np.array_equal(masks, env.action_masks()) and env.has_attr("action_masks")
    rng = np.random.default_rng(0)
    dones_seen = 0
    for _ in range(30):
        actions = learner_actions(env.action_masks(), rng)
        o, r, d, _ = single.step(int(actions[0]))[:4]
        env.step_async(actions)
        obs, rewards, dones, infos = env.step_wait()
        assert rewards[0] == pytest.approx(r) and dones[0] == d
        if d:
            assert np.array_equal(infos[0]["terminal_observation"], o)
            assert "round_penalty" in infos[0] and "player_1" in infos[0]["scores"]
            o, _ = single.reset()
        assert np.array_equal(obs[0], o)
        dones_seen += int(dones.sum())
    assert dones_seen > 0
    assert env.get_attr("rules")[0] == Rules(max_turns_per_round=4)


def test_maskable_ppo_learns_on_the_sb3_vec_env():
    sb3_contrib = pytest.importorskip("sb3_contrib")
    import torch

    torch.set_num_threads(1)
    env = make_sb3_vec_env(8, opponents="greedy", episode="round", observation="features")
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu"
    )
    model.learn(256)
    assert model.num_timesteps >= 256


@pytest.mark.parametrize("compiled", [True, False])
def test_self_play_pays_every_seat_its_round_and_plays_the_aec_games(compiled):
    if compiled and batch_module() is None:
        pytest.skip("the compiled batch is not built")
    env = SelfPlayVectorEnv(3, num_players=3, episode="round", reward="penalty", compiled=compiled)
    assert env.compiled == compiled
    obs, infos = env.reset(seed=20)
    aecs = [three_thirteen_v0.raw_env(num_players=3, episode="round") for _ in range(3)]
    for i, aec in enumerate(aecs):
        aec.reset(seed=20 + i)
        assert np.array_equal(aec.observe(aec.agent_selection)["observation"], obs[i])
    rng = np.random.default_rng(3)
    totals = np.zeros((3, 3))
    episodes = 0
    ended = np.zeros(3, bool)
    for _ in range(300):
        actions = learner_actions(env.action_masks(), rng)
        obs, rewards, terms, _, infos = env.step(actions)
        totals += rewards
        for i, aec in enumerate(aecs):
            if ended[i]:
                aec.reset()
            else:
                aec.step(int(actions[i]))
            agent = aec.agent_selection
            assert np.array_equal(aec.observe(agent)["observation"], obs[i])
            assert terms[i] == aec.terminations[agent]
            assert terms[i] or infos["seat"][i] == int(agent.split("_")[1])
            if terms[i]:
                result = aec.game.round_results[-1]
                assert np.array_equal(totals[i], -np.array(result.penalties, float))
                assert infos["action_mask"][i].all()  # an ended table's mask: all ones
                totals[i] = 0
                episodes += 1
            else:
                assert np.array_equal(infos["action_mask"][i], aec.observe(agent)["action_mask"])
        ended = terms
    assert episodes >= 3


def test_self_play_with_some_seats_leaves_the_others_to_agents():
    env = SelfPlayVectorEnv(2, num_players=3, learner_seats=[1], opponents="counting")
    obs, infos = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):
        assert (infos["seat"] == 1).all()
        obs, _, _, _, infos = env.step(learner_actions(env.action_masks(), rng))
    with pytest.raises(ValueError, match="learner_seats"):
        SelfPlayVectorEnv(2, learner_seats=[2])
    with pytest.raises(ValueError, match="not legal"):
        bad = np.array([int(np.flatnonzero(~m)[0]) for m in env.action_masks()])
        env.step(bad)


def test_agents_acting_together_choose_what_they_choose_alone(tmp_path):
    from helpers import tiny_model

    rules = Rules(num_players=2)
    model = tiny_model(tmp_path / "m.npz", rules)
    env = three_thirteen_v0.raw_env()
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    observations, masks = [], []
    for _ in range(60):
        obs = env.observe(env.agent_selection)
        observations.append(obs["observation"])
        masks.append(obs["action_mask"])
        env.step(int(learner_actions(obs["action_mask"][None], rng)[0]))
        if env.terminations[env.agent_selection]:
            break
    observations, masks = np.stack(observations), np.stack(masks)
    for spec in ("counting", "greedy", "random", str(model)):
        alone = [make_agent(spec, 2, rules, seed=i) for i in range(len(masks))]
        together = [make_agent(spec, 2, rules, seed=i) for i in range(len(masks))]
        expected = [a.act(o, m) for a, o, m in zip(alone, observations, masks)]
        assert act_together(together, observations, masks) == expected, spec


def test_sb3s_checker_passes_on_a_table():
    sb3_checker = pytest.importorskip("stable_baselines3.common.env_checker")
    batch = ThreeThirteenVectorEnv(4, opponents="greedy", episode="round", compiled=False)
    sb3_checker.check_env(batch.tables[1])


def test_gymnasiums_checker_passes_on_a_table_and_its_vector_wrappers_work():
    from gymnasium.utils.env_checker import check_env as gymnasium_check

    python = ThreeThirteenVectorEnv(4, opponents="greedy", episode="round", compiled=False)
    gymnasium_check(python.tables[0], skip_render_check=True)
    wrapped = gymnasium.wrappers.vector.RecordEpisodeStatistics(
        ThreeThirteenVectorEnv(4, opponents="greedy", episode="round", max_turns_per_round=4)
    )
    wrapped.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(40):
        _, _, terms, _, infos = wrapped.step(learner_actions(wrapped.unwrapped.action_masks(), rng))
        if terms.any():
            assert infos["_episode"][terms].all() and (infos["episode"]["l"][terms] > 0).all()
            break
    else:
        raise AssertionError("no episode ended")
