"""tt-play: a scripted person plays against agents; bad input, quitting, Ctrl-C and end of input."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from tt_env import play

ROOT = Path(__file__).resolve().parents[2]
SHORT = ["--episode", "round", "--max-turns-per-round", "6", "--seed", "3"]


def scripted(lines):
    """An input function that answers from ``lines``, then raises EOFError like input()."""
    answers = iter(lines)
    asked = []

    def input_fn(prompt: str) -> str:
        asked.append(prompt)
        try:
            return next(answers)
        except StopIteration:
            raise EOFError from None

    input_fn.asked = asked
    return input_fn


def run(argv, lines):
    out = io.StringIO()
    fn = scripted(lines)
    status = play.main(argv, input_fn=fn, out=out)
    return status, out.getvalue(), fn.asked


def test_a_round_to_the_end_with_numbers_and_words():
    answers = ["help", "", "nonsense", "99", "discard 7H", "draw stock"] + ["1"] * 40
    status, text, asked = run(SHORT + ["--opponents", "greedy"], answers)
    assert status == 0
    assert "Your hand" in text and "Top discard" in text and "Your moves:" in text
    assert "1) draw stock" in text
    assert "I do not understand 'nonsense'" in text
    assert "There is no move 99" in text
    assert "You must draw first" in text  # 'discard 7H' in the draw phase
    assert "Round 1 over" in text and "Game over" in text
    assert "End of input" not in text


def test_an_illegal_move_says_why_and_a_stock_draw_names_its_card():
    answers = ["discard KS", "draw", "draw", "discard KS", "go out 8C", "1", "take", "discard JH"]
    status, text, _ = run(SHORT + ["--ascii"], answers + ["quit"])
    assert status == 0
    said = text.splitlines()
    # seed 3: the hand is 8C 2D 7D, the top discard JS; the stock's top card is 9H
    assert "Your hand (3): loose: 8C 2D 7D   deadwood 17" in said
    for line in [
        "You must draw first: 'draw' (from the stock) or 'take' (JS).",
        "You draw 9H from the stock.",
        "You have already drawn this turn: discard a card, or go out.",
        "You do not hold KS.",
        "You cannot go out discarding 8C: the rest of your hand does not all meld.",
        "You take JH from the discard pile.",
        "You took JH from the discard pile: it may not be discarded this turn.",
    ]:
        assert line in said, line
    assert "not a legal move now" not in text


def test_the_turn_cap_and_who_plays_first_are_explained(capsys):
    status, text, _ = run(SHORT + ["--ascii"], ["quit"])
    assert "counting (seat 1) dealt, you play first. ===" in text
    assert "| turn 1 of 6" in text
    assert "if nobody has gone out by turn 6, the round ends there and every hand is scored" in (
        text
    )
    with pytest.raises(SystemExit):
        play.main(["--help"])
    helptext = " ".join(capsys.readouterr().out.split())
    assert "0 plays first" not in helptext
    assert "the first dealer is drawn from the seed: the seat after the dealer plays first" in (
        helptext
    )


def test_hand_is_shown_with_its_melds():
    status, text, _ = run(SHORT + ["--opponents", "random", "--ascii"], ["1"] * 40)
    assert status == 0
    hand_lines = [line for line in text.splitlines() if line.startswith("Your hand")]
    assert hand_lines and all("deadwood" in line for line in hand_lines)
    assert "♥" not in text  # --ascii


def test_three_players_and_a_seat():
    status, text, _ = run(SHORT + ["--opponents", "random,counting", "--seat", "2"], ["1"] * 60)
    assert status == 0
    assert "counting (seat 1)" in text and "You are seat 2" in text


def test_quit_eof_and_ctrl_c_leave_cleanly():
    status, text, _ = run(SHORT, ["quit"])
    assert status == 0 and "You left the game" in text
    status, text, _ = run(SHORT, ["1"])
    assert status == 0 and "End of input" in text

    def interrupt(prompt):
        raise KeyboardInterrupt

    out = io.StringIO()
    assert play.main(SHORT, input_fn=interrupt, out=out) == 130
    assert "Interrupted" in out.getvalue()


def test_answers_in_words_and_numbers():
    from tt_env.encoding.actions import discard_action, go_out_action
    from tt_env.game.cards import parse_card

    legal = [
        discard_action(parse_card("7H")),
        discard_action(parse_card("TS")),
        go_out_action(parse_card("TS")),
    ]
    assert play.parse_answer("2", legal) == legal[1]
    assert play.parse_answer("discard 7♥", legal) == legal[0]
    assert play.parse_answer("discard 10s", legal) == legal[1]
    assert play.parse_answer("go out TS", legal) == legal[2]
    assert play.parse_answer("go out, discard TS", legal) == legal[2]
    assert play.parse_answer("out 10S", legal) == legal[2]
    assert "no move 4" in play.parse_answer("4", legal)
    assert "not a legal move" in play.parse_answer("draw", legal)
    assert play.parse_answer("discard 7X", legal).startswith("'7X' is not a card")


def test_a_bad_answer_is_said_once():
    message = play.parse_answer("nonsense", [0, 1])
    assert message.count("nonsense") == 1 and "unknown move" not in message
    assert "1..2" in message and "discard 7H" in message


def test_runs_are_shown_in_order_with_wilds_where_they_stand():
    from tt_env.game.cards import parse_cards
    from tt_env.game.rules import Rules

    game = play.TerminalGame(
        Rules(aces_high=True), ["random"], seed=0, pretty=False, out=io.StringIO()
    )
    assert game.arranged(parse_cards("AH KH QH"), 3) == ("[QH KH AH]", 0)
    assert game.arranged(parse_cards("6H 4H 9S 2C"), 9)[0] == "[4H 9S* 6H]  loose: 2C"


def test_bad_options(capsys):
    assert (
        play.main(["--opponents", "nobody"] + SHORT, input_fn=scripted([]), out=io.StringIO()) == 2
    )
    error = capsys.readouterr().err
    assert "unknown agent 'nobody'" in error and "distilled_2p_standard" in error  # models by name


def test_tt_play_with_scripted_stdin():
    cmd = [sys.executable, "-m", "tt_env.play", *SHORT, "--opponents", "greedy"]
    done = subprocess.run(
        cmd, cwd=ROOT, input="take\n" + "1\n" * 40, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "Game over" in done.stdout
    assert "Traceback" not in done.stderr


def test_the_wild_legend_shows_with_a_wild_card_and_deadwood_is_explained_once():
    seen = {True: 0, False: 0}
    for seed in range(4):
        argv = ["--episode", "round", "--max-turns-per-round", "8", "--seed", str(seed)]
        status, text, _ = run(argv + ["--opponents", "random", "--ascii"], ["1"] * 60)
        assert status == 0
        assert text.count("(Deadwood: the penalty points of the cards left out of melds") == 1
        screens = [s.split("Your moves:")[0] for s in text.split("\nRound ")[1:]]
        for screen in screens:
            legend = "(* wild)" in screen
            assert legend == ("*" in screen.replace("(* wild)", "")), screen
            seen[legend] += 1
    assert seen[True] and seen[False], seen
