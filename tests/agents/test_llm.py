"""The ``llm`` agent against a stub chat server on 127.0.0.1 (tests/llm_stub.py): it answers
well, answers garbage, answers late, fails or is down; every game completes with legal moves,
the fallbacks and tokens are counted, and nothing leaves the machine."""

from __future__ import annotations

import json
import re

import pytest

pytest.importorskip("openai")

from llm_stub import StubServer, dead_url  # noqa: E402

from tt_env import three_thirteen_v0  # noqa: E402
from tt_env.agents import Forfeit, make_agent  # noqa: E402
from tt_env.agents.llm import SYSTEM_PROMPT, SYSTEM_PROMPT_HIDDEN, LLMAgent, LLMError  # noqa: E402
from tt_env.game.rules import Rules  # noqa: E402
from tt_env.text import WORDS_INSTRUCTIONS  # noqa: E402


@pytest.fixture(autouse=True)
def _no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def play_round(agent, rules=Rules(), seed=0, limit=None) -> int:
    """One round, the agent in seat 0 against counting; returns the agent's decisions."""
    env = three_thirteen_v0.raw_env(rules=rules, episode="round")
    other = make_agent("counting", rules.num_players, rules)
    env.reset(seed=seed)
    agent.reset(seed)
    decisions = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        player = agent if name == "player_0" else other
        action = player.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action]
        env.step(int(action))
        if name == "player_0":
            decisions += 1
            if limit and decisions >= limit:
                break
    return decisions


def test_a_good_model_plays_its_moves_and_counts_its_tokens():
    with StubServer("good") as server:
        agent = make_agent(f"llm(base_url={server.url}, model=stub-model)", 2)
        decisions = play_round(agent)
        usage = agent.usage()
        assert usage["decisions"] == decisions > 0
        assert usage["fallbacks"] == 0 and usage["retries"] == 0
        assert usage["requests"] == usage["asked"] == len(server.requests) > 0
        assert usage["prompt_tokens"] > 0 and usage["completion_tokens"] == 5 * usage["asked"]
        request = server.requests[0]
        assert request["model"] == "stub-model" and request["temperature"] == 0.0
        prompt = request["messages"][1]["content"]
        assert "The rules:" in prompt and "Legal moves:" in prompt and "Your hand" in prompt
    host = server.url.split("://")[1].split("/")[0]  # the label shows the server's host
    assert agent.name == f"llm(base_url={host},model=stub-model)"


def test_garbage_gets_one_retry_quoting_the_error_then_counting_s_move():
    with StubServer("garbage") as server:
        agent = make_agent(f"llm(base_url={server.url}, model=m)", 2)
        play_round(agent)
        usage = agent.usage()
        assert usage["asked"] > 0
        assert usage["retries"] == usage["fallbacks"] == usage["asked"]
        assert usage["requests"] == 2 * usage["asked"]
        retry = server.requests[1]["messages"]
        assert retry[-2] == {"role": "assistant", "content": "I like turtles."}
        assert (
            "cannot be played" in retry[-1]["content"] and "is not a move" in retry[-1]["content"]
        )
        assert all("unusable answer twice" in r for r in agent.fallback_reasons)


def test_a_bad_first_answer_is_saved_by_the_retry():
    with StubServer("bad-then-good") as server:
        agent = make_agent(f"llm(base_url={server.url}, model=m)", 2)
        play_round(agent)
        usage = agent.usage()
        assert usage["retries"] == usage["asked"] > 0 and usage["fallbacks"] == 0


def test_an_illegal_number_falls_back_with_the_reason():
    with StubServer("illegal") as server:
        agent = make_agent(f"llm(base_url={server.url}, model=m)", 2)
        play_round(agent, limit=3)
        assert agent.usage()["fallbacks"] > 0
        assert "no legal move number" in agent.fallback_reasons[0]


@pytest.mark.parametrize("legal_moves", ["listed", "hidden"])
@pytest.mark.parametrize("on_invalid", ["fallback", "forfeit"])
def test_every_combination_of_legal_moves_and_on_invalid(legal_moves, on_invalid):
    options = f"model=m, legal_moves={legal_moves}, on_invalid={on_invalid}"
    listed = legal_moves == "listed"
    # a model that answers well plays its own moves, the list shown or not
    with StubServer("good") as server:
        agent = make_agent(f"llm(base_url={server.url}, {options})", 2)
        play_round(agent)
        usage = agent.usage()
        assert usage["asked"] > 0 and usage["retries"] == usage["fallbacks"] == 0
        assert usage["forfeits"] == 0
    system, prompts = server.requests[0]["messages"][0]["content"], server.requests
    assert system == (SYSTEM_PROMPT if listed else SYSTEM_PROMPT_HIDDEN)
    for request in prompts:
        prompt = request["messages"][1]["content"]
        numbered = re.findall(r"^  \d+\. ", prompt, re.M)
        if listed:
            assert "\nLegal moves:\n  1. " in prompt and numbered
        else:
            assert "Legal moves:" not in prompt and not numbered
            assert prompt.endswith(WORDS_INSTRUCTIONS)
    # a model whose answers name no legal move: a retry, then counting's move or a forfeit
    with StubServer("illegal") as server:
        agent = make_agent(f"llm(base_url={server.url}, {options})", 2)
        if on_invalid == "fallback":
            play_round(agent, limit=3)
        else:
            with pytest.raises(Forfeit, match="unusable answer twice") as caught:
                play_round(agent)
        usage = agent.usage()
        retry = server.requests[1]["messages"][-1]["content"]
    reason = "no legal move number" if listed else "is not a legal move now"
    assert reason in retry and agent.fallback_reasons and reason in agent.fallback_reasons[0]
    assert ("Move: <number>" if listed else "Move: <move>") in retry
    if not listed:  # the retry does not list the legal moves either
        assert "1." not in retry and "draw stock, take discard, discard <card>" in retry
    if on_invalid == "fallback":
        assert usage["fallbacks"] == usage["asked"] == usage["retries"] > 0
        assert usage["forfeits"] == 0
    else:
        assert usage["forfeits"] == usage["asked"] == usage["retries"] == 1
        assert usage["fallbacks"] == 0 and reason in str(caught.value)


def test_a_forfeit_is_scored_by_tt_arena_and_counted_in_its_costs(tmp_path, capsys):
    from tt_env.arena import main

    out = tmp_path / "t.json"
    with StubServer("garbage") as server:
        spec = f"llm(base_url={server.url}, model=m, legal_moves=hidden, on_invalid=forfeit)"
        args = [spec, "greedy", "--games", "2", "--episode", "round", "--plain", "--workers", "1"]
        assert main(args + ["--json", str(out)]) == 0
    table = capsys.readouterr().out
    assert re.search(r"fallbacks +forfeits\n", table)
    data = json.loads(out.read_text())
    llm = next(a for a in data["agents"] if a["label"].startswith("llm"))
    assert llm["usage"]["forfeits"] == 4 and llm["usage"]["fallbacks"] == 0  # a round each game
    for game in data["games"]:
        seat = game["seats"].index(0)
        assert game["usage"][seat]["forfeits"] == 1 and game["went_out"][0] != seat


def test_a_slow_server_times_out_and_the_game_goes_on():
    with StubServer("slow", delay=2.0) as server:
        agent = LLMAgent(2, base_url=server.url, model="m", timeout=0.3, retries=0)
        decisions = play_round(agent, limit=4)
        usage = agent.usage()
        assert decisions == 4 and usage["fallbacks"] == usage["asked"] > 0
        assert "timeout of 0.3 s" in agent.fallback_reasons[0]


@pytest.mark.parametrize("mode", ["down", "error"])
def test_a_server_that_is_down_or_failing_gives_fallbacks_and_a_reason(mode):
    if mode == "down":
        agent = LLMAgent(2, base_url=dead_url(), model="m", timeout=5, retries=1)
        decisions = play_round(agent, limit=3)
    else:
        with StubServer("error") as server:
            agent = LLMAgent(2, base_url=server.url, model="m", timeout=5, retries=1)
            decisions = play_round(agent, limit=3)
    usage = agent.usage()
    assert decisions == 3 and usage["fallbacks"] == usage["asked"] > 0
    assert usage["requests"] == 2 * usage["asked"]  # one retry of the request each
    expected = "cannot reach" if mode == "down" else "server answered 500"
    assert expected in agent.fallback_reasons[0]


def test_the_key_comes_from_the_environment_and_bad_options_are_named(monkeypatch):
    with pytest.raises(LLMError, match=r"\$OPENAI_API_KEY"):
        make_agent("llm(model=gpt-4o-mini)", 2)
    with pytest.raises(LLMError, match=r"\$MY_KEY"):
        make_agent("llm(model=m, api_key_env=MY_KEY)", 2)
    monkeypatch.setenv("MY_KEY", "sk-test")
    agent = make_agent("llm(model=m, api_key_env=MY_KEY)", 2)
    assert agent._client.api_key == "sk-test"
    with pytest.raises(ValueError, match="needs model"):
        make_agent("llm", 2)
    with pytest.raises(ValueError, match="unknown option 'key'"):
        make_agent("llm(model=m, key=abc)", 2)
    with pytest.raises(ValueError, match="timeout"):
        make_agent("llm(model=m, base_url=http://127.0.0.1:9/v1, timeout=-1)", 2)
    with pytest.raises(ValueError, match="legal_moves must be listed or hidden, got 'shown'"):
        make_agent("llm(model=m, base_url=http://127.0.0.1:9/v1, legal_moves=shown)", 2)
    with pytest.raises(ValueError, match="on_invalid must be fallback or forfeit, got 'resign'"):
        make_agent("llm(model=m, base_url=http://127.0.0.1:9/v1, on_invalid=resign)", 2)


def test_the_replay_keeps_what_the_model_said(tmp_path):
    from tt_env.arena.games import play_game
    from tt_env.arena.schedule import Match

    rules = Rules()
    with StubServer("good") as server:
        agents = [
            make_agent(f"llm(base_url={server.url}, model=m)", 2, rules),
            make_agent("greedy", 2, rules),
        ]
        match = Match(deal=0, table=0, rotation=0, seats=(0, 1), seed=3)
        result = play_game(match, agents, rules, "round", replays=tmp_path, names=["llm", "greedy"])
    assert result.usage[0]["asked"] > 0 and result.usage[1] is None
    record = json.loads(next(tmp_path.glob("*.json")).read_text())
    said = [a for a in record["annotations"] if a and a["kind"] == "llm"]
    assert said and "Move:" in said[0]["text"]
    page = tmp_path / next(tmp_path.glob("*.json")).name.replace(".json", ".html")
    assert "I play the last legal move." in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("workers", [1, 2])
def test_tt_arena_plays_an_llm_on_duplicate_deals_and_reports_its_costs(tmp_path, workers):
    from tt_env.arena import main
    from tt_env.arena.results import load_results

    with StubServer("bad-then-good" if workers == 1 else "garbage") as server:
        spec = f"llm(base_url={server.url}, model=m, timeout=10)"
        out = tmp_path / "t.json"
        code = main(
            [
                spec,
                "greedy",
                "--games",
                "2",
                "--episode",
                "round",
                "--seed",
                "4",
                "--plain",
                "--workers",
                str(workers),
                "--json",
                str(out),
            ]
        )
    assert code in (0, None)
    settings, games = load_results(out)
    assert len(games) == 4 and all(g.usage for g in games)
    llm = [g.usage[g.seats.index(0)] for g in games]
    assert all(u["asked"] > 0 for u in llm)
    if workers == 2:  # garbage: every asked decision fell back
        assert all(u["fallbacks"] == u["asked"] for u in llm)
    data = json.loads(out.read_text())
    board = {a["label"]: a for a in data["agents"]}
    assert board["greedy"]["usage"] is None
    assert board[[k for k in board if k.startswith("llm")][0]]["usage"]["asked"] > 0
