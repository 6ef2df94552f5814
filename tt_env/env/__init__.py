"""The environments: the PettingZoo AEC environment (:mod:`~tt_env.env.aec`, published as
:mod:`tt_env.three_thirteen_v0`), the Gymnasium single-agent view
(:mod:`~tt_env.env.single_agent`, ``gymnasium.make("tt_env/ThreeThirteen-v0")``) and the
rendering of a table as text or an RGB frame (:mod:`~tt_env.env.render`). A thin translation
layer over the engine (:mod:`tt_env.game`) and the encoding (:mod:`tt_env.encoding`).

Importing this package registers the Gymnasium id :data:`ENV_ID` (Gymnasium >= 1.0 has no
plugin entry points: an environment is registered by importing its package).
"""

from tt_env.env.aec import ActionOutOfBoundsError, IllegalActionError, env, raw_env
from tt_env.env.single_agent import ENV_ID, OpponentError, SingleAgentEnv, register_envs

register_envs()

__all__ = [
    "ENV_ID",
    "ActionOutOfBoundsError",
    "IllegalActionError",
    "OpponentError",
    "SingleAgentEnv",
    "env",
    "raw_env",
    "register_envs",
]
