"""Spelling a plan out as cards: melds with their wilds, the pool's own melds, the deadwood."""

from __future__ import annotations

from tt_env.game.cards import ALL_CARDS, JOKER, NUM_RANKS, NUM_SUITS, Card
from tt_env.game.melds._config import _Config
from tt_env.game.melds._masks import _SUIT_SHIFT, _UNIT, _cards_in
from tt_env.game.melds._search import _search
from tt_env.game.melds._types import Arrangement, _shape


def _set_group(delta: int, lo: int, hi: int) -> tuple:
    cards = _cards_in(delta)
    return (cards, lo, hi, cards[0] % NUM_RANKS + 1)


def _free_alloc(ents: tuple, b: int) -> list[int]:
    """Wilds per suit reaching :func:`_free_best` of these suit entries with ``b`` wilds."""
    alloc = [0, 0, 0, 0]
    if not b:
        return alloc
    gains = [e[4] for e in ents]
    if b <= 2:
        ones = [g[1] for g in gains]
        s1 = max(range(NUM_SUITS), key=ones.__getitem__)
        if b == 1:
            alloc[s1] = 1
            return alloc
        s2 = max(range(NUM_SUITS), key=lambda s: gains[s][2])
        t = max((s for s in range(NUM_SUITS) if s != s1), key=ones.__getitem__)
        if gains[s2][2] >= ones[s1] + ones[t]:
            alloc[s2] = 2
        else:
            alloc[s1] = alloc[t] = 1
        return alloc
    flexible = [s for s in range(NUM_SUITS) if gains[s][b]]
    if len(flexible) == 1:
        alloc[flexible[0]] = b
    elif flexible:
        best: list = [(0, ())] + [None] * b  # by wilds used: (gain, wilds per flexible suit)
        for s in flexible:
            g = gains[s]
            new: list = [None] * (b + 1)
            for used, x in enumerate(best):
                if x is not None:
                    for d in range(b - used + 1):
                        y = new[used + d]
                        if y is None or x[0] + g[d] > y[0]:
                            new[used + d] = (x[0] + g[d], x[1] + (d,))
            best = new
        top = max((x for x in best if x is not None), key=lambda x: x[0])[1]
        for s, d in zip(flexible, top):
            alloc[s] = d
    return alloc


def _free_arrangement(cfg: _Config, counts, mask: int, J: int, M: int, found) -> Arrangement:
    """The arrangement the fast path found with no cap. When it has a meld, every wild goes
    into the melds: the first set takes the spare ones (a set takes any number), or else the
    runs do, up to their length limit (which _fast checked is enough)."""
    value, has_meld, (sets, D, ents) = found
    if not has_meld:
        return _assemble(cfg, counts, value, [], [], mask, (J, M, 0, 0))
    W = J + M
    wilds = [ALL_CARDS[JOKER]] * J
    if M:
        for k in cfg.wild_kinds:
            if counts[k]:
                wilds += [ALL_CARDS[k]] * counts[k]
    melds, shapes = [], []
    for opt in sets:
        mask -= opt[0]
        melds.append(list(opt[6]))
    alloc = _free_alloc(ents, W - D)
    runs = []
    for s in range(NUM_SUITS):
        choices = ents[s][1]
        chosen = choices[alloc[s] if alloc[s] < len(choices) else -1]
        if chosen:
            shift = _SUIT_SHIFT[s]
            for cand in chosen:
                runs.append((cand, s))
                mask -= cand[0] << shift
                D += cand[1]
    spare = W - D
    used = 0
    for cards in melds:
        k = max(0, 3 - len(cards)) + spare
        spare = 0
        cards += wilds[used : used + k]
        used += k
        shapes.append(_shape("set", cards[0] % NUM_RANKS + 1, -1, 0, 0, k, len(cards)))
    for cand, s in runs:
        lo = cand[1]
        more = min(spare, cand[2] - lo)
        spare -= more
        meld, shape = _lay_run(cand[4], s, wilds[used : used + lo + more], cfg)
        used += lo + more
        melds.append(meld)
        shapes.append(shape)
    assert not spare and used == W
    deadwood = _cards_in(mask)
    pen = cfg.penalties
    points = 0
    for c in deadwood:
        points += pen[c]
    assert points == value, (points, value)
    return Arrangement(melds=melds, shapes=shapes, deadwood=deadwood, points=points)


def _capped_plan(cfg: _Config, J: int, M: int, found) -> tuple:
    value, (sets, mask, D, H, lists, picks) = found
    W = J + M
    set_groups, run_groups = [], []
    for opt in sets:
        for block in opt[5]:
            set_groups.append(_set_group(block, max(0, 3 - len(_cards_in(block))), cfg.wild_limit))
    n = 0
    for s, (ent, pick) in enumerate(zip(lists, picks)):
        e = next(e for e in ent if e[:4] == pick)
        D += e[1]
        n += e[2]
        H += e[3]
        for cand in e[4]:
            run_groups.append((cand[4], cand[1], cand[2], s))
            mask -= cand[0] << _SUIT_SHIFT[s]
    return value, set_groups, run_groups, mask, (J, M - n, D, min(H, W))


def _search_plan(cfg: _Config, mask: int, J: int, M: int) -> tuple:
    value, path = _search(cfg, mask, J, M, trace=True)
    set_groups, run_groups = [], []
    left = 0
    for step in path:
        tag = step[0]
        if tag in ("dead", "pool"):
            left += _UNIT[step[1]]
        elif tag == "set":
            set_groups.append(_set_group(step[1], step[2], step[3]))
        elif tag == "run":
            cand, s = step[1], step[2]
            run_groups.append((cand[4], cand[1], cand[2], s))
        else:
            leaf = step[1:]
    return value, set_groups, run_groups, left, leaf


def _assemble(
    cfg: _Config, counts, value: int, set_groups: list, run_groups: list, left: int, leaf: tuple
) -> Arrangement:
    """Spell out a plan as cards: the natural melds get their wilds, the pool forms its own
    melds, and the rest is deadwood."""
    wild_rank = cfg.wild_rank
    deadwood: list[Card] = []
    pool_w: list[Card] = []  # wild-rank cards that are not natural in a run
    if cfg.wild_rank_natural:
        for c in _cards_in(left):
            (pool_w if c % NUM_RANKS == cfg.wild_position else deadwood).append(c)
    else:
        deadwood = _cards_in(left)
        for k in cfg.wild_kinds:
            if counts[k]:
                pool_w += [ALL_CARDS[k]] * counts[k]
    J, m, D, H = leaf
    a, b, extras = cfg.leaf_plan(J, m, D, H)
    jokers = [ALL_CARDS[JOKER]] * J
    wild_cards = jokers[:a] + pool_w[:b]
    jokers, pool_w = jokers[a:], pool_w[b:]
    # Each natural meld gets the wilds it needs, then the spare ones while it takes more.
    spare = a + b - D
    melds, shapes = [], []
    for cards, lo, hi, rank in set_groups:
        k = lo + min(spare, hi - lo)
        spare -= k - lo
        cards = cards + wild_cards[:k]
        del wild_cards[:k]
        melds.append(cards)
        shapes.append(_shape("set", rank, -1, 0, 0, k, len(cards)))
    for places, lo, hi, suit in run_groups:
        k = lo + min(spare, hi - lo)
        spare -= k - lo
        meld, shape = _lay_run(places, suit, wild_cards[:k], cfg)
        del wild_cards[:k]
        melds.append(meld)
        shapes.append(shape)
    assert spare == 0 and not wild_cards
    for x, y in extras:
        cards = pool_w[:x] + jokers[:y]
        del pool_w[:x], jokers[:y]
        if x:
            shapes.append(_shape("set", wild_rank, -1, 0, 0, y, x + y))
        else:
            shapes.append(_shape("wild", 0, -1, 0, 0, y, y))
        melds.append(cards)
    deadwood += pool_w + jokers
    pen = cfg.penalties
    points = 0
    for c in deadwood:
        points += pen[c]
    assert points == value, (points, value)
    return Arrangement(melds=melds, shapes=shapes, deadwood=deadwood, points=points)


def _lay_run(places: tuple[int, ...], suit: int, wilds: list[Card], cfg: _Config):
    """A run of ``suit`` with naturals at ``places`` and ``wilds`` filling the gaps, then
    extending it upwards and then downwards; its cards in position order and its shape."""
    base = suit * NUM_RANKS
    if not wilds:
        cards = [ALL_CARDS[base + (0 if pos == 14 else pos - 1)] for pos in places]
        return cards, _shape("run", 0, suit, places[0], places[-1], 0, len(cards))
    n = len(places)
    length = n + len(wilds)
    high = places[-1]
    if high - places[0] + 1 < length:
        high = min(cfg.top_position, places[0] + length - 1)
    low = high - length + 1
    cards = []
    i = j = 0
    for pos in range(low, high + 1):
        if i < n and places[i] == pos:
            cards.append(ALL_CARDS[base + (0 if pos == 14 else pos - 1)])
            i += 1
        else:
            cards.append(wilds[j])
            j += 1
    used = len(wilds)
    for w in wilds:
        if w != JOKER and w // NUM_RANKS == suit:  # a wild-rank card that may be in its place
            used = sum(
                1
                for pos, c in zip(range(low, high + 1), cards)
                if not _natural_in_run(c, suit, pos)
            )
            break
    return cards, _shape("run", 0, suit, low, high, used, length)


def _natural_in_run(card: int, suit: int, pos: int) -> bool:
    if card == JOKER or card // NUM_RANKS != suit:
        return False
    rank = card % NUM_RANKS + 1
    return rank == pos or (rank == 1 and pos == 14)
