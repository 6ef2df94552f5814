"""The exact search: a memoised depth-first search over the lowest uncovered card."""

from __future__ import annotations

from tt_env.game.cards import NUM_RANKS
from tt_env.game.melds._config import _Config
from tt_env.game.melds._masks import _RANK_SHIFT, _RANK_SLICE, _SUIT_SHIFT, _SUIT_SLICE, _UNIT


def _search(cfg: _Config, mask0: int, J: int, M: int, trace: bool = False):
    """Fewest points for the hand (``mask0`` + ``J`` jokers + ``M`` wild-rank cards) by a
    memoised search over the lowest uncovered card; exact for every input.

    With ``trace``, also return an optimal path: a list of decisions (see :func:`_build`).
    """
    tabs = cfg.tables
    unit = _UNIT
    runs = tabs.runs
    sets = tabs.sets
    pen = cfg.penalties
    wpos = cfg.wild_position
    W = J + M
    F = W + 1
    FF = (M + 1) * F * F
    leaf = cfg.leaf
    memo: dict[int, int] = {}

    def f(mask: int, mnat: int, D: int, H: int) -> int:
        if not mask:
            return leaf(J, M - mnat, D, H)
        key = mask * FF + (mnat * F + D) * F + H
        value = memo.get(key)
        if value is not None:
            return value
        k = ((mask & -mask).bit_length() - 1) >> 3
        s, p = divmod(k, NUM_RANKS)
        if p == wpos:  # a wild-rank card (only searched when there is a cap): to the pool
            best = f(mask - unit[k], mnat, D, H)
        else:
            best = pen[k] + f(mask - unit[k], mnat, D, H)
            if best:
                x = mask & _RANK_SLICE << _RANK_SHIFT[p]
                cands = sets[p].get(x)
                if cands is None:
                    cands = tabs.build_sets(p, x)
                room = W - mnat - D
                for delta, lo, hi in cands:
                    if lo > room:
                        break
                    v = f(mask - delta, mnat, D + lo, min(H + hi, W))
                    if v < best:
                        best = v
                        if not v:
                            break
        if best:
            shift = _SUIT_SHIFT[s]
            y = (mask >> shift) & _SUIT_SLICE
            cands = runs.get(y)
            if cands is None:
                cands = tabs.build_runs(y)
            room = W - mnat - D
            for delta, lo, hi, nat, _ in cands:
                if lo + nat > room:
                    if lo > room:
                        break
                    continue
                v = f(mask - (delta << shift), mnat + nat, D + lo, min(H + hi, W))
                if v < best:
                    best = v
                    if not v:
                        break
        memo[key] = best
        return best

    value = f(mask0, 0, 0, 0)
    if not trace:
        return value
    # Walk the memo along one optimal path.
    path = []
    mask, mnat, D, H = mask0, 0, 0, 0
    while mask:
        target = f(mask, mnat, D, H)
        k = ((mask & -mask).bit_length() - 1) >> 3
        s, p = divmod(k, NUM_RANKS)
        step = None
        if p == wpos:
            if f(mask - unit[k], mnat, D, H) == target:
                step = (("pool", k), mask - unit[k], mnat, D, H)
        elif pen[k] + f(mask - unit[k], mnat, D, H) == target:
            step = (("dead", k), mask - unit[k], mnat, D, H)
        if step is None and p != wpos:
            x = mask & _RANK_SLICE << _RANK_SHIFT[p]
            cands = sets[p].get(x) or tabs.build_sets(p, x)
            for delta, lo, hi in cands:
                if D + lo <= W - mnat and f(mask - delta, mnat, D + lo, min(H + hi, W)) == target:
                    step = (("set", delta, lo, hi, p), mask - delta, mnat, D + lo, min(H + hi, W))
                    break
        if step is None:
            shift = _SUIT_SHIFT[s]
            y = (mask >> shift) & _SUIT_SLICE
            cands = runs.get(y) or tabs.build_runs(y)
            for cand in cands:
                delta, lo, hi, nat, places = cand
                if D + lo + nat > W - mnat:
                    continue
                nxt = (mask - (delta << shift), mnat + nat, D + lo, min(H + hi, W))
                if f(*nxt) == target:
                    step = (("run", cand, s),) + nxt
                    break
        assert step is not None, "search memo inconsistent"
        path.append(step[0])
        mask, mnat, D, H = step[1:]
    path.append(("leaf", J, M - mnat, D, H))
    return value, path
