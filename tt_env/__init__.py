"""tt_env: Three Thirteen, the rummy card game, as a reinforcement-learning environment.

The rules engine (:mod:`tt_env.cards`, :mod:`tt_env.rules`, :mod:`tt_env.melds`,
:mod:`tt_env.engine`) knows nothing of reinforcement learning; the environments translate it.
"""

from .cards import Card, format_cards, parse_card, parse_cards
from .rules import Rules
from .single_agent import register_envs as _register_envs

_register_envs()  # gymnasium.make("tt_env/ThreeThirteen-v0", ...)

__version__ = "0.1.0"

__all__ = [
    "Card", "Rules", "SingleAgentEnv", "format_cards", "parse_card", "parse_cards",
    "three_thirteen_v0", "__version__",
]


def __getattr__(name: str):
    # The environments import gymnasium and pettingzoo: load them on first use only, so that the
    # engine stays importable (and quick to import) without the RL packages.
    import importlib

    if name == "three_thirteen_v0":
        return importlib.import_module(f"{__name__}.{name}")
    if name == "SingleAgentEnv":
        return importlib.import_module(f"{__name__}.single_agent").SingleAgentEnv
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
