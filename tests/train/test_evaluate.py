"""``tt-train evaluate``: a run's snapshots played against more opponents afterwards."""

from __future__ import annotations

import csv

import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from helpers import tiny_config  # noqa: E402

from tt_env.train import main, train  # noqa: E402


def _rows(root):
    with (root / "evaluations.csv").open(newline="") as fh:
        return list(csv.DictReader(fh))


def test_evaluate_adds_a_curve_per_opponent_and_goes_on_where_it_stopped(tmp_path, capsys):
    config = tiny_config(
        tmp_path, total_timesteps=1024, eval_every=512, eval_games=1, eval_opponents="random"
    )
    root = train(config, command="t").parent
    before = _rows(root)
    assert [(r["timesteps"], r["opponent"]) for r in before] == [
        ("0", "random"),
        ("512", "random"),
        ("1024", "random"),
    ]
    png = root / "learning_curve.png"
    png.unlink()
    args = ["evaluate", str(root), "--opponents", "greedy", "--games", "2", "--workers", "1"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.count("vs greedy: score difference") == 3 and png.is_file()
    rows = _rows(root)
    assert rows[:3] == before  # the run's own rows untouched
    added = rows[3:]
    assert [(r["timesteps"], r["opponent"]) for r in added] == [
        ("0", "greedy"),
        ("512", "greedy"),
        ("1024", "greedy"),
    ]
    for r in added:  # 2 deals in both seats; the interval holds the mean
        assert r["deals"] == "2" and r["games"] == "4"
        assert float(r["diff_low"]) <= float(r["diff"]) <= float(r["diff_high"])
        assert float(r["wall_time"]) >= 0
    # Again, with one more opponent: only what is missing is played.
    assert main(args[:3] + ["greedy,counting"] + args[4:]) == 0
    out = capsys.readouterr().out
    assert "vs greedy" not in out and out.count("vs counting: score difference") == 3
    assert len(_rows(root)) == 9


@pytest.mark.parametrize(
    "args, message",
    [
        (["--opponents", "nobody"], "opponent 'nobody'"),
        (["--opponents", "greedy", "--games", "0"], "games must be at least 1"),
    ],
)
def test_evaluate_refuses_in_one_line_before_any_game(tmp_path, capsys, args, message):
    config = tiny_config(tmp_path, total_timesteps=512, eval_every=512, eval_games=1)
    root = train(config, command="t").parent
    before = (root / "evaluations.csv").read_text()
    capsys.readouterr()
    assert main(["evaluate", str(root), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tt-train evaluate: error: ") and message in err
    assert len(err.splitlines()) == 1
    assert (root / "evaluations.csv").read_text() == before


def test_evaluate_names_a_directory_that_is_not_a_run(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path), "--opponents", "greedy"]) == 2
    assert "not a run directory" in capsys.readouterr().err
