"""The README's Python examples run, and its observation table matches the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, capsys):
    block = BLOCKS[index]
    if "sb3_contrib" in block or "stable_baselines3" in block or "torch" in block:
        pytest.importorskip("sb3_contrib")  # the training examples; the others need no torch
    try:
        import torch
    except ImportError:
        pass
    else:
        torch.set_num_threads(1)
    exec(compile(block, f"README.md block {index}", "exec"), {"__name__": "__readme__"})


def test_readme_observation_table_is_current():
    from tt_env.observation import markdown_table

    assert markdown_table(2).strip() in README
