"""The evaluation suites (``tt-arena --suite``): their definitions and seeds, the scoring of a
row, the shipped reference files, the command line as docs/benchmark.md shows it."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from tt_env import arena
from tt_env.arena import GameResult, SuiteResult, get_suite, load_reference, play_suite
from tt_env.arena import suite as suites
from tt_env.arena.schedule import ArenaError
from tt_env.game.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
BUILTIN_ROWS = {"random", "greedy", "counting", "search(samples=16)"}


# ---------------------------------------------------------------------------------- definitions
def test_the_suites_and_their_seeds():
    two, four = get_suite("standard-2p-v1"), get_suite("standard-4p-v1")
    assert (two.seats, two.deals, two.rules) == (2, 1000, Rules.preset("standard", num_players=2))
    assert (four.seats, four.deals, four.rules.num_players) == (4, 300, 4)
    for s in (two, four):
        assert s.seed in suites.SUITE_SEEDS
        assert s.opponents == ("random", "greedy", "counting", "search(samples=16)")
        assert s.overall == ("greedy", "counting", "search(samples=16)")
        # what docs/benchmark.md says of them: every deal's environment seed above 10,000,000
        assert min(arena.deal_seed(s.seed, d) for d in range(s.deals)) > 10_000_000
    assert two.seed != four.seed


def test_no_training_config_uses_a_suite_seed():
    """The shipped configs' seeds and evaluation seeds, and the default, lie outside the range
    kept for the suites; tt-train refuses one inside it."""
    from tt_env.train.config import TrainConfig, load_config_file

    configs = sorted((ROOT / "training" / "config").glob("*.toml"))
    assert configs
    seeds = {TrainConfig().eval_seed}
    for path in configs:
        data = load_config_file(path)
        seeds |= {v for k, v in data.items() if k.endswith("seed") and isinstance(v, int)}
    assert {2024, 5, 11} <= seeds  # the configs were read
    assert not seeds & set(suites.SUITE_SEEDS), seeds
    with pytest.raises(ValueError, match="eval_seed 1000003 is in the range kept"):
        TrainConfig(eval_seed=1_000_003)
    TrainConfig(eval_seed=suites.SUITE_SEEDS.stop)  # just outside: fine


def test_an_unknown_suite_is_named_with_the_suites():
    with pytest.raises(ArenaError, match="no suite named 'nope'.*standard-2p-v1, standard-4p-v1"):
        get_suite("nope")


# ---------------------------------------------------------------------------------- scoring
def game(deal, rotation, seats, scores):
    best = min(scores)
    return GameResult(
        deal=deal,
        table=0,
        rotation=rotation,
        seats=tuple(seats),
        scores=tuple(scores),
        round_penalties=(tuple(scores),),
        went_out=(None,),
        winners=tuple(s for s, x in enumerate(scores) if x == best),
        steps=1,
    )


def test_a_row_on_known_games():
    """4 seats: the agent's score less the mean of the other three, and its win (ties shared),
    averaged per deal; the overall averages the overall opponents deal by deal."""
    games = [
        game(0, 0, (0, 1, 2, 3), (10, 20, 30, 40)),  # -20, won
        game(0, 1, (1, 2, 3, 0), (10, 20, 30, 10)),  # 10 - 20 = -10, tie of two: 1/2
        game(1, 0, (0, 1, 2, 3), (50, 20, 20, 20)),  # +30, lost
    ]
    values = suites.per_deal_values(games)
    assert values == {0: (-15.0, 0.75), 1: (30.0, 0.0)}
    easy = {0: (-100.0, 1.0), 1: (-200.0, 1.0)}
    row = suites.suite_row("a", "a", {"random": easy, "b": values, "c": easy}, ("b", "c"))
    assert row.score_diff["b"].mean == pytest.approx(7.5)
    assert row.win_rate["b"].mean == pytest.approx(0.375)
    assert row.score_diff["random"].mean == -150.0
    # overall: per deal (b + c) / 2 = -57.5, -85.0; random left out
    assert row.overall_score_diff.mean == pytest.approx(-71.25)
    assert row.overall_score_diff.n == 2
    expected = arena.mean_ci([-57.5, -85.0])
    assert (row.overall_score_diff.low, row.overall_score_diff.high) == pytest.approx(
        (expected.low, expected.high)
    )
    again = suites.SuiteRow.from_dict(json.loads(json.dumps(row.to_dict())))
    assert again.overall_score_diff.mean == row.overall_score_diff.mean
    assert again.score_diff.keys() == row.score_diff.keys()


@pytest.fixture(scope="module")
def quick_run():
    """counting and greedy on the first 2 deals of standard-2p-v1."""
    return play_suite(get_suite("standard-2p-v1"), ["counting", "greedy"], deals=2)


def test_a_suite_row_is_the_tournament_of_the_agent_and_each_opponent(quick_run):
    suite = quick_run.suite
    counting = quick_run.rows[0]
    assert (counting.label, counting.deals, counting.games) == ("counting", 2, 2 * 2 * 4)
    result = arena.run_tournament(["counting", "greedy"], suite.rules, games=2, seed=suite.seed)
    assert counting.score_diff["greedy"].mean == result.pair("counting", "greedy").diff.mean
    mine = next(s for s in result.agents if s.label == "counting")
    assert counting.win_rate["greedy"].mean == mine.win_rate.mean
    # a deterministic agent against itself: 0 on every deal
    assert counting.score_diff["counting"].mean == 0.0
    assert quick_run.rows[1].score_diff["greedy"].mean == 0.0
    assert not quick_run.complete


def test_the_overall_is_the_mean_of_its_opponents(quick_run):
    for row in quick_run.rows:
        means = [row.score_diff[o].mean for o in quick_run.suite.overall]
        assert row.overall_score_diff.mean == pytest.approx(np.mean(means))


def test_a_quick_check_is_limited_to_the_suites_deals(monkeypatch):
    suite = get_suite("standard-2p-v1")
    with pytest.raises(ArenaError, match="must be 1..1000"):
        play_suite(suite, ["greedy"], deals=1001)
    monkeypatch.setenv("TT_ARENA_SUITE_DEALS", "x")
    with pytest.raises(ArenaError, match="TT_ARENA_SUITE_DEALS='x'"):
        play_suite(suite, ["greedy"])
    monkeypatch.setenv("TT_ARENA_SUITE_DEALS", "1")
    assert suites.suite_deals(suite) == 1


def test_a_bad_agent_fails_before_any_game():
    with pytest.raises(Exception, match="no_such_agent"):
        play_suite(get_suite("standard-2p-v1"), ["no_such_agent"], deals=1)


# ---------------------------------------------------------------------------------- files
@pytest.mark.parametrize("name", list(suites.SUITES))
def test_the_shipped_reference_loads_with_its_schema_version(name):
    suite = get_suite(name)
    raw = json.loads(suites.reference_file(suite).read_text(encoding="utf-8"))
    assert raw["format"] == "tt_env.suite" and raw["schema_version"] == 1
    for key in ("tt_env_version", "command", "date", "deals", "complete", "rules"):
        assert key in raw, key
    assert raw["complete"] == (raw["deals"] == suite.deals)  # a trial file says so
    reference = load_reference(name)
    assert reference.deals == raw["deals"] and reference.meta["command"] == raw["command"]
    labels = {r.label for r in reference.rows}
    assert BUILTIN_ROWS <= labels
    models = {
        p.stem for p in (ROOT / "models").glob("*.npz") if re.search(rf"_{suite.seats}p_", p.stem)
    }
    assert models <= labels, models - labels
    for row in reference.rows:
        assert row.score_diff.keys() == set(suite.opponents)
        assert row.deals == reference.deals
        for est in [*row.score_diff.values(), row.overall_score_diff]:
            assert est.n == reference.deals
            assert reference.deals < 2 or est.low <= est.mean <= est.high


def test_a_file_of_a_newer_schema_is_refused(tmp_path, quick_run):
    data = quick_run.to_dict()
    data["schema_version"] = 2
    path = tmp_path / "s.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ArenaError, match="schema version 2; this tt_env reads up to 1"):
        arena.load_suite_results(path)
    path.write_text('{"format": "tt_env.tournament"}', encoding="utf-8")
    with pytest.raises(ArenaError, match="not a suite's results"):
        arena.load_suite_results(path)


def test_the_tournament_json_carries_its_schema_version(tmp_path):
    result = arena.run_tournament(["greedy", "random"], games=1, episode="round")
    data = json.loads(result.to_json())
    assert data["schema_version"] == arena.RESULTS_SCHEMA_VERSION == 1
    data["schema_version"] = 2
    path = tmp_path / "t.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ArenaError, match="schema version 2"):
        arena.load_results(path)
    del data["schema_version"]  # written before there was one: read as version 1
    path.write_text(json.dumps(data), encoding="utf-8")
    assert len(arena.load_results(path)[1]) == 2


# ---------------------------------------------------------------------------------- tt-arena
def test_tt_arena_suite_list(capsys):
    assert arena.main(["--suite", "list"]) == 0
    out = capsys.readouterr().out
    assert "standard-2p-v1" in out and "1,000 deals" in out
    assert "standard-4p-v1" in out and "300 deals" in out


def test_tt_arena_suite_alone_prints_the_reference_rows(capsys):
    assert arena.main(["--suite", "standard-4p-v1"]) == 0
    out = capsys.readouterr().out
    assert "reference rows:" in out and "led_values_4p_standard" in out
    assert "* " not in out  # nothing of this run


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--suite", "nope", "greedy"], ["no suite named 'nope'", "standard-2p-v1"]),
        (["--suite-deals", "2", "greedy"], ["--suite NAME"]),
        (["--suite", "standard-2p-v1", "greedy", "--games", "3"], ["do not give --games"]),
        (["--suite", "standard-2p-v1", "greedy", "--seats", "4"], ["do not give --seats"]),
        (["--suite", "standard-2p-v1", "greedy", "--aces-high"], ["rule options"]),
        (["--suite", "standard-2p-v1", "mymod_missing:A"], ["mymod_missing"]),
        (["--suite", "standard-2p-v1", "greedy", "--json", "no/dir/x.json"], ["--json"]),
    ],
)
def test_tt_arena_suite_refuses_bad_arguments_in_one_line(argv, words, capsys):
    assert arena.main(argv) == 2
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("tt-arena: error:"), err
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_tt_arena_suite_plays_as_the_page_says(capsys, tmp_path):
    """``tt-arena --suite standard-2p-v1 AGENT --suite-deals N --json FILE`` (docs/benchmark.md):
    the agent's rows marked beside the reference rows, and a file with the rows."""
    path = tmp_path / "mine.json"
    argv = ["--suite", "standard-2p-v1", "greedy", "--suite-deals", "2", "--workers", "1"]
    assert arena.main([*argv, "--json", str(path)]) == 0
    captured = capsys.readouterr()
    out = captured.out
    assert "this run: 2 deals (a quick check: the first 2 only)" in out
    assert "reference rows:" in out
    marked = [line for line in out.splitlines() if line.startswith("* ")]
    assert [line.split()[1] for line in marked] == ["greedy", "greedy"]  # both tables
    assert re.search(r"^\* greedy\s+-?\d", out, flags=re.M)
    assert "greedy against search(samples=16) (4 games)" in captured.err
    saved = arena.load_suite_results(path)
    assert isinstance(saved, SuiteResult) and saved.deals == 2 and not saved.complete
    assert json.loads(path.read_text(encoding="utf-8"))["schema_version"] == 1
    assert saved.rows[0].label == "greedy"
    assert math.isclose(saved.rows[0].score_diff["greedy"].mean, 0.0)


def test_docs_benchmark_commands_are_those_of_the_code():
    """The page names the suites with their deals and seeds, and the flags it shows exist."""
    page = (ROOT / "docs" / "benchmark.md").read_text(encoding="utf-8")
    for suite in suites.SUITES.values():
        assert f"| `{suite.name}` |" in page and f"| {suite.deals:,} | {suite.seed} |" in page
    flags = set(re.findall(r"--[a-z][a-z-]+", arena.build_parser().format_help()))
    for command in re.findall(r"^(?:PYTHONPATH=\. )?tt-arena .*$", page, flags=re.M):
        for flag in re.findall(r"(?<![\w-])--[a-z][a-z-]+", command.split("#")[0]):
            assert flag in flags, (flag, command)


def test_the_reference_script_keeps_each_row_and_takes_it_again(tmp_path, monkeypatch):
    """benchmarks/make_suite_reference.py keeps every played row, so that a run stopped
    part-way goes on where it stopped; a row of other deals is played again."""
    import importlib.util

    path = ROOT / "benchmarks" / "make_suite_reference.py"
    spec = importlib.util.spec_from_file_location("make_suite_reference", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    suite = get_suite("standard-2p-v1")
    store = script.RowStore(tmp_path)
    rows = [("random", "built-in")]
    first = script.play_reference(suite, rows, deals=1, workers=1, command="c", store=store)
    assert len(list(tmp_path.rglob("*.json"))) == 1

    def no_play(*args, **kwargs):
        raise AssertionError("a kept row was played again")

    monkeypatch.setattr(suites, "play_suite", no_play)
    again = script.play_reference(suite, rows, deals=1, workers=1, command="c", store=store)
    assert again.rows[0].to_dict() == first.rows[0].to_dict()
    with pytest.raises(AssertionError, match="played again"):  # other deals: another row
        script.play_reference(suite, rows, deals=2, workers=1, command="c", store=store)
    with pytest.raises(AssertionError, match="played again"):  # --fresh
        script.play_reference(
            suite,
            rows,
            deals=1,
            workers=1,
            command="c",
            store=script.RowStore(tmp_path, reuse=False),
        )
