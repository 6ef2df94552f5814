"""Play Three Thirteen in the terminal against agents (``tt-play``).

::

    tt-play                                   # you against the counting agent, standard rules
    tt-play --opponents greedy,counting       # three players
    tt-play --preset one-wild --episode round --seed 7
    tt-play --save game.json                  # then watch it: tt-replay game.json

On your turn the screen shows the round, the wild rank, the scores, the top discard, the cards
the others are known to hold, and your hand sorted into its best melds (by the exact solver) and
its loose cards, then the numbered legal moves. Answer with the number or with the move in words
(``draw``, ``take``, ``discard 7H``, ``go out 7H``; suit symbols work too). ``help`` lists the
commands, ``quit`` (or Ctrl-C, or end of input) leaves the game. Input may be scripted: every
prompt reads one line of standard input. ``--save PATH`` writes the game's record when the game
ends or you leave (with the seats' names and what the agents made of their candidates, see
:mod:`tt_env.replay`): ``tt-replay PATH`` shows it in a browser.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

import numpy as np

from tt_env.encoding.actions import (
    DISCARD_ACTION_BASE,
    DRAW_STOCK_ACTION,
    GO_OUT_ACTION_BASE,
    TAKE_DISCARD_ACTION,
    describe,
    parse_action,
)
from tt_env.game.cards import ALL_CARDS, RANK_NAMES

DEFAULT_OPPONENTS = ("counting",)
QUIT_WORDS = {"q", "quit", "exit", "leave"}
HELP_WORDS = {"h", "help", "?"}


class QuitGame(Exception):
    """The player asked to leave."""


class TerminalGame:
    """One game between a person (reading lines from ``input_fn``) and agents.

    Everything shown to the person is what their seat may see: their hand, the public table, and,
    at the end of each round, every hand as it was scored (hands are shown at the scoring).
    """

    def __init__(
        self,
        rules,
        opponents: Sequence[str],
        seat: int = 0,
        seed: int | None = None,
        *,
        episode: str = "game",
        input_fn: Callable[[str], str] = input,
        out: TextIO | None = None,
        pretty: bool | None = None,
        echo: bool = False,
        save: str | None = None,
    ) -> None:
        from tt_env.agents import make_agent, spec_label
        from tt_env.env import aec as three_thirteen_v0
        from tt_env.game.engine import check_seed

        self.rules = rules
        self.n = rules.num_players
        if not 0 <= seat < self.n:
            raise ValueError(f"seat must be 0..{self.n - 1}, got {seat}")
        self.seat = seat
        if seed is None:
            seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.seed = check_seed(seed)
        self.input_fn = input_fn
        self.echo = echo  # print each answer (scripted input is not echoed by a terminal)
        self.out = out or sys.stdout
        if pretty is None:
            encoding = (getattr(self.out, "encoding", None) or "").lower()
            pretty = "utf" in encoding
        self.pretty = pretty
        self.env = three_thirteen_v0.raw_env(rules=rules, episode=episode)
        self.agents: dict[int, object] = {}
        self.names: list[str] = []
        self.save = save  # the record's path (--save), written when the game ends or is left
        self.deadwood_told = False  # what deadwood is, said under the first hand shown
        self.players: list[str] = []  # the record's names of the seats
        self.notes: list[dict | None] = []  # per move: the agent's explanation (tt_env.replay)
        others = iter(opponents)
        for s in range(self.n):
            if s == seat:
                self.names.append("you")
                self.players.append("you")
                continue
            spec = next(others)
            agent = make_agent(spec, self.n, rules, self.seed + 1 + s)
            self.agents[s] = agent
            self.names.append(f"{spec_label(spec)} (seat {s})")
            self.players.append(spec_label(spec))

    # -------------------------------------------------------------- output helpers
    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    def card(self, kind: int, wild_rank: int | None = None) -> str:
        c = ALL_CARDS[kind]
        text = c.pretty if self.pretty else str(c)
        if wild_rank is not None and (c.is_joker or c.rank == wild_rank):
            text += "*"
        return text

    def cards(self, kinds, wild_rank: int | None = None) -> str:
        return " ".join(self.card(k, wild_rank) for k in kinds)

    @staticmethod
    def _order(kind: int) -> tuple[int, int]:
        c = ALL_CARDS[kind]
        return (c.suit_index if not c.is_joker else 9, c.rank)

    def arranged(self, cards, wild_rank: int) -> tuple[str, int]:
        """The hand as ``[meld] [meld] | loose cards`` and its deadwood points (a run in its
        order, each wild where it stands)."""
        from tt_env.env.render import shown_melds
        from tt_env.game.melds import solve

        arrangement = solve(list(cards), wild_rank, self.rules)
        melds = ["[" + self.cards(m, wild_rank) + "]" for m in shown_melds(arrangement)]
        loose = self.cards(sorted(arrangement.deadwood, key=self._order), wild_rank)
        text = " ".join(melds)
        if loose:
            text = (text + "  loose: " if text else "loose: ") + loose
        return text, arrangement.points

    # -------------------------------------------------------------- the game
    def play(self) -> int:
        """Play to the end; returns the exit status (0 done or left, 130 interrupted, 1 when
        the record of ``--save`` could not be written)."""
        status = self._play()
        if self.save is not None and not self._save_record():
            return status or 1
        return status

    def _save_record(self) -> bool:
        from tt_env.cli import one_line
        from tt_env.replay import annotated_record
        from tt_env.util.files import write_text_atomically

        game = self.env.game
        moves = len(game.moves)
        notes = (self.notes + [None] * moves)[:moves]  # a Ctrl-C may fall between the two
        try:
            record = annotated_record(game, self.players, notes)
            write_text_atomically(self.save, json.dumps(record) + "\n")
        except OSError as exc:
            print(
                f"tt-play: error: could not write {one_line(self.save)}: {exc.strerror or exc}",
                file=sys.stderr,
            )
            return False
        self.say(f"Game record saved to {self.save}; watch it with: tt-replay {self.save}")
        return True

    def _play(self) -> int:
        from tt_env.agents import as_action

        env = self.env
        try:
            env.reset(seed=self.seed)
            length = (
                "a single round"
                if env.episode == "round"
                else f"a game of {self.rules.num_rounds} rounds"
            )
            self.say(
                f"Three Thirteen: {self.n} players, {length}, seed {self.seed}. "
                f"You are seat {self.seat}. Type 'help' for help."
            )
            rounds_seen = 0
            self._announce_round()
            for agent_name in env.agent_iter():
                obs, _, termination, truncation, _ = env.last()
                if termination or truncation:
                    env.step(None)
                    continue
                seat = int(agent_name.rsplit("_", 1)[1])
                note = None
                if seat == self.seat:
                    action = self._ask(obs)
                else:
                    agent = self.agents[seat]
                    action = as_action(agent.act(obs["observation"], obs["action_mask"]))
                    if self.save is not None:
                        from tt_env.replay import explain_move

                        note = explain_move(agent, obs["observation"], obs["action_mask"])
                if seat == self.seat and action == DRAW_STOCK_ACTION:
                    # the card is named once drawn: it is the person's to see, no one else's
                    before = env.game.hand_counts(seat)
                    env.step(action)
                    after = env.game.hand_counts(seat)
                    drawn = next(k for k, (a, b) in enumerate(zip(before, after)) if b > a)
                    self.say(f"You draw {self.card(drawn, env.game.wild_rank)} from the stock.")
                else:
                    self._tell(seat, action)
                    env.step(action)
                self.notes.append(note)
                done = len(env.game.round_results)
                if done != rounds_seen:
                    rounds_seen = done
                    self._round_over(env.game.round_results[-1])
                    if not env.terminations[env.possible_agents[0]]:
                        self._announce_round()
            self._game_over()
            return 0
        except QuitGame:
            self.say("You left the game. Goodbye!")
            return 0
        except EOFError:
            self.say("\nEnd of input: leaving the game. Goodbye!")
            return 0
        except KeyboardInterrupt:
            self.say("\nInterrupted: leaving the game. Goodbye!")
            return 130

    def _announce_round(self) -> None:
        g = self.env.game
        first = self.names[(g.dealer + 1) % self.n]
        self.say("")
        self.say(
            f"=== Round {g.round_index + 1}/{self.rules.num_rounds}: {g.cards_dealt} cards "
            f"each, {RANK_NAMES[g.wild_rank]}s are wild; {self.names[g.dealer]} dealt, "
            f"{first} {'play' if first == 'you' else 'plays'} first. ==="
        )

    def _tell(self, seat: int, action: int) -> None:
        """Say what a move does, before it is played (the top discard is still there); not the
        person's own stock draw, which is told with the card once drawn."""
        g = self.env.game
        you = seat == self.seat
        who = "You" if you else self.names[seat]
        verb = (lambda mine, theirs: mine) if you else (lambda mine, theirs: theirs)
        if action == DRAW_STOCK_ACTION:  # the person's own draw is told with its card
            self.say(f"{who} draws from the stock.")
        elif action == TAKE_DISCARD_ACTION:
            top = g.top_discard
            self.say(
                f"{who} {verb('take', 'takes')} {self.card(top, g.wild_rank)} from the "
                "discard pile."
            )
        elif action >= GO_OUT_ACTION_BASE:
            self.say(
                f"{who} {verb('go', 'goes')} out, discarding "
                f"{self.card(action - GO_OUT_ACTION_BASE, g.wild_rank)}!"
            )
        else:
            self.say(
                f"{who} {verb('discard', 'discards')} "
                f"{self.card(action - DISCARD_ACTION_BASE, g.wild_rank)}."
            )

    def _show(self, view: dict, hand: list[int], wild_rank: int) -> None:
        g = self.env.game
        self.say("")
        turn = f"turn {view['turns'] + 1} of {view['max_turns']}"
        final = "  FINAL TURN: someone went out!" if view["final_turn"] else ""
        self.say(
            f"Round {view['round']}/{view['rounds']} | {view['wild_rank']}s wild | stock "
            f"{view['stock_size']} | {turn}{final}"
        )
        scores = ", ".join(
            f"{self.names[p['seat']]} {p['score']}"
            for p in sorted(view["players"], key=lambda p: p["seat"])
        )
        self.say(f"Scores: {scores}")
        shown = list(hand)  # every card on this screen, for the legend of the wild mark
        for p in view["players"]:
            if not p["you"] and p["known_cards"]:
                kinds = [int(_parse(c)) for c in p["known_cards"]]
                shown += kinds
                self.say(f"{self.names[p['seat']]} took and holds: {self.cards(kinds, wild_rank)}")
        top = g.top_discard
        shown += [] if top is None else [top]
        self.say("Top discard: " + (self.card(top, wild_rank) if top is not None else "(none)"))
        text, points = self.arranged(hand, wild_rank)
        legend = "  (* wild)" if any(self.card(k, wild_rank).endswith("*") for k in shown) else ""
        self.say(f"Your hand ({len(hand)}): {text}   deadwood {points}{legend}")
        if not self.deadwood_told:  # RULES.md, Scoring; the turn cap
            self.deadwood_told = True
            self.say(
                "(Deadwood: the penalty points of the cards left out of melds, what they would "
                "cost you if the round ended now. The lowest total wins. Turns count every "
                f"player's turns of the round together: if nobody has gone out by turn "
                f"{view['max_turns']}, the round ends there and every hand is scored.)"
            )
        drawn = view.get("drawn_upcard")
        if drawn is not None and not self.rules.discard_drawn_upcard:
            self.say(
                f"(You took {self.card(_parse(drawn), wild_rank)} from the pile: it may "
                "not be discarded this turn.)"
            )

    def _ask(self, obs: dict) -> int:
        from tt_env.encoding.observation import hand_of
        from tt_env.valuation.values import valuation_for

        g = self.env.game
        view = self.env.public_view(self.env.possible_agents[self.seat])
        hand = [int(c) for c in hand_of(obs["observation"])]
        wild = g.wild_rank
        self._show(view, hand, wild)
        legal = [int(a) for a in np.flatnonzero(obs["action_mask"])]
        # Hints from the valuation layer (what the observation allows, nothing hidden): the
        # deadwood left by each discard; for a draw, what taking the top discard leaves after
        # the best discard and what a stock draw leaves on average.
        valuation = valuation_for(self.rules)
        seen = valuation.see(obs["observation"])
        after, take, stock = None, None, None
        if seen.discard_phase:
            _, after, _ = valuation.discard_choices(seen)
        elif seen.draw_phase:
            _, _, stock, take = valuation.draw_values(seen)
        self.say("Your moves:")
        for i, a in enumerate(legal, 1):
            text = describe(a, pretty=self.pretty)
            if a == TAKE_DISCARD_ACTION and g.top_discard is not None:
                text += f" ({self.card(g.top_discard, wild)})"
                if take is not None and take >= 0:
                    text += f"   -> deadwood {take} after the best discard"
            if a == DRAW_STOCK_ACTION and stock is not None:
                text += f"   -> deadwood {stock:.1f} on average after the best discard"
            if a >= 2 and after is not None:
                kind = (a - 2) % 53
                text += f"   -> deadwood {after[kind] if after[kind] >= 0 else '?'}"
            self.say(f"  {i:>2}) {text}")
        while True:
            answer = self.input_fn("Your move (number or words, 'help'): ").strip()
            if self.echo:
                self.say(answer)
            if not answer:
                continue
            low = answer.lower()
            if low in QUIT_WORDS:
                raise QuitGame
            if low in HELP_WORDS:
                self.say(
                    "Type the number of a move, or the move in words: 'draw' (stock), "
                    "'take' (top discard), 'discard 7H', 'go out 7H' (suits C D H S or "
                    "symbols; 10 or T for tens). 'quit' leaves the game."
                )
                continue
            action = parse_answer(answer, legal, why=lambda a: self._why_not(a, legal))
            if isinstance(action, int):
                return action
            self.say(action)

    def _why_not(self, action: int, legal: Sequence[int]) -> str:
        """Why ``action`` is not one of the ``legal`` actions now (which the engine's mask
        decides), said to the person."""
        from tt_env.encoding.actions import discard_action
        from tt_env.game import Phase

        g = self.env.game
        top = "the top discard" if g.top_discard is None else self.card(g.top_discard)
        if g.phase == Phase.DRAW:
            if action == TAKE_DISCARD_ACTION:
                return "The discard pile is empty: 'draw' from the stock."
            if action == DRAW_STOCK_ACTION:
                return f"The stock is empty: 'take' {top}."
            return f"You must draw first: 'draw' (from the stock) or 'take' ({top})."
        if action in (DRAW_STOCK_ACTION, TAKE_DISCARD_ACTION):
            return "You have already drawn this turn: discard a card, or go out."
        out = action >= GO_OUT_ACTION_BASE
        kind = action - (GO_OUT_ACTION_BASE if out else DISCARD_ACTION_BASE)
        card = self.card(kind)
        if not g.hand_counts(self.seat)[kind]:
            return f"You do not hold {card}."
        if discard_action(kind) not in legal:
            return f"You took {card} from the discard pile: it may not be discarded this turn."
        return f"You cannot go out discarding {card}: the rest of your hand does not all meld."

    def _round_over(self, result) -> None:
        g = self.env.game
        self.say("")
        how = {
            "out": f"{self.names[result.went_out]} went out" if result.went_out is not None else "",
            "turn_cap": "the turn limit was reached",
            "no_cards": "no card could be drawn",
        }.get(result.ended_by, result.ended_by)
        self.say(f"--- Round {result.round_index + 1} over: {how}. ---")
        from tt_env.env.render import shown_melds

        for s in range(self.n):
            arrangement = result.arrangements[s]
            melds = " ".join(
                "[" + self.cards(m, result.wild_rank) + "]" for m in shown_melds(arrangement)
            )
            loose = self.cards(sorted(arrangement.deadwood, key=self._order), result.wild_rank)
            self.say(
                f"  {self.names[s]:<22} penalty {result.penalties[s]:>3}   "
                f"{melds}{'  loose: ' + loose if loose else ''}"
            )
        totals = ", ".join(f"{self.names[s]} {g.scores[s]}" for s in range(self.n))
        self.say(f"Totals: {totals}")

    def _game_over(self) -> None:
        g = self.env.game
        results = g.round_results
        scores = [sum(r.penalties[s] for r in results) for s in range(self.n)]
        best = min(scores)
        winners = [self.names[s] for s in range(self.n) if scores[s] == best]
        self.say("")
        self.say(
            "=== Game over. Final scores: "
            + ", ".join(f"{self.names[s]} {scores[s]}" for s in range(self.n))
            + " ==="
        )
        if "you" in winners and len(winners) == 1:
            self.say("You win!")
        elif "you" in winners:
            self.say("You share the win with " + ", ".join(w for w in winners if w != "you") + ".")
        else:
            self.say("Winner: " + ", ".join(winners) + ".")


def parse_answer(
    answer: str, legal: Sequence[int], why: Callable[[int], str] | None = None
) -> int | str:
    """The action a person means by ``answer`` among the numbered ``legal`` actions, or a
    sentence saying what is wrong. Accepts a number (1-based, as listed), or words:
    ``draw``, ``take``, ``discard 7H``, ``go out 7H``, ``go out, discard 7H``, ``out 7H``.
    ``why(action)``: why a move that is not legal is not (the game's reason), said instead of
    the generic sentence."""
    text = answer.strip()
    if text.isdigit():  # also "²" or "٣": str.isdigit() is not only 0-9
        if text.isascii() and len(text) <= 4 and 1 <= int(text) <= len(legal):
            return legal[int(text) - 1]
        return f"There is no move {_shorten(text, 12)}: choose 1..{len(legal)}."
    words = text.replace(",", " ").split()
    if len(words) == 3 and [w.lower() for w in words[:2]] == ["go", "out"]:
        text = "out " + words[2]
    try:
        action = parse_action(text)
    except ValueError as exc:
        if str(exc).startswith("unknown card"):
            return (
                f"{_shorten(words[-1], 20)!r} is not a card: give a rank (A, 2..10, J, Q, "
                "K) and a suit (C, D, H, S), as in 7H or 10S; JK is the joker."
            )
        return (
            f"I do not understand {_shorten(answer, 40)!r}: answer with a move's number "
            f"(1..{len(legal)}) or its words: draw, take, discard 7H, go out 7H."
        )
    if action in legal:
        return action
    if why is not None:
        return why(action)
    return f"'{describe(action)}' is not a legal move now; choose one of the list."


def _shorten(text: str, size: int) -> str:
    """``text``, cut to ``size`` characters (an answer may be a 5,000-digit number)."""
    return text if len(text) <= size else text[:size] + "..."


def _parse(name: str):
    from tt_env.game.cards import parse_card

    return parse_card(name)


def build_parser() -> argparse.ArgumentParser:
    from tt_env.cli import Parser, add_rules_arguments, non_negative_int

    parser = Parser(
        prog="tt-play",
        description="Play Three Thirteen in the terminal against agents. Answer each prompt "
        "with a move's number or its words ('draw', 'take', 'discard 7H', "
        "'go out 7H'); 'quit' or Ctrl-C leaves.",
    )
    parser.add_argument(
        "--opponents",
        "-o",
        default=",".join(DEFAULT_OPPONENTS),
        help="comma-separated agents, one per opponent: random, greedy, "
        "counting, module.path:ClassName or a saved model "
        f"(default: {','.join(DEFAULT_OPPONENTS)})",
    )
    parser.add_argument(
        "--seat",
        type=int,
        default=0,
        help="your seat, 0 to the number of opponents (default: 0); play goes round the seats "
        "in order, and the first dealer is drawn from the seed: the seat after the dealer "
        "plays first (each round the deal passes to the next seat)",
    )
    parser.add_argument(
        "--seed",
        type=non_negative_int,
        default=None,
        help="deal seed, an integer >= 0 (default: random)",
    )
    parser.add_argument(
        "--episode",
        choices=("game", "round"),
        default="game",
        help="a whole game (default) or a single round",
    )
    parser.add_argument("--ascii", action="store_true", help="card names without suit symbols")
    parser.add_argument(
        "--save",
        metavar="PATH",
        help="write the game's record (JSON) to PATH when the game ends or you leave; "
        "tt-replay PATH shows it in a browser",
    )
    add_rules_arguments(parser)
    return parser


def main(
    argv: Sequence[str] | None = None,
    input_fn: Callable[[str], str] = input,
    out: TextIO | None = None,
) -> int:
    """``tt-play``: returns the exit status."""
    from tt_env.cli import one_line, rules_from_args

    parser = build_parser()
    args = parser.parse_args(argv)
    from tt_env.agents import split_specs

    opponents = split_specs(args.opponents)
    out = out or sys.stdout
    if not 1 <= len(opponents) <= 7:
        print("tt-play: error: give 1 to 7 opponents", file=sys.stderr)
        return 2
    try:
        if args.save is not None:
            from tt_env.util.files import check_writable

            check_writable(args.save, "--save")
        rules = rules_from_args(args, 1 + len(opponents))
        game = TerminalGame(
            rules,
            opponents,
            seat=args.seat,
            seed=args.seed,
            episode=args.episode,
            input_fn=input_fn,
            out=out,
            pretty=False if args.ascii else None,
            echo=input_fn is input and not sys.stdin.isatty(),
            save=args.save,
        )
    except (ValueError, ImportError) as exc:
        print(f"tt-play: error: {one_line(exc)}", file=sys.stderr)
        return 2
    from tt_env.game.melds import kernel_module

    kernel_module()  # says so now if the compiled kernel is not built: the game is about to start
    return game.play()


if __name__ == "__main__":
    sys.exit(main())
