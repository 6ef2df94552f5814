"""Learned agents' pieces: the feature transform (:mod:`~tt_env.learned.features`), the model
files (:mod:`~tt_env.learned.model`, played by numpy alone) and the PyTorch network that
training uses (:mod:`tt_env.learned.network`; it needs the ``train`` extra and is not imported
here, so that playing a model needs no torch).
"""

from tt_env.learned.features import *  # noqa: F403
from tt_env.learned.features import __all__ as _features
from tt_env.learned.model import *  # noqa: F403
from tt_env.learned.model import __all__ as _model

__all__ = [*_features, *_model]
