"""The agent protocol: act from ``(observation, action_mask)`` and nothing else.

An agent is any object with a ``name`` and an ``act`` method; the hooks are optional:

==========================  =================================================================
member                      meaning
==========================  =================================================================
``name: str``               a short label for tables and logs (``"greedy"``)
``act(observation, mask)``  the action (an ``int`` in ``0..107``, see
                            :mod:`tt_env.encoding.actions`; a whole float or a numpy number
                            is taken too, :func:`as_action`) for the flat observation vector
                            and the 108-long action mask of :mod:`tt_env.three_thirteen_v0`;
                            it must be a legal action
``reset(seed)``             optional: a new game starts; reseed any randomness with ``seed``
``new_round()``             optional: a new round was dealt (forget per-round memory)
``explain(observation,      optional: called right after ``act`` with the same arguments (by
mask)``                     the replay writers, :func:`tt_env.replay.explain_move`): what the
                            agent made of its candidates, as ``(kind, {action: value})``
                            (``kind`` says what the values are, e.g. ``"probability"``), or
                            ``None`` when it has nothing to say about this decision; a
                            third element, text, is what the agent said (a language model's
                            answer), kept in the replay
==========================  =================================================================

An agent may give up the rest of a round instead of choosing a move by raising :class:`Forfeit`
from ``act`` (the ``llm`` agent's ``on_invalid=forfeit``): ``tt-arena``, as referee, scores the
forfeit (:mod:`tt_env.arena.forfeits`); any other caller gets the exception.

Agents see only what a player sees: the observation vector (decoded with
:func:`tt_env.encoding.observation.decode`) and the mask. They never touch the engine's hidden state
(other hands, the stock order); ``tests/test_agents.py`` walks their imports to keep it so.
"""

from __future__ import annotations

import reprlib
from typing import Protocol, runtime_checkable

import numpy as np


class Forfeit(Exception):
    """Raised by an agent's ``act`` to forfeit the round (its message says why). ``tt-arena``
    plays the seat's remaining turns of the round as passes and scores its round as if it held
    its whole hand (RULES.md, "Decided in this implementation")."""


@runtime_checkable
class Agent(Protocol):
    """What the arena, ``tt-play`` and the single-agent view need from a player."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A legal action for this observation and mask."""
        ...


class BaseAgent:
    """A convenient base: a name, a seeded ``numpy`` generator and no-op hooks.

    Subclasses implement :meth:`act`. ``num_players`` and ``rules`` are what the agent needs to
    decode observations and score hands (the observation layout depends on the number of players;
    meld values on the rules).
    """

    name = "agent"
    # True for an agent that decides from the observation and mask alone (no random numbers, no
    # memory between decisions): a replay on a copy of the game may ask the agent itself
    # instead of a copy of it (duplicate deals in tt-train).
    stateless = False

    def __init__(self, num_players: int = 2, rules=None, seed: int | None = None) -> None:
        from tt_env.game.rules import Rules

        if rules is None:
            rules = Rules(num_players=num_players)
        elif rules.num_players != num_players:
            raise ValueError(f"rules are for {rules.num_players} players, not {num_players}")
        self.rules = rules
        self.num_players = num_players
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """A new game: reseed (``None`` keeps the current generator) and forget the past."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.new_round()

    def new_round(self) -> None:
        """A new round was dealt; the base agent keeps no per-round memory."""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:  # pragma: no cover
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, num_players={self.num_players})"


def legal_actions(action_mask: np.ndarray) -> np.ndarray:
    """The indices of the legal actions in a mask; raises if there is none."""
    legal = np.flatnonzero(np.asarray(action_mask))
    if legal.size == 0:
        raise ValueError("the action mask allows no action: this agent is not on turn")
    return legal


def as_action(value) -> int:
    """The action an agent's ``act`` returned, as an ``int``: an int, a numpy integer, a whole
    float (``3.0``, ``np.float32(3)``: a network's output) or a single such number in an array
    (``np.array(3)``). Anything else raises :class:`TypeError` saying an int is expected: a
    fraction, text, a ``bool``, a list. Whether the action is legal is the caller's to check."""
    number = value
    if isinstance(value, np.ndarray) and value.size == 1:
        number = value.reshape(()).item()
    if not isinstance(number, (bool, np.bool_)):
        if isinstance(number, (int, np.integer)):
            return int(number)
        if isinstance(number, (float, np.floating)) and float(number).is_integer():
            return int(number)
    shown = reprlib.repr(value)
    raise TypeError(f"an action is an int in 0..107, got {shown} ({type(value).__name__})")
