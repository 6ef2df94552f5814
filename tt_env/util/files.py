"""Writing files safely: check an output path before the work, write it whole or not at all.

The command lines check every output path before they start (a missing directory or a read-only
place is reported at once, not after an hour of work), and write through a temporary file beside
the target that replaces it only once it is complete: an interruption or a full disk leaves the
old file (or none), never a half-written or empty one, and no temporary file behind.

An output path is taken as Unix tools take it: a symbolic link is followed (the file it leads to
is written, atomically as above, and the link stays a link); a path that is neither a regular
file nor missing (a FIFO, a character device such as ``/dev/null``, ``/dev/stdout``) is opened
and written where it is, never renamed over. A write that fails raises :class:`WriteError`, one
line naming the path and the problem.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO


class WriteError(OSError):
    """A file could not be written; ``str()`` is one line naming the path (as given) and the
    problem: ``could not write out.csv: No space left on device``. ``errno`` and ``strerror``
    are those of the failure."""

    def __str__(self) -> str:
        return f"could not write {self.filename}: {self.strerror}"


def check_writable(path: str | os.PathLike, what: str) -> Path:
    """``path`` if a file can be written there; else :class:`ValueError` naming ``what`` (the
    option, e.g. ``"--json"``) and the problem. Creates nothing that stays."""
    target = Path(path)
    if str(path) == "" or target.name in ("", ".", ".."):
        raise ValueError(f"{what} {str(path)!r}: not a file name")
    if target.is_dir():
        raise ValueError(f"{what} {path}: is a directory")
    try:
        special = _is_special(target)
    except OSError as exc:  # a loop of symbolic links, a file used as a directory
        raise ValueError(f"{what} {path}: {exc.strerror or exc}") from None
    if special:  # a FIFO, a device: written where it is (its directory need not be writable)
        if not os.access(target, os.W_OK):
            raise ValueError(f"{what} {path}: cannot be written (permission denied)")
        return target
    # A symbolic link is followed: the file is written (its temporary file made) beside the
    # file that the link leads to.
    parent = Path(os.path.realpath(target)).parent if target.is_symlink() else target.parent
    if not parent.is_dir():
        raise ValueError(f"{what} {path}: no such directory {parent}")
    check_directory_writable(parent, f"{what} {path}")
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{what} {path}: the file is read-only")
    return target


def check_directory_writable(directory: str | os.PathLike, what: str) -> None:
    """:class:`ValueError` starting with ``what`` unless a file can be made in ``directory``
    (tried with a temporary file, removed at once)."""
    probe = _temporary_name(Path(directory) / "probe")
    try:
        with open(probe, "xb"):
            pass
        os.unlink(probe)
    except OSError as exc:
        raise ValueError(f"{what}: cannot write in {directory} ({exc.strerror or exc})") from None


def _temporary_name(target: Path) -> Path:
    return target.with_name(f".{target.name}.{os.getpid()}.tmp")


def _is_special(path: Path) -> bool:
    """Whether ``path`` (symbolic links followed) is written where it is: it exists and is not a
    regular file (a FIFO, a device, a socket, a directory), or it is one of the process's open
    files (``/dev/stdout``, ``/dev/fd/N``: a shell's ``> out.txt`` is a regular file, which a
    rename would take from the shell). :class:`OSError` if it cannot be told (a loop of links)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    return not stat.S_ISREG(mode) or _is_descriptor(path)


def _is_descriptor(path: Path) -> bool:
    """Whether ``path`` leads through a ``/proc/PID/fd`` folder (as ``/dev/stdout`` and
    ``/dev/fd/N`` do on Linux): its symbolic links followed one at a time, since
    :func:`os.path.realpath` goes on to the file that the descriptor has open."""
    here = Path(os.path.abspath(path))
    for _ in range(40):  # the kernel's own limit of links in a path
        folder = Path(os.path.realpath(here.parent))
        if folder.parts[1:2] == ("proc",) and folder.name == "fd":
            return True
        here = folder / here.name
        if not here.is_symlink():
            return False
        here = Path(os.path.abspath(folder / os.readlink(here)))
    return False


def _destination(path: Path) -> Path:
    """The regular file (or the file to make) that writing ``path`` replaces: ``path`` with its
    symbolic links followed. :class:`OSError` for a loop of links."""
    real = Path(os.path.realpath(path))
    if real.is_symlink():  # realpath stops where a loop starts
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), str(path))
    return real


def _flush_standard_streams() -> None:
    """Before writing a FIFO or a device directly: what Python holds for the standard streams
    comes first (a table printed before ``--json /dev/stdout`` is not written after it)."""
    for stream in (sys.stdout, sys.stderr):
        with suppress(Exception):  # a stream closed or replaced by a caller
            stream.flush()


@contextmanager
def _reported_as(path: str | os.PathLike, *ours: Path) -> Iterator[None]:
    """An :class:`OSError` of the block as a :class:`WriteError` naming ``path`` when it is a
    failure to write it: it names no file or one of ``ours`` (a file that the writer reads, a
    model being copied, keeps its own error)."""
    try:
        yield
    except WriteError:
        raise
    except OSError as exc:
        named = exc.filename
        if isinstance(named, (str, os.PathLike)) and Path(named) not in ours:
            raise
        raise WriteError(exc.errno or errno.EIO, exc.strerror or str(exc), str(path)) from exc


@contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """A file to write instead of ``path``: a temporary file beside it, flushed to disk and
    renamed to ``path`` when the block ends without an error, removed when it raises. A
    symbolic link is followed; a FIFO or a device is written directly (see the module's
    docstring). A failure to write is a :class:`WriteError`."""
    given = Path(path)
    with _reported_as(path, given):
        special = _is_special(given)
        target = given if special else _destination(given)
    if special:
        _flush_standard_streams()
        with _reported_as(path, given), open(given, mode, **open_kwargs) as fh:
            yield fh
        return
    tmp = _temporary_name(target)
    try:
        with _reported_as(path, given, target, tmp):
            with open(tmp, mode, **open_kwargs) as fh:
                yield fh
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


@contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary path beside ``path`` for a writer that wants a file name (matplotlib,
    NumPy): renamed to ``path`` when the block ends without an error, removed when it raises.
    A symbolic link is followed. For a FIFO or a device the temporary file is made in the
    system's temporary directory and, once whole, copied into it: a writer that wants a name
    may refuse a FIFO (:func:`shutil.copyfile` does), and this way the reader gets the whole
    file or nothing. A failure to write is a :class:`WriteError`."""
    given = Path(path)
    with _reported_as(path, given):
        special = _is_special(given)
        target = given if special else _destination(given)
    if special:
        with tempfile.TemporaryDirectory(prefix="tt_env-") as folder:
            tmp = Path(folder) / given.name
            with _reported_as(path, given, tmp):
                yield tmp
                _flush_standard_streams()
                with open(tmp, "rb") as written, open(given, "wb") as fh:
                    shutil.copyfileobj(written, fh)
        return
    tmp = _temporary_name(target)
    try:
        with _reported_as(path, given, target, tmp):
            yield tmp
            os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise


def write_text_atomically(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` (UTF-8) to ``path`` whole or not at all (see :func:`atomic_file`)."""
    with atomic_file(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
