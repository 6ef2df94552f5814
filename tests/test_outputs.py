"""Every output of every command line goes where the user points, as with any Unix tool: a
symbolic link is followed (its target written whole, the link kept), a FIFO or a device is
written where it is (never renamed over), and a device with no space left is one error line, a
non-zero exit and nothing left half-written.

The FIFOs and links are the tests' own, in ``tmp_path``. The full device is simulated, never the
system's ``/dev/full``: a FIFO of the test's own that :mod:`tt_env.util.files` opens as a file whose
every write fails with ENOSPC (as a write to ``/dev/full`` does, at the flush of the buffer).
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import stat
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from recorded_games import quick_record

from tt_env import arena, play, replay
from tt_env.game.rules import Rules
from tt_env.util import files as _files

ARENA = ["random", "random", "--games", "1", "--episode", "round", "--workers", "1", "-q"]
ARENA += ["--max-turns-per-round", "6"]
PLAY = ["--opponents", "random", "--episode", "round", "--seed", "3", "--max-turns-per-round", "6"]
PNG = b"\x89PNG\r\n\x1a\n"


# ---------------------------------------------------------------------------------- helpers
class Fifo:
    """A FIFO at ``path`` with a reader: after the block, ``data`` holds every byte written
    to it. The test holds a writer end of its own, so that no open of either end waits."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = b""

    def __enter__(self) -> Fifo:
        os.mkfifo(self.path)
        self._keep = os.open(self.path, os.O_RDWR)
        self._reader = open(self.path, "rb")  # noqa: SIM115 - closed in __exit__
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()
        return self

    def _read(self) -> None:
        self.data = self._reader.read()

    def __exit__(self, *exc) -> None:
        os.close(self._keep)  # the last writer gone: the reader sees the end of the data
        self._thread.join(30)
        self._reader.close()
        assert not self._thread.is_alive()
        assert stat.S_ISFIFO(os.lstat(self.path).st_mode), "the FIFO was replaced by a file"


class _Failing(io.RawIOBase):
    def __init__(self, code: int) -> None:
        self.code = code

    def writable(self) -> bool:
        return True

    def write(self, data) -> int:
        raise OSError(self.code, os.strerror(self.code))


def full_device(path: Path, monkeypatch, code: int = errno.ENOSPC) -> Path:
    """``path`` made a device that has no space left (see the module's docstring), or whose
    writes fail with another ``code`` (EPIPE: a pipe whose reader has gone)."""
    os.mkfifo(path)
    path = Path(os.path.realpath(path))
    real_open = open

    def opened(file, mode="r", *args, **kwargs):
        if isinstance(file, (str, os.PathLike)) and os.path.realpath(file) == str(path):
            raw = io.BufferedWriter(_Failing(code))
            if "b" in mode:
                return raw
            return io.TextIOWrapper(raw, encoding=kwargs.get("encoding"), newline="")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr(_files, "open", opened, raising=False)
    return path


def one_error_line(err: str, *words: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "error" in lines[0] and "Traceback" not in err
    for word in words:
        assert word in lines[0], (word, lines[0])


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*") if p.name.endswith(".tmp"))


# ---------------------------------------------------------------------------------- the outputs
def _record(tmp_path: Path) -> Path:
    path = tmp_path / "record" / "game.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(quick_record(Rules(num_players=2, max_turns_per_round=6), 1)))
    return path


def _train_with_a_fake_run(monkeypatch, tmp_path: Path, output: Path) -> int:
    """``tt-train --output OUTPUT`` whose training is replaced by a model file of its own (the
    part that copies the model to ``--output`` is the real one)."""
    training = pytest.importorskip("tt_env.train")
    from helpers import tiny_model

    def run(self):
        final = tiny_model(self.files.root / "model.npz", Rules())
        self.finish(final)
        return final

    from tt_env.train.backends.lean import LeanTrainer

    monkeypatch.setattr(LeanTrainer, "run", run)  # the default backend's
    argv = ["--run-dir", str(tmp_path / "runs"), "--run-name", "r", "--output", str(output)]
    return training.main(argv)


def _plot_run(tmp_path: Path, output: Path) -> int:
    training = pytest.importorskip("tt_env.train")
    pytest.importorskip("matplotlib")
    run = tmp_path / "run"
    run.mkdir(exist_ok=True)
    rows = "".join(f"{512 * i},all,{-i}\n" for i in range(1, 4))
    (run / "progress.csv").write_text("timesteps,opponents,mean_reward\n" + rows)
    return training.main(["plot", str(run), "-o", str(output)])


def _arena_plot(output: Path) -> int:
    pytest.importorskip("matplotlib")
    return arena.main([*ARENA, "--plot", str(output)])


def _save_model(output: Path) -> int:
    """:func:`tt_env.learned.model.save_model` as a command line would call it."""
    from helpers import tiny_model

    try:
        tiny_model(output, Rules())
    except OSError as exc:
        print(f"save_model: error: {exc}", file=sys.stderr)
        return 1
    return 0


def _is_json_of(key: str):
    return lambda data: key in json.loads(data)


def _is_model(data: bytes) -> bool:
    from tt_env.learned.model import MODEL_FORMAT

    with np.load(io.BytesIO(data)) as archive:
        return str(archive["__format__"]) == MODEL_FORMAT and len(archive.files) > 3


# name, the run with the output at a path (returns the exit status), what the output holds
OUTPUTS = {
    "tt-arena --json": (
        lambda tmp, mp, path: arena.main([*ARENA, "--json", str(path)]),
        _is_json_of("agents"),
    ),
    "tt-arena --csv": (
        lambda tmp, mp, path: arena.main([*ARENA, "--csv", str(path)]),
        lambda data: data.startswith(b"rank,agent,spec,games"),
    ),
    "tt-arena --plot": (lambda tmp, mp, path: _arena_plot(path), lambda d: d.startswith(PNG)),
    "tt-replay -o": (
        lambda tmp, mp, path: replay.main([str(_record(tmp)), "-o", str(path)]),
        lambda data: data.startswith(b"<!DOCTYPE html>") and b"tt-data" in data,
    ),
    "tt-play --save": (
        lambda tmp, mp, path: play.main(
            [*PLAY, "--save", str(path)], input_fn=lambda _: "1", out=io.StringIO()
        ),
        _is_json_of("moves"),
    ),
    "tt-train plot -o": (lambda tmp, mp, path: _plot_run(tmp, path), lambda d: d.startswith(PNG)),
    "tt-train --output": (
        lambda tmp, mp, path: _train_with_a_fake_run(mp, tmp, path),
        _is_model,
    ),
    "save_model": (lambda tmp, mp, path: _save_model(path), _is_model),
}


@pytest.mark.parametrize("name", OUTPUTS)
def test_an_output_through_a_symlink_writes_its_target_and_keeps_the_link(
    name, tmp_path, monkeypatch, capsys
):
    run, holds = OUTPUTS[name]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = elsewhere / "target"
    target.write_bytes(b"old")
    link = tmp_path / "link"
    link.symlink_to(os.path.relpath(target, tmp_path))
    assert run(tmp_path, monkeypatch, link) == 0, capsys.readouterr().err
    assert link.is_symlink() and os.readlink(link) == os.path.relpath(target, tmp_path)
    assert holds(target.read_bytes())
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", OUTPUTS)
def test_an_output_to_a_fifo_reaches_its_reader(name, tmp_path, monkeypatch, capsys):
    run, holds = OUTPUTS[name]
    with Fifo(tmp_path / "pipe") as fifo:
        assert run(tmp_path, monkeypatch, fifo.path) == 0, capsys.readouterr().err
    assert holds(fifo.data)
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EPIPE])
@pytest.mark.parametrize("name", OUTPUTS)
def test_an_output_to_a_full_device_is_one_error_line(name, code, tmp_path, monkeypatch, capsys):
    run, _ = OUTPUTS[name]
    device = full_device(tmp_path / "full", monkeypatch, code)
    capsys.readouterr()
    assert run(tmp_path, monkeypatch, device) != 0
    one_error_line(capsys.readouterr().err, f"could not write {device}: {os.strerror(code)}")
    assert stat.S_ISFIFO(os.lstat(device).st_mode)  # the device is still a device
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("name", ["tt-arena --csv", "tt-replay -o", "save_model"])
def test_a_full_disk_behind_a_symlink_keeps_the_old_target(name, tmp_path, monkeypatch, capsys):
    run, _ = OUTPUTS[name]
    target = tmp_path / "elsewhere" / "target"
    target.parent.mkdir()
    target.write_bytes(b"old")
    link = tmp_path / "link"
    link.symlink_to(target)

    def full_disk(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_files.os, "fsync", full_disk)
    capsys.readouterr()
    assert run(tmp_path, monkeypatch, link) != 0
    one_error_line(capsys.readouterr().err, f"could not write {link}: No space left on device")
    assert link.is_symlink() and target.read_bytes() == b"old"
    assert leftovers(tmp_path) == []


def test_an_output_to_an_open_descriptor_is_written_in_place(tmp_path, capsys):
    """``/dev/fd/N`` (``/dev/stdout`` is ``/dev/fd/1``): a pipe gets the bytes, and a regular
    file (a shell's ``> out.csv``) is written, not replaced by a rename."""
    read_end, write_end = os.pipe()
    try:
        assert arena.main([*ARENA, "--csv", f"/dev/fd/{write_end}"]) == 0
        os.close(write_end)
        with os.fdopen(read_end, "rb") as fh:
            assert fh.read().startswith(b"rank,agent")
    finally:
        for fd in (read_end, write_end):
            with contextlib.suppress(OSError):
                os.close(fd)
    redirected = tmp_path / "out.csv"
    with redirected.open("wb") as fh:
        inode = os.fstat(fh.fileno()).st_ino
        assert arena.main([*ARENA, "--csv", f"/dev/fd/{fh.fileno()}"]) == 0
        assert os.fstat(fh.fileno()).st_size > 0  # the shell's file itself got the CSV
    assert redirected.stat().st_ino == inode and redirected.read_bytes().startswith(b"rank,")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_tt_arena_replays_through_links_and_fifos_and_a_full_device(tmp_path, monkeypatch, capsys):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "replays").symlink_to(real)  # the directory given is a link
    elsewhere = tmp_path / "index-target.html"
    (real / "index.html").symlink_to(elsewhere)  # and the index in it, too
    name = arena.replay_name((0, 0, 0))
    with Fifo(real / f"{name}.json") as fifo:
        assert arena.main([*ARENA, "--replays", str(tmp_path / "replays")]) == 0
    assert json.loads(fifo.data)["players"] == ["random#1", "random#2"]
    assert (real / "index.html").is_symlink() and b"<html" in elsewhere.read_bytes()
    assert (tmp_path / "replays").is_symlink() and leftovers(tmp_path) == []
    # A replay that cannot be written stops the tournament: one line, a non-zero exit.
    (real / f"{name}.json").unlink()
    device = full_device(real / f"{name}.json", monkeypatch)
    capsys.readouterr()
    assert arena.main([*ARENA, "--replays", str(tmp_path / "replays")]) != 0
    given = tmp_path / "replays" / f"{name}.json"
    one_error_line(capsys.readouterr().err, f"could not write {given}: No space left on device")
    assert stat.S_ISFIFO(os.lstat(device).st_mode) and leftovers(tmp_path) == []


def test_tt_train_run_files_on_a_full_disk_are_one_line_and_leave_no_run(
    tmp_path, monkeypatch, capsys
):
    training = pytest.importorskip("tt_env.train")
    pytest.importorskip("sb3_contrib")

    def full_disk(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_files.os, "fsync", full_disk)
    runs = tmp_path / "runs"
    assert training.main(["--run-dir", str(runs), "--run-name", "r", "--no-progress-bar"]) == 2
    one_error_line(capsys.readouterr().err, "could not write", "No space left on device")
    assert not runs.exists() and leftovers(tmp_path) == []


def test_tt_train_run_files_through_a_symlink_are_written_in_its_target(tmp_path):
    training = pytest.importorskip("tt_env.train")
    files = training.RunFiles(tmp_path / "run")
    files.create()
    kept = tmp_path / "kept-state.json"
    kept.write_text("{}")
    files.state_path.symlink_to(kept)
    files.save_state({"wall_time": 1.5})
    assert files.state_path.is_symlink() and json.loads(kept.read_text())["wall_time"] == 1.5
    assert leftovers(tmp_path) == []


# ---------------------------------------------------------------------------------- _files
def test_a_dangling_symlink_makes_its_target(tmp_path):
    link = tmp_path / "link.json"
    link.symlink_to("sub/made.json")
    (tmp_path / "sub").mkdir()
    assert _files.check_writable(link, "--json") == link
    _files.write_text_atomically(link, "new")
    assert link.is_symlink() and (tmp_path / "sub" / "made.json").read_text() == "new"


def test_a_symlink_to_a_missing_directory_and_a_loop_are_one_line_errors(tmp_path):
    missing = tmp_path / "link"
    missing.symlink_to(tmp_path / "no" / "such.json")
    with pytest.raises(ValueError, match=f"--csv {missing}: no such directory {tmp_path / 'no'}"):
        _files.check_writable(missing, "--csv")
    loop = tmp_path / "loop"
    loop.symlink_to("loop")
    with pytest.raises(ValueError, match="--csv .*loop: Too many levels of symbolic links"):
        _files.check_writable(loop, "--csv")
    with pytest.raises(_files.WriteError, match="could not write .*loop: Too many levels"):
        _files.write_text_atomically(loop, "x")
    assert loop.is_symlink() and os.readlink(loop) == "loop"


def test_a_fifo_and_a_device_are_writable_outputs_and_stay_what_they_are(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert _files.check_writable(fifo, "--csv") == fifo
    null = tmp_path / "null"  # a null device of the test's own: never the system's /dev/null
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        null.write_text("")  # a file system mounted nodev refuses to open it
    except OSError as exc:
        pytest.skip(f"cannot make a device here ({exc.strerror})")
    assert _files.check_writable(null, "--csv") == null
    _files.write_text_atomically(null, "nothing")
    with _files.atomic_path(null) as tmp:
        tmp.write_text("nothing either")
    assert stat.S_ISCHR(os.lstat(null).st_mode) and leftovers(tmp_path) == []


def test_tt_arena_writes_two_outputs_to_one_device_side_by_side(tmp_path, capsys):
    """--json /dev/stdout --csv /dev/stderr in a terminal name one device: not "the same file"
    (a device node of the test's own stands for it); two regular files of one name still are."""
    null = tmp_path / "null"
    try:
        os.mknod(null, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        null.write_text("")
    except OSError as exc:
        pytest.skip(f"cannot make a device here ({exc.strerror})")
    short = ["greedy", "random", "--games", "1", "--episode", "round", "-q"]
    assert arena.main([*short, "--json", str(null), "--csv", str(null)]) == 0
    assert stat.S_ISCHR(os.lstat(null).st_mode)
    assert arena.main([*short, "--json", str(tmp_path / "r"), "--csv", str(tmp_path / "r")]) == 2
    assert "same file" in capsys.readouterr().err
