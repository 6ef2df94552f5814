"""Play the reference rows of the evaluation suites and write them where users read them.

::

    python benchmarks/make_suite_reference.py --workers 8             # every suite, in full
    python benchmarks/make_suite_reference.py --suite standard-2p-v1  # one suite
    python benchmarks/make_suite_reference.py --deals 4 --no-docs     # a quick trial
    python benchmarks/make_suite_reference.py --docs-only             # docs from the data files

For each suite (``tt-arena --suite list``) it plays every built-in agent (the reference
opponents: random, greedy, counting, search(samples=16); ``llm`` needs a server and is left out)
and every model of ``models/`` made for the suite's number of players, each against every
reference opponent on the suite's deals, exactly as ``tt-arena --suite NAME AGENT`` does, and
writes

- the package's data file ``tt_env/arena/suites/NAME.json`` (schema version, tt_env version,
  this command, the date, the deals, every row);
- the block between ``<!-- suite-reference NAME -->`` and ``<!-- /suite-reference -->`` in
  docs/benchmark.md;
- each block between ``<!-- suite-results MODEL -->`` and ``<!-- /suite-results -->`` in
  models/README.md: that model's rows.

Each row is kept in ``build/suite-rows/`` as soon as it is played (``--rows-dir``), and a later
run takes it from there instead of playing it again when the suite, the deals, the agent (a
model: its file's contents) and the tt_env version are the same: a run stopped part-way goes on
where it stopped (``--fresh``: play every row again).

``--deals N`` plays the first N deals only: a trial, whose file says ``"complete": false`` and
whose tables say so; ``tt-arena --suite`` warns of it. ``--extra`` adds rows (e.g.
``"search(samples=128)"``, hours of CPU); ``--agents`` replaces them.

Measured CPU time, per agent as fast as counting: about 8 minutes for standard-2p-v1 and 18
for standard-4p-v1 (the search opponent is most of it); an agent that is itself a search costs
more (search(samples=16) as a row: about 22 minutes on standard-2p-v1, 40 on standard-4p-v1).
Every suite in full: about 3.5 hours of CPU (104 minutes on 2 cores), so use ``--workers``.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import re
import shlex
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tt_env" / "arena" / "suites"
BENCHMARK_MD = ROOT / "docs" / "benchmark.md"
MODELS_MD = ROOT / "models" / "README.md"
MODELS_DIR = ROOT / "models"
HOW_TO_READ = "../docs/benchmark.md#how-an-agent-is-scored"  # from models/README.md


def shipped_models(seats: int) -> list[str]:
    """The models of models/ made for ``seats`` players, by name."""
    from tt_env.learned.model import ModelError, read_model_file

    names = []
    for path in sorted(MODELS_DIR.glob("*.npz")):
        try:
            if read_model_file(path)[0].get("num_players") == seats:
                names.append(path.stem)
        except ModelError as exc:
            print(f"{path.name} left out: {exc}", file=sys.stderr)
    return names


def reference_rows(suite, agents: list[str] | None, extra: list[str]) -> list[tuple[str, str]]:
    """(spec, kind) of every row to play: built-in agents, then shipped models, then extras."""
    if agents is not None:
        return [(a, "given") for a in agents]
    rows = [(a, "built-in") for a in suite.opponents]
    rows += [(m, "model") for m in shipped_models(suite.seats)]
    return rows + [(a, "extra") for a in extra]


class RowStore:
    """The rows already played (``--rows-dir``): a JSON file per row, named after the suite,
    the deals and the agent, holding the row and the key it was played under."""

    def __init__(self, folder: Path | None, *, reuse: bool = True) -> None:
        self.folder = folder
        self.reuse = reuse

    def key(self, suite, deals: int, spec: str) -> dict[str, str | int]:
        from tt_env import __version__

        key: dict[str, str | int] = {
            "suite": suite.name,
            "deals": deals,
            "agent": spec,
            "tt_env_version": __version__,
        }
        model = MODELS_DIR / f"{spec}.npz"
        if model.is_file():  # a retrained model is played again
            key["model_sha256"] = hashlib.sha256(model.read_bytes()).hexdigest()
        return key

    def path(self, key: dict) -> Path:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(key["agent"]))
        digest = hashlib.sha256(str(key["agent"]).encode()).hexdigest()[:8]
        return self.folder / str(key["suite"]) / f"{key['deals']}-deals" / f"{name}-{digest}.json"

    def get(self, key: dict):
        from tt_env.arena.suite import SuiteRow

        if self.folder is None or not self.reuse or not self.path(key).is_file():
            return None
        try:
            data = json.loads(self.path(key).read_text(encoding="utf-8"))
            return SuiteRow.from_dict(data["row"]) if data.get("key") == key else None
        except (ValueError, KeyError, TypeError):  # a damaged file: the row is played again
            return None

    def put(self, key: dict, row) -> None:
        if self.folder is None:
            return
        from tt_env.util.files import atomic_file

        path = self.path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_file(path, "w") as fh:
            json.dump({"key": key, "row": row.to_dict()}, fh, indent=1)


def play_reference(suite, rows, *, deals: int | None, workers: int, command: str, store: RowStore):
    """The suite's reference (a :class:`~tt_env.arena.suite.SuiteResult`), row by row; a row
    already in ``store`` is taken from there."""
    from tt_env.arena.suite import SuiteResult, play_suite, suite_deals

    n = suite_deals(suite, deals)
    played = []
    start = time.perf_counter()
    for spec, kind in rows:
        key = store.key(suite, n, spec)
        row = store.get(key)
        if row is not None:
            print(f"[{suite.name}] {row.label}: kept from {store.path(key)}", file=sys.stderr)
        else:
            result = play_suite(
                suite,
                [spec],
                deals=n,
                workers=workers,
                log=lambda line: print(f"[{suite.name}] {line}", file=sys.stderr, flush=True),
            )
            row = result.rows[0]
            store.put(key, row)
            print(
                f"[{suite.name}] {row.label}: overall {row.overall_score_diff.format(1)} "
                f"in {row.seconds:.0f} s",
                file=sys.stderr,
                flush=True,
            )
        played.append(dataclasses.replace(row, extra={"kind": kind}))
    return SuiteResult(
        suite=suite,
        deals=n,
        rows=played,
        elapsed=time.perf_counter() - start,
        workers=workers,
        meta={"command": command, "date": time.strftime("%Y-%m-%d")},
    )


def replace_blocks(text: str, start: str, end: str, blocks: dict[str, str], where: str) -> str:
    """Each ``<!-- start KEY -->`` ... ``<!-- end -->`` block of ``text`` whose KEY is in
    ``blocks``, replaced by its new body; blocks of other keys are left as they are."""
    pattern = re.compile(
        rf"(<!-- {re.escape(start)} (\S+) -->\n).*?(<!-- {re.escape(end)} -->)", flags=re.S
    )

    def fill(match: re.Match) -> str:
        key = match.group(2)
        if key not in blocks:
            print(f"{where}: no rows for the block {key}; left as it is", file=sys.stderr)
            return match.group(0)
        return f"{match.group(1)}{blocks[key]}\n{match.group(3)}"

    return pattern.sub(fill, text)


def benchmark_block(result) -> str:
    """docs/benchmark.md's block of one suite: where the rows come from, and the tables."""
    made = f"tt_env {result.meta.get('tt_env_version', '?')}, {result.meta.get('date', '?')}"
    lines = [
        f"Reference rows of `{result.suite.name}`: {result.deals:,} deals ({made}), made by "
        f"`{result.meta.get('command', 'benchmarks/make_suite_reference.py')}`. The same "
        f"rows print with `tt-arena --suite {result.suite.name}`.",
    ]
    if not result.complete:
        lines.append(
            f"\n**A trial over {result.deals:,} of the suite's {result.suite.deals:,} deals, not "
            "the suite's figures**: `python benchmarks/make_suite_reference.py` plays them all."
        )
    return "\n".join(lines) + "\n\n" + result.markdown()


def model_block(model: str, results) -> str | None:
    """The suite rows of ``model`` for its card, or None if no suite has a row for it."""
    lines = []
    for result in results:
        row = next((r for r in result.rows if r.label == model), None)
        if row is None:
            continue
        suite = result.suite
        others = "the opponent's" if suite.seats == 2 else "the mean of the 3 opponents'"
        trial = "" if result.complete else f"; A TRIAL over {result.deals:,} deals only"
        heads = ["suite", *(f"vs {o}" for o in suite.opponents), "overall", "win rate"]
        overall_win = row.overall_win_rate
        lines += [
            f"`tt-arena --suite {suite.name} {model}`: {result.deals:,} deals{trial}; the "
            f"model's score per game less {others} (negative: the model better), 95% "
            f"intervals over deals; overall and win rate: against {', '.join(suite.overall)} "
            f"([how to read it]({HOW_TO_READ})):",
            "",
            "| " + " | ".join(heads) + " |",
            "|" + " --- |" * len(heads),
            "| "
            + " | ".join(
                [
                    f"`{suite.name}`",
                    *(row.score_diff[o].format(1) for o in suite.opponents),
                    row.overall_score_diff.format(1),
                    f"{100 * overall_win.mean:.1f}% ± {100 * overall_win.half_width:.1f}",
                ]
            )
            + " |",
            "",
        ]
    return "\n".join(lines).rstrip("\n") or None


def write_docs(results) -> None:
    """docs/benchmark.md's blocks and the model cards' blocks, from ``results``."""
    if BENCHMARK_MD.exists():
        blocks = {r.suite.name: benchmark_block(r) for r in results}
        text = BENCHMARK_MD.read_text(encoding="utf-8")
        new = replace_blocks(text, "suite-reference", "/suite-reference", blocks, "benchmark.md")
        BENCHMARK_MD.write_text(new, encoding="utf-8")
        print(f"{BENCHMARK_MD.relative_to(ROOT)}: reference tables written", file=sys.stderr)
    if MODELS_MD.exists():
        text = MODELS_MD.read_text(encoding="utf-8")
        keys = re.findall(r"<!-- suite-results (\S+) -->", text)
        blocks = {k: b for k in keys if (b := model_block(k, results)) is not None}
        new = replace_blocks(text, "suite-results", "/suite-results", blocks, "models/README.md")
        MODELS_MD.write_text(new, encoding="utf-8")
        print(f"models/README.md: {len(blocks)} model block(s) written", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    from tt_env.arena.suite import SUITES, get_suite, load_reference

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", action="append", help="a suite (default: every one)")
    parser.add_argument("--deals", type=int, help="a trial: the first N deals only")
    parser.add_argument("--workers", type=int, default=0, help="processes (0: one per core)")
    parser.add_argument("--agents", help="comma-separated rows instead of the default ones")
    parser.add_argument("--extra", default="", help="comma-separated rows to add")
    parser.add_argument(
        "--rows-dir",
        type=Path,
        default=ROOT / "build" / "suite-rows",
        help="where each played row is kept, and taken from by a later run (default: %(default)s)",
    )
    parser.add_argument(
        "--fresh", action="store_true", help="play every row again (and keep the new ones)"
    )
    parser.add_argument("--no-docs", action="store_true", help="write the data files only")
    parser.add_argument(
        "--docs-only", action="store_true", help="play nothing: the docs from the data files"
    )
    args = parser.parse_args(argv)
    from tt_env.agents import split_specs

    suites = [get_suite(n) for n in (args.suite or list(SUITES))]
    if args.docs_only:
        write_docs([load_reference(s) for s in SUITES.values()])
        return 0
    workers = args.workers if args.workers > 0 else max(1, os.cpu_count() or 1)
    command = "python benchmarks/make_suite_reference.py " + shlex.join(
        sys.argv[1:] if argv is None else argv
    )
    agents = None if args.agents is None else split_specs(args.agents)
    for suite in suites:
        rows = reference_rows(suite, agents, split_specs(args.extra))
        store = RowStore(args.rows_dir, reuse=not args.fresh)
        result = play_reference(
            suite, rows, deals=args.deals, workers=workers, command=command.strip(), store=store
        )
        DATA.mkdir(exist_ok=True)
        result.to_json(DATA / f"{suite.name}.json")
        print(f"tt_env/arena/suites/{suite.name}.json written", file=sys.stderr)
    if not args.no_docs:
        write_docs(
            [load_reference(s) for s in SUITES.values() if (DATA / f"{s.name}.json").exists()]
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
