"""The text protocol of :mod:`tt_env.text` (see the package docstring).

A prompt is written from what the seat sees: its observation vector and action mask
(:mod:`tt_env.encoding.observation`), and the rules. It therefore holds nothing hidden, whatever
the caller has access to. The other seats are named by their place in play order from the
observer ("the next player" plays right after you), as the observation orders them.

The legal moves are numbered 1..m in action order; an answer may give the number, the words
(``"discard 7H"``, ``"go out, discard KD"``, ``"take discard"``, ``"draw stock"``, or the short
forms of :func:`tt_env.encoding.actions.parse_action`), a numbered line copied from the prompt
(``"3. discard 7H"``), or JSON ``{"move": 3}`` / ``{"move": "discard 7H"}``, also inside other
text (a fenced block, a sentence before it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from tt_env.encoding.actions import NUM_ACTIONS, describe, parse_action
from tt_env.encoding.observation import MIN_CARDS_DEALT, observation_layout
from tt_env.game.cards import ALL_CARDS, NUM_KINDS
from tt_env.game.rules import ACE_HIGH_PENALTY, JOKER_PENALTY, Rules

_RANK_WORDS = {
    1: "aces",
    2: "2s",
    3: "3s",
    4: "4s",
    5: "5s",
    6: "6s",
    7: "7s",
    8: "8s",
    9: "9s",
    10: "10s",
    11: "jacks",
    12: "queens",
    13: "kings",
}
ANSWER_INSTRUCTIONS = (
    'Answer with the number of one legal move, or its words, or JSON {"move": <number>}.'
)
MOVE_WORDS = "draw stock, take discard, discard <card> (as in discard 7H) or go out, discard <card>"
"""The moves in words, for a prompt that does not list the legal moves."""
WORDS_INSTRUCTIONS = (
    f"The legal moves are not listed: answer with your move in words: {MOVE_WORDS}. A card is "
    "its rank (A, 2 to 9, T for 10, J, Q, K) and its suit (C, D, H, S); JK is a joker. A move "
    "that is not legal now is an error."
)


class AnswerError(ValueError):
    """An answer that names no legal move; the message says why and what would do."""

    def __init__(self, message: str, named: bool = False) -> None:
        super().__init__(message)
        self.named = named  # the answer did name a move (a number, words): not a legal one


# ---------------------------------------------------------------------------------- the rules
def rules_text(rules: Rules) -> str:
    """The rules in force, in a paragraph per topic, from every field of ``rules``."""
    n = rules.num_players
    decks = rules.decks
    jokers = rules.jokers_per_deck
    deck = f"{decks} deck{'s' if decks > 1 else ''} of 52 cards" + (
        f" with {jokers} joker{'s' if jokers > 1 else ''} each" if jokers else ""
    )
    sizes = [r.cards for r in rules.rounds]
    if rules.there_and_back:
        order = f"{sizes[0]} cards up to {max(sizes)}, then back down to {sizes[-1]}"
    else:
        order = f"{sizes[0]} cards in the first round up to {sizes[-1]} in the last"
    lines = [
        f"Three Thirteen for {n} players with {deck}. {rules.num_rounds} rounds are dealt: "
        f"{order}, one more card each round.",
        "The wild rank of a round is the number of cards dealt (3s wild with 3 cards, jacks "
        "with 11, queens with 12, kings with 13"
        + (", aces with 14 or 15" if rules.extra_rounds else "")
        + "); every card of that rank is wild"
        + (", and so are the jokers" if jokers else "")
        + ".",
        "A turn: draw the top card of the stock or the top card of the discard pile, then "
        "discard one card, or go out: when all your cards but the one you discard form melds, "
        "lay them down and discard. After someone goes out every other player has one final "
        "turn, then the round is scored.",
        _meld_text(rules),
        _penalty_text(rules),
    ]
    extras = []
    if rules.redemption:
        extras.append(
            "Redemption: a player on the final turn lays down its melds and lays off loose "
            "cards onto the melds on the table."
        )
    if rules.joker_layoff:
        extras.append(
            "A leftover joker may be dropped on another player's meld on the table: it then "
            "costs nothing."
        )
    if rules.double_court_rounds:
        extras.append(
            "Round scores are doubled in the rounds where jacks, queens or kings are wild."
        )
    if rules.false_out_penalty is None:
        extras.append("Going out is allowed only when it is valid.")
    else:
        extras.append(
            f"Going out is always allowed; going out when the other cards do not all meld "
            f"costs {rules.false_out_penalty} points (the discard stands, you are not out)."
        )
    if rules.discard_drawn_upcard:
        extras.append("The card just taken from the discard pile may be discarded at once.")
    elif rules.decks > 1:
        extras.append(
            "The card just taken from the discard pile may not be discarded in the same turn, "
            "unless you hold an identical card from before (then that one may be)."
        )
    else:
        extras.append(
            "The card just taken from the discard pile may not be discarded in the same turn."
        )
    extras.append(
        f"A round also ends after {rules.turn_cap} turns in all when nobody went out; "
        "everyone is then scored. After the last round the lowest total wins."
    )
    lines.append(" ".join(extras))
    return "\n".join(lines)


def _meld_text(rules: Rules) -> str:
    runs = (
        "an ace may sit below the 2 or above the king (A-2-3 and Q-K-A), never both ways "
        "round (K-A-2 is no run)"
        if rules.aces_high
        else "aces are low (A-2-3 is a run, Q-K-A is not)"
    )
    cap = rules.max_wilds_per_meld
    wilds = (
        "any number of wild cards"
        if cap is None
        else f"at most {cap} card{'s' if cap != 1 else ''} used as wild"
    )
    natural = (
        "a meld may consist of wild cards only"
        if rules.all_wild_melds
        else "every meld needs at least one natural card"
    )
    decks = (
        f" With {rules.decks} decks there are identical cards (two 7H): a set may repeat a "
        "suit (7H 7H 7S is a set); a run holds each rank once."
        if rules.decks > 1
        else ""
    )
    return (
        f"Melds: a set is 3 or more cards of one rank; a run is 3 or more cards of one suit in "
        f"sequence; {runs}.{decks} A wild card stands for any card; a meld may hold {wilds}, and "
        f"{natural}. A wild-rank card in its own natural place counts as natural. A card "
        "belongs to one meld at most."
    )


def _penalty_text(rules: Rules) -> str:
    ace = ACE_HIGH_PENALTY if rules.aces_high else 1
    court = "J 11, Q 12, K 13" if rules.court_values else "J, Q and K 10 each"
    wild = (
        "its own value"
        if rules.unused_wild_penalty is None
        else f"{rules.unused_wild_penalty} points"
    )
    text = (
        f"Scoring: the cards left out of melds cost penalty points: A {ace}, 2 to 10 their "
        f"face value, {court}; a leftover card of the wild rank costs {wild}"
    )
    if rules.jokers_per_deck:
        text += f", a leftover joker {JOKER_PENALTY}"
    return (
        text
        + ". The player who goes out scores 0. Your hand is always arranged for the fewest points."
    )


# ---------------------------------------------------------------------------------- the position
def legal_moves(legal: Any) -> list[tuple[int, int, str]]:
    """``(number, action, words)`` of each legal move, numbered from 1 in action order;
    ``legal`` is an action mask (108 values) or a sequence of actions."""
    actions = _actions(legal)
    return [(i + 1, a, describe(a)) for i, a in enumerate(actions)]


def _actions(legal: Any) -> list[int]:
    array = np.asarray(legal)
    if array.ndim != 1 or array.dtype == object:
        raise ValueError("legal moves are an action mask (108 values) or a list of actions")
    if array.shape[0] == NUM_ACTIONS and (array.dtype == bool or array.max(initial=0) <= 1):
        return [int(a) for a in np.flatnonzero(array)]  # a mask (a list of actions has a > 1)
    return sorted({int(a) for a in array})


def _cards(counts: np.ndarray) -> list[int]:
    return [k for k in range(NUM_KINDS) for _ in range(int(round(float(counts[k]))))]


def _names(kinds: Sequence[int]) -> str:
    return " ".join(str(ALL_CARDS[k]) for k in kinds) if kinds else "none"


def _count(n: int, thing: str) -> str:
    """``"1 card"``, ``"5 cards"``."""
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _other(k: int, n: int) -> str:
    if k == 1:
        return "the next player (plays right after you)"
    if k == n - 1:
        return "the previous player (plays right before you)"
    return f"the player {k} seats after you"


def position_text(
    observation: np.ndarray,
    mask: Any,
    rules: Rules,
    recent: Sequence[str] = (),
    *,
    drawn: int | None = None,
) -> str:
    """What the seat knows at this decision, in words (see the module docstring). ``recent``:
    the public moves since the seat's last decision; ``drawn``: the card kind it drew from the
    stock this turn (:attr:`RecentMoves.drawn`: the observation does not hold it), named in the
    discard phase."""
    from tt_env.game.melds import solve

    n = rules.num_players
    lay = observation_layout(n)
    obs = np.asarray(observation, np.float32)
    if obs.shape != (lay.size,):
        raise ValueError(
            f"expected an observation of {lay.size} values for {n} players, got shape {obs.shape}"
        )
    p = lay.decode(obs)
    round_index = rules.num_rounds - 1 - int(round(float(p["rounds_left"][0]) * rules.num_rounds))
    wild_rank = int(np.argmax(p["wild_rank"])) + 1
    dealt = int(np.argmax(p["cards_dealt"])) + MIN_CARDS_DEALT
    hand = _cards(p["hand"])
    total = rules.decks * rules.cards_per_deck
    lines = [
        f"Round {round_index + 1} of {rules.num_rounds}: {dealt} cards dealt; "
        f"{_RANK_WORDS[wild_rank]} are wild"
        + (" (and jokers)" if rules.jokers_per_deck else "")
        + (". Round scores count double." if rules.score_multiplier(wild_rank) > 1 else ".")
    ]
    draw, discard = bool(p["phase"][0]), bool(p["phase"][1])
    upcard = _cards(p["drawn_upcard"])
    if draw:
        lines.append("It is your turn to draw.")
    elif discard:
        if upcard:
            how = f" You took {_names(upcard)} from the discard pile this turn."
        elif drawn is not None:
            how = f" You drew {_names([drawn])} from the stock this turn."
        else:
            how = " You drew a card from the stock this turn."
        lines.append("It is your turn to discard (or go out)." + how)
    if p["final_turn"][0]:
        lines.append("Someone has gone out: this is your final turn of the round.")
    lines.append(f"Your hand ({_count(len(hand), 'card')}): {_names(hand)}")
    if hand:
        best = solve([ALL_CARDS[k] for k in hand], wild_rank, rules)
        melds = "; ".join(" ".join(str(c) for c in m) for m in best.melds) or "none"
        lines.append(
            f"  best melds: {melds}; deadwood: {_names([int(c) for c in best.deadwood])} "
            f"({best.points} penalty points if the round ended now)"
        )
    top = _cards(p["top_discard"])
    below = _cards(p["discard_below"])
    lines.append(
        f"Top of the discard pile: {_names(top) if top else 'none (the pile is empty)'}; "
        f"below it ({_count(len(below), 'card')}, any order): {_names(below)}"
    )
    table = _cards(p["table"])
    if table:
        lines.append(f"Cards laid down in melds on the table this round: {_names(table)}")
    stock = int(round(float(p["stock_size"][0]) * total))
    turns = int(round(float(p["turns_left"][0]) * rules.turn_cap))
    lines.append(f"Stock: {_count(stock, 'card')}. Turns left before the turn cap: {turns}.")
    lines.append("Players in play order from you (score = penalty points so far, lower is better):")
    for k in range(n):
        who = "you" if k == 0 else _other(k, n)
        size = int(round(float(p["hand_size"][k])))
        score = int(round(float(p["score"][k]) * 100))
        notes = []
        known = _cards(p["known"][k])
        if k and known:
            notes.append(f"known to hold {_names(known)}")
        if p["went_out"][k]:
            notes.append("went out")
        if p["dealer"][k]:
            notes.append("dealer")
        extra = f"; {', '.join(notes)}" if notes else ""
        lines.append(f"  {who}: {_count(size, 'card')}, score {score}{extra}")
    if recent:
        lines.append("Since your last decision: " + "; ".join(recent) + ".")
    return "\n".join(lines)


def decision_prompt(
    observation: np.ndarray,
    mask: Any,
    rules: Rules,
    recent: Sequence[str] = (),
    *,
    drawn: int | None = None,
    listed: bool = True,
) -> str:
    """The whole prompt of a decision: the rules, the position (:func:`position_text`, with
    ``recent`` and ``drawn``), the numbered legal moves and how to answer. With ``listed``
    False the legal moves are left out and the answer is a move in words
    (:data:`WORDS_INSTRUCTIONS`; read it with ``parse_answer(..., numbered=False)``)."""
    moves = legal_moves(mask)
    if not moves:
        raise ValueError("the mask allows no move: this seat is not on turn")
    if listed:
        lines = "\n".join(f"  {number}. {words}" for number, _, words in moves)
        ending = f"Legal moves:\n{lines}\n\n{ANSWER_INSTRUCTIONS}"
    else:
        ending = WORDS_INSTRUCTIONS
    return (
        "You are playing the card game Three Thirteen.\n\nThe rules:\n"
        + rules_text(rules)
        + "\n\nThe position:\n"
        + position_text(observation, mask, rules, recent, drawn=drawn)
        + f"\n\n{ending}"
    )


# ---------------------------------------------------------------------------------- answers
_NUMBER = re.compile(r"^(?:move|answer)?\s*[:#]?\s*(\d{1,4})\s*[.)]?$")
_NUMBERED_LINE = re.compile(r"^(\d{1,4})\s*[.)]\s+(.+)$")
_LABELLED = re.compile(r"^\s*(?:\*\*)?(?:move|answer|final answer)(?:\*\*)?\s*[:=-]\s*(.+)$", re.I)
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")


def parse_answer(text: Any, legal: Any, *, numbered: bool = True) -> int:
    """The action that ``text`` names among the legal moves (a mask or a list of actions):
    a move's number, its words, a numbered line or JSON ``{"move": ...}`` (see the module
    docstring). Raises :class:`AnswerError` naming the problem otherwise. With ``numbered``
    False (a prompt that did not list the legal moves) only words name a move, and no error
    lists the legal moves."""
    moves = _Moves(legal_moves(legal), numbered)
    if not moves:
        raise AnswerError("no move is legal: this seat is not on turn")
    if not isinstance(text, str):
        raise AnswerError(f"the answer is not text but {type(text).__name__}")
    stripped = text.strip()
    if not stripped:
        raise AnswerError("the answer is empty; " + _advice(moves))
    if stripped.isdigit() and stripped.isascii() and numbered:  # the usual answer, at once
        return _numbered(int(stripped), moves)
    found = _from_json(stripped, moves) if "{" in stripped else None
    if found is not None:
        return found
    candidates = [stripped]
    lines = [line.strip().strip("`*").strip() for line in stripped.splitlines() if line.strip()]
    for line in lines:
        match = _LABELLED.match(line)
        if match:
            candidates.append(match.group(1).strip())
    if lines:
        candidates.append(lines[-1])
    candidates = list(dict.fromkeys(candidates))
    first_error: AnswerError | None = None
    for candidate in candidates:
        try:
            return _one(candidate, moves)
        except AnswerError as exc:
            if exc.named:  # the answer names a move that is not legal: say so
                raise
            first_error = first_error or exc
    if len(candidates) == 1 and first_error is not None:
        raise first_error
    raise AnswerError(
        f"could not read a move from the answer {_quote(stripped)}; " + _advice(moves)
    )


def describe_answer(text: Any, legal: Any, *, numbered: bool = True) -> str:
    """:func:`parse_answer`'s move, in words (for logs and ``python -m tt_env.text``)."""
    return describe(parse_answer(text, legal, numbered=numbered))


class _Moves(list):
    """The legal moves ``(number, action, words)`` of :func:`legal_moves`, and whether the
    prompt numbered them (``numbered``)."""

    def __init__(self, moves, numbered: bool) -> None:
        super().__init__(moves)
        self.numbered = numbered


def _from_json(text: str, moves) -> int | None:
    chunks = [text] + _JSON_OBJECT.findall(text)
    for chunk in chunks:
        try:
            value = json.loads(chunk)
        except (json.JSONDecodeError, RecursionError):
            continue
        if isinstance(value, dict) and "move" in value:
            move = value["move"]
            if isinstance(move, bool) or not isinstance(move, (int, str)):
                raise AnswerError(
                    f'"move" must be a number or a move in words, got {_quote(json.dumps(move))}'
                )
            return _one(str(move), moves)
    return None


def _one(text: str, moves) -> int:
    """One candidate: a number, a numbered line or a move's words."""
    cleaned = text.strip().strip("`'\"*").strip().rstrip(".!").strip()
    match = _NUMBER.match(cleaned.lower())
    if match:
        return _numbered(int(match.group(1)), moves)
    match = _NUMBERED_LINE.match(cleaned)
    if match and not moves.numbered:  # a list of its own: the words name the move
        return _one(match.group(2), moves)
    if match:
        action = _numbered(int(match.group(1)), moves)
        try:
            named = parse_action(match.group(2).strip().rstrip("."))
        except ValueError:
            named = action  # the words are decoration: the number decides
        if named != action:
            raise AnswerError(
                f"the answer {_quote(cleaned)} gives move {match.group(1)} "
                f"({describe(action)}) but the words of another move",
                named=True,
            )
        return action
    try:
        action = parse_action(cleaned)
    except ValueError:
        raise AnswerError(f"{_quote(cleaned)} is not a move; " + _advice(moves)) from None
    for _, legal_action, _ in moves:
        if legal_action == action:
            return action
    raise AnswerError(
        f"{describe(action)!r} is not a legal move now; " + _advice(moves), named=True
    )


def _numbered(number: int, moves) -> int:
    if not moves.numbered:
        raise AnswerError(f"the moves are not numbered, so {number} names none; " + _advice(moves))
    if not 1 <= number <= len(moves):
        raise AnswerError(
            f"there is no legal move number {number}: choose a number from 1 to {len(moves)}",
            named=True,
        )
    return moves[number - 1][1]


def _advice(moves) -> str:
    if not moves.numbered:  # the legal moves stay unlisted
        return f"answer with one legal move in words: {MOVE_WORDS}"
    listed = ", ".join(f"{number}. {words}" for number, _, words in moves[:12])
    more = f", ... ({len(moves)} moves)" if len(moves) > 12 else ""
    return f"answer with the number of one of the legal moves: {listed}{more}"


def _quote(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


# ---------------------------------------------------------------------------------- recent moves
class RecentMoves:
    """What changed in public between a seat's decisions, read from its observations alone:
    the cards discarded since (their order is not public in the observation), the cards the
    others took from the discard pile, who went out, what was laid down. One per seat; call
    :meth:`update` with each observation of the seat's decisions. :attr:`drawn` is the card
    the seat drew from the stock this turn (in its discard phase; else ``None``), which its
    observation does not hold."""

    def __init__(self, num_players: int) -> None:
        self.num_players = num_players
        self.layout = observation_layout(num_players)
        self._last: dict[str, np.ndarray] | None = None
        self.drawn: int | None = None

    def reset(self) -> None:
        self._last = None
        self.drawn = None

    def update(self, observation: np.ndarray) -> list[str]:
        """The public events since the previous call, in words (empty on the first call of a
        round)."""
        now = {k: v.copy() for k, v in self.layout.decode(np.asarray(observation)).items()}
        last, self._last = self._last, now
        self.drawn = None
        if (
            last is None
            or not np.array_equal(last["cards_dealt"], now["cards_dealt"])
            or (last["rounds_left"][0] != now["rounds_left"][0])
        ):
            return []
        if last["phase"][0] and now["phase"][1] and not now["drawn_upcard"].any():
            # the draw decision of this turn, then this discard decision: the new card
            gained = np.flatnonzero(np.clip(now["hand"] - last["hand"], 0, None) > 0.5)
            if gained.size == 1:
                self.drawn = int(gained[0])
        n = self.num_players
        events = []
        pile_now = now["top_discard"] + now["discard_below"]
        pile_then = last["top_discard"] + last["discard_below"]
        taken = np.zeros(NUM_KINDS)
        for k in range(1, n):
            more = np.clip(now["known"][k] - last["known"][k], 0, None)
            if more.any():
                taken += more
                events.append(f"{_other(k, n)} took {_names(_cards(more))} from the discard pile")
        # Every card now in the pile that was not there before was discarded since (the
        # pile's cards taken since were there before, and are counted by the take above).
        new = np.clip(pile_now - pile_then + np.minimum(taken, pile_then), 0, None)
        # (The observer's own last discard is among them.)
        if new.any():
            events.append(f"cards discarded (any order): {_names(_cards(new))}")
        for k in range(1, n):
            if now["went_out"][k] and not last["went_out"][k]:
                events.append(f"{_other(k, n)} went out")
        laid = np.clip(now["table"] - last["table"], 0, None)
        if laid.any():
            events.append(f"laid down on the table: {_names(_cards(laid))}")
        return events


__all__ = [
    "ANSWER_INSTRUCTIONS",
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
