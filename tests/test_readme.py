"""The Python examples of the README and of the manual (docs/*.md) run and print what their
comments say; the manual's observation table matches the code; the README's leaderboard is the
plain output of ``tt-arena``.

Every ``print(...)`` line of a Python block ends with a comment that is exactly what it prints,
so a comment cannot drift from the code. The blocks of a page run in order, in a folder of
their own (the files one block writes, the next may read), which is on the import path: a block
whose first line is ``# name.py`` is a file the page asks the reader to save, and is saved there
under that name before any block of the page runs.
"""

from __future__ import annotations

import builtins
import importlib
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


def saved_module(block: str) -> str | None:
    """``name`` for a block that is the file ``name.py`` (its first line is ``# name.py``)."""
    match = re.match(r"# (\w+)\.py\n", block)
    return match.group(1) if match else None


PAGE_FILES = {
    page: {saved_module(b): b for p, _, b in BLOCKS if p == page and saved_module(b)}
    for page in PAGES
}


def needs_sb3(page: str, block: str) -> bool:
    """The block uses Stable-Baselines3 or torch, itself or through a file its page saves."""
    used = [text for module, text in PAGE_FILES[page].items() if re.search(rf"\b{module}\b", block)]
    return any(
        word in text
        for text in (block, *used)
        for word in ("sb3_contrib", "stable_baselines3", "torch")
    )


@pytest.fixture(scope="module")
def page_folders(tmp_path_factory):
    """A working folder per page, kept from one block of the page to the next."""
    return {page: tmp_path_factory.mktemp(re.sub(r"\W", "_", page)) for page in PAGES}


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
def test_example_runs_and_prints_what_it_says(page, index, block, page_folders, monkeypatch):
    if needs_sb3(page, block):
        pytest.importorskip("sb3_contrib")  # the training examples; the others need no torch
    folder = page_folders[page]
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    for module, text in PAGE_FILES[page].items():
        (folder / f"{module}.py").write_text(text, encoding="utf-8")
        monkeypatch.delitem(sys.modules, module, raising=False)  # this page's, read afresh
    if saved_module(block):
        importlib.import_module(saved_module(block))  # the file imports
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


def test_state_table_is_current():
    from tt_env.encoding.observation import STATE_PIECES, markdown_table

    page = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    assert markdown_table(2, STATE_PIECES).strip() in page


def _names_in_table(page: str, marker: str) -> list[str]:
    """The names in the first column of the Markdown table after ``<!-- marker``, in order
    (``a`` .. ``b`` of numbered names expanded)."""
    table = page.split(f"<!-- {marker}", 1)[1].split("\n\n", 1)[0]
    names = []
    for row in table.splitlines()[3:]:  # the marker, the header, the rule
        cell = row.split("|")[1]
        span = re.fullmatch(r"\s*`(\w+?)(\d+)` \.\. `\1(\d+)`\s*", cell)
        if span:
            stem, first, last = span.group(1), int(span.group(2)), int(span.group(3))
            names += [f"{stem}{i}" for i in range(first, last + 1)]
        else:
            names += re.findall(r"`(\w+)`", cell)
    return names


def test_card_features_tables_are_current():
    """The manual's tables of CardFeatures name every value of the layout, in its order."""
    from tt_env.learned import CARD_FEATURES, GLOBAL_FEATURES, SEAT_FEATURES

    page = (ROOT / "docs" / "environment.md").read_text(encoding="utf-8")
    assert _names_in_table(page, "card features table") == list(CARD_FEATURES)
    expected = list(GLOBAL_FEATURES) + list(SEAT_FEATURES)
    assert _names_in_table(page, "global features table") == expected


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


def _suite_script():
    """benchmarks/make_suite_reference.py, which writes the suites' blocks, as a module."""
    import importlib.util

    path = ROOT / "benchmarks" / "make_suite_reference.py"
    spec = importlib.util.spec_from_file_location("make_suite_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _blocks(text: str, start: str, end: str) -> dict[str, str]:
    pattern = rf"<!-- {start} (\S+) -->\n(.*?)\n?<!-- {end} -->"
    return dict(re.findall(pattern, text, flags=re.S))


def test_benchmark_tables_are_the_shipped_reference_rows():
    """docs/benchmark.md shows each suite's reference rows exactly as the package ships them
    (benchmarks/make_suite_reference.py writes both), and every model card's suite block holds
    that model's rows."""
    from tt_env.arena import SUITES, load_reference

    script = _suite_script()
    references = [load_reference(name) for name in SUITES]
    page = (ROOT / "docs" / "benchmark.md").read_text(encoding="utf-8")
    blocks = _blocks(page, "suite-reference", "/suite-reference")
    assert set(blocks) == set(SUITES)
    for reference in references:
        assert blocks[reference.suite.name] == script.benchmark_block(reference)
    cards = (ROOT / "models" / "README.md").read_text(encoding="utf-8")
    for model, block in _blocks(cards, "suite-results", "/suite-results").items():
        assert block == script.model_block(model, references), model
