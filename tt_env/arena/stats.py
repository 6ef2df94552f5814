"""The statistics of a tournament: means with Student-t intervals (no SciPy), per agent and per
pair of agents, and OpenSkill ratings."""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from tt_env.arena.schedule import GameResult

CONFIDENCE = 0.95


# ---------------------------------------------------------------------------------- statistics
def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the regularised incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        m2 = 2 * m
        for aa in (
            m * (b - m) * x / ((qam + m2) * (a + m2)),
            -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)),
        ):
            d = 1.0 + aa * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1.0) < 1e-15:
            break
    return h


def _betainc(a: float, b: float, x: float) -> float:
    """The regularised incomplete beta function ``I_x(a, b)``."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _betacf(a, b, x) / a
    return 1.0 - math.exp(log_front) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """The distribution function of Student's *t* with ``df`` degrees of freedom."""
    tail = 0.5 * _betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's *t* (``0.5 <= p < 1``), by bisection on :func:`t_cdf`.

    Accurate to about 1e-12 (``t_quantile(0.975, 10)`` = 2.228138851986...). Kept here so that
    the arena needs no SciPy.
    """
    if not 0.5 <= p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0.5 <= p < 1 and df > 0, got p={p}, df={df}")
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval over ``n`` independent units (deals).

    ``low``/``high`` are NaN when there are fewer than 2 units.
    """

    mean: float
    low: float
    high: float
    n: int
    sd: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2.0

    def excludes(self, value: float = 0.0) -> bool:
        """Whether the interval lies entirely on one side of ``value``."""
        return self.low > value or self.high < value

    def format(self, digits: int = 1) -> str:
        mean = round(self.mean, digits) + 0.0  # no "-0.0" for a mean that rounds to zero
        if math.isnan(self.low):
            return f"{mean:.{digits}f}"
        return f"{mean:.{digits}f} ± {self.half_width:.{digits}f}"


def mean_ci(values: Iterable[float], confidence: float = CONFIDENCE) -> Estimate:
    """The mean of independent ``values`` with Student's *t* interval."""
    x = np.asarray(list(values), dtype=float)
    n = int(x.size)
    if n == 0:
        nan = float("nan")
        return Estimate(mean=nan, low=nan, high=nan, n=0, sd=nan)
    mean = float(x.mean())
    if n < 2:
        nan = float("nan")
        return Estimate(mean=mean, low=nan, high=nan, n=n, sd=nan)
    sd = float(x.std(ddof=1))
    half = t_quantile(0.5 + confidence / 2.0, n - 1) * sd / math.sqrt(n)
    return Estimate(mean=mean, low=mean - half, high=mean + half, n=n, sd=sd)


# ---------------------------------------------------------------------------------- results
@dataclass(frozen=True)
class AgentStats:
    """The figures of one agent over a tournament (see the module docstring)."""

    label: str
    spec: str
    games: int
    score: Estimate  # final score per game
    round_penalty: Estimate  # penalty per round
    win_rate: Estimate
    out_rate: Estimate  # share of rounds the agent went out
    rating_mu: float | None = None
    rating_sigma: float | None = None
    rating_ordinal: float | None = None
    # the costs the agent reported (an llm agent's usage()), summed over its games; None if none
    usage: dict[str, float] | None = None


@dataclass(frozen=True)
class PairStats:
    """``score(a) - score(b)`` paired by deal, over the games where ``a`` and ``b`` met."""

    a: str
    b: str
    diff: Estimate
    games: int


def _labels(specs: Sequence[str]) -> list[str]:
    from tt_env.agents import spec_label

    base = [spec_label(s) for s in specs]
    labels, seen = [], {}
    for name in base:
        seen[name] = seen.get(name, 0) + 1
        labels.append(name if base.count(name) == 1 else f"{name}#{seen[name]}")
    return labels


def agent_statistics(
    results: Sequence[GameResult], labels: Sequence[str], specs: Sequence[str] | None = None
) -> list[AgentStats]:
    """Per-agent estimates with intervals over deals (module docstring); ratings not included."""
    specs = list(specs) if specs is not None else list(labels)
    by_deal: dict[int, list[GameResult]] = {}
    for r in results:  # one pass: a quadratic scan took minutes on a big interrupted run
        by_deal.setdefault(r.deal, []).append(r)
    stats = []
    for a, label in enumerate(labels):
        per_deal: dict[str, list[float]] = {"score": [], "round": [], "win": [], "out": []}
        games = 0
        usage: dict[str, float] = {}
        for deal in sorted(by_deal):
            scores, rounds, wins, outs = [], [], [], []
            for r in by_deal[deal]:
                if a not in r.seats:
                    continue
                seat = r.seats.index(a)
                if r.usage and r.usage[seat]:
                    for key, value in r.usage[seat].items():
                        usage[key] = usage.get(key, 0.0) + value
                scores.append(r.scores[seat])
                rounds.extend(p[seat] for p in r.round_penalties)
                wins.append(1.0 / len(r.winners) if seat in r.winners else 0.0)
                outs.extend(1.0 if w == seat else 0.0 for w in r.went_out)
            if not scores:
                continue
            games += len(scores)
            per_deal["score"].append(float(np.mean(scores)))
            per_deal["round"].append(float(np.mean(rounds)) if rounds else 0.0)
            per_deal["win"].append(float(np.mean(wins)))
            per_deal["out"].append(float(np.mean(outs)) if outs else 0.0)
        stats.append(
            AgentStats(
                label=label,
                spec=specs[a],
                games=games,
                score=mean_ci(per_deal["score"]),
                round_penalty=mean_ci(per_deal["round"]),
                win_rate=mean_ci(per_deal["win"]),
                out_rate=mean_ci(per_deal["out"]),
                usage=usage or None,
            )
        )
    return stats


def pairwise_statistics(results: Sequence[GameResult], labels: Sequence[str]) -> list[PairStats]:
    """For every ordered pair of agents that met: mean score difference, paired by deal."""
    pairs = []
    for a, b in itertools.permutations(range(len(labels)), 2):
        per_deal: dict[int, list[float]] = {}
        for r in results:
            if a in r.seats and b in r.seats:
                diff = r.scores[r.seats.index(a)] - r.scores[r.seats.index(b)]
                per_deal.setdefault(r.deal, []).append(float(diff))
        if per_deal:
            values = [float(np.mean(per_deal[d])) for d in sorted(per_deal)]
            games = sum(len(v) for v in per_deal.values())
            pairs.append(PairStats(a=labels[a], b=labels[b], diff=mean_ci(values), games=games))
    return pairs


def openskill_ratings(
    results: Sequence[GameResult], num_agents: int
) -> list[tuple[float, float, float]] | None:
    """``(mu, sigma, ordinal)`` per agent from the Plackett-Luce model of OpenSkill.

    Games are rated one by one in canonical order (deal, table, rotation), each as a free-for-all
    ranked by final score (lower is better, ties share a rank). ``None`` if openskill is missing.
    """
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        return None
    model = PlackettLuce()
    ratings = [model.rating(name=str(i)) for i in range(num_agents)]
    for r in sorted(results, key=lambda g: g.key):
        teams = [[ratings[a]] for a in r.seats]
        new = model.rate(teams, ranks=[float(s) for s in r.scores])
        for a, team in zip(r.seats, new):
            ratings[a] = team[0]
    return [(float(x.mu), float(x.sigma), float(x.ordinal())) for x in ratings]
