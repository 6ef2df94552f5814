"""How big and how quick is a replay page of the largest game? Prints size, write and draw times.

Plays a game of 8 players and 22 rounds (``Rules(num_players=8, there_and_back=True)``) with
``--agent`` in every seat (default greedy: a real game) and, as the worst case, one of random
legal moves that go out when they can (its rounds mostly run to the turn cap: about ten times the
moves). For each it writes the replay page (``tt_env.replay.write_replay``, best of
``--repeat``) and prints the file size and the write time; then it opens the page in headless
Chromium (``/usr/bin/chromium``, driven as ``tests/test_replay.py`` drives it) and draws every
step, timing each with ``performance.now()`` in the page, layout included: mean and max per step.

    python benchmarks/bench_replay.py
    python benchmarks/bench_replay.py --agent counting --seed 2
    python benchmarks/bench_replay.py --screenshot docs/replay.png   # the README's picture

``--screenshot PATH`` also writes a picture of a 2-player replay (``distilled_2p_standard``
against ``search(samples=16)``, with their candidates) for the README.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # run from a checkout, uninstalled
sys.path.insert(0, str(ROOT / "tests"))  # the Chromium driver and the games of the tests

from recorded_games import play_record, quick_record  # noqa: E402

from tt_env.game.rules import Rules  # noqa: E402
from tt_env.replay import replay_data, write_replay  # noqa: E402

LARGE = Rules(num_players=8, there_and_back=True)


def measure(label: str, record: dict, folder: Path, repeat: int) -> Path:
    page = folder / f"{label}.html"
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        size = write_replay(record, page)
        best = min(best, time.perf_counter() - start)
    steps = len(replay_data(record)["steps"])
    print(
        f"  {label:<8} {len(record['moves']):>6} moves {steps:>6} steps  "
        f"{size / 1024:>7,.0f} KB  written in {best:.2f} s"
    )
    return page


def draw_times(pages: dict[str, Path]) -> None:
    from chromium import CHROMIUM, Chromium

    if not Path(CHROMIUM).exists():
        print(f"no {CHROMIUM}: the draw times need Chromium (apt-get install chromium)")
        return
    with Chromium() as browser:
        for label, page in pages.items():
            start = time.perf_counter()
            browser.open(page)
            loaded = time.perf_counter() - start
            t = browser.evaluate("ttReplay.timeAll()")
            errors = browser.errors() + browser.evaluate("window.__ttErrors")
            print(
                f"  {label:<8} loaded in {loaded:.2f} s; a step drawn in {t['mean_ms']:.1f} ms "
                f"on average, {t['max_ms']:.1f} ms at most ({t['steps']} steps)"
                + (f"; ERRORS: {errors}" if errors else "")
            )


def screenshot(path: Path, seed: int) -> None:
    from chromium import Chromium

    specs = ["distilled_2p_standard", "search(samples=16)"]
    record = play_record(Rules(), specs, seed, explain=True)
    data = replay_data(record)
    # a discard of the learned agent, with its probabilities, its hand holding a meld, in a
    # round of 10 cards or more
    step = next(
        i
        for i, s in enumerate(data["steps"])
        if "m" in s
        and s["m"]["s"] == 0
        and s["m"].get("a", {}).get("kind") == "probability"
        and len(s["m"]["a"]["values"]) >= 4
        and s["m"]["mv"].startswith("discard")
        and data["rounds"][_at(data, i)[0]]["cards"] >= 10
        and data["hands"][_at(data, i)[1][0]][0]
    )
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "replay.html"
        write_replay(record, page)
        with Chromium(width=1100, height=640) as browser:
            browser.open(page)
            browser.evaluate(f"ttReplay.go({step})")
            browser.evaluate("document.documentElement.style.overflow = 'hidden'")  # no bar
            browser.screenshot(path)
    print(f"screenshot of step {step} written to {path} ({path.stat().st_size / 1024:.0f} KB)")


def _at(data: dict, index: int) -> tuple[int, list[int]]:
    """The round and the hands (ids) at step ``index`` of a page's data."""
    r, hands = 0, []
    for step in data["steps"][: index + 1]:
        r = step.get("r", r)
        if "h" in step and not hands:
            hands = list(step["h"])
        elif "h" in step:
            for seat, h in step["h"]:
                hands[seat] = h
    return r, hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--agent", default="greedy", help="the agent of every seat (greedy)")
    parser.add_argument("--seed", type=int, default=1, help="the game's seed (1)")
    parser.add_argument("--repeat", type=int, default=3, help="writes per page, best kept (3)")
    parser.add_argument("--screenshot", type=Path, help="also write the README's picture here")
    args = parser.parse_args()
    print(f"8 players, 22 rounds (there and back), seed {args.seed}")
    start = time.perf_counter()
    played = play_record(LARGE, [args.agent] * 8, args.seed, explain=True)
    print(f"  {args.agent} played the game in {time.perf_counter() - start:.1f} s")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        pages = {
            args.agent: measure(args.agent, played, folder, args.repeat),
            "random": measure("random", quick_record(LARGE, args.seed), folder, args.repeat),
        }
        draw_times(pages)
    if args.screenshot:
        screenshot(args.screenshot, seed=3)


if __name__ == "__main__":
    main()
