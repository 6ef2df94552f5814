"""The architecture stays visible: the rules engine knows nothing of RL, agents see no hidden
state."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "tt_env"
ENGINE_MODULES = ["cards.py", "rules.py", "going_out.py", "engine.py"] + [
    f"melds/{p.name}" for p in sorted((PACKAGE / "melds").glob("*.py"))
]
RL_PACKAGES = {"gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"}


def imported_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = ("." * node.level) + (node.module or "")
            names.add(base)
            names.update(
                f"{base}.{alias.name}" if node.module else f"{base}{alias.name}"
                for alias in node.names
            )
    return names


def test_engine_imports_no_rl_package():
    for name in ENGINE_MODULES:
        imports = imported_modules(PACKAGE / name)
        top = {i.lstrip(".").split(".")[0] for i in imports}
        assert not (top & RL_PACKAGES), f"{name} imports {top & RL_PACKAGES}"
        # nor the RL layer of tt_env itself
        assert not any(
            "three_thirteen_v0" in i or "single_agent" in i or "agents" in i for i in imports
        ), f"{name} imports the RL layer"


def test_agents_do_not_import_the_engine_state():
    for path in (PACKAGE / "agents").glob("*.py"):
        imports = imported_modules(path)
        assert not any(
            i.endswith("engine") or ".engine." in i or i.endswith(".Game") for i in imports
        ), f"agents/{path.name} imports the engine: {imports}"


def test_one_layer_below_the_agents():
    """Valuation and features work on observations alone and import no agent; no agent imports
    another agent (the shared pieces live below them, in tt_env.valuation)."""
    for name in ("valuation.py", "features.py"):
        imports = imported_modules(PACKAGE / name)
        assert not any("agents" in i for i in imports), f"{name} imports an agent: {imports}"
        assert not any(i.endswith("engine") for i in imports), f"{name} imports the engine"
    own = {p.stem for p in (PACKAGE / "agents").glob("*.py") if not p.stem.startswith("_")} - {
        "base"
    }  # _modules: an agent's private parts
    for path in (PACKAGE / "agents").glob("*.py"):
        if path.stem == "__init__":
            continue
        others = {i.lstrip(".").split(".")[-1] for i in imported_modules(path)} & (
            own - {path.stem}
        )
        assert not others, f"agents/{path.name} imports the agent(s) {others}"


def test_playing_needs_no_torch():
    """Agents, models, features, the arena, the terminal game and the replays import no
    training package: a trained model plays with the core dependencies (``tt_env.learned.network``/
    ``training`` train)."""
    training_only = {"torch", "stable_baselines3", "sb3_contrib", "tensorboard"}
    paths = [
        PACKAGE / name for name in ("model.py", "features.py", "arena.py", "play.py", "replay.py")
    ]
    paths += sorted((PACKAGE / "agents").glob("*.py"))
    for path in paths:
        top = {i.lstrip(".").split(".")[0] for i in imported_modules(path)}
        assert not (top & training_only), f"{path.name} imports {top & training_only}"
        assert not any(i.endswith(("network", "training")) for i in imported_modules(path)), (
            f"{path.name} imports the training code"
        )
