"""The learned policy network and its model file (torch only; no stable-baselines3 needed).

:class:`CardNet` scores the 108 actions from the features of :mod:`tt_env.features`. It is
*equivariant over card kinds*: one small network reads the row of each card kind (with a summary
of the whole table), and the same weights score discarding or going out with every card, so what
it learns about the 7 of hearts holds for every card. A global trunk scores the two draws and the
value of the position.

A model file (``.pt``, written by :func:`save_model`, read by :func:`load_model`) is one
``torch.save`` dict, loaded with ``weights_only=True`` (no code runs on load)::

    {"format": "tt_env.model", "version": 1,
     "metadata": {"rules": {...}, "num_players": 2,
                  "observation": {"size": 413, "pieces": [[name, width, per_seat], ...]},
                  "features": {"name": "card-features", "version": 1, ...},
                  "network": {"class": "CardNet", "kwargs": {...}},
                  "training": {"command": "...", "config": {...}, "timesteps": ..., ...}},
     "state_dict": {...}}

:func:`load_model` raises :class:`ModelError` (a ``ValueError``) with a clear message for a
missing file, a file that is not a tt_env model (or is corrupt), and a model trained for other
rules, another number of players or another observation layout.
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from torch import nn

from .actions import DISCARD_ACTION_BASE, GO_OUT_ACTION_BASE, NUM_ACTIONS
from .cards import NUM_KINDS
from .features import CARD_WIDTH, CardFeatures
from .observation import OBSERVATION_PIECES, observation_size
from .rules import Rules

MODEL_FORMAT = "tt_env.model"
MODEL_VERSION = 1
MODEL_SUFFIX = ".pt"

assert DISCARD_ACTION_BASE == 2 and GO_OUT_ACTION_BASE == 2 + NUM_KINDS
assert NUM_ACTIONS == 2 + 2 * NUM_KINDS


class ModelError(ValueError):
    """A model file that is missing, corrupt, or made for other rules or players."""


# ---------------------------------------------------------------------------------- network
def _mlp(sizes: list[int], last_activation: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers.append(nn.Linear(a, b))
        if last_activation or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class CardNet(nn.Module):
    """Action logits and a value from the feature vector of :class:`~tt_env.features.CardFeatures`.

    ``global_width``: the length of the global part of the features (it depends on the number of
    players); ``card_hidden``/``trunk_hidden``: layer widths. ``actor(x)`` gives ``(B, 108)``
    logits (mask them before use), ``critic(x)`` ``(B, 1)`` values, ``forward(x)`` both.
    """

    def __init__(self, global_width: int, card_width: int = CARD_WIDTH, card_hidden: int = 64,
                 trunk_hidden: int = 128) -> None:
        super().__init__()
        self.card_width = card_width
        self.global_width = global_width
        self.global_in = _mlp([global_width, card_hidden])
        self.card = _mlp([card_width + card_hidden, card_hidden, card_hidden])
        self.trunk = _mlp([3 * card_hidden, trunk_hidden, card_hidden])
        self.card_head = _mlp([2 * card_hidden, card_hidden, 2], last_activation=False)
        self.draw_head = nn.Linear(card_hidden, 2)
        self.value_head = _mlp([card_hidden, card_hidden, 1], last_activation=False)

    def _encode(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        split = NUM_KINDS * self.card_width
        cards = x[:, :split].reshape(-1, NUM_KINDS, self.card_width)
        g = self.global_in(x[:, split:])
        c = self.card(torch.cat([cards, g.unsqueeze(1).expand(-1, NUM_KINDS, -1)], dim=-1))
        trunk = self.trunk(torch.cat([g, c.mean(dim=1), c.amax(dim=1)], dim=-1))
        return c, trunk

    def _logits(self, c: torch.Tensor, trunk: torch.Tensor) -> torch.Tensor:
        per_card = self.card_head(torch.cat([c, trunk.unsqueeze(1).expand_as(c)], dim=-1))
        return torch.cat([self.draw_head(trunk), per_card[..., 0], per_card[..., 1]], dim=-1)

    def actor(self, x: torch.Tensor) -> torch.Tensor:
        return self._logits(*self._encode(x))

    def critic(self, x: torch.Tensor) -> torch.Tensor:
        return self.value_head(self._encode(x)[1])

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        c, trunk = self._encode(x)
        return self._logits(c, trunk), self.value_head(trunk)


NETWORKS = {"CardNet": CardNet}


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with the illegal actions at a very low value (as sb3-contrib masks them)."""
    return torch.where(mask.bool(), logits, torch.full_like(logits, -1e8))


# ---------------------------------------------------------------------------------- the file
def observation_record(num_players: int) -> dict[str, Any]:
    """The observation layout as recorded in a model file."""
    return {"size": observation_size(num_players),
            "pieces": [[p.name, p.width, p.per_seat] for p in OBSERVATION_PIECES]}


@dataclass
class Model:
    """A loaded model: its network, rules, feature transform and metadata."""

    net: CardNet
    rules: Rules
    features: CardFeatures
    metadata: dict[str, Any] = field(default_factory=dict)
    path: str | None = None


def build_metadata(rules: Rules, features: CardFeatures, net_kwargs: dict[str, Any],
                   training: dict[str, Any] | None = None) -> dict[str, Any]:
    import tt_env

    return {
        "rules": rules.to_dict(),
        "num_players": rules.num_players,
        "observation": observation_record(rules.num_players),
        "features": features.spec(),
        "network": {"class": "CardNet", "kwargs": dict(net_kwargs)},
        "tt_env_version": tt_env.__version__,
        "training": dict(training or {}),
    }


def save_model(path: str | os.PathLike, net: CardNet, metadata: dict[str, Any]) -> Path:
    """Write a model file (atomically: a crash never leaves half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    # Plain JSON types only: the file loads with weights_only=True (no code runs on load).
    metadata = json.loads(json.dumps(metadata, default=str))
    payload = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "metadata": metadata,
               "state_dict": state}
    tmp = path.with_name(path.name + ".tmp")
    torch.save(payload, tmp)
    os.replace(tmp, path)
    return path


def read_model_file(path: str | os.PathLike) -> dict[str, Any]:
    """The payload of a model file; :class:`ModelError` if missing, corrupt or not a model."""
    path = Path(path)
    if not path.exists():
        raise ModelError(f"no such model file: {path}")
    if not path.is_file():
        raise ModelError(f"not a model file: {path} is a directory")
    try:
        data = path.read_bytes()
        payload = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for a damaged archive
        raise ModelError(f"cannot read model file {path}: it is corrupt or not a tt_env model "
                         f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
                         ) from None
    if not isinstance(payload, dict) or payload.get("format") != MODEL_FORMAT:
        raise ModelError(f"{path} is not a tt_env model file (no format {MODEL_FORMAT!r})")
    if payload.get("version") != MODEL_VERSION:
        raise ModelError(f"{path}: unsupported model file version {payload.get('version')!r} "
                         f"(this tt_env reads version {MODEL_VERSION})")
    for key in ("metadata", "state_dict"):
        if not isinstance(payload.get(key), dict):
            raise ModelError(f"{path} is corrupt: it has no {key!r}")
    return payload


def trained_rules(metadata: dict[str, Any], where: str = "model") -> Rules:
    """The rules a model was trained for, from its metadata."""
    try:
        return Rules.from_dict(metadata["rules"])
    except (KeyError, TypeError, ValueError) as exc:
        raise ModelError(f"{where} is corrupt: its rules cannot be read ({exc})") from None


def check_compatible(metadata: dict[str, Any], rules: Rules, where: str = "model") -> Rules:
    """Raise :class:`ModelError` unless a model with ``metadata`` can play under ``rules``;
    returns the model's rules."""
    trained = trained_rules(metadata, where)
    if trained.num_players != rules.num_players:
        raise ModelError(f"{where} was trained for {trained.num_players} players, not "
                         f"{rules.num_players}: train a model for {rules.num_players} players "
                         "(tt-train --players N)")
    if trained != rules:
        mine, theirs = rules.to_dict(), trained.to_dict()
        diff = ", ".join(f"{k}={theirs[k]!r} (asked: {mine[k]!r})" for k in mine
                         if mine[k] != theirs[k])
        raise ModelError(f"{where} was trained for other rules: {diff}")
    if metadata.get("observation") != observation_record(rules.num_players):
        raise ModelError(f"{where} was trained on another observation layout than this "
                         "tt_env's (the observation pieces changed): retrain it")
    return trained


def load_model(path: str | os.PathLike, rules: Rules | None = None) -> Model:
    """Load a model file; with ``rules``, check that it was trained for them (else
    :class:`ModelError`)."""
    payload = read_model_file(path)
    metadata = payload["metadata"]
    where = f"model {path}"
    if rules is None:
        rules = trained_rules(metadata, where)
    trained = check_compatible(metadata, rules, where)
    try:
        features = CardFeatures.from_spec(metadata["features"], trained)
        network = metadata["network"]
        cls = NETWORKS[network["class"]]
        net = cls(**network["kwargs"])
        net.load_state_dict(payload["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise ModelError(f"{where} is corrupt or from another tt_env version: {exc}") from None
    if net.global_width != features.global_width:
        raise ModelError(f"{where} is corrupt: its network does not fit its features")
    net.eval()
    return Model(net=net, rules=trained, features=features, metadata=metadata, path=str(path))


__all__ = [
    "CardNet", "MODEL_FORMAT", "MODEL_SUFFIX", "Model", "ModelError", "build_metadata",
    "check_compatible", "load_model", "masked_logits", "observation_record", "read_model_file",
    "save_model", "trained_rules",
]
