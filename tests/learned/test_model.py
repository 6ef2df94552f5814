"""Model files and learned agents without torch: saving, loading, clear errors, the shipped model.

Playing a model needs only numpy (:class:`tt_env.learned.model.NumpyCardNet`); that it computes
what the torch network computes is tested in ``test_training.py`` (which needs torch).
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tt_env.agents import make_agent
from tt_env.agents.learned import LearnedAgent
from tt_env.arena import run_tournament
from tt_env.env import aec as three_thirteen_v0
from tt_env.game.rules import Rules
from tt_env.learned.model import (
    MODEL_FORMAT,
    ModelError,
    load_model,
    parameter_shapes,
    save_model,
)

ROOT = Path(__file__).resolve().parents[2]
from helpers import play_checked, tiny_model  # noqa: E402

SHIPPED = ROOT / "models" / "distilled_2p_standard.npz"
SHIPPED_MODELS = [
    ("led_distilled_2p_standard", 2),
    ("ppo_long_2p_standard", 2),
    ("distilled_2p_standard", 2),
    ("distilled_4p_standard", 4),
    ("led_distilled_4p_standard", 4),
    ("led_values_4p_standard", 4),
]


def test_a_saved_model_reloads_with_its_weights_and_metadata(tmp_path):
    path = tiny_model(tmp_path / "m.npz", Rules(), seed=4)
    model = load_model(path)
    assert model.rules == Rules() and model.metadata["num_players"] == 2
    assert set(model.weights) == set(
        parameter_shapes(global_width=model.features.global_width, card_hidden=8, trunk_hidden=8)
    )
    x = np.random.default_rng(0).normal(size=(3, model.features.size))
    logits, value = model.net.actor(x), model.net.critic(x)
    assert logits.shape == (3, 108) and value.shape == (3, 1)
    # The same weights give the same outputs; other weights give others.
    np.testing.assert_array_equal(load_model(path).net.actor(x), logits)
    other = load_model(tiny_model(tmp_path / "o.npz", Rules(), seed=5))
    assert not np.allclose(other.net.actor(x), logits)
    assert not list(tmp_path.glob("*.tmp"))  # written atomically


def test_missing_model_file_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="no such model file"):
        make_agent(str(tmp_path / "nowhere.npz"), 2)
    with pytest.raises(ModelError, match="no such model file"):
        load_model(tmp_path / "nowhere.npz")
    with pytest.raises(ModelError, match="is a directory"):
        load_model(tmp_path)


def test_corrupt_model_file_is_a_clear_error(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"this is not a model")
    with pytest.raises(ModelError, match="corrupt or not a tt_env model"):
        make_agent(str(bad), 2)
    good = tiny_model(tmp_path / "good.npz", Rules())
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:500])
    with pytest.raises(ModelError, match="corrupt"):
        make_agent(str(truncated), 2)
    other = tmp_path / "other.npz"
    np.savez(other, weights=np.zeros(3))
    with pytest.raises(ModelError, match="not a tt_env model"):
        make_agent(str(other), 2)
    pickled = tmp_path / "pickled.npz"  # object arrays would run code on load: refused
    np.savez(pickled, __format__=np.array(MODEL_FORMAT), x=np.array([{"a": 1}], dtype=object))
    with pytest.raises(ModelError, match="corrupt or not a tt_env model"):
        load_model(pickled)


def test_model_with_damaged_parts_is_a_clear_error(tmp_path):
    path = tiny_model(tmp_path / "m.npz", Rules())
    with np.load(path) as archive:
        arrays = {k: archive[k] for k in archive.files}

    def write(name: str, **changes) -> Path:
        out = tmp_path / name
        np.savez(out, **{**arrays, **changes})
        return out

    with pytest.raises(ModelError, match="unsupported model file version 99"):
        load_model(write("v.npz", __version__=np.array(99)))
    with pytest.raises(ModelError, match="metadata cannot be read"):
        load_model(write("meta.npz", __metadata__=np.array("{not json")))
    with pytest.raises(ModelError, match=r"card\.0\.weight has shape"):
        load_model(write("shape.npz", **{"card.0.weight": np.zeros((2, 2), np.float32)}))
    missing = {k: v for k, v in arrays.items() if k != "trunk.2.bias"}
    np.savez(tmp_path / "missing.npz", **missing)
    with pytest.raises(ModelError, match=r"missing \['trunk\.2\.bias'\]"):
        load_model(tmp_path / "missing.npz")
    meta = json.loads(str(arrays["__metadata__"]))
    meta["observation"]["size"] += 1
    with pytest.raises(ModelError, match="another observation layout"):
        load_model(write("layout.npz", __metadata__=np.array(json.dumps(meta))))
    meta = json.loads(str(arrays["__metadata__"]))
    meta["features"] = ["not", "a", "record"]
    with pytest.raises(ModelError, match="corrupt or from another tt_env version"):
        load_model(write("features.npz", __metadata__=np.array(json.dumps(meta))))
    meta = json.loads(str(arrays["__metadata__"]))
    meta["network"]["kwargs"]["card_width"] = 3  # weights that fit it, rows that do not
    kwargs = meta["network"]["kwargs"]
    weights = {k: np.zeros(v, np.float32) for k, v in parameter_shapes(**kwargs).items()}
    narrow = save_model(tmp_path / "narrow.npz", weights, meta)
    with pytest.raises(ModelError, match="network does not fit its features"):
        load_model(narrow)
    with pytest.raises(ModelError, match="unsupported model file version 'one'"):
        load_model(write("vtext.npz", __version__=np.array("one")))
    nan = arrays["card.0.bias"].copy()
    nan[0] = np.nan
    with pytest.raises(ModelError, match=r"weight 'card.0.bias' is not finite"):
        load_model(write("nan.npz", **{"card.0.bias": nan}))
    single = tmp_path / "single.npz"
    with open(single, "wb") as fh:  # np.save: one array, not an archive
        np.save(fh, np.zeros(3))
    with pytest.raises(ModelError, match="a single numpy array"):
        load_model(single)
    foreign = tmp_path / "foreign.npz"
    with zipfile.ZipFile(foreign, "w") as archive:  # a zip whose entries are not arrays
        archive.writestr("__format__.txt", MODEL_FORMAT)
    with pytest.raises(ModelError, match="is not a numpy array"):
        load_model(foreign)
    torch_file = tmp_path / "old.pt"
    torch_file.write_bytes(b"PK")
    with pytest.raises(ModelError, match="model files are .npz archives"):
        make_agent(str(torch_file), 2)


def test_model_for_other_rules_is_a_clear_error(tmp_path):
    path = tiny_model(tmp_path / "m.npz", Rules())
    with pytest.raises(ModelError, match=r"other rules: aces_high=False \(asked: True\)"):
        make_agent(str(path), 2, Rules(aces_high=True))
    with pytest.raises(ModelError, match="other rules"):
        make_agent(str(path), 2, Rules.preset("one-wild"))


def test_model_for_another_number_of_players_is_a_clear_error(tmp_path):
    path = tiny_model(tmp_path / "m.npz", Rules())
    with pytest.raises(ModelError, match="trained for 2 players, not 3"):
        make_agent(str(path), 3)
    with pytest.raises(ValueError, match="trained for 2 players"):  # as the arena reports it
        run_tournament([str(path), "random", "greedy"], Rules(num_players=3), games=1)


def test_models_are_found_by_name(tmp_path, monkeypatch):
    tiny_model(tmp_path / "tiny_2p.npz", Rules())
    tiny_model(tmp_path / "tiny.v2.npz", Rules())
    monkeypatch.setenv("TT_ENV_MODELS", str(tmp_path))
    agent = make_agent("tiny_2p", 2)
    assert isinstance(agent, LearnedAgent) and agent.name == "tiny_2p"
    assert make_agent("tiny.v2", 2).name == "tiny.v2"  # a dot in a name is not a path
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("no_such_model_name", 2)


def test_learned_agent_for_three_players_plays_legal_moves(tmp_path):
    rules = Rules(num_players=3, max_turns_per_round=9)
    path = tiny_model(tmp_path / "m3.npz", rules)
    result = run_tournament([str(path), "random", "greedy"], rules, games=1, episode="game")
    assert len(result.results) == 3
    assert play_checked(make_agent(str(path), 3, rules), seed=1, rules=rules) > 0


def test_sampling_agent_is_reproducible(tmp_path):
    model = load_model(tiny_model(tmp_path / "m.npz", Rules()))
    env = three_thirteen_v0.raw_env()
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    a = LearnedAgent(model, seed=7, deterministic=False)
    b = LearnedAgent(model, seed=7, deterministic=False)
    picks = [a.act(obs["observation"], obs["action_mask"]) for _ in range(20)]
    assert picks == [b.act(obs["observation"], obs["action_mask"]) for _ in range(20)]
    p = a.policy(obs["observation"], obs["action_mask"])
    assert p.sum() == pytest.approx(1.0) and (p[obs["action_mask"] == 0] == 0).all()


# ---------------------------------------------------------------------------------- shipped
@pytest.mark.parametrize("name,players", SHIPPED_MODELS)
def test_the_shipped_models_load_by_name_and_play_legal_moves(name, players):
    agent = make_agent(name, players)
    path = ROOT / "models" / f"{name}.npz"
    assert isinstance(agent, LearnedAgent) and agent.name == name
    assert agent.model.path == str(path) or Path(agent.model.path).resolve() == path
    meta = agent.model.metadata
    assert meta["rules"] == Rules(num_players=players).to_dict()
    assert meta["training"]["commands"][0].startswith("tt-train --config training/config/")
    rules = Rules(num_players=players, max_turns_per_round=30)
    assert play_checked(agent, seed=11, rules=rules) > 50
    with pytest.raises(ModelError, match="other rules"):
        make_agent(name, players, Rules.preset("one-wild", num_players=players))
    with pytest.raises(ModelError, match="players"):
        make_agent(name, 3)


def test_a_damaged_shipped_model_is_left_out_of_the_default_run(tmp_path, monkeypatch):
    from tt_env import arena

    broken = tmp_path / "led_distilled_2p_standard.npz"  # found before the shipped one
    with np.load(ROOT / "models" / "led_distilled_2p_standard.npz") as archive:
        arrays = {k: archive[k] for k in archive.files}
    del arrays["value_head.2.bias"]
    np.savez(broken, **arrays)
    monkeypatch.setenv("TT_ENV_MODELS", str(tmp_path))
    specs, notes = arena.default_agents(Rules())
    assert "led_distilled_2p_standard" not in specs and "ppo_long_2p_standard" in specs
    assert len(notes) == 1 and "value_head.2.bias" in notes[0]


def test_the_shipped_model_plays_without_torch():
    """Playing needs only the core dependencies: torch is made unimportable here."""
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from tt_env.arena import run_tournament\n"
        "from tt_env.game.rules import Rules\n"
        f"r = run_tournament([{str(SHIPPED)!r}, 'greedy'], Rules(),"
        " games=1, episode='round', workers=1)\n"
        "assert 'torch' not in [m for m, v in sys.modules.items() if v is not None]\n"
        "print(len(r.results))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["2"]


# ---------------------------------------------------------------------------------- hostile files
def _npy_bytes(shape, dtype="<f4", data: bytes = b"") -> bytes:
    import io

    from numpy.lib import format as npy

    out = io.BytesIO()
    npy.write_array_header_1_0(out, {"descr": dtype, "fortran_order": False, "shape": shape})
    return out.getvalue() + data


def _model_entries(path: Path) -> dict[str, bytes]:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _write_zip(path: Path, entries: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return path


def test_an_array_header_claiming_a_huge_shape_is_refused_before_reading(tmp_path):
    entries = _model_entries(tiny_model(tmp_path / "m.npz", Rules()))
    entries["card.0.weight.npy"] = _npy_bytes((10**6, 10**6), data=b"\0" * 64)
    with pytest.raises(ModelError, match=r"claims shape \(1000000, 1000000\)"):
        load_model(_write_zip(tmp_path / "huge.npz", entries))
    entries["card.0.weight.npy"] = _npy_bytes((10**30, 0), dtype="V0")  # zero-sized items
    load_or_model_error(_write_zip(tmp_path / "v0.npz", entries))


def test_a_zip_bomb_is_refused_from_its_declared_sizes(tmp_path, monkeypatch):
    import tt_env.learned.model as model_module

    monkeypatch.setattr(model_module, "MAX_MODEL_BYTES", 2**20)
    entries = _model_entries(tiny_model(tmp_path / "m.npz", Rules()))
    entries["bomb.npy"] = _npy_bytes((2**20,), data=bytes(4 * 2**20))  # 4 MB of zeros: 4 KB
    bomb = _write_zip(tmp_path / "bomb.npz", entries)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(ModelError, match="unpack to .* bytes, more than the 1,048,576"):
        load_model(bomb)


def test_deeply_nested_metadata_is_a_model_error(tmp_path):
    path = tiny_model(tmp_path / "m.npz", Rules())
    with np.load(path) as archive:
        arrays = {k: archive[k] for k in archive.files}
    for depth, message in ((100_000, "nested too deeply"), (40, "nested more than 32 deep")):
        nested = "[" * depth + "]" * depth
        out = tmp_path / f"nested{depth}.npz"
        np.savez(out, **{**arrays, "__metadata__": np.array(f'{{"x": {nested}}}')})
        with pytest.raises(ModelError, match=message):
            load_model(out)


def test_a_device_is_not_reported_as_a_directory():
    with pytest.raises(ModelError, match="/dev/null is not a regular file"):
        load_model("/dev/null")


def load_or_model_error(path: Path) -> None:
    try:
        load_model(path)
    except ModelError as exc:
        assert str(exc)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_damage_to_a_model_file_is_a_model_error(tmp_path_factory, data):
    root = tmp_path_factory.mktemp("damaged")
    good = tiny_model(root / "m.npz", Rules()).read_bytes()
    damaged = bytearray(good)
    for _ in range(data.draw(st.integers(1, 8))):
        damaged[data.draw(st.integers(0, len(good) - 1))] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(good)))
    path = root / "damaged.npz"
    path.write_bytes(bytes(damaged[:cut] if data.draw(st.booleans()) else damaged))
    load_or_model_error(path)
