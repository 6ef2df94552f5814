"""The referee's ruling on a forfeit: an agent that raises :class:`tt_env.agents.Forfeit` in
``act`` gives up the rest of the round (RULES.md, "Decided in this implementation").

- The seat takes no further decision in that round: the arena plays its turns as **passes**.
  A pass draws from the stock (from the discard pile only when the stock cannot be drawn from)
  and discards the card drawn this turn (when that card may not be discarded, the first card
  in card order that may), so the seat never goes out and its hand stays as it was.
- When the round is scored, the seat's penalty is that of its **whole hand**, every card counted
  as if nothing melded, its false go-outs of the round added, times the round's multiplier.
  The engine scores the round by the rules as usual (what every agent observes); the arena's
  result (:class:`~tt_env.arena.schedule.GameResult`) replaces the seat's round penalty.
- The seat's agent is asked again from the next round on.
"""

from __future__ import annotations

from typing import Any

from tt_env.encoding.actions import DISCARD_ACTION_BASE, DRAW_STOCK_ACTION, TAKE_DISCARD_ACTION
from tt_env.game import Phase
from tt_env.game.cards import NUM_KINDS
from tt_env.game.rules import Rules


class Forfeits:
    """The forfeits of one game: who is out of the current round, the passes played for them,
    and the round penalties that follow (:meth:`penalties`)."""

    def __init__(self, game: Any, rules: Rules) -> None:
        self.game = game
        self.rules = rules
        self.reasons: dict[int, str] = {}  # seat -> why it forfeited the current round
        self.counts = [0] * rules.num_players  # forfeits per seat in this game
        self._hands: dict[tuple[int, int], tuple[int, ...]] = {}  # (round, seat) -> hand scored
        self._before_draw: dict[int, tuple[int, ...]] = {}  # seat -> its hand before its draw

    def see(self, seat: int) -> None:
        """Call at every decision, before it is played: remembers a hand before its draw (the
        card drawn is the one a pass discards)."""
        if self.game.phase == Phase.DRAW:
            self._before_draw[seat] = self.game.hand_counts(seat)

    def forfeit(self, seat: int, reason: str) -> None:
        """``seat`` forfeits the current round."""
        self.reasons[seat] = reason
        self.counts[seat] += 1

    def new_round(self) -> None:
        self.reasons.clear()

    def pass_move(self, seat: int, mask: Any) -> int:
        """The pass a forfeited ``seat`` plays at this decision (see the module docstring)."""
        game = self.game
        if game.phase == Phase.DRAW:
            return DRAW_STOCK_ACTION if mask[DRAW_STOCK_ACTION] else TAKE_DISCARD_ACTION
        hand = list(game.hand_counts(seat))
        before = self._before_draw.get(seat, hand)
        drawn = [k for k in range(NUM_KINDS) if hand[k] > before[k]]
        card = next(k for k in drawn + list(range(NUM_KINDS)) if mask[DISCARD_ACTION_BASE + k])
        hand[card] -= 1
        self._hands[(game.round_index, seat)] = tuple(hand)  # what it holds to the round's end
        return DISCARD_ACTION_BASE + card

    def penalties(self, results: Any) -> tuple[tuple[int, ...], ...]:
        """Each round's penalties (``results``: the engine's round results), with the round
        penalty of every forfeited seat replaced by that of its whole hand."""
        out = []
        for r in results:
            penalties = [int(p) for p in r.penalties]
            table = self.rules.penalty_table(r.wild_rank)
            for seat in range(len(penalties)):
                hand = self._hands.get((r.round_index, seat))
                if hand is not None:
                    whole = sum(count * table[k] for k, count in enumerate(hand))
                    multiplier = self.rules.score_multiplier(r.wild_rank)
                    penalties[seat] = multiplier * (whole + int(r.false_outs[seat]))
            out.append(tuple(penalties))
        return tuple(out)
