"""What a player sees and does, as numbers: the 108 action IDs (:mod:`~tt_env.encoding.actions`),
the mask of those legal now (:mod:`~tt_env.encoding.mask`) and the observation, a vector of named
pieces built from the engine's public view (:mod:`~tt_env.encoding.observation`); the same view
in words for scripts and language models (:mod:`~tt_env.encoding.words`). The environments, the
valuation layer, the learned agents' features and the agents all read the game through this one
encoding.
"""

from tt_env.encoding.actions import *  # noqa: F403
from tt_env.encoding.actions import __all__ as _actions
from tt_env.encoding.mask import *  # noqa: F403
from tt_env.encoding.mask import __all__ as _mask
from tt_env.encoding.observation import *  # noqa: F403
from tt_env.encoding.observation import __all__ as _observation
from tt_env.encoding.words import *  # noqa: F403
from tt_env.encoding.words import __all__ as _words

__all__ = [*_actions, *_mask, *_observation, *_words]
