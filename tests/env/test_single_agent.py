"""The Gymnasium single-agent view: the learner's own rewards, errors, Gymnasium's checker, SB3.

Games are kept short (``episode="round"`` or a small ``max_turns_per_round``); the SB3 tests use
one thread and a few thousand steps.
"""

from __future__ import annotations

import pickle
import textwrap
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from gymnasium.utils.env_checker import check_env

from tt_env.agents import RandomAgent
from tt_env.encoding.actions import NUM_ACTIONS, describe
from tt_env.env.aec import ActionOutOfBoundsError, IllegalActionError
from tt_env.env.single_agent import ENV_ID, OpponentError, SingleAgentEnv, register_envs
from tt_env.game.engine import Game


@pytest.fixture(autouse=True, scope="module")
def _registered():
    register_envs()  # importing tt_env.env does it; done here too so the file stands alone


def play_random(env: SingleAgentEnv, seed: int, on_step=None):
    """Play one episode with uniformly random legal actions; returns (rewards, last info)."""
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    rewards = []
    while True:
        mask = env.action_masks()
        assert mask.dtype == bool and mask.shape == (NUM_ACTIONS,) and mask.any()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(mask)))
        before = len(env.game.round_results)
        obs, reward, terminated, truncated, info = env.step(action)
        assert env.observation_space.contains(obs)
        assert not truncated
        if on_step is not None:
            on_step(before, reward)
        rewards.append(reward)
        if terminated:
            assert not env.action_masks().any()
            return rewards, info


# ------------------------------------------------------------------------------ rewards
@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("seat", [None, 0, "last"])
def test_rewards_add_up_to_minus_the_learners_final_score(num_players, seat):
    seat = num_players - 1 if seat == "last" else seat
    env = SingleAgentEnv(num_players=num_players, seat=seat, max_turns_per_round=3 * num_players)
    seats = set()
    for seed in range(3):

        def check_step(rounds_before, reward):
            # Each step brings exactly the learner's penalties of the rounds that ended in it.
            ended = env.game.round_results[rounds_before:]
            assert reward == -sum(r.penalties[env.learner_seat] for r in ended)

        rewards, info = play_random(env, seed, check_step)
        learner = env.learner_seat
        seats.add(learner)
        assert seat is None or learner == seat
        assert info["seat"] == learner and info["agent"] == f"player_{learner}"
        assert env.game.is_over
        assert sum(rewards) == -env.game.scores[learner] == -info["score"]
        assert info["scores"][info["agent"]] == info["score"]
        assert "winners" in info
    if seat is None and num_players == 2:
        assert seats == {0, 1}  # the seat is drawn per episode


def test_rewards_of_a_full_game_with_default_rules():
    env = SingleAgentEnv(num_players=2, opponents="greedy")
    rewards, info = play_random(env, seed=11)
    assert len(env.game.round_results) == env.rules.num_rounds
    assert sum(rewards) == -env.game.scores[env.learner_seat] == -info["score"]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_round_episodes_add_up_to_minus_the_round_penalty_and_play_the_next_rounds(num_players):
    env = SingleAgentEnv(num_players=num_players, episode="round")
    rng = np.random.default_rng(0)
    env.reset(seed=5)
    game = env.game
    for round_number in (1, 2, 3):
        if round_number > 1:
            _, info = env.reset()  # no seed: the next round of the same game
            assert env.game is game and info["round"] == round_number
        total = 0.0
        while True:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, terminated, _, info = env.step(action)
            total += reward
            if terminated:
                break
        assert info["round"] == round_number
        assert total == -info["round_penalty"] == -game.round_results[-1].penalties[info["seat"]]


class _Logged(RandomAgent):
    """A random opponent that logs the round of each move it makes into a shared list."""

    def __init__(self, log, env_ref, **kwargs):
        super().__init__(**kwargs)
        self.log, self.env_ref = log, env_ref

    def act(self, observation, action_mask):
        self.log.append(("opponent", self.env_ref[0].game.round_index))
        return super().act(observation, action_mask)


def test_penalty_reaches_the_learner_when_an_opponent_ends_the_round():
    """PettingZoo issue 1147: the learner must get its own penalty, also for rounds that end
    during the opponents' moves, in the step that returns."""
    log, env_ref = [], []
    opponents = [_Logged(log, env_ref, num_players=3, seed=i) for i in range(2)]
    env = SingleAgentEnv(opponents, num_players=3, seat=0, max_turns_per_round=7)
    env_ref.append(env)
    ended_by_opponent = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        done = False
        while not done:
            results_before = len(env.game.round_results)
            log.append(("learner", env.game.round_index))
            mask = env.action_masks()
            _, reward, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
            for result in env.game.round_results[results_before:]:
                last_mover = [who for who, r in log if r == result.round_index][-1]
                if last_mover == "opponent":
                    ended_by_opponent += 1
            ended = env.game.round_results[results_before:]
            assert reward == -sum(r.penalties[0] for r in ended)
        log.clear()
    assert ended_by_opponent >= 5


def test_relative_reward_is_passed_through():
    env = SingleAgentEnv(num_players=3, reward="relative", max_turns_per_round=6)
    rewards, info = play_random(env, seed=3)
    scores = env.game.scores
    own = scores[env.learner_seat]
    others = [s for i, s in enumerate(scores) if i != env.learner_seat]
    assert sum(rewards) == pytest.approx(-(own - sum(others) / len(others)))


# ------------------------------------------------------------------------------ errors
def test_illegal_learner_action_raises_and_changes_nothing_with_raise():
    env = SingleAgentEnv(num_players=3, illegal_action="raise")
    obs, info = env.reset(seed=4)
    mask = env.action_masks()
    moves = list(env.game.moves)
    illegal = int(np.flatnonzero(~mask)[0])
    with pytest.raises(IllegalActionError, match=describe(illegal)):
        env.step(illegal)
    assert list(env.game.moves) == moves
    assert np.array_equal(env.action_masks(), mask)
    assert np.array_equal(env.aec_env.observe(env.learner)["observation"], obs)
    with pytest.raises(ActionOutOfBoundsError):
        env.step(NUM_ACTIONS)
    with pytest.raises(AssertionError):  # as Gymnasium's own environments assert
        env.step(-1)
    env.step(int(np.flatnonzero(mask)[0]))  # the env goes on
    assert len(env.game.moves) > len(moves)


def test_step_before_reset_and_after_the_end_raises():
    env = SingleAgentEnv(num_players=2, episode="round")
    with pytest.raises(ResetNeeded):
        env.step(0)
    play_random(env, seed=0)
    with pytest.raises(ResetNeeded):
        env.step(0)


def test_illegal_action_ends_the_episode_with_the_illegal_reward_by_default(caplog):
    env = SingleAgentEnv(num_players=2, illegal_reward=-500)
    for seed in range(5):
        env.reset(seed=seed)
        illegal = int(np.flatnonzero(~env.action_masks())[0])
        _, reward, terminated, truncated, info = env.step(illegal)
        assert (reward, terminated, truncated) == (-500.0, True, False)
        assert info["illegal_action"] == illegal and not env.action_masks().any()
    warned = [r for r in caplog.records if "Illegal move" in r.getMessage()]
    assert len(warned) == 1  # once per environment, not once per illegal move


def test_an_opponent_that_plays_an_illegal_action_is_reported():
    class Bad:
        name = "bad"

        def act(self, observation, action_mask):
            return int(np.flatnonzero(np.asarray(action_mask) == 0)[0])

    env = SingleAgentEnv(Bad(), num_players=2, seat=1)
    with pytest.raises(OpponentError, match="'bad' in seat 0"):
        env.reset(seed=0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="num_players - 1"):
        SingleAgentEnv(["random"], num_players=3)
    with pytest.raises(ValueError, match="seat"):
        SingleAgentEnv(num_players=2, seat=2)
    with pytest.raises(ValueError, match="max_turns_per_round"):
        SingleAgentEnv(num_players=4, max_turns_per_round=3)
    with pytest.raises(TypeError, match="unknown keyword"):
        SingleAgentEnv(num_players=2, no_such_rule=1)
    with pytest.raises(ValueError, match="unknown agent"):
        SingleAgentEnv("no-such-agent", num_players=2)
    env = SingleAgentEnv(num_players=2)
    with pytest.raises(ValueError, match="reset option"):
        env.reset(options={"sear": 1})


# ------------------------------------------------------------------------------ conventions
def test_gymnasium_check_env_passes_with_the_defaults(capsys):
    # check_env steps with unmasked action_space.sample(): the default illegal_action=
    # "terminate" ends such an episode, as in unmasked training. It also renders every mode.
    env = gymnasium.make(ENV_ID)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning either
        check_env(env.unwrapped)
    env.close()
    env = gymnasium.make(ENV_ID, num_players=3, episode="round")
    check_env(env.unwrapped)
    env.close()


def test_sb3_check_env_passes_with_the_defaults(sb3):
    from stable_baselines3.common.env_checker import check_env as sb3_check_env

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sb3_check_env(gymnasium.make(ENV_ID))
        sb3_check_env(SingleAgentEnv(num_players=4, rules="one-wild"))


def test_rgb_array_frames(sb3):
    env = gymnasium.make(
        ENV_ID, render_mode="rgb_array", num_players=3, episode="round", max_turns_per_round=9
    )
    obs, info = env.reset(seed=2)
    frames = [env.render()]
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[-1]))
        frames.append(env.render())
    assert all(f.shape == (540, 960, 3) and f.dtype == np.uint8 for f in frames)
    assert len({f.tobytes() for f in frames}) == len(frames)  # every step changes the picture
    assert frames[-1].std() > 10  # not a blank canvas


def test_record_video_writes_a_short_video(tmp_path):
    """Gymnasium's RecordVideo; it needs moviepy (extra ``video``). Without moviepy the frames
    it would encode are checked by test_rgb_array_frames."""
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = gymnasium.make(ENV_ID, render_mode="rgb_array", episode="round", max_turns_per_round=4)
    env = RecordVideo(
        env, str(tmp_path / "videos"), episode_trigger=lambda episode: True, disable_logger=True
    )
    obs, info = env.reset(seed=0)
    terminated = False
    while not terminated:
        obs, _, terminated, _, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
    env.close()
    videos = list((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


def test_rgb_array_without_pillow_names_the_extra(monkeypatch):
    import sys

    from tt_env.env import render

    render._font.cache_clear()
    monkeypatch.setitem(sys.modules, "PIL", None)  # import PIL now fails
    with pytest.raises(ImportError, match=r"tt_env\[render\]"):
        SingleAgentEnv(render_mode="rgb_array")
    SingleAgentEnv(render_mode="ansi")  # the other modes need no Pillow


def test_make_vec_env_with_dummy_vec_env(sb3):
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = make_vec_env(
        ENV_ID,
        n_envs=2,
        vec_env_cls=DummyVecEnv,
        seed=0,
        env_kwargs=dict(episode="round", opponents="greedy"),
    )
    obs = vec.reset()
    for _ in range(20):
        masks = vec.env_method("action_masks")
        obs, _, _, _ = vec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
    assert obs.shape == (2, vec.observation_space.shape[0])
    assert vec.render().shape == (2 * 540, 960, 3)  # SB3 tiles the frames
    vec.close()


def test_make_vec_env_with_subproc_vec_env_as_a_user_script(sb3, tmp_path):
    """The idiom of the SB3 docs, run as a script (SubprocVecEnv's workers import it)."""
    import subprocess
    import sys
    from pathlib import Path

    script = tmp_path / "train.py"
    script.write_text(
        textwrap.dedent("""
        import numpy as np
        import tt_env.env
        from stable_baselines3.common.env_util import make_vec_env
        from stable_baselines3.common.vec_env import SubprocVecEnv

        if __name__ == "__main__":
            vec = make_vec_env("tt_env/ThreeThirteen-v0", n_envs=2, vec_env_cls=SubprocVecEnv,
                               env_kwargs=dict(episode="round", opponents="greedy"), seed=0)
            obs = vec.reset()
            for _ in range(10):
                masks = vec.env_method("action_masks")
                obs, _, _, _ = vec.step(np.array([int(np.flatnonzero(m)[0]) for m in masks]))
            print(obs.shape, vec.get_images()[0].shape)
            vec.close()
    """)
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**__import__("os").environ, "PYTHONPATH": str(root)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "(2, 413) (540, 960, 3)"


def test_make_with_rules_and_options():
    env = gymnasium.make(
        ENV_ID, rules="one-wild", num_players=4, opponents=["random", "greedy", "counting"], seat=2
    )
    obs, info = env.reset(seed=0)
    base = env.unwrapped
    assert base.rules.num_players == 4 and base.rules.max_wilds_per_meld == 1
    assert obs.shape == base.observation_space.shape == env.observation_space.shape
    assert env.get_wrapper_attr("action_masks")().shape == (NUM_ACTIONS,)
    assert [a.name for a in base.opponents] == ["random", "greedy", "counting"]
    # the first opponent sits right after the learner
    assert base._seated[3] is base.opponents[0] and base._seated[0] is base.opponents[1]
    _, info = env.reset(options={"seat": 1})
    assert info["seat"] == 1


def test_seeded_reset_reproduces_the_episode_and_plays_the_seeds_game():
    def trajectory(seed):
        env = SingleAgentEnv(num_players=3, opponents="greedy", max_turns_per_round=9)
        out = []
        play_random(env, seed, lambda before, reward: out.append(reward))
        return out, env.learner_seat, env.game.record()

    a, b = trajectory(7), trajectory(7)
    assert a == b
    record = a[2]
    assert record["seed"] == 7
    assert Game.from_record(record).scores == record["scores"]
    assert trajectory(8) != a


def test_pickle_round_trip():
    env = SingleAgentEnv(num_players=3, opponents="greedy", episode="round")
    env.reset(seed=2)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    twin = pickle.loads(pickle.dumps(env))
    for _ in range(20):
        action = int(np.flatnonzero(env.action_masks())[-1])
        one, two = env.step(action), twin.step(action)
        assert np.array_equal(one[0], two[0]) and one[1:4] == two[1:4]
        if one[2]:
            break


def test_render_shows_the_opponents_moves():
    env = SingleAgentEnv(num_players=2, seat=0, render_mode="ansi")
    env.reset(seed=0)
    env.step(0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    text = env.render()
    assert "player_0 (learner): discard" in text and "\nplayer_1: " in text
    assert "[learner: player_0]" in text and "Round 1/11" in text


def test_agent_hooks_reset_per_game_and_new_round_per_round():
    class Counting(RandomAgent):
        resets = rounds = 0

        def reset(self, seed=None):
            super().reset(seed)  # BaseAgent.reset calls new_round(): count from here
            self.resets += 1
            self.rounds = 0

        def new_round(self):
            self.rounds += 1

    agent = Counting(num_players=2)
    env = SingleAgentEnv(agent, num_players=2, max_turns_per_round=4)
    play_random(env, seed=0)
    assert agent.resets == 1 and agent.rounds == env.rules.num_rounds - 1


# ------------------------------------------------------------------------------ SB3
@pytest.fixture
def sb3():
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    torch.set_num_threads(1)


def _make(**kwargs):
    def make():
        register_envs()  # in a spawned worker too
        return gymnasium.make(ENV_ID, num_players=2, episode="round", **kwargs)

    return make


class LegalityRecorder(gymnasium.Wrapper):
    """Records every action with the mask in force when it was taken."""

    def __init__(self, env):
        super().__init__(env)
        self.taken: list[tuple[int, bool]] = []

    def step(self, action):
        mask = self.env.unwrapped.action_masks()
        self.taken.append((int(action), bool(mask[int(action)])))
        return self.env.step(action)


def test_maskable_ppo_never_takes_a_masked_action(sb3):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    recorders = []

    def make():
        env = LegalityRecorder(_make()())
        recorders.append(env)
        return env

    vec = DummyVecEnv([make, make])
    model = MaskablePPO(
        "MlpPolicy",
        vec,
        n_steps=256,
        batch_size=128,
        n_epochs=2,
        seed=0,
        device="cpu",
        policy_kwargs=dict(net_arch=[64, 64]),
    )
    model.learn(total_timesteps=2048)
    taken = [t for r in recorders for t in r.taken]
    assert len(taken) >= 2048
    assert all(legal for _, legal in taken)
    assert len({a for a, _ in taken}) > 10  # it explored, within the masks

    obs = vec.reset()
    for _ in range(200):
        masks = get_action_masks(vec)
        actions, _ = model.predict(obs, action_masks=masks, deterministic=True)
        assert all(masks[i, a] for i, a in enumerate(actions))
        obs, _, _, _ = vec.step(actions)
    vec.close()


def test_predict_with_info_mask_on_a_single_env(sb3):
    from sb3_contrib import MaskablePPO

    env = _make()()
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, seed=0, device="cpu")
    obs, info = env.reset(seed=3)
    for _ in range(100):
        action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
        assert info["action_mask"][int(action)]
        obs, _, terminated, _, info = env.step(action)
        if terminated:
            obs, info = env.reset()


def test_subproc_vec_env_with_masks_and_eval_callback(sb3, tmp_path):
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
    from stable_baselines3.common.vec_env import SubprocVecEnv, VecMonitor

    vec = VecMonitor(SubprocVecEnv([_make(), _make()], start_method="spawn"))
    try:
        assert is_masking_supported(vec)
        vec.seed(0)
        obs = vec.reset()
        for _ in range(30):
            masks = get_action_masks(vec)
            assert masks.shape == (2, NUM_ACTIONS) and masks.dtype == bool
            actions = [int(np.flatnonzero(m)[0]) for m in masks]
            obs, rewards, dones, infos = vec.step(np.array(actions))
            assert obs.shape == (2, vec.observation_space.shape[0])
        eval_env = VecMonitor(SubprocVecEnv([_make()], start_method="spawn"))
        callback = MaskableEvalCallback(
            eval_env, eval_freq=64, n_eval_episodes=2, log_path=str(tmp_path), verbose=0
        )
        model = MaskablePPO(
            "MlpPolicy", vec, n_steps=128, batch_size=128, n_epochs=1, seed=0, device="cpu"
        )
        model.learn(total_timesteps=256, callback=callback)
        assert len(callback.evaluations_results) == 2  # at 64 and 128 calls of 2 envs
        assert all(r <= 0 for rs in callback.evaluations_results for r in rs)  # penalties
        eval_env.close()
    finally:
        vec.close()
