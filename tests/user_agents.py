"""Agents as a user writes them, for the tests of ``module.path:ClassName`` specs (this folder is
on the tests' import path): one that needs an argument, one that fails inside ``act``, one
whose action is a number of another type, and one that forfeits."""

from __future__ import annotations

import numpy as np


class NeedsArg:
    """An agent whose constructor needs ``depth``, which the game does not give."""

    def __init__(self, depth, num_players=2):
        self.depth = depth
        self.num_players = num_players

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


class Fails:
    """An agent whose ``act`` raises on its first decision."""

    def act(self, observation, action_mask):
        raise RuntimeError("oops")


class Returns:
    """An agent that plays the first legal action as ``kind`` (``float``, ``np.int16``...)."""

    def __init__(self, kind="float"):
        if kind not in ("float", "half", "text", "array", "int16", "uint8", "float32"):
            raise ValueError(f"unknown kind {kind!r}")
        self.kind = kind

    def act(self, observation, action_mask):
        first = int(np.flatnonzero(action_mask)[0])
        if self.kind == "float":
            return float(first)
        if self.kind == "half":
            return first + 0.5
        if self.kind == "text":
            return str(first)
        if self.kind == "array":
            return np.array(first)
        return getattr(np, self.kind)(first)


class GivesUp:
    """An agent that forfeits every round at its first decision."""

    def act(self, observation, action_mask):
        from tt_env.agents import Forfeit

        raise Forfeit("I give up")
