"""The game engine in C (``game/core/game.h``): the rules it reads and the solver it asks.

The C engine keeps the state of a game and plays its moves; what it does not decide itself
(the discards that go out, the arrangement laid down, a hand's fewest penalty, the redemption's
lay-offs) it asks a solver service. :class:`SolverService` answers with the exact solver of
:mod:`tt_env.game.melds`. :func:`rules_tuple` derives, once, what the engine reads of a
:class:`~tt_env.game.rules.Rules`: every option lives there, none is decided again in C.
"""

from __future__ import annotations

import importlib

from tt_env.game.cards import ALL_CARDS, NUM_KINDS
from tt_env.game.going_out import go_out_discards
from tt_env.game.melds import (
    kernel_of,
    lay_off,
    min_penalty,
    private_kernels,
    shape_of,
    shape_tuple,
    solve,
    solver_config,
)
from tt_env.game.rules import Rules


def core_module():
    """The C engine's extension module (``tt_env.game._ccore``), or None when it is not built."""
    try:
        return importlib.import_module("tt_env.game._ccore")
    except ImportError:
        return None


def rules_tuple(rules: Rules) -> tuple:
    """What the C engine reads of ``rules``: every round's cards, wild rank and multiplier, the
    decks, the turn cap and the options that change play."""
    rounds = rules.rounds
    return (
        rules.num_players,
        rules.decks,
        rules.jokers_per_deck,
        tuple(r.cards for r in rounds),
        tuple(r.wild_rank for r in rounds),
        tuple(rules.score_multiplier(r.wild_rank) for r in rounds),
        rules.turn_cap,
        int(rules.discard_drawn_upcard),
        int(rules.redemption),
        int(rules.joker_layoff),
        -1 if rules.false_out_penalty is None else rules.false_out_penalty,
    )


def _cards(counts: bytes) -> list:
    return [ALL_CARDS[k] for k in range(NUM_KINDS) for _ in range(counts[k])]


class SolverService:
    """The solver as the C engine asks it, one rule set: every answer exact
    (:mod:`tt_env.game.melds`). ``round`` is the index of the round in play."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._wild_ranks = tuple(r.wild_rank for r in rules.rounds)

    def go_out(self, round: int, counts: bytes) -> int:
        """Bits k of the discards that leave ``counts`` (a hand after its draw) no deadwood."""
        bits = 0
        for k in go_out_discards(counts, self._wild_ranks[round], self.rules):
            bits |= 1 << k
        return bits

    def penalty(self, round: int, counts: bytes, joker_free: int) -> int:
        """The fewest penalty of ``counts``; ``joker_free``: a leftover joker costs 0."""
        return min_penalty(
            tuple(counts), self._wild_ranks[round], self.rules, 0 if joker_free else None
        )

    def arrange(self, round: int, counts: bytes) -> list[tuple[bytes, tuple[int, ...]]]:
        """The best arrangement's melds, as (cards, shape) pairs."""
        arrangement = solve(_cards(counts), self._wild_ranks[round], self.rules)
        return [
            (bytes(int(c) for c in cards), shape_tuple(shape))
            for cards, shape in zip(arrangement.melds, arrangement.shapes)
        ]

    def redeem(self, round: int, counts: bytes, table: list, joker_free: int):
        """Redemption: (cards laid off as (card, table meld index), the table's shapes after,
        own melds as (cards, shape) pairs, the points left)."""
        result = lay_off(
            _cards(counts),
            [shape_of(s) for s in table],
            self._wild_ranks[round],
            self.rules,
            joker_penalty=0 if joker_free else None,
        )
        laid = [(int(c), index) for index, cards in result.layoffs for c in cards]
        arrangement = result.arrangement
        own = [
            (bytes(int(c) for c in cards), shape_tuple(shape))
            for cards, shape in zip(arrangement.melds, arrangement.shapes)
        ]
        return laid, [shape_tuple(s) for s in result.table], own, arrangement.points


def kernels(rules: Rules) -> tuple:
    """Per round, the compiled solver's kernels (each ``None`` where it does not serve): the
    round's configuration, and the same with a leftover joker free (``joker_layoff``)."""

    def compiled(wild_rank: int, joker_penalty: int | None):
        kernel = kernel_of(solver_config(rules, wild_rank, joker_penalty))
        return None if kernel is None else kernel.c

    return tuple((compiled(r.wild_rank, None), compiled(r.wild_rank, 0)) for r in rules.rounds)


def thread_kernels(rules: Rules) -> tuple:
    """:func:`kernels` of their own, shared with no other thread (see
    :func:`tt_env.game.melds.private_kernels`)."""
    cfgs = [solver_config(rules, r.wild_rank, jp) for r in rules.rounds for jp in (None, 0)]
    own = [None if k is None else k.c for k in private_kernels(cfgs)]
    return tuple(zip(own[0::2], own[1::2]))
