"""tt-play: a game of Three Thirteen in the terminal against the agents
(:mod:`tt_env.play.terminal`)."""

from tt_env.play.terminal import (
    DEFAULT_OPPONENTS,
    HELP_WORDS,
    QUIT_WORDS,
    QuitGame,
    TerminalGame,
    build_parser,
    main,
    parse_answer,
)

__all__ = [
    "DEFAULT_OPPONENTS",
    "HELP_WORDS",
    "QUIT_WORDS",
    "QuitGame",
    "TerminalGame",
    "build_parser",
    "main",
    "parse_answer",
]
