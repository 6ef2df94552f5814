"""Game records as data: reading a record (a dict, or its JSON) into checked fields.

:meth:`tt_env.game.engine.Game.from_record` replays what :func:`read_record` returns and checks
that the replay leads where the record says; this module checks only the record's form.
"""

from __future__ import annotations

import json
from typing import Any

from tt_env.game.moves import RecordError, _is_index, _short, check_seed
from tt_env.game.rules import Rules

RECORD_VERSION = 1


def read_record(
    record: dict[str, Any] | str | bytes,
) -> tuple[Rules, int, list[str], int, list[int], list[int] | None]:
    """The rules, seed, move texts, rounds played, scores and winners (or None) of a record.

    Raises :class:`RecordError` for anything malformed (bad bytes, wrong JSON types, absurd
    nesting, a missing key, an unsupported version).
    """
    if isinstance(record, (bytes, bytearray, memoryview)):
        try:
            record = bytes(record).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RecordError(f"game record is not UTF-8 text: {exc}") from None
    if isinstance(record, str):
        try:
            record = json.loads(record)
        except json.JSONDecodeError as exc:
            raise RecordError(f"game record is not valid JSON: {exc}") from None
        except RecursionError:
            raise RecordError(
                "game record is not a game record: its JSON is nested too deeply"
            ) from None
    if not isinstance(record, dict) or record.get("format") != "tt_env.game":
        raise RecordError("not a tt_env game record (missing format 'tt_env.game')")
    version = record.get("version")
    if not _is_index(version) or version != RECORD_VERSION:
        raise RecordError(
            f"unsupported game record version {_short(version)} (this "
            f"tt_env reads version {RECORD_VERSION})"
        )
    for key in ("rules", "seed", "moves", "rounds_played", "scores"):
        if key not in record:
            raise RecordError(f"game record has no {key!r}")
    try:
        rules = Rules.from_dict(record["rules"])
    except (TypeError, ValueError, RecursionError) as exc:
        raise RecordError(f"game record has invalid rules: {exc}") from None
    try:
        seed = check_seed(record["seed"])
    except ValueError as exc:
        raise RecordError(f"game record has an invalid seed: {exc}") from None
    moves, n = record["moves"], rules.num_players
    if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
        raise RecordError(
            f"game record's moves must be a list of move texts (like "
            f"'discard 7H'), got {_short(moves)}"
        )
    rounds_played = record["rounds_played"]
    if not _is_index(rounds_played) or rounds_played < 0:
        raise RecordError(
            f"game record's rounds_played must be a non-negative integer, "
            f"got {_short(rounds_played)}"
        )
    scores = record["scores"]
    if not (isinstance(scores, list) and len(scores) == n and all(_is_index(x) for x in scores)):
        raise RecordError(
            f"game record's scores must be a list of {n} integers (one per "
            f"seat), got {_short(scores)}"
        )
    winners = record.get("winners")
    if winners is not None and not (
        isinstance(winners, list) and all(_is_index(x) for x in winners)
    ):
        raise RecordError(f"game record's winners must be a list of seats, got {_short(winners)}")
    return rules, seed, moves, rounds_played, scores, winners
