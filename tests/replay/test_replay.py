"""tt-replay: the page data matches the engine's replay step by step, a seat's view holds nothing
hidden, annotations, the command lines (tt-replay, tt-arena --replays, tt-play --save), and the
page itself in headless Chromium, driven with the keyboard."""

from __future__ import annotations

import io
import json
import os
import re
import time
from pathlib import Path

import numpy as np
import pytest
from recorded_games import play_record, quick_record

from tt_env import arena, play, replay, three_thirteen_v0
from tt_env.agents import make_agent
from tt_env.game.cards import ALL_CARDS, parse_cards
from tt_env.game.engine import Game, Phase
from tt_env.game.melds import is_meld, solve
from tt_env.game.rules import Rules
from tt_env.replay import ReplayError, replay_data

CHROMIUM = Path("/usr/bin/chromium")


# ---------------------------------------------------------------------------------- helpers
def names(cards) -> list[str]:
    return sorted(str(ALL_CARDS[int(c)]) for c in cards)


def engine_steps(record: dict):
    """What each step of a replay must show, from the engine alone (not the replay code): the
    deal, the state after each move; a round's last move shows the round as it ended with the
    hands as scored, then the next deal is a step of its own."""

    def snapshot(g: Game, result=None):
        if result is None:
            hands = [names(g.hand(s)) for s in range(g.num_players)]
        else:
            hands = [
                names([c for m in a.melds for c in m] + list(a.deadwood))
                for a in result.arrangements
            ]
        top = g.top_discard
        return {
            "round": g.round_index,
            "current": g.current,
            "phase": g.phase,
            "hands": hands,
            "points": None if result is None else list(result.deadwood_points),
            "top": "" if top is None else str(top),
            "pile": [str(c) for c in g.discard_pile],
            "stock": g.stock_size,
            "scores": list(g.scores),
            "known": [names(g.taken_from_discard(s)) for s in range(g.num_players)],
            "sizes": [len(g.hand(s)) for s in range(g.num_players)],
            "view": [g.view(s) for s in range(g.num_players)],
            "wild": g.wild_rank,
        }

    game = Game(Rules.from_dict(record["rules"]), seed=record["seed"])
    yield snapshot(game)
    for text in record["moves"]:
        outcome = game.apply(text)
        if outcome.round_result is None:
            yield snapshot(game)
            continue
        yield snapshot(game.ended_round(), outcome.round_result)
        if not game.is_over:
            yield snapshot(game)


def expand(data: dict) -> list[dict]:
    """The page's steps as whole states (what the page's script does with the changes)."""
    states, last = [], {}
    for delta in data["steps"]:
        state = {k: v for k, v in last.items() if k not in ("m", "res", "deal")}
        for key, value in delta.items():
            if key == "p+":
                state["p"] = state["p"] + [value]
            elif key == "p-":
                state["p"] = state["p"][:-1]
            elif key in ("h", "n", "k") and key in last:
                patched = list(last[key])
                for seat, v in value:
                    patched[seat] = v
                state[key] = patched
            else:
                state[key] = value
        states.append(state)
        last = state
    return states


def shown_hand(data: dict, hand_id: int) -> list[str]:
    melds, deadwood, _ = data["hands"][hand_id]
    return names([c for m in melds for c in m] + deadwood)


RULE_SETS = [
    Rules(num_players=2, max_turns_per_round=16),
    Rules(
        num_players=3,
        jokers_per_deck=2,
        redemption=True,
        discard_drawn_upcard=True,
        max_turns_per_round=18,
    ),
    Rules(num_players=4, false_out_penalty=20, aces_high=True, max_turns_per_round=20),
]


# ---------------------------------------------------------------------------------- page data
@pytest.mark.parametrize("rules", RULE_SETS, ids=["2p", "3p-jokers-redemption", "4p-false-out"])
def test_every_step_shows_what_the_engine_replay_gives(rules):
    record = quick_record(rules, seed=5)
    data = replay_data(record)
    states = expand(data)
    expected = list(engine_steps(record))
    assert len(states) == len(expected) == len(data["steps"])
    assert len(states) == 1 + len(record["moves"]) + len(data["results"]) - 1  # deals between
    r = Rules.from_dict(record["rules"])
    for i, (state, want) in enumerate(zip(states, expected)):
        assert state["r"] == want["round"] and state["cur"] == want["current"], i
        assert state["ph"] == int(want["phase"]), i
        assert [str(ALL_CARDS[c]) for c in state["p"]] == want["pile"], i
        assert state["st"] == want["stock"] and state["sc"] == want["scores"], i
        assert [names(k) for k in state["k"]] == want["known"], i
        assert state["n"] == want["sizes"], i
        assert [shown_hand(data, h) for h in state["h"]] == want["hands"], i
        for seat, h in enumerate(state["h"]):
            melds, deadwood, points = data["hands"][h]
            assert all(is_meld(parse_cards(names(m)), want["wild"], r) for m in melds)
            if want["points"] is None:  # in play: the solver's best arrangement of the hand
                assert points == solve(parse_cards(want["hands"][seat]), want["wild"], r).points
            else:  # as scored
                assert points == want["points"][seat]
    assert data["winners"] == record["winners"] and data["scores"] == record["scores"]
    assert [res["pen"] for res in data["results"]] == [
        list(x.penalties) for x in Game.from_record(record).round_results
    ]


def test_every_move_is_labelled_in_words():
    record = quick_record(Rules(num_players=2, max_turns_per_round=16), seed=2)
    data = replay_data(record)
    moves = [step["m"] for step in data["steps"] if "m" in step]
    assert [m["mv"] for m in moves] == record["moves"]
    for m in moves:
        if m["mv"] == "draw stock":
            assert m["w"] == "draws from the stock" and m["wp"].startswith("draws ")
            assert m["wp"].endswith("from the stock") and "cp" in m
        elif m["mv"] == "take discard":
            assert m["w"].startswith("takes ") and m["w"].endswith("from the discard pile")
        else:
            assert "discarding" in m["w"] or m["w"].startswith("discards ")
    assert sum("res" in step for step in data["steps"]) == 11
    assert sum("deal" in step for step in data["steps"]) == 11


@pytest.mark.parametrize("rules", RULE_SETS[:2], ids=["2p", "3p-jokers-redemption"])
def test_a_seats_view_holds_only_what_game_view_shows_that_seat(rules):
    record = quick_record(rules, seed=9)
    n = rules.num_players
    for seat in range(n):
        data = replay_data(record, seat=seat)
        text = json.dumps(data)
        states = expand(data)
        for i, (state, want) in enumerate(zip(states, engine_steps(record))):
            view = want["view"][seat]
            scoring = want["points"] is not None
            for s, h in enumerate(state["h"]):
                if s == seat:
                    assert shown_hand(data, h) == names(_cards(view.hand)) or scoring, i
                elif scoring:  # hands are shown at the scoring
                    assert shown_hand(data, h) == want["hands"][s], i
                else:
                    assert h is None, (i, s)
            assert state["p"] == list(view.discard_pile)
            assert state["k"] == [_cards(t) for t in view.taken]
            assert state["n"] == list(view.hand_sizes)
        # every hand of the table is one of the seat's own, or one shown at a scoring
        own = {
            tuple(names(_cards(w["view"][seat].hand)))
            for w in engine_steps(record)
            if w["points"] is None
        }
        scored = {tuple(h) for w in engine_steps(record) if w["points"] for h in w["hands"]}
        assert {tuple(shown_hand(data, i)) for i in range(len(data["hands"]))} <= own | scored
        for step in data["steps"]:
            m = step.get("m")
            if m and m["s"] != seat:
                assert "wp" not in m and "cp" not in m and "a" not in m  # others' stock draws
        assert '"wp"' in text  # its own draws are there
    # the check can fail: the spectator's data holds the others' hands in play
    spectator = expand(replay_data(record))
    assert all(h is not None for state in spectator for h in state["h"])


def _cards(counts):
    return [k for k in range(53) for _ in range(counts[k])]


def test_hands_are_solved_once_and_steps_are_small():
    record = quick_record(Rules(num_players=4, max_turns_per_round=40), seed=1)
    data = replay_data(record)
    in_play, scored = set(), set()
    for want in engine_steps(record):
        if want["points"] is None:
            in_play.update((want["wild"], tuple(h)) for h in want["hands"])
    for result in Game.from_record(record).round_results:
        scored.update(
            (tuple(tuple(m) for m in a.melds), tuple(sorted(a.deadwood)), a.points)
            for a in result.arrangements
        )
    assert len(data["hands"]) == len(in_play) + len(scored)  # each solved once
    move_steps = [s for s in data["steps"] if "m" in s and "res" not in s]
    assert all("h" in s and len(s["h"]) == 1 for s in move_steps)  # one seat's hand changes


def test_annotations_are_shown_and_checked():
    record = play_record(
        Rules(), ["distilled_2p_standard", "greedy"], 4, explain=True, episode="round"
    )
    notes = record["annotations"]
    assert len(notes) == len(record["moves"])
    learned = [n for n in notes if n is not None]
    assert learned and all(n["kind"] == "probability" for n in learned)
    assert all(1 <= len(n["values"]) <= replay.MAX_CANDIDATES for n in learned)
    assert Game.from_record(record).scores == record["scores"]  # still a valid game record
    data = replay_data(record)
    shown = [s["m"]["a"] for s in data["steps"] if "m" in s and "a" in s["m"]]
    assert len(shown) == len(learned) and data["annotated"]
    # each annotation's best value is the move the learned agent played (deterministic)
    moves = [s["m"] for s in data["steps"] if "m" in s and "a" in s["m"]]
    assert all(m["a"]["values"][0][0] == m["mv"] for m in moves)
    for bad in (
        {"annotations": [None]},
        {"annotations": [{"kind": "x", "values": {"draw stock": "high"}}] * len(notes)},
        {"annotations": [{"kind": "x", "values": {"draw stock": float("nan")}}] * len(notes)},
        {"annotations": ["probability"] * len(notes)},
        {"players": ["only one"]},
        {"players": "ab"},
    ):
        with pytest.raises(ReplayError, match="players|annotation"):
            replay_data({**record, **bad})


def test_explain_of_the_learned_and_the_search_agent():
    from tt_env.agents.learned import LearnedAgent
    from tt_env.agents.search import SearchAgent

    env = three_thirteen_v0.raw_env(num_players=2)
    env.reset(seed=3)
    obs = env.last()[0]
    agent = LearnedAgent("distilled_2p_standard", num_players=2)
    kind, values = agent.explain(obs["observation"], obs["action_mask"])
    assert kind == "probability" and set(values) == set(np.flatnonzero(obs["action_mask"]))
    assert sum(values.values()) == pytest.approx(1.0)
    search = SearchAgent(num_players=2, seed=0, samples=8)
    found = None
    for _ in range(60):  # until a decision that the search weighed
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        action = search.act(obs["observation"], obs["action_mask"])
        found = search.explain(obs["observation"], obs["action_mask"])
        if found is not None:
            break
        env.step(action)
    assert found is not None
    kind, values = found
    assert "lower is better" in kind and action in values and len(values) >= 2
    assert search.explain(obs["observation"] * 0, obs["action_mask"]) is None  # another one
    note = replay.explain_move(search, obs["observation"], obs["action_mask"])
    assert list(note["values"].values()) == sorted(note["values"].values())  # best first
    assert (
        replay.explain_move(make_agent("greedy", 2, Rules(), 0), obs["observation"], None) is None
    )


def test_the_title_names_the_round_a_game_was_left_in():
    rules = Rules(num_players=2, max_turns_per_round=6)
    whole = quick_record(rules, seed=2)
    title = "Three Thirteen: 2 players, {}, seed 2"
    assert replay_data(whole)["title"] == title.format("11 of 11 rounds")
    game = Game(rules, seed=2)
    for text in whole["moves"]:
        game.apply(text)
        if game.round_results:
            break
    assert replay_data(game.record())["title"] == title.format("1 of 11 rounds")  # between rounds
    for text in whole["moves"][len(game.moves) :][:3]:
        game.apply(text)
    assert game.round_index == 1 and len(game.round_results) == 1
    assert replay_data(game.record())["title"] == title.format("left in round 2 of 11")


# ---------------------------------------------------------------------------------- tt-replay
def test_tt_replay_writes_one_self_contained_page(tmp_path, capsys):
    record_path = tmp_path / "game.json"
    record = quick_record(Rules(num_players=3, max_turns_per_round=12), seed=3)
    record["players"] = ["<b>me</b>", "x", "y"]
    record_path.write_text(json.dumps(record))
    assert replay.main([str(record_path), "--seat", "1"]) == 0
    page = (tmp_path / "game.html").read_text(encoding="utf-8")
    assert "tt-replay: wrote" in capsys.readouterr().out
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # no network
    assert "<script src" not in page and "<link" not in page
    assert "<b>me</b>" not in page  # names are data, escaped; drawn as text
    data = json.loads(re.search(r'id="tt-data">(.*?)</script>', page, re.S).group(1))
    assert data == json.loads(json.dumps(replay_data(record, open_view=1)))
    assert data["open"] == 1 and data["view"] is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["game.html", "game.json"]
    private_argv = [str(record_path), "-o", str(tmp_path / "p.html"), "--seat", "2", "--private"]
    assert replay.main(private_argv) == 0
    private = (tmp_path / "p.html").read_text(encoding="utf-8")
    data = json.loads(re.search(r'id="tt-data">(.*?)</script>', private, re.S).group(1))
    assert data["view"] == 2 and data == json.loads(json.dumps(replay_data(record, seat=2)))


@pytest.mark.parametrize(
    "argv, contents, words",
    [
        (["missing.json"], None, ["cannot read missing.json"]),
        (["r.json"], b"{not json", ["r.json", "not valid JSON"]),
        (["r.json"], b"\xff\xfe", ["r.json", "not UTF-8"]),
        (["r.json"], b'{"format": "other"}', ["r.json", "not a tt_env game record"]),
        (["r.json", "--seat", "7"], "record", ["--seat 7", "2 seats"]),
        (["r.json", "--seat", "-1"], "record", ["--seat"]),
        (["r.json", "--private"], "record", ["--private needs --seat"]),
        (["r.json", "-o", "no/such/dir/x.html"], "record", ["--output", "no such directory"]),
        (["r.json", "-o", "r.json"], "record", ["--output", "the record itself"]),
        (["r.json", "-o", "."], "record", ["--output", "not a file name"]),
        (["r.json", "--seets", "1"], "record", ["unrecognized arguments"]),
        (["r.json"], "bad-moves", ["does not replay"]),
    ],
)
def test_tt_replay_bad_input_is_one_line(argv, contents, words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    record = quick_record(Rules(num_players=2, max_turns_per_round=6), seed=1)
    if contents == "record":
        contents = json.dumps(record).encode()
    elif contents == "bad-moves":
        contents = json.dumps({**record, "moves": ["discard 7H"]}).encode()
    if contents is not None:
        Path("r.json").write_bytes(contents)
    before = sorted(p.name for p in tmp_path.iterdir())
    try:
        status = replay.main(argv)
    except SystemExit as exc:
        status = exc.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("tt-replay: error: "), err
    for word in words:
        assert word in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing written


def test_tt_replay_as_a_command_and_a_record_too_large(tmp_path, monkeypatch, capsys):
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "tt_env.replay", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "Is a directory" in done.stderr
    path = tmp_path / "r.json"
    path.write_text(json.dumps(quick_record(Rules(max_turns_per_round=4))))
    monkeypatch.setattr("tt_env.replay.core.MAX_RECORD_BYTES", 100)
    assert replay.main([str(path)]) == 2
    assert "too large for a game record" in capsys.readouterr().err


# ---------------------------------------------------------------------------------- writers
def test_tt_arena_replays_every_game_and_an_index(tmp_path, capsys):
    out = tmp_path / "replays"  # made by tt-arena
    argv = ["random", "greedy", "--games", "2", "--workers", "1", "--quiet"]
    argv += ["--episode", "round", "--max-turns-per-round", "8", "--replays", str(out)]
    assert arena.main(argv) == 0
    files = sorted(p.name for p in out.iterdir())
    games = [f"game-d{d:04d}-t00-r{r}" for d in range(2) for r in range(2)]
    assert files == sorted(
        [g + ".html" for g in games] + [g + ".json" for g in games] + ["index.html"]
    )
    index = (out / "index.html").read_text(encoding="utf-8")
    for g in games:
        assert f'href="{g}.html"' in index and f'href="{g}.json"' in index
        record = json.loads((out / f"{g}.json").read_text())
        assert len(record["players"]) == 2 and Game.from_record(record)
    assert 'href="#table-0"' in index and "Table 0: random vs greedy" in index
    # the seats' names follow the rotation
    r0 = json.loads((out / "game-d0000-t00-r0.json").read_text())["players"]
    r1 = json.loads((out / "game-d0000-t00-r1.json").read_text())["players"]
    assert r0 == ["random", "greedy"] and r1 == ["greedy", "random"]


def test_tt_arena_checks_the_replays_directory_before_any_game(tmp_path, capsys, monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the tournament started")

    monkeypatch.setattr("tt_env.arena.cli.run_tournament", refuse)
    (tmp_path / "file").write_text("x")
    for target, words in (
        (tmp_path / "file", "is a file"),
        (tmp_path / "no" / "such", "no such directory"),
        (Path("/proc/replays"), "cannot write in /proc"),
    ):
        assert arena.main(["random", "greedy", "--replays", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--replays" in err and words in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_tt_arena_without_replays_calls_no_explain(monkeypatch):
    from tt_env.agents.learned import LearnedAgent

    def fail(*args):
        raise AssertionError("explain called without --replays")

    monkeypatch.setattr(LearnedAgent, "explain", fail)
    result = arena.run_tournament(
        ["distilled_2p_standard", "random"], Rules(), games=1, episode="round"
    )
    assert len(result.results) == 2


def test_tt_play_saves_the_game_it_played(tmp_path, capsys):
    path = tmp_path / "played.json"
    argv = ["--episode", "round", "--seed", "3", "--opponents", "distilled_2p_standard"]
    argv += ["--save", str(path)]
    out = io.StringIO()
    assert play.main(argv, input_fn=lambda _: "1", out=out) == 0
    assert f"saved to {path}" in out.getvalue()
    record = json.loads(path.read_text())
    assert record["players"] == ["you", "distilled_2p_standard"]
    game = Game.from_record(record)
    assert len(game.round_results) == 1 and game.moves
    movers = [s["m"]["s"] for s in replay_data(record)["steps"] if "m" in s]
    notes = record["annotations"]
    assert all(n is None for n, seat in zip(notes, movers) if seat == 0)  # the person
    assert all(n["kind"] == "probability" for n, seat in zip(notes, movers) if seat == 1)
    assert replay.main([str(path)]) == 0 and (tmp_path / "played.html").exists()
    # leaving early still saves what was played; a bad --save path is refused at once
    assert play.main(argv, input_fn=lambda _: "quit", out=io.StringIO()) == 0
    assert Game.from_record(json.loads(path.read_text())).moves == []
    capsys.readouterr()
    assert play.main(argv[:-1] + [str(tmp_path / "no" / "x.json")], out=io.StringIO()) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--save" in err and "no such directory" in err


# ---------------------------------------------------------------------------------- browser
def _need_chromium():
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail("CI is set but /usr/bin/chromium is missing (.ci/run installs it)")
        pytest.skip("no /usr/bin/chromium (apt-get install chromium)")
    from chromium import Chromium

    return Chromium


READ_PAGE = """(() => {
  const st = document.getElementById("status").dataset;
  const seats = [...document.querySelectorAll("#seats .seat")].map(e => ({
    seat: +e.dataset.seat, size: +e.dataset.size, hand: e.dataset.hand ?? null,
    known: e.dataset.known, hidden: e.dataset.hidden ?? null, score: +e.dataset.score}));
  return {step: +st.step, round: +st.round, phase: st.phase, current: +st.current, seats,
    top: document.getElementById("top").dataset.card,
    stock: +document.getElementById("stock").dataset.count,
    below: document.getElementById("below").dataset.cards,
    move: document.querySelector("#move .words").dataset.text,
    winners: document.querySelector("[data-winners]")?.dataset.winners ?? null,
    errors: window.__ttErrors};
})()"""
PHASE_NAMES = {Phase.DRAW: "draw", Phase.DISCARD: "discard", Phase.GAME_OVER: "game over"}
PHASE_NAMES[Phase.ROUND_OVER] = "round over"


def _check_shown(shown: dict, want: dict, viewer: int | None) -> None:
    step = shown["step"]
    assert shown["round"] == want["round"] and shown["phase"] == PHASE_NAMES[want["phase"]], step
    assert shown["top"] == want["top"] and shown["stock"] == want["stock"], step
    assert (shown["below"].split() if shown["below"] else []) == want["pile"][:-1], step
    for seat, panel in enumerate(shown["seats"]):
        assert panel["seat"] == seat and panel["size"] == want["sizes"][seat], step
        assert panel["score"] == want["scores"][seat], step
        assert sorted(panel["known"].split()) == want["known"][seat], step
        if viewer is None or viewer == seat or want["points"] is not None:
            assert sorted(panel["hand"].split()) == want["hands"][seat], (step, seat)
        else:  # the others' hands: only the known cards and how many more
            assert panel["hand"] is None, (step, seat)
            assert int(panel["hidden"]) == want["sizes"][seat] - len(want["known"][seat])


def test_the_page_in_headless_chromium(tmp_path):
    Chromium = _need_chromium()
    rules = Rules(num_players=2)
    record = play_record(rules, ["distilled_2p_standard", "greedy"], seed=11, explain=True)
    page = tmp_path / "game.html"
    replay.write_replay(record, page)
    expected = list(engine_steps(record))
    start = time.perf_counter()
    with Chromium() as browser:
        browser.open(page)
        assert browser.evaluate("ttReplay.steps") == len(expected)
        shown = browser.evaluate(READ_PAGE)
        _check_shown(shown, expected[0], None)
        checked = 1
        for i in range(1, len(expected)):  # the whole game, with the keyboard
            browser.key("ArrowRight")
            if i % 7 == 0 or expected[i]["points"] is not None or i == len(expected) - 1:
                shown = browser.evaluate(READ_PAGE)
                assert shown["step"] == i
                _check_shown(shown, expected[i], None)
                checked += 1
        assert shown["winners"] == " ".join(map(str, record["winners"]))
        browser.key("ArrowRight")  # past the end: stays
        assert browser.evaluate("ttReplay.step()") == len(expected) - 1
        browser.key("ArrowLeft")
        assert browser.evaluate("ttReplay.step()") == len(expected) - 2
        browser.screenshot(tmp_path / "end.png", full_page=True)
        browser.key("Home")
        assert browser.evaluate("ttReplay.step()") == 0
        deals = [i for i, s in enumerate(replay_data(record)["steps"]) if "deal" in s]
        browser.key("PageDown")  # the next round's deal
        assert browser.evaluate("ttReplay.step()") == deals[1]
        browser.key("PageDown")
        browser.key("PageUp")
        assert browser.evaluate("ttReplay.step()") == deals[1]
        browser.key("Home")
        # seat 1's view: seat 0's hand hidden while the round is played, shown when scored
        browser.evaluate(
            'document.getElementById("view").value = "1";'
            'document.getElementById("view").dispatchEvent(new Event("change"))'
        )
        for i in range(1, 40):
            browser.key("ArrowRight")
            _check_shown(browser.evaluate(READ_PAGE), expected[i], 1)
        # the probabilities of seat 0 (the learned agent) are not seat 1's to see
        steps = replay_data(record)["steps"]
        j = next(i for i, s in enumerate(steps) if s.get("m", {}).get("s") == 0 and "a" in s["m"])
        browser.evaluate(f"ttReplay.go({j})")
        assert browser.evaluate("document.querySelectorAll('.ann').length") == 0
        for view in (0, -1):
            browser.evaluate(f"ttReplay.setView({view})")
            assert browser.evaluate("document.querySelectorAll('.ann').length") == 1
        browser.evaluate("ttReplay.go(39)")
        # play: the page moves on by itself
        browser.key(" ")
        time.sleep(1.0)
        browser.key(" ")
        assert browser.evaluate("ttReplay.step()") > 39
        browser.screenshot(tmp_path / "replay.png")
        assert browser.evaluate("window.__ttErrors") == []
        assert browser.errors() == []
    elapsed = time.perf_counter() - start
    png = (tmp_path / "replay.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000
    assert checked > len(expected) // 8
    print(f"\n{len(expected)} steps stepped through in Chromium in {elapsed:.1f} s")


def _address_shows(browser, step: int) -> None:
    """Wait until the page's address says ``#step=STEP`` (written once the steps rest)."""
    deadline = time.perf_counter() + 10
    while browser.evaluate("location.hash") != f"#step={step}":
        assert time.perf_counter() < deadline, browser.evaluate("location.hash")
        time.sleep(0.05)


def test_the_step_is_in_the_address_so_that_a_position_can_be_shared(tmp_path):
    Chromium = _need_chromium()
    record = quick_record(Rules(num_players=3, max_turns_per_round=12), seed=4)
    page = tmp_path / "game.html"
    replay.write_replay(record, page)
    last = len(replay_data(record)["steps"]) - 1
    with Chromium() as browser:
        browser.open(page, fragment="step=120")  # a shared link opens at its step
        assert browser.evaluate("ttReplay.step()") == 120
        assert browser.evaluate(READ_PAGE)["step"] == 120
        entries = browser.evaluate("history.length")
        for _ in range(5):  # stepping moves the address on, without a history entry a step
            browser.key("ArrowRight")
        assert browser.evaluate("ttReplay.step()") == 125
        _address_shows(browser, 125)
        assert browser.evaluate("history.length") == entries
        browser.key("End")
        _address_shows(browser, last)
        browser.evaluate('location.hash = "#step=7"')  # an address typed in: the page follows
        deadline = time.perf_counter() + 10
        while browser.evaluate("ttReplay.step()") != 7:
            assert time.perf_counter() < deadline
            time.sleep(0.05)
        # (another file each time: a link into the page already open loads nothing)
        beyond, junk = tmp_path / "beyond.html", tmp_path / "junk.html"
        beyond.write_bytes(page.read_bytes())
        junk.write_bytes(page.read_bytes())
        browser.open(beyond, fragment="step=99999")  # past the end: the last step
        assert browser.evaluate("ttReplay.step()") == last
        _address_shows(browser, last)
        browser.open(junk, fragment="step=junk")  # not a step: the first
        assert browser.evaluate("ttReplay.step()") == 0
        assert browser.evaluate("window.__ttErrors") == [] and browser.errors() == []


def test_a_large_game_stays_responsive_in_chromium(tmp_path):
    """8 players, 22 rounds (there and back), random play: the longest games there are."""
    Chromium = _need_chromium()
    rules = Rules(num_players=8, there_and_back=True, max_turns_per_round=120)
    record = quick_record(rules, seed=8)
    page = tmp_path / "large.html"
    start = time.perf_counter()
    size = replay.write_replay(record, page)
    written = time.perf_counter() - start
    with Chromium() as browser:
        start = time.perf_counter()
        browser.open(page)
        loaded = time.perf_counter() - start
        timing = browser.evaluate("ttReplay.timeAll(7)")
        browser.key("End")
        shown = browser.evaluate(READ_PAGE)
        _check_shown(shown, list(engine_steps(record))[-1], None)
        assert browser.errors() == [] and shown["errors"] == []
    print(
        f"\n8 players, 22 rounds, {len(record['moves'])} moves: {size / 1e6:.2f} MB written in "
        f"{written:.1f} s, loaded in {loaded:.1f} s, a step drawn in {timing['mean_ms']:.1f} ms "
        f"(max {timing['max_ms']:.1f} ms, {timing['steps']} steps)"
    )
    assert size < 4e6 and timing["mean_ms"] < 100 and loaded < 20
