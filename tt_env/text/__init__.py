"""The text protocol: a decision as a prompt for a language model, and its answer as an action.

- :func:`~tt_env.text.protocol.rules_text`: the rules in force, written from a
  :class:`~tt_env.game.rules.Rules` (never from a variant's name);
- :func:`~tt_env.text.protocol.decision_prompt`: what a seat knows at a decision, in words,
  built from its observation vector and action mask alone (so it can hold nothing hidden), with
  its hand's best melds, the recent public moves and the numbered legal moves;
- :func:`~tt_env.text.protocol.parse_answer`: the action of an answer: a move's number, its
  words, or JSON ``{"move": ...}``; anything else raises :class:`AnswerError` saying why.

A prompt may also leave the legal moves out (``decision_prompt(..., listed=False)``): the
answer is then a move in words (:data:`WORDS_INSTRUCTIONS`), read with
``parse_answer(..., numbered=False)``.
"""

from tt_env.text.protocol import (
    MOVE_WORDS,
    WORDS_INSTRUCTIONS,
    AnswerError,
    RecentMoves,
    decision_prompt,
    describe_answer,
    legal_moves,
    parse_answer,
    position_text,
    rules_text,
)

__all__ = [
    "MOVE_WORDS",
    "WORDS_INSTRUCTIONS",
    "AnswerError",
    "RecentMoves",
    "decision_prompt",
    "describe_answer",
    "legal_moves",
    "parse_answer",
    "position_text",
    "rules_text",
]
