"""The Python examples of the README and of the manual (docs/*.md) run and print what their
comments say; the manual's observation table matches the code; the README's leaderboard is the
plain output of ``tt-arena``.

Every ``print(...)`` line of a Python block ends with a comment that is exactly what it prints,
so a comment cannot drift from the code.
"""

from __future__ import annotations

import builtins
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PAGES = ["README.md", *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "docs").glob("*.md")))]


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


BLOCKS = [
    (page, index, block)
    for page in PAGES
    for index, block in enumerate(python_blocks((ROOT / page).read_text(encoding="utf-8")))
]


def test_readme_has_examples():
    """One example per part in the README; the manual keeps at least the examples the README had
    before the manual moved to docs/ (10)."""
    assert len(python_blocks(README)) >= 4
    assert sum(page != "README.md" for page, _, _ in BLOCKS) >= 10


def expected_prints(block: str, name: str) -> dict[int, str]:
    """Line number -> the comment of each ``print(`` line of a block."""
    expected = {}
    for number, line in enumerate(block.splitlines(), 1):
        if line.lstrip().startswith("print("):
            assert " # " in line, f"{name}: {line.strip()!r} does not say what it prints"
            expected[number] = line.rsplit(" # ", 1)[1].strip()
    return expected


@pytest.mark.parametrize(
    ("page", "index", "block"), BLOCKS, ids=[f"{page}:{index}" for page, index, _ in BLOCKS]
)
def test_example_runs_and_prints_what_it_says(page, index, block):
    if "sb3_contrib" in block or "stable_baselines3" in block or "torch" in block:
        pytest.importorskip("sb3_contrib")  # the training examples; the others need no torch
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(1)
    name = f"{page} block {index}"
    printed: dict[int, list[str]] = {}

    def readme_print(*args, sep=" ", end="\n", file=None, flush=False):
        frame = sys._getframe(1)
        if file is not None or frame.f_code.co_filename != name:
            return builtins.print(*args, sep=sep, end=end, file=file, flush=flush)
        printed.setdefault(frame.f_lineno, []).append(sep.join(map(str, args)))

    exec(compile(block, name, "exec"), {"__name__": "__readme__", "print": readme_print})
    expected = expected_prints(block, name)
    assert set(printed) == set(expected)
    for number, text in expected.items():
        assert printed[number] == [text], f"{name}, line {number}"


def test_observation_table_is_current():
    from tt_env.encoding.observation import markdown_table

    page = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    assert markdown_table(2).strip() in page


def test_readme_leaderboard_is_the_plain_output_of_tt_arena():
    """The block is written by benchmarks/make_readme_leaderboard.py: the command, then what the
    current code prints for it (its numbers are checked when it is regenerated; its form here)."""
    from tt_env import arena
    from tt_env.arena import results
    from tt_env.game.rules import Rules

    expected = arena.default_agents(Rules())[0]
    n = len(expected)
    block = README.split("<!-- leaderboard -->\n```text\n", 1)[1].split("\n```\n", 1)[0]
    lines = block.splitlines()
    assert lines[0].startswith("$ tt-arena ") and lines[0].endswith(" --plain")
    assert re.match(
        rf"tt-arena: \d+ games = \d+ deals x \d+ tables \(every 2 of the {n} agents\) "
        r"x 2 seat rotations; episode=game, seed=0, standard rules; ",
        lines[1],
    )
    assert re.split(r"\s{2,}", lines[3].strip()) == list(results.TournamentResult._COLUMNS)
    assert results._LEGEND in lines and results._PAIR_TITLE + ":" in lines
    agents = [re.split(r"\s{2,}", line)[1] for line in lines[5 : 5 + n]]
    assert sorted(agents) == sorted(expected)
