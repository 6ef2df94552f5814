"""tt-replay: game records as pages in the browser (one page per game, an index per tournament)."""

from tt_env.replay.core import (
    MAX_CANDIDATES,
    MAX_RECORD_BYTES,
    REPLAY_FORMAT,
    REPLAY_VERSION,
    ReplayError,
    annotated_record,
    build_parser,
    check_replay_keys,
    explain_move,
    main,
    page_html,
    read_record,
    replay_data,
    write_replay,
)

__all__ = [
    "MAX_CANDIDATES",
    "MAX_RECORD_BYTES",
    "REPLAY_FORMAT",
    "REPLAY_VERSION",
    "ReplayError",
    "annotated_record",
    "build_parser",
    "check_replay_keys",
    "explain_move",
    "main",
    "page_html",
    "read_record",
    "replay_data",
    "write_replay",
]
