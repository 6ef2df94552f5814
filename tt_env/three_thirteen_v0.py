"""Three Thirteen as a PettingZoo AEC environment, under PettingZoo's kind of name
(``from tt_env import three_thirteen_v0``; ``three_thirteen_v0.env()``). The environment and its
documentation live in :mod:`tt_env.env.aec`."""

from tt_env.env.aec import (  # noqa: F401 - the environment's module docstring is there
    ActionOutOfBoundsError,
    IllegalActionError,
    env,
    raw_env,
)
from tt_env.env.aec import __doc__ as _env_doc

__doc__ = _env_doc
__all__ = ["ActionOutOfBoundsError", "IllegalActionError", "env", "raw_env"]
