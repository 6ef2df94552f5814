"""The compiled feature transform's binding (tt_env.learned._cfeatures) against bad and hostile
input: every call answers or raises a clean TypeError/ValueError, and a real observation still
gets exactly the numpy definition's numbers afterwards."""

import numpy as np
import pytest
from helpers import positions

from tt_env.encoding.observation import piece_starts
from tt_env.game.melds import kernel_of, solver_config
from tt_env.game.rules import Rules
from tt_env.learned.features import CardFeatures
from tt_env.valuation.values import deck_counts

_cfeatures = pytest.importorskip("tt_env.learned._cfeatures", reason="kernels not built")

BAD = (TypeError, ValueError)  # the binding names the argument either way
RULES = Rules(num_players=3, num_decks=2, jokers_per_deck=1, unused_wild_penalty=1000)


@pytest.fixture(scope="module")
def compiled():
    features = CardFeatures(RULES)
    transform = features._build_compiled()
    assert transform is not None
    return features, transform


def test_hostile_observations_get_an_answer_or_the_definition(compiled):
    features, transform = compiled
    rng = np.random.default_rng(0)
    real = [obs for obs, _ in positions(RULES, 60, seed=1)]
    hostile = (np.nan, np.inf, -np.inf, -1.0, 0.5, 2.5, 255.0, 256.0, 1e30, -1e30)
    out = np.empty(transform.size, np.float32)
    for i in range(3000):
        obs = real[i % len(real)].copy()
        where = rng.integers(0, obs.size, int(rng.integers(1, 20)))
        obs[where] = rng.choice(hostile, where.size)
        if i % 5 == 0:
            obs = rng.uniform(-5, 300, obs.size).astype(np.float32)
        assert transform.fill(obs, out) in (True, False)
    for obs in real:  # still exact
        assert transform.fill(obs, out)
        assert np.array_equal(out, features.reference(obs))


def test_bad_calls_raise_clean_errors(compiled):
    features, transform = compiled
    obs = positions(RULES, 1, seed=2)[0][0]
    out = np.empty(transform.size, np.float32)
    frozen = out.copy()
    frozen.flags.writeable = False
    both = np.zeros(obs.size + transform.size, np.float32)
    for args, error in [
        ((obs,), BAD),
        ((obs, out, out), BAD),
        ((obs.astype(np.float64), out), BAD),
        ((obs[:-1], out), BAD),
        ((np.zeros(2 * obs.size, np.float32)[::2], out), BAD),
        ((obs, out[:-1]), BAD),
        ((obs, out.astype(np.float64)), BAD),
        ((obs, frozen), BAD),
        ((obs.tolist(), out), BAD),
        ((both[: obs.size], both[obs.size - 1 : obs.size - 1 + transform.size]), BAD),
    ]:
        with pytest.raises(error):
            transform.fill(*args)
    assert transform.fill(obs, out) and np.array_equal(out, features.reference(obs))


def test_the_transform_is_built_from_checked_arguments(compiled):
    features, _ = compiled
    kernels = [kernel_of(solver_config(RULES, w, None)).c for w in range(1, 14)]
    starts, size = piece_starts(features.num_players, _cfeatures.PIECES)

    def build(**changes):
        args = dict(
            kernels=kernels,
            starts=starts,
            observation_size=size,
            seats=features.num_players,
            deck=deck_counts(RULES),
            rank=features._rank,
            same=features._same,
            near1=features._near1,
            near2=features._near2,
            max_cards=RULES.max_cards,
            discard_drawn_upcard=False,
            lookahead=True,
            candidates=3,
            margin=12,
        )
        args.update(changes)
        return _cfeatures.Features(
            args.pop("kernels"), args.pop("starts"), args.pop("observation_size"), **args
        )

    assert build().size == features.size
    bad_same = features._same.copy()
    bad_same[0, 0] = 10_000
    for changes, error in [
        ({"kernels": kernels[:12]}, BAD),
        ({"kernels": kernels[::-1]}, BAD),
        ({"kernels": [None] * 13}, BAD),
        ({"starts": {}}, BAD),
        ({"starts": 5}, BAD),
        ({"starts": (-1, *starts[1:])}, BAD),
        ({"starts": (*starts[:-1], size)}, BAD),
        ({"observation_size": 10}, BAD),
        ({"seats": 0}, BAD),
        ({"seats": 99}, BAD),
        ({"max_cards": 0}, BAD),
        ({"deck": -deck_counts(RULES)}, BAD),
        ({"deck": deck_counts(RULES).astype(np.float64)}, BAD),
        ({"same": bad_same}, BAD),
        ({"rank": features._rank[:10]}, BAD),
    ]:
        with pytest.raises(error):
            build(**changes)
