"""The compiled code's random generator (tt_env/util/rng.h) against numpy's: the same seeds give
the same numbers, bit for bit. The compiled search deals from it, and a compiled engine must deal
exactly as the Python engine does (tt_env.game.cards.shuffled_deck on
np.random.default_rng((seed, round, 0))) so that existing game records still replay.

The generator is reached through tt_env.agents._csearch.random_draws(entropy, ops): seeded as
np.random.default_rng(entropy), then each op in turn on that one generator."""

from __future__ import annotations

import numpy as np
import pytest

from tt_env.game.cards import make_deck, shuffled_deck

_csearch = pytest.importorskip(
    "tt_env.agents._csearch", reason="the compiled kernels are not built"
)
random_draws = _csearch.random_draws

EDGES = [0, 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1]
# one integer, tuples of every length the generator takes (entropy of 1 to 16 32-bit words: the
# pool of 4 and the words mixed in after it), the engine's (seed, round, stream) triples
SEEDS = (
    EDGES
    + [(e,) for e in EDGES]
    + [(0, 0, 0), (2024, 3, 0), (2**32, 12, 1), (2**40, 2**33, 2**64 - 1), tuple(range(8))]
    + [tuple(EDGES)]
    + [int(x) for x in np.random.default_rng(1).integers(2**63, size=40, dtype=np.uint64)]
    + [tuple(int(x) for x in np.random.default_rng(n).integers(2**34, size=n)) for n in range(9)]
)


def seed_id(seed) -> str:
    return repr(seed)[:40]


def numpy_draws(entropy, ops) -> list:
    """What random_draws(entropy, ops) must return, drawn by numpy."""
    g = np.random.default_rng(entropy)
    bits = g.bit_generator
    out = []
    for kind, n in ops:
        if kind == "raw":
            out.append([int(x) for x in bits.random_raw(n)])
        elif kind == "next32":
            out.append([bits.ctypes.next_uint32(bits.ctypes.state) for _ in range(n)])
        elif kind == "integers":
            out.append(int(g.integers(n)))
        else:
            out.append(g.permutation(n).tolist())
    return out


@pytest.mark.parametrize("seed", SEEDS, ids=seed_id)
def test_the_raw_stream_is_numpys(seed):
    ops = [("raw", 1000)]
    assert random_draws(seed, ops) == numpy_draws(seed, ops)


@pytest.mark.parametrize("seed", SEEDS, ids=seed_id)
def test_permutations_are_numpys(seed):
    # every deck size (52 to 12 decks of 56) and the odd sizes around the masks' edges
    sizes = [0, 1, 2, 3, 52, 53, 54, 56, 64, 65, 104, 128, 129, 168, 255, 256, 257, 512, 672, 700]
    for n in sizes:
        ops = [("permutation", n)]
        assert random_draws(seed, ops) == numpy_draws(seed, ops), n


@pytest.mark.parametrize("seed", SEEDS, ids=seed_id)
def test_integers_are_numpys(seed):
    # n - 1 of 32 bits or fewer draws 32-bit halves (numpy's buffered next_uint32), more draws 64;
    # n = 2**31 + 1 and 2**62 + 1 reject a quarter to a half of their draws (Lemire's threshold)
    small = [("integers", n) for n in range(1, 9)] * 20
    large = [2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1, 3 * 2**40, 2**62 + 1, 2**63 - 1]
    large = [("integers", n) for n in large] * 4
    ops = small + large + small
    assert random_draws(seed, ops) == numpy_draws(seed, ops)


@pytest.mark.parametrize("seed", SEEDS[:24], ids=seed_id)
def test_mixed_draws_share_one_stream_as_numpys_do(seed):
    # the buffered 32-bit half is kept across integers, permutations and next_uint32 draws;
    # raw 64-bit draws leave it alone
    ops = [
        ("integers", 3),
        ("raw", 2),
        ("next32", 3),
        ("permutation", 5),
        ("integers", 7),
        ("integers", 2**40),
        ("next32", 1),
        ("permutation", 300),
        ("raw", 1),
        ("integers", 2),
    ]
    assert random_draws(seed, ops) == numpy_draws(seed, ops)


@pytest.mark.parametrize("decks,jokers", [(1, 0), (2, 2), (12, 2)])
def test_a_deal_is_the_engines_deal(decks, jokers):
    # the engine shuffles round r of a game seeded s with default_rng((s, r, 0))
    deck = make_deck(decks, jokers)
    for seed in (0, 5, 2**32 + 7):
        for round_index in range(11):
            entropy = (seed, round_index, 0)
            [order] = random_draws(entropy, [("permutation", len(deck))])
            want = shuffled_deck(np.random.default_rng(entropy), decks, jokers)
            assert [deck[i] for i in order] == want


def test_a_bad_seed_or_op_is_refused():
    for bad, error in ((-1, ValueError), (2**64, ValueError), ([1] * 9, ValueError)):
        with pytest.raises(error, match="seed"):
            random_draws(bad, [])
    for op, error in (
        (("raw",), TypeError),
        ("raw", TypeError),
        (("dice", 6), ValueError),
        (("integers", 0), ValueError),
        (("permutation", -1), ValueError),
        (("raw", 2**21), ValueError),
    ):
        with pytest.raises(error):
            random_draws(0, [op])
