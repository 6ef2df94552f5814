"""Agents acting at many tables at once: :func:`act_together`.

A batched environment (:mod:`tt_env.vector`) has, at each moment, one agent to move at each of
its tables. It gives them all to :func:`act_together`, which answers agents of one kind together
where that is cheaper than one at a time:

- an agent with ``batch_key()`` (any hashable) and a class method ``act_many(agents,
  observations, masks)`` is grouped with the agents of the same class and key, and the group is
  answered by one call (:class:`~tt_env.agents.learned.LearnedAgent`: one forward pass of the
  network for every table its model plays at; :class:`~tt_env.agents.counting.CountingAgent`:
  one loop over the compiled rule, without the per-call checks);
- every other agent answers with ``act(observation, mask)``, as at a single table.

An agent that draws random numbers draws them from its own generator, in the order of its own
decisions: an agent plays the same moves whether it is asked alone or in a group. (A network's
batched forward pass may differ from a single row's in the last bits of a float, which can only
matter between two actions of equal probability.)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _key(agent: Any) -> Any:
    batch_key = getattr(agent, "batch_key", None)
    if batch_key is None or not callable(getattr(type(agent), "act_many", None)):
        return None
    key = batch_key()
    return None if key is None else (type(agent), key)


def unwrapped_agent(agent: Any) -> Any:
    """The agent that decides for a seat: a delegating seat (``tt-train``'s pool seats) gives
    its current agent, so that agents of one kind are answered together."""
    inner = getattr(agent, "agent", None)
    return inner if inner is not None and getattr(agent, "delegates", False) else agent


def act_together(agents: Sequence[Any], observations: np.ndarray, masks: np.ndarray) -> list[Any]:
    """The action of ``agents[i]`` for ``observations[i]`` and ``masks[i]`` (rows of 2-D arrays),
    for every ``i``: agents of one batchable kind together, the others one by one (see the
    module docstring). The actions are returned as the agents chose them, unchecked."""
    actions: list[Any] = [None] * len(agents)
    groups: dict[Any, list[int]] = {}
    for i, agent in enumerate(agents):
        key = _key(agent)
        if key is None:
            actions[i] = agent.act(observations[i], masks[i])
        else:
            groups.setdefault(key, []).append(i)
    for (cls, _), rows in groups.items():
        if len(rows) == 1:
            i = rows[0]
            actions[i] = agents[i].act(observations[i], masks[i])
            continue
        chosen = cls.act_many([agents[i] for i in rows], observations[rows], masks[rows])
        for i, action in zip(rows, chosen):
            actions[i] = action
    return actions


__all__ = ["act_together", "unwrapped_agent"]
