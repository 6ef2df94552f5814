"""The text protocol (tt_env.text): every legal move of 100,000 random positions, over every rule
option and both phases, parses back from its number, its words and JSON; bad answers get an
error that says why; the rules text follows every option of Rules."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pytest
from helpers import RULE_OPTIONS  # every rule option, each set at least once

from tt_env import three_thirteen_v0
from tt_env.encoding.actions import GO_OUT_ACTION_BASE, describe
from tt_env.game.rules import FIELD_NAMES, Rules
from tt_env.text import (
    WORDS_INSTRUCTIONS,
    AnswerError,
    RecentMoves,
    decision_prompt,
    legal_moves,
    parse_answer,
    rules_text,
)


def positions(options: dict, count: int, seed: int):
    """``count`` positions of random play (going out when it can, mostly): (mask, obs, rules)."""
    rng = np.random.default_rng(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env = three_thirteen_v0.raw_env(**options, episode="round")
        env.reset(seed=seed)
        for _ in range(count):
            agent = env.agent_selection
            if env.terminations[agent]:
                env.reset()
                agent = env.agent_selection
            obs = env.observe(agent)
            mask = obs["action_mask"]
            yield mask, obs["observation"], env.rules
            legal = np.flatnonzero(mask)
            outs = legal[legal >= GO_OUT_ACTION_BASE]
            pool = outs if outs.size and rng.random() < 0.8 else legal
            env.step(int(pool[rng.integers(pool.size)]))


def test_every_legal_move_of_100000_positions_parses_back_from_number_words_and_json():
    per_set = 100_000 // len(RULE_OPTIONS) + 1
    seen = 0
    masks: set[bytes] = set()
    phases = set()
    for i, options in enumerate(RULE_OPTIONS.values()):
        for mask, _, _ in positions(options, per_set, seed=i):
            seen += 1
            masks.add(mask.tobytes())
            phases.add("draw" if mask[0] or mask[1] else "discard")
    assert seen >= 100_000 and phases == {"draw", "discard"}
    # parse_answer(text, legal) depends on the legal moves only: each distinct set is checked
    # by number and by words; JSON and the decorated forms on every tenth set.
    moves_checked = 0
    for i, key in enumerate(sorted(masks)):
        mask = np.frombuffer(key, np.int8)
        for number, action, words in legal_moves(mask):
            texts = [str(number), words]
            if i % 10 == 0:
                texts += [
                    json.dumps({"move": number}),
                    json.dumps({"move": words}),
                    f" {number}. ",
                    words.upper(),
                    describe(action, pretty=True),
                    f"{number}. {words}",
                    f'I will play this.\n```json\n{{"move": {number}}}\n```',
                    f"Thinking about it...\nMove: {words}",
                ]
            for text in texts:
                assert parse_answer(text, mask) == action, (text, words)
            moves_checked += 1
    assert moves_checked > 1000


@pytest.mark.parametrize(
    "answer, message",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("I don't know", "is not a move"),
        ("Let me think.\nI like it.", "could not read a move"),
        ("0", "no legal move number 0"),
        ("99", "no legal move number 99"),
        ("discard 7H", "not a legal move now"),
        ("go out, discard 2C", "not a legal move now"),
        ('{"move": true}', '"move" must be'),
        ('{"move": [1]}', '"move" must be'),
        ('{"move": 42}', "no legal move number 42"),
        ("1. take discard", "gives move 1"),
        (None, "not text"),
    ],
)
def test_a_bad_answer_gets_an_error_that_says_why(answer, message):
    env = three_thirteen_v0.raw_env()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert mask[0] and mask[1]  # draw stock (1), take discard (2)
    with pytest.raises(AnswerError, match=message) as caught:
        parse_answer(answer, mask)
    assert "\n" not in str(caught.value)


def test_parse_answer_takes_a_list_of_actions_too():
    assert parse_answer("2", [5, 1, 60]) == 5
    assert parse_answer("take discard", [1, 5]) == 1
    with pytest.raises(AnswerError, match="no move is legal"):
        parse_answer("1", np.zeros(108, np.int8))


def test_the_rules_text_follows_every_option():
    base = Rules(num_players=2, jokers_per_deck=1)
    changes = {
        "num_players": 3,
        "num_decks": 3,
        "max_wilds_per_meld": 1,
        "unused_wild_penalty": 15,
        "aces_high": True,
        "court_values": True,
        "extra_rounds": 1,
        "there_and_back": True,
        "jokers_per_deck": 2,
        "joker_layoff": True,
        "redemption": True,
        "double_court_rounds": True,
        "all_wild_melds": True,
        "false_out_penalty": 25,
        "discard_drawn_upcard": True,
        "max_turns_per_round": 33,
    }
    assert set(changes) == set(FIELD_NAMES)
    text = rules_text(base)
    for name, value in changes.items():
        changed = rules_text(dataclasses.replace(base, **{name: value}))
        assert changed != text, f"rules_text ignores {name}"
    assert "33 turns" in rules_text(base.replace(max_turns_per_round=33))
    assert "25 points" in rules_text(base.replace(false_out_penalty=25))


def test_the_prompt_shows_the_position_and_numbers_the_legal_moves():
    env = three_thirteen_v0.raw_env(num_players=3)
    env.reset(seed=5)
    agent = env.agent_selection
    obs = env.observe(agent)
    prompt = decision_prompt(obs["observation"], obs["action_mask"], env.rules)
    game = env.game
    hand = " ".join(str(c) for c in sorted(game.hand(game.current)))
    assert f"Your hand (3 cards): {hand}" in prompt
    assert f"Top of the discard pile: {game.top_discard}" in prompt
    assert "Round 1 of 11: 3 cards dealt; 3s are wild" in prompt
    assert "  1. draw stock\n  2. take discard" in prompt
    assert f"Stock: {game.stock_size} cards" in prompt
    with pytest.raises(ValueError, match="no move"):
        decision_prompt(obs["observation"], np.zeros(108, np.int8), env.rules)


def test_recent_moves_name_the_public_events_since_the_last_decision():
    env = three_thirteen_v0.raw_env(num_players=2)
    env.reset(seed=1)
    recent = RecentMoves(2)
    me = env.agent_selection
    assert recent.update(env.observe(me)["observation"]) == []
    env.step(0)  # draw stock
    hand = env.game.hand(env.game.current)
    env.step(2 + int(hand[0]))  # discard it
    env.step(1)  # the other player takes it
    taken = env.game.top_discard
    other_hand = env.game.hand(env.game.current)
    discard = next(c for c in other_hand if c != hand[0])
    env.step(2 + int(discard))
    events = recent.update(env.observe(me)["observation"])
    assert (
        events[0] == f"the next player (plays right after you) took {hand[0]} from the discard pile"
    )
    assert f"cards discarded (any order): {discard}" in events[1]
    del taken


def test_a_prompt_without_the_legal_moves_reads_moves_in_words_only():
    checked = 0
    for mask, obs, rules in positions({"num_players": 3}, 300, seed=8):
        prompt = decision_prompt(obs, mask, rules, listed=False)
        assert "Legal moves" not in prompt and prompt.endswith(WORDS_INSTRUCTIONS)
        assert prompt.split("\n\nThe position:\n")[0] in decision_prompt(obs, mask, rules)
        for _, action, words in legal_moves(mask):
            assert parse_answer(f"I think so.\nMove: {words}", mask, numbered=False) == action
            checked += 1
        for answer in ("1", '{"move": 1}', "Move: 1"):
            with pytest.raises(AnswerError) as caught:
                parse_answer(answer, mask, numbered=False)
            assert "1." not in str(caught.value) and "in words" in str(caught.value)
    assert checked > 300


def test_the_prompt_names_the_card_just_drawn_and_where_from():
    env = three_thirteen_v0.raw_env(num_players=2)
    env.reset(seed=3)
    recent = RecentMoves(2)
    me = env.agent_selection
    recent.update(env.observe(me)["observation"])
    before = env.game.hand(env.game.current)
    env.step(0)  # draw stock
    drawn = next(c for c in env.game.hand(env.game.current) if before.count(c) == 0)
    obs = env.observe(me)
    recent.update(obs["observation"])
    assert recent.drawn == int(drawn)
    prompt = decision_prompt(obs["observation"], obs["action_mask"], env.rules, drawn=recent.drawn)
    assert (
        f"It is your turn to discard (or go out). You drew {drawn} from the stock this turn."
        in (prompt)
    )
    # without the history, the prompt says where the card came from
    alone = decision_prompt(obs["observation"], obs["action_mask"], env.rules)
    assert "You drew a card from the stock this turn." in alone
    env.step(2 + int(drawn))  # discard it; the other seat takes it
    other = RecentMoves(2)
    other.update(env.observe(env.agent_selection)["observation"])
    env.step(1)
    obs = env.observe(env.agent_selection)
    other.update(obs["observation"])
    assert other.drawn is None
    prompt = decision_prompt(obs["observation"], obs["action_mask"], env.rules, drawn=other.drawn)
    assert f"You took {drawn} from the discard pile this turn." in prompt


def test_the_prompt_counts_one_card_in_the_singular():
    for mask, obs, rules in positions({"num_players": 2}, 400, seed=4):
        prompt = decision_prompt(obs, mask, rules)
        assert "(1 cards" not in prompt and " 1 cards" not in prompt
        if "below it (1 card, any order)" in prompt:
            break
    else:
        raise AssertionError("no position with one card below the top discard")


def test_the_rules_speak_of_identical_cards_only_with_several_decks():
    one, two = rules_text(Rules(num_players=2)), rules_text(Rules(num_players=5))
    assert Rules(num_players=5).decks == 2
    assert "copy" not in one and "identical" not in one and "repeat a suit" not in one
    assert "may not be discarded in the same turn." in one
    assert "a set may repeat a suit (7H 7H 7S is a set)" in two
    assert "unless you hold an identical card from before" in two
    assert "copy" not in two


def test_the_manual_shows_the_prompt_the_code_prints(capsys):
    from pathlib import Path

    from tt_env.text.__main__ import main

    doc = (Path(__file__).resolve().parents[2] / "docs" / "llm.md").read_text(encoding="utf-8")
    block = doc.split("<!-- prompt -->\n```text\n", 1)[1].split("\n```\n<!-- /prompt -->", 1)[0]
    command, shown = block.split("\n", 1)
    assert command == "$ python -m tt_env.text --seed 7 --moves 9"
    assert main(["--seed", "7", "--moves", "9"]) == 0
    assert capsys.readouterr().out.rstrip("\n") == shown
    assert f"```text\n{WORDS_INSTRUCTIONS}\n```" in doc  # the ending of legal_moves=hidden


def test_the_command_s_help_is_whole_and_its_numbers_are_checked(capsys):
    from tt_env.text.__main__ import main

    with pytest.raises(SystemExit) as done:
        main(["--help"])
    assert done.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert (
        "a decision of a seeded game of Three Thirteen (after --moves random legal moves), "
        "and with --answer how an answer is read." in out
    )
    for argv, message in [
        (["--moves", "-3"], "argument --moves: expected an integer >= 0, got -3"),
        (["--seed", "-1"], "argument --seed: expected an integer >= 0, got -1"),
        (["--players", "9"], "num_players must be 2..8, got 9"),
        (["--moves", "100000"], "argument --moves: the game of seed 0 ends after "),
    ]:
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 2
        err = capsys.readouterr().err
        assert err.startswith(f"python -m tt_env.text: error: {message}") and err.count("\n") == 1
