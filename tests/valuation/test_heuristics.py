"""The expected-penalty rule (tt_env.valuation.heuristics): its compiled twin decides as the Python
rule."""

import numpy as np
import pytest

from tt_env.agents import make_agent
from tt_env.env import aec as three_thirteen_v0
from tt_env.game.rules import Rules
from tt_env.valuation.heuristics import CompiledExpectedPenalty, ExpectedPenalty
from tt_env.valuation.values import valuation_for


def positions(rules, count, seed):
    """(observation, mask) of the seat to move in games of counting against greedy."""
    env = three_thirteen_v0.raw_env(rules=rules)
    n = rules.num_players
    agents = [make_agent("greedy" if i % 2 else "counting", n, rules, seed) for i in range(n)]
    out = []
    env.reset(seed=seed)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            if not env.agents:
                seed += 1
                env.reset(seed=seed)
            continue
        out.append((obs["observation"].copy(), obs["action_mask"].copy()))
        if len(out) >= count:
            return out
        env.step(agents[env.possible_agents.index(agent)].act(*out[-1]))


@pytest.mark.parametrize(
    "rules, rule",
    [
        (Rules(), ExpectedPenalty()),
        (Rules(num_players=4), ExpectedPenalty()),
        (Rules(num_players=3, jokers_per_deck=2, aces_high=True), ExpectedPenalty()),
        (Rules(discard_drawn_upcard=True, court_values=True), ExpectedPenalty(0.5, 3, 4, 2, 8)),
        (Rules(false_out_penalty=20), ExpectedPenalty(lookahead=0.0)),
    ],
    ids=["2p", "4p", "3p-jokers-aces-high", "ddu-court-params", "false-outs-no-lookahead"],
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
                assert np.allclose([x for _, x in compiled.shortlist()], [x for _, x in shortlist])
        if got is not None:
            assert got == expected
            checked += 1
    assert checked > 250


def test_capped_rules_are_not_compiled():
    compiled = CompiledExpectedPenalty(ExpectedPenalty(), Rules.preset("one-wild"))
    assert not compiled.ok
    obs, mask = positions(Rules.preset("one-wild"), 1, seed=1)[0]
    assert compiled.act(obs, mask) is None
