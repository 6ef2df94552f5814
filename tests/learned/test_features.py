"""CardFeatures: the compiled transform gives exactly the numbers of its numpy definition, on
the observations of games and on any other observation (or leaves it to the definition), and
the solver values in it are the valuation layer's."""

import numpy as np
import pytest
from helpers import positions

from tt_env.game.rules import Rules
from tt_env.learned.features import (
    CARD_FEATURES,
    CARD_WIDTH,
    GLOBAL_FEATURES,
    SEAT_FEATURES,
    CardFeatures,
)
from tt_env.valuation.values import valuation_for

try:
    from tt_env.learned import _cfeatures
except ImportError:
    _cfeatures = None
built = pytest.mark.skipif(_cfeatures is None, reason="the compiled kernels are not built")


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(num_players=4),
        Rules(num_players=3, jokers_per_deck=2, aces_high=True),
        Rules(court_values=True, discard_drawn_upcard=True, unused_wild_penalty=15),
        # wild cards costlier than 100 points: the lookahead's candidates are still ranked by
        # (penalty after the discard, the card's penalty, its kind), field by field
        Rules(unused_wild_penalty=1000, jokers_per_deck=2),
    ],
    ids=["2p", "4p-two-decks", "3p-jokers-aces-high", "court-values-ddu", "wild-penalty-1000"],
)
def test_compiled_features_equal_the_numpy_definition(rules):
    features = CardFeatures(rules)
    for obs, _ in positions(rules, 250, seed=3):
        got = features(obs)
        assert features._compiled not in (False, None)
        np.testing.assert_array_equal(got, features.reference(obs))


@built
def test_the_compiled_transform_writes_the_layouts_columns():
    # CardFeatures checks this before it uses the module: one built from older sources fails
    # loudly instead of writing values under the wrong names.
    assert _cfeatures.CARD_FEATURES == CARD_FEATURES
    assert _cfeatures.GLOBAL_FEATURES == GLOBAL_FEATURES
    assert _cfeatures.SEAT_FEATURES == SEAT_FEATURES


HOSTILE = np.array(
    [np.nan, np.inf, -np.inf, -1e30, 1e30, 3e9, -1.0, -0.6, -0.4, 0.5, 1.5, 2.5, 255.4, 255.6],
    np.float32,
)


@built
@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the definition's casts of NaN and inf
def test_any_observation_gets_the_definitions_answer_or_its_error():
    """NaN, infinities, huge, negative and fractional values anywhere: whenever the numpy
    definition answers, the transform gives exactly its numbers (the compiled code leaves
    counts that are not whole numbers of copies 0..255 to it). Where the definition raises (an
    infinite stock size is not a whole number of cards), the transform raises the same error,
    or answers from values the compiled code reads without converting them."""
    rules = Rules(num_players=3, jokers_per_deck=1, aces_high=True)
    features = CardFeatures(rules)
    real = [obs for obs, _ in positions(rules, 40, seed=5)]
    rng = np.random.default_rng(1)
    pieces = list(features.layout.slices.values())
    compiled = answered = 0
    for i in range(600):
        obs = real[i % len(real)].copy()
        if i % 3 == 0:  # one whole piece
            piece = pieces[rng.integers(len(pieces))]
            obs[piece] = rng.choice(HOSTILE, piece.stop - piece.start)
        else:
            where = rng.integers(0, obs.size, int(rng.integers(1, 12)))
            obs[where] = rng.choice(HOSTILE, where.size)
        try:
            expected = features.reference(obs)
        except Exception as exc:  # noqa: BLE001 - whichever the definition raises
            try:
                assert features(obs).shape == (features.size,)
            except type(exc):
                pass
            continue
        np.testing.assert_array_equal(features(obs), expected)
        answered += 1
        compiled += features._compiled.fill(obs, np.empty(features.size, np.float32))
    assert answered > 300 and compiled > 100  # both paths were taken


@built
def test_counts_that_are_not_whole_copies_0_to_255_are_left_to_the_definition():
    rules = Rules()
    features = CardFeatures(rules)
    transform = features._build_compiled()
    obs = positions(rules, 1, seed=2)[0][0]
    at = features.layout.slices["discard_below"].start
    out = np.empty(features.size, np.float32)
    for value, answers in [
        (-0.4, True),  # rounds to 0
        (255.4, True),  # rounds to 255
        (-0.6, False),
        (255.6, False),
        (np.nan, False),
        (np.inf, False),
        (-1e30, False),
    ]:
        bad = obs.copy()
        bad[at] = value
        assert transform.fill(bad, out) == answers, value
        if answers:
            np.testing.assert_array_equal(out, features.reference(bad))


def test_observations_of_any_float_type_and_layout_give_the_same_features():
    rules = Rules(num_players=4)
    features = CardFeatures(rules)
    for obs, _ in positions(rules, 20, seed=4):
        want = features(obs)
        np.testing.assert_array_equal(features(obs.astype(np.float64)), want)
        np.testing.assert_array_equal(features(np.repeat(obs, 2)[::2]), want)  # strided
        np.testing.assert_array_equal(features(obs.tolist()), want)


def test_capped_rules_use_the_compiled_transform_too():
    # A cap on wilds per meld is served by the solver's kernel (solver/capped.h): the compiled
    # transform answers, as the numpy one does.
    rules = Rules.preset("one-wild")
    features = CardFeatures(rules)
    for obs, _ in positions(rules, 30, seed=1):
        np.testing.assert_array_equal(features(obs), features.reference(obs))
    assert features._compiled is not None


def test_feature_values_are_the_valuation_layers():
    rules = Rules()
    features = CardFeatures(rules)
    v = valuation_for(rules)
    col = {name: i for i, name in enumerate(CARD_FEATURES)}
    glob = {name: i for i, name in enumerate(GLOBAL_FEATURES)}
    checked = 0
    for obs, _ in positions(rules, 120, seed=7):
        x = features(obs)
        table = x[: 53 * CARD_WIDTH].reshape(53, CARD_WIDTH)
        g = x[53 * CARD_WIDTH :]
        seen = v.see(obs)
        now = v.hand_value(seen.hand, seen.wild_rank)
        assert g[glob["penalty"]] == np.float32(now / 25.0)
        if seen.discard_phase:
            after = v.discard_values(seen.hand, seen.wild_rank)
            for k in np.flatnonzero(after >= 0):
                assert table[k, col["after_discard"]] == np.float32(after[k] / 25.0)
        else:
            stock = v.expected_after_draw(seen.hand, seen.unseen, seen.wild_rank)
            assert g[glob["stock_gain"]] == pytest.approx((now - stock) / 10.0, abs=1e-6)
            checked += 1
    assert checked > 20
