"""Faults lose no finished work: Ctrl-C in tt-arena keeps the finished games and --resume plays
the rest; files are written whole or not at all (a full disk leaves no empty file and no
temporary file); tt-train resumes past a torn checkpoint without logging a step twice."""

from __future__ import annotations

import csv
import errno
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tt_env import arena
from tt_env.arena import games as arena_games
from tt_env.game.rules import Rules
from tt_env.util import files as _files
from tt_env.util.workers import CtrlC

ROOT = Path(__file__).resolve().parents[1]


def full_disk(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.tmp"))


# ---------------------------------------------------------------------------------- files
def test_a_full_disk_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("old")
    monkeypatch.setattr(_files.os, "fsync", full_disk)
    with pytest.raises(OSError, match="No space left"):
        _files.write_text_atomically(target, "new")
    assert target.read_text() == "old" and leftovers(tmp_path) == []
    with pytest.raises(OSError):
        _files.write_text_atomically(tmp_path / "fresh.json", "new")
    assert not (tmp_path / "fresh.json").exists() and leftovers(tmp_path) == []


def test_a_model_file_is_written_whole_or_not_at_all(tmp_path, monkeypatch):
    from helpers import tiny_model

    monkeypatch.setattr(_files.os, "fsync", full_disk)
    with pytest.raises(OSError):
        tiny_model(tmp_path / "m.npz", Rules())
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------- tt-arena
SHORT = [
    "greedy",
    "random",
    "--games",
    "4",
    "--episode",
    "round",
    "--workers",
    "1",
    "--plain",
    "--max-turns-per-round",
    "10",
]


def test_tt_arena_on_a_full_disk_says_so_and_leaves_no_empty_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(_files.os, "fsync", full_disk)
    out = tmp_path / "r.json"
    assert arena.main([*SHORT, "--json", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"could not write {out}: No space left on device" in err
    assert list(tmp_path.iterdir()) == []


def interrupt_after(monkeypatch, games: int) -> None:
    """Ctrl-C while the game after ``games`` finished games is being played."""
    real = arena.play_game
    played = []

    def play(*args, **kwargs):
        if len(played) == games:
            raise KeyboardInterrupt
        played.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr("tt_env.arena.games.play_game", play)


def test_ctrl_c_keeps_the_finished_games_and_resume_plays_the_rest(tmp_path, monkeypatch, capsys):
    out = tmp_path / "r.json"
    with monkeypatch.context() as m:
        interrupt_after(m, 3)
        assert arena.main([*SHORT, "--json", str(out)]) == 130
    captured = capsys.readouterr()
    assert (
        f"interrupted: 3 of 8 games finished, kept in {out}; play the rest with: "
        f"tt-arena --resume {out}"
    ) in captured.err
    assert "tt-arena: 3 of 8 games (interrupted) = 4 deals x 2 seat rotations" in captured.out
    partial = json.loads(out.read_text())
    assert partial["settings"]["complete"] is False and len(partial["games"]) == 3

    assert arena.main(["--resume", str(out), "--workers", "1", "--quiet"]) == 0
    resumed = json.loads(out.read_text())
    assert resumed["settings"]["complete"] is True
    full = tmp_path / "full.json"
    assert arena.main([*SHORT, "--json", str(full), "--quiet"]) == 0
    uninterrupted = json.loads(full.read_text())
    assert resumed["games"] == uninterrupted["games"]
    assert resumed["agents"] == uninterrupted["agents"]
    # More deals on top of a finished tournament: only the new ones are played.
    assert arena.main(["--resume", str(out), "--games", "5", "--workers", "1", "-q"]) == 0
    more = json.loads(out.read_text())
    assert more["games"][:8] == uninterrupted["games"] and len(more["games"]) == 10


def test_ctrl_c_without_json_keeps_the_games_in_a_file_of_its_own(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    interrupt_after(monkeypatch, 2)
    assert arena.main(SHORT) == 130
    kept = list(tmp_path.glob("tt-arena-interrupted-*.json"))
    assert len(kept) == 1 and "tt-arena --resume tt-arena-interrupted-" in capsys.readouterr().err
    settings, games = arena.load_results(kept[0])
    assert len(games) == 2 and settings["agents"] == ["greedy", "random"]


def test_ctrl_c_before_any_game_finished_writes_nothing(tmp_path, monkeypatch, capsys):
    interrupt_after(monkeypatch, 0)
    assert arena.main([*SHORT, "--json", str(tmp_path / "r.json")]) == 130
    assert "nothing written" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_resume_refuses_games_of_another_tournament(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert arena.main([*SHORT, "--json", str(out), "--quiet"]) == 0
    data = json.loads(out.read_text())
    data["games"][0]["seats"] = [5, 0]
    out.write_text(json.dumps(data))
    assert arena.main(["--resume", str(out)]) == 2
    assert "is not a game of this tournament" in capsys.readouterr().err


def ctrl_c_the_group(args: list[str], out: Path, deals: int, after: float) -> None:
    """Run ``tt-arena ARGS --quiet --json OUT``, send SIGINT to its whole process group after
    ``after`` seconds, as a terminal does, and check that it stops quietly, keeping the
    finished games of the tournament of ``deals`` deals."""
    cmd = [sys.executable, "-m", "tt_env.arena", *args, "--quiet", "--json", str(out)]
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    time.sleep(after)
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    if out.exists():  # some games finished (they always do, unless the machine crawls)
        settings, games = arena.load_results(out)
        assert games and settings["games"] == deals
        assert f"tt-arena --resume {out}" in err


def test_a_real_ctrl_c_stops_the_workers_quietly_and_keeps_the_games(tmp_path):
    """SIGINT to the whole process group, as a terminal sends it, with two worker processes."""
    args = ["greedy", "random", "--games", "100000", "--episode", "round", "--workers", "2"]
    ctrl_c_the_group(args, tmp_path / "r.json", 100000, after=8)


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no signal masks here")
def test_a_ctrl_c_while_the_workers_start_is_kept_and_the_workers_live_through_it():
    """A press in the milliseconds when the pool starts its workers reaches the tournament's
    handler when they are started (an earlier version ignored SIGINT there and lost it: the
    tournament ran on), and the workers, pressed too as they start, live and play."""
    import multiprocessing

    spawn = multiprocessing.get_context("spawn")

    class PressedWhileStarting:  # a spawn context that presses Ctrl-C as the workers start
        def Pool(self, *args, **kwargs):  # noqa: N802 - multiprocessing's name
            signal.raise_signal(signal.SIGINT)
            pool = spawn.Pool(*args, **kwargs)
            for worker in multiprocessing.active_children():  # each one still starting
                os.kill(worker.pid, signal.SIGINT)
            return pool

    setup = (["random", "random"], Rules(num_players=2), "round")
    with CtrlC() as ctrl_c:
        with arena_games._pool_ignoring_ctrl_c(PressedWhileStarting(), 2, setup) as pool:
            assert ctrl_c.pressed.is_set(), "the Ctrl-C was lost"
            before = {worker.pid for worker in multiprocessing.active_children()}
            matches = arena.schedule(2, 2, 2, seed=3)
            played = pool.map(arena_games._play_in_worker, [[m] for m in matches])
            assert [r[0].key for r in played] == [m.key for m in matches]
            assert {worker.pid for worker in multiprocessing.active_children()} == before


# ---------------------------------------------------------------------------------- tt-train
def progress_keys(root: Path, name: str, key: str) -> list[tuple[str, str]]:
    with (root / name).open(newline="") as fh:
        return [(row["timesteps"], row[key]) for row in csv.DictReader(fh)]


def test_resume_falls_back_past_a_torn_checkpoint_and_logs_no_step_twice(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    from helpers import sb3_steps, tiny_config

    from tt_env.train import main, train

    config = tiny_config(tmp_path, total_timesteps=1024, eval_opponents="random", eval_games=1)
    root = train(config, command="first").parent
    last = root / "checkpoints" / "ckpt_000001024.zip"
    last.write_bytes(last.read_bytes()[: last.stat().st_size // 2])  # torn by a crash
    (root / "checkpoints" / ".ckpt_000001536.zip.4242.tmp").write_bytes(b"")  # killed writing
    with (root / "progress.csv").open("a") as fh:
        fh.write("1024,9.9,gre")  # a row cut short by the crash
    capsys.readouterr()
    assert main(["--resume", str(root), "--no-progress-bar"]) == 0
    out = capsys.readouterr().out
    assert "ckpt_000001024.zip damaged" in out and "falling back to ckpt_000000512.zip" in out
    assert sb3_steps(last) == 1024  # written again, whole
    assert leftovers(root) == []
    for name, key in (("progress.csv", "opponents"), ("evaluations.csv", "opponent")):
        keys = progress_keys(root, name, key)
        assert len(keys) == len(set(keys)), f"{name} has a step twice: {keys}"
    assert {t for t, _ in progress_keys(root, "progress.csv", "opponents")} == {"512", "1024"}


def test_a_checkpoint_that_fails_to_write_leaves_nothing(tmp_path):
    pytest.importorskip("sb3_contrib")
    from helpers import tiny_config

    from tt_env.train import Trainer

    trainer = Trainer(tiny_config(tmp_path), tmp_path / "run", "test", resume=False)
    trainer.files.create()

    class FailingModel:
        num_timesteps = 512

        def save(self, fh):
            fh.write(b"PK half a checkpoint")
            raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        trainer.checkpoint(FailingModel())
    assert list(trainer.files.checkpoints.iterdir()) == []
    assert leftovers(tmp_path) == []


def test_a_failed_setup_leaves_no_run_directory(tmp_path, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from helpers import tiny_config

    from tt_env import train as training

    def broken(*args, **kwargs):
        raise RuntimeError("the environments could not start")

    monkeypatch.setattr("tt_env.train.backends.sb3.make_vec_env", broken)
    config = tiny_config(tmp_path, run_dir=str(tmp_path / "deep" / "runs"))
    with pytest.raises(RuntimeError):
        training.train(config)
    assert list(tmp_path.iterdir()) == []


def test_the_manual_says_what_runs_code():
    text = " ".join(
        (ROOT / "docs" / page).read_text(encoding="utf-8") for page in ("training.md", "agents.md")
    ).split()
    text = " ".join(text)
    assert "only resume runs you trust" in text
    assert "imports and runs that module" in text


def test_a_real_ctrl_c_stops_the_teacher_collection_without_a_worker_traceback(tmp_path):
    """tt-train's teacher data come from a pool of workers: SIGINT to the whole process group
    (as a terminal sends it) stops it at once, and no worker prints a traceback."""
    pytest.importorskip("torch")
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "sys.path.insert(0, 'tests')\n"
        "from helpers import tiny_config\n"
        "from tt_env.train import collect_teacher_data\n"
        "if __name__ == '__main__':\n"
        "    config = tiny_config(Path(sys.argv[1]), bc_samples=10**7, bc_teacher='counting')\n"
        "    try:\n"
        "        collect_teacher_data(config, 2, lambda *a: print('collecting', flush=True),"
        " every=0.2)\n"
        "    except KeyboardInterrupt:\n"
        "        print('interrupted', file=sys.stderr)\n"
        "        sys.exit(130)\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()  # the first progress report: the workers are collecting
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert line == "collecting\n", err
    assert proc.returncode == 130 and "interrupted" in err, err
    assert "Traceback" not in err, err
