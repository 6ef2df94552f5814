"""The search agent's compiled rollouts (tt_env.agents._csearch: the game engine of
``game/core/game.h`` driven by ``rollout.h``) end rounds as :class:`tt_env.game.Game` does: a
round handed to both, every seat playing the expected-penalty rule (``counting``), ends with
the same points in the compiled round as in the Game with the rule's agents. Differential, on
every rule option: redemption's lay-downs and lay-offs, the joker lay-off, several decks and
jokers, a cap on wilds per meld, a false out, the turn cap, and every scoring option.

Greedy rollouts are compared the same way, with greedy agents in every seat. The rounds start
from the deal and from a random later decision of the same round (a drawn upcard, a discard
phase, the final turns after a go-out, with the table as it lies). Two kinds of round are
counted and not compared: a round whose stock ran out in the engine (a rebuild shuffles with
each side's own random generator), and a round where the compiled solver could not certify a
value that a decision or the final score needed (the Game's agents then ask the exact Python
rule and solver; the rollouts play a simpler move or count every card, by design: rare, and
only with several decks). ``TT_ROLLOUT_GAMES=1200 python -m pytest
tests/agents/test_rollouts.py`` runs the check on more games per rule set than the suite has
time for (8, and 2 with a cap on wilds per meld).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers import RULE_OPTIONS

from tt_env.agents import make_agent
from tt_env.agents.search import SearchAgent
from tt_env.env import aec as three_thirteen_v0
from tt_env.game.melds import kernel_of, shape_tuple, solver_config
from tt_env.game.moves import Phase
from tt_env.game.rules import Rules
from tt_env.valuation.heuristics import CompiledExpectedPenalty, ExpectedPenalty
from tt_env.valuation.values import valuation_for

_csearch = pytest.importorskip(
    "tt_env.agents._csearch", reason="the compiled kernels are not built"
)

# every rule option: RULE_OPTIONS and more of redemption, several decks and the joker lay-off
FOLLOWED = dict(RULE_OPTIONS)
FOLLOWED["3p-double-court"] = dict(num_players=3, double_court_rounds=True)
FOLLOWED["2p-two-decks-jokers-layoff"] = dict(num_decks=2, jokers_per_deck=2, joker_layoff=True)
FOLLOWED["4p-redemption-jokers-layoff"] = dict(
    num_players=4, redemption=True, jokers_per_deck=1, joker_layoff=True
)
FOLLOWED["3p-redemption-two-decks-aces"] = dict(
    num_players=3, redemption=True, num_decks=2, aces_high=True, court_values=True
)


def kernels(rules: Rules, wild_rank: int) -> dict:
    """The round's kernels as Searcher.play takes them."""
    free = kernel_of(solver_config(rules, wild_rank, 0)).c if rules.joker_layoff else None
    return dict(kernel=kernel_of(solver_config(rules, wild_rank, None)).c, joker_kernel=free)


def table_arrays(table) -> dict:
    """The melds on a Game's table as Searcher.play takes them."""
    rows = [(m.seat, *shape_tuple(m.shape)) for m in table]
    cards = [int(c) for m in table for c in m.cards]
    return dict(
        melds=np.array(rows, np.int64).reshape(-1, 8), table_cards=np.array(cards, np.int64)
    )


def round_state(game) -> dict:
    """The round in play as Searcher.play takes it (hidden cards included)."""
    n = game.num_players
    return dict(
        **table_arrays(game.table),
        hands=np.array(game.all_hands(), np.uint8).reshape(n, 53),
        known=np.array([game.known_cards(s) for s in range(n)], np.int64),
        stock=np.array(game.stock_cards(), np.int64),
        pile=np.array([int(c) for c in game.discard_pile], np.int64),
        current=game.current,
        draw_phase=game.phase == Phase.DRAW,
        drawn_upcard=-1 if game.drawn_upcard is None else int(game.drawn_upcard),
        went_out=-1 if game.went_out is None else game.went_out,
        turns=game.turns,
    )


def compare_rounds(rules: Rules, seeds, later: float = 0.15, policy: str = "counting") -> dict:
    """Play a game per seed with ``policy`` (``counting`` or ``greedy``) in every seat; hand
    each round to the compiled rollouts at its deal and at one later decision, and compare the
    penalties at its end."""
    n = rules.num_players
    searcher = SearchAgent(n, rules, rollout=policy, seed=0)._new_searcher()
    rng = np.random.default_rng(len(seeds))
    certify = CompiledExpectedPenalty(ExpectedPenalty(), rules)  # counting's compiled decision
    counts = {"rounds": 0, "compared": 0, "rebuilt": 0, "uncertified": 0}
    for seed in seeds:
        env = three_thirteen_v0.raw_env(rules=rules)
        env.reset(seed=seed)
        game = env.game
        agents = {a: make_agent(policy, n, rules, seed) for a in env.agents}
        pending: list[tuple[np.ndarray, int, dict]] = []  # (C penalties, round, start) to check
        round_index, started = -1, False
        flags = {"rebuilt": False, "uncertified": False}
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if game.round_index != round_index:  # a new round: check the one that ended
                if round_index >= 0:
                    _check(game, round_index, pending, flags, counts)
                round_index, started, pending = game.round_index, False, []
                flags = {"rebuilt": False, "uncertified": False}
            if not started or (len(pending) < 2 and rng.random() < later):
                state = round_state(game)
                out = np.zeros(n, np.int64)
                searcher.play(**kernels(rules, game.wild_rank), **state, out=out)
                pending.append((out, round_index, state))
                started = True
            if game.phase == Phase.DRAW and game.stock_size == 0:
                flags["rebuilt"] = True  # a stock draw now rebuilds the stock (or a take follows)
            if certify.act(obs["observation"], obs["action_mask"]) is None:
                flags["uncertified"] = True
            env.step(agents[agent].act(obs["observation"], obs["action_mask"]))
        _check(game, round_index, pending, flags, counts)
    return counts


def _check(game, round_index, pending, flags, counts) -> None:
    counts["rounds"] += 1
    result = game.round_results[round_index]
    kernel = kernel_of(solver_config(game.rules, result.wild_rank, None))
    for seat, arrangement in enumerate(result.arrangements):
        held = np.zeros(53, np.uint8)
        for card in [c for meld in arrangement.melds for c in meld] + list(arrangement.deadwood):
            held[int(card)] += 1
        if seat != result.went_out and kernel.value(bytes(held)) < 0:
            flags["uncertified"] = True
    for flag in ("rebuilt", "uncertified"):
        if flags[flag]:
            counts[flag] += 1
            return
    for out, _, state in pending:
        counts["compared"] += 1
        assert out.tolist() == list(result.deadwood_points), (
            f"round {round_index} ({result.ended_by}) from {state}: compiled {out.tolist()}, "
            f"engine {list(result.deadwood_points)}"
        )


@pytest.mark.parametrize("name", FOLLOWED)
def test_the_rollouts_end_rounds_as_the_engine_does(name):
    rules = Rules(**FOLLOWED[name])
    # a cap on wilds per meld is solved by a slow exact search (the search agent leaves such
    # rules to the expected-penalty rule): fewer games
    default = "2" if rules.max_wilds_per_meld is not None else "8"
    counts = compare_rounds(rules, range(int(os.environ.get("TT_ROLLOUT_GAMES", default))))
    skipped = counts["rebuilt"] + counts["uncertified"]
    assert counts["compared"] >= counts["rounds"] - skipped  # the deal, often a later start too
    assert skipped <= counts["rounds"] // 20


@pytest.mark.parametrize("name", [n for n in FOLLOWED if "max_wilds_per_meld" not in FOLLOWED[n]])
def test_greedy_rollouts_play_as_the_greedy_agent(name):
    """Every seat greedy: the rollouts make GreedyAgent's moves (valuation/decisions.h), so a
    round ends with the same points as in the Game with greedy agents. With jokers or an
    unused-wild penalty greedy takes a discard to throw a wild card it cannot meld, a move
    that a rule dropping only natural cards would miss."""
    rules = Rules(**FOLLOWED[name])
    counts = compare_rounds(rules, range(4), policy="greedy")
    skipped = counts["rebuilt"] + counts["uncertified"]
    assert counts["compared"] >= counts["rounds"] - skipped
    assert skipped <= counts["rounds"] // 20


@pytest.mark.parametrize("layoff", [False, True])
def test_a_leftover_joker_costs_nothing_with_the_joker_layoff(layoff):
    """Seat 1 went out (its run is on the table); seat 0 took a joker on its final turn (it may
    not go straight back), so its discard ends the round with a joker it cannot meld: with the
    joker lay-off the compiled round scores it as the engine's solver does with a joker penalty
    of 0, else at its full penalty (the lay-off is rare in whole games, so this is checked here
    on its own)."""
    from tt_env.game.cards import parse_cards
    from tt_env.game.melds import solve
    from tt_env.game.moves import TableMeld

    rules = Rules(jokers_per_deck=2, joker_layoff=layoff)
    wild = 7
    hands = np.zeros((2, 53), np.uint8)
    for card in parse_cards("JK 2C 9H KD"):
        hands[0, int(card)] += 1
    known = np.zeros((2, 53), np.int64)
    known[0, 52] = 1  # the joker, taken from the pile
    run = parse_cards("3S 4S 5S")
    table = [TableMeld(seat=1, cards=tuple(run), shape=solve(run, wild, rules).shapes[0])]
    free = np.flatnonzero(hands[0] == 0)
    free = free[~np.isin(free, [int(c) for c in run])].astype(np.int64)
    searcher = SearchAgent(2, rules, rollout="counting", seed=0)._new_searcher()
    out = np.full(2, -1, np.int64)
    state = dict(
        **table_arrays(table),
        hands=hands,
        known=known,
        stock=free[:10],
        pile=free[10:11],
        current=0,
        draw_phase=False,
        drawn_upcard=52,
        went_out=1,
        turns=5,
    )
    searcher.play(**kernels(rules, wild), **state, out=out)
    left = parse_cards("JK 2C 9H")  # the king goes: the joker may not
    expected = solve(left, wild, rules, joker_penalty=0 if layoff else None).points
    assert out.tolist() == [expected, 0]
    assert expected == (11 if layoff else 11 + rules.penalty_table(wild)[52])


def test_a_final_turn_lays_off_onto_the_table_with_redemption():
    """Seat 1 went out with a run of spades (the 3s round); seat 0 drew the AH on its final
    turn and greedy discards the KD, which leaves the 7S and 8S, which extend the run, and the
    ace: with redemption the rollout lays the two off and scores the ace alone, as the Game does
    with the same discard; without redemption all three count."""
    from tt_env.game import Game

    for redemption, points in ((False, 16), (True, 1)):
        rules = Rules(redemption=redemption)
        game = Game(rules, seed=3)
        game.arrange(
            ["7S 8S KD", ""],
            stock="2H AH",
            discard_pile="KH",
            current=0,
            table=[(1, "4S 5S 6S")],
            went_out=1,
            turns=9,
        )
        game.apply("draw stock")  # the AH
        state = round_state(game)
        searcher = SearchAgent(2, rules, rollout="greedy", seed=0)._new_searcher()
        out = np.full(2, -1, np.int64)
        searcher.play(**kernels(rules, game.wild_rank), **state, out=out)
        game.apply("discard KD")  # the round's last move
        assert list(game.round_results[-1].deadwood_points) == [points, 0]
        assert out.tolist() == [points, 0]


def test_play_refuses_a_round_that_does_not_add_up():
    rules = Rules()
    searcher = SearchAgent(2, rules, rollout="counting", seed=0)._new_searcher()
    k = kernel_of(solver_config(rules, 3, None)).c
    good = dict(
        joker_kernel=None,
        melds=np.zeros((0, 8), np.int64),
        table_cards=np.zeros(0, np.int64),
        hands=np.zeros((2, 53), np.uint8),
        known=np.zeros((2, 53), np.int64),
        stock=np.array([1, 2], np.int64),
        pile=np.array([5], np.int64),
        current=0,
        draw_phase=True,
        drawn_upcard=-1,
        went_out=-1,
        turns=0,
    )
    out = np.zeros(2, np.int64)
    searcher.play(k, **good, out=out)
    for change, words in [
        (dict(stock=np.array([1, 1], np.int64)), "2 copies of card kind 1, more than the deck"),
        (dict(pile=np.array([53], np.int64)), "pile"),
        (dict(current=2), "current"),
        (dict(drawn_upcard=5), "drawn_upcard"),
        (dict(hands=np.zeros((3, 53), np.uint8)), "hands"),
        (dict(turns=-1), "turns"),
        (dict(melds=np.array([[0, 1, 0, 0, 3, 5, 0, 3]]), table_cards=np.array([1, 2])), "3"),
        (dict(melds=np.array([[2, 1, 0, 0, 3, 5, 0, 3]]), table_cards=np.array([2, 3, 4])), "seat"),
        (dict(melds=np.array([[0, 3, 0, 0, 3, 5, 0, 3]]), table_cards=np.array([2, 3, 4])), "kind"),
        (
            dict(melds=np.array([[0, 1, 0, 0, 3, 5, 4, 3]]), table_cards=np.array([2, 3, 4])),
            "wilds",
        ),
        (
            dict(melds=np.array([[0, 1, 0, 0, 3, 5, 0, 3]]), table_cards=np.array([1, 2, 3])),
            "kind 1",
        ),
        (dict(joker_kernel=k), "joker"),
        (dict(melds=np.zeros((129, 8), np.int64)), "129 melds"),
        (dict(table_cards=np.zeros(2000, np.int64)), "2000 cards"),
    ]:
        with pytest.raises(ValueError, match=words):
            searcher.play(k, **{**good, **change}, out=out)
    with pytest.raises(TypeError, match="out"):
        searcher.play(k, **good, out=np.zeros(2, np.float64))
    with pytest.raises(TypeError, match="melds"):
        searcher.play(k, **{**good, "melds": np.zeros((0, 7), np.int32)}, out=out)
    layoff = Rules(jokers_per_deck=1, joker_layoff=True)
    s = SearchAgent(2, layoff, rollout="counting", seed=0)._new_searcher()
    with pytest.raises(ValueError, match="joker_kernel"):
        s.play(kernel_of(solver_config(layoff, 3, None)).c, **good, out=out)
    with pytest.raises(ValueError, match="joker penalty of 0"):
        s.play(**{**good, **kernels(layoff, 3), "joker_kernel": k}, out=out)


def test_play_survives_random_rounds():
    """Random counts, card kinds and melds on the table, in range and far out of it: each call
    plays (penalties of 0 or more) or raises a clean ValueError; the process survives."""
    rng = np.random.default_rng(5)
    rules = Rules(num_players=3, num_decks=2, jokers_per_deck=1, joker_layoff=True, redemption=True)
    searcher = SearchAgent(3, rules, rollout="counting", seed=0)._new_searcher()
    odd = [-(2**62), -1, 0, 1, 2, 3, 13, 14, 52, 53, 255, 1024, 2**62]
    played = refused = 0
    for _ in range(300):
        cards = np.repeat(np.arange(53), valuation_for(rules).deck)
        rng.shuffle(cards)
        hands = np.zeros((3, 53), np.uint8)
        for s in range(3):
            np.add.at(hands[s], cards[s * 7 : s * 7 + 7], 1)
        melds = np.array(
            [
                [
                    rng.integers(0, 3),
                    rng.integers(0, 3),
                    rng.integers(0, 14),
                    rng.integers(-1, 4),
                    rng.integers(0, 15),
                    rng.integers(0, 15),
                    rng.integers(0, 3),
                    3,
                ]
                for _ in range(2)
            ],
            np.int64,
        )
        state = dict(
            hands=hands,
            known=np.zeros((3, 53), np.int64),
            stock=cards[21:80].astype(np.int64),
            pile=cards[80:81].astype(np.int64),
            melds=melds,
            table_cards=cards[81:87].astype(np.int64),
            current=int(rng.integers(0, 3)),
            draw_phase=bool(rng.random() < 0.5),
            drawn_upcard=-1,
            went_out=int(rng.integers(-1, 3)),
            turns=int(rng.integers(0, 20)),
        )
        for _ in range(int(rng.integers(0, 3))):
            name = rng.choice(
                [
                    "hands",
                    "known",
                    "stock",
                    "pile",
                    "melds",
                    "table_cards",
                    "current",
                    "turns",
                    "drawn_upcard",
                ]
            )
            value = rng.choice(odd)
            if isinstance(state[name], np.ndarray):
                a = state[name].copy()
                if a.size:
                    a.flat[rng.integers(0, a.size)] = value % 256 if a.dtype == np.uint8 else value
                state[name] = a
            else:
                state[name] = int(value)
        out = np.full(3, -1, np.int64)
        try:
            searcher.play(**kernels(rules, int(rng.integers(1, 14))), **state, out=out)
        except ValueError:
            refused += 1
        else:
            assert (out >= 0).all()
            played += 1
    assert played > 100 and refused > 100
