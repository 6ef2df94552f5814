"""tt_env: Three Thirteen, the rummy card game, as a reinforcement-learning environment.

The rules engine (:mod:`tt_env.cards`, :mod:`tt_env.rules`, :mod:`tt_env.melds`,
:mod:`tt_env.engine`) knows nothing of reinforcement learning; the environments translate it.

Importing the package imports nothing else: the names below are loaded on first use (PEP 562),
so ``import tt_env.engine`` costs neither gymnasium nor pettingzoo, and works without them.
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
_ENTRY_POINT = "tt_env.single_agent:SingleAgentEnv"

# name -> module that defines it (loaded on first access)
_LAZY = {
    "Card": "cards",
    "format_cards": "cards",
    "parse_card": "cards",
    "parse_cards": "cards",
    "Rules": "rules",
    "SingleAgentEnv": "single_agent",
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
        gymnasium.register(id=ENV_ID, entry_point=_ENTRY_POINT)


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


if sys.modules.get("gymnasium") is not None:
    _register_env()
elif not any(isinstance(f, _GymnasiumWatcher) for f in sys.meta_path):
    sys.meta_path.insert(0, _GymnasiumWatcher())
