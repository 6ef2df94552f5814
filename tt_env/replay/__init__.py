"""tt-replay: a game record as a page for the browser (:mod:`tt_env.replay.core` says how); the
tournament index that links the pages of `tt-arena --replays` is :mod:`tt_env.arena.index`."""

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
