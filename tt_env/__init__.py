"""tt_env: Three Thirteen, the rummy card game, as a reinforcement-learning environment.

==================  =========================================================================
subpackage          owns
==================  =========================================================================
``game``            the rules engine: cards, :class:`Rules`, the game, the exact meld solver;
                    it knows nothing of reinforcement learning
``encoding``        the 108 action IDs and masks, the observation's named pieces
``valuation``       what a decision is worth from the observation alone; the heuristic rules
``learned``         the feature transform, model files (numpy), the network (torch, training)
``agents``          agents that act from observation and mask only
``env``             the PettingZoo AEC env, the Gymnasium single-agent view, rendering
``arena``           ``tt-arena``: duplicate-deal tournaments, statistics, ratings, Ray
``replay``          ``tt-replay``: game records as pages in the browser
``play``            ``tt-play``: a game in the terminal against the agents
``train``           ``tt-train``: configuration, opponents, imitation, PPO (sb3, RLlib)
``cli``             the command-line conventions the tools share (one-line errors, rule flags)
``util``            plumbing below every layer: output files, worker pools, Ray, kernel cache
==================  =========================================================================

No import circle joins two of them (``tests/test_architecture.py`` holds the layers' order).
:mod:`tt_env.three_thirteen_v0` is the AEC env under PettingZoo's kind of name.

Importing the package imports nothing else: the names below are loaded on first use (PEP 562),
so ``import tt_env.game`` costs neither gymnasium nor pettingzoo, and works without them.
The module paths of the flat layout before the subpackages (``tt_env.engine``,
``tt_env.melds``, ``tt_env.features``...) still import: each is the module that now holds it.
``import tt_env`` registers the Gymnasium id ``"tt_env/ThreeThirteen-v0"`` at once when
gymnasium is already imported, else as soon as it is (Gymnasium >= 1.0 has no plugin entry
points: an environment is registered by importing its package).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

__version__ = "0.1.0"

ENV_ID = "tt_env/ThreeThirteen-v0"
_ENTRY_POINT = "tt_env.env.single_agent:SingleAgentEnv"
_VECTOR_ENTRY_POINT = "tt_env.vector.batch:ThreeThirteenVectorEnv"

# name -> module that defines it (loaded on first access)
_LAZY = {
    "Card": "game.cards",
    "format_cards": "game.cards",
    "parse_card": "game.cards",
    "parse_cards": "game.cards",
    "Rules": "game.rules",
    "SingleAgentEnv": "env.single_agent",
}
# The module paths of the flat layout (before the subpackages) -> the modules that hold them now.
_MOVED = {
    "actions": "encoding.actions",
    "cards": "game.cards",
    "engine": "game.engine",
    "features": "learned.features",
    "going_out": "game.going_out",
    "melds": "game.melds",
    "model": "learned.model",
    "network": "learned.network",
    "observation": "encoding.observation",
    "policies": "valuation.heuristics",
    "render": "env.render",
    "rllib_training": "train.backends.rllib",
    "rules": "game.rules",
    "single_agent": "env.single_agent",
    "training": "train",
}
_SUBMODULES = ("three_thirteen_v0",)

__all__ = [
    "Card",
    "ENV_ID",
    "Rules",
    "SingleAgentEnv",
    "format_cards",
    "parse_card",
    "parse_cards",
    "three_thirteen_v0",
    "__version__",
]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value  # later look-ups skip this function
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


# ------------------------------------------------------------------ Gymnasium registration
def _register_env() -> None:
    """Register :data:`ENV_ID` with Gymnasium (idempotent)."""
    import gymnasium

    if ENV_ID not in gymnasium.registry:
        gymnasium.register(
            id=ENV_ID, entry_point=_ENTRY_POINT, vector_entry_point=_VECTOR_ENTRY_POINT
        )


class _RegisterAfterImport(importlib.abc.Loader):
    """Wraps gymnasium's loader: once gymnasium has loaded, register the environment."""

    def __init__(self, loader) -> None:
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        _register_env()

    def __getattr__(self, name: str):  # anything else a loader offers (get_code, is_package...)
        return getattr(self._loader, name)


class _GymnasiumWatcher(importlib.abc.MetaPathFinder):
    """Finds nothing itself: on the first import of gymnasium it steps aside and wraps the
    loader that the other finders return, so that gymnasium registers this package's env."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "gymnasium":
            return None
        _remove_watcher()
        spec = importlib.util.find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _RegisterAfterImport(spec.loader)
        return spec


def _remove_watcher() -> None:
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, _GymnasiumWatcher)]


# ------------------------------------------------------------------ the flat layout's paths
def _moved(fullname: str) -> str | None:
    """The module that now holds ``fullname`` (a path of the flat layout), or None."""
    rest = fullname[len(__name__) + 1 :]
    if rest in _MOVED:
        return f"{__name__}.{_MOVED[rest]}"
    if rest.startswith("melds."):  # the solver's submodules moved with it
        return f"{__name__}.game.{rest}"
    return None


class _MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports a module path of the flat layout as the module that now holds it: the same
    module object under both names (so state, classes and ``isinstance`` are shared)."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(__name__ + ".") or _moved(fullname) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        module = importlib.import_module(_moved(spec.name))
        self._spec = module.__spec__  # the import system sets the old name's spec on it next
        return module

    def exec_module(self, module) -> None:
        module.__spec__ = self._spec  # it stays the module of its own (new) name


# First in line: a submodule of a moved package (tt_env.melds._kernel) would otherwise be found
# again by the path finder, through the package's path, and loaded a second time.
if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
    sys.meta_path.insert(0, _MovedModules())

if sys.modules.get("gymnasium") is not None:
    _register_env()
elif not any(isinstance(f, _GymnasiumWatcher) for f in sys.meta_path):
    sys.meta_path.insert(0, _GymnasiumWatcher())
