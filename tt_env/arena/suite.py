"""The evaluation suites (``tt-arena --suite NAME AGENT...``): fixed, versioned deals on which any
agent plays the same reference opponents, and the published reference rows it is read beside.

A suite fixes everything but the agent: the rules, the number of seats, the deals (a tournament
seed and a number of deals) and the reference opponents. Each agent plays each reference
opponent on every deal, from every seat: with 2 seats the table is the agent and the opponent,
with more seats the agent and copies of the opponent (duplicate deals, as in
:func:`~tt_env.arena.run_tournament`; its own tournament per opponent, so the agent's results
against one opponent do not depend on the others). Per opponent a row gives

- the **score difference**: per game, the agent's final score less the mean of the other seats'
  (with 2 seats: the opponent's), averaged over each deal's games, with Student's *t* 95%
  interval over deals (negative: the agent scores less, plays better);
- the **win rate**: the share of games the agent won (ties shared), with its interval over deals
  (level play: 1/2 with 2 seats, 1/4 with 4);

and the **overall** columns average these over the opponents but random, deal by deal, before
the interval is taken (the opponents play the same deals, so the overall is paired too). Random
play is the floor, shown but left out of the overall: every agent worth measuring beats it by
hundreds of points a game, with a spread per deal twice that against counting, so it would
decide the overall's mean and interval and say little about the rest.

A suite's name ends in its version (``-v1``): its deals, opponents and scoring never change; a
change makes a new version. The suites' tournament seeds come from :data:`SUITE_SEEDS`, a range
kept for them (``tt-train`` refuses an ``eval_seed`` there), so that no training run or model
selection has seen their deals.

The reference rows (every built-in agent and every shipped model that fits the suite) ship as
``tt_env/arena/suites/NAME.json``, written by ``benchmarks/make_suite_reference.py``;
:func:`load_reference` reads them.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np

from tt_env.arena.schedule import ArenaError, GameResult
from tt_env.arena.stats import Estimate, mean_ci
from tt_env.game.rules import Rules
from tt_env.util.files import write_text_atomically

SUITE_FORMAT = "tt_env.suite"  # the "format" of a suite's results and of its reference file
SUITE_SCHEMA_VERSION = 1
# Tournament seeds kept for the suites: never a training run's or a model selection's.
SUITE_SEEDS = range(1_000_000, 1_001_000)
REFERENCE_OPPONENTS = ("random", "greedy", "counting", "search(samples=16)")
# The opponents of the overall columns: not random, whose scores (hundreds a game) vary so much
# that it would decide the overall's interval, and rank agents by how they beat random play.
OVERALL_OPPONENTS = ("greedy", "counting", "search(samples=16)")
SUITE_DEALS_ENV = "TT_ARENA_SUITE_DEALS"  # quick checks: play only the first N deals


@dataclass(frozen=True)
class Suite:
    """One evaluation suite: rules, seats, deals and reference opponents, fixed for good."""

    name: str
    seats: int
    deals: int
    seed: int  # the tournament seed of the deals (in SUITE_SEEDS)
    summary: str  # one line for --suite list
    opponents: tuple[str, ...] = REFERENCE_OPPONENTS
    overall: tuple[str, ...] = OVERALL_OPPONENTS  # the opponents the overall averages
    preset: str = "standard"

    @property
    def rules(self) -> Rules:
        return Rules.preset(self.preset, num_players=self.seats)

    def table_of(self, agent: str, opponent: str) -> list[str]:
        """The agents of the one table where ``agent`` meets ``opponent``."""
        return [agent] + [opponent] * (self.seats - 1)

    def describe(self) -> str:
        copies = "the opponent" if self.seats == 2 else f"{self.seats - 1} copies of the opponent"
        return (
            f"{self.name}: {self.preset} rules, {self.seats} seats, {self.deals:,} deals "
            f"(tournament seed {self.seed}); each agent plays {copies} on every deal from every "
            f"seat; reference opponents: {', '.join(self.opponents)} (overall: the mean over "
            f"{', '.join(self.overall)})"
        )


SUITES: dict[str, Suite] = {
    s.name: s
    for s in (
        Suite(
            name="standard-2p-v1",
            seats=2,
            deals=1000,
            seed=1_000_003,
            summary="2 players, standard rules, 1,000 deals: about 8 minutes of CPU per agent "
            "(as fast as counting), 4 minutes on 2 cores",
        ),
        Suite(
            name="standard-4p-v1",
            seats=4,
            deals=300,
            seed=1_000_007,
            summary="4 players (the agent and 3 copies of each opponent), standard rules, 300 "
            "deals: about 18 minutes of CPU per agent, mostly the 3 search seats, 9 on 2 cores",
        ),
    )
}


def get_suite(name: str) -> Suite:
    """The suite called ``name``; :class:`ArenaError` listing the suites if there is none."""
    if name not in SUITES:
        raise ArenaError(
            f"no suite named {name!r}: the suites are {', '.join(SUITES)} (tt-arena --suite list)"
        )
    return SUITES[name]


def suites_text() -> str:
    """What ``tt-arena --suite list`` prints."""
    lines = []
    for suite in SUITES.values():
        lines += [f"{suite.name}  {suite.summary}", f"    {suite.describe()}"]
    return "\n".join(lines)


def check_seed_not_reserved(seed: int, what: str) -> None:
    """:class:`ValueError` if ``seed`` is one of the suites' (:data:`SUITE_SEEDS`): their deals
    are kept out of training and model selection."""
    if seed in SUITE_SEEDS:
        raise ValueError(
            f"{what} {seed} is in the range kept for the evaluation suites "
            f"({SUITE_SEEDS.start:,}..{SUITE_SEEDS.stop - 1:,}, tt-arena --suite): "
            "choose a seed outside it, so that no model is selected on the suites' deals"
        )


# ---------------------------------------------------------------------------------- rows
@dataclass(frozen=True)
class SuiteRow:
    """One agent's results on a suite: per reference opponent and overall."""

    agent: str  # the spec
    label: str
    deals: int
    score_diff: dict[str, Estimate]  # per opponent spec
    win_rate: dict[str, Estimate]
    overall_score_diff: Estimate
    overall_win_rate: Estimate
    games: int = 0
    seconds: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)  # e.g. the reference's "kind"

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "label": self.label,
            "deals": self.deals,
            "games": self.games,
            "seconds": round(self.seconds, 1),
            **self.extra,
            "versus": {
                opp: {
                    "score_diff": _estimate_dict(self.score_diff[opp]),
                    "win_rate": _estimate_dict(self.win_rate[opp]),
                }
                for opp in self.score_diff
            },
            "overall": {
                "score_diff": _estimate_dict(self.overall_score_diff),
                "win_rate": _estimate_dict(self.overall_win_rate),
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SuiteRow:
        known = {"agent", "label", "deals", "games", "seconds", "versus", "overall"}
        versus = data["versus"]
        return cls(
            agent=str(data["agent"]),
            label=str(data["label"]),
            deals=int(data["deals"]),
            score_diff={o: _estimate(v["score_diff"]) for o, v in versus.items()},
            win_rate={o: _estimate(v["win_rate"]) for o, v in versus.items()},
            overall_score_diff=_estimate(data["overall"]["score_diff"]),
            overall_win_rate=_estimate(data["overall"]["win_rate"]),
            games=int(data.get("games", 0)),
            seconds=float(data.get("seconds", 0.0)),
            extra={k: v for k, v in data.items() if k not in known},
        )


def _estimate_dict(est: Estimate) -> dict[str, float | int | None]:
    def num(x: float) -> float | None:
        return None if math.isnan(x) else round(float(x), 6)

    return {"mean": num(est.mean), "low": num(est.low), "high": num(est.high), "n": est.n}


def _estimate(data: dict[str, Any]) -> Estimate:
    def num(x: Any) -> float:
        if x is None:
            return float("nan")
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise ValueError(f"not a number: {x!r}")
        return float(x)

    low, high = num(data["low"]), num(data["high"])
    n = int(data["n"])
    sd = float("nan")  # not kept: the interval says it
    return Estimate(mean=num(data["mean"]), low=low, high=high, n=n, sd=sd)


PerDeal = dict[int, tuple[float, float]]  # deal -> (score difference, win)


def per_deal_values(results: Sequence[GameResult], agent: int = 0) -> PerDeal:
    """Per deal: the mean over its games of (the score of agent ``agent`` less the mean of the
    other seats' scores, its win: 1, 1/k for a tie of k, or 0)."""
    by_deal: dict[int, list[tuple[float, float]]] = {}
    for r in results:
        seat = r.seats.index(agent)
        others = [x for s, x in enumerate(r.scores) if s != seat]
        win = 1.0 / len(r.winners) if seat in r.winners else 0.0
        by_deal.setdefault(r.deal, []).append((r.scores[seat] - float(np.mean(others)), win))
    return {
        d: (float(np.mean([v[0] for v in vs])), float(np.mean([v[1] for v in vs])))
        for d, vs in sorted(by_deal.items())
    }


def suite_row(
    agent: str,
    label: str,
    per_opponent: dict[str, PerDeal],
    overall_opponents: Sequence[str],
    **fields: Any,
) -> SuiteRow:
    """The row of ``agent`` from its per-deal values against each opponent
    (:func:`per_deal_values`); the overall averages ``overall_opponents`` deal by deal (the deals
    each of them played). ``fields``: more fields of the row (``games``, ``seconds``,
    ``extra``)."""
    deals = sorted(set.intersection(*(set(per_opponent[o]) for o in overall_opponents)))
    overall = [[per_opponent[o][d] for o in overall_opponents] for d in deals]
    return SuiteRow(
        agent=agent,
        label=label,
        deals=len(deals),
        score_diff={o: mean_ci([v[0] for v in vs.values()]) for o, vs in per_opponent.items()},
        win_rate={o: mean_ci([v[1] for v in vs.values()]) for o, vs in per_opponent.items()},
        overall_score_diff=mean_ci([float(np.mean([v[0] for v in vals])) for vals in overall]),
        overall_win_rate=mean_ci([float(np.mean([v[1] for v in vals])) for vals in overall]),
        **fields,
    )


# ---------------------------------------------------------------------------------- playing
def suite_deals(suite: Suite, deals: int | None = None) -> int:
    """The deals to play: the suite's, or (quick checks) ``deals`` or the environment variable
    ``TT_ARENA_SUITE_DEALS``: the first N of them."""
    if deals is None and os.environ.get(SUITE_DEALS_ENV, "").strip():
        text = os.environ[SUITE_DEALS_ENV].strip()
        try:
            deals = int(text)
        except ValueError:
            raise ArenaError(f"{SUITE_DEALS_ENV}={text!r}: not a number of deals") from None
    if deals is None:
        return suite.deals
    if isinstance(deals, bool) or not isinstance(deals, int) or not 1 <= deals <= suite.deals:
        raise ArenaError(
            f"the deals of a quick check of {suite.name} must be 1..{suite.deals}, got {deals!r}"
        )
    return deals


def play_suite(
    suite: Suite,
    agents: Sequence[str],
    *,
    deals: int | None = None,
    workers: int = 1,
    progress: bool = False,
    ray_address: str | None = None,
    on_start: Callable[[], object] | None = None,
    log: Callable[[str], None] | None = None,
) -> SuiteResult:
    """Play each of ``agents`` (specs, as for :func:`~tt_env.arena.run_tournament`) against each
    of the suite's reference opponents on its deals (``deals``: the first N only, for quick
    checks; the figures are then not the suite's). Every agent is built once first, so that a
    bad spec fails before any game. ``log`` gets a line as each match starts."""
    from tt_env.agents import make_agent, spec_label
    from tt_env.arena.tournament import run_tournament

    n = suite_deals(suite, deals)
    if not agents:
        raise ArenaError(f"no agent to play on {suite.name}")
    rules = suite.rules
    for spec in dict.fromkeys(agents):
        make_agent(spec, suite.seats, rules, 0)
    start = time.perf_counter()
    rows = []
    labels = _unique([spec_label(a) for a in agents])
    for spec, label in zip(agents, labels):
        per_opponent, games, seconds = {}, 0, time.perf_counter()
        for opponent in suite.opponents:
            if log is not None:
                log(f"{label} against {opponent} ({n * suite.seats:,} games)")
            result = run_tournament(
                suite.table_of(spec, opponent),
                rules,
                games=n,
                seed=suite.seed,
                workers=workers,
                seats=suite.seats,
                progress=progress,
                ray_address=ray_address,
                on_start=on_start,
            )
            on_start = None  # once is enough
            per_opponent[opponent] = per_deal_values(result.results)
            games += len(result.results)
        seconds = time.perf_counter() - seconds
        rows.append(
            suite_row(spec, label, per_opponent, suite.overall, games=games, seconds=seconds)
        )
    return SuiteResult(
        suite=suite, deals=n, rows=rows, elapsed=time.perf_counter() - start, workers=workers
    )


def _unique(labels: list[str]) -> list[str]:
    return [
        name if labels.count(name) == 1 else f"{name}#{labels[:i].count(name) + 1}"
        for i, name in enumerate(labels)
    ]


# ---------------------------------------------------------------------------------- results
@dataclass
class SuiteResult:
    """The rows of a suite run (or of its reference): tables, JSON."""

    suite: Suite
    deals: int
    rows: list[SuiteRow]
    elapsed: float = 0.0
    workers: int = 1
    meta: dict[str, Any] = field(default_factory=dict)  # the reference's command, date, ...

    @property
    def complete(self) -> bool:
        """Whether every deal of the suite was played (not a quick check)."""
        return self.deals == self.suite.deals

    def to_dict(self) -> dict[str, Any]:
        import tt_env

        return {
            "format": SUITE_FORMAT,
            "schema_version": SUITE_SCHEMA_VERSION,
            "suite": self.suite.name,
            "tt_env_version": tt_env.__version__,
            **self.meta,
            "deals": self.deals,
            "complete": self.complete,
            "seed": self.suite.seed,
            "seats": self.suite.seats,
            "rules": self.suite.rules.to_dict(),
            "opponents": list(self.suite.opponents),
            "overall": list(self.suite.overall),
            "workers": self.workers,
            "elapsed_seconds": round(self.elapsed, 1),
            "rows": [r.to_dict() for r in self.rows],
        }

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        text = json.dumps(self.to_dict(), indent=2, ensure_ascii=False)
        if path is not None:
            write_text_atomically(path, text + "\n")
        return text

    def table(self, reference: SuiteResult | None = None) -> str:
        """This run's rows beside ``reference``'s (marked ``*``), as plain text."""
        lines = [f"tt-arena --suite {self.suite.describe()}"]
        if self.meta.get("command"):  # a reference file, shown alone
            lines.append(self.source_line())
        else:
            lines.append(
                f"this run: {self.deals:,} deals"
                + ("" if self.complete else f" (a quick check: the first {self.deals:,} only)")
                + f", {self.elapsed:.1f} s on {self.workers} worker(s)"
            )
        rows = [(r, True) for r in self.rows]
        if reference is not None:
            lines.append(reference.source_line())
            if reference.deals != self.deals:
                lines.append(
                    f"note: the reference rows are over {reference.deals:,} deals and this "
                    f"run's over {self.deals:,}: compare them with care"
                )
            rows += [(r, False) for r in reference.rows]
        rows.sort(key=lambda x: (_key(x[0].overall_score_diff.mean), not x[1], x[0].label))
        lines += ["", score_title(self.suite) + ("; *: this run" if reference else "") + ":"]
        lines += _text_grid(self.suite, rows, "score_diff", reference is not None)
        lines += ["", WIN_TITLE + ":"]
        lines += _text_grid(self.suite, rows, "win_rate", reference is not None)
        return "\n".join(lines)

    def source_line(self) -> str:
        """Where a reference's rows come from."""
        made = ", ".join(
            f"{k} {self.meta[k]}" for k in ("date", "tt_env_version") if self.meta.get(k)
        )
        trial = "" if self.complete else "; A TRIAL FILE, NOT THE SUITE'S FIGURES"
        return f"reference rows: {self.deals:,} deals ({made}){trial}"

    def markdown(self) -> str:
        """The rows as two Markdown tables (score difference, win rate), best overall first."""
        rows = sorted(self.rows, key=lambda r: (_key(r.overall_score_diff.mean), r.label))
        heads = ["agent", *(f"vs {o}" for o in self.suite.opponents), "overall"]
        out = []
        for what, title in (("score_diff", score_title(self.suite)), ("win_rate", WIN_TITLE)):
            out += [f"{title[0].upper()}{title[1:]}:", ""]
            out += ["| " + " | ".join(heads) + " |", "|" + " --- |" * len(heads)]
            for r in rows:
                cells = [f"`{r.label}`", *(_cell(r, o, what) for o in self.suite.opponents)]
                out.append("| " + " | ".join([*cells, _cell(r, None, what)]) + " |")
            out.append("")
        return "\n".join(out).rstrip("\n")


WIN_TITLE = "win rate in %, ties shared, 95% interval over deals"


def score_title(suite: Suite) -> str:
    others = "the opponent's" if suite.seats == 2 else "the mean of the other seats'"
    return (
        f"score per game less {others} (lower is better: negative, the agent scores less), "
        "paired by deal, 95% interval over deals"
    )


def _key(value: float) -> float:
    return math.inf if math.isnan(value) else value


def _cell(row: SuiteRow, opponent: str | None, what: str) -> str:
    if opponent is None:
        est = row.overall_score_diff if what == "score_diff" else row.overall_win_rate
    else:
        table = row.score_diff if what == "score_diff" else row.win_rate
        if opponent not in table:
            return "-"
        est = table[opponent]
    if what == "win_rate":
        est = Estimate(
            mean=100 * est.mean, low=100 * est.low, high=100 * est.high, n=est.n, sd=est.sd
        )
    return est.format(1)


def _text_grid(suite: Suite, rows: list[tuple[SuiteRow, bool]], what: str, mark: bool) -> list[str]:
    head = ["agent", *(f"vs {o}" for o in suite.opponents), "overall"]
    table = [head] + [
        [("* " if mine else "  ") * mark + r.label]
        + [_cell(r, o, what) for o in suite.opponents]
        + [_cell(r, None, what)]
        for r, mine in rows
    ]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = []
    for j, row in enumerate(table):
        cells = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(cells).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


# ---------------------------------------------------------------------------------- files
def reference_file(suite: Suite) -> Any:
    """The suite's reference file in the package (a ``Traversable``)."""
    return resources.files("tt_env.arena") / "suites" / f"{suite.name}.json"


def load_reference(suite: Suite | str) -> SuiteResult:
    """The suite's published reference rows (:class:`ArenaError` if missing or damaged)."""
    suite = get_suite(suite) if isinstance(suite, str) else suite
    path = reference_file(suite)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ArenaError(f"cannot read the reference rows of {suite.name}: {exc}") from None
    return read_suite_json(text, f"the reference of {suite.name}", suite)


def load_suite_results(path: str | os.PathLike) -> SuiteResult:
    """A suite's results written by ``tt-arena --suite ... --json`` (or a reference file)."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ArenaError(f"cannot read {path}: {exc}") from None
    return read_suite_json(text, str(path))


def read_suite_json(text: str, where: str, suite: Suite | None = None) -> SuiteResult:
    """A suite's results from their JSON text; :class:`ArenaError` naming the problem."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ArenaError(f"{where} is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != SUITE_FORMAT:
        raise ArenaError(f"{where} is not a suite's results (format {SUITE_FORMAT!r})")
    version = data.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise ArenaError(f"{where} has no schema_version")
    if version > SUITE_SCHEMA_VERSION:
        raise ArenaError(
            f"{where} has schema version {version}; this tt_env reads up to "
            f"{SUITE_SCHEMA_VERSION}: upgrade tt_env"
        )
    name = data.get("suite")
    if suite is None:
        suite = get_suite(name) if isinstance(name, str) else None
    if suite is None or name != suite.name:
        raise ArenaError(f"{where} is the results of suite {name!r}, not of a known suite")
    try:
        rows = [SuiteRow.from_dict(r) for r in data["rows"]]
        deals = int(data["deals"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ArenaError(f"{where}: its rows are damaged ({type(exc).__name__}: {exc})") from None
    meta = {k: data[k] for k in ("command", "date", "tt_env_version") if k in data}
    return SuiteResult(
        suite=suite,
        deals=deals,
        rows=rows,
        elapsed=float(data.get("elapsed_seconds") or 0.0),
        workers=int(data.get("workers") or 1),
        meta=meta,
    )
