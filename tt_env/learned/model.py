"""The model file of learned agents, and their network's forward pass in numpy (no torch needed).

A trained policy is a :class:`~tt_env.learned.network.CardNet` (PyTorch, used by ``tt-train``);
playing one needs only numpy: :class:`NumpyCardNet` computes the same logits and value from the same
weights, so learned agents run wherever ``tt_env`` runs (``pip install tt_env``), and torch stays
a training dependency. :func:`card_net_layers` is the single description of the architecture that
both build from.

A model file (``.npz``, written by :func:`save_model`, read by :func:`load_model`) is a numpy
archive, loaded with ``allow_pickle=False`` (no code runs on load)::

    __format__     "tt_env.model"
    __version__    1
    __metadata__   JSON text: {"rules": {...}, "num_players": 2,
                   "observation": {"size": 413, "pieces": [[name, width, per_seat], ...]},
                   "features": {"name": "card-features", "version": 1, ...},
                   "network": {"class": "CardNet", "kwargs": {...}},
                   "training": {"commands": [...], "config": {...}, "timesteps": ..., ...}}
    <parameter>    one float32 array per network weight, named as in CardNet's state_dict
                   ("card.0.weight", ...)

:func:`load_model` raises :class:`ModelError` (a ``ValueError``) with a clear message for a
missing file, a file that is not a tt_env model (or is corrupt), and a model trained for other
rules, another number of players or another observation layout.
"""

from __future__ import annotations

import json
import math
import os
import struct
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tt_env.encoding.actions import DISCARD_ACTION_BASE, GO_OUT_ACTION_BASE, NUM_ACTIONS
from tt_env.encoding.observation import OBSERVATION_PIECES, observation_size
from tt_env.game.cards import NUM_KINDS
from tt_env.game.rules import Rules
from tt_env.learned.features import CARD_WIDTH, CardFeatures
from tt_env.util.files import atomic_file

MODEL_FORMAT = "tt_env.model"
MODEL_VERSION = 1
MODEL_SUFFIX = ".npz"

assert DISCARD_ACTION_BASE == 2 and GO_OUT_ACTION_BASE == 2 + NUM_KINDS
assert NUM_ACTIONS == 2 + 2 * NUM_KINDS


class ModelError(ValueError):
    """A model file that is missing, corrupt, or made for other rules or players."""


# ---------------------------------------------------------------------------------- network
def card_net_layers(
    global_width: int, card_width: int = CARD_WIDTH, card_hidden: int = 64, trunk_hidden: int = 128
) -> dict[str, tuple[list[int], bool]]:
    """The architecture of CardNet: ``{block: (layer sizes, ReLU after the last layer)}``.

    Every block is a stack of linear layers with ReLU between them (PyTorch names its weights
    ``<block>.<2 i>.weight`` and ``.bias``, as in an ``nn.Sequential`` of Linear and ReLU):

    - ``global_in`` reads the global values; ``card`` reads each card kind's row with them (the
      same weights for all 53 kinds);
    - ``trunk`` reads the global part with the mean and maximum over the cards;
    - ``card_head`` scores discarding and going out with each card from its row and the trunk;
      ``draw_head`` scores the two draws and ``value_head`` the position, from the trunk.
    """
    return {
        "global_in": ([global_width, card_hidden], True),
        "card": ([card_width + card_hidden, card_hidden, card_hidden], True),
        "trunk": ([3 * card_hidden, trunk_hidden, card_hidden], True),
        "card_head": ([2 * card_hidden, card_hidden, 2], False),
        "draw_head": ([card_hidden, 2], False),
        "value_head": ([card_hidden, card_hidden, 1], False),
    }


def parameter_shapes(**net_kwargs: int) -> dict[str, tuple[int, ...]]:
    """The name and shape of every weight of a CardNet built with ``net_kwargs``."""
    shapes: dict[str, tuple[int, ...]] = {}
    for block, (sizes, _) in card_net_layers(**net_kwargs).items():
        for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
            shapes[f"{block}.{2 * i}.weight"] = (b, a)
            shapes[f"{block}.{2 * i}.bias"] = (b,)
    return shapes


class NumpyCardNet:
    """CardNet's forward pass in numpy, from its weights (see :func:`card_net_layers`).

    ``actor(x)`` gives ``(B, 108)`` logits (mask them before use) for a ``(B, features)`` batch,
    ``critic(x)`` ``(B, 1)`` values; float32 throughout, as the torch network computes them.
    """

    def __init__(
        self,
        weights: Mapping[str, np.ndarray],
        global_width: int,
        *,
        card_width: int = CARD_WIDTH,
        card_hidden: int = 64,
        trunk_hidden: int = 128,
    ) -> None:
        kwargs = dict(
            global_width=global_width,
            card_width=card_width,
            card_hidden=card_hidden,
            trunk_hidden=trunk_hidden,
        )
        expected = parameter_shapes(**kwargs)
        missing = sorted(set(expected) - set(weights))
        unexpected = sorted(set(weights) - set(expected))
        if missing or unexpected:
            raise ValueError(
                f"weights do not fit CardNet{kwargs}: missing {missing}, unexpected {unexpected}"
            )
        for name, shape in expected.items():
            if tuple(weights[name].shape) != shape:
                raise ValueError(
                    f"weight {name} has shape {tuple(weights[name].shape)}, not {shape}"
                )
        self.global_width = global_width
        self.card_width = card_width
        self._blocks = {
            block: (
                [
                    (
                        np.ascontiguousarray(weights[f"{block}.{2 * i}.weight"].T, np.float32),
                        np.asarray(weights[f"{block}.{2 * i}.bias"], np.float32),
                    )
                    for i in range(len(sizes) - 1)
                ],
                last_relu,
            )
            for block, (sizes, last_relu) in card_net_layers(**kwargs).items()
        }

    def _run(self, block: str, x: np.ndarray) -> np.ndarray:
        layers, last_relu = self._blocks[block]
        for i, (w, b) in enumerate(layers):
            x = x @ w + b
            if last_relu or i < len(layers) - 1:
                np.maximum(x, 0.0, out=x)
        return x

    def _encode(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = np.asarray(x, np.float32)
        if x.ndim == 1:
            x = x[None]
        split = NUM_KINDS * self.card_width
        cards = x[:, :split].reshape(len(x), NUM_KINDS, self.card_width)
        g = self._run("global_in", x[:, split:])
        c = self._per_card("card", cards, g)
        trunk = self._run("trunk", np.concatenate([g, c.mean(axis=1), c.max(axis=1)], axis=-1))
        return c, trunk

    def _per_card(self, block: str, rows: np.ndarray, shared: np.ndarray) -> np.ndarray:
        """``block`` on each card's row joined with the row ``shared`` by the sample's cards,
        the first layer's product split so that the shared part is multiplied once per sample
        (as the torch network does)."""
        layers, last_relu = self._blocks[block]
        (w, b), rest = layers[0], layers[1:]
        width = rows.shape[-1]
        x = rows @ w[:width] + (shared @ w[width:] + b)[:, None]
        if last_relu or rest:
            np.maximum(x, 0.0, out=x)
        for i, (w, b) in enumerate(rest):
            x = x @ w + b
            if last_relu or i < len(rest) - 1:
                np.maximum(x, 0.0, out=x)
        return x

    def actor(self, x: np.ndarray) -> np.ndarray:
        c, trunk = self._encode(x)
        per_card = self._per_card("card_head", c, trunk)
        return np.concatenate(
            [self._run("draw_head", trunk), per_card[..., 0], per_card[..., 1]], axis=-1
        )

    def critic(self, x: np.ndarray) -> np.ndarray:
        return self._run("value_head", self._encode(x)[1])


NETWORKS = {"CardNet": NumpyCardNet}


# ---------------------------------------------------------------------------------- the file
def observation_record(num_players: int) -> dict[str, Any]:
    """The observation layout as recorded in a model file."""
    return {
        "size": observation_size(num_players),
        "pieces": [[p.name, p.width, p.per_seat] for p in OBSERVATION_PIECES],
    }


@dataclass
class Model:
    """A loaded model: its network, rules, feature transform and metadata."""

    net: NumpyCardNet
    rules: Rules
    features: CardFeatures
    metadata: dict[str, Any] = field(default_factory=dict)
    path: str | None = None
    weights: dict[str, np.ndarray] = field(default_factory=dict, repr=False)


def build_metadata(
    rules: Rules,
    features: CardFeatures,
    net_kwargs: dict[str, Any],
    training: dict[str, Any] | None = None,
) -> dict[str, Any]:
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


_RESERVED = ("__format__", "__version__", "__metadata__")


def save_model(
    path: str | os.PathLike, weights: Mapping[str, Any], metadata: dict[str, Any]
) -> Path:
    """Write a model file (atomically: a crash never leaves half a file).

    ``weights``: the network's parameters by name, as numpy arrays (or anything ``np.asarray``
    takes: :func:`tt_env.learned.network.numpy_weights` turns a torch CardNet into them).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays = {k: np.asarray(v, np.float32) for k, v in weights.items()}
    clash = set(arrays) & set(_RESERVED)
    if clash:
        raise ValueError(f"reserved names among the weights: {sorted(clash)}")
    # Plain JSON types only (a path or a numpy number becomes its text).
    text = json.dumps(json.loads(json.dumps(metadata, default=str)))
    with atomic_file(path, "wb") as fh:  # a failed write (a full disk) leaves no file behind
        np.savez_compressed(
            fh,
            __format__=np.array(MODEL_FORMAT),
            __version__=np.array(MODEL_VERSION),
            __metadata__=np.array(text),
            **arrays,
        )
    return path


MAX_MODEL_BYTES = 256 * 2**20
"""Largest model file read, counting every entry's uncompressed size (a CardNet is well under
1 MB); an archive that declares more is refused before anything is decompressed."""
MAX_MODEL_ENTRIES = 1024
MAX_METADATA_DEPTH = 32  # nesting of the metadata JSON (the real one is 5 deep)
_NPY_MAGIC = b"\x93NUMPY"


def read_model_file(path: str | os.PathLike) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(metadata, weights)`` of a model file; :class:`ModelError` if it is missing, corrupt or
    not a model.

    Nothing is trusted before it is checked: the zip's declared sizes (at most
    :data:`MAX_MODEL_BYTES` in all, so a zip bomb costs nothing), then each array's header
    (its shape must fit in its entry), then the metadata's nesting. No pickle is ever loaded.
    """
    path = Path(path)
    if not path.exists():
        raise ModelError(f"no such model file: {path}")
    if path.is_dir():
        raise ModelError(f"not a model file: {path} is a directory")
    if not path.is_file():
        raise ModelError(f"not a model file: {path} is not a regular file")
    corrupt = f"cannot read model file {path}: it is corrupt or not a tt_env model"
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_NPY_MAGIC))
        if head == _NPY_MAGIC:
            raise ModelError(f"{corrupt} (a single numpy array, not an .npz archive)")
        with zipfile.ZipFile(path) as archive:
            arrays = _read_entries(archive, corrupt)
    except ModelError:
        raise
    except (
        OSError,
        ValueError,
        EOFError,
        zipfile.BadZipFile,
        zlib.error,
        KeyError,
        NotImplementedError,
        RuntimeError,
        OverflowError,
        TypeError,
        struct.error,
    ) as exc:  # unreadable, torn, or an odd zip
        detail = (str(exc).splitlines() or [""])[0][:200]
        raise ModelError(f"{corrupt} ({type(exc).__name__}: {detail})") from None
    fmt = arrays.pop("__format__", None)
    if fmt is None or fmt.shape != () or fmt.dtype.kind != "U" or str(fmt) != MODEL_FORMAT:
        raise ModelError(f"{path} is not a tt_env model file (no format {MODEL_FORMAT!r})")
    version = arrays.pop("__version__", None)
    if (
        version is None
        or version.shape != ()
        or version.dtype.kind not in "iu"
        or int(version) != MODEL_VERSION
    ):
        shown = None if version is None else version.tolist() if version.size < 10 else "?"
        raise ModelError(
            f"{path}: unsupported model file version {shown!r} "
            f"(this tt_env reads version {MODEL_VERSION})"
        )
    text = arrays.pop("__metadata__", None)
    try:
        if text is None or text.shape != () or text.dtype.kind != "U":
            raise TypeError("no JSON text")
        metadata = json.loads(str(text))
        if not isinstance(metadata, dict):
            raise TypeError("not a JSON object")
        if _depth(metadata) > MAX_METADATA_DEPTH:
            raise ValueError(f"nested more than {MAX_METADATA_DEPTH} deep")
    except RecursionError:
        raise ModelError(
            f"{path} is corrupt: its metadata cannot be read (nested too deeply)"
        ) from None
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{path} is corrupt: its metadata cannot be read ({exc})") from None
    for name, value in arrays.items():
        if value.dtype.kind != "f" or not np.isfinite(value).all():
            raise ModelError(
                f"{path} is corrupt: weight {name!r} is not finite floating-point numbers"
            )
    return metadata, arrays


def _read_entries(archive: zipfile.ZipFile, corrupt: str) -> dict[str, np.ndarray]:
    """Every ``<name>.npy`` entry of an archive as an array, sizes checked before reading."""
    infos = archive.infolist()
    if len(infos) > MAX_MODEL_ENTRIES:
        raise ModelError(f"{corrupt} ({len(infos)} entries; a model has far fewer)")
    total = sum(info.file_size for info in infos)
    if total > MAX_MODEL_BYTES:
        raise ModelError(
            f"{corrupt} (its entries unpack to {total:,} bytes, more than the "
            f"{MAX_MODEL_BYTES:,} a model file may hold)"
        )
    arrays: dict[str, np.ndarray] = {}
    for info in infos:
        if not info.filename.endswith(".npy") or info.is_dir():
            raise ModelError(f"{corrupt} (its entry {info.filename!r} is not a numpy array)")
        name = info.filename[: -len(".npy")]
        if name in arrays:
            raise ModelError(f"{corrupt} (its entry {name!r} appears twice)")
        with archive.open(info) as fh:
            arrays[name] = _read_npy(fh, info.file_size, name, corrupt)
    return arrays


def _read_npy(fh, entry_size: int, name: str, corrupt: str) -> np.ndarray:
    """One ``.npy`` entry, from its header: refused when the header asks for more data than
    the entry holds, or for objects (pickles)."""
    from numpy.lib import format as npy

    try:
        version = npy.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npy.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = npy.read_array_header_2_0(fh)
        else:
            raise ValueError(f"numpy format version {version}")
    except Exception as exc:  # numpy parses the header text with tokenize and ast: any error
        raise ModelError(
            f"{corrupt} (entry {name!r} has no valid array header: {type(exc).__name__})"
        ) from None
    if dtype.hasobject:
        raise ModelError(f"{corrupt} (entry {name!r} holds pickled data, which is never loaded)")
    count = math.prod(shape)
    size = count * dtype.itemsize
    if size > entry_size:
        raise ModelError(
            f"{corrupt} (entry {name!r} claims shape {shape}: {size:,} bytes, "
            f"more than the {entry_size:,} of its entry)"
        )
    data = fh.read(size)
    if len(data) != size:
        raise ModelError(f"{corrupt} (entry {name!r} is truncated)")
    fh.read()  # to the end of the entry, so that zipfile checks its CRC
    array = np.frombuffer(data, dtype=dtype, count=count).copy()
    return array.reshape(shape, order="F" if fortran else "C")


def _depth(value: Any) -> int:
    """How deeply lists and dicts nest in ``value`` (without recursion)."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            if depth <= MAX_METADATA_DEPTH:
                stack.extend(
                    (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
                )
    return deepest


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
        raise ModelError(
            f"{where} was trained for {trained.num_players} players, not "
            f"{rules.num_players}: train a model for {rules.num_players} players "
            "(tt-train --players N)"
        )
    if trained != rules:
        mine, theirs = rules.to_dict(), trained.to_dict()
        diff = ", ".join(
            f"{k}={theirs[k]!r} (asked: {mine[k]!r})" for k in mine if mine[k] != theirs[k]
        )
        raise ModelError(f"{where} was trained for other rules: {diff}")
    if metadata.get("observation") != observation_record(rules.num_players):
        raise ModelError(
            f"{where} was trained on another observation layout than this "
            "tt_env's (the observation pieces changed): retrain it"
        )
    return trained


def load_model(path: str | os.PathLike, rules: Rules | None = None) -> Model:
    """Load a model file; with ``rules``, check that it was trained for them (else
    :class:`ModelError`)."""
    metadata, weights = read_model_file(path)
    where = f"model {path}"
    if rules is None:
        rules = trained_rules(metadata, where)
    trained = check_compatible(metadata, rules, where)
    try:
        features = CardFeatures.from_spec(metadata["features"], trained)
        network = metadata["network"]
        net = NETWORKS[network["class"]](weights, **network["kwargs"])
    except Exception as exc:  # any failure to build from the file's data: the file is at fault
        raise ModelError(
            f"{where} is corrupt or from another tt_env version: {type(exc).__name__}: {exc}"
        ) from None
    if net.global_width != features.global_width or net.card_width != CARD_WIDTH:
        raise ModelError(f"{where} is corrupt: its network does not fit its features")
    return Model(
        net=net,
        rules=trained,
        features=features,
        metadata=metadata,
        path=str(path),
        weights=weights,
    )


__all__ = [
    "MODEL_FORMAT",
    "MODEL_SUFFIX",
    "Model",
    "ModelError",
    "NumpyCardNet",
    "build_metadata",
    "card_net_layers",
    "check_compatible",
    "load_model",
    "observation_record",
    "parameter_shapes",
    "read_model_file",
    "save_model",
    "trained_rules",
]
