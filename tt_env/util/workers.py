"""Process pools that a Ctrl-C stops cleanly (tt-arena's games, tt-train's teacher data), and
the threads a compiled kernel spreads a batch over (:func:`thread_count`).

A terminal sends Ctrl-C (SIGINT) to the whole process group, so the pool's workers get it too.
They must ignore it: the main process handles it, keeps what is finished and stops the pool.
A worker that took it would die printing a traceback, and one that died half-started would
hang the pool, which restarts it and waits for the lost task. So the workers are started while
the starting thread *blocks* SIGINT: the mask survives fork and exec, a press during their
start-up stays pending in each of them, and their first act ignores SIGINT (which drops it).
In the main process the press is not lost either. It is delivered when the mask is lifted, to
the handler of the :class:`CtrlC` the caller has entered. An earlier version ignored SIGINT
around the start instead, and a press in those milliseconds was dropped: the tournament ran on.
Where there is no signal mask (Windows), the workers start as they would anyway and then
ignore Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Any

MAX_THREADS = 64  # the most threads a compiled kernel takes (util/threads.h, TT_THREADS_MAX)


def default_threads() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def thread_count(num_threads: Any) -> int:
    """The threads a compiled batch runs on for the option ``num_threads``: None gives
    :func:`default_threads` (at most :data:`MAX_THREADS`), an int must be 1..64; anything else
    raises ``ValueError``."""
    if num_threads is None:
        return min(default_threads(), MAX_THREADS)
    if (
        isinstance(num_threads, bool)
        or not isinstance(num_threads, int)
        or not 1 <= num_threads <= MAX_THREADS
    ):
        raise ValueError(f"num_threads must be 1..{MAX_THREADS}, got {num_threads!r}")
    return num_threads


def _ignore_ctrl_c_then(initializer, *args) -> None:
    """A pool worker's first act: ignore Ctrl-C (a press pending since the start is dropped),
    unblock it (the mask is not passed on), then run ``initializer(*args)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    if initializer is not None:
        initializer(*args)


def pool_ignoring_ctrl_c(ctx, workers: int, initializer=None, initargs: tuple = ()):
    """``ctx.Pool(workers, initializer, initargs)`` whose workers ignore Ctrl-C from their
    first instruction (see the module docstring); enter a :class:`CtrlC` before calling it."""
    block = hasattr(signal, "pthread_sigmask")
    if block:
        # The pool's first process starts multiprocessing's resource tracker, and that start
        # unblocks SIGINT when it is done: start it before SIGINT is blocked.
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if block else None
    try:
        return ctx.Pool(workers, initializer=_ignore_ctrl_c_then, initargs=(initializer, *initargs))
    finally:
        if block:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


class CtrlC:
    """Ctrl-C as a flag while a pool runs (in the main thread; elsewhere it does nothing).

    A KeyboardInterrupt raised at an arbitrary point of the pool's code (inside a lock of its
    result iterator, say) can leave a lock held that the pool's own threads then wait for, and
    ``terminate()`` never returns; the handler only notes the press, and the caller, waiting in
    short slices, raises KeyboardInterrupt between two waits (:meth:`check`)."""

    def __init__(self) -> None:
        self.pressed = threading.Event()
        self._previous: Any = None

    def __enter__(self) -> CtrlC:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, lambda *_: self.pressed.set())
        return self

    def __exit__(self, *exc: object) -> None:
        if self._previous is not None:
            signal.signal(signal.SIGINT, self._previous)

    def check(self) -> None:
        """KeyboardInterrupt if Ctrl-C was pressed."""
        if self.pressed.is_set():
            raise KeyboardInterrupt
