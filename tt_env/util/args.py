"""What every command line needs, below every other layer: an argument parser whose errors are
one line, and the argparse types of the numbers checked before any work starts (:mod:`tt_env.cli`
adds the rules' options; ``python -m tt_env.text`` uses these alone)."""

from __future__ import annotations

import argparse


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other error of the commands:
    ``tt-arena: error: argument --workers/-j: expected an integer >= 0, got -3 (see tt-arena
    --help)``, exit status 2 (argparse prints its whole usage first)."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {one_line(message)} (see {self.prog} --help)\n")


def one_line(message: object) -> str:
    """``str(message)`` on one line: control characters (a newline in a file name given on the
    command line) are shown escaped."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in str(message))


def non_negative_int(text: str) -> int:
    """An argparse type: an integer >= 0 (a seed, a number of workers)."""
    return _bounded_int(text, 0)


def positive_int(text: str) -> int:
    """An argparse type: an integer >= 1 (a number of games)."""
    return _bounded_int(text, 1)


def _bounded_int(text: str, low: int) -> int:
    stripped = text.strip()
    if (
        not (stripped.lstrip("+-").isascii() and stripped.lstrip("+-").isdigit())
        or len(stripped) > 30
    ):
        raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text[:40]!r}")
    value = int(stripped)
    if value < low:
        raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {value}")
    return value
