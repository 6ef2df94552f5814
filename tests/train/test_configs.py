"""Every config shipped in training/config/ loads and passes the checks a run makes before it
starts (a misspelt setting, agent, model name or rule fails here, not hours into a run)."""

from pathlib import Path

import pytest

pytest.importorskip("torch")

from tt_env.train import TrainConfig, check_run, load_config_file  # noqa: E402

CONFIGS = sorted(
    p
    for p in (Path(__file__).resolve().parents[2] / "training" / "config").iterdir()
    if p.suffix in (".toml", ".yaml", ".yml")
)


def test_the_configs_are_found():
    assert len(CONFIGS) >= 10


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_shipped_config_passes_the_run_checks(path, tmp_path):
    data = load_config_file(path)
    config = TrainConfig(**{**data, "run_dir": str(tmp_path / "runs"), "output": ""})
    rules = check_run(config)
    assert rules.num_players == config.players
