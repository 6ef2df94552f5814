"""The compiled kernel's bindings (tt_env.game.melds._csolver) against bad and hostile input,
and a machine where the kernel is not built.

Compiled code never crashes the process: every argument is checked before it reaches it. These
tests feed every entry point random and adversarial input (any byte values, wrong types,
dtypes, shapes and lengths, read-only and non-contiguous arrays, inconsistent configurations)
and check that each call either answers within its documented range or raises a clean
TypeError/ValueError, and that the kernel's answers stay exact afterwards.
"""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tt_env.game.cards import make_deck, to_counts
from tt_env.game.melds import _kernel, clear_cache, min_penalty
from tt_env.game.melds._config import _config
from tt_env.game.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
native = _kernel.kernel_module()
built = pytest.mark.skipif(native is None, reason="the compiled kernel is not built")


def kernel_of(rules, wild_rank):
    return _kernel.kernel_for(_config(rules, wild_rank, None))


def python_value(counts, wild_rank, rules):
    _kernel.set_enabled(False)
    clear_cache(tables=True)
    try:
        return min_penalty(counts, wild_rank, rules)
    finally:
        _kernel.set_enabled(True)
        clear_cache(tables=True)


@built
def test_any_bytes_as_a_hand_get_an_answer_in_range():
    # 53 counts of any value 0..255 (hands far beyond any deal, thousands of wilds): every
    # entry point answers, with a value or one of its documented refusals.
    rng = np.random.default_rng(0)
    kernel = kernel_of(Rules(num_decks=2, jokers_per_deck=2, aces_high=True), 4).c
    for i in range(3000):
        top = int(rng.choice([1, 2, 3, 8, 256]))
        counts = bytes(rng.integers(0, top, 53, dtype=np.uint8))
        if i % 3 == 0:  # sparse: hands of a few cards, some of many copies
            counts = bytes(
                np.where(rng.random(53) < 0.2, rng.integers(0, top, 53), 0).astype(np.uint8)
            )
        for lex in (0, 1, 2, 3, 8, 9, 10, 11):
            value = kernel.evaluate(counts, lex)
            assert value >= -3 and value != -2, (counts, lex)
        assert kernel.lean(counts, 0) >= -3
        assert kernel.discard_values(counts) >= -3
        weights = rng.integers(-(2**62), 2**62, 53, dtype=np.int64)
        assert kernel.after_draw(counts, weights) >= -3
        melds, cards, dead, points = kernel.arrange(counts, False)
        assert points >= -1 and 0 <= cards + dead <= 64 and 0 <= melds <= 32
        assert kernel.go_out(counts) >= -3
        kinds = bytes(rng.integers(0, 64, int(rng.integers(0, 40)), dtype=np.uint8))
        melds, cards, dead, points = kernel.arrange(kinds, True)
        if len(kinds) > 30:
            assert points == -3
        elif any(k > 52 for k in kinds):
            assert points == -4
        else:
            assert points >= -1
    hands = rng.integers(0, 256, (50, 53), dtype=np.uint8)
    out = np.empty(50, np.int64)
    kernel.values(hands, out)
    assert (out >= -3).all()


def real_shape(shape) -> bool:
    """Whether a 7-tuple is within the shapes of a real table (the lay-off's domain)."""
    kind, rank, suit, low, high, wilds, size = shape
    if not (0 <= wilds <= 1000 and 0 <= size <= 1000):
        return False
    if kind == 0:
        return 1 <= rank <= 13
    return kind == 2 or (kind == 1 and 0 <= suit <= 3 and 1 <= low <= high <= 14)


@built
def test_any_hand_and_table_get_a_lay_off_or_none():
    # lay_off takes any 53 counts and any table of 7-tuples of ints: it answers, or says None
    # (the hand or the table is beyond what it takes), or raises a clean error.
    rng = np.random.default_rng(2)
    kernel = kernel_of(Rules(num_decks=2, jokers_per_deck=2, all_wild_melds=True), 4).c
    answered = 0
    for i in range(1500):
        counts = bytes(np.where(rng.random(53) < 0.15, rng.integers(0, 4, 53), 0).astype(np.uint8))
        if i % 10 == 0:
            counts = bytes(rng.integers(0, 256, 53, dtype=np.uint8))
        spread = int(rng.choice([3, 16, 40000]))
        table = [
            tuple(int(v) for v in rng.integers(-spread // 4, spread, 7))
            for _ in range(int(rng.choice([0, 1, 3, 8, 70])))
        ]
        found = kernel.lay_off(counts, table)
        if found is None:
            assert sum(counts) > 30 or len(table) > 64 or not all(map(real_shape, table))
            continue
        answered += 1
        points, melds, deadwood, laid, after = found
        assert points >= 0 and len(after) == len(table)
        cards = sorted(b"".join([m for m, _ in melds] + [deadwood] + [c for _, c in laid]))
        assert cards == sorted(k for k in range(53) for _ in range(counts[k]))
    assert answered > 200
    for bad, error, words in [
        ((b"\0" * 53,), TypeError, "takes 2 arguments"),
        ((b"\0" * 53, 5), TypeError, "sequence of meld shapes"),
        ((b"\0" * 53, [(1, 2)]), TypeError, "tuple of 7 ints"),
        ((b"\0" * 53, [(0, 1, -1, 0, 0, 0, "3")]), TypeError, "integer"),
        ((b"\0" * 52, []), ValueError, "counts must hold 53"),
    ]:
        with pytest.raises(error, match=words):
            kernel.lay_off(*bad)


@built
def test_bad_arguments_raise_clean_errors_and_leave_the_kernel_exact():
    rules = Rules(num_decks=2)
    k = kernel_of(rules, 7)
    c = k.c
    ok = bytes(to_counts(make_deck(1, 0)[:13]))
    bad_calls = [
        (lambda: c.evaluate(ok), TypeError, "takes 2 arguments"),
        (lambda: c.evaluate(ok, 4), ValueError, "lex must be"),
        (lambda: c.evaluate(ok, -1), ValueError, "lex must be"),
        (lambda: c.evaluate(ok, "0"), TypeError, ""),
        (lambda: c.evaluate(ok[:52], 0), ValueError, "counts must hold 53 items"),
        (lambda: c.evaluate("x" * 53, 0), TypeError, "counts must be"),
        (lambda: c.evaluate(np.zeros(53, np.int64), 0), TypeError, "uint8"),
        (lambda: c.evaluate(np.zeros(106, np.uint8)[::2], 0), ValueError, "C-contiguous"),
        (lambda: c.lean(ok, 3), ValueError, "lex must be 0..2"),
        (lambda: c.discard_values(None), TypeError, "counts must be"),
        (lambda: c.after_draw(ok, np.zeros(53, np.int32)), TypeError, "weights must hold int64"),
        (lambda: c.after_draw(ok, np.zeros(52, np.int64)), ValueError, "weights must hold 53"),
        (lambda: c.after_draw(ok, [0] * 53), TypeError, "weights must be"),
        (lambda: c.arrange(ok), TypeError, "takes 2 arguments"),
        (lambda: c.arrange(np.zeros(5, np.int64), True), TypeError, "kinds must hold uint8"),
        (lambda: c.go_out(ok, 0), TypeError, "takes 1 arguments"),
        (
            lambda: c.values(np.zeros((3, 52), np.uint8), np.zeros(3, np.int64)),
            ValueError,
            "(n, 53)",
        ),
        (lambda: c.values(np.zeros(53, np.uint8), np.zeros(1, np.int64)), ValueError, "(n, 53)"),
        (lambda: c.values(np.zeros((3, 53), np.uint8), np.zeros(2, np.int64)), ValueError, "out"),
        (lambda: c.values(np.zeros((3, 53), np.uint8), np.zeros(3, np.int32)), TypeError, "out"),
        (
            lambda: c.values(np.zeros((3, 53), np.uint8), np.zeros(3, np.int64)[::-1]),
            ValueError,
            "out must be a writable C-contiguous",
        ),
    ]
    frozen = np.zeros(3, np.int64)
    frozen.flags.writeable = False
    bad_calls.append(
        (lambda: c.values(np.zeros((3, 53), np.uint8), frozen), TypeError, "out must be a writable")
    )
    for call, error, words in bad_calls:
        with pytest.raises(error, match=None if not words else __import__("re").escape(words)):
            call()
    # Still exact: the same answers as the Python solver on fresh hands.
    rng = np.random.default_rng(1)
    deck = make_deck(2, 0)
    for _ in range(40):
        hand = to_counts(deck[i] for i in rng.permutation(len(deck))[:14])
        value = k.value(bytes(hand))
        assert value in (-1, python_value(hand, 7, rules))


@built
def test_tables_and_kernels_refuse_inconsistent_configurations():
    natural = tuple(range(1, 11)) + (10, 10, 10)
    tables = native.Tables(natural, 13, 64)
    assert tables.natural == natural and tables.top == 13 and tables.slots == 64
    assert tables.row(0, 0) == (0,) * 16 and tables.row(0b111, 0)[0] == 0  # A-2-3 of a suit
    for args, error, words in [
        ((natural[:12], 13, 64), ValueError, "natural penalties must hold 13"),
        ((natural, 15, 64), ValueError, "top must be 13 or 14"),
        ((natural, 13, 48), ValueError, "power of two"),
        ((natural, 13, 1 << 30), ValueError, "power of two"),
        (((-1,) + natural[1:], 13, 64), ValueError, "natural penalties must be"),
        (((10**6,) + natural[1:], 13, 64), ValueError, "natural penalties must be"),
        ((("a",) + natural[1:], 13, 64), TypeError, "must be an integer"),
        ((5, 13, 64), TypeError, "sequence"),
    ]:
        with pytest.raises(error, match=words):
            native.Tables(*args)
    with pytest.raises(ValueError, match="row"):
        tables.row(1 << 13, 0)

    def par(w=6, top=13, all_wild=0, wild=20, joker=50, cap=native.NO_CAP):
        p = np.zeros(native.PAR_SIZE, np.int64)
        for k in range(52):
            p[k] = natural[k % 13]
        p[[w, 13 + w, 26 + w, 39 + w]] = wild
        p[52], p[native.P_TOP], p[native.P_ALL_WILD] = joker, top, all_wild
        p[native.P_CAP] = cap
        return p

    def arrays():
        return (
            np.zeros(native.WS_SIZE, np.int64),
            np.zeros(53, np.int64),
            np.zeros(53, np.int64),
            np.zeros(native.ARRANGE_CARDS, np.uint8),
            np.zeros(native.ARRANGE_KEYS, np.int64),
        )

    assert native.Kernel(tables, par(), 6, *arrays()).w == 6
    p = par()
    p[0] = 3
    for args, error, words in [
        ((tables, par(), 13, *arrays()), ValueError, "w .* must be 0..12"),
        ((tables, par(top=14), 6, *arrays()), ValueError, "top"),
        ((tables, par(all_wild=2), 6, *arrays()), ValueError, "all_wild_melds"),
        ((tables, par(joker=-1), 6, *arrays()), ValueError, "joker penalties"),
        ((tables, par(joker=10**12), 6, *arrays()), ValueError, "joker penalties"),
        ((tables, p, 6, *arrays()), ValueError, "natural penalties"),
        ((tables, par(cap=-1), 6, *arrays()), ValueError, "cap on wilds per meld"),
        ((tables, par(cap=native.NO_CAP + 1), 6, *arrays()), ValueError, "cap on wilds per meld"),
        ((tables, par()[:55], 6, *arrays()), ValueError, "par must hold 56"),
        ((tables, par().astype(np.float64), 6, *arrays()), TypeError, "par must hold int64"),
        ((natural, par(), 6, *arrays()), TypeError, "Tables"),
        ((tables, par(), 6, np.zeros(100, np.int64), *arrays()[1:]), ValueError, "ws must hold"),
    ]:
        with pytest.raises(error, match=words):
            native.Kernel(*args)
    # The arrays it writes into are held: a numpy array cannot be resized under it.
    ws, *rest = arrays()
    kernel = native.Kernel(tables, par(), 6, ws, *rest)
    with pytest.raises(ValueError):
        ws.resize(10)
    del kernel


def run_child(code: str, **env: str) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if not k.startswith("TT_ENV_")}
    full.update(PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=full,
        capture_output=True,
        text=True,
        timeout=120,
    )


# A machine where the extension was not built (no C compiler at install): its import fails.
NOT_BUILT = """
    import sys
    class Block:
        def find_spec(self, name, path=None, target=None):
            if name == "tt_env.game.melds._csolver":
                raise ModuleNotFoundError("No module named 'tt_env.game.melds._csolver'", name=name)
    sys.meta_path.insert(0, Block())
"""


def test_without_the_compiled_kernel_the_game_plays_exactly_and_says_so_once():
    done = run_child(
        NOT_BUILT
        + """
    import subprocess
    from tt_env.game.melds import kernel_status, min_penalty, solve
    from tt_env.game.cards import parse_cards, to_counts
    hand = to_counts(parse_cards("3H 3S 3D KC 4H 5H 6H 9C"))
    print(min_penalty(hand, 7), min_penalty(hand, 7), solve("3H 3S 3D KC", 7).points)
    print(kernel_status())
    # a process it starts (a worker) inherits that it was said
    subprocess.run([sys.executable, "-c", "from tt_env.game.melds import kernel_module; "
                    "kernel_module()"], check=True)
    """
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "19 19 10"
    assert lines[1] == (
        "compiled kernel off (tt_env.game.melds._csolver is not built); the Python solver answers"
    )
    notice = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(notice) == 1, done.stderr
    assert "are not built (the install found no C compiler)" in notice[0]
    assert "install gcc or clang and reinstall" in notice[0]


def test_the_kernel_can_be_switched_off_with_no_notice():
    done = run_child(
        "from tt_env.game.melds import kernel_status, min_penalty\n"
        "print(min_penalty(tuple([1] * 14 + [0] * 39), 13))\n"
        "print(kernel_status())\n",
        TT_ENV_NO_KERNEL="1",
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "0",
        "compiled kernel off (disabled by TT_ENV_NO_KERNEL); the Python solver answers",
    ]
    assert done.stderr == ""
