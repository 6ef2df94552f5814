"""The batched environment as a Stable-Baselines3 ``VecEnv`` (extra ``train``).

:func:`tt_env.vector.make_sb3_vec_env` builds a :class:`BatchVecEnv`: one
:class:`~tt_env.vector.batch.ThreeThirteenVectorEnv` in this process, in ``"same_step"``
autoreset (SB3's convention), behind the ``VecEnv`` interface. A finished table's last
observation is in ``infos[i]["terminal_observation"]`` and its episode info (``score``,
``round_penalty``, ...) in ``infos[i]``, as ``DummyVecEnv`` gives them.

sb3-contrib's ``MaskablePPO`` reads the masks with ``env_method("action_masks")``: here that is
one slice of an array the batch already holds, not a call per table (nor a process round trip
per table, as with ``SubprocVecEnv``)::

    from sb3_contrib import MaskablePPO
    from tt_env.vector import make_sb3_vec_env

    env = make_sb3_vec_env(64, opponents="counting", episode="round", observation="features")
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=1024, seed=0)
    model.learn(100_000)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from tt_env.vector.batch import ThreeThirteenVectorEnv


class TablesVecEnv(VecEnv):
    """What an SB3 ``VecEnv`` of tables stepped together in this process needs beside its
    ``reset``, ``step_wait`` and ``action_masks``: seeding at the next reset, per-table access
    to ``tables`` (``get_attr``, ``env_method``...), and ``env_method("action_masks")``, which
    MaskablePPO calls every step, answered by slicing one array."""

    tables: list[Any]

    def __init__(self, num_envs: int, observation_space, action_space) -> None:
        super().__init__(num_envs, observation_space, action_space)
        self._actions: np.ndarray | None = None
        self._seed: int | None = None

    def seed(self, seed: int | None = None) -> Sequence[None]:
        # SB3's VecEnv.seed(): the seeds take effect at the next reset (table i: seed + i).
        self._seed = seed
        return [None] * self.num_envs

    def _take_seed(self) -> int | None:
        seed, self._seed = self._seed, None
        return seed

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def _take_actions(self) -> np.ndarray:
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        return actions

    def get_images(self) -> Sequence[np.ndarray | None]:
        return [None] * self.num_envs

    def _tables(self, indices) -> list[Any]:
        return [self.tables[i] for i in self._get_indices(indices)]

    def env_method(self, method_name: str, *args, indices=None, **kwargs) -> list[Any]:
        if method_name == "action_masks":  # MaskablePPO, every step: one array, sliced
            masks = self.action_masks()
            return [masks[i] for i in self._get_indices(indices)]
        return [getattr(t, method_name)(*args, **kwargs) for t in self._tables(indices)]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        return [getattr(t, attr_name) for t in self._tables(indices)]

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        for t in self._tables(indices):
            setattr(t, attr_name, value)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self.tables[0], attr_name)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [isinstance(t, wrapper_class) for t in self._tables(indices)]

    def close(self) -> None:
        for table in self.tables:
            table.close()


class BatchVecEnv(TablesVecEnv):
    """A :class:`ThreeThirteenVectorEnv` as a Stable-Baselines3 ``VecEnv`` (see the module
    docstring). ``batch`` is the vector env; its ``tables`` are the single-agent views (on the
    compiled batch there are none: ``get_attr`` and ``env_method`` ask the batch itself)."""

    def __init__(self, num_envs: int = 1, **kwargs: Any) -> None:
        if "autoreset_mode" in kwargs:
            raise ValueError(
                "make_sb3_vec_env resets a finished table in the same step (SB3's convention): "
                "autoreset_mode is not an option here"
            )
        self.batch = ThreeThirteenVectorEnv(num_envs, autoreset_mode="same_step", **kwargs)
        self.tables = self.batch.tables
        super().__init__(
            self.batch.num_envs,
            self.batch.single_observation_space,
            self.batch.single_action_space,
        )

    def reset(self) -> np.ndarray:
        obs, _ = self.batch.reset(seed=self._take_seed())
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_wait(self):
        obs, rewards, terminations, truncations, infos = self.batch.step(self._take_actions())
        dones = terminations | truncations
        out = [{} for _ in range(self.num_envs)]
        if dones.any():
            final = infos.get("final_info", {})
            for i in np.flatnonzero(dones):
                info = out[i]
                info.update(_row(final, i))
                info["terminal_observation"] = infos["final_obs"][i]
                info["TimeLimit.truncated"] = bool(truncations[i] and not terminations[i])
        return obs, rewards.astype(np.float32), dones, out

    def action_masks(self) -> np.ndarray:
        """Every table's legal actions, ``bool`` (N, 108)."""
        return self.batch.action_masks()

    def _tables(self, indices) -> list[Any]:
        # On the compiled batch the tables are no objects of their own: the batch answers.
        if self.batch.compiled:
            return [self.batch for _ in self._get_indices(indices)]
        return super()._tables(indices)

    def has_attr(self, attr_name: str) -> bool:
        return attr_name == "action_masks" or hasattr(self._tables([0])[0], attr_name)

    def close(self) -> None:
        self.batch.close()


def _row(infos: dict[str, Any], i: int) -> dict[str, Any]:
    """Table ``i``'s info out of Gymnasium's vector info (arrays with ``_key`` masks)."""
    row = {}
    for key, values in infos.items():
        if key.startswith("_") or not infos.get("_" + key, np.ones(i + 1, bool))[i]:
            continue
        row[key] = _row(values, i) if isinstance(values, dict) else values[i]
    return row


__all__ = ["BatchVecEnv", "TablesVecEnv"]
