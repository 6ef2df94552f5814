"""The opponents a learner meets: a weighted pool of agent specs and of the learner's own
snapshots (the self-play league), drawn per episode and per seat."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from tt_env.game.rules import Rules
from tt_env.train.config import LEAGUE


# ---------------------------------------------------------------------------------- opponents
class OpponentPool:
    """Agents drawn per episode with weights; ``league`` draws one of the latest snapshots
    (model files in ``league_dir``) of the learner. Each seat keeps its own agent instances."""

    def __init__(
        self,
        weights: dict[str, float],
        rules: Rules,
        seed: int,
        *,
        league_dir: str | None = None,
        league_size: int = 5,
        models: dict[str, Any] | None = None,
    ) -> None:
        self.rules = rules
        # The league's loaded models, shared by the pools of a batch: the snapshot at every
        # table is then one network, and the batch runs it once for all of them.
        self.models = models
        self.weights = dict(weights)
        self.rng = np.random.default_rng(seed)
        self.league_dir = Path(league_dir) if league_dir else None
        self.league_size = league_size
        self._agents: dict[tuple[int, str], Any] = {}

    def league(self) -> list[Path]:
        """The snapshots the league plays, oldest first."""
        if self.league_dir is None or not self.league_dir.is_dir():
            return []
        found = sorted(self.league_dir.glob("step_*.npz"), key=_step_of)
        return found[-self.league_size :]

    def sample(self, seat: int) -> tuple[str, Any]:
        """``(label, agent)`` for one seat in the next episode."""
        names = list(self.weights)
        snapshots = self.league() if LEAGUE in self.weights else []
        if not snapshots and LEAGUE in names:
            names.remove(LEAGUE)
            if not names:  # only the league, and no snapshot yet: the first heuristic
                names = ["counting"]
        w = np.array([self.weights.get(n, 1.0) for n in names], float)
        name = names[int(self.rng.choice(len(names), p=w / w.sum()))]
        spec = str(snapshots[int(self.rng.integers(len(snapshots)))]) if name == LEAGUE else name
        key = (seat, spec)
        agent = self._agents.get(key)
        if agent is None:
            from tt_env.agents import make_agent

            if name == LEAGUE:  # forget snapshots that left the league
                live = {str(p) for p in snapshots}
                for old in [
                    k
                    for k in self._agents
                    if k[0] == seat
                    and k[1].endswith(".npz")
                    and k[1] not in live
                    and Path(k[1]).parent == self.league_dir
                ]:
                    del self._agents[old]
                if self.models is not None:
                    for old in [k for k in self.models if k not in live]:
                        del self.models[old]
            seed = int(self.rng.integers(2**31))
            if name == LEAGUE and self.models is not None:
                from tt_env.agents.learned import LearnedAgent
                from tt_env.learned.model import load_model

                model = self.models.get(spec)
                if model is None:
                    model = self.models[spec] = load_model(spec, self.rules)
                agent = LearnedAgent(model, self.rules.num_players, self.rules, seed)
            else:
                agent = make_agent(spec, self.rules.num_players, self.rules, seed)
            self._agents[key] = agent
        return name, agent


def _step_of(path: Path) -> int:
    match = re.search(r"(\d+)", path.stem)
    return int(match.group(1)) if match else -1


def _int_or_none(text: Any) -> int | None:
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def _checkpoint_is_whole(path: Path) -> bool:
    """Whether a stable-baselines3 checkpoint is a whole zip (every entry's CRC checked),
    with its data and policy."""
    try:
        with zipfile.ZipFile(path) as archive:
            return archive.testzip() is None and {"data", "policy.pth"} <= set(archive.namelist())
    except (OSError, zipfile.BadZipFile, EOFError, ValueError, RuntimeError):
        return False


class PoolSeat:
    """One opponent seat of the single-agent view; :class:`TrainingEnv` swaps its agent per
    episode. It forwards the agent protocol (``act``, ``reset``, ``new_round``)."""

    name = "pool"
    delegates = True  # the batched env asks self.agent, so that agents of a kind act together

    def __init__(self) -> None:
        self.agent: Any = None
        self.label = ""

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.agent.act(observation, action_mask)

    def reset(self, seed: int | None = None) -> None:
        hook = getattr(self.agent, "reset", None)
        if callable(hook):
            hook(seed)

    def new_round(self) -> None:
        hook = getattr(self.agent, "new_round", None)
        if callable(hook):
            hook()
