"""Golden playthroughs (``tests/golden/``): replay each recorded game and compare every step.

Each file holds a seeded game with every action, observation, mask, reward, flag, info and state
of the environment as it was when the file was written. The replay rebuilds the environment
from the file's header, plays the recorded actions (not the policy that chose them), writes its
own lines with the same code as the generator and compares them with the file, line by line.
Any change of behaviour of the engine, the encoder or the environment shows up here; if it is
intended, regenerate with ``python tests/golden/make_golden.py`` and explain it in the commit.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

from tt_env.encoding.observation import observation_layout, state_layout

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FILES = sorted(GOLDEN.glob("*.txt"))


def _load_generator():
    # tests/ is not a package: load the generator from its file, so that the replay writes its
    # lines with exactly the code that wrote the files.
    spec = importlib.util.spec_from_file_location("make_golden", GOLDEN / "make_golden.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


make_golden = _load_generator()
SEP = make_golden.SEP


def read(path: Path) -> tuple[dict, list[tuple[int, str]]]:
    """The header of a golden file and its other lines, with their line numbers (from 1)."""
    text = path.read_text(encoding="utf-8")
    numbered = [
        (i, line) for i, line in enumerate(text.splitlines(), 1) if not line.startswith("#")
    ]
    (_, first), rest = numbered[0], numbered[1:]
    assert first.startswith("header "), f"{path.name}: no header line"
    return json.loads(first.removeprefix("header ")), rest


# ------------------------------------------------------------------ the first difference
def _vector_item(index: int, layout) -> str:
    """Where a vector index lies in the (current) layout: ``"known[1, 37]"``."""
    for name, sl in layout.slices.items():
        if sl.start <= index < sl.stop:
            where = np.unravel_index(index - sl.start, layout.shapes[name])
            return f"{name}[{', '.join(str(int(w)) for w in where)}]"
    return "beyond the layout"


def _json_difference(want, got, path: str = "") -> str:
    if isinstance(want, dict) and isinstance(got, dict):
        for key in sorted(set(want) | set(got)):
            if want.get(key, "(missing)") != got.get(key, "(missing)"):
                return _json_difference(
                    want.get(key, "(missing)"), got.get(key, "(missing)"), f"{path}.{key}"
                )
    elif isinstance(want, list) and isinstance(got, list):
        for i in range(max(len(want), len(got))):
            a = want[i] if i < len(want) else "(missing)"
            b = got[i] if i < len(got) else "(missing)"
            if a != b:
                return _json_difference(a, b, f"{path}[{i}]")
    return f"{path.lstrip('.') or 'value'}: recorded {want!r}, replay {got!r}"


def _field_difference(key: str, want: str, got: str, num_players: int) -> str:
    """The first differing item of one field of a step line."""
    if key in ("obs", "state"):
        a = dict(p.split(":") for p in want.split())
        b = dict(p.split(":") for p in got.split())
        index = min(int(i) for i in set(a) | set(b) if a.get(i) != b.get(i))
        layout = (observation_layout if key == "obs" else state_layout)(num_players)
        return (
            f"{key}[{index}] ({_vector_item(index, layout)}): recorded "
            f"{a.get(str(index), '0')}, replay {b.get(str(index), '0')}"
        )
    if key == "info":
        return "info: " + _json_difference(json.loads(want), json.loads(got))
    if key == "mask":
        a, b = set(want.split(",")) - {""}, set(got.split(",")) - {""}
        return (
            f"mask: legal only in the record {sorted(a - b, key=int)}, "
            f"only in the replay {sorted(b - a, key=int)}"
        )
    return f"{key}: recorded {want!r}, replay {got!r}"


def step_fields(line: str) -> list[tuple[str, str]]:
    """A step line as (key, value) pairs, in order."""
    first, flags, *rest = line.split(SEP)
    step, agent, act = first.split(" ", 2)
    pairs = [("step", step), ("agent", agent), tuple(act.split("=", 1))]
    pairs += [tuple(p.split("=", 1)) for p in flags.split(" ")]
    return pairs + [tuple(p.split("=", 1)) for p in rest]


def difference(want: str, got: str, num_players: int) -> str:
    """The first differing item between a recorded line and the replay's line."""
    kind = want.split(" ", 1)[0]
    if kind != got.split(" ", 1)[0] or not (kind.isdigit() or kind == "end"):
        return f"recorded {want[:200]!r}, replay {got[:200]!r}"
    if kind == "end":
        return "end of episode, " + _json_difference(
            json.loads(want.split(" ", 2)[2]), json.loads(got.split(" ", 2)[2])
        )
    want_fields, got_fields = step_fields(want), step_fields(got)
    for (key, a), (key_b, b) in zip(want_fields, got_fields):
        if key != key_b:
            return f"recorded field {key!r}, replay field {key_b!r}"
        if a != b:
            return _field_difference(key, a, b, num_players)
    return f"recorded {want[:200]!r}, replay {got[:200]!r}"


# ------------------------------------------------------------------ the tests
def test_every_case_has_a_golden_file():
    """A case of the generator without its file (or a stray file) would go unchecked."""
    assert sorted(p.name.removesuffix(".txt") for p in FILES) == sorted(make_golden.CASES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name.removesuffix(".txt"))
def test_replay_matches_golden(path):
    """The recorded actions, replayed, give every recorded line again, to the last bit."""
    head, lines = read(path)
    assert head["format"] == make_golden.FORMAT and head["version"] == make_golden.VERSION
    assert head["name"] == path.name.removesuffix(".txt")
    num_players = head["kwargs"].get("num_players", 2)
    actions = iter([make_golden.step_action(line) for _, line in lines if line[0].isdigit()])
    replay = make_golden.playthrough(
        head["kwargs"], head["seed"], head["episodes"], actions=actions
    )
    step = None  # the last step line compared: (step, line number)
    for number, want in lines:
        try:
            got = next(replay)
        except StopIteration:
            pytest.fail(f"{path.name}: the replay ends before line {number} ({want[:80]!r})")
        except Exception as exc:  # an illegal recorded action
            pytest.fail(f"{path.name}: {_playing(step)}: {type(exc).__name__}: {exc}")
        if want[0].isdigit():
            step = (want.split(" ", 1)[0], number)
        if got != want:
            where = f"step {step[0]}" if want[0].isdigit() else " ".join(want.split(" ")[:2])
            try:
                what = difference(want, got, num_players)
            except Exception:  # a line too mangled to take apart: show both
                what = f"recorded {want[:200]!r}, replay {got[:200]!r}"
            pytest.fail(f"{path.name}: line {number} ({where}) differs: {what}")
    try:
        extra = next(replay, None)
    except Exception as exc:  # more steps than recorded
        pytest.fail(
            f"{path.name}: {_playing(step)}: the replay goes on after the last line: "
            f"{type(exc).__name__}: {exc}"
        )
    assert extra is None, f"{path.name}: the replay goes on after the last line: {extra[:80]!r}"


def _playing(step: tuple[str, int] | None) -> str:
    return "before the first step" if step is None else (f"playing step {step[0]} (line {step[1]})")
