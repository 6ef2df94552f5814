"""The compiled kernel (solver.h, the extension tt_env.game.melds._csolver) against the Python
solver and the brute force, and its bindings against bad input.

The kernel serves every rule set (a cap on wilds per meld by its exact search, redemption's
lay-offs by the same search with the table); these tests compare it with the Python solver
(itself checked against tests/brute_force.py in test_melds.py, on both paths) on many random
hands, including several decks, jokers, aces high and hands far larger than a deal,
and check the cases where it must hand over to the exact search.
"""

import numpy as np
import pytest
from brute_force import brute_force_points

from tt_env.game.cards import JOKER, Card, make_deck, parse_cards, to_counts
from tt_env.game.going_out import go_out_discards
from tt_env.game.melds import (
    MeldShape,
    _kernel,
    clear_cache,
    discard_penalties,
    draw_penalties,
    is_meld,
    lay_off,
    min_penalty,
    shape_tuple,
    solve,
)
from tt_env.game.melds._config import _config
from tt_env.game.melds._layoff import _compiled_lay_off, _LayOffSearch
from tt_env.game.rules import Rules

native = _kernel.kernel_module()
pytestmark = pytest.mark.skipif(native is None, reason="the compiled kernel is not built")

NO_CAP_RULES = {
    "standard": Rules(),
    "two-decks": Rules(num_decks=2),
    "three-decks": Rules(num_decks=3),
    "jokers": Rules(jokers_per_deck=2),
    "two-decks-jokers-all-wild": Rules(num_decks=2, jokers_per_deck=2, all_wild_melds=True),
    "aces-high": Rules(aces_high=True),
    "aces-high-two-decks": Rules(aces_high=True, num_decks=2, jokers_per_deck=1),
    "court-unused-15": Rules(court_values=True, unused_wild_penalty=15, num_decks=2),
}


def python_values(hands, wild_rank, rules, joker_penalty=None):
    """min_penalty of each hand by the Python solver alone."""
    _kernel.set_enabled(False)
    clear_cache(tables=True)
    try:
        return [min_penalty(h, wild_rank, rules, joker_penalty) for h in hands]
    finally:
        _kernel.set_enabled(True)
        clear_cache(tables=True)


def random_hands(rules, n, sizes, seed):
    rng = np.random.default_rng(seed)
    deck = make_deck(rules.decks, rules.jokers_per_deck)
    return [
        to_counts(deck[i] for i in rng.permutation(len(deck))[: rng.choice(sizes)])
        for _ in range(n)
    ]


def kernel_of(rules, wild_rank, joker_penalty=None):
    return _kernel.kernel_for(_config(rules, wild_rank, joker_penalty))


@pytest.mark.parametrize("name", NO_CAP_RULES)
def test_kernel_equals_python_solver(name):
    rules = NO_CAP_RULES[name]
    for wild_rank in (1, 3, 7, 13):
        hands = random_hands(rules, 300, [3, 7, 11, 13, 14, 15, 16, 20], seed=wild_rank)
        kernel = kernel_of(rules, wild_rank)
        got = [kernel.value(bytes(h)) for h in hands]
        expected = python_values(hands, wild_rank, rules)
        for h, g, e in zip(hands, got, expected):
            assert g in (e, -1), (name, wild_rank, h)
        assert sum(g == -1 for g in got) <= 3  # handing over is rare


ONE_DECK_RULES = {
    "standard": Rules(),
    "jokers-all-wild": Rules(jokers_per_deck=2, all_wild_melds=True),
    "aces-high-jokers": Rules(aces_high=True, jokers_per_deck=1),
    "court-unused-15": Rules(court_values=True, unused_wild_penalty=15, jokers_per_deck=3),
}


def plan_of(kernel, key, lex):
    """The value of ``key`` in mode ``lex`` and what the mode leaves in the workspace: the
    costliest deadwood card, and with lex 2 the plan (sets, the suits' runs, the deadwood)."""
    value = kernel.c.evaluate(key, lex)
    ws = kernel.ws
    if lex & 3 == 0 or value < 0:
        return value
    if lex & 3 == 1:
        return value, int(ws["md"])
    n = int(ws["nsets"])
    return (
        value,
        int(ws["md"]),
        int(ws["set_wilds"]),
        ws["sets"][:n].tolist(),
        ws["suits"].tolist(),
        ws["dead"].tolist(),
    )


def test_the_workspace_fields_lie_apart_inside_it():
    # WORKSPACE (from the C struct) names each result field with its offset and shape: no two
    # overlap, and all lie inside the WS_SIZE int64 entries Python allocates.
    end = 0
    for name, offset, shape in sorted(native.WORKSPACE, key=lambda field: field[1]):
        assert offset % 8 == 0 and offset >= end, name
        end = offset + 8 * int(np.prod(shape))
    assert 0 < end <= 8 * native.WS_SIZE
    assert {"md", "unsure", "nsets", "sets", "suits", "dead"} <= set(
        _kernel.workspace_dtype(native).names
    )


def test_the_workspace_names_the_plan():
    # The plan of a hand, read from the workspace by name (the struct's fields, laid out as the
    # extension says): a set of threes, a run of clubs, and KH 9D left as deadwood.
    kernel = kernel_of(Rules(), 2)
    value = kernel.plan(bytes(to_counts(parse_cards("3H 3S 3D 5C 6C 7C KH 9D"))))
    ws = kernel.ws
    assert value == 19
    assert int(ws["md"]) == 10  # the king
    assert (int(ws["nsets"]), int(ws["set_wilds"])) == (1, 0)
    take = sum(1 << 3 * card.suit_index for card in parse_cards("3H 3S 3D"))
    assert ws["sets"][0].tolist() == [2, take]  # the threes' position, one card of three suits
    assert ws["dead"].tolist() == list(to_counts(parse_cards("KH 9D")))
    assert (int(ws["cards"]), int(ws["ndead"]), int(ws["all_nat"])) == (8, 2, 46)
    kernel.discard_values(bytes(to_counts(parse_cards("3H 3S 3D 5C 6C 7C KH 9D"))))
    assert int(ws["unsure"]) == kernel.unsure() == 0


@pytest.mark.parametrize("name", ONE_DECK_RULES)
def test_the_lean_one_copy_search_equals_the_general_search(name):
    # A hand with one copy of each natural card takes the lean search (evaluate_one) in modes
    # 0 to 2; native.GENERAL forces the general one. Every mode gives the same value, and the
    # lexicographic ones the same costliest deadwood card and, in mode 2, the same plan (the
    # arrangement solve() spells out); else the lean search answers where the general one
    # gave up (its looser bound ran out of nodes), and the Python solver agrees.
    rules = ONE_DECK_RULES[name]
    for wild_rank in (1, 6, 13):
        kernel = kernel_of(rules, wild_rank)
        hands = random_hands(rules, 1500, [0, 1, 3, 6, 9, 13, 14, 15, 18, 25], seed=wild_rank)
        gave_up = []
        for h in hands:
            key = bytes(h)
            for lex in (0, 1, 2):
                lean, general = (
                    plan_of(kernel, key, lex),
                    plan_of(kernel, key, lex | native.GENERAL),
                )
                if lean != general:
                    assert general == -1 and lean != -1, (lex, h)
                    gave_up.append((h, lean if lex == 0 else lean[0]))
        assert len(gave_up) < 10
        for (h, lean), expected in zip(
            gave_up, python_values([h for h, _ in gave_up], wild_rank, rules)
        ):
            assert lean == expected, h
    two = to_counts(parse_cards("5H 5H 6H 7H"))
    kernel = kernel_of(Rules(num_decks=2), 13)
    assert kernel.c.lean(bytes(two), 0) == -2
    assert kernel.c.lean(bytes(to_counts(parse_cards("KH KH 6H 7H"))), 0) >= 0


def test_kernel_deadwood_is_a_best_arrangement_with_the_costliest_card():
    # The plan's deadwood costs exactly the value; its costliest card is what discard_values
    # and the valuation layer subtract. Dropping it must leave exactly value - its penalty.
    rules = Rules(num_decks=2, jokers_per_deck=1)
    for wild_rank in (2, 13):
        kernel = kernel_of(rules, wild_rank)
        pen = np.array(rules.penalty_table(wild_rank))
        for h in random_hands(rules, 300, [10, 13, 14], seed=5):
            value = kernel.plan(bytes(h))
            dead = kernel.ws["dead"]
            assert (dead <= np.array(h)).all()
            assert int((dead * pen).sum()) == value
            md = int(kernel.ws["md"])
            if not dead.any():
                assert md == -1
            else:
                assert md == pen[dead > 0].max()
                k = int(np.flatnonzero((dead > 0) & (pen == md))[0])
                less = list(h)
                less[k] -= 1
                assert min_penalty(tuple(less), wild_rank, rules) == value - md


def test_kernel_hands_over_when_spare_wilds_may_find_no_room():
    # Kings wild, a heart run A..Q and two wild kings: one 13-card run takes only one of them,
    # so the kernel cannot certify the value and the exact search decides: two runs, A..6 + K
    # and 7..Q + K, meld everything.
    rules = Rules()
    cards = parse_cards("AH 2H 3H 4H 5H 6H 7H 8H 9H TH JH QH KC KD")
    assert kernel_of(rules, 13).value(bytes(to_counts(cards))) == -1
    assert min_penalty(to_counts(cards), 13, rules) == 0 == brute_force_points(cards, 13, rules)
    assert solve(cards, 13, rules).points == 0


def test_kernel_memo_bounded_and_exact_when_it_empties(monkeypatch):
    # A memo of 64 slots empties itself every 32 suits with several copies: results stay exact.
    monkeypatch.setattr(_kernel, "MEMO_SLOTS", 64)
    clear_cache(tables=True)
    rules = Rules(num_decks=3)
    try:
        hands = random_hands(rules, 400, [13, 14, 20], seed=9)
        kernel = kernel_of(rules, 5)
        assert kernel.tables.slots == 64
        got = [kernel.value(bytes(h)) for h in hands]
        assert 0 < kernel.tables.entries <= 32
    finally:
        monkeypatch.undo()
        clear_cache(tables=True)
    expected = python_values(hands, 5, rules)
    assert all(g in (e, -1) for g, e in zip(got, expected))


def test_discard_values_equal_min_penalty_of_each_discard():
    rules = Rules(num_decks=2, jokers_per_deck=2)
    for wild_rank in (4, 11):
        for h in random_hands(rules, 100, [11, 14], seed=wild_rank):
            found = discard_penalties(h, wild_rank, rules)
            for k, value in found.items():
                less = list(h)
                less[k] -= 1
                assert value == python_values([tuple(less)], wild_rank, rules)[0]


def test_joker_penalty_argument_in_the_kernel():
    rules = Rules(jokers_per_deck=2, joker_layoff=True)
    hands = random_hands(rules, 200, [5, 9, 14], seed=3)
    for jp in (None, 0):
        kernel = kernel_of(rules, 6, jp)
        got = [kernel.value(bytes(h)) for h in hands]
        expected = python_values(hands, 6, rules, jp)
        assert all(g in (e, -1) for g, e in zip(got, expected))


CAPPED_RULES = {
    "cap-0-two-decks": (Rules(max_wilds_per_meld=0, num_decks=2), None),
    "one-wild": (Rules.preset("one-wild"), None),
    "cap-1-jokers-aces-high": (
        Rules(max_wilds_per_meld=1, jokers_per_deck=2, aces_high=True),
        None,
    ),
    "cap-2-two-decks-joker-free": (
        Rules(max_wilds_per_meld=2, num_decks=2, jokers_per_deck=1, joker_layoff=True),
        0,
    ),
    "cap-3-all-wild-court": (
        Rules(
            max_wilds_per_meld=3,
            all_wild_melds=True,
            num_decks=3,
            jokers_per_deck=2,
            court_values=True,
            unused_wild_penalty=0,
        ),
        None,
    ),
}


@pytest.mark.parametrize("name", CAPPED_RULES)
def test_capped_rules_are_served_exactly(name):
    # A cap on wilds per meld takes the kernel's exact search (solver/capped.h): the same
    # values as the Python solver, every one certified, on uniform and clustered hands (runs,
    # sets, several copies, many wilds) up to 25 cards.
    rules, joker_penalty = CAPPED_RULES[name]
    for wild_rank in (1, 2, 7, 13):
        kernel = kernel_of(rules, wild_rank, joker_penalty)
        assert kernel is not None
        hands = random_hands(rules, 60, [3, 7, 11, 13, 14, 15, 16, 25], seed=wild_rank)
        hands += clustered_hands(rules, wild_rank, 60, seed=wild_rank)
        got = [kernel.value(bytes(h)) for h in hands]
        assert got == python_values(hands, wild_rank, rules, joker_penalty), name


def clustered(rng, deck, wild_rank):
    """The cards of ``deck`` of a few adjacent ranks (maybe around the king-ace corner) in one or
    two suits, and every wild card."""
    low = int(rng.integers(1, 14))
    ranks = {(low - 1 + i) % 13 + 1 for i in range(int(rng.integers(2, 6)))}
    suits = set(rng.choice(4, size=int(rng.integers(1, 3))).tolist())
    return [
        c
        for c in deck
        if c == JOKER or c.rank == wild_rank or (c.rank in ranks and c.suit in suits)
    ]


def clustered_hands(rules, wild_rank, n, seed):
    """Hands of a few adjacent ranks in one or two suits, and every wild card of the decks."""
    rng = np.random.default_rng(seed)
    deck = make_deck(rules.decks, rules.jokers_per_deck)
    hands = []
    for _ in range(n):
        pool = clustered(rng, deck, wild_rank)
        size = min(len(pool), int(rng.integers(3, 17)))
        hands.append(to_counts(pool[i] for i in rng.permutation(len(pool))[:size]))
    return hands


@pytest.mark.parametrize("name", CAPPED_RULES)
def test_capped_discards_draws_and_going_out_equal_the_definitions(name):
    # discard_penalties, draw_penalties and go_out_discards of a capped configuration (one C
    # call each) against their definitions by min_penalty (itself checked above).
    rules, joker_penalty = CAPPED_RULES[name]
    for wild_rank in (2, 9):
        hands = clustered_hands(rules, wild_rank, 8, seed=wild_rank)
        hands += random_hands(rules, 4, [7, 10], seed=wild_rank)
        for h in hands:
            dv = discard_penalties(h, wild_rank, rules, joker_penalty)
            less = {k: list(h[:k]) + [h[k] - 1] + list(h[k + 1 :]) for k in range(53) if h[k]}
            assert dv == {
                k: min_penalty(tuple(x), wild_rank, rules, joker_penalty) for k, x in less.items()
            }
            if joker_penalty is None:
                assert go_out_discards(h, wild_rank, rules) == tuple(
                    sorted(k for k, v in dv.items() if v == 0)
                )
            got = draw_penalties(h, wild_rank, rules, joker_penalty=joker_penalty)
            for x in range(53):
                more = list(h)
                more[x] += 1
                assert got[x] == min(
                    discard_penalties(tuple(more), wild_rank, rules, joker_penalty).values()
                ), (name, wild_rank, h, x)


def test_status_line_names_the_kernel():
    assert "compiled kernel on" in _kernel.status()
    _kernel.set_enabled(False)
    try:
        assert "off" in _kernel.status()
    finally:
        _kernel.set_enabled(True)


@pytest.mark.parametrize(
    "name", ["standard", "two-decks", "jokers", "aces-high-two-decks", "court-unused-15"]
)
def test_draw_penalties_equal_the_definition(name):
    # For every kind: add it, then the best discard (by min_penalty of each), on both paths.
    rules = NO_CAP_RULES[name]
    for wild_rank in (1, 9, 13):
        for h in random_hands(rules, 12, [3, 8, 13], seed=wild_rank):
            got = draw_penalties(h, wild_rank, rules)
            assert set(got) == set(range(53))
            expected = {}
            for x in range(53):
                more = list(h)
                more[x] += 1
                expected[x] = min(
                    min_penalty(tuple(more[:k] + [more[k] - 1] + more[k + 1 :]), wild_rank, rules)
                    for k in range(53)
                    if more[k]
                )
            assert got == expected, (name, wild_rank, h)


def test_draw_penalties_closed_form_cards_cannot_meld():
    # 5 hearts far from everything, no wilds, no other 5: it can only be thrown back or kept.
    rules = Rules()
    hand = to_counts(parse_cards("KC KD 2S 3S 9C"))
    got = draw_penalties(hand, 7, rules, kinds=[parse_cards("5H")[0]])
    best_drop = min(discard_penalties(hand, 7, rules).values())  # 34 - 10 (a king)
    assert list(got.values()) == [min(min_penalty(hand, 7, rules), 5 + best_drop)] == [29]


def test_a_kernel_is_shared_by_copies_and_refuses_to_pickle():
    # The extension's Kernel writes into this object's arrays: a copy with arrays of its own
    # that the compiled code never writes must never exist.
    import copy
    import pickle

    kernel = kernel_of(Rules(), 5)
    assert copy.copy(kernel) is kernel
    assert copy.deepcopy(kernel) is kernel
    assert copy.deepcopy([kernel])[0] is kernel
    with pytest.raises(TypeError, match="does not pickle"):
        pickle.dumps(kernel)
    with pytest.raises(TypeError, match="does not pickle"):
        pickle.dumps(kernel.c)


def test_min_penalty_refuses_every_hand_above_the_limit_also_when_the_kernel_could_answer():
    from tt_env.game.melds import MAX_HAND_CARDS

    assert native.MAX_HAND == MAX_HAND_CARDS
    rules = Rules(num_decks=2)
    for hand in random_hands(rules, 30, [MAX_HAND_CARDS + 1], seed=4):
        for _ in range(2):  # the first call fills min_penalty's fast path, the second takes it
            with pytest.raises(ValueError, match="at most 30 cards"):
                min_penalty(hand, 7, rules)
            with pytest.raises(ValueError, match="at most 30 cards"):
                min_penalty(bytes(hand), 7, rules)
    assert min_penalty(random_hands(rules, 1, [MAX_HAND_CARDS], seed=5)[0], 7, rules) >= 0


# ---------------------------------------------------------------------------- lay-offs
# Every option that changes melds, penalties or lay-offs, several at once.
LAY_OFF_RULES = {
    "standard": (Rules(), None),
    "aces-high-court": (Rules(aces_high=True, court_values=True), None),
    "two-decks-jokers": (Rules(num_decks=2, jokers_per_deck=2), None),
    "joker-free": (Rules(num_decks=2, jokers_per_deck=2, joker_layoff=True), 0),
    "all-wild": (Rules(num_decks=3, jokers_per_deck=2, all_wild_melds=True), None),
    "unused-wild-0": (Rules(unused_wild_penalty=0, jokers_per_deck=1), None),
    "one-wild": (Rules.preset("one-wild"), None),
    "cap-0": (Rules(max_wilds_per_meld=0, num_decks=2), None),
    "cap-2-aces-high": (Rules(max_wilds_per_meld=2, aces_high=True, jokers_per_deck=2), None),
    "cap-3-all-wild": (
        Rules(max_wilds_per_meld=3, all_wild_melds=True, num_decks=2, jokers_per_deck=2),
        0,
    ),
}


def lay_off_case(rng, rules, wild_rank):
    """A hand and a table: a clustered or uniform deal, the hand its first cards, the table the
    melds of the rest (solved in groups, as players lay them down), now and then a meld of
    jokers only."""
    deck = make_deck(rules.decks, rules.jokers_per_deck)
    if rng.random() < 0.5:
        deck = clustered(rng, deck, wild_rank)
    order = rng.permutation(len(deck))
    cards = [deck[i] for i in order[: int(rng.integers(2, 45))]]
    split = int(rng.integers(1, min(len(cards), 16) + 1))
    table, rest = [], cards[split:]
    while rest:
        size = int(rng.integers(3, 12))
        table += solve(rest[:size], wild_rank, rules).shapes
        rest = rest[size:]
    if rules.all_wild_melds and rng.random() < 0.5:
        table.insert(
            int(rng.integers(len(table) + 1)), is_meld([Card(JOKER)] * 3, wild_rank, rules)
        )
    return cards[:split], [table[i] for i in rng.permutation(len(table))][:12]


@pytest.mark.parametrize("name", LAY_OFF_RULES)
def test_compiled_lay_off_is_the_python_search_play_for_play(name):
    # The compiled lay-off (solver/layoff.h) against the Python search it ports: the same play
    # (points, melds, deadwood, cards laid off, the table after), on every option, with a cap
    # or none. (The Python search is checked against the brute force in test_melds.py.)
    rules, joker_penalty = LAY_OFF_RULES[name]
    rng = np.random.default_rng(len(name))
    laid = 0
    for i in range(120):
        wild_rank = int(rng.integers(1, 14))
        hand, table = lay_off_case(rng, rules, wild_rank)
        cfg = _config(rules, wild_rank, joker_penalty)
        counts = to_counts(hand)
        kernel = _kernel.Kernel(native, cfg)  # any configuration, capped ones too
        found = kernel.lay_off(bytes(counts), [shape_tuple(s) for s in table])
        expected = _LayOffSearch(cfg, bytes(counts), list(table)).run()
        assert _compiled_lay_off(found, len(table)) == expected, (name, i, hand, table)
        laid += bool(expected.layoffs)
    assert laid > 10  # the cases do lay cards off


def test_lay_off_answers_from_the_kernel_where_it_serves(monkeypatch):
    # lay_off() asks the kernel first; the Python search answers only where the kernel does not
    # serve the configuration or does not take the table.
    table = [is_meld(parse_cards("7C 7D 7H"), 5, Rules())]
    calls = []
    monkeypatch.setattr(_LayOffSearch, "run", lambda self: calls.append(1))
    assert lay_off(parse_cards("7S 2C"), table, 5).arrangement.points == 2
    assert not calls
    odd = MeldShape(kind="run", rank=0, suit=1, low=0, high=2, wilds=0, size=3)  # no real run
    lay_off(parse_cards("7S 2C"), [odd], 5)
    assert calls == [1]
