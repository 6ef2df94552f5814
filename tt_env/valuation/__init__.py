"""What a decision is worth, from the observation alone: the exact solver's values of a hand,
its discards and its draws (:mod:`~tt_env.valuation.values`), and the heuristic decision rules
built on them (:mod:`~tt_env.valuation.heuristics`: the expected-penalty rule that the
``counting`` and ``search`` agents start from). One layer below the agents: no agent imports
another, the pieces they share live here.
"""

from tt_env.valuation.heuristics import *  # noqa: F403
from tt_env.valuation.heuristics import __all__ as _heuristics
from tt_env.valuation.values import *  # noqa: F403
from tt_env.valuation.values import __all__ as _values

__all__ = [*_values, *_heuristics]
