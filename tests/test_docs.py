"""The documents a user reads: RULES.md ships with the code and names every option; every
relative link of the Markdown files resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tt_env.game.rules import FIELD_NAMES, PRESETS

ROOT = Path(__file__).resolve().parents[1]
RULES_MD = (ROOT / "RULES.md").read_text(encoding="utf-8")
MARKDOWN = sorted(
    p
    for p in ROOT.rglob("*.md")
    if not any(
        part.startswith(".") or part in ("runs", "build") for part in p.relative_to(ROOT).parts
    )
)


def test_rules_md_names_every_option_of_rules():
    options_table = RULES_MD.split("## Options", 1)[1].split("\n## ", 1)[0]
    for name in FIELD_NAMES:
        assert f"| `{name}` |" in options_table, f"RULES.md's option table lacks {name}"


def test_rules_md_names_the_presets_and_the_decisions_of_this_implementation():
    for name in PRESETS:
        assert f"`{name}`" in RULES_MD
    assert "## Decided in this implementation" in RULES_MD


def test_the_readme_links_to_rules_md():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "](RULES.md)" in readme and "](RULES.md#decided-in-this-implementation)" in readme


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file."""
    anchors = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        match = re.match(r"#+ (.*)", line)
        if match:
            text = match.group(1).strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", text).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    text = path.read_text(encoding="utf-8")
    text = re.sub(r"```.*?```", "", text, flags=re.S)  # not in code blocks
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        resolved = (path.parent / file_part).resolve() if file_part else path
        assert resolved.exists(), f"{path.name}: link to {target} does not resolve"
        if anchor and resolved.suffix == ".md":
            assert anchor in _anchors(resolved), f"{path.name}: no heading for {target}"


def test_the_version_agrees_everywhere():
    """pyproject.toml, the package, CITATION.cff and the latest release of CHANGELOG.md."""
    import tt_env

    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^version = "([^"]+)"$', pyproject, flags=re.M).group(1)
    citation = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    releases = re.findall(r"^## \[(\d[^\]]*)\]", changelog, flags=re.M)
    assert tt_env.__version__ == version
    assert re.search(r'^version: "([^"]+)"$', citation, flags=re.M).group(1) == version
    assert releases[0] == version, f"CHANGELOG.md's latest release is {releases[0]}, not {version}"
    assert re.search(r"^cff-version: 1\.2\.0$", citation, flags=re.M)
