"""What a seat knows, decoded once: the compiled decoder (knowledge.h, through
tt_env.valuation._crule.Observer, which Valuation.see calls) gives Valuation.see_reference's numpy
numbers on observations of every rule option, played and random, and refuses what is not a
count, so that numpy answers there."""

import numpy as np
import pytest
from helpers import positions

from tt_env.encoding.observation import observation_layout, piece_starts
from tt_env.game.cards import NUM_KINDS
from tt_env.game.rules import Rules
from tt_env.valuation.values import Valuation, deck_counts

_crule = pytest.importorskip("tt_env.valuation._crule", reason="the compiled kernels are not built")

RULE_SETS = [
    Rules(num_players=n, num_decks=d, jokers_per_deck=j, discard_drawn_upcard=u)
    for n, d, j, u in [
        (2, 1, 0, False),
        (2, 2, 2, True),
        (3, 1, 2, False),
        (4, 2, 0, True),
        (5, 2, 1, False),
        (6, 3, 2, False),
        (7, 3, 0, True),
        (8, 3, 2, False),
    ]
]
IDS = [f"{r.num_players}p{r.decks}d{r.jokers_per_deck}j" for r in RULE_SETS]
FIELDS = (
    "hand",
    "top_discard",
    "drawn_upcard",
    "wild_rank",
    "draw_phase",
    "discard_phase",
    "final_turn",
    "discard_below",
    "on_table",
    "known",
    "stock_size",
    "turns_left",
    "unseen",
)


def _same(a, b):
    for name in FIELDS:
        x, y = getattr(a, name), getattr(b, name)
        if isinstance(x, np.ndarray):
            assert x.dtype == y.dtype == np.int64 and np.array_equal(x, y), name
        else:
            assert type(x) is type(y) and x == y, name


def _observer(rules):
    starts, size = piece_starts(rules.num_players, _crule.PIECES)
    return _crule.Observer(
        starts, size, num_players=rules.num_players, deck=deck_counts(rules).tolist()
    )


def _random_observation(rules, rng):
    """An observation of any values a game could write, and some it could not: counts 0..4
    (some off by less than a half), one-hots with none, one or several set, phases either."""
    layout = observation_layout(rules.num_players)
    obs = rng.random(layout.size).astype(np.float32)
    for name in ("hand", "discard_below", "table", "known"):
        part = layout.slices[name]
        counts = rng.integers(0, 5, part.stop - part.start).astype(np.float32)
        counts += rng.choice([0.0, 0.0, 0.0, 0.3, -0.3, 0.5], counts.size).astype(np.float32)
        obs[part] = np.maximum(counts, 0)
    for name in ("top_discard", "drawn_upcard", "wild_rank"):
        part = layout.slices[name]
        obs[part] = 0
        for _ in range(rng.integers(0, 3)):
            obs[part.start + rng.integers(part.stop - part.start)] = rng.choice([1.0, 0.4])
    return obs


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_the_compiled_decoder_equals_numpy_on_played_observations(rules):
    v = Valuation(rules)
    observer = _observer(rules)
    out = np.empty(observer.size, np.int64)
    for obs, _ in positions(rules, 150, seed=rules.num_players):
        assert observer.see(obs, out)  # every observation of a game is read
        _same(v.see(obs), v.see_reference(obs))


@pytest.mark.parametrize("rules", RULE_SETS, ids=IDS)
def test_the_compiled_decoder_equals_numpy_on_random_observations(rules):
    v = Valuation(rules)
    observer = _observer(rules)
    out = np.empty(observer.size, np.int64)
    rng = np.random.default_rng(rules.num_players)
    for _ in range(300):
        obs = _random_observation(rules, rng)
        assert observer.see(obs, out)
        _same(v.see(obs), v.see_reference(obs))


@pytest.mark.parametrize("bad", [-1.0, 255.6, 1e30, np.inf, np.nan])
@pytest.mark.parametrize("piece", ["hand", "discard_below", "table", "known"])
def test_what_is_not_a_count_is_left_to_numpy(piece, bad):
    rules = Rules(num_players=3)
    v = Valuation(rules)
    observer = _observer(rules)
    obs, _ = positions(rules, 1, seed=0)[0]
    obs = obs.copy()
    row = 2 if piece == "known" else 0  # a seat after the next one
    obs[observation_layout(3).slices[piece].start + row * NUM_KINDS + 7] = bad
    assert not observer.see(obs, np.empty(observer.size, np.int64))
    with np.errstate(invalid="ignore"):  # numpy decodes it, as it did before
        _same(v.see(obs), v.see_reference(obs))


def test_the_observer_is_built_from_checked_arguments():
    starts, size = piece_starts(2, _crule.PIECES)
    good = dict(num_players=2, deck=[1] * 53)
    assert _crule.Observer(starts, size, **good).size == 53 * 6 + 6
    for args, kwargs, error, named in [
        ((list(starts), size), good, TypeError, "starts"),
        ((starts[:-1], size), good, TypeError, "18"),
        ((starts, 0), good, ValueError, "observation_size"),
        ((starts, size - 1), good, ValueError, "'dealer'"),
        ((starts, size), dict(good, num_players=9), ValueError, "num_players"),
        ((starts, size), dict(good, deck=[1] * 52), ValueError, "deck"),
        ((starts, size), dict(good, deck=[256] * 53), ValueError, "deck"),
    ]:
        with pytest.raises(error, match=named):
            _crule.Observer(*args, **kwargs)
    observer = _crule.Observer(starts, size, **good)
    obs = np.zeros(size, np.float32)
    for args in [
        (obs[:-1], np.empty(observer.size, np.int64)),
        (obs.astype(np.float64), np.empty(observer.size, np.int64)),
        (obs, np.empty(observer.size, np.int32)),
        (obs, np.empty(observer.size - 1, np.int64)),
        (obs, np.empty(observer.size, np.int64)[::-1]),
    ]:
        with pytest.raises((TypeError, ValueError)):
            observer.see(*args)


@pytest.mark.parametrize("n", [2, 5, 8])
def test_the_compiled_layout_has_the_widths_of_the_piece_table(n):
    """Each piece fits at the end of the vector with exactly its table's width: the C side's
    widths (game/core/layout.h) are the Piece table's."""
    from tt_env.encoding.observation import OBSERVATION_PIECES

    starts, size = piece_starts(n, _crule.PIECES)
    width = {p.name: p.size(n) for p in OBSERVATION_PIECES}
    assert set(_crule.PIECES) == set(width)
    deck = dict(num_players=n, deck=[1] * 53)
    for i, name in enumerate(_crule.PIECES):
        at_end = (*starts[:i], size - width[name], *starts[i + 1 :])
        _crule.Observer(at_end, size, **deck)
        past_end = (*starts[:i], size - width[name] + 1, *starts[i + 1 :])
        with pytest.raises(ValueError, match=f"'{name}'"):
            _crule.Observer(past_end, size, **deck)
