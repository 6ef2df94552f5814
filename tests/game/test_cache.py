"""The solver's one cache policy: bounded caches under one memory budget
(tt_env.game.melds._cache)."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest

from tt_env import Rules
from tt_env.game.cards import ALL_CARDS, to_counts
from tt_env.game.melds import _cache, min_penalty, solve


@pytest.fixture
def budget():
    """Restore the budget and the call counter after a test."""
    saved = dict(_cache._STATE)
    yield
    _cache._STATE.update(saved)


def _random_hands(n: int, seed: int, cards: int = 10) -> list[tuple[int, ...]]:
    rng = random.Random(seed)
    return [
        tuple(to_counts([ALL_CARDS[c] for c in rng.sample(range(52), cards)])) for _ in range(n)
    ]


def test_a_full_cache_empties_itself_before_an_insertion():
    cache = _cache.BoundedCache(3, 10, "test")
    for k in range(3):
        cache[k] = k
    cache[3] = 3
    assert dict(cache) == {3: 3}
    assert cache.setdefault(4, 4) == 4 and len(cache) == 2


def test_estimates_add_up_entries_times_cost_by_name():
    _cache.clear_all()
    cache = _cache.BoundedCache(100, 1_000, "a test table")
    for k in range(7):
        cache[k] = k
    assert _cache.report()["a test table"] == (7, 7_000)
    assert _cache.estimated_bytes() >= 7_000
    del cache


def test_the_budget_empties_every_cache_when_exceeded(budget):
    _cache.clear_all()
    for hand in _random_hands(50, 1):
        min_penalty(hand, 4, Rules.preset("one-wild"))  # the Python solver fills its caches
    assert _cache.total_entries() > 0
    trims = _cache._STATE["trims"]
    _cache.set_budget(0)
    for _ in range(_cache.CHECK_EVERY):
        _cache.tick()
    assert _cache._STATE["trims"] == trims + 1
    assert _cache.total_entries() == 0


def test_a_generous_budget_keeps_the_caches(budget):
    _cache.clear_all()
    for hand in _random_hands(50, 2):
        min_penalty(hand, 4, Rules.preset("one-wild"))
    entries = _cache.total_entries()
    _cache.set_budget(10_000)
    for _ in range(_cache.CHECK_EVERY):
        _cache.tick()
    assert _cache.total_entries() == entries


def test_results_do_not_depend_on_the_budget(budget):
    rules = Rules.preset("one-wild")
    hands = _random_hands(300, 3, cards=12)
    free = [min_penalty(h, 7, rules) for h in hands]
    arranged = [
        solve([ALL_CARDS[k] for k in range(53) for _ in range(h[k])], 7, rules) for h in hands
    ]
    _cache.clear_all()
    _cache.set_budget(0)  # emptied at every check: computed again and again
    for _ in range(4):
        assert [min_penalty(h, 7, rules) for h in hands] == free
    again = [solve([ALL_CARDS[k] for k in range(53) for _ in range(h[k])], 7, rules) for h in hands]
    assert [a.points for a in again] == [a.points for a in arranged]
    assert [sorted(map(int, a.deadwood)) for a in again] == [
        sorted(map(int, a.deadwood)) for a in arranged
    ]


@pytest.mark.parametrize("bad", [-1, "64", None, True, float("nan"), float("inf")])
def test_a_bad_budget_is_refused(budget, bad):
    with pytest.raises(ValueError, match="cache budget"):
        _cache.set_budget(bad)


def test_the_budget_is_read_from_the_environment():
    code = "from tt_env.game.melds import _cache; print(_cache.budget())"
    env = dict(os.environ, TT_ENV_CACHE_MB="3")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) == 3 << 20
    env["TT_ENV_CACHE_MB"] = "lots"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "TT_ENV_CACHE_MB must be a number of megabytes" in out.stderr
