"""Agents that play Three Thirteen from the observation and the action mask alone.

=================  ==========================================  ====================================
spec               agent                                       plays
=================  ==========================================  ====================================
``random``         :class:`RandomAgent`                        a uniformly random legal action
``greedy``         :class:`GreedyAgent`                        the fewest penalty points now
``counting``       :class:`CountingAgent`                      counts unseen cards: expected
                                                               penalty of draws, near-melds,
                                                               no feeding the next player
``llm(model=...)`` :class:`~tt_env.agents.llm.LLMAgent`        a language model through an
                                                               OpenAI-compatible chat server
``pkg.mod:Class``  any class (or factory) importable so        whatever it does
``path/or/name``   a saved model, through a registered         a learned policy
                   model loader (:func:`register_model_loader`)
=================  ==========================================  ====================================

:func:`make_agent` (:mod:`tt_env.agents.specs`) builds any of them; ``tt-arena`` and
``tt-play`` take the same specs. Importing this package lists every built-in agent in
:data:`BUILTIN_AGENTS`.
"""

from tt_env.agents.base import Agent, BaseAgent, Forfeit, as_action, legal_actions
from tt_env.agents.counting import CountingAgent
from tt_env.agents.greedy import GreedyAgent
from tt_env.agents.llm import LLMAgent
from tt_env.agents.random_agent import RandomAgent
from tt_env.agents.search import SearchAgent
from tt_env.agents.specs import (
    BUILTIN_AGENTS,
    make_agent,
    register_model_loader,
    spec_label,
    split_specs,
)

__all__ = [
    "Agent",
    "BUILTIN_AGENTS",
    "BaseAgent",
    "CountingAgent",
    "Forfeit",
    "GreedyAgent",
    "LLMAgent",
    "RandomAgent",
    "SearchAgent",
    "as_action",
    "legal_actions",
    "make_agent",
    "register_model_loader",
    "spec_label",
    "split_specs",
]
