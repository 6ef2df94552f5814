"""Write the README's leaderboard: the plain output of ``tt-arena``, run by the current code.

::

    python benchmarks/make_readme_leaderboard.py              # the default run: 50 deals, 90 s CPU
    python benchmarks/make_readme_leaderboard.py --games 10   # a shorter run (extra tt-arena flags)
    python benchmarks/make_readme_leaderboard.py --print      # print the block, leave README alone

The block between ``<!-- leaderboard -->`` and ``<!-- /leaderboard -->`` in README.md is replaced
by the command and what it printed, so the README shows exactly what the code prints. Any
argument that is not ``--print`` goes to ``tt-arena`` (``--plain`` is always added).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
START, END = "<!-- leaderboard -->", "<!-- /leaderboard -->"


def leaderboard_block(arena_args: list[str]) -> str:
    """The Markdown block: the ``tt-arena`` command and its plain-text output."""
    from tt_env.arena import main

    argv = [*arena_args, "--plain"]
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    if status != 0:
        raise SystemExit(f"tt-arena failed ({status}): {err.getvalue()}")
    command = "tt-arena " + shlex.join(argv)
    return f"```text\n$ {command}\n{out.getvalue().rstrip()}\n```"


def replace_block(text: str, block: str) -> str:
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), flags=re.S)
    if not pattern.search(text):
        raise SystemExit(f"README.md has no {START} ... {END} block")
    return pattern.sub(lambda _: f"{START}\n{block}\n{END}", text)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    show_only = "--print" in args
    args = [a for a in args if a != "--print"]
    block = leaderboard_block(args)
    if show_only:
        print(block)
        return 0
    README.write_text(replace_block(README.read_text(encoding="utf-8"), block), encoding="utf-8")
    print(f"{README}: leaderboard updated")
    return 0


if __name__ == "__main__":
    sys.exit(main())
