"""Pictures of the table for ``render_mode="rgb_array"`` (video recorders, notebooks).

:class:`Scene` is what a picture shows, in plain values: the round and its wild rank, each seat's
hand size, score and marks, the stock and the top discard, and one hand (the acting seat's)
arranged into its best melds, wild cards marked. The environments build it from the state they
render as text; :func:`draw` paints it into an ``(HEIGHT, WIDTH, 3)`` ``uint8`` array, the same
size every time (as video encoders want).

Painting needs Pillow, an optional extra: ``pip install "tt_env[render]"``. The core package
(and every other render mode) needs none; :func:`require_pillow` raises an ``ImportError`` naming
the extra, and the environments call it when they are made with ``render_mode="rgb_array"``.
Suits are drawn as shapes, not font glyphs, so the picture looks the same with any font.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from tt_env.game.cards import ALL_CARDS, JOKER, RANK_NAMES
from tt_env.game.melds import solve

WIDTH, HEIGHT = 960, 540
EXTRA = "render"  # pip install "tt_env[render]"

_FELT = (31, 95, 63)
_BAND = (20, 60, 40)
_INK = (240, 240, 230)
_DIM = (170, 200, 180)
_CARD = (253, 253, 248)
_EDGE = (90, 90, 90)
_RED = (192, 40, 43)
_BLACK = (27, 27, 27)
_GOLD = (241, 196, 15)
_JOKER = (120, 60, 160)
_BACK = (40, 70, 140)
_MELD = (120, 220, 150)


@dataclass(frozen=True)
class PlayerLine:
    """One seat's row: name, cards held, total score, marks ("dealer, to draw"), known cards."""

    name: str
    hand_size: int
    score: int
    marks: str = ""
    current: bool = False
    known: tuple[int, ...] = ()  # card kinds the seat is known to hold


@dataclass(frozen=True)
class Scene:
    """Everything one picture shows (card kinds as ints, -1 for none)."""

    title: str
    status: str
    wild_rank: int
    players: tuple[PlayerLine, ...]
    stock: int
    top_discard: int
    below: int  # cards under the top discard
    hand_label: str
    melds: tuple[tuple[int, ...], ...]  # the shown hand's melds, cards in meld order
    deadwood: tuple[int, ...]
    notes: tuple[str, ...] = ()  # the last moves, or the results of the round


def card_order(kind: int) -> tuple[int, int]:
    """Sort key of cards shown in a row: by suit, then rank; the joker last."""
    card = ALL_CARDS[kind]
    return (9, 0) if card.is_joker else (card.suit_index, card.rank)


def shown_melds(arrangement) -> list[list[int]]:
    """The melds of a solver's :class:`~tt_env.game.melds.Arrangement` as they are shown: a run in
    its own order (the solver gives it low to high, each wild in the place it stands for, an
    ace above the king last), a set sorted by suit."""
    return [
        list(cards) if shape.kind == "run" else sorted(cards, key=card_order)
        for cards, shape in zip(arrangement.melds, arrangement.shapes)
    ]


def require_pillow():
    """The ``PIL`` modules used here; an ``ImportError`` naming the extra if Pillow is missing."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise ImportError(
            'render_mode="rgb_array" draws the table with Pillow, which is not installed: '
            f'pip install "tt_env[{EXTRA}]" (or pip install pillow)'
        ) from None
    return Image, ImageDraw, ImageFont


@cache
def _font(size: int):
    _, _, ImageFont = require_pillow()
    try:
        return ImageFont.load_default(size=size)  # a scalable font (Pillow >= 10.1)
    except (TypeError, OSError, AttributeError):
        return ImageFont.load_default()


def _is_wild(kind: int, wild_rank: int) -> bool:
    return kind == JOKER or ALL_CARDS[kind].rank == wild_rank


def _suit_shape(d, suit: str, cx: float, cy: float, s: float, colour) -> None:
    """A suit pip of half-size ``s`` centred on (cx, cy), drawn with polygons and circles."""
    r = s * 0.52

    def circle(x, y, radius):
        d.ellipse((x - radius, y - radius, x + radius, y + radius), fill=colour)

    if suit == "D":
        d.polygon(
            [(cx, cy - s), (cx + 0.72 * s, cy), (cx, cy + s), (cx - 0.72 * s, cy)], fill=colour
        )
    elif suit == "H":
        circle(cx - r * 0.92, cy - s * 0.3, r)
        circle(cx + r * 0.92, cy - s * 0.3, r)
        d.polygon(
            [(cx - r * 1.86, cy - s * 0.18), (cx + r * 1.86, cy - s * 0.18), (cx, cy + s)],
            fill=colour,
        )
    elif suit == "S":
        circle(cx - r * 0.92, cy + s * 0.15, r)
        circle(cx + r * 0.92, cy + s * 0.15, r)
        d.polygon(
            [(cx - r * 1.86, cy + s * 0.03), (cx + r * 1.86, cy + s * 0.03), (cx, cy - s)],
            fill=colour,
        )
        d.polygon(
            [(cx, cy + s * 0.1), (cx - s * 0.38, cy + s), (cx + s * 0.38, cy + s)], fill=colour
        )
    else:  # clubs
        k = s * 0.42
        circle(cx, cy - s * 0.5, k)
        circle(cx - s * 0.5, cy + s * 0.08, k)
        circle(cx + s * 0.5, cy + s * 0.08, k)
        d.polygon([(cx, cy), (cx - s * 0.38, cy + s), (cx + s * 0.38, cy + s)], fill=colour)


def _card(d, x: float, y: float, w: float, h: float, kind: int, wild: bool) -> None:
    card = ALL_CARDS[kind]
    edge, width = (_GOLD, 4) if wild else (_EDGE, 1)
    d.rounded_rectangle(
        (x, y, x + w, y + h), radius=max(3, w // 8), fill=_CARD, outline=edge, width=width
    )
    font = _font(max(10, int(h * 0.24)))
    if kind == JOKER:
        d.text((x + w / 2, y + h / 2), "JK", fill=_JOKER, font=font, anchor="mm")
    else:
        colour = _RED if card.suit in ("H", "D") else _BLACK
        rank = "10" if card.rank == 10 else RANK_NAMES[card.rank]
        d.text((x + w * 0.12, y + h * 0.06), rank, fill=colour, font=font)
        _suit_shape(d, card.suit, x + w / 2, y + h * 0.62, min(w, h) * 0.24, colour)
    if wild:
        d.text(
            (x + w - 5, y + h - 3), "*", fill=_GOLD, font=_font(max(10, int(h * 0.3))), anchor="rd"
        )


def _back(d, x: float, y: float, w: float, h: float) -> None:
    d.rounded_rectangle(
        (x, y, x + w, y + h), radius=max(3, w // 8), fill=_BACK, outline=_INK, width=2
    )
    d.rounded_rectangle((x + 6, y + 6, x + w - 6, y + h - 6), radius=3, outline=_DIM, width=1)


def _short(kinds) -> str:
    return " ".join(str(ALL_CARDS[k]) for k in kinds)


def draw(scene: Scene) -> np.ndarray:
    """Paint ``scene``: an ``(HEIGHT, WIDTH, 3)`` ``uint8`` RGB array."""
    Image, ImageDraw, _ = require_pillow()
    image = Image.new("RGB", (WIDTH, HEIGHT), _FELT)
    d = ImageDraw.Draw(image)
    # the round
    d.rectangle((0, 0, WIDTH, 44), fill=_BAND)
    d.text((16, 22), scene.title, fill=_INK, font=_font(22), anchor="lm")
    d.text((WIDTH - 16, 22), scene.status, fill=_DIM, font=_font(16), anchor="rm")
    # the seats
    row = _font(16) if len(scene.players) <= 5 else _font(14)
    step = 26 if len(scene.players) <= 5 else 23
    y = 58
    for p in scene.players:
        colour = _GOLD if p.current else _INK
        d.text((16, y), (">" if p.current else " "), fill=colour, font=row)
        d.text((34, y), p.name, fill=colour, font=row)
        d.text((200, y), f"{p.hand_size:>2} cards", fill=_INK, font=row)
        d.text((290, y), f"score {p.score}", fill=_INK, font=row)
        tail = p.marks + (("; " if p.marks else "") + "known " + _short(p.known) if p.known else "")
        d.text((400, y), tail, fill=_DIM, font=row)
        y += step
    # the stock and the discard pile
    w, h = 70, 98
    _back(d, 700, 64, w, h)
    d.text(
        (700 + w / 2, 64 + h + 14), f"stock {scene.stock}", fill=_INK, font=_font(15), anchor="mm"
    )
    if scene.top_discard >= 0:
        _card(d, 810, 64, w, h, scene.top_discard, _is_wild(scene.top_discard, scene.wild_rank))
    else:
        d.rounded_rectangle((810, 64, 810 + w, 64 + h), radius=8, outline=_DIM, width=1)
    d.text(
        (810 + w / 2, 64 + h + 14),
        f"discard, {scene.below} below",
        fill=_INK,
        font=_font(15),
        anchor="mm",
    )
    # the hand, in its best melds
    top = max(y + 8, 290)
    d.text((16, top), scene.hand_label, fill=_INK, font=_font(17))
    groups = [list(m) for m in scene.melds] + ([list(scene.deadwood)] if scene.deadwood else [])
    count = sum(len(g) for g in groups)
    cw, ch, gap = 50, 72, 18
    if count:
        room = WIDTH - 32 - cw - gap * (len(groups) - 1)
        pitch = min(cw + 5, room / max(1, count - 1))
        x, cy = 16.0, top + 30
        for i, group in enumerate(groups):
            start = x
            for kind in group:
                _card(d, x, cy, cw, ch, kind, _is_wild(kind, scene.wild_rank))
                x += pitch
            end = x - pitch + cw
            if i < len(scene.melds):
                d.rectangle((start, cy + ch + 5, end, cy + ch + 9), fill=_MELD)
            x = end + gap
    legend = "green bar: a meld; gold border and *: wild"
    d.text((WIDTH - 16, top + 2), legend, fill=_DIM, font=_font(13), anchor="ra")
    # the last moves or the results
    y = top + 30 + ch + 20
    for line in scene.notes[-max(1, (HEIGHT - y) // 20) :]:
        d.text((16, y), line, fill=_INK, font=_font(15))
        y += 20
    return np.asarray(image, dtype=np.uint8)


__all__ = [
    "EXTRA",
    "HEIGHT",
    "PlayerLine",
    "Scene",
    "WIDTH",
    "card_order",
    "draw",
    "require_pillow",
    "shown_melds",
]


# ------------------------------------------------------------------ the AEC env's table
def table_text(game, rules, names, *, over: bool, result, winners) -> str:
    """The table as text (the AEC env's ``"ansi"`` and ``"human"`` render modes): the round,
    the stock and the discard pile, each seat's hand size, score and known cards, and the hand
    of the seat to move in its best melds; once the episode is ``over``, the round's
    ``result`` (or an illegal action's end) and the ``winners``."""
    if game is None:
        return "(not reset)"
    lines = []
    if over:
        if result is not None:
            lines.append(
                f"Round {result.round_index + 1}/{rules.num_rounds} over "
                f"({result.cards_dealt} cards, {RANK_NAMES[result.wild_rank]}s wild; "
                f"ended by {result.ended_by.replace('_', ' ')})."
            )
            for s, a in enumerate(names):
                out = " (went out)" if result.went_out == s else ""
                lines.append(
                    f"  {a}: penalty {result.penalties[s]:>3}, score {game.scores[s]:>4}{out}"
                )
        else:
            lines.append("Episode over (illegal action).")
        if winners:
            lines.append("Winners: " + ", ".join(winners))
        return "\n".join(lines)
    wild = game.wild_rank
    lines.append(
        f"Round {game.round_index + 1}/{rules.num_rounds}: {game.cards_dealt} cards dealt, "
        f"{RANK_NAMES[wild]}s wild | stock {game.stock_size} | turn {game.turns + 1}/"
        f"{rules.turn_cap}" + (" | final turns" if game.went_out is not None else "")
    )
    pile = game.discard_pile
    top = pile[-1].pretty if pile else "(empty)"
    lines.append(f"Discard pile: {top} on top, {max(0, len(pile) - 1)} below")
    for s, a in enumerate(names):
        marks = []
        if s == game.current:
            marks.append("to " + game.phase.name.lower())
        if s == game.dealer:
            marks.append("dealer")
        if game.went_out == s:
            marks.append("went out")
        known = " ".join(c.pretty for c in game.taken_from_discard(s))
        lines.append(
            f"{'>' if s == game.current else ' '} {a:<9} hand {sum(game.hand_counts(s)):>2}  "
            f"score {game.scores[s]:>4}"
            + (f"  known: {known}" if known else "")
            + (f"  ({', '.join(marks)})" if marks else "")
        )
    seat = game.current
    arrangement = solve(game.hand(seat), wild, rules)

    def name(c: int) -> str:
        card = ALL_CARDS[c]
        return card.pretty + ("*" if card.rank == wild or card.is_joker else "")

    def order(c: int) -> tuple[int, int]:
        return (ALL_CARDS[c].rank or 99, ALL_CARDS[c].suit_index)

    melds = ["[" + " ".join(name(c) for c in m) + "]" for m in shown_melds(arrangement)]
    loose = [name(c) for c in sorted(arrangement.deadwood, key=order)]
    lines.append(
        f"{names[seat]}'s hand: "
        + " ".join(melds + loose)
        + f"  (deadwood {arrangement.points}; * wild)"
    )
    return "\n".join(lines)


def table_scene(
    game,
    rules,
    names,
    *,
    over: bool,
    result,
    winners,
    seat: int | None,
    notes: tuple[str, ...],
) -> Scene:
    """What :func:`draw` pictures of the table (the AEC env's ``"rgb_array"`` frames): the
    same as :func:`table_text`, the hand of ``seat`` (default: the seat to move), ``notes``
    below."""
    if game is None:
        return Scene(
            title="(not reset)",
            status="",
            wild_rank=0,
            players=(),
            stock=0,
            top_discard=-1,
            below=0,
            hand_label="",
            melds=(),
            deadwood=(),
        )
    wild = game.wild_rank
    round_text = (
        f"Round {game.round_index + 1}/{rules.num_rounds}: {game.cards_dealt} "
        f"cards, {RANK_NAMES[wild]}s wild"
    )
    if over:
        title = round_text + (" - over" if result is not None else " - illegal action")
        status = ("winners: " + ", ".join(winners)) if winners else "episode over"
        if result is not None and result.round_index == game.round_index:
            notes = (
                f"Round over, ended by {result.ended_by.replace('_', ' ')}. Penalties: "
                + ", ".join(f"{a} {p}" for a, p in zip(names, result.penalties)),
                *notes,
            )
    else:
        title = round_text
        status = f"stock {game.stock_size} | turn {game.turns + 1}/{rules.turn_cap}" + (
            " | final turns" if game.went_out is not None else ""
        )
    players = []
    for s, a in enumerate(names):
        marks = []
        if s == game.current and game.phase.in_play:
            marks.append("to " + game.phase.name.lower())
        if s == game.dealer:
            marks.append("dealer")
        if game.went_out == s:
            marks.append("went out")
        known = tuple(int(c) for c in game.taken_from_discard(s))
        players.append(
            PlayerLine(
                name=a,
                hand_size=sum(game.hand_counts(s)),
                score=game.scores[s],
                marks=", ".join(marks),
                current=s == game.current,
                known=known,
            )
        )
    seat = game.current if seat is None else seat
    arrangement = solve(game.hand(seat), wild, rules)
    pile = game.discard_pile
    label = (
        f"{names[seat]}'s hand"
        + ("" if game.phase.in_play else " at the end")
        + f": deadwood {arrangement.points}"
    )
    return Scene(
        title=title,
        status=status,
        wild_rank=wild,
        players=tuple(players),
        stock=game.stock_size,
        top_discard=int(pile[-1]) if pile else -1,
        below=max(0, len(pile) - 1),
        hand_label=label,
        melds=tuple(tuple(int(c) for c in m) for m in shown_melds(arrangement)),
        deadwood=tuple(
            int(c) for c in sorted(arrangement.deadwood, key=lambda c: (c.rank or 99, c.suit_index))
        ),
        notes=notes,
    )
