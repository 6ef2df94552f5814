"""CardFeatures.batch: a whole batch in one compiled call (Features.fill_many), on one thread or
several, gives each row exactly what the transform gives that row alone and what the numpy
definition gives; rows the compiled code leaves are the definition's; bad arrays raise clean
errors naming the problem."""

import pickle
import threading

import numpy as np
import pytest
from helpers import positions

from tt_env.game.melds import kernel_of, private_kernels, solver_config
from tt_env.game.rules import Rules
from tt_env.learned import features as features_module
from tt_env.learned.features import ROWS_PER_THREAD, CardFeatures

_cfeatures = pytest.importorskip("tt_env.learned._cfeatures", reason="kernels not built")

RULES = {
    "2p": Rules(),
    "4p-two-decks": Rules(num_players=4),
    "3p-jokers-aces-high": Rules(num_players=3, jokers_per_deck=2, aces_high=True),
    "court-values-ddu": Rules(court_values=True, discard_drawn_upcard=True, unused_wild_penalty=15),
    "wild-penalty-1000": Rules(unused_wild_penalty=1000, jokers_per_deck=2),
    "one-wild": Rules.preset("one-wild"),
}


def observations(rules, count, seed):
    return np.stack([obs for obs, _ in positions(rules, count, seed=seed)])


def spoil(obs, features, rows):
    """``obs`` with a negative count of copies in each of ``rows``: the compiled code leaves
    such a row to the definition (which answers it)."""
    bad = obs.copy()
    at = features.layout.slices["discard_below"].start
    bad[rows, at] = -1.0
    return bad


@pytest.mark.parametrize("rules", RULES.values(), ids=RULES.keys())
def test_a_batch_is_each_row_alone_and_the_definition(rules):
    obs = observations(rules, 160, seed=11)
    bad = np.arange(3, len(obs), 17)
    obs = spoil(obs, CardFeatures(rules), bad)
    compiled = CardFeatures(rules)._build_compiled()
    served = np.empty(len(obs), bool)
    compiled.fill_many(obs, np.empty((len(obs), compiled.size), np.float32), served)
    assert set(bad) <= set(np.flatnonzero(~served))  # these rows fall back
    rows = [CardFeatures(rules)(row) for row in obs]
    want = np.stack(rows)
    np.testing.assert_array_equal(want, np.stack([CardFeatures(rules).reference(o) for o in obs]))
    for threads in (1, 2, 3):
        features = CardFeatures(rules, num_threads=threads)
        got = features.batch(obs)
        assert got.dtype == np.float32 and got.shape == (len(obs), features.size)
        np.testing.assert_array_equal(got, want)
        assert features._compiled.threads == threads  # the compiled path ran, on those threads


def test_the_rows_left_to_the_definition_are_named_and_only_those():
    rules = RULES["4p-two-decks"]
    features = CardFeatures(rules, num_threads=2)
    obs = observations(rules, 64, seed=5)
    bad_rows = [0, 9, 10, 63]
    obs = spoil(obs, features, bad_rows)
    features.batch(obs[:1])  # builds the compiled transform and its threads
    compiled = features._compiled
    out = np.zeros((len(obs), features.size), np.float32)
    served = np.ones(len(obs), bool)
    assert compiled.fill_many(obs, out, served) == len(bad_rows)
    assert list(np.flatnonzero(~served)) == bad_rows
    for i in np.flatnonzero(served):
        np.testing.assert_array_equal(out[i], features.reference(obs[i]))
    np.testing.assert_array_equal(
        features.batch(obs), np.stack([features.reference(o) for o in obs])
    )


def test_every_thread_count_gives_the_same_rows():
    rules = RULES["3p-jokers-aces-high"]
    features = CardFeatures(rules, num_threads=8)
    obs = observations(rules, 200, seed=2)
    want = features.batch(obs)
    compiled = features._compiled
    assert compiled.threads == 8
    for threads in range(1, 9):
        out = np.empty_like(want)
        served = np.empty(len(obs), np.uint8)
        assert compiled.fill_many(obs, out, served, threads=threads) == 0
        assert served.all()
        np.testing.assert_array_equal(out, want)


def test_small_batches_stay_on_one_thread_and_empty_ones_work():
    rules = Rules()
    features = CardFeatures(rules, num_threads=4)
    obs = observations(rules, ROWS_PER_THREAD, seed=1)
    np.testing.assert_array_equal(features.batch(obs), np.stack([features(o) for o in obs]))
    assert features._compiled.threads == 1
    empty = features.batch(np.zeros((0, obs.shape[1]), np.float32))
    assert empty.shape == (0, features.size)


def test_without_the_compiled_transform_the_definition_answers_every_row(monkeypatch):
    # as on a machine without a C compiler
    monkeypatch.setattr(features_module, "_cfeatures", None)
    rules = RULES["court-values-ddu"]
    features = CardFeatures(rules)
    obs = observations(rules, 12, seed=4)
    got = features.batch(obs)
    assert features._compiled is None
    np.testing.assert_array_equal(got, np.stack([features.reference(o) for o in obs]))


def test_batches_from_several_python_threads_at_once_are_exact():
    # One caller fills on the transform's threads; a caller that comes meanwhile answers on its
    # own thread with the kernels of single rows, the GIL held: both exact.
    rules = RULES["2p"]
    features = CardFeatures(rules, num_threads=2)
    obs = observations(rules, 96, seed=8)
    want = np.stack([features(o) for o in obs])
    wrong = []

    def work():
        try:
            for _ in range(15):
                if not np.array_equal(features.batch(obs), want):
                    wrong.append("rows differ")
        except Exception as exc:  # noqa: BLE001 - reported by the test, not lost in the thread
            wrong.append(repr(exc))

    callers = [threading.Thread(target=work) for _ in range(3)]
    for t in callers:
        t.start()
    for t in callers:
        t.join()
    assert not wrong


def _batch_in_child(features, obs, queue):
    queue.put(features.batch(obs))


def test_a_forked_child_batches_on_its_own():
    """A forked process has none of the transform's threads: it fills every row itself."""
    import multiprocessing

    rules = RULES["2p"]
    features = CardFeatures(rules, num_threads=2)
    obs = observations(rules, 48, seed=9)
    want = features.batch(obs)  # the threads exist, in this process
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_batch_in_child, args=(features, obs, queue))
    child.start()
    got = queue.get(timeout=60)
    child.join(timeout=60)
    assert child.exitcode == 0
    np.testing.assert_array_equal(got, want)


def test_a_pickled_transform_batches_again():
    rules = RULES["2p"]
    features = CardFeatures(rules, num_threads=2)
    obs = observations(rules, 40, seed=3)
    want = features.batch(obs)
    copy = pickle.loads(pickle.dumps(features))
    assert copy._compiled is False and copy._kernel_sets == []
    np.testing.assert_array_equal(copy.batch(obs), want)


def test_num_threads_is_checked_and_not_part_of_the_spec():
    rules = Rules()
    for bad in (0, 65, -1, 1.5, "2", True):
        with pytest.raises(ValueError, match="num_threads"):
            CardFeatures(rules, num_threads=bad)
    assert CardFeatures(rules, num_threads=3).spec() == CardFeatures(rules).spec()
    assert CardFeatures(rules).num_threads >= 1


# ------------------------------------------------------------------ bad arrays


@pytest.fixture(scope="module")
def made():
    rules = RULES["2p"]
    features = CardFeatures(rules, num_threads=2)
    obs = observations(rules, 16, seed=6)
    features.batch(obs)
    return features, obs


def test_batch_refuses_an_out_it_cannot_write_in_place(made):
    features, obs = made
    m, size = len(obs), features.size
    frozen = np.zeros((m, size), np.float32)
    frozen.flags.writeable = False
    for out, words in [
        (np.zeros((m, size), np.float64), "float32 array of shape"),
        (np.zeros((m, size + 1), np.float32), "float32 array of shape"),
        (np.zeros((m + 1, size), np.float32), "float32 array of shape"),
        (np.zeros((m, size), np.float32).tolist(), "float32 array of shape"),
        (np.zeros((size, m), np.float32).T, "C-contiguous"),
        (np.zeros((m, 2 * size), np.float32)[:, ::2], "C-contiguous"),
        (frozen, "read-only"),
    ]:
        with pytest.raises(ValueError, match=words):
            features.batch(obs, out)
    with pytest.raises(ValueError, match="shape"):
        features.batch(obs[:, :-1])
    with pytest.raises(ValueError, match="shape"):
        features.batch(obs[0])
    # observations of any float type or layout are converted, as a single row's are
    want = features.batch(obs)
    np.testing.assert_array_equal(features.batch(obs.astype(np.float64)), want)
    np.testing.assert_array_equal(features.batch(np.repeat(obs, 2, axis=1)[:, ::2]), want)


def test_fill_many_checks_every_array_before_it_reads_one(made):
    features, obs = made
    compiled = features._compiled
    m, size = len(obs), features.size
    out = np.zeros((m, size), np.float32)
    served = np.zeros(m, bool)
    frozen = out.copy()
    frozen.flags.writeable = False
    frozen_served = served.copy()
    frozen_served.flags.writeable = False
    both = np.zeros(m * (obs.shape[1] + size), np.float32)
    shared_obs = both[: m * obs.shape[1]].reshape(m, -1)
    shared_out = both[m : m + m * size].reshape(m, size)
    shared_obs[:] = obs
    for args, kwargs, error, words in [
        ((obs.astype(np.float64), out, served), {}, TypeError, "observations"),
        ((obs[:, :-1], out, served), {}, ValueError, "observations"),
        ((obs[0], out, served), {}, ValueError, "observations"),
        ((np.repeat(obs, 2, axis=0)[::2], out, served), {}, ValueError, "observations"),
        ((obs.tolist(), out, served), {}, TypeError, "observations"),
        ((obs, out[:-1], served), {}, ValueError, "out"),
        ((obs, out.astype(np.float64), served), {}, TypeError, "out"),
        ((obs, frozen, served), {}, TypeError, "out"),
        ((obs, np.zeros((m, 2 * size), np.float32)[:, ::2], served), {}, ValueError, "out"),
        ((obs, out, served[:-1]), {}, ValueError, "served"),
        ((obs, out, served.astype(np.float32)), {}, TypeError, "served"),
        ((obs, out, served.astype(np.int64)), {}, TypeError, "served"),
        ((obs, out, frozen_served), {}, TypeError, "served"),
        ((shared_obs, shared_out, served), {}, ValueError, "overlap"),
        ((obs, out, out.view(np.uint8)[0, :m]), {}, ValueError, "overlap"),
        ((obs, out), {}, TypeError, None),
        ((obs, out, served), {"threads": 0}, ValueError, "threads"),
        ((obs, out, served), {"threads": 65}, ValueError, "threads"),
        ((obs, out, served), {"threads": 1.0}, ValueError, "threads"),
        ((obs, out, served), {"threads": True}, ValueError, "threads"),
    ]:
        with pytest.raises(error, match=words):
            compiled.fill_many(*args, **kwargs)
    assert compiled.fill_many(obs, out, served) == 0
    np.testing.assert_array_equal(out, np.stack([features.reference(o) for o in obs]))


def test_threads_must_have_kernels_of_their_own(made):
    features, obs = made
    rules = features.rules
    compiled = features._build_compiled()  # a fresh one: fill_many answers without threads
    out = np.zeros((len(obs), features.size), np.float32)
    served = np.zeros(len(obs), bool)
    assert compiled.threads == 0
    assert compiled.fill_many(obs, out, served) == 0  # on the caller, with fill()'s kernels
    np.testing.assert_array_equal(out, features.batch(obs))

    configs = [solver_config(rules, w, None) for w in range(1, 14)]
    own = [[k.c for k in private_kernels(configs)] for _ in range(2)]
    shared = [kernel_of(c).c for c in configs]  # the kernels fill() solves on
    for sets, error, words in [
        ([], ValueError, "1..64 sets"),
        ([own[0]] * 65, ValueError, "1..64 sets"),
        (5, TypeError, "kernel_sets"),
        ([own[0][:12]], ValueError, "13 solver Kernels"),
        ([own[0][::-1]], ValueError, "wild rank"),
        ([[None] * 13], TypeError, "solver Kernel"),
        ([own[0], own[0]], ValueError, "another set"),
        ([own[0], own[1][:5] + own[0][5:6] + own[1][6:]], ValueError, "another set"),
        ([shared], ValueError, "the kernels of fill"),
    ]:
        with pytest.raises(error, match=words):
            compiled.use_threads(sets)
        assert compiled.threads == 0  # a refused call changes nothing
    compiled.use_threads(own)
    assert compiled.threads == 2
    out[:] = 0
    assert compiled.fill_many(obs, out, served) == 0
    np.testing.assert_array_equal(out, features.batch(obs))
