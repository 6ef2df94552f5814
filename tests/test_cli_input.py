"""The command lines with bad arguments and bad answers: one line naming the problem, a non-zero
exit, no traceback, and nothing done or written before the check.

``tt-arena`` and ``tt-train`` are stopped right where the work would start (their runner is
replaced by one that raises :class:`Started`), so that fuzzing their arguments costs nothing.
"""

from __future__ import annotations

import io
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tt_env import arena, play
from tt_env.encoding.actions import NUM_ACTIONS, parse_action
from tt_env.game.rules import Rules

FUZZ = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


class Started(Exception):
    """The command got past its checks and would start working now."""


def one_error_line(err: str, *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "error" in lines[0] and "Traceback" not in err
    for word in words:
        assert word in lines[0], (word, lines[0])


def exit_status(call) -> int:
    try:
        return call()
    except SystemExit as exc:
        return exc.code


# ---------------------------------------------------------------------------------- tt-play
def eof(prompt: str) -> str:
    raise EOFError


def test_tt_play_answers_that_are_not_moves_ask_again():
    legal = [0, 1]
    for answer in [
        "²",
        "١",
        "9" * 5000,
        "-1",
        "0",
        "3",
        "1.0",
        "discard 10ſ",
        "go out ²H",
        "\x00",
        "🃏",
    ]:
        reply = play.parse_answer(answer, legal)
        assert isinstance(reply, str) and len(reply) < 300, answer
    assert play.parse_answer(" 2 ", legal) == 1


@FUZZ
@given(st.text(max_size=40))
def test_tt_play_any_answer_is_a_move_or_a_sentence(answer):
    legal = [0, 1, 2 + 5, 55 + 5]
    reply = play.parse_answer(answer, legal)
    assert reply in legal or isinstance(reply, str)


@FUZZ
@given(st.text(max_size=20) | st.integers() | st.floats())
def test_parse_action_is_an_action_or_a_value_error(text):
    try:
        action = parse_action(text)
    except ValueError:
        return
    assert 0 <= action < NUM_ACTIONS


def test_tt_play_scripted_game_survives_hostile_answers():
    out = io.StringIO()
    answers = iter(["²", "9" * 5000, "discard 10ſ", "quit"])
    status = play.main(
        ["--seed", "3", "--episode", "round"], input_fn=lambda p: next(answers), out=out
    )
    assert status == 0
    assert "There is no move ²" in out.getvalue() and "You left the game" in out.getvalue()


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--seed", "-1"], ["--seed", "-1"]),
        (["--seed", "1.5"], ["--seed"]),
        (["--seed", "²"], ["--seed"]),
        (["--seat", "5"], ["seat must be 0..1"]),
        (["--opponents", ",,"], ["1 to 7 opponents"]),
        (["--num-decks", "10000000"], ["num_decks must be 1..12"]),
    ],
)
def test_tt_play_bad_arguments_are_one_line(argv, words, capsys):
    assert exit_status(lambda: play.main(argv, input_fn=eof, out=io.StringIO())) == 2
    one_error_line(capsys.readouterr().err, *words)


PLAY_WORDS = [
    "--seed",
    "--seat",
    "--opponents",
    "--episode",
    "--preset",
    "--num-decks",
    "--jokers-per-deck",
    "--max-turns-per-round",
    "--aces-high",
    "--ascii",
    "random",
    "greedy",
    "round",
    "game",
    "-1",
    "0",
    "1",
    "2",
    "12",
    "13",
    "none",
    "1e9",
    "²",
    "one-wild",
    "random,random",
    ",",
    "x:y",
]


@FUZZ
@given(
    argv=st.lists(st.sampled_from(PLAY_WORDS) | st.text(string.printable, max_size=6), max_size=6)
)
def test_tt_play_any_arguments_play_or_give_one_error_line(argv, capsys):
    capsys.readouterr()
    status = exit_status(lambda: play.main(argv, input_fn=eof, out=io.StringIO()))
    err = capsys.readouterr().err
    if status == 2:
        one_error_line(err)
    else:
        assert status == 0 and "Traceback" not in err


# ---------------------------------------------------------------------------------- tt-arena
@pytest.fixture
def no_tournament(monkeypatch):
    def refuse(*args, **kwargs):
        raise Started

    monkeypatch.setattr("tt_env.arena.cli.run_tournament", refuse)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--workers", "-3"], ["--workers", "-3"]),
        (["--games", "0"], ["--games"]),
        (["--seed", "-1"], ["--seed"]),
        (["--agents", ",,,"], ["no agent named"]),
        ([",", " , "], ["no agent named"]),
        (["greedy", "random", "--json", "no/such/dir/r.json"], ["--json", "no such directory"]),
        (["greedy", "random", "--csv", "."], ["--csv", "not a file name"]),
        (["greedy", "random", "--plot", "/proc/plot.png"], ["--plot", "cannot write in /proc"]),
        (["greedy", "random", "--json", "r.out", "--csv", "./r.out"], ["same file"]),
        (["--resume", "missing.json"], ["cannot read tournament file"]),
    ],
)
def test_tt_arena_bad_arguments_are_refused_before_any_game(
    argv, words, no_tournament, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    assert exit_status(lambda: arena.main(argv)) == 2
    one_error_line(capsys.readouterr().err, *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sub"]  # nothing written


def test_tt_arena_checks_a_directory_given_as_output(no_tournament, capsys, tmp_path):
    assert arena.main(["greedy", "random", "--json", str(tmp_path)]) == 2
    one_error_line(capsys.readouterr().err, "is a directory")


def test_tt_arena_resume_takes_the_settings_of_its_file(no_tournament, capsys, tmp_path):
    result = arena.TournamentResult.from_results(
        ["greedy", "random"], Rules(), seats=2, games=3, seed=0, episode="round", results=[]
    )
    path = tmp_path / "t.json"
    result.to_json(path)
    assert arena.main(["--resume", str(path), "--seed", "4", "counting"]) == 2
    one_error_line(capsys.readouterr().err, "do not give agents, --seed")
    assert arena.main(["--resume", str(path), "--games", "2"]) == 2
    one_error_line(capsys.readouterr().err, "may add deals, not drop them")
    with pytest.raises(Started):
        arena.main(["--resume", str(path), "--games", "5"])


ARENA_WORDS = [
    "--games",
    "--seed",
    "--seats",
    "--workers",
    "--episode",
    "--agents",
    "--json",
    "--csv",
    "--plot",
    "--resume",
    "--preset",
    "--aces-high",
    "--num-decks",
    "random",
    "greedy",
    ",",
    "",
    "0",
    "1",
    "2",
    "-3",
    "9",
    "round",
    "x.json",
    "/proc/p",
    ".",
    "none",
    "one-wild",
    "nosuch",
    "a:b",
]


@FUZZ
@given(
    argv=st.lists(st.sampled_from(ARENA_WORDS) | st.text(string.printable, max_size=6), max_size=7)
)
def test_tt_arena_any_arguments_start_or_give_one_error_line(
    argv, no_tournament, capsys, tmp_path_factory, monkeypatch
):
    capsys.readouterr()
    monkeypatch.chdir(tmp_path_factory.mktemp("arena"))
    try:
        status = exit_status(lambda: arena.main(argv))
    except Started:
        return
    assert status == 2
    one_error_line(capsys.readouterr().err)


@FUZZ
@given(
    data=st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=5),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
        ),
        max_leaves=12,
    )
)
def test_a_damaged_tournament_file_is_an_arena_error(tmp_path_factory, data):
    import json

    path = tmp_path_factory.mktemp("t") / "t.json"
    good = arena.TournamentResult.from_results(
        ["greedy", "random"], Rules(), seats=2, games=1, seed=0, episode="round", results=[]
    ).to_dict()
    for damaged in (
        data,
        {**good, "settings": data},
        {**good, "games": data},
        {**good, "games": [data]},
    ):
        path.write_text(json.dumps(damaged))
        try:
            arena.load_results(path)
        except arena.ArenaError as exc:
            assert str(exc)


# ---------------------------------------------------------------------------------- tt-train
@pytest.fixture
def no_training(monkeypatch):
    pytest.importorskip("sb3_contrib")
    from tt_env import train as training

    def refuse(*args, **kwargs):
        raise Started

    monkeypatch.setattr("tt_env.train.cli.train", refuse)
    return training


@pytest.mark.parametrize(
    "name, text, words",
    [
        ("bad.yaml", "n_envs: [1\n", ["not valid YAML"]),
        ("bad.toml", "n_envs = \n", ["not valid TOML"]),
        ("types.yaml", "n_envs: four\n", ["n_envs must be an integer"]),
        ("types.toml", "gamma = 'high'\n", ["gamma must be a number"]),
        ("rules.toml", "rules = 3\n", ["rules must be a table"]),
        ("list.yaml", "- 1\n- 2\n", ["expected a table of settings"]),
        ("bytes.toml", b"\xff\xfe\x00", ["not UTF-8"]),
        ("deep.yaml", "x: " + "[" * 5000 + "\n", ["nested too deeply"]),
        ("opponent.toml", "opponents = 'greedy=1,nosuch=1'\n", ["opponents", "unknown agent"]),
        ("weight.toml", "opponents = 'greedy=nan'\n", ["opponents", "weight of greedy"]),
    ],
)
def test_tt_train_bad_config_files_are_one_line(
    name, text, words, no_training, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    assert no_training.main(["--config", str(path)]) == 2
    one_error_line(capsys.readouterr().err, *words)
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--config", "."], ["is a directory"]),
        (["--config", "nowhere.toml"], ["no such file"]),
        (["--n-envs", "0"], ["n_envs must be >= 1"]),
        (["--n-envs", "two"], ["--n-envs"]),
        (["--batch-size", "1"], ["batch_size must be >= 2"]),
        (["--learning-rate", "nan"], ["learning_rate must be a finite number"]),
        (["--episode", "hand"], ["episode must be one of"]),
        (["--run-name", "../escape"], ["run_name"]),
        (["--run-dir", "/proc/runs"], ["run_dir", "cannot write"]),
        (["--run-dir", "afile/runs"], ["afile is a file"]),
        (["--output", "/proc/m.npz"], ["output", "cannot write"]),
        (["--opponents", "nosuch"], ["setting opponents", "unknown agent"]),
        (["--opponents", "greedy=1,league=1,tt_env_nosuch:Agent=1"], ["cannot import module"]),
        (["--bc-teacher", "nosuch"], ["setting bc_teacher"]),
        (["--eval-opponents", "greedy,nosuch"], ["setting eval_opponents"]),
        (["--players", "9"], ["players must be 2..8"]),
        (["--num-decks", "99"], ["num_decks must be 1..12"]),
        (["--resume", "."], ["not a run directory"]),
    ],
)
def test_tt_train_bad_arguments_are_one_line_and_make_no_run(
    argv, words, no_training, capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("")
    assert exit_status(lambda: no_training.main(argv)) == 2
    one_error_line(capsys.readouterr().err, *words)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_tt_train_runs_beside_an_earlier_run_of_any_name(no_training, tmp_path, monkeypatch):
    """The check that run_dir can be written does not trip over the runs already in it (a run
    named "probe" once made it fail with "is a directory")."""
    monkeypatch.chdir(tmp_path)
    for name in ("probe", "checkpoints"):
        (tmp_path / "runs" / name).mkdir(parents=True)
    with pytest.raises(Started):
        no_training.main(["--run-dir", "runs", "--run-name", "next"])


def test_tt_train_unknown_opponent_fails_in_this_process_not_in_the_workers(tmp_path, capsys):
    """With the real runner: the check comes before any environment process starts."""
    training = pytest.importorskip("tt_env.train")
    status = training.main(
        [
            "--opponents",
            "nosuch",
            "--run-dir",
            str(tmp_path / "runs"),
            "--vec-env",
            "subproc",
            "--n-envs",
            "2",
            "--no-progress-bar",
        ]
    )
    assert status == 2
    one_error_line(capsys.readouterr().err, "unknown agent 'nosuch'")
    assert not (tmp_path / "runs").exists()


TRAIN_WORDS = [
    "--n-envs",
    "--n-steps",
    "--batch-size",
    "--gamma",
    "--players",
    "--episode",
    "--opponents",
    "--seed",
    "--total-timesteps",
    "--progress-bar",
    "--run-name",
    "--aces-high",
    "--preset",
    "0",
    "1",
    "-1",
    "2",
    "0.5",
    "nan",
    "inf",
    "round",
    "greedy",
    "league=1",
    "x:y",
    "..",
    "one-wild",
    "standard",
    "1e400",
]


@FUZZ
@given(
    argv=st.lists(st.sampled_from(TRAIN_WORDS) | st.text(string.printable, max_size=6), max_size=7),
    config=st.none() | st.text(max_size=60),
)
def test_tt_train_any_arguments_start_or_give_one_error_line(
    argv, config, no_training, capsys, tmp_path_factory, monkeypatch
):
    capsys.readouterr()
    root = tmp_path_factory.mktemp("train")
    monkeypatch.chdir(root)
    if config is not None:
        (root / "c.yaml").write_text(config)
        argv = ["--config", "c.yaml", *argv]
    try:
        status = exit_status(lambda: no_training.main(argv))
    except Started:
        return
    assert status == 2
    one_error_line(capsys.readouterr().err)
    assert not (root / "runs").exists()


def test_tt_train_plot_of_a_damaged_run_is_one_line(tmp_path, capsys):
    training = pytest.importorskip("tt_env.train")
    (tmp_path / "progress.csv").write_text("a,b\n1,2\n")
    assert training.main(["plot", str(tmp_path)]) == 2
    one_error_line(capsys.readouterr().err, "no column 'opponents'")
    (tmp_path / "progress.csv").write_text("timesteps,opponents,mean_reward\nx,all,1\n")
    assert training.main(["plot", str(tmp_path)]) == 2
    one_error_line(capsys.readouterr().err, "invalid literal")
    assert training.main(["plot", str(tmp_path / "none")]) == 2
    one_error_line(capsys.readouterr().err, "no progress.csv")


def test_tt_arena_help_names_every_built_in_agent(capsys):
    from tt_env.agents import BUILTIN_AGENTS

    with pytest.raises(SystemExit):
        arena.main(["--help"])
    epilog = " ".join(capsys.readouterr().out.split("Agents:", 1)[1].split())
    for name in BUILTIN_AGENTS:
        assert name in epilog.split("module.path", 1)[0], name


def test_tt_train_help_groups_every_setting(capsys):
    """tt-train --help: every setting in one of its groups (PPO, imitation, evaluation,
    opponents, Ray, files, ...), none left in the catch-all "options"."""
    pytest.importorskip("tt_env.train")
    from tt_env.train import cli
    from tt_env.train.config import CONFIG_FIELDS

    grouped = [name for names in cli.HELP_GROUPS.values() for name in names]
    assert sorted(grouped) == sorted(set(CONFIG_FIELDS) - {"rules", "preset"})
    parser = cli.build_parser()
    loose = [a.dest for a in parser._optionals._group_actions if a.dest != "help"]
    assert loose == []
    titles = [g.title for g in parser._action_groups]
    for title in ("PPO", "opponents", "evaluation", "files", "Ray (backend rllib)", "rules"):
        assert any(t.startswith(title) for t in titles), title
    assert any(t.startswith("imitation") for t in titles)
