"""The compiled batch (vector/_cbatch.c): every table in one call, the AEC env's games."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import RULE_OPTIONS, tiny_model

from tt_env.game.rules import Rules
from tt_env.vector import SelfPlayVectorEnv
from tt_env.vector.native import (
    COUNTING,
    RANDOM,
    SEED,
    CompiledSelfPlay,
    CompiledTables,
    batch_module,
)

pytestmark = pytest.mark.skipif(batch_module() is None, reason="the compiled batch is not built")

CASES = {
    "standard-game": (Rules(), "game", "penalty"),
    "round-episodes": (Rules(), "round", "penalty"),
    "3p-relative": (Rules(num_players=3), "game", "relative"),
    # the Python solver answers on the batch's threads (a cap on wilds, redemption's lay-offs)
    "one-wild-redemption": (
        Rules.preset("one-wild", num_players=3, redemption=True, jokers_per_deck=1),
        "round",
        "penalty",
    ),
    "false-out-turn-cap": (
        Rules(false_out_penalty=20, max_turns_per_round=12, aces_high=True),
        "round",
        "relative",
    ),
}


def random_actions(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return (rng.random(masks.shape) * masks.astype(bool)).argmax(1)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_table_plays_the_aec_envs_games(name):
    """Table i of reset(seed=s) plays SelfPlayVectorEnv's table i, step for step, through the
    autoresets: observations, rewards, terminations, seats, and the masks (an ended table's
    row is all ones in both)."""
    rules, episode, reward = CASES[name]
    n = 6
    ours = CompiledSelfPlay(n, rules, episode=episode, reward=reward, num_threads=2)
    theirs = SelfPlayVectorEnv(n, rules=rules, episode=episode, reward=reward, compiled=False)
    obs, infos = theirs.reset(seed=100)
    ours.reset(100)
    assert np.array_equal(ours.observations, obs)
    assert np.array_equal(ours.masks, infos["action_mask"])
    assert np.array_equal(ours.seats, infos["seat"])
    rng = np.random.default_rng(1)
    ended = 0
    for step in range(1200 if name == "one-wild-redemption" else 2500):
        actions = random_actions(ours.masks, rng)
        obs, rewards, terminations, _, infos = theirs.step(actions)
        ours.step(actions)
        where = f"{name} step {step}"
        assert np.array_equal(ours.terminations, terminations), where
        assert np.array_equal(ours.rewards, rewards), where
        assert np.array_equal(ours.observations, obs), where
        assert np.array_equal(ours.seats, infos["seat"]), where
        assert np.array_equal(ours.masks, infos["action_mask"]), where
        assert (ours.masks[terminations] == 1).all(), where
        ended += int(terminations.sum())
    assert ended > 0  # the autoresets were exercised


def test_one_thread_or_several_play_the_same_games():
    rules = Rules(num_players=4)
    batches = [CompiledSelfPlay(9, rules, num_threads=t) for t in (1, 2, 3)]
    for batch in batches:
        batch.reset(7)
    rng = np.random.default_rng(2)
    for _ in range(300):
        actions = random_actions(batches[0].masks, rng)
        for batch in batches:
            batch.step(actions)
        for batch in batches[1:]:
            assert np.array_equal(batch.observations, batches[0].observations)
            assert np.array_equal(batch.rewards, batches[0].rewards)
            assert np.array_equal(batch.masks, batches[0].masks)


def test_an_ended_tables_mask_is_usable_by_a_masked_softmax():
    batch = CompiledSelfPlay(4, Rules(max_turns_per_round=2), episode="round", num_threads=1)
    batch.reset(0)
    rng = np.random.default_rng(0)
    while not batch.terminations.any():
        batch.step(random_actions(batch.masks, rng))
    rows = batch.masks[batch.terminations]
    assert (rows == 1).all()
    logits = np.where(rows.astype(bool), 0.0, -np.inf)
    probabilities = np.exp(logits - logits.max(1, keepdims=True))
    assert np.isfinite(probabilities / probabilities.sum(1, keepdims=True)).all()
    # whatever action is given for an ended table, it starts its next episode
    actions = random_actions(batch.masks, rng)
    actions[batch.terminations] = 107
    batch.step(actions)


def test_an_illegal_action_names_the_table_and_seat_and_moves_no_table():
    batch = CompiledSelfPlay(3, Rules(), num_threads=1)
    batch.reset(5)
    before = [a.copy() for a in (batch.observations, batch.masks, batch.seats)]
    actions = random_actions(batch.masks, np.random.default_rng(0))
    actions[1] = 54  # discard the joker: no joker in play, and it is a draw phase
    seat = before[2][1]
    with pytest.raises(ValueError, match=rf"table 1: action 54 is not legal for seat {seat}"):
        batch.step(actions)
    for array, old in zip((batch.observations, batch.masks, batch.seats), before):
        assert np.array_equal(array, old)
    for bad in (-1, 108):
        actions[1] = bad
        with pytest.raises(ValueError, match="table 1"):
            batch.step(actions)
    batch.step(random_actions(batch.masks, np.random.default_rng(0)))  # still usable


@pytest.mark.parametrize(
    "actions, error",
    [
        (np.zeros(2, np.int64), "actions"),
        (np.zeros((3, 1), np.int64), "actions"),
        (np.zeros(3, np.float64), "actions"),
    ],
)
def test_arrays_of_the_wrong_shape_or_type_are_refused(actions, error):
    batch = CompiledSelfPlay(3, Rules(), num_threads=1)
    batch.reset(0)
    with pytest.raises((TypeError, ValueError), match=error):
        batch._batch.step(actions)


def test_the_batch_refuses_arrays_it_cannot_write():
    module = batch_module()
    batch = CompiledSelfPlay(2, Rules(), num_threads=1)
    from tt_env.encoding.observation import piece_starts
    from tt_env.game.native import SolverService, rules_tuple, thread_kernels

    rules = Rules()
    good = dict(
        observations=np.zeros((2, 413), np.float32),
        masks=np.zeros((2, 108), np.int8),
        rewards=np.zeros((2, 2), np.float64),
        terminations=np.zeros(2, bool),
        seats=np.zeros(2, np.int64),
    )
    args = (
        rules_tuple(rules),
        SolverService(rules),
        (thread_kernels(rules),),
        piece_starts(2, module.PIECES),
    )
    module.Batch(*args, **good, round_episodes=False, relative=False)  # accepted
    for name, bad in [
        ("observations", np.zeros((2, 412), np.float32)),
        ("masks", np.zeros((2, 108), np.float32)),
        ("rewards", np.zeros((2, 3), np.float64)),
        ("seats", np.zeros(2, np.int32)),
        ("observations", np.zeros((2, 413), np.float32)[:, ::1].T.copy().T),
    ]:
        kwargs = {**good, name: bad}
        with pytest.raises((TypeError, ValueError), match=name):
            module.Batch(*args, **kwargs, round_episodes=False, relative=False)
    readonly = np.zeros((2, 108), np.int8)
    readonly.flags.writeable = False
    with pytest.raises((TypeError, ValueError), match="masks"):
        module.Batch(*args, **{**good, "masks": readonly}, round_episodes=False, relative=False)
    assert batch.num_threads == 1


def _step_in_child(batch, queue) -> None:
    batch.step(random_actions(batch.masks, np.random.default_rng(0)))
    queue.put(batch.observations.copy())


def test_a_forked_child_steps_its_copy_of_the_batch_on_its_own():
    """A forked process has none of the batch's threads: it steps every table itself, and
    plays what the parent would."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    batch = CompiledSelfPlay(6, Rules(), num_threads=2)
    batch.reset(3)
    queue = context.Queue()
    child = context.Process(target=_step_in_child, args=(batch, queue))
    child.start()
    observed = queue.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0
    batch.step(random_actions(batch.masks, np.random.default_rng(0)))
    assert np.array_equal(observed, batch.observations)


def _same_games(kwargs: dict, steps: int, seed: int = 40) -> int:
    """SelfPlayVectorEnv on the compiled batch and on the Python engine, step for step: the
    same observations, masks, rewards, terminations and seats. Returns the episodes ended."""
    n = 4
    ours = SelfPlayVectorEnv(n, compiled=True, num_threads=2, **kwargs)
    theirs = SelfPlayVectorEnv(n, compiled=False, **kwargs)
    a, ia = ours.reset(seed=seed)
    b, ib = theirs.reset(seed=seed)
    assert np.array_equal(a, b) and np.array_equal(ia["seat"], ib["seat"])
    rng = np.random.default_rng(seed)
    ended = 0
    for step in range(steps):
        actions = random_actions(ia["action_mask"], rng)
        a, ra, ta, _, ia = ours.step(actions)
        b, rb, tb, _, ib = theirs.step(actions)
        where = f"step {step}"
        assert np.array_equal(a, b), where
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb), where
        assert np.array_equal(ia["seat"], ib["seat"]), where
        assert np.array_equal(ia["action_mask"], ib["action_mask"]), where
        ended += int(ta.sum())
    return ended


@pytest.mark.parametrize("opponents", ["random", "greedy", "counting"])
@pytest.mark.parametrize("name", sorted(RULE_OPTIONS))
def test_built_in_opponents_decide_in_c_as_the_python_agents_do(name, opponents):
    """Random, greedy and counting move inside the C call and make the Python agents' moves,
    on every rule option (where the compiled solver does not serve the rules, or cannot certify
    a hand, the Python agent decides: the same moves)."""
    options = RULE_OPTIONS[name]
    players = options.get("num_players", 2)
    kwargs = dict(options, opponents=opponents, episode="round", learner_seats=[players - 1])
    slow = "max_wilds_per_meld" in options or "redemption" in options
    ended = _same_games(kwargs, 40 if slow else 200)
    assert slow or ended > 0


def test_a_learned_opponent_is_asked_between_calls(tmp_path):
    """A model opponent is no built-in: Python asks it, every table in one forward pass."""
    model = tiny_model(tmp_path / "m.npz", Rules(num_players=3))
    kwargs = dict(num_players=3, opponents=str(model), learner_seats=[0], episode="round")
    assert _same_games(kwargs, 150) > 0


def test_an_opponent_that_breaks_the_rules_is_named():
    class Cheater:
        name = "cheater"

        def act(self, observation, mask):
            return int(np.flatnonzero(np.asarray(mask) == 0)[0])

    env = SelfPlayVectorEnv(2, opponents=Cheater(), learner_seats=[0], compiled=True)
    with pytest.raises(RuntimeError, match="opponent at table 0 chose an illegal action"):
        env.reset(seed=1)
        for _ in range(10):
            env.step(random_actions(env.action_masks(), np.random.default_rng(0)))


def test_advance_checks_its_arrays_and_modes():
    batch = CompiledTables(3, Rules(), num_threads=1)
    batch.advance(np.full(3, SEED, np.uint8), seeds=np.arange(3, dtype=np.uint64))
    for modes, actions, error in [
        (np.ones(2, np.uint8), np.zeros(3, np.int64), "modes"),
        (np.ones(3, np.int8), np.zeros(3, np.int64), "modes"),
        (np.ones(3, np.uint8), np.zeros(3, np.int32), "actions"),
        (np.ones(3, np.uint8), np.zeros(6, np.int64)[::2], "actions"),
        (np.full(3, 7, np.uint8), np.zeros(3, np.int64), "mode 7"),
    ]:
        with pytest.raises((TypeError, ValueError), match=error):
            batch.advance(modes, actions)
    before = batch.observations.copy()
    actions = random_actions(batch.masks, np.random.default_rng(0))
    actions[2] = 60
    with pytest.raises(ValueError, match="table 2: action 60 is not legal"):
        batch.advance(np.ones(3, np.uint8), actions)
    assert np.array_equal(before, batch.observations)  # no table moved
    with pytest.raises(IndexError, match="table 3"):
        batch.table(3)
    with pytest.raises(ValueError, match="seat 2"):
        batch.seed_agent(0, 2, 1)
    with pytest.raises(ValueError, match="order"):
        batch.move_agents(0, (0, 5))


def test_random_actions_of_every_kind_never_crash_the_batch():
    """Fuzz: random and illegal action arrays (and modes) through advance() and step(): a bad
    one raises and changes nothing; the batch goes on."""
    rng = np.random.default_rng(11)
    batch = CompiledTables(5, Rules(num_players=3), episode="round", num_threads=2)
    batch.seat_agents[:, 1:] = [RANDOM, COUNTING]
    batch.advance(np.full(5, SEED, np.uint8), seeds=np.arange(5, dtype=np.uint64))
    refused = 0
    for _ in range(400):
        modes = rng.integers(0, 5, 5).astype(np.uint8)
        actions = rng.integers(-3, 112, 5)
        legal = random_actions(batch.masks, rng)
        actions = np.where(rng.random(5) < 0.7, legal, actions)
        before = batch.observations.copy()
        try:
            batch.rewards[:] = 0
            batch.advance(modes, actions, rng.integers(0, 2**63, 5).astype(np.uint64))
        except ValueError:
            refused += 1
            assert np.array_equal(before, batch.observations)
    assert refused > 0
    # the built-in seats never wait for the caller where they could decide
    waiting = ~batch.terminations
    assert (batch.seat_agents[np.flatnonzero(waiting), batch.seats[waiting]] == 0).all()


def _same(ours, theirs, where: str) -> None:
    """Equal outputs, infos included (dicts of arrays, object arrays of final observations)."""
    if isinstance(ours, dict):
        assert set(ours) == set(theirs), where
        for key in ours:
            _same(ours[key], theirs[key], f"{where}/{key}")
    elif isinstance(ours, tuple) or (isinstance(ours, np.ndarray) and ours.dtype == object):
        assert len(ours) == len(theirs), where
        for a, b in zip(ours, theirs):
            _same(a, b, where)
    else:
        assert np.array_equal(np.asarray(ours), np.asarray(theirs)), where


VECTOR_CASES = {
    "counting-next-step": dict(opponents="counting", episode="round", num_players=3),
    "mixed-same-step": dict(
        opponents=["random", "greedy"], episode="round", num_players=3, autoreset_mode="same_step"
    ),
    "random-games": dict(opponents="random", max_turns_per_round=6),
    "features-same-step": dict(
        opponents="greedy", episode="round", autoreset_mode="same_step", observation="features"
    ),
    "illegal-terminate-round": dict(
        opponents="random", episode="round", max_turns_per_round=8, num_players=3
    ),
    "illegal-terminate-game": dict(opponents="counting", max_turns_per_round=4),
    "fixed-seat-disabled": dict(
        opponents="counting", episode="round", seat=1, num_players=3, autoreset_mode="disabled"
    ),
}


@pytest.mark.parametrize("name", sorted(VECTOR_CASES))
def test_make_vec_on_the_compiled_batch_plays_the_python_batchs_games(name):
    """ThreeThirteenVectorEnv on the compiled batch and on the Python engine, step for step:
    observations, rewards, terminations, masks and every info (final observations and infos
    of the same-step autoreset, the infos of an illegal action that ends the episode)."""
    import warnings

    kwargs = VECTOR_CASES[name]
    from tt_env.vector import ThreeThirteenVectorEnv

    ours = ThreeThirteenVectorEnv(4, compiled=True, num_threads=2, **kwargs)
    theirs = ThreeThirteenVectorEnv(4, compiled=False, **kwargs)
    _same(ours.reset(seed=5), theirs.reset(seed=5), "reset")
    rng = np.random.default_rng(0)
    illegal = 0.03 if name.startswith("illegal") else 0.0
    ended = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for step in range(250):
            if ours.learners.needs_reset.any():  # autoreset_mode="disabled"
                rows = {"reset_mask": ours.learners.needs_reset.copy()}
                _same(ours.reset(options=rows), theirs.reset(options=rows), f"reset {step}")
            actions = random_actions(ours.action_masks(), rng)
            wrong = rng.random(4) < illegal
            actions[wrong] = rng.integers(0, 108, int(wrong.sum()))
            result = ours.step(actions)
            _same(result, theirs.step(actions), f"step {step}")
            assert np.array_equal(ours.action_masks(), theirs.action_masks())
            ended += int(result[2].sum())
    assert ended > 0
