"""The arena: statistics on known inputs, the duplicate schedule, determinism, the command line."""

from __future__ import annotations

import csv
import io
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tt_env import arena
from tt_env.arena import (
    GameResult,
    Match,
    TournamentResult,
    mean_ci,
    run_tournament,
    schedule,
    t_quantile,
)
from tt_env.game.rules import Rules

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------------------------- statistics
@pytest.mark.parametrize(
    "df, expected",
    [
        (1, 12.706204736174707),
        (2, 4.302652729749464),
        (5, 2.570581835636314),
        (10, 2.228138851986274),
        (30, 2.042272456301238),
        (1000, 1.962339080826841),
    ],
)
def test_t_quantile_matches_tables(df, expected):
    assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-9)


def test_mean_ci_exact_on_known_values():
    est = mean_ci([1, 2, 3, 4, 5])
    half = 2.7764451051977987 * math.sqrt(2.5) / math.sqrt(5)
    assert est.mean == 3.0 and est.n == 5
    assert est.low == pytest.approx(3.0 - half, abs=1e-9)
    assert est.high == pytest.approx(3.0 + half, abs=1e-9)
    constant = mean_ci([7, 7, 7])
    assert (constant.mean, constant.low, constant.high) == (7.0, 7.0, 7.0)
    single = mean_ci([4])
    assert single.mean == 4.0 and math.isnan(single.low) and math.isnan(single.high)


def test_estimate_format_writes_no_negative_zero():
    # the mean of three seats' scores less a copy's can be -1e-15: printed as 0.0, not -0.0
    assert mean_ci([1e-16 - 1 / 3, 1 / 3 - 2e-16]).format(1) == "0.0 ± 4.2"
    assert mean_ci([-1e-12, -1e-12]).format(1) == "0.0 ± 0.0"
    assert mean_ci([-0.04]).format(1) == "0.0"
    assert mean_ci([-0.06, -0.06]).format(1) == "-0.1 ± 0.0"


@pytest.mark.parametrize("deals, samples", [(10, 2000), (50, 1000)])
def test_mean_ci_covers_at_its_rate_on_skewed_heavy_tailed_deals(deals, samples):
    """Per-deal score differences are skewed and heavier-tailed than normal (of the 2-player
    networks' head to head over 1,000 deals: skewness about +0.2, excess kurtosis about 0.9).
    On such samples Student's interval over deals still covers the true mean 95% of the time,
    also at 10 deals (a normal quantile there covers about 92%)."""
    rng = np.random.default_rng(49)
    covered = 0
    for _ in range(samples):  # t(5) tails plus a skewed part; the true mean is 0
        x = 12.0 * rng.standard_t(5, size=deals) + 6.0 * (rng.exponential(size=deals) - 1.0)
        est = mean_ci(x)
        covered += est.low <= 0.0 <= est.high
    assert 0.935 <= covered / samples <= 0.965


# ---------------------------------------------------------------------------------- schedule
@pytest.mark.parametrize("agents, seats", [(2, 2), (3, 3), (4, 4), (3, 2), (4, 2), (4, 3)])
def test_schedule_is_duplicate(agents, seats):
    games = 3
    matches = schedule(agents, seats, games, seed=11)
    tables = math.comb(agents, seats)
    assert len(matches) == games * tables * seats
    for deal in range(games):
        mine = [m for m in matches if m.deal == deal]
        assert len({m.env_seed for m in mine}) == 1  # the same cards in every seating
        for t in range(tables):
            rotations = [m for m in mine if m.table == t]
            members = set(rotations[0].seats)
            for seat in range(seats):  # every agent of the table plays every seat once
                assert sorted(m.seats[seat] for m in rotations) == sorted(members)
    assert len({m.env_seed for m in matches}) == games
    assert schedule(agents, seats, games, seed=11) == matches
    assert schedule(agents, seats, games, seed=12)[0].env_seed != matches[0].env_seed


def test_schedule_needs_enough_agents():
    with pytest.raises(arena.ArenaError, match="repeat a name"):
        schedule(1, 2, 1, seed=0)


@pytest.mark.parametrize("seed", [-1, 1.5, True, "7", None])
def test_schedule_refuses_a_bad_seed_before_any_game(seed):
    """The seeds of a game are derived when it is played (maybe in another process): the
    tournament's seed is checked when the schedule is made."""
    with pytest.raises(arena.ArenaError, match="the seed must be an integer >= 0"):
        schedule(2, 2, 1, seed=seed)


def test_on_start_is_called_once_before_the_games_and_not_when_none_is_left():
    calls = []
    result = arena.run_tournament(
        ["random", "random"], games=2, seed=1, episode="round", on_start=lambda: calls.append(1)
    )
    assert calls == [1]
    again = arena.run_tournament(
        ["random", "random"],
        games=2,
        seed=1,
        episode="round",
        done=result.results,
        on_start=lambda: calls.append(2),
    )
    assert calls == [1] and len(again.results) == len(result.results)


# ---------------------------------------------------------------------------------- rigged games
BASE = {0: 10, 1: 25, 2: 25}  # per agent: its score in every game, plus the seat and deal terms
SEAT_BONUS = (0, 4, 8)


def _one_round_game(match: Match, scores: tuple[int, ...], went_out, winners) -> GameResult:
    """The result of ``match`` played as one round: the penalty per round is the score."""
    return GameResult(
        deal=match.deal,
        table=match.table,
        rotation=match.rotation,
        seats=match.seats,
        scores=scores,
        round_penalties=(scores,),
        went_out=(went_out,),
        winners=tuple(winners),
        steps=1,
    )


def _rigged_play(match: Match, agents, rules: Rules, episode: str = "game") -> GameResult:
    """A game whose scores are known: agent a in seat s scores BASE[a] + SEAT_BONUS[s] + deal."""
    scores = tuple(BASE[a] + SEAT_BONUS[s] + match.deal for s, a in enumerate(match.seats))
    best = min(scores)
    winners = (s for s, x in enumerate(scores) if x == best)
    return _one_round_game(match, scores, scores.index(best), winners)


def test_rigged_tournament_statistics_are_exact(monkeypatch):
    monkeypatch.setattr("tt_env.arena.games.play_game", _rigged_play)
    deals = 5
    result = run_tournament(
        ["greedy", "random", "random"], games=deals, seed=3, seats=3, episode="round"
    )
    stats = {s.label: s for s in result.agents}
    mean_bonus = sum(SEAT_BONUS) / 3  # every agent sits in every seat once per deal
    deal_values = np.arange(deals, dtype=float)
    half = t_quantile(0.975, deals - 1) * deal_values.std(ddof=1) / math.sqrt(deals)
    for label, a in (("greedy", 0), ("random#1", 1), ("random#2", 2)):
        s = stats[label]
        expected = BASE[a] + mean_bonus + deal_values.mean()
        assert s.games == deals * 3
        assert s.score.mean == pytest.approx(expected, abs=1e-12)
        assert s.score.half_width == pytest.approx(half, abs=1e-9)  # over deals, not games
        assert s.score.n == deals
        assert s.round_penalty.mean == pytest.approx(expected, abs=1e-12)
    # greedy always wins; the two randoms score alike: in each game one of them sits lower...
    assert stats["greedy"].win_rate.mean == 1.0
    assert stats["greedy"].win_rate.half_width == 0.0
    assert stats["random#1"].win_rate.mean == 0.0
    assert stats["greedy"].out_rate.mean == 1.0
    # pairwise: the seat terms cancel over the rotations, the deal terms within each game
    pair = result.pair("greedy", "random#1")
    assert pair.diff.mean == pytest.approx(-15.0, abs=1e-12)
    assert pair.diff.half_width == pytest.approx(0.0, abs=1e-12)
    assert pair.games == deals * 3
    assert result.pair("random#1", "greedy").diff.mean == pytest.approx(15.0, abs=1e-12)
    assert result.pair("random#1", "random#2").diff.mean == pytest.approx(0.0, abs=1e-12)
    board = [s.label for s in result.leaderboard]
    assert board[0] == "greedy"
    ordinal = {s.label: s.rating_ordinal for s in result.agents}
    assert ordinal["greedy"] > ordinal["random#1"] and ordinal["greedy"] > ordinal["random#2"]


def test_rigged_ties_share_the_win(monkeypatch):
    def tie(match, agents, rules, episode="game"):
        scores = (5,) * len(match.seats)
        return _one_round_game(match, scores, None, range(len(scores)))

    monkeypatch.setattr("tt_env.arena.games.play_game", tie)
    result = run_tournament(["random", "greedy"], games=3, seed=0, episode="round")
    for s in result.agents:
        assert s.win_rate.mean == pytest.approx(0.5)
        assert s.out_rate.mean == 0.0
    assert result.pair("random", "greedy").diff.mean == 0.0


def test_round_robin_pairs_only_count_games_together(monkeypatch):
    monkeypatch.setattr("tt_env.arena.games.play_game", _rigged_play)
    result = run_tournament(
        ["greedy", "random", "counting"], games=4, seed=1, seats=2, episode="round"
    )
    assert len(result.results) == 4 * 3 * 2  # deals x tables x rotations
    pair = result.pair("greedy", "random")
    assert pair.games == 4 * 2
    assert pair.diff.mean == pytest.approx(-15.0)  # BASE[0] - BASE[1]; seat terms cancel
    assert {s.label: s.games for s in result.agents} == {"greedy": 16, "random": 16, "counting": 16}


def test_title_says_how_the_games_were_made(monkeypatch):
    monkeypatch.setattr("tt_env.arena.games.play_game", _rigged_play)
    result = run_tournament(
        ["greedy", "random", "counting"], games=4, seed=1, seats=2, episode="round"
    )
    assert result.table().startswith(
        "tt-arena: 24 games = 4 deals x 3 tables (every 2 of the 3 agents) x 2 seat rotations; "
        "episode=round, seed=1, standard rules;"
    )
    result = run_tournament(["greedy", "random"], games=3, seed=0, episode="round")
    assert result.table().startswith("tt-arena: 6 games = 3 deals x 2 seat rotations; ")


def test_a_rating_that_contradicts_the_rank_is_explained(monkeypatch):
    """Agent 0 wins three deals by 1 point and loses one by 30: more wins (a higher rating),
    a worse mean score (a lower rank). The table says why they disagree."""

    def close_wins(match, agents, rules, episode="game"):
        margin = {0: -1, 1: -1, 2: -1, 3: 30}[match.deal]
        scores = tuple(50 + (margin if a == 0 else 0) for a in match.seats)
        best = min(scores)
        return _one_round_game(match, scores, None, (s for s, x in enumerate(scores) if x == best))

    monkeypatch.setattr("tt_env.arena.games.play_game", close_wins)
    result = run_tournament(["greedy", "random"], games=4, seed=0, episode="round")
    assert [s.label for s in result.leaderboard] == ["random", "greedy"]
    ratings = {s.label: s.rating_ordinal for s in result.agents}
    if ratings["greedy"] is None:
        pytest.skip("openskill is not installed")
    assert ratings["greedy"] > ratings["random"]
    note = result.rating_note()
    assert note.startswith("note: the rating puts greedy above random.") and note in result.table()
    monkeypatch.setattr("tt_env.arena.games.play_game", _rigged_play)
    assert (
        run_tournament(["greedy", "random"], games=3, seed=0, episode="round").rating_note() == ""
    )


# ---------------------------------------------------------------------------------- real games
def _dealt_hands(rules: Rules, match: Match, specs) -> list:
    """Every seat's cards at the start of every round of ``match`` played by ``specs``."""
    from tt_env.agents import make_agent
    from tt_env.env import aec as three_thirteen_v0

    env = three_thirteen_v0.raw_env(rules=rules)
    env.reset(seed=match.env_seed)
    agents = [make_agent(specs[s], 2, rules, match.agent_seeds[s]) for s in range(2)]
    dealt = [env.game.all_hands()]
    rounds = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.possible_agents.index(name)
        env.step(agents[seat].act(obs["observation"], obs["action_mask"]))
        if len(env.game.round_results) != rounds and not env.game.is_over:
            rounds = len(env.game.round_results)
            dealt.append(env.game.all_hands())
    assert len(dealt) == rules.num_rounds
    return dealt


def test_duplicate_deals_give_every_seat_the_same_cards():
    """The seatings of one deal, whoever sits where, start every round from the same cards."""
    rules = Rules(max_turns_per_round=8)
    match_a, match_b = schedule(2, 2, 1, seed=5)
    assert match_a.env_seed == match_b.env_seed
    assert _dealt_hands(rules, match_a, ("greedy", "counting")) == _dealt_hands(
        rules, match_b, ("counting", "greedy")
    )


def test_duplicate_deals_survive_stock_rebuilds():
    # Random play with a long turn cap empties the stock, so the discard pile is shuffled into
    # a new stock in some rounds of one seating and not of the other.
    rules = Rules(max_turns_per_round=150)
    match_a, match_b = schedule(2, 2, 1, seed=5)
    assert _dealt_hands(rules, match_a, ("random", "greedy")) == _dealt_hands(
        rules, match_b, ("random", "random")
    )


def _comparable(result: TournamentResult) -> dict:
    data = result.to_dict()
    data["settings"].pop("elapsed_seconds")
    data["settings"].pop("workers")
    return data


def test_results_do_not_depend_on_workers():
    kwargs = dict(games=3, seed=21, episode="round", rules=Rules(max_turns_per_round=12))
    one = run_tournament(["random", "greedy", "counting"], workers=1, seats=2, **kwargs)
    two = run_tournament(["random", "greedy", "counting"], workers=2, seats=2, **kwargs)
    assert _comparable(one) == _comparable(two)
    again = run_tournament(["random", "greedy", "counting"], workers=1, seats=2, **kwargs)
    assert _comparable(again) == _comparable(one)


def test_real_games_match_a_replay():
    """The arena's bookkeeping equals the environment's own scores for the same seeds."""
    from tt_env.agents import make_agent
    from tt_env.env import aec as three_thirteen_v0

    rules = Rules(max_turns_per_round=10)
    result = run_tournament(["greedy", "random"], rules=rules, games=2, seed=4)
    for game, match in zip(result.results, schedule(2, 2, 2, seed=4)):
        assert game.key == match.key and game.seats == match.seats
        env = three_thirteen_v0.raw_env(rules=rules)
        env.reset(seed=match.env_seed)
        specs = [result.specs[a] for a in match.seats]
        agents = [make_agent(specs[s], 2, rules, match.agent_seeds[s]) for s in range(2)]
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            seat = env.possible_agents.index(name)
            env.step(agents[seat].act(obs["observation"], obs["action_mask"]))
        assert game.scores == tuple(env.game.scores)
        assert len(game.round_penalties) == rules.num_rounds
        assert tuple(map(sum, zip(*game.round_penalties))) == game.scores
    stats = {s.label: s for s in result.agents}
    for a, label in enumerate(result.labels):
        mine = [g.scores[g.seats.index(a)] for g in result.results]
        assert stats[label].score.mean == pytest.approx(np.mean(mine))  # balanced design


def test_illegal_agent_is_named(monkeypatch):
    class Bad:
        name = "bad"

        def __init__(self, **kwargs):
            pass

        def act(self, observation, action_mask):
            return 107  # go out discarding a joker: never legal in standard rules

    monkeypatch.setattr(
        "tt_env.agents.specs.BUILTIN_AGENTS", {"random": Bad, "greedy": Bad, "counting": Bad}
    )
    with pytest.raises(arena.ArenaError, match="illegal action"):
        run_tournament(["random", "greedy"], games=1, episode="round")


def test_an_agent_that_raises_is_named_with_its_game_and_debug_shows_where(capsys):
    args = ["user_agents:Fails", "greedy", "--games", "1", "--episode", "round", "--plain"]
    assert arena.main(args + ["--workers", "1"]) == 2
    err = capsys.readouterr().err
    assert err == (
        "tt-arena: error: agent 'Fails' in seat 0 raised RuntimeError: oops (deal 0, table 0, "
        "rotation 0; tt-arena --debug shows the traceback)\n"
    )
    # --debug: the traceback of the agent's own code, also from a worker process
    assert arena.main(args + ["--workers", "2", "--debug"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback (most recent call last):")
    assert 'user_agents.py", line' in err and 'raise RuntimeError("oops")' in err
    assert err.endswith("tt-arena --debug shows the traceback)\n")
    with pytest.raises(arena.AgentFailed, match="seat 0 raised RuntimeError: oops") as caught:
        run_tournament(["user_agents:Fails", "greedy"], games=1, episode="round")
    assert isinstance(caught.value.__cause__, RuntimeError)


@pytest.mark.parametrize("kind", ["float", "float32", "int16", "uint8", "array"])
def test_an_action_may_be_any_whole_number(kind):
    result = run_tournament(
        [f"user_agents:Returns(kind={kind})", "greedy"], games=1, episode="round"
    )
    assert result.results and all(sum(g.round_penalties[0]) >= 0 for g in result.results)


@pytest.mark.parametrize("kind", ["half", "text"])
def test_an_action_that_is_no_whole_number_says_an_int_is_expected(kind):
    shown = {"half": "0.5 (float)", "text": "'0' (str)"}[kind]
    with pytest.raises(arena.ArenaError) as caught:
        run_tournament([f"user_agents:Returns(kind={kind})", "greedy"], games=1, episode="round")
    assert str(caught.value) == (
        f"agent 'Returns(kind={kind})' in seat 0 did not answer with an action: an action is an "
        f"int in 0..107, got {shown} (deal 0, table 0, rotation 0)"
    )


@pytest.mark.parametrize("episode", ["round", "game"])
def test_a_forfeit_scores_the_seat_s_whole_hand_and_the_others_as_the_engine(episode):
    from tt_env.agents import make_agent
    from tt_env.arena.games import play_game
    from tt_env.env import aec as three_thirteen_v0
    from tt_env.game import Phase

    rules = Rules(num_players=3)
    names = ["user_agents:GivesUp", "greedy", "counting"]
    agents = [make_agent(spec, 3, rules) for spec in names]
    match = Match(deal=0, table=0, rotation=0, seats=(0, 1, 2), seed=11)
    result = play_game(match, agents, rules, episode)
    # the engine's own game, played again with the referee's passes for seat 0
    env = three_thirteen_v0.raw_env(rules=rules, episode=episode)
    env.reset(seed=match.env_seed)
    for agent, seed in zip(agents, match.agent_seeds):
        if hasattr(agent, "reset"):
            agent.reset(seed)
    dealt = {}
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        game = env.game
        seat = int(name.rsplit("_", 1)[1])
        dealt.setdefault(game.round_index, game.hand_counts(0))
        if seat == 0:  # draw from the stock, discard the card drawn: the hand dealt stays
            if game.phase == Phase.DRAW:
                env.step(0)
            else:
                now = game.hand_counts(0)
                drawn = next(k for k in range(53) if now[k] > dealt[game.round_index][k])
                env.step(2 + drawn)
        else:
            env.step(int(agents[seat].act(obs["observation"], obs["action_mask"])))
    results = env.game.round_results[: 1 if episode == "round" else None]
    assert len(result.round_penalties) == len(results) == (1 if episode == "round" else 11)
    for r, mine in zip(results, result.round_penalties):
        table = rules.penalty_table(r.wild_rank)
        whole = sum(c * table[k] for k, c in enumerate(dealt[r.round_index]))
        assert mine[0] == rules.score_multiplier(r.wild_rank) * whole
        assert mine[1:] == r.penalties[1:]  # the others' scores are the engine's
        assert r.went_out != 0
    assert result.scores == tuple(sum(p[s] for p in result.round_penalties) for s in range(3))
    assert result.usage[0] == {"forfeits": float(len(results))} and result.usage[1] is None


def test_the_cost_table_counts_forfeits(tmp_path):
    result = run_tournament(
        ["user_agents:GivesUp", "greedy"], games=2, episode="round", replays=tmp_path
    )
    table = result.table()
    costs = table.split("costs (", 1)[1].splitlines()
    header = costs[1].split()
    assert header[-2:] == ["fallbacks", "forfeits"]
    row = next(line for line in costs if "GivesUp" in line)
    assert row.endswith("4 (100.0%)")  # 2 deals x 2 rotations, one round each
    # the replay says why the seat played as it did
    record = json.loads((tmp_path / "game-d0000-t00-r0.json").read_text())
    notes = [a for a in record["annotations"] if a]
    assert notes[0] == {"kind": "forfeit", "values": {}, "text": "I give up"}
    assert notes[1]["text"] == "a pass (forfeited)"


# ---------------------------------------------------------------------------------- outputs
def test_outputs(tmp_path, monkeypatch):
    monkeypatch.setattr("tt_env.arena.games.play_game", _rigged_play)
    result = run_tournament(["greedy", "random"], games=3, seed=0, episode="round")
    rows = list(csv.DictReader(io.StringIO(result.to_csv(tmp_path / "r.csv"))))
    assert [r["agent"] for r in rows] == ["greedy", "random"]
    assert float(rows[0]["score"]) == pytest.approx(result.leaderboard[0].score.mean, rel=1e-5)
    data = json.loads(result.to_json(tmp_path / "r.json"))
    assert data["settings"]["games_played"] == 6 and len(data["games"]) == 6
    assert json.loads((tmp_path / "r.json").read_text()) == data
    result.plot(tmp_path / "r.png")
    assert (tmp_path / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = result.table()
    assert "greedy" in text and "score/game" in text and "row minus column" in text


def test_cli_main_in_process(tmp_path, capsys):
    out = tmp_path / "res.json"
    status = arena.main(
        [
            "random,greedy",
            "--games",
            "2",
            "--episode",
            "round",
            "--plain",
            "--json",
            str(out),
            "--preset",
            "one-wild",
            "--max-turns-per-round",
            "10",
        ]
    )
    assert status == 0
    printed = capsys.readouterr().out
    assert "greedy" in printed and "random" in printed
    data = json.loads(out.read_text())
    assert data["settings"]["rules"]["max_wilds_per_meld"] == 1
    assert data["settings"]["rules"]["max_turns_per_round"] == 10
    assert arena.main(["nosuchagent", "--games", "1"]) == 2
    assert "unknown agent" in capsys.readouterr().err


def test_default_run_includes_the_shipped_models_that_fit_the_table(capsys):
    specs, notes = arena.default_agents(Rules())
    two = ["led_distilled_2p_standard", "ppo_long_2p_standard"]
    assert specs == [*arena.DEFAULT_AGENTS, *two] and notes == []
    specs, notes = arena.default_agents(Rules(num_players=4))
    four = ["led_values_4p_standard", "led_distilled_4p_standard"]
    assert specs == [*arena.DEFAULT_AGENTS, *four] and notes == []
    assert arena.default_agents(Rules(num_players=3)) == (list(arena.DEFAULT_AGENTS), [])
    specs, notes = arena.default_agents(Rules(aces_high=True))
    assert specs == list(arena.DEFAULT_AGENTS)
    assert len(notes) == 2 and all(f"{name} left out" in n for name, n in zip(two, notes))
    assert all("aces_high" in n for n in notes)
    # The plain command: every agent, the model among them, plays one deal of one round.
    assert arena.main(["--games", "1", "--episode", "round", "--plain", "--workers", "1"]) == 0
    printed = capsys.readouterr().out
    names = ("random", "greedy", "counting", "search(samples=16)", *two)
    assert all(name in printed for name in names)
    assert (
        arena.main(
            ["--games", "1", "--episode", "round", "--plain", "--workers", "1", "--aces-high"]
        )
        == 0
    )
    captured = capsys.readouterr()
    assert all(name not in captured.out for name in two) and "left out" in captured.err


def test_cli_end_to_end_subprocess(tmp_path):
    cmd = [
        sys.executable,
        "-m",
        "tt_env.arena",
        "random",
        "greedy",
        "--games",
        "2",
        "--episode",
        "round",
        "--csv",
        str(tmp_path / "a.csv"),
        "--plot",
        str(tmp_path / "a.png"),
        "--seats",
        "2",
        "--max-turns-per-round",
        "10",
    ]
    done = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "greedy" in done.stdout
    assert (tmp_path / "a.csv").exists() and (tmp_path / "a.png").exists()


def test_versus_table_is_the_score_less_the_rest_of_the_table():
    result = run_tournament(
        ["greedy", "counting", "counting", "random"],
        Rules(num_players=4),
        games=3,
        seed=4,
        episode="round",
    )
    for label in result.labels:
        a = result.labels.index(label)
        per_deal = {}
        for r in result.results:
            mine = r.scores[r.seats.index(a)]
            rest = [x for s, x in zip(r.seats, r.scores) if s != a]
            per_deal.setdefault(r.deal, []).append(mine - np.mean(rest))
        expected = np.mean([np.mean(v) for v in per_deal.values()])
        assert result.versus_table(label).mean == pytest.approx(expected)
    assert "rest of the table" in result.table()
    two = run_tournament(["greedy", "counting"], Rules(), games=3, seed=4, episode="round")
    assert two.versus_table("greedy").mean == pytest.approx(
        two.pair("greedy", "counting").diff.mean
    )
    assert "rest of the table" not in two.table()


def test_the_progress_bar_gives_an_estimate_only_after_the_first_games():
    # A worker's first game also loads its agents: an estimate from it alone would mislead.
    import io

    pytest.importorskip("tqdm")
    from tt_env.arena.tournament import _progress_bar

    out = io.StringIO()
    bar = _progress_bar(100, True, warm=6, file=out)
    bar.update(5)
    shown = out.getvalue().split("\r")
    assert "estimating" in shown[-1] and "<" not in shown[-1] and "game/s" not in out.getvalue()
    bar.update(1)
    last = out.getvalue().split("\r")[-1]
    assert "estimating" not in last and "6/100" in last and "<" in last
    bar.close()
