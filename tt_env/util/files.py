"""Writing files safely: check an output path before the work, write it whole or not at all.

The command lines check every output path before they start (a missing directory or a read-only
place is reported at once, not after an hour of work), and write through a temporary file beside
the target that replaces it only once it is complete: an interruption or a full disk leaves the
old file (or none), never a half-written or empty one, and no temporary file behind.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO


def check_writable(path: str | os.PathLike, what: str) -> Path:
    """``path`` if a file can be written there; else :class:`ValueError` naming ``what`` (the
    option, e.g. ``"--json"``) and the problem. Creates nothing that stays."""
    target = Path(path)
    if str(path) == "" or target.name in ("", ".", ".."):
        raise ValueError(f"{what} {str(path)!r}: not a file name")
    if target.is_dir():
        raise ValueError(f"{what} {path}: is a directory")
    parent = target.parent
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


@contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "w", **open_kwargs) -> Iterator[IO]:
    """A file to write instead of ``path``: a temporary file beside it, flushed to disk and
    renamed to ``path`` when the block ends without an error, removed when it raises."""
    target = Path(path)
    tmp = _temporary_name(target)
    try:
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
    NumPy): renamed to ``path`` when the block ends without an error, removed when it raises."""
    target = Path(path)
    tmp = _temporary_name(target)
    try:
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
