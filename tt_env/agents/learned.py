"""LearnedAgent: plays a trained model (``tt-train``) from the observation and the mask.

The model file (:mod:`tt_env.learned.model`) holds the network, the rules and number of players it
was trained for and its feature transform (:mod:`tt_env.learned.features`); the agent applies that
same transform to the observation, scores the 108 actions with the network (in numpy: playing needs
no torch) and plays the best legal one (``deterministic=True``, the default) or samples from the
masked policy with its seeded generator.

Importing this module registers a model loader with :func:`tt_env.agents.register_model_loader`,
so every agent spec that names a model works wherever agents are named (``make_agent``,
``tt-arena``, ``tt-play``):

- a path to a model file: ``models/led_distilled_2p_standard.npz``, ``runs/x/model.npz``;
- the name of a model in a models directory: ``led_distilled_2p_standard`` (looked up as
  ``<dir>/<name>.npz`` in the directories of ``$TT_ENV_MODELS`` (``os.pathsep``-separated), then
  ``./models``, then the ``models/`` folder beside the ``tt_env`` package of a source checkout).

A missing file, a corrupt one, or a model trained for other rules or another number of players
raises :class:`~tt_env.learned.model.ModelError` (a ``ValueError``) saying which.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from tt_env.agents.base import BaseAgent, legal_actions
from tt_env.agents.specs import model_dirs, register_model_loader, spec_label
from tt_env.game.rules import Rules
from tt_env.learned.model import MODEL_SUFFIX, Model, ModelError, check_compatible, load_model

_OTHER_FORMATS = (".zip", ".pt", ".pth", ".onnx")  # files for other loaders: never a model name


def find_model(spec: str) -> Path | None:
    """The model file that ``spec`` names, or None if it names none (and is not a path).

    A model is a ``.npz`` path, or a name looked up in :func:`model_dirs`. Raises
    :class:`ModelError` for a ``.npz`` path that does not exist, and for a checkpoint of
    ``tt-train`` (a stable-baselines3 ``.zip``) given instead of a model.
    """
    path = Path(spec).expanduser()
    if spec.endswith(MODEL_SUFFIX):
        if path.is_file():
            return path
        if path.is_dir():
            raise ModelError(f"{spec} is a directory, not a model file")
        raise ModelError(f"no such model file: {spec}")
    if path.suffix == ".pt" and path.is_file():
        raise ModelError(
            f"{spec} is a torch file: tt_env model files are .npz archives "
            "(tt-train writes them; a .pt model of an older tt_env must be "
            "retrained)"
        )
    if path.suffix == ".zip" and _is_training_checkpoint(path):
        raise ModelError(
            f"{spec} is a tt-train checkpoint (for --resume), not a model file: "
            "play the run's model.npz or best.npz"
        )
    if path.suffix in _OTHER_FORMATS or "/" in spec or os.sep in spec:
        return None  # another loader's file, or no model at all: the registry reports it
    for folder in model_dirs():
        for candidate in (folder / f"{spec}{MODEL_SUFFIX}", folder / spec):
            if candidate.is_file():
                return candidate
    return None


def _is_training_checkpoint(path: Path) -> bool:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False
    return {"data", "policy.pth"} <= names


class LearnedAgent(BaseAgent):
    """A trained policy (see the module docstring).

    ``model``: a model file path or name, or a loaded :class:`~tt_env.learned.model.Model`.
    ``deterministic``: play the most likely legal action (default) or sample one.
    """

    def __init__(
        self,
        model: str | os.PathLike | Model,
        num_players: int = 2,
        rules: Rules | None = None,
        seed: int | None = None,
        *,
        deterministic: bool = True,
    ) -> None:
        super().__init__(num_players, rules, seed)
        if not isinstance(model, Model):
            found = find_model(str(model))
            if found is None:
                raise ModelError(
                    f"no model named {model!r} in " + ", ".join(str(d) for d in model_dirs())
                )
            model = load_model(found, self.rules)
        else:
            check_compatible(model.metadata, self.rules, f"model {model.path or ''}".strip())
        self.model = model
        self.features = model.features
        self.net = model.net
        self.deterministic = deterministic
        self.name = spec_label(model.path) if model.path else "learned"

    def policy(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """The probabilities of the 108 actions (zero for the illegal ones)."""
        return _probabilities(self._logits(observation), action_mask)

    def _logits(self, observation: np.ndarray) -> np.ndarray:
        return self.net.actor(self.features(observation))[0].astype(np.float64)

    def explain(self, observation: np.ndarray, action_mask: np.ndarray):
        """The policy's probabilities of the legal actions (for replays: see
        :mod:`tt_env.agents.base`)."""
        p = self.policy(observation, action_mask)
        return "probability", {int(a): float(p[a]) for a in legal_actions(action_mask)}

    def batch_key(self) -> tuple:
        """Agents of one network and play decide alike: :func:`tt_env.agents.together.
        act_together` answers them with one forward pass (:meth:`act_many`)."""
        return (id(self.net), id(self.features), self.deterministic)

    @classmethod
    def act_many(cls, agents, observations: np.ndarray, masks: np.ndarray) -> list[int]:
        """:meth:`act` of ``agents[i]`` (all of one :meth:`batch_key`) on each row, with one
        forward pass of the network; each agent samples from its own generator."""
        first = agents[0]
        feats = first.features.batch(observations)
        logits = first.net.actor(feats).astype(np.float64)
        actions = []
        for agent, row, mask in zip(agents, logits, np.asarray(masks)):
            legal = legal_actions(mask)
            if legal.size == 1:
                actions.append(int(legal[0]))
            elif agent.deterministic:
                actions.append(int(legal[np.argmax(row[legal])]))
            else:
                p = _probabilities(row, mask)
                actions.append(int(agent.rng.choice(p.size, p=p)))
        return actions

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_actions(action_mask)
        if legal.size == 1:
            return int(legal[0])
        if self.deterministic:
            logits = self._logits(observation)
            return int(legal[np.argmax(logits[legal])])
        p = self.policy(observation, action_mask)
        return int(self.rng.choice(p.size, p=p))


def _probabilities(logits: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
    """The softmax of ``logits`` over the legal actions (zero for the others)."""
    logits = np.where(np.asarray(action_mask).astype(bool), logits, -np.inf)
    logits = logits - logits.max()
    p = np.exp(logits)
    return p / p.sum()


@register_model_loader
def load_learned_agent(spec: str, num_players: int, rules: Rules, seed: int | None):
    """The model loader of the registry: a :class:`LearnedAgent` for a model path or name."""
    found = find_model(spec)
    if found is None:
        return None
    return LearnedAgent(load_model(found, rules), num_players, rules, seed)


__all__ = ["LearnedAgent", "find_model", "load_learned_agent", "model_dirs"]
