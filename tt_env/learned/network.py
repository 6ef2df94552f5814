"""The learned policy network in PyTorch, for training (``tt_env[train]``).

:class:`CardNet` scores the 108 actions from the features of :mod:`tt_env.learned.features`. It is
*equivariant over card kinds*: one small network reads the row of each card kind (with a summary
of the whole table), and the same weights score discarding or going out with every card, so what
it learns about the 7 of hearts holds for every card. A global trunk scores the two draws and the
value of the position. The layers are those of :func:`tt_env.learned.model.card_net_layers`; a
model file stores the weights (:func:`numpy_weights`), and
:class:`tt_env.learned.model.NumpyCardNet` plays them without torch.

With ``oracle_width`` the critic also reads the hidden cards, in training only (an *oracle
critic*, as in PerfectDou and Suphx): the features are followed by ``oracle_width`` numbers of
hidden information (:meth:`tt_env.train.env.TrainingEnv.oracle_features`), and the value is
``value_head(trunk) + oracle_head([trunk, hidden])``. The actor never reads them, so the policy
acts from the observation alone; the oracle head is not part of a model file.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from tt_env.game.cards import NUM_KINDS
from tt_env.learned.features import CARD_WIDTH
from tt_env.learned.model import card_net_layers


def _mlp(sizes: list[int], last_activation: bool) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        layers.append(nn.Linear(a, b))
        if last_activation or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class CardNet(nn.Module):
    """Action logits and a value from the feature vector of
    :class:`~tt_env.learned.features.CardFeatures`.

    ``global_width``: the length of the global part of the features (it depends on the number of
    players); ``card_hidden``/``trunk_hidden``: layer widths; ``oracle_width``: the length of the
    hidden information after the features, read by the critic alone (0: none; see the module
    docstring). ``actor(x)`` gives ``(B, 108)`` logits (mask them before use), ``critic(x)``
    ``(B, 1)`` values, ``forward(x)`` both.
    """

    def __init__(
        self,
        global_width: int,
        *,
        card_width: int = CARD_WIDTH,
        card_hidden: int = 64,
        trunk_hidden: int = 128,
        oracle_width: int = 0,
    ) -> None:
        super().__init__()
        self.card_width = card_width
        self.global_width = global_width
        self.oracle_width = oracle_width
        for block, (sizes, last) in card_net_layers(
            global_width, card_width, card_hidden, trunk_hidden
        ).items():
            setattr(self, block, _mlp(sizes, last))
        if oracle_width:
            self.oracle_head = _mlp([card_hidden + oracle_width, trunk_hidden, 1], False)
            last = self.oracle_head[-1]
            nn.init.zeros_(last.weight)  # at the start the critic is the plain one
            nn.init.zeros_(last.bias)

    def _encode(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        split = NUM_KINDS * self.card_width
        cards = x[:, :split].reshape(-1, NUM_KINDS, self.card_width)
        g = self.global_in(x[:, split : split + self.global_width])
        c = _per_card(self.card, cards, g)
        trunk = self.trunk(torch.cat([g, c.mean(dim=1), c.amax(dim=1)], dim=-1))
        return c, trunk

    def _logits(self, c: torch.Tensor, trunk: torch.Tensor) -> torch.Tensor:
        per_card = _per_card(self.card_head, c, trunk)
        return torch.cat([self.draw_head(trunk), per_card[..., 0], per_card[..., 1]], dim=-1)

    def actor(self, x: torch.Tensor) -> torch.Tensor:
        return self._logits(*self._encode(x))

    def _value(self, x: torch.Tensor, trunk: torch.Tensor) -> torch.Tensor:
        """The plain value, plus the oracle head's when ``x`` carries the hidden information (the
        features alone, as behaviour cloning's data holds them, take the plain value)."""
        value = self.value_head(trunk)
        width = NUM_KINDS * self.card_width + self.global_width
        if self.oracle_width and x.shape[1] == width + self.oracle_width:
            hidden = x[:, width:]
            value = value + self.oracle_head(torch.cat([trunk, hidden], dim=-1))
        elif x.shape[1] != width:
            also = f" or {width + self.oracle_width} (with the hidden cards)"
            raise ValueError(
                f"CardNet: inputs of {x.shape[1]} numbers, expected {width} (the features)"
                + (also if self.oracle_width else "")
            )
        return value

    def critic(self, x: torch.Tensor) -> torch.Tensor:
        return self._value(x, self._encode(x)[1])

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        c, trunk = self._encode(x)
        return self._logits(c, trunk), self._value(x, trunk)


def _per_card(block: nn.Sequential, rows: torch.Tensor, shared: torch.Tensor) -> torch.Tensor:
    """``block`` on each card's row joined with the row ``shared`` by all cards of a sample:
    ``block(cat([rows, shared broadcast over the cards]))``, with the first layer's product
    split in two, so that the shared part is multiplied once per sample, not once per card
    (the same function, about half the arithmetic of the per-card layers)."""
    first = block[0]
    width = rows.shape[-1]
    h = F.linear(rows, first.weight[:, :width]) + F.linear(
        shared, first.weight[:, width:], first.bias
    ).unsqueeze(1)
    return block[1:](h)


ORACLE = "oracle_head."  # the training-only weights (CardNet's oracle critic)


def numpy_weights(net: nn.Module) -> dict[str, np.ndarray]:
    """The weights of ``net`` as float32 numpy arrays, by name (what a model file stores: the
    oracle critic's head, used in training only, is left out)."""
    return {
        k: v.detach().cpu().numpy().astype(np.float32, copy=True)
        for k, v in net.state_dict().items()
        if not k.startswith(ORACLE)
    }


def load_numpy_weights(net: nn.Module, weights: Mapping[str, np.ndarray]) -> None:
    """Put ``weights`` (numpy arrays by name, what :func:`numpy_weights` gives) into ``net``;
    torch's RuntimeError when a name or a shape does not fit. An oracle critic's head that
    ``weights`` lacks (a model file never holds one) keeps its weights."""
    state = {k: torch.from_numpy(np.asarray(v, np.float32).copy()) for k, v in weights.items()}
    for k, v in net.state_dict().items():
        if k.startswith(ORACLE):
            state.setdefault(k, v)
    net.load_state_dict(state)


def card_net_from_weights(weights: Mapping[str, np.ndarray], **net_kwargs) -> CardNet:
    """A torch :class:`CardNet` holding ``weights`` (e.g. a model file's, to train on)."""
    net = CardNet(**net_kwargs)
    load_numpy_weights(net, weights)
    return net


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with the illegal actions at a very low value (as sb3-contrib masks them)."""
    return torch.where(mask.bool(), logits, torch.full_like(logits, -1e8))


__all__ = ["CardNet", "card_net_from_weights", "masked_logits", "numpy_weights"]
