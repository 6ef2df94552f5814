"""The index page of ``tt-arena --replays DIR``: the leaderboard, the pairings and every game of
each table, with links to its replay page (:mod:`tt_env.replay`) and record."""

from __future__ import annotations

import os
from pathlib import Path

from tt_env.arena.games import replay_name
from tt_env.arena.schedule import tables_for
from tt_env.util.files import write_text_atomically

_INDEX_STYLE = """
body { margin: 0 18px 24px; background: #1f5f3f; color: #f0f0e6;
  font: 14px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
a { color: #4fd8ff; } pre { background: #143c28; padding: 8px; overflow-x: auto; }
table { border-collapse: collapse; margin: 4px 0 12px; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid #2b5a40; padding: 2px 8px; text-align: right; }
th { color: #aac8b4; font-weight: 400; } td.name { text-align: left; }
h2 { font-size: 16px; margin: 18px 0 4px; } .win { color: #f1c40f; font-weight: 700; }
"""


def _esc(text: object) -> str:
    return (
        str(text)
        .replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
    )


def tournament_index_html(result, directory: str | os.PathLike) -> str:
    """The index page of ``tt-arena --replays DIR``: the leaderboard, the pairings (the
    pairwise table, each cell a link to that pairing's games) and every game of each table with
    its scores and links to its replay page and record (a game without files in ``directory``,
    one played before a ``--resume``, is listed without links)."""
    labels = result.labels
    tables = tables_for(len(labels), result.seats)
    by_table: dict[int, list] = {t: [] for t in range(len(tables))}
    for game in result.results:
        by_table[game.table].append(game)
    anchor = {frozenset(labels[i] for i in table): f"table-{t}" for t, table in enumerate(tables)}
    order = [a.label for a in result.leaderboard]
    lines = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>tt-arena replays</title>',
        f"<style>{_INDEX_STYLE}</style></head><body>",
        "<h1>tt-arena replays</h1>",
        f"<pre>{_esc(result.table())}</pre>",
        "<h2>Pairings</h2>",
        "<p>Mean score difference, row minus column, paired by deal (negative: row better); "
        "each cell links to the games of its table.</p>",
        "<table><tr><th></th>" + "".join(f"<th>{_esc(b)}</th>" for b in order) + "</tr>",
    ]
    for a in order:
        cells = []
        for b in order:
            target = anchor.get(frozenset((a, b))) if result.seats == 2 else None
            if a == b:
                cells.append("<td></td>")
                continue
            try:
                text = result.pair(a, b).diff.format(1)
            except KeyError:
                text = "-"
            if target is None:
                cells.append(f"<td>{_esc(text)}</td>")
            else:
                cells.append(f'<td><a href="#{target}">{_esc(text)}</a></td>')
        lines.append(f'<tr><td class="name">{_esc(a)}</td>' + "".join(cells) + "</tr>")
    lines.append("</table>")
    for t, table in enumerate(tables):
        title = " vs ".join(labels[i] for i in table)
        lines.append(f'<h2 id="table-{t}">Table {t}: {_esc(title)}</h2>')
        head = "".join(f"<th>seat {s}</th>" for s in range(result.seats))
        lines.append(
            f"<table><tr><th>deal</th><th>rotation</th>{head}<th>winner</th>"
            "<th>replay</th><th>record</th></tr>"
        )
        for game in sorted(by_table[t], key=lambda g: g.key):
            name = replay_name(game.key)
            seats = "".join(
                f'<td class="name{" win" if s in game.winners else ""}">'
                f"{_esc(labels[agent])}: {score}</td>"
                for s, (agent, score) in enumerate(zip(game.seats, game.scores))
            )
            winners = ", ".join(labels[game.seats[s]] for s in game.winners)
            links = [
                f'<td><a href="{name}{suffix}">{label}</a></td>'
                if os.path.exists(os.path.join(directory, name + suffix))
                else "<td>-</td>"
                for suffix, label in ((".html", "watch"), (".json", "record"))
            ]
            lines.append(
                f"<tr><td>{game.deal}</td><td>{game.rotation}</td>{seats}"
                f'<td class="name">{_esc(winners)}</td>{"".join(links)}</tr>'
            )
        lines.append("</table>")
    lines.append("</body></html>")
    return "\n".join(lines) + "\n"


def write_tournament_index(result, directory: str | os.PathLike) -> Path:
    """Write ``directory/index.html`` (:func:`tournament_index_html`), whole or not at all."""

    path = Path(directory) / "index.html"
    write_text_atomically(path, tournament_index_html(result, directory))
    return path


# ---------------------------------------------------------------------------------- CLI
