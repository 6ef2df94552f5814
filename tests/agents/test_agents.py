"""Agents: legal play under rule variants, the greedy rule, the counting agent, the registry."""

from __future__ import annotations

import ast
import copy
import inspect
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

import tt_env.agents.specs as agents_specs
from tt_env.agents import (
    BUILTIN_AGENTS,
    CountingAgent,
    GreedyAgent,
    RandomAgent,
    make_agent,
    register_model_loader,
    spec_label,
    split_specs,
)
from tt_env.agents.specs import _MODEL_LOADERS, BUILTIN_NAMES
from tt_env.encoding.actions import (
    DRAW_STOCK_ACTION,
    TAKE_DISCARD_ACTION,
    describe,
    discard_action,
    go_out_action,
)
from tt_env.env import aec as three_thirteen_v0
from tt_env.game.cards import parse_card
from tt_env.game.engine import Game
from tt_env.game.rules import Rules

AGENTS_DIR = Path(__file__).resolve().parents[2] / "tt_env" / "agents"


# ---------------------------------------------------------------------------------- legality
def variant_rules(rnd: random.Random, num_players: int) -> Rules:
    """Random rule options with a short turn cap, so that whole games stay quick."""
    jokers = rnd.choice([0, 2])
    cap = rnd.choice([None, 1, 2])
    return Rules(
        num_players=num_players,
        max_wilds_per_meld=cap,
        unused_wild_penalty=rnd.choice([None, 15]),
        aces_high=rnd.random() < 0.4,
        court_values=rnd.random() < 0.3,
        extra_rounds=rnd.choice([0, 0, 2]),
        jokers_per_deck=jokers,
        joker_layoff=jokers > 0 and rnd.random() < 0.5,
        redemption=rnd.random() < 0.3,
        double_court_rounds=rnd.random() < 0.3,
        all_wild_melds=cap is None and rnd.random() < 0.3,
        false_out_penalty=rnd.choice([None, None, 20]),
        discard_drawn_upcard=rnd.random() < 0.3,
        max_turns_per_round=rnd.randint(2, 4) * num_players,
    )


def play(rules: Rules, agents, seed: int) -> Game:
    """One whole game through the raw env (which raises on an illegal action)."""
    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(seed=seed)
    for agent, s in zip(agents, range(len(agents))):
        agent.reset(seed + s)
    rounds = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        agent = agents[env.possible_agents.index(name)]
        action = agent.act(obs["observation"], obs["action_mask"])
        assert isinstance(action, int)
        assert obs["action_mask"][action] == 1, f"{agent.name} chose {describe(action)}"
        env.step(action)
        if len(env.game.round_results) != rounds:
            rounds = len(env.game.round_results)
            for a in agents:
                a.new_round()
    assert env.game.is_over
    return env.game


@pytest.mark.parametrize("case", range(12))
def test_every_agent_plays_only_legal_actions(case):
    rnd = random.Random(case)
    n = (2, 2, 3, 4, 2, 3, 2, 5, 2, 8, 3, 2)[case]
    rules = variant_rules(rnd, n)
    # every built-in agent (the search agent with few deals, to keep the test quick; the llm
    # agent needs a chat server: test_llm.py plays it against a stub)
    names = [
        name if name != "search" else "search(samples=4)"
        for name in BUILTIN_AGENTS
        if name != "llm"
    ]
    agents = [make_agent(names[(case + s) % len(names)], n, rules, seed=s) for s in range(n)]
    game = play(rules, agents, seed=100 + case)
    assert len(game.round_results) == rules.num_rounds


def test_random_agent_is_uniform_and_seeded():
    mask = np.zeros(108, np.int8)
    mask[[2, 9, 40]] = 1
    agent = RandomAgent(seed=3)
    picks = [agent.act(np.zeros(1), mask) for _ in range(3000)]
    assert set(picks) == {2, 9, 40}
    assert all(abs(picks.count(a) / 3000 - 1 / 3) < 0.04 for a in (2, 9, 40))
    again = RandomAgent(seed=3)
    assert [again.act(np.zeros(1), mask) for _ in range(50)] == picks[:50]
    agent.reset(3)
    assert [agent.act(np.zeros(1), mask) for _ in range(50)] == picks[:50]


def test_agents_refuse_an_empty_mask():
    env = three_thirteen_v0.raw_env()
    env.reset(seed=0)
    other = env.possible_agents[1 - env.possible_agents.index(env.agent_selection)]
    obs = env.observe(other)
    for agent in (RandomAgent(), GreedyAgent(), CountingAgent()):
        with pytest.raises(ValueError, match="not on turn"):
            agent.act(obs["observation"], obs["action_mask"])


# ---------------------------------------------------------------------------------- scripted
def arranged_env(hands, stock="", pile="", round_index=0, rules=None, current=0):
    """An env whose current round is dealt as given (hands as strings, seat 0 to move)."""
    rules = rules or Rules()
    game = Game(rules, seed=0)
    game.arrange(hands, stock=stock, discard_pile=pile, current=current, round_index=round_index)
    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(options={"game": game})
    return env


def act(agent, env):
    obs = env.observe(env.agent_selection)
    return agent.act(obs["observation"], obs["action_mask"])


def test_greedy_takes_the_discard_only_when_it_lowers_the_penalty():
    # Round 1: threes are wild. 5H 6H KS = 21 points.
    takes = arranged_env(["5H 6H KS", "2C 9D JD"], stock="4S 8C", pile="2D 7H")
    assert act(GreedyAgent(), takes) == TAKE_DISCARD_ACTION  # 5-6-7H, discard KS: 0
    same = arranged_env(["5H 6H KS", "2C 9D JD"], stock="4S 8C", pile="2D QD")
    assert act(GreedyAgent(), same) == DRAW_STOCK_ACTION  # QD for KS: still 21


def test_greedy_goes_out_when_it_can():
    env = arranged_env(
        ["5H 6H 7H KS", "2C 9D JD 4D"], stock="2S 8H", pile="2D", round_index=1
    )  # 4 cards, fours wild; the stock's top is 8H
    env.step(DRAW_STOCK_ACTION)
    assert act(GreedyAgent(), env) == go_out_action(parse_card("KS"))  # 5-6-7-8H


def test_greedy_discards_the_card_that_leaves_least():
    env = arranged_env(
        ["5H 6H 9C KS", "2C 9D JD 4D"], stock="2S 2C", pile="2D", round_index=1
    )  # 4 cards, fours wild; draws 2C
    env.step(DRAW_STOCK_ACTION)
    assert act(GreedyAgent(), env) == discard_action(parse_card("KS"))


def test_counting_goes_out_with_a_wild():
    env = arranged_env(
        ["5H 6H 7H KS", "2C 9D JD 4D"], stock="2S 4C", pile="2D", round_index=1
    )  # draws the wild 4C: 5H 6H 7H 4C melds
    env.step(DRAW_STOCK_ACTION)
    assert act(CountingAgent(), env) == go_out_action(parse_card("KS"))


def test_counting_takes_a_discard_that_completes_a_meld():
    env = arranged_env(["5H 6H KS", "2C 9D JD"], stock="4S 8C", pile="2D 7H")
    assert act(CountingAgent(), env) == TAKE_DISCARD_ACTION


def test_counting_does_not_feed_the_next_player():
    # Round 2 (fours wild). Seat 1 takes 9D from the pile, so it is known to collect nines.
    # Seat 0 then holds 6H 7H 8H 9S 2S: throwing 9S leaves the fewest points (greedy does), but
    # it feeds seat 1's nines; with a high feed cost the counting agent keeps it back.
    rules = Rules()
    game = Game(rules, seed=0)
    game.arrange(
        ["6H 7H 8H 9S", "2C 3D JD 9C"],
        stock="KC KD 2S",
        discard_pile="AC 9D",
        current=1,
        round_index=1,
    )
    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(options={"game": game})
    env.step(TAKE_DISCARD_ACTION)
    env.step(discard_action(parse_card("JD")))
    env.step(DRAW_STOCK_ACTION)  # seat 0 draws 2S
    assert act(GreedyAgent(), env) == discard_action(parse_card("9S"))
    wary = CountingAgent(lookahead=0.0, feed_cost=50.0)
    assert act(wary, env) == discard_action(parse_card("2S"))


# ---------------------------------------------------------------------------------- registry
def test_every_built_in_agent_is_listed_in_order_under_its_name():
    """Each built-in agent lists itself (importing tt_env.agents imports them all), in the
    order of BUILTIN_NAMES whatever the order of the imports."""
    from tt_env.agents import LLMAgent, SearchAgent
    from tt_env.agents.specs import builtin_agent

    assert (
        list(BUILTIN_AGENTS)
        == list(BUILTIN_NAMES)
        == [
            "random",
            "greedy",
            "counting",
            "search",
            "llm",
        ]
    )
    classes = [RandomAgent, GreedyAgent, CountingAgent, SearchAgent, LLMAgent]
    assert list(BUILTIN_AGENTS.values()) == classes
    assert builtin_agent(GreedyAgent) is GreedyAgent and list(BUILTIN_AGENTS.values()) == classes

    class Nameless(RandomAgent):
        name = "nameless"

    with pytest.raises(ValueError, match="not one of"):
        builtin_agent(Nameless)
    assert "nameless" not in BUILTIN_AGENTS


def test_make_agent_specs():
    rules = Rules(num_players=3)
    assert isinstance(make_agent("random", 3, rules, 1), RandomAgent)
    assert isinstance(make_agent("Greedy", 3, rules), GreedyAgent)
    assert isinstance(make_agent("counting", 3, rules), CountingAgent)
    custom = make_agent("tt_env.agents.greedy:GreedyAgent", 3, rules)
    assert isinstance(custom, GreedyAgent) and custom.num_players == 3
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("nobody", 3, rules)
    with pytest.raises(ValueError, match="no class"):
        make_agent("tt_env.agents.greedy:Nope", 3, rules)
    with pytest.raises(ValueError, match="cannot import"):
        make_agent("no_such_module_xyz:Agent", 3, rules)
    with pytest.raises(ValueError, match="rules are for"):
        make_agent("random", 2, rules)
    assert spec_label("tt_env.agents.greedy:GreedyAgent") == "GreedyAgent"
    assert spec_label("models/ppo_2p.zip") == "ppo_2p"
    # Options that are paths or URLs are shortened to a file's stem or a host.
    assert spec_label("search(samples=16, prior=runs/r/exit/net_003.npz)") == (
        "search(samples=16,prior=net_003)"
    )
    assert spec_label("llm(model=qwen, base_url=http://127.0.0.1:8000/v1)") == (
        "llm(model=qwen,base_url=127.0.0.1:8000)"
    )


def test_a_class_spec_takes_options_and_says_in_one_line_what_it_needs(capsys):
    from tt_env import arena

    agent = make_agent("user_agents:NeedsArg(depth=2)", 3, Rules(num_players=3))
    assert (agent.depth, agent.num_players) == (2, 3)
    assert agent.name == spec_label("user_agents:NeedsArg(depth=2)") == "NeedsArg(depth=2)"
    needs = (
        "agent 'user_agents:NeedsArg': NeedsArg() needs depth, which the game does not give: "
        "pass it in the spec, as in 'user_agents:NeedsArg(depth=...)'"
    )
    with pytest.raises(ValueError) as caught:
        make_agent("user_agents:NeedsArg", 2)
    assert str(caught.value) == needs
    assert arena.main(["user_agents:NeedsArg", "greedy", "--games", "1", "-q"]) == 2
    assert capsys.readouterr().err == f"tt-arena: error: {needs}\n"  # one line, no traceback
    with pytest.raises(ValueError, match=r"unknown option 'dpth' \(did you mean 'depth'\?\)"):
        make_agent("user_agents:NeedsArg(dpth=2)", 2)
    with pytest.raises(ValueError, match="name=value pairs"):
        make_agent("user_agents:NeedsArg(2)", 2)
    # what the constructor raises is named with the class
    with pytest.raises(ValueError, match=r"Returns\(\) raised ValueError: unknown kind 'x'"):
        make_agent("user_agents:Returns(kind=x)", 2)


def test_model_paths_need_a_loader(tmp_path, monkeypatch):
    model = tmp_path / "ppo.zip"
    model.write_bytes(b"not a model")
    with monkeypatch.context() as m:  # no loader registered, and no loader module to import
        m.setattr(agents_specs, "_MODEL_LOADERS", [])
        m.setattr(agents_specs, "_LOADER_MODULES", ())
        m.setattr(agents_specs, "_loader_modules_tried", False)
        with pytest.raises(ValueError, match="no model loader is registered"):
            make_agent(str(model), 2)

    def loader(spec, num_players, rules, seed):
        return RandomAgent(num_players, rules, seed) if spec.endswith(".zip") else None

    register_model_loader(loader)
    try:
        assert isinstance(make_agent(str(model), 2), RandomAgent)
    finally:
        _MODEL_LOADERS.remove(loader)


def test_agents_never_import_the_engine_or_the_env():
    """Agents act from the observation: they may not reach for the engine's hidden state."""
    forbidden = {"engine", "three_thirteen_v0", "single_agent", "env"}
    for path in AGENTS_DIR.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                parts = set((node.module or "").split("."))
                names = {a.name for a in node.names}
                assert not parts & forbidden, f"{path.name} imports {node.module}"
                assert not names & forbidden, f"{path.name} imports {names & forbidden}"
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    assert not set(alias.name.split(".")) & forbidden, path.name
            elif isinstance(node, ast.Attribute):
                assert node.attr not in ("game", "all_hands", "stock_cards"), (
                    f"{path.name} reads .{node.attr}"
                )


def test_built_in_agents_with_options():
    rules = Rules()
    agent = make_agent("search(samples=8, confidence=2, rollout=counting-self)", 2, rules, 1)
    assert (agent.samples, agent.confidence, agent.rollout) == (8, 2.0, "counting-self")
    assert agent.name == "search(samples=8,confidence=2,rollout=counting-self)"
    counting = make_agent("counting(lookahead=0.5, candidates=2)", 2, rules)
    assert (counting.rule.lookahead, counting.rule.candidates) == (0.5, 2)
    with pytest.raises(ValueError, match="bogus"):
        make_agent("search(bogus=1)", 2, rules)
    with pytest.raises(ValueError, match="name=value"):
        make_agent("search(samples)", 2, rules)
    with pytest.raises(ValueError, match="rollout"):
        make_agent("search(rollout=telepathy)", 2, rules)
    assert split_specs("greedy, search(samples=8, confidence=2),counting") == [
        "greedy",
        "search(samples=8, confidence=2)",
        "counting",
    ]


@pytest.mark.parametrize("kind", sorted(BUILTIN_AGENTS))
def test_an_unknown_option_names_the_spec_and_the_options_of_its_agent(kind, capsys):
    from tt_env import arena

    game_sets = ("num_players", "rules", "seed")
    options = [p for p in inspect.signature(BUILTIN_AGENTS[kind]).parameters if p not in game_sets]
    spec = f"{kind}(nosuch=1)"
    takes = f"takes {', '.join(options)}" if options else "takes no options"
    message = f"agent {spec!r}: unknown option 'nosuch'; {kind} {takes}"
    with pytest.raises(ValueError) as caught:
        make_agent(spec, 2, Rules())
    assert str(caught.value) == message
    assert "__init__" not in message
    assert arena.main([spec, "random", "--games", "1", "-q"]) == 2
    assert capsys.readouterr().err == f"tt-arena: error: {message}\n"
    with pytest.raises(ValueError, match=r"unknown option 'seed' \(the game sets it\)"):
        make_agent(f"{kind}(seed=3)", 2, Rules())


def test_a_misspelt_option_is_named_with_the_one_meant():
    with pytest.raises(ValueError) as caught:
        make_agent("counting(lookahed=0.5)", 2, Rules())
    assert str(caught.value) == (
        "agent 'counting(lookahed=0.5)': unknown option 'lookahed' (did you mean 'lookahead'?); "
        "counting takes lookahead, feed_cost, wild_feed_cost, candidates, margin"
    )


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(num_players=3, redemption=True, jokers_per_deck=1, joker_layoff=True)],
    ids=["standard", "3p-redemption-jokers-layoff"],
)
def test_search_agent_is_seeded_and_plays_legal_moves(rules):
    # Two search agents with the same seed (and no time budget) play the same game the same
    # way, under the full rules too (the rollouts' redemption and table); every move is legal
    # (play() checks the mask).
    n = rules.num_players
    games = []
    for _ in range(2):
        agents = [make_agent("search(samples=8)", n, rules, 5)]
        agents += [make_agent("counting", n, rules) for _ in range(n - 1)]
        game = play(rules, agents, seed=9)
        games.append((game.moves, game.scores, agents[0].searched, agents[0].deals))
    assert games[0] == games[1]
    assert games[0][2] > 10 and games[0][3] == 8 * games[0][2]  # it did search, 8 deals each


def test_search_agent_plays_the_rule_when_the_kernel_does_not_serve_the_rules():
    rules = Rules.preset("one-wild")  # a cap on wilds per meld: no compiled rollouts
    search = make_agent("search(samples=8)", 2, rules, 1)
    counting = make_agent("counting", 2, rules)
    game = play(rules, [search, make_agent("greedy", 2, rules)], seed=3)
    assert game.is_over and search.deals == 0
    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(seed=4)
    for _ in range(40):
        obs = env.observe(env.agent_selection)
        a = search.act(obs["observation"], obs["action_mask"])
        assert a == counting.act(obs["observation"], obs["action_mask"])
        env.step(a)


def test_search_led_by_a_network_keeps_its_choice_unless_the_rollouts_beat_it(tmp_path):
    """search(prior=model): the network leads (its choice is the incumbent, its likeliest
    discards the candidates). Told never to overrule (a huge confidence), it plays the
    network's move wherever the rule would let the search choose, and the rule's move (going
    out, the final turn, one candidate) elsewhere; searching, it overrules the network at times."""
    from helpers import tiny_model

    from tt_env.agents.learned import LearnedAgent

    rules = Rules()
    path = tiny_model(tmp_path / "net.npz", rules, seed=2)
    net = LearnedAgent(str(path), 2, rules)
    never = make_agent(f"search(samples=8, confidence=1e9, prior={path})", 2, rules, 1)
    searching = make_agent(f"search(samples=16, confidence=0, prior={path})", 2, rules, 1)
    counting = make_agent("counting", 2, rules)
    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(seed=6)
    led = overruled = searched = 0
    for _ in env.agent_iter(400):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        o, m = obs["observation"], obs["action_mask"]
        before = never.searched
        a = never.act(o, m)
        assert never.led == a and m[a] == 1
        if never.searched > before:
            searched += 1
        if a == net.act(o, m):
            led += 1
        else:  # not the network's: the rule decided alone
            assert a == counting.act(o, m)
        b = searching.act(o, m)
        overruled += int(b != searching.led)
        env.step(a)
    assert searched > 20 and led > searched and overruled > 0
    with pytest.raises(ValueError, match="players"):
        make_agent(f"search(prior={path})", 3, Rules(num_players=3))


@pytest.mark.parametrize("spec", ["counting", "greedy", "search(samples=4)", "random"])
def test_agents_copy_and_pickle_after_acting(spec):
    # The duplicate-deal baseline copies the opponents; compiled entry points are rebuilt.
    env = three_thirteen_v0.raw_env()
    env.reset(seed=1)
    obs = env.observe(env.agent_selection)
    agent = make_agent(spec, 2, Rules(), seed=3)
    agent.act(obs["observation"], obs["action_mask"])
    for twin in (copy.deepcopy(agent), pickle.loads(pickle.dumps(agent))):
        assert (
            twin.act(obs["observation"], obs["action_mask"])
            == agent.act(obs["observation"], obs["action_mask"])
            or spec == "random"
        )
