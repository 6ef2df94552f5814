"""CardFeatures: the compiled transform gives exactly the numbers of its numpy definition, and
the solver values in it are the valuation layer's."""

import numpy as np
import pytest
from helpers import positions

from tt_env.game.rules import Rules
from tt_env.learned.features import CARD_FEATURES, CARD_WIDTH, GLOBAL_FEATURES, CardFeatures
from tt_env.valuation.values import valuation_for


@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(num_players=4),
        Rules(num_players=3, jokers_per_deck=2, aces_high=True),
        Rules(court_values=True, discard_drawn_upcard=True, unused_wild_penalty=15),
    ],
    ids=["2p", "4p-two-decks", "3p-jokers-aces-high", "court-values-ddu"],
)
def test_compiled_features_equal_the_numpy_definition(rules):
    features = CardFeatures(rules)
    for obs, _ in positions(rules, 250, seed=3):
        got = features(obs)
        assert features._compiled not in (False, None)
        np.testing.assert_array_equal(got, features.reference(obs))


def test_capped_rules_use_the_numpy_transform():
    rules = Rules.preset("one-wild")
    features = CardFeatures(rules)
    for obs, _ in positions(rules, 30, seed=1):
        np.testing.assert_array_equal(features(obs), features.reference(obs))
    assert features._compiled is None


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
