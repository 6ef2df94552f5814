"""The fast paths in Python: sets chosen rank by rank, runs read from per-suit tables (see the
package docstring)."""

from __future__ import annotations

from tt_env.game.cards import JOKER, NUM_RANKS
from tt_env.game.melds._config import _Config
from tt_env.game.melds._masks import (
    _FAST_MAX_WILDS,
    _H_CLIP,
    _INF,
    _MANY,
    _NATURAL_KINDS,
    _SUIT_SHIFT,
    _SUIT_SLICE,
)


def _hand(counts: bytes, cfg: _Config) -> tuple[int, int, int]:
    """(mask of the searched natural cards, jokers, wild-rank cards) of 53 counts as bytes."""
    wk = cfg.wild_kinds
    return (
        int.from_bytes(counts, "little") & cfg.keep_mask,
        counts[JOKER],
        counts[wk[0]] + counts[wk[1]] + counts[wk[2]] + counts[wk[3]],
    )


def _fast(cfg: _Config, mask: int, J: int, M: int, plan: bool = False):
    """Fewest points by choosing sets first and reading each suit's runs from a table (see
    the module docstring); None when its exactness conditions fail. With ``plan``, also what
    :func:`_free_arrangement` / :func:`_capped_plan` need to spell the arrangement out.
    """
    W = J + M
    sv = cfg.values
    # The ranks that can hold a set: 2+ cards (3+ with no wilds).
    y0 = mask & _SUIT_SLICE
    y1 = (mask >> 104) & _SUIT_SLICE
    y2 = (mask >> 208) & _SUIT_SLICE
    y3 = mask >> 312
    if mask & _MANY:  # some card twice (several decks): try every rank
        positions = cfg.set_positions
    else:
        if W:
            hit = (y0 & y1) | (y2 & y3) | ((y0 | y1) & (y2 | y3))
        else:
            hit = (y0 & y1 & (y2 | y3)) | (y2 & y3 & (y0 | y1))
        hit &= cfg.set_fields
        positions = []
        while hit:
            low = hit & -hit
            positions.append((low.bit_length() - 1) >> 3)
            hit -= low
    # Set options of those ranks, each (delta, lo, suits, points of its cards, option).
    ropts = []
    priced = cfg.priced
    rank_masks = cfg.rank_masks
    for p in positions:
        x = mask & rank_masks[p]
        opts = priced[p].get(x)
        if opts is None:
            opts = cfg.price_options(p, x)
        if opts:
            ropts.append(opts)
    if cfg.wild_rank_natural:
        return _fast_capped(cfg, sv, mask, J, M, W, ropts, plan)
    if W > _FAST_MAX_WILDS:
        return None
    free = sv.free
    build = sv.build_free
    e0 = free.get(y0) or build(y0)
    e1 = free.get(y1) or build(y1)
    e2 = free.get(y2) or build(y2)
    e3 = free.get(y3) or build(y3)
    all_cost = e0[2] + e1[2] + e2[2] + e3[2]
    if W and (
        max(e0[3], e1[3], e2[3], e3[3]) > cfg.top_position - W
        or W
        + (mask.bit_count() if not mask & _MANY else sum(mask.to_bytes(_NATURAL_KINDS, "little")))
        > 2 * cfg.top_position
    ):
        return None  # the runs might not take every spare wild: let the search decide
    best = _free_best(e0, e1, e2, e3, W)
    best_plan: tuple = ((), 0, (e0, e1, e2, e3))
    if ropts and best:
        # Every choice of at most one set option per rank that the wilds allow, as (points
        # of the set cards, mask left, wilds needed, suits touched). Taking cards out of a
        # suit lowers its points by at most their penalty, so the points of the suits as they
        # are, less the penalty of the set cards, bound a choice from below.
        combos = [(0, mask, 0, 0)]
        for opts in ropts:
            combos += [
                (rc + orc, m - od, D + olo, t | ot)
                for rc, m, D, t in combos
                for od, olo, ot, orc, _ in opts
                if D + olo <= W
            ]
        bound = [best] * (W + 1)  # bound[D]: the suits as they are with W - D wilds
        for D in range(1, W + 1):
            bound[D] = _free_best(e0, e1, e2, e3, W - D)
        combos = sorted([(bound[c[2]] - c[0],) + c[1:] for c in combos[1:]])
        best_m = mask
        for lb, m, D, t in combos:
            if lb >= best:
                break
            f0 = (free.get(m & _SUIT_SLICE) or build(m & _SUIT_SLICE)) if t & 1 else e0
            f1 = (
                (free.get((m >> 104) & _SUIT_SLICE) or build((m >> 104) & _SUIT_SLICE))
                if t & 2
                else e1
            )
            f2 = (
                (free.get((m >> 208) & _SUIT_SLICE) or build((m >> 208) & _SUIT_SLICE))
                if t & 4
                else e2
            )
            f3 = (free.get(m >> 312) or build(m >> 312)) if t & 8 else e3
            total = _free_best(f0, f1, f2, f3, W - D)
            if total < best:
                best = total
                if plan:
                    best_m = m
                    best_plan = ((), D, (f0, f1, f2, f3))
                if not total:
                    break
        if plan and best_m != mask:
            # The options chosen, read back from the cards they took.
            taken = mask - best_m
            chosen = []
            for opts in ropts:
                for opt in opts:
                    if (
                        opt[0]
                        == taken
                        & rank_masks[(((opt[0] & -opt[0]).bit_length() - 1) >> 3) % NUM_RANKS]
                    ):
                        chosen.append(opt[4])
                        break
            best_plan = (tuple(chosen),) + best_plan[1:]
    if best < all_cost:
        value = best  # some meld exists, and with no cap it takes every spare wild
    else:
        value = all_cost + cfg.rest(J, M)
    if not plan:
        return value
    return value, best < all_cost, best_plan


def _free_best(e0: tuple, e1: tuple, e2: tuple, e3: tuple, b: int) -> int:
    """Fewest points of four suits sharing ``b`` wilds: min over d0 + .. + d3 <= b of the sum
    of ``e[0][d]`` (each entry of :attr:`_SuitValues.free`; ``e[4]`` holds its gains)."""
    total = e0[0][0] + e1[0][0] + e2[0][0] + e3[0][0]
    if not b:
        return total
    g0, g1, g2, g3 = e0[4], e1[4], e2[4], e3[4]
    if b == 1:
        return total - max(g0[1], g1[1], g2[1], g3[1])
    if b == 2:
        a, b_, c, d = g0[1], g1[1], g2[1], g3[1]
        return total - max(g0[2], g1[2], g2[2], g3[2], a + b_, a + c, a + d, b_ + c, b_ + d, c + d)
    acc = None
    for g in (g0, g1, g2, g3):
        if not g[b]:
            continue  # this suit gains nothing from up to b wilds
        if acc is None:
            acc = g
            continue
        new = list(acc[: b + 1])
        for i in range(1, b + 1):
            x = new[i]
            for d in range(1, i + 1):
                y = acc[i - d] + g[d]
                if y > x:
                    x = y
            new[i] = x
        acc = new
    return total if acc is None else total - acc[b]


def _fast_capped(cfg, sv, mask, J, M, W, ropts, plan):
    """The fast path with a cap: each suit offers its Pareto-best ``(points, d, nat, h)``
    entries; every choice of sets and of one entry per suit is tried (cheapest bound first,
    pruned by points) and the pool then takes what the melds need and can hold."""
    if W > _H_CLIP or cfg.wild_limit > cfg.top_position - 1:
        return None
    capped = sv.capped
    build = sv.build_capped
    leaf = cfg.leaf
    leaf_memo = cfg.leaf_memo
    base = []
    for sh in _SUIT_SHIFT:
        y = (mask >> sh) & _SUIT_SLICE
        base.append(capped.get(y) or build(y))
    combos = [(0, mask, 0, 0, (), 0)]
    for opts in ropts:
        combos += [
            (rc + p[3], m - p[0], D + p[1], H + p[4][2], ch + (p[4],), t | p[2])
            for rc, m, D, H, ch, t in combos
            for p in opts
            if D + p[1] <= W
        ]
    if len(combos) > 1:
        # Points of the suits as they are, each with every wild to itself, less the points of
        # the set cards, bound a choice from below (the pool costs >= 0).
        m0, m1, m2, m3 = base[0][1], base[1][1], base[2][1], base[3][1]
        bound = [m0[W - D] + m1[W - D] + m2[W - D] + m3[W - D] for D in range(W + 1)]
        combos = [combos[0]] + sorted([(bound[c[2]] - c[0],) + c[1:] for c in combos[1:]])
    best = _INF
    best_plan = None
    for i, combo in enumerate(combos):
        if i:
            lb, m, D, H, ch, t = combo
            if lb >= best:
                break
            suits = [
                (capped.get((m >> sh) & _SUIT_SLICE) or build((m >> sh) & _SUIT_SLICE))
                if t >> s & 1
                else base[s]
                for s, sh in enumerate(_SUIT_SHIFT)
            ]
        else:
            _, m, D, H, ch, t = combo
            suits = base
        room = W - D
        e = suits[0]
        L0 = e[0][: e[2][room]]
        e = suits[1]
        L1 = e[0][: e[2][room]]
        e = suits[2]
        L2 = e[0][: e[2][room]]
        e = suits[3]
        L3 = e[0][: e[2][room]]
        for c0, d0, n0, h0, _ in L0:
            u0 = d0 + n0
            for c1, d1, n1, h1, _ in L1:
                u1 = u0 + d1 + n1
                if u1 > room:
                    break
                s1 = c0 + c1
                if s1 >= best:
                    continue
                for c2, d2, n2, h2, _ in L2:
                    u2 = u1 + d2 + n2
                    if u2 > room:
                        break
                    s2 = s1 + c2
                    if s2 >= best:
                        continue
                    for c3, d3, n3, h3, _ in L3:
                        if u2 + d3 + n3 > room:
                            break
                        s3 = s2 + c3
                        if s3 >= best:
                            continue
                        n = n0 + n1 + n2 + n3
                        h = H + h0 + h1 + h2 + h3
                        key = (J, M - n, D + d0 + d1 + d2 + d3, h if h < W else W)
                        v = leaf_memo.get(key)
                        v = s3 + (leaf(*key) if v is None else v)
                        if v < best:
                            best = v
                            if plan:
                                best_plan = (
                                    ch,
                                    m,
                                    D,
                                    H,
                                    (L0, L1, L2, L3),
                                    (
                                        (c0, d0, n0, h0),
                                        (c1, d1, n1, h1),
                                        (c2, d2, n2, h2),
                                        (c3, d3, n3, h3),
                                    ),
                                )
                            if not v:
                                break
    if not plan:
        return best
    return best, best_plan
