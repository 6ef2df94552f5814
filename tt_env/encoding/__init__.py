"""What a player sees and does, as numbers: the 108 action IDs and their masks
(:mod:`~tt_env.encoding.actions`) and the observation, a vector of named pieces built from the
engine's public view (:mod:`~tt_env.encoding.observation`). The environments, the valuation
layer, the learned agents' features and the agents all read the game through this one encoding.
"""

from tt_env.encoding.actions import *  # noqa: F403
from tt_env.encoding.actions import __all__ as _actions
from tt_env.encoding.observation import *  # noqa: F403
from tt_env.encoding.observation import __all__ as _observation

__all__ = [*_actions, *_observation]
