"""Import what you use: the rules engine imports without the RL packages, importing tt_env.env
registers the Gymnasium environment whatever is imported first, and importing changes nothing
in the import system."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Make gymnasium and pettingzoo unimportable, as on a machine that lacks them.
BLOCK = """
import importlib.abc, sys

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("gymnasium", "pettingzoo"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
        return None

sys.meta_path.insert(0, Block())
"""


def run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        # The caller's environment (TT_ENV_NO_KERNEL among others), with this checkout first
        # on the path.
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_the_child_keeps_the_callers_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TT_ENV_TEST_MARK", str(tmp_path / "mark"))
    out = run("""
        import os, tt_env
        print(os.environ["TT_ENV_TEST_MARK"], tt_env.__file__)
    """)
    assert out.split() == [str(tmp_path / "mark"), str(ROOT / "tt_env" / "__init__.py")]


def test_engine_solver_and_rules_import_without_gymnasium_and_pettingzoo():
    out = run(
        BLOCK
        + """
        import tt_env.game.engine, tt_env.game.melds, tt_env.game.rules, tt_env.game.cards
        import tt_env.game.going_out, tt_env.encoding.actions, tt_env.encoding.observation
        from tt_env import Rules, parse_cards
        from tt_env.game.engine import Game
        from tt_env.game.melds import solve
        game = Game(Rules(num_players=3), seed=1)
        while not game.is_over:
            game.apply(game.legal_moves()[-1])
        print(solve("3H 4H 5H 9C", wild_rank=3).points, len(game.round_results))
        import tt_env
        try:
            tt_env.three_thirteen_v0
        except ModuleNotFoundError as exc:
            print("env needs", exc.name)
        print(sorted(m for m in sys.modules if m.startswith(("gymnasium", "pettingzoo"))))
    """.replace("\n        ", "\n")
    )
    assert out.split("\n")[:3] == ["9 11", "env needs gymnasium", "[]"]


def test_engine_import_loads_no_rl_package():
    out = run("""
        import sys
        import tt_env.game.engine, tt_env.game.melds, tt_env.game.rules
        print(sorted({m.split(".")[0] for m in sys.modules} & {"gymnasium", "pettingzoo"}))
    """)
    assert out.strip() == "[]"


def test_importing_tt_env_env_registers_the_gymnasium_env_in_either_order():
    for first, second in (("tt_env.env", "gymnasium"), ("gymnasium", "tt_env.env")):
        out = run(f"""
            import {first}, {second}
            env = gymnasium.make("tt_env/ThreeThirteen-v0")
            print(type(env.unwrapped).__name__)
        """)
        assert out.strip() == "SingleAgentEnv"


def test_gymnasium_imports_tt_env_env_when_the_id_names_it():
    out = run("""
        import sys, gymnasium
        print("tt_env.env" in sys.modules, "tt_env/ThreeThirteen-v0" in gymnasium.registry)
        env = gymnasium.make("tt_env.env:tt_env/ThreeThirteen-v0")
        vec = gymnasium.make_vec("tt_env/ThreeThirteen-v0", num_envs=2)
        print(type(env.unwrapped).__name__, type(vec).__name__)
    """)
    assert out.split("\n")[:2] == ["False False", "SingleAgentEnv ThreeThirteenVectorEnv"]


def test_importing_changes_nothing_in_the_import_system():
    """No finder or loader of tt_env's in sys.meta_path: a module is found where it lives,
    and a path that is no module (such as one of a layout no release had) is not found."""
    out = run("""
        import sys
        before = list(sys.meta_path)
        import tt_env, tt_env.env, tt_env.game.melds, gymnasium
        print(sys.meta_path == before, tt_env.game.melds.__name__)
        for name in ("tt_env.engine", "tt_env.melds", "tt_env.melds._kernel"):
            try:
                __import__(name)
            except ModuleNotFoundError as exc:
                print("missing", exc.name)
    """)
    assert out.split("\n")[:4] == [
        "True tt_env.game.melds",
        "missing tt_env.engine",
        "missing tt_env.melds",
        "missing tt_env.melds",
    ]


# Make the compiled extensions unimportable, as after an install without a C compiler.
BLOCK_COMPILED = """
import importlib.abc, sys

COMPILED = {"_csolver", "_ccore", "_crule", "_cfeatures", "_csearch", "_cbatch"}  # setup.py's

class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith("tt_env.") and name.rpartition(".")[2] in COMPILED:
            raise ModuleNotFoundError(f"No module named {name!r} (not built)", name=name)
        return None

sys.meta_path.insert(0, Block())
"""

PLAY = """
import hashlib
import numpy as np
from tt_env.env import aec
from tt_env.game import engine, reference
env = aec.raw_env(num_players=3, redemption=True, max_turns_per_round=30)
env.reset(seed=5)
digest = hashlib.sha256()
rng = np.random.default_rng(5)
for _ in range(600):
    obs, reward, termination, truncation, info = env.last()
    for part in (obs["observation"], obs["action_mask"], env.state(), reward, info["scores"]):
        digest.update(repr(part).encode() if not hasattr(part, "tobytes") else part.tobytes())
    if termination or truncation:
        break
    env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
print(engine.Game is reference.Game, digest.hexdigest())
"""


def test_without_the_compiled_engine_the_reference_plays_the_same_games():
    """No C compiler at install: ``Game`` is the reference engine, and the environment plays
    the same episodes, observation for observation."""
    compiled, fallback = run(PLAY).split(), run(BLOCK_COMPILED + PLAY).split()
    assert compiled[0] == "False" and fallback[0] == "True"
    assert compiled[1] == fallback[1]
