"""Batched environments: many tables stepped in one call, for learning at engine speed.

- :class:`~tt_env.vector.batch.ThreeThirteenVectorEnv`: a native ``gymnasium.vector.VectorEnv``
  (``gymnasium.make_vec("tt_env/ThreeThirteen-v0", num_envs=N)``), one learning seat per table;
- :func:`make_sb3_vec_env`: the same batch as a Stable-Baselines3 ``VecEnv`` whose masks reach
  sb3-contrib's ``MaskablePPO`` without a round trip per table (extra ``train``);
- :class:`~tt_env.vector.selfplay.SelfPlayVectorEnv`: N tables at which the learner plays
  several seats (all by default), the seat to move at each table in one array.
"""

from __future__ import annotations

from typing import Any

from tt_env.vector.batch import ThreeThirteenVectorEnv
from tt_env.vector.selfplay import SelfPlayVectorEnv


def make_sb3_vec_env(num_envs: int = 1, **kwargs: Any):
    """A Stable-Baselines3 ``VecEnv`` over a :class:`ThreeThirteenVectorEnv` of ``num_envs``
    tables (``kwargs``: its arguments). See :class:`tt_env.vector.sb3.BatchVecEnv`."""
    from tt_env.vector.sb3 import BatchVecEnv

    return BatchVecEnv(num_envs=num_envs, **kwargs)


__all__ = ["SelfPlayVectorEnv", "ThreeThirteenVectorEnv", "make_sb3_vec_env"]
