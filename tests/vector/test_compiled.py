"""The compiled batch (vector/_cbatch.c): every table in one call, the AEC env's games."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import RULE_OPTIONS, tiny_model

from tt_env.game.rules import Rules
from tt_env.vector import SelfPlayVectorEnv
from tt_env.vector.native import (
    ACT,
    COUNTING,
    NEXT,
    RANDOM,
    SEED,
    SKIP,
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
    with pytest.raises(ValueError, match="seat must be 0..1, got 2"):
        batch.seed_agent(0, 2, 1)
    with pytest.raises(ValueError, match="order"):
        batch.move_agents(0, (0, 5))


@pytest.mark.parametrize(
    "seed, words",
    [
        (-1, "seed must be a non-negative integer"),
        (1.5, "seed must be an integer or a sequence"),
        (True, "seed must be a non-negative integer"),
        ("7", "seed must hold 3 seeds"),
        ([1, 2], "seed must hold 3 seeds"),
        ([1, -2, 3], "seed must be a non-negative integer"),
        ([1, 2.0, 3], "seed must be a non-negative integer"),
        (2**64, "seed must be below 2\\*\\*64"),
        (2**64 - 2, "the last table's"),
    ],
)
def test_reset_names_a_bad_seed_and_moves_no_table(seed, words):
    batch = CompiledSelfPlay(3, Rules(), num_threads=1)
    batch.reset([4, 5, 2**64 - 1])
    before = _written(batch)
    with pytest.raises(ValueError, match=words):
        batch.reset(seed)
    _assert_same(_written(batch), before, "a refused reset changed the batch")


def _written(batch) -> list:
    """Everything a call writes, and each table's game as the batch reports it."""
    arrays = (batch.observations, batch.masks, batch.rewards, batch.terminations, batch.seats)
    return [a.copy() for a in arrays] + [batch.table(i) for i in range(batch.num_envs)]


def _assert_same(ours: list, theirs: list, where: str) -> None:
    for a, b in zip(ours, theirs):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b), where
        else:
            assert a == b, where


def _first_refusal(batch, modes, actions) -> str | None:
    """The error that advance(modes, actions) must raise, or None: the first table with a mode
    outside 0..3, or (mode ACT, episode not ended) an action that is not legal there."""
    for i, (mode, action) in enumerate(zip(modes, actions)):
        if mode > SEED:
            return rf"table {i}: mode {mode} is not one of 0\.\.3"
        if mode != ACT or batch.terminations[i]:
            continue
        if not (0 <= action < 108 and batch.masks[i, action]):
            return rf"table {i}: action {action} is not legal for seat {batch.seats[i]} now"
    return None


def test_random_and_illegal_arrays_never_crash_the_batch_nor_move_a_table():
    """Fuzz advance(): random modes (and unknown ones), actions (legal, illegal, out of range),
    seeds, and seat agents rewritten between calls (junk too: a value outside 0..3 is the
    caller's). A call with a bad mode or action raises ValueError naming the first such table,
    its seat and the action, and changes nothing: a twin batch that never saw the refused
    calls plays every later call identically, so no table's hidden state (hands, stock, the
    agents' generators) moved either."""
    rng = np.random.default_rng(11)
    rules = Rules(num_players=3, jokers_per_deck=1)
    n = 5
    ours, twin = (CompiledTables(n, rules, episode="round", num_threads=t) for t in (2, 1))
    for batch in (ours, twin):
        batch.seat_agents[:, 1:] = [RANDOM, COUNTING]
        batch.advance(np.full(n, SEED, np.uint8), seeds=np.arange(n, dtype=np.uint64))
    refused = played = 0
    for _ in range(300):
        if rng.random() < 0.05:
            agents = rng.integers(-4, 8, ours.seat_agents.shape).astype(np.int8)
            ours.seat_agents[:] = twin.seat_agents[:] = agents
        modes = rng.choice([SKIP, ACT, ACT, ACT, ACT, NEXT, SEED, 4, 255], n).astype(np.uint8)
        actions = np.where(
            rng.random(n) < 0.9, random_actions(ours.masks, rng), rng.integers(-3, 112, n)
        )
        seeds = rng.integers(0, 2**63, n).astype(np.uint64)
        before = _written(ours)
        refusal = _first_refusal(ours, modes, actions)
        for batch in (ours, twin):
            batch.rewards[:] = 0
        if refusal is not None:
            with pytest.raises(ValueError, match=f"^{refusal}$"):
                ours.advance(modes, actions, seeds)
            before[2][:] = 0  # the rewards, zeroed above
            _assert_same(_written(ours), before, "a refused call changed the batch")
            refused += 1
            continue
        ours.advance(modes, actions, seeds)
        twin.advance(modes, actions, seeds)
        _assert_same(_written(ours), _written(twin), "a refused call moved a table")
        played += 1
    assert refused > 50 and played > 50
    # the built-in seats never wait for the caller where they could decide
    waiting = ~ours.terminations
    kinds = ours.seat_agents[np.flatnonzero(waiting), ours.seats[waiting]]
    assert ((kinds < RANDOM) | (kinds > COUNTING)).all()


def test_random_and_illegal_actions_through_reset_and_step():
    """Fuzz a self-play batch's step() and reset(): an illegal action (or one out of range)
    raises ValueError naming the first such table, its seat and the action, and no table
    moves: a twin that never saw it plays on identically."""
    rng = np.random.default_rng(12)
    rules = Rules(num_players=2, redemption=True, max_turns_per_round=6)
    n = 4
    ours, twin = (CompiledSelfPlay(n, rules, episode="round", num_threads=t) for t in (2, 1))
    refused = 0
    for batch in (ours, twin):
        batch.reset(2**64 - n)  # the largest seeds there are
    for _ in range(300):
        if rng.random() < 0.05:
            seeds = rng.integers(0, 2**64, n, dtype=np.uint64)
            ours.reset(seeds)
            twin.reset(seeds)
        actions = random_actions(ours.masks, rng)
        bad = rng.random(n) < 0.1
        actions[bad] = rng.integers(-5, 115, int(bad.sum()))
        before = _written(ours)
        refusal = _first_refusal(ours, np.full(n, ACT), actions)
        if refusal is not None:
            with pytest.raises(ValueError, match=f"^{refusal}$"):
                ours.step(actions)
            _assert_same(_written(ours), before, "a refused step changed the batch")
            refused += 1
            continue
        ours.step(actions)
        twin.step(actions)
        _assert_same(_written(ours), _written(twin), "a refused step moved a table")
    assert refused > 20


def test_the_per_table_calls_refuse_junk_and_change_nothing():
    """table(), view(), end(), seed_agent() and move_agents() with tables, seats, seeds and
    orders in range and far out of it: each call works or raises a clean error naming the
    argument, and a refused one changes nothing (a twin that never saw it plays on alike)."""
    rng = np.random.default_rng(13)
    rules = Rules(num_players=3)
    n = 3
    ours, twin = (CompiledTables(n, rules, num_threads=1) for _ in range(2))
    for batch in (ours, twin):
        batch.seat_agents[:, 1:] = RANDOM
        batch.advance(np.full(n, SEED, np.uint8), seeds=np.arange(n, dtype=np.uint64))
    junk = [-(2**70), -(2**31), -1, 0, 1, 2, 3, 7, 2**31, 2**70, 1.5, "1", None, True]
    refused = 0
    for _ in range(300):
        call = rng.choice(["table", "view", "end", "seed_agent", "move_agents"])
        table, seat, seed = (junk[i] for i in rng.integers(0, len(junk), 3))
        args = {
            "table": (table,),
            "view": (table, seat),
            "end": (table,),
            "seed_agent": (table, seat, seed),
            "move_agents": (table, [junk[i] for i in rng.integers(0, 9, rng.integers(0, 5))]),
        }[call]
        before = _written(ours)
        try:
            getattr(ours, call)(*args)
        except (TypeError, ValueError, IndexError, OverflowError) as error:
            assert re.search(r"\b(table|seat|seed|order)\b", str(error)), error
            _assert_same(_written(ours), before, f"a refused {call}{args} changed the batch")
            refused += 1
            continue
        getattr(twin, call)(*args)
        actions = random_actions(ours.masks, rng)
        for batch in (ours, twin):
            batch.advance(np.full(n, ACT, np.uint8), actions)
        _assert_same(_written(ours), _written(twin), f"after {call}{args}")
    assert refused > 100


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
