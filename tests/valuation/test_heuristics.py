"""The expected-penalty rule (tt_env.valuation.heuristics): its compiled twin decides as the Python
rule, and its binding (tt_env.valuation._crule) refuses bad input with a clear error."""

import numpy as np
import pytest
from helpers import positions

from tt_env.game.rules import Rules
from tt_env.valuation.heuristics import CompiledExpectedPenalty, ExpectedPenalty
from tt_env.valuation.values import valuation_for

_crule = pytest.importorskip("tt_env.valuation._crule", reason="the compiled kernels are not built")


@pytest.mark.parametrize(
    "rules, rule",
    [
        (Rules(), ExpectedPenalty()),
        (Rules(num_players=4), ExpectedPenalty()),
        (Rules(num_players=3, jokers_per_deck=2, aces_high=True), ExpectedPenalty()),
        (
            Rules(discard_drawn_upcard=True, court_values=True),
            ExpectedPenalty(lookahead=0.5, feed_cost=3, wild_feed_cost=4, candidates=2, margin=8),
        ),
        (Rules(false_out_penalty=20), ExpectedPenalty(lookahead=0.0)),
        # a weight whose products round: a fused multiply-add in the compiled rule would show
        (Rules(), ExpectedPenalty(lookahead=0.3, feed_cost=1.7, wild_feed_cost=5.3)),
        # a cap on wilds per meld (the kernel's capped search, solver/capped.h)
        (Rules.preset("one-wild", jokers_per_deck=1), ExpectedPenalty()),
    ],
    ids=[
        "2p",
        "4p",
        "3p-jokers-aces-high",
        "ddu-court-params",
        "false-outs-no-lookahead",
        "inexact-weights",
        "one-wild-jokers",
    ],
)
def test_compiled_rule_decides_as_the_python_rule(rules, rule):
    compiled = CompiledExpectedPenalty(rule, rules)
    v = valuation_for(rules)
    checked = 0
    for obs, mask in positions(rules, 300, seed=2):
        got = compiled.act(obs, mask)
        seen = v.see(obs)
        if seen.draw_phase:
            expected = rule.draw(v, seen, mask)[0]
        else:
            expected, shortlist = rule.discard(v, seen, mask)
            if got is not None:
                assert [a for a, _ in compiled.shortlist()] == [a for a, _ in shortlist]
                # the same float64 sums and products in the same order: equal to the last bit
                assert [x for _, x in compiled.shortlist()] == [x for _, x in shortlist]
        if got is not None:
            assert got == expected
            checked += 1
    assert checked > 250


# ------------------------------------------------------------------ the compiled rule's inputs
# Compiled code never crashes the process: the binding checks every input first. Each case is a
# call that must raise TypeError or ValueError naming its argument, and leave the rule working.
def _rule_and_position(rules=None):
    rules = rules or Rules()
    compiled = CompiledExpectedPenalty(ExpectedPenalty(), rules)
    obs, mask = positions(rules, 1, seed=4)[0]
    return compiled._rule, np.asarray(obs, np.float32), np.asarray(mask, np.int8)


def _at(piece, offset=0, row=0):
    """The index of one value of an observation piece (2 players)."""
    from tt_env.encoding.observation import observation_layout

    return observation_layout(2).slices[piece].start + row * 53 + offset


def _set(obs, index, value):
    obs = obs.copy()
    obs[index] = value
    return obs


BAD_DECISIONS = {
    "observation float64": (
        lambda o, m: (o.astype(np.float64), m),
        TypeError,
        "observation must hold float32",
    ),
    "observation a list": (lambda o, m: (o.tolist(), m), TypeError, "observation"),
    "observation None": (lambda o, m: (None, m), TypeError, "observation"),
    "observation a string": (lambda o, m: ("obs", m), TypeError, "observation"),
    "observation big-endian": (lambda o, m: (o.astype(">f4"), m), TypeError, "float32"),
    "observation short": (lambda o, m: (o[:-1], m), ValueError, "observation"),
    "observation empty": (lambda o, m: (o[:0], m), ValueError, "observation"),
    "observation 2-D": (lambda o, m: (o[None, :], m), ValueError, "observation"),
    "observation strided": (lambda o, m: (np.repeat(o, 2)[::2], m), ValueError, "contiguous"),
    "mask int64": (lambda o, m: (o, m.astype(np.int64)), TypeError, "mask"),
    "mask float32": (lambda o, m: (o, m.astype(np.float32)), TypeError, "mask"),
    "mask short": (lambda o, m: (o, m[:107]), ValueError, "mask"),
    "mask long": (lambda o, m: (o, np.concatenate([m, m[:1]])), ValueError, "mask"),
    "mask bytes": (lambda o, m: (o, b"\x01" * 10), ValueError, "mask"),
    "hand NaN": (lambda o, m: (_set(o, _at("hand", 3), np.nan), m), ValueError, "'hand'"),
    "hand negative": (lambda o, m: (_set(o, _at("hand", 0), -3), m), ValueError, "'hand'"),
    "hand 256 copies": (lambda o, m: (_set(o, _at("hand", 52), 256), m), ValueError, "'hand'"),
    "hand huge": (lambda o, m: (_set(o, _at("hand", 9), 3e38), m), ValueError, "'hand'"),
    "hand infinite": (lambda o, m: (_set(o, _at("hand", 9), np.inf), m), ValueError, "'hand'"),
    "pile below negative": (
        lambda o, m: (_set(o, _at("discard_below", 7), -1), m),
        ValueError,
        "'discard_below'",
    ),
    "table NaN": (lambda o, m: (_set(o, _at("table", 1), np.nan), m), ValueError, "'table'"),
    "known huge": (lambda o, m: (_set(o, _at("known", 5, row=1), 1e20), m), ValueError, "'known'"),
}


@pytest.mark.parametrize("case", BAD_DECISIONS, ids=list(BAD_DECISIONS))
def test_the_compiled_rule_refuses_bad_input_with_a_clear_error(case):
    rule, obs, mask = _rule_and_position()
    change, error, named = BAD_DECISIONS[case]
    with pytest.raises(error, match=named):
        rule.decide(*change(obs, mask))
    assert rule.decide(obs, mask) >= 0  # and it still decides


def test_the_compiled_rule_takes_two_arguments():
    rule, obs, mask = _rule_and_position()
    for args in [(), (obs,), (obs, mask, mask)]:
        with pytest.raises(TypeError, match="2 arguments"):
            rule.decide(*args)


def test_the_compiled_rule_survives_random_observations():
    # Random values anywhere in real observations (counts, one-hots, phases, fractions) and
    # random masks: an action id or -1 (legal or not: garbage in), or a clean ValueError.
    rng = np.random.default_rng(3)
    for rules in (Rules(), Rules(num_players=4, jokers_per_deck=2, num_decks=3)):
        rule = CompiledExpectedPenalty(ExpectedPenalty(), rules)._rule
        for obs, mask in positions(rules, 40, seed=8):
            for _ in range(10):
                o = np.asarray(obs, np.float32).copy()
                m = np.asarray(mask, np.int8).copy()
                at = rng.integers(0, o.size, rng.integers(1, 30))
                o[at] = rng.choice([0, 1, 2, 3, 7, 40, 255, 0.5, -0.4, 255.4], at.size)
                if rng.random() < 0.2:
                    o[rng.integers(0, o.size)] = rng.choice([np.nan, np.inf, -np.inf, -1e9, 1e9])
                m[rng.integers(0, m.size, rng.integers(0, 20))] = rng.integers(-128, 128)
                try:
                    action = rule.decide(o, m)
                except ValueError as e:
                    assert "observation[" in str(e)
                else:
                    assert -1 <= action < 108


def _rule_arguments(rules=None):
    from tt_env.encoding.observation import piece_starts
    from tt_env.game.melds import kernel_of, solver_config

    rules = rules or Rules()
    starts, size = piece_starts(rules.num_players, _crule.PIECES)
    return dict(
        kernels=[kernel_of(solver_config(rules, w, None)).c for w in range(1, 14)],
        starts=starts,
        observation_size=size,
        num_players=rules.num_players,
        deck=[1] * 52 + [0],
        discard_drawn_upcard=False,
        lookahead=1.0,
        feed_cost=2.0,
        wild_feed_cost=6.0,
        candidates=4,
        margin=12,
    )


BAD_RULES = {
    "kernels not a sequence": (dict(kernels=5), TypeError, "kernels"),
    "12 kernels": (dict(kernels=lambda k: k[:12]), ValueError, "13 solver Kernels"),
    "a kernel that is not one": (dict(kernels=lambda k: k[:12] + [object()]), TypeError, "Kernel"),
    "python-side kernels": (dict(kernels=lambda k: [None] * 13), TypeError, "Kernel"),
    "starts not a tuple": (dict(starts=[0] * 18), TypeError, "starts"),
    "starts missing a piece": (dict(starts=lambda t: t[:-1]), TypeError, "18"),
    "a piece outside the observation": (
        dict(starts=lambda t: (400, *t[1:])),
        ValueError,
        "'hand' \\(start 400",
    ),
    "a negative start": (dict(starts=lambda t: (*t[:8], -1, *t[9:])), ValueError, "'phase'"),
    "a start not an integer": (
        dict(starts=lambda t: (*t[:4], 2.0, *t[5:])),
        TypeError,
        "'table'",
    ),
    "observation size 0": (dict(observation_size=0), ValueError, "observation_size"),
    "an observation too short for its pieces": (
        dict(observation_size=60),
        ValueError,
        "'drawn_upcard'",
    ),
    "an observation too short for a hand": (dict(observation_size=40), ValueError, "'hand'"),
    "one player": (dict(num_players=1), ValueError, "num_players"),
    "nine players": (dict(num_players=9), ValueError, "num_players"),
    "deck of 52": (dict(deck=[1] * 52), ValueError, "deck"),
    "no deck": (dict(deck=[0] * 53), ValueError, "deck"),
    "a negative deck count": (dict(deck=[1] * 52 + [-1]), ValueError, "deck"),
    "a huge deck count": (dict(deck=[10**20] * 53), ValueError, "deck"),
    "a NaN lookahead": (dict(lookahead=float("nan")), ValueError, "lookahead"),
    "an infinite margin": (dict(margin=float("inf")), ValueError, "margin"),
    "a huge candidates": (dict(candidates=1e300), ValueError, "candidates"),
    "a string feed cost": (dict(feed_cost="2"), TypeError, "feed_cost"),
}


@pytest.mark.parametrize("case", BAD_RULES, ids=list(BAD_RULES))
def test_the_compiled_rule_is_built_from_checked_arguments(case):
    changes, error, named = BAD_RULES[case]
    args = _rule_arguments()
    for key, change in changes.items():
        args[key] = change(args[key]) if callable(change) else change
    with pytest.raises(error, match=named):
        _crule.Rule(args.pop("kernels"), args.pop("starts"), args.pop("observation_size"), **args)


def test_the_compiled_rule_reports_what_it_weighed():
    rule, obs, mask = _rule_and_position()
    assert rule.shortlist == () and rule.take == -1 and rule.now == -1  # nothing decided yet
    compiled = CompiledExpectedPenalty(ExpectedPenalty(), Rules())
    v = valuation_for(Rules())
    for obs, mask in positions(Rules(), 60, seed=2):
        action = compiled.act(obs, mask)
        seen = v.see(obs)
        if seen.draw_phase:
            take, now = compiled.draw_values()
            _, python_take, _ = ExpectedPenalty().draw(v, seen, mask)
            if take >= 0:
                assert take == python_take and now == v.hand_value(seen.hand, seen.wild_rank)
        elif compiled.shortlist():
            assert compiled.shortlist()[0][0] == action


@pytest.mark.parametrize("upcard", [False, True])
def test_take_value_of_an_empty_hand_puts_the_card_back(upcard):
    """Only the card taken is held after the take: it is the one discard, whatever the rule on
    discarding the drawn upcard (as the compiled rule answers). With one other card held, the
    taken card may go back only when the rules allow it."""
    rules = Rules(num_players=2, discard_drawn_upcard=upcard)
    val = valuation_for(rules)
    pen = rules.penalty_table(3)  # wild rank 3: kinds 5 (a six) and 20 (an eight) are natural
    hand = np.zeros(53, np.int64)
    assert val.take_value(hand, 5, 3) == 0
    hand[20] = 1
    assert val.take_value(hand, 5, 3) == (min(pen[5], pen[20]) if upcard else pen[5])
