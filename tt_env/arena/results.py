"""A tournament's result (:class:`TournamentResult`): its tables, CSV, JSON and plot, and reading
saved results back (:func:`load_results`)."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tt_env.arena.schedule import ArenaError, GameResult, tables_for
from tt_env.arena.stats import (
    CONFIDENCE,
    AgentStats,
    Estimate,
    PairStats,
    _labels,
    agent_statistics,
    mean_ci,
    openskill_ratings,
    pairwise_statistics,
)
from tt_env.game.rules import Rules
from tt_env.util.files import atomic_path, write_text_atomically


@dataclass
class TournamentResult:
    """Everything a tournament produced: its settings, every game and the statistics."""

    specs: list[str]
    labels: list[str]
    rules: Rules
    seats: int
    games: int  # deals
    seed: int
    episode: str
    results: list[GameResult]
    agents: list[AgentStats] = field(default_factory=list)
    pairwise: list[PairStats] = field(default_factory=list)
    elapsed: float = 0.0
    workers: int = 1

    @classmethod
    def from_results(
        cls,
        specs: Sequence[str],
        rules: Rules,
        *,
        seats: int,
        games: int,
        seed: int,
        episode: str,
        results: Sequence[GameResult],
        elapsed: float = 0.0,
        workers: int = 1,
    ) -> TournamentResult:
        """Compute every statistic from the games (sorted into canonical order first)."""
        labels = _labels(specs)
        ordered = sorted(results, key=lambda g: g.key)
        stats = agent_statistics(ordered, labels, specs)
        ratings = openskill_ratings(ordered, len(labels))
        if ratings is not None:
            stats = [
                AgentStats(
                    **{
                        **_shallow(s),
                        "rating_mu": mu,
                        "rating_sigma": sigma,
                        "rating_ordinal": ordinal,
                    }
                )
                for s, (mu, sigma, ordinal) in zip(stats, ratings)
            ]
        return cls(
            specs=list(specs),
            labels=labels,
            rules=rules,
            seats=seats,
            games=games,
            seed=seed,
            episode=episode,
            results=ordered,
            agents=stats,
            pairwise=pairwise_statistics(ordered, labels),
            elapsed=elapsed,
            workers=workers,
        )

    # -------------------------------------------------------------- views
    @property
    def leaderboard(self) -> list[AgentStats]:
        """Agents from the lowest (best) mean score to the highest."""
        return sorted(self.agents, key=lambda s: (s.score.mean, s.label))

    def versus_table(self, label: str) -> Estimate:
        """``label``'s score less the mean of the other seats' scores, per game, averaged over
        each deal's games, with its 95% interval over deals (negative: it scores less than its
        table). With two seats this is the pairwise difference."""
        a = self.labels.index(label)
        per_deal: dict[int, list[float]] = {}
        for r in self.results:
            if a in r.seats:
                mine = r.scores[r.seats.index(a)]
                others = [x for s, x in zip(r.seats, r.scores) if s != a]
                if not others:  # the same agent in every seat
                    continue
                per_deal.setdefault(r.deal, []).append(mine - float(np.mean(others)))
        return mean_ci([float(np.mean(per_deal[d])) for d in sorted(per_deal)])

    def pair(self, a: str, b: str) -> PairStats:
        """The pairwise statistics of ``a`` against ``b`` (labels)."""
        for p in self.pairwise:
            if p.a == a and p.b == b:
                return p
        raise KeyError(f"{a!r} and {b!r} never met")

    @property
    def games_expected(self) -> int:
        """Games of the whole tournament: deals x tables x seat rotations."""
        return self.games * len(tables_for(len(self.specs), self.seats)) * self.seats

    @property
    def complete(self) -> bool:
        """False for the games finished before an interruption (:class:`TournamentInterrupted`)."""
        return len(self.results) >= self.games_expected

    def summary_dict(self) -> dict[str, Any]:
        """The settings and the statistics as plain data (what ``--json`` writes, without games)."""
        return {
            "format": RESULTS_FORMAT,
            "schema_version": RESULTS_SCHEMA_VERSION,
            "settings": {
                "agents": self.specs,
                "labels": self.labels,
                "seats": self.seats,
                "games": self.games,
                "games_played": len(self.results),
                "games_expected": self.games_expected,
                "complete": self.complete,
                "seed": self.seed,
                "episode": self.episode,
                "rules": self.rules.to_dict(),
                "confidence": CONFIDENCE,
                "workers": self.workers,
                "elapsed_seconds": round(self.elapsed, 3),
            },
            "agents": [_jsonable(asdict(s)) for s in self.leaderboard],
            "pairwise": [_jsonable(asdict(p)) for p in self.pairwise],
        }

    def to_dict(self) -> dict[str, Any]:
        data = self.summary_dict()
        data["games"] = [_jsonable(asdict(g)) for g in self.results]
        return data

    def to_json(self, path: str | os.PathLike | None = None, include_games: bool = True) -> str:
        """The result as JSON (with every game unless ``include_games=False``); written to
        ``path`` if given."""
        text = json.dumps(self.to_dict() if include_games else self.summary_dict(), indent=2)
        if path is not None:
            write_text_atomically(path, text + "\n")
        return text

    def to_csv(self, path: str | os.PathLike | None = None) -> str:
        """One row per agent (leaderboard order): every estimate with its interval."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        head = ["rank", "agent", "spec", "games"]
        for name in ("score", "round_penalty", "win_rate", "out_rate"):
            head += [name, f"{name}_low", f"{name}_high"]
        head += ["deals", "rating_mu", "rating_sigma", "rating_ordinal"]
        writer.writerow(head)
        for rank, s in enumerate(self.leaderboard, 1):
            row: list[Any] = [rank, s.label, s.spec, s.games]
            for est in (s.score, s.round_penalty, s.win_rate, s.out_rate):
                row += [_num(est.mean), _num(est.low), _num(est.high)]
            row += [s.score.n, _num(s.rating_mu), _num(s.rating_sigma), _num(s.rating_ordinal)]
            writer.writerow(row)
        text = out.getvalue()
        if path is not None:
            write_text_atomically(path, text)
        return text

    _COLUMNS = (
        "#",
        "agent",
        "games",
        "score/game",
        "penalty/round",
        "win rate",
        "out rate",
        "rating",
    )

    def _rows(self) -> list[list[str]]:
        rows = []
        for rank, s in enumerate(self.leaderboard, 1):
            rows.append(
                [
                    str(rank),
                    s.label,
                    str(s.games),
                    s.score.format(1),
                    s.round_penalty.format(2),
                    _pct(s.win_rate),
                    _pct(s.out_rate),
                    "n/a" if s.rating_ordinal is None else f"{s.rating_ordinal:.1f}",
                ]
            )
        return rows

    def _pair_rows(self) -> list[list[str]]:
        order = [s.label for s in self.leaderboard]
        return [[a] + ["" if a == b else _pair_cell(self, a, b) for b in order] for a in order]

    def table(self) -> str:
        """The leaderboard and the pairwise table as plain text."""
        lines = [self._title(), ""]
        lines += _grid([list(self._COLUMNS)] + self._rows())
        lines += ["", _LEGEND]
        lines += self.usage_lines()
        note = self.rating_note()
        if note:
            lines += [note]
        if self.pairwise:
            lines += ["", _PAIR_TITLE + ":"]
            lines += _grid([[""] + [s.label for s in self.leaderboard]] + self._pair_rows())
        lines += self._table_lines()
        return "\n".join(lines)

    def _table_lines(self) -> list[str]:
        """With more than two seats: each agent's score less the mean of the rest of its table
        (the duplicate comparison of one agent against a whole table)."""
        if self.seats <= 2:
            return []
        lines = ["", _TABLE_TITLE + ":"]
        width = max(len(s.label) for s in self.leaderboard)
        for s in self.leaderboard:
            lines.append(f"  {s.label:<{width}}  {self.versus_table(s.label).format(1)}")
        return lines

    def usage_lines(self) -> list[str]:
        """The costs of the agents that report them (``llm`` agents) or forfeited a round: a
        table of requests, tokens per game, seconds per decision, fallbacks and forfeits;
        empty when none does."""
        board = [(rank, s) for rank, s in enumerate(self.leaderboard, 1) if s.usage]
        if not board:
            return []
        rows = [
            ["#", "agent", "asked", "tokens/game", "s/decision", "retries", "fallbacks", "forfeits"]
        ]
        rounds = self.rules.num_rounds if self.episode == "game" else 1
        for rank, s in board:
            u = s.usage
            asked = u.get("asked", 0.0)
            tokens = u.get("prompt_tokens", 0.0) + u.get("completion_tokens", 0.0)
            fallbacks = u.get("fallbacks", 0.0)
            share = f" ({100 * fallbacks / asked:.1f}%)" if asked else ""
            forfeits = u.get("forfeits", 0.0)
            rows.append(
                [
                    str(rank),
                    s.label,
                    f"{asked:,.0f}",
                    f"{tokens / max(1, s.games):,.0f}",
                    f"{u.get('seconds', 0.0) / asked:.2f}" if asked else "-",
                    f"{u.get('retries', 0.0):,.0f}",
                    f"{fallbacks:,.0f}{share}",
                    f"{forfeits:,.0f} ({100 * forfeits / max(1, s.games * rounds):.1f}%)",
                ]
            )
        return [
            "",
            "costs (asked: decisions put to the model; a fallback plays counting's move after "
            "a failed request, or two unusable answers with on_invalid=fallback; a forfeit gives "
            "up the round after two unusable answers (on_invalid=forfeit), scored as if the "
            "whole hand were held; forfeits in % of rounds played):",
            *_grid(rows),
        ]

    def rating_note(self) -> str:
        """A sentence when the ratings order the agents otherwise than the leaderboard (which
        ranks by mean score), saying why; empty when they agree."""
        board = [s for s in self.leaderboard if s.rating_ordinal is not None]
        swapped = [
            (a.label, b.label)
            for i, a in enumerate(board)
            for b in board[i + 1 :]
            if b.rating_ordinal > a.rating_ordinal
        ]
        if not swapped:
            return ""
        pairs = "; ".join(f"{b} above {a}" for a, b in swapped)
        return (
            f"note: the rating puts {pairs}. The rank is by mean score; the rating counts "
            "only who finished ahead of whom, game by game, not by how many points, and "
            "its uncertainty (3 sigma) is subtracted: when the scores are close the two can "
            "disagree (see the pairwise intervals)."
        )

    def _title(self) -> str:
        tables = len(tables_for(len(self.labels), self.seats))
        if tables == 1:
            layout = f"{self.games} deals x {self.seats} seat rotations"
        else:
            layout = (
                f"{self.games} deals x {tables} tables (every {self.seats} of the "
                f"{len(self.labels)} agents) x {self.seats} seat rotations"
            )
        played = (
            f"{len(self.results)} games"
            if self.complete
            else f"{len(self.results)} of {self.games_expected} games (interrupted)"
        )
        return (
            f"tt-arena: {played} = {layout}; episode={self.episode}, "
            f"seed={self.seed}, {self.rules.brief()}; {self.elapsed:.1f} s on "
            f"{self.workers} worker(s)"
        )

    def print(self, file=None) -> None:
        """Print the tables: with rich on a terminal (when installed), else as plain text."""
        file = file or sys.stdout
        try:
            from rich.console import Console
            from rich.table import Table
        except ImportError:
            Console = None
        if Console is None or not getattr(file, "isatty", lambda: False)():
            print(self.table(), file=file)
            return
        console = Console(file=file)
        console.print(self._title())
        board = Table(caption=_LEGEND, caption_justify="left")
        for col in self._COLUMNS:
            board.add_column(col, justify="left" if col == "agent" else "right")
        for row in self._rows():
            board.add_row(*row)
        console.print(board)
        for line in self.usage_lines():
            console.print(line, markup=False, highlight=False)
        note = self.rating_note()
        if note:
            console.print(note)
        if self.pairwise:
            pairs = Table(title=_PAIR_TITLE, title_justify="left")
            pairs.add_column("")
            for s in self.leaderboard:
                pairs.add_column(s.label, justify="right")
            for row in self._pair_rows():
                pairs.add_row(*row)
            console.print(pairs)
        for line in self._table_lines():
            console.print(line)

    def plot(self, path: str | os.PathLike) -> None:
        """A PNG of each agent's mean score per game and win rate, with 95% intervals."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        board = self.leaderboard
        names = [s.label for s in board]
        y = np.arange(len(board))
        fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(10, 1.2 + 0.6 * len(board)), sharey=True)
        for ax, attr, title in (
            (ax1, "score", "score per game (lower is better)"),
            (ax2, "win_rate", "win rate"),
        ):
            est = [getattr(s, attr) for s in board]
            means = np.array([e.mean for e in est])
            err = np.array([[e.mean - e.low, e.high - e.mean] for e in est]).T
            err = np.nan_to_num(err)
            ax.barh(y, means, xerr=err, color="#4c72b0", alpha=0.85, capsize=4)
            for yi, e in zip(y, est):
                label = f"{e.mean:.1f}" if attr == "score" else f"{100 * e.mean:.0f}%"
                ax.annotate(
                    label,
                    (max(e.mean, 0), yi),
                    xytext=(4, 6),
                    textcoords="offset points",
                    fontsize=8,
                )
            positive = means[means > 0]
            if attr == "score" and positive.size and positive.max() > 10 * max(positive.min(), 1.0):
                ax.set_xscale("symlog", linthresh=10)  # keep weak and strong agents readable
                title += ", log scale"
            ax.set_title(title)
            ax.margins(x=0.15)
            ax.grid(axis="x", alpha=0.3)
        ax2.axvline(1.0 / self.seats, color="grey", linestyle=":", linewidth=1)
        ax1.set_yticks(y, names)
        ax1.invert_yaxis()
        fig.suptitle(
            f"tt-arena: {len(self.results)} games ({self.games} deals), "
            f"{self.seats} seats, 95% intervals over deals",
            fontsize=10,
        )
        fig.tight_layout()
        try:
            with atomic_path(path) as tmp:
                fig.savefig(tmp, dpi=120, format="png")
        finally:
            plt.close(fig)


def _shallow(obj) -> dict[str, Any]:
    return {f: getattr(obj, f) for f in obj.__dataclass_fields__}


def _jsonable(value):
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, 6)
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value


def _num(value: float | None) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return f"{value:.6g}"


def _pct(est: Estimate) -> str:
    if math.isnan(est.low):
        return f"{100 * est.mean:.1f}%"
    return f"{100 * est.mean:.1f}% ± {100 * est.half_width:.1f}"


_LEGEND = (
    "rank by score: final score per game, lower is better; ± : 95% interval over "
    "deals; win rate: ties share; out rate: rounds gone out; rating: OpenSkill "
    "mu - 3 sigma from the finishing order of each game (higher is better)"
)
_PAIR_TITLE = (
    "mean score difference, row minus column, paired by deal (negative: row better), 95% interval"
)
_TABLE_TITLE = (
    "score less the mean of the rest of the table, per game, paired by deal (negative: better "
    "than its table), 95% interval"
)


def _pair_cell(result: TournamentResult, a: str, b: str) -> str:
    try:
        return result.pair(a, b).diff.format(1)
    except KeyError:
        return "-"


def _grid(rows: list[list[str]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for j, row in enumerate(rows):
        out.append(
            "  ".join(
                c.ljust(w) if i == 1 or (i == 0 and j > 0 and not c.isdigit()) else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths))
            )
        )
        if j == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


RESULTS_FORMAT = "tt_env.tournament"
# The layout of a --json file: a field added keeps the version, one renamed or dropped raises it.
RESULTS_SCHEMA_VERSION = 1


def load_results(path: str | os.PathLike) -> tuple[dict[str, Any], list[GameResult]]:
    """The settings and the games of a tournament's JSON (``--json``, also of an interrupted
    run); :class:`ArenaError` naming the problem if the file is not one."""
    where = f"tournament file {path}"
    try:
        with open(path, "rb") as fh:
            data = json.loads(fh.read().decode("utf-8"))
    except OSError as exc:
        raise ArenaError(f"cannot read {where}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise ArenaError(f"{where} is not tt-arena JSON ({type(exc).__name__})") from None
    version = data.get("schema_version", 1) if isinstance(data, dict) else 1  # older: none
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ArenaError(f"{where}: its schema_version is not a version number: {version!r}")
    if version > RESULTS_SCHEMA_VERSION:
        raise ArenaError(
            f"{where} has schema version {version}; this tt_env reads up to "
            f"{RESULTS_SCHEMA_VERSION}: upgrade tt_env"
        )
    settings = data.get("settings") if isinstance(data, dict) else None
    games = data.get("games") if isinstance(data, dict) else None
    if not isinstance(settings, dict) or not isinstance(games, list):
        raise ArenaError(f"{where} is not tt-arena JSON with every game (--json writes one)")
    kinds = {"agents": list, "seats": int, "games": int, "seed": int, "episode": str, "rules": dict}
    for key, kind in kinds.items():
        value = settings.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ArenaError(f"{where}: its settings have no valid {key!r}")
    if not all(isinstance(a, str) for a in settings["agents"]):
        raise ArenaError(f"{where}: its agents are not names")
    results = []
    for i, g in enumerate(games):
        try:
            results.append(_game_from_json(g))
        except (KeyError, TypeError, ValueError) as exc:
            raise ArenaError(f"{where}: game {i} is damaged ({exc})") from None
    return settings, results


def _usage_from_json(value: Any) -> tuple[dict[str, float] | None, ...]:
    if not isinstance(value, list) or not all(
        u is None
        or (
            isinstance(u, dict)
            and all(
                isinstance(k, str) and isinstance(v, (int, float)) and not isinstance(v, bool)
                for k, v in u.items()
            )
        )
        for u in value
    ):
        raise ValueError("usage is not a list of null or {name: number}")
    return tuple(None if u is None else {k: float(v) for k, v in u.items()} for u in value)


def _game_from_json(g: dict[str, Any]) -> GameResult:
    def ints(values) -> tuple[int, ...]:
        if not isinstance(values, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in values
        ):
            raise ValueError(f"expected a list of integers, got {str(values)[:40]}")
        return tuple(values)

    if not isinstance(g, dict):
        raise TypeError("not a JSON object")
    seats, scores = ints(g["seats"]), ints(g["scores"])
    penalties = g["round_penalties"]
    if not isinstance(penalties, list):
        raise ValueError("round_penalties is not a list")
    went_out = g["went_out"]
    if not isinstance(went_out, list) or not all(
        w is None or (isinstance(w, int) and not isinstance(w, bool)) for w in went_out
    ):
        raise ValueError("went_out is not a list of seats")
    result = GameResult(
        deal=ints([g["deal"]])[0],
        table=ints([g["table"]])[0],
        rotation=ints([g["rotation"]])[0],
        seats=seats,
        scores=scores,
        round_penalties=tuple(ints(p) for p in penalties),
        went_out=tuple(went_out),
        winners=ints(g["winners"]),
        steps=ints([g["steps"]])[0],
        usage=_usage_from_json(g.get("usage", [])),
    )
    if len(scores) != len(seats) or any(len(p) != len(seats) for p in result.round_penalties):
        raise ValueError("scores or penalties do not have one value per seat")
    return result
