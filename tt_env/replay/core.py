"""Replays in the browser (``tt-replay``): one self-contained HTML page from a game record.

::

    tt-replay game.json -o game.html          # open game.html from disk in any browser
    tt-replay game.json --seat 1              # opens in seat 1's view (writes game.html)
    tt-replay game.json --seat 1 --private    # a file that holds only what seat 1 saw

The page has a step scrubber with play/pause and speed (keys: arrows step, space plays,
Home/End, Page Up/Down jump a round; the address holds the step, ``game.html#step=120``, so that
a position can be shared), the spectator view (every hand) or one seat's view (that
seat's hand; the others' hand sizes and the cards they are known to hold), each hand sorted into
its best melds with wild cards marked and its deadwood, the top discard and the pile below it,
the stock count, whose turn, the phase and the final turns, every move in words with the
moved card highlighted, the round results (penalties, totals), the winners and, when the record
carries them, what the mover's agent made of its candidates at each decision.

Everything is computed here, when the page is written, and the page's script only draws: the
record is checked by :meth:`Game.from_record <tt_env.game.engine.Game.from_record>` and replayed
with the engine; every step's state (each hand with its best arrangement by the solver, the discard
pile, stock, phase, seat to move, final turns, scores, round results) is embedded as compact
JSON, each step as its changes from the step before, and each distinct hand solved once.

A step is the deal of a round (step 0 is the first deal), or the state after one move; the move
that ends a round shows the round as it ended, every hand as it was scored (hands are shown at
the scoring), and the next round's deal is a step of its own.

The seat views. A seat's view shows what :meth:`Game.view <tt_env.game.engine.Game.view>` gives that
seat and nothing else: its own hand, the public information (the discard pile, the table, hand
sizes, the cards each seat is known to hold, scores), its own stock draws (the others' are
"draws from the stock"), its own agent's annotations; and at a round's end the hands as scored.
``--private`` writes a page whose data holds only that (the other hands are not in the file);
without it the page holds every hand and its view selector switches between spectator and
seats.

Record keys read besides the engine's (both optional; ``Game.from_record`` ignores them, so an
annotated record stays a valid game record):

===============  =================================================================================
key              meaning
===============  =================================================================================
``players``      one name per seat (``["counting", "you"]``), shown after the seat numbers
``annotations``  one entry per move, aligned with ``moves``: ``null``, or ``{"kind": "probability",
                 "values": {"draw stock": 0.93, "take discard": 0.07}}``: what the mover's agent
                 made of its candidates (a learned agent's probabilities, the search agent's mean
                 results), at most :data:`MAX_CANDIDATES` of them; an optional ``"text"``: what
                 a language model said (``llm`` agents), shown under them
===============  =================================================================================

Agents log annotations through an optional ``explain(observation, mask)`` method (see
:mod:`tt_env.agents.base`); :func:`explain_move` turns its answer into a record entry, and
``tt-arena --replays DIR`` and ``tt-play --save PATH`` write annotated records.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from tt_env.env.render import card_order, shown_melds
from tt_env.game.cards import ALL_CARDS, NUM_KINDS
from tt_env.game.engine import Game, MoveKind, Outcome, PlayerView, RecordError
from tt_env.game.melds import Arrangement, solve
from tt_env.game.rules import Rules

REPLAY_FORMAT = "tt_env.replay"  # the page's embedded data
REPLAY_VERSION = 1
MAX_CANDIDATES = 5  # annotation values kept per decision: the best (most likely) ones
MAX_TEXT = 4000  # characters of an annotation's text kept (what a language model said)
MAX_RECORD_BYTES = 64 * 2**20  # a record of the longest game is a few MB
_PER_SEAT = ("h", "n", "k")  # state keys holding one value per seat: changes are sent by seat
_TEMPLATE = "page.html"
_DATA_MARK = "/*TT_REPLAY_DATA*/"
_TITLE_MARK = "<!--TT_REPLAY_TITLE-->"


class ReplayError(ValueError):
    """A record that cannot be replayed (unreadable, corrupt, or with bad replay keys)."""


# ---------------------------------------------------------------------------------- records
def read_record(path: str | os.PathLike) -> dict[str, Any]:
    """The game record in the file ``path``, checked (:meth:`Game.from_record` replays it);
    :class:`ReplayError` naming the file and the problem otherwise."""
    try:
        size = os.path.getsize(path)
        if size > MAX_RECORD_BYTES:
            raise ReplayError(
                f"{path}: {size:,} bytes is too large for a game record "
                f"(at most {MAX_RECORD_BYTES:,})"
            )
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as exc:
        raise ReplayError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        Game.from_record(raw)
        record = json.loads(raw)  # valid JSON: from_record has read it
        check_replay_keys(record)
    except (RecordError, ReplayError) as exc:
        raise ReplayError(f"{path}: {exc}") from None
    return record


def check_replay_keys(record: dict[str, Any]) -> None:
    """:class:`ReplayError` unless the optional ``players`` and ``annotations`` keys are as the
    module docstring says (the rest is :meth:`Game.from_record`'s to check)."""
    n = Rules.from_dict(record["rules"]).num_players
    players = record.get("players")
    if players is not None and not (
        isinstance(players, list) and len(players) == n and all(isinstance(p, str) for p in players)
    ):
        raise ReplayError(f"the record's players must be a list of {n} names (one per seat)")
    notes = record.get("annotations")
    if notes is None:
        return
    moves = record["moves"]
    if not isinstance(notes, list) or len(notes) != len(moves):
        raise ReplayError(
            f"the record's annotations must be a list of {len(moves)} entries, one per move"
        )
    for i, note in enumerate(notes):
        if note is not None and not _is_annotation(note):
            raise ReplayError(
                f"the record's annotation of move {i} must be null or "
                '{"kind": text, "values": {move: number}}'
            )


def _is_annotation(note: Any) -> bool:
    if not isinstance(note, dict) or not isinstance(note.get("kind"), str):
        return False
    if not isinstance(note.get("text", ""), str):
        return False
    values = note.get("values")
    return isinstance(values, dict) and all(
        isinstance(label, str)
        and isinstance(value, (int, float))
        and not isinstance(value, bool)
        and math.isfinite(value)
        for label, value in values.items()
    )


def explain_move(agent: Any, observation, action_mask) -> dict[str, Any] | None:
    """The record's annotation of a decision ``agent`` has just taken (see the module
    docstring): its ``explain(observation, mask)`` answer, ``(kind, {action: value})``, with
    the actions in words and the :data:`MAX_CANDIDATES` best values kept (the highest
    probabilities; the lowest values otherwise, lower being better); None when the agent has
    no ``explain`` or nothing to say."""
    from tt_env.encoding.actions import describe

    explain = getattr(agent, "explain", None)
    answer = explain(observation, action_mask) if callable(explain) else None
    if not answer:
        return None
    kind, values, *said = answer
    highest = kind == "probability"
    best = sorted(values.items(), key=lambda kv: -kv[1] if highest else kv[1])[:MAX_CANDIDATES]
    note = {"kind": str(kind), "values": {describe(int(a)): round(float(v), 4) for a, v in best}}
    if said and said[0]:
        note["text"] = str(said[0])[:MAX_TEXT]
    return note


def annotated_record(
    game: Game,
    players: Sequence[str] | None = None,
    annotations: Sequence[dict[str, Any] | None] | None = None,
) -> dict[str, Any]:
    """``game.record()`` with the replay keys: the seats' names and (when one is not None) the
    annotations, one per move."""
    record = game.record()
    if players is not None:
        record["players"] = [str(p) for p in players]
    if annotations is not None and any(a is not None for a in annotations):
        if len(annotations) != len(game.moves):
            raise ValueError(
                f"{len(annotations)} annotations for {len(game.moves)} moves: give one per move"
            )
        record["annotations"] = list(annotations)
    return record


# ---------------------------------------------------------------------------------- page data
class _Builder:
    """The page's data, step by step: the hands' table (each distinct hand solved once) and
    the steps as changes from the step before."""

    def __init__(self, rules: Rules, seat: int | None) -> None:
        self.rules = rules
        self.seat = seat  # None: the spectator's data, every hand
        self.hands: list[list] = []
        self._ids: dict[tuple, int] = {}
        self.steps: list[dict[str, Any]] = []
        self._last: dict[str, Any] = {}

    def _entry(self, key: tuple, arrangement: Arrangement) -> int:
        found = self._ids.get(key)
        if found is None:
            deadwood = sorted((int(c) for c in arrangement.deadwood), key=card_order)
            melds = [[int(c) for c in meld] for meld in shown_melds(arrangement)]
            found = self._ids[key] = len(self.hands)
            self.hands.append([melds, deadwood, int(arrangement.points)])
        return found

    def hand(self, counts: Sequence[int], wild_rank: int) -> int:
        """The id of a hand in play (53 counts): its best arrangement by the solver."""
        key = ("hand", wild_rank, bytes(counts))
        if key not in self._ids:
            cards = [ALL_CARDS[k] for k in range(NUM_KINDS) for _ in range(counts[k])]
            return self._entry(key, solve(cards, wild_rank, self.rules))
        return self._ids[key]

    def scored(self, arrangement: Arrangement) -> int:
        """The id of a hand as it was scored (a round result's arrangement)."""
        key = (
            "scored",
            tuple(tuple(int(c) for c in m) for m in arrangement.melds),
            tuple(sorted(int(c) for c in arrangement.deadwood)),
            int(arrangement.points),
        )
        return self._entry(key, arrangement)

    def state(self, game: Game, rounds_done: int, scored: list[int] | None = None) -> dict:
        """Everything a step shows of ``game``: the public part from a seat's view, the hands
        (the spectator's: every seat's; a seat's: its own), or the hands as scored."""
        view: PlayerView = game.view(0 if self.seat is None else self.seat)
        n = view.num_players
        if scored is not None:
            hands = scored
        elif self.seat is None:
            hands = [self.hand(game.hand_counts(s), view.wild_rank) for s in range(n)]
        else:
            hands = [
                self.hand(view.hand, view.wild_rank) if s == self.seat else None for s in range(n)
            ]
        return {
            "r": view.round_index,
            "done": rounds_done,
            "cur": view.current,
            "ph": int(view.phase),
            "t": view.turns,
            "st": view.stock_size,
            "out": view.went_out,
            "sc": list(view.scores),
            "n": list(view.hand_sizes),
            "h": hands,
            "k": [_cards(counts) for counts in view.taken],
            "p": list(view.discard_pile),
            "tb": [[m.seat, [int(c) for c in m.cards]] for m in view.table],
        }

    def add(self, state: dict[str, Any], **events: Any) -> None:
        """Append a step: what changed since the last one, and its events (a move ``m``, a
        round result ``res``, a deal ``deal``), which belong to this step only."""
        last, delta = self._last, {}
        for key, value in state.items():
            old = last.get(key)
            if key not in last:
                delta[key] = value
            elif old == value:
                continue
            elif key in _PER_SEAT:
                delta[key] = [[s, v] for s, (a, v) in enumerate(zip(old, value)) if a != v]
            elif key == "p" and len(value) == len(old) + 1 and value[:-1] == old:
                delta["p+"] = value[-1]
            elif key == "p" and value == old[:-1]:
                delta["p-"] = 1
            else:
                delta[key] = value
        delta.update({k: v for k, v in events.items() if v is not None})
        self.steps.append(delta)
        self._last = state


def _cards(counts: Sequence[int]) -> list[int]:
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def _name(kind: int) -> str:
    return ALL_CARDS[kind].pretty


def _move_event(
    outcome: Outcome, rules: Rules, seat: int | None, note: dict | None
) -> dict[str, Any]:
    """A move: the record's text (``mv``), in words as everyone saw it (``w``) and, for a stock
    draw, as the mover saw it (``wp``, with the card ``cp``); ``c`` is the card everyone saw
    move; ``a`` the annotation.
    A seat's data gets the private words only of its own moves."""
    move, mover = outcome.move, outcome.seat
    card = _name(outcome.card)
    event: dict[str, Any] = {"s": mover, "mv": str(move)}
    private = seat is None or seat == mover
    if move.kind == MoveKind.DRAW_STOCK:
        rebuilt = " (the stock was rebuilt from the discard pile)" if outcome.rebuilt else ""
        event["w"] = "draws from the stock" + rebuilt
        if private:
            event["wp"] = f"draws {card} from the stock" + rebuilt
            event["cp"] = outcome.card
    else:
        event["c"] = outcome.card
        if move.kind == MoveKind.TAKE_DISCARD:
            event["w"] = f"takes {card} from the discard pile"
        elif outcome.went_out:
            event["w"] = f"goes out, discarding {card}"
        elif outcome.false_out:
            event["w"] = (
                f"announces going out, discarding {card}: a false go-out, "
                f"{rules.false_out_penalty} points"
            )
        elif move.kind == MoveKind.GO_OUT:
            event["w"] = f"discards {card}, the rest of the hand in melds (final turn)"
        else:
            event["w"] = f"discards {card}"
        if outcome.laid and not outcome.went_out:
            event["w"] += "; lays down and lays off cards (redemption)"
    if note is not None and private:
        event["a"] = {"kind": note["kind"], "values": list(note["values"].items())}
        if note.get("text"):
            event["a"]["t"] = note["text"]
    return event


def replay_data(
    record: dict[str, Any] | str | bytes,
    seat: int | None = None,
    open_view: int | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """The data a replay page draws (see the module docstring), from a game record.

    ``seat``: the data of that seat's view only (nothing else of the other hands: ``--private``);
    None: every hand. ``open_view``: the view the page opens in (a seat, or None for the
    spectator). Raises :class:`ReplayError` for a record that does not replay.
    """
    try:
        game = Game.from_record(record)
    except RecordError as exc:
        raise ReplayError(str(exc)) from None
    if not isinstance(record, dict):
        record = json.loads(record)
    check_replay_keys(record)
    rules, n = game.rules, game.num_players
    for what, value in (("seat", seat), ("open_view", open_view)):
        if value is not None and not (
            isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n
        ):
            raise ReplayError(f"{what} must be a seat 0..{n - 1} of this game, got {value!r}")
    if seat is not None:
        open_view = seat
    notes = record.get("annotations") or [None] * len(game.moves)
    build = _Builder(rules, seat)
    replay = Game(rules, seed=game.seed)
    rounds = [{"cards": replay.cards_dealt, "wild": replay.wild_rank, "dealer": replay.dealer}]
    results: list[dict[str, Any]] = []
    build.add(build.state(replay, 0), deal=0)
    under_way = False  # a move was made in the round after the last one scored
    for i, text in enumerate(record["moves"]):
        outcome = replay.apply(text)
        event = _move_event(outcome, rules, seat, notes[i])
        result = outcome.round_result
        under_way = result is None
        if result is None:
            build.add(build.state(replay, len(results)), m=event)
            continue
        scored = [build.scored(a) for a in result.arrangements]
        results.append(
            {
                "round": result.round_index,
                "out": result.went_out,
                "by": result.ended_by,
                "pen": list(result.penalties),
                "dw": list(result.deadwood_points),
                "fo": list(result.false_outs),
                "tot": list(replay.scores),
            }
        )
        build.add(
            build.state(replay.ended_round(), len(results), scored), m=event, res=len(results) - 1
        )
        if not replay.is_over:
            rounds.append(
                {"cards": replay.cards_dealt, "wild": replay.wild_rank, "dealer": replay.dealer}
            )
            build.add(build.state(replay, len(results)), deal=replay.round_index)
    names = record.get("players")
    if title is None:
        # A game left during a round is in that round: its finished rounds are one fewer.
        played = (
            f"left in round {len(results) + 1} of {rules.num_rounds}"
            if under_way
            else f"{len(results)} of {rules.num_rounds} rounds"
        )
        title = f"Three Thirteen: {n} players, {played}, seed {game.seed}"
    return {
        "format": REPLAY_FORMAT,
        "version": REPLAY_VERSION,
        "title": title,
        "rules": rules.brief(),
        "n": n,
        "num_rounds": rules.num_rounds,
        "seed": game.seed,
        "players": names,
        "view": seat,
        "open": -1 if open_view is None else open_view,
        "rounds": rounds,
        "results": results,
        "hands": build.hands,
        "steps": build.steps,
        "over": game.is_over,
        "scores": list(game.scores),
        "winners": game.winners,
        "annotated": any(note is not None for note in notes),
    }


# ---------------------------------------------------------------------------------- the page
def page_html(data: dict[str, Any]) -> str:
    """The self-contained HTML page that draws ``data`` (:func:`replay_data`)."""
    template = resources.files(__package__).joinpath(_TEMPLATE).read_text(encoding="utf-8")
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    # Inside <script>: no "</script>" or "<!--" may appear, nor the line separators some
    # engines end a line at.
    for raw, escaped in (
        ("<", "\\u003c"),
        (">", "\\u003e"),
        ("&", "\\u0026"),
        ("\u2028", "\\u2028"),
        ("\u2029", "\\u2029"),
    ):
        text = text.replace(raw, escaped)
    title = data["title"].replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return template.replace(_TITLE_MARK, title).replace(_DATA_MARK, text)


def write_replay(
    record: dict[str, Any] | str | bytes,
    path: str | os.PathLike,
    seat: int | None = None,
    *,
    open_view: int | None = None,
    title: str | None = None,
) -> int:
    """Write the replay page of ``record`` to ``path`` (whole or not at all); returns its size
    in bytes. ``seat``, ``open_view``, ``title``: as :func:`replay_data`."""
    from tt_env.util.files import write_text_atomically

    text = page_html(replay_data(record, seat=seat, open_view=open_view, title=title))
    write_text_atomically(path, text)
    return len(text.encode("utf-8"))


def build_parser():
    from tt_env.cli import Parser, non_negative_int

    parser = Parser(
        prog="tt-replay",
        description="Write a game record (tt-arena --replays, tt-play --save, Game.to_json) as "
        "one self-contained HTML page to watch in a browser, from disk: a step scrubber, every "
        "hand in its best melds, the piles, each move in words, the round results.",
        epilog="Keys in the page: left/right arrows step, space plays and pauses, Home/End, "
        "Page Up/Down jump a round; game.html#step=120 opens at step 120. Example: "
        "tt-replay game.json -o game.html --seat 0",
    )
    parser.add_argument("record", metavar="RECORD", help="a game record (JSON)")
    parser.add_argument(
        "--output",
        "-o",
        metavar="PATH",
        help="the HTML file to write (default: RECORD with the suffix .html)",
    )
    parser.add_argument(
        "--seat",
        type=non_negative_int,
        default=None,
        help="open in this seat's view: its hand and the public information (default: the "
        "spectator's view, every hand)",
    )
    parser.add_argument(
        "--private",
        action="store_true",
        help="with --seat: write only what that seat saw (the other hands are left out of "
        "the file, not only hidden)",
    )
    parser.add_argument("--title", help="the page's title (default: players, rounds and seed)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """``tt-replay``: returns the exit status."""
    from tt_env.cli import one_line
    from tt_env.util.files import check_writable

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.private and args.seat is None:
        parser.error("--private needs --seat N (whose view to keep)")
    output = args.output or str(Path(args.record).with_suffix(".html"))
    try:
        if os.path.realpath(output) == os.path.realpath(args.record):
            raise ReplayError(f"--output {output} is the record itself")
        check_writable(output, "--output")
        record = read_record(args.record)
        n = Rules.from_dict(record["rules"]).num_players
        if args.seat is not None and args.seat >= n:
            raise ReplayError(f"--seat {args.seat}: the game has {n} seats (0..{n - 1})")
        size = write_replay(
            record,
            output,
            seat=args.seat if args.private else None,
            open_view=args.seat,
            title=args.title,
        )
    except ValueError as exc:
        print(f"tt-replay: error: {one_line(exc)}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tt-replay: error: could not write {output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"tt-replay: wrote {output} ({size / 1024:.0f} KB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
