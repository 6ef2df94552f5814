"""tt_env: Three Thirteen, the rummy card game, as a reinforcement-learning environment.

==================  =========================================================================
subpackage          owns
==================  =========================================================================
``game``            the rules engine: cards, :class:`Rules`, the game, the exact meld solver;
                    it knows nothing of reinforcement learning
``encoding``        the 108 action IDs and masks, the observation's named pieces
``text``            the text protocol for language models: a decision as a prompt, an answer
                    as an action
``valuation``       what a decision is worth from the observation alone; the heuristic rules
``learned``         the feature transform, model files (numpy), the network (torch, training)
``agents``          agents that act from observation and mask only; the specs that name them
``env``             the PettingZoo AEC env, the Gymnasium single-agent view, rendering
``vector``          batched environments: a Gymnasium ``VectorEnv``, its SB3 ``VecEnv``,
                    self-play
``arena``           ``tt-arena``: duplicate-deal tournaments, statistics, ratings, Ray
``replay``          ``tt-replay``: game records as pages in the browser
``play``            ``tt-play``: a game in the terminal against the agents
``train``           ``tt-train``: configuration, opponents, imitation, PPO (sb3, RLlib)
``cli``             the command-line conventions the tools share (one-line errors, rule flags)
``util``            plumbing below every layer: output files, worker pools, Ray
==================  =========================================================================

No import circle joins two of them (``tests/test_architecture.py`` holds the layers' order).
:mod:`tt_env.three_thirteen_v0` is the AEC env under PettingZoo's kind of name.

Importing the package imports nothing else: the names below are loaded on first use (PEP 562),
so ``import tt_env.game`` costs neither gymnasium nor pettingzoo, and works without them.
Importing :mod:`tt_env.env` registers the Gymnasium id ``"tt_env/ThreeThirteen-v0"``
(Gymnasium >= 1.0 has no plugin entry points: an environment is registered by importing its
package), so ``import tt_env.env`` comes before ``gymnasium.make("tt_env/ThreeThirteen-v0")``;
``gymnasium.make("tt_env.env:tt_env/ThreeThirteen-v0")`` imports it itself.
"""

from __future__ import annotations

import importlib

__version__ = "0.3.0"

# name -> module that defines it (loaded on first access)
_LAZY = {
    "Card": "game.cards",
    "format_cards": "game.cards",
    "parse_card": "game.cards",
    "parse_cards": "game.cards",
    "Rules": "game.rules",
    "ENV_ID": "env.single_agent",
    "SingleAgentEnv": "env.single_agent",
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
