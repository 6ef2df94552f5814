"""Expert iteration: the search agent, led by the network, plays; the network is fitted to the
search's decisions; the next round's search is led by the fitted network (Anthony, Tian and
Barber, "Thinking Fast and Slow with Deep Learning and Tree Search", 2017).

The expert is :class:`tt_env.agents.search.SearchAgent` with ``prior`` set to the network: its
candidates are the network's most likely discards, and it keeps the network's choice unless its
rollouts beat it on the same deals by ``confidence`` standard errors. So the search adds to the
network what the rollouts of the game prove (reward), and the network keeps what the search
found (imitation): each round the expert starts from a better apprentice.

Before the first round the starting network is saved (``net_000.npz``) and evaluated (round 0).
A round ``k`` of :func:`expert_iteration` writes, in ``<run>/exit/``, ``prior_k.npz`` (the
network that led the search), ``data_k.npz`` (the search's decisions: features, masks, actions,
returns, the network's choice that led each, ``led``, and the search's mean result per candidate,
``values``), ``net_k.npz`` (the network fitted to the decisions of the last ``exit_window`` rounds),
and a row per evaluation opponent in ``<run>/exit.csv``. ``state.json`` counts the rounds done, so
that ``tt-train --resume`` goes on from the last whole round.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import numpy as np
import torch

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.learned.model import read_model_file, save_model
from tt_env.learned.network import load_numpy_weights, numpy_weights
from tt_env.train.imitation import (
    behaviour_clone,
    collect_teacher_data,
    join_teacher_data,
    load_teacher_data,
    save_teacher_data,
)

if TYPE_CHECKING:
    from tt_env.train.run import TrainingRun

FOLDER = "exit"
CSV = "exit.csv"


def teacher_spec(teacher: str, prior: os.PathLike | str) -> str:
    """The spec of ``teacher`` (``"search"`` or ``"search(samples=256)"``) led by the model file
    ``prior``: ``"search(samples=256, prior=<path>)"``."""
    path = str(prior)
    if any(ch in path for ch in ",()"):
        raise ValueError(f"expert iteration: the run's path {path!r} may not hold ',', '(' or ')'")
    spec = teacher.strip()
    if spec.endswith(")"):
        return f"{spec[:-1].rstrip()}, prior={path})"
    return f"{spec}(prior={path})"


def load_weights(net: torch.nn.Module, path: os.PathLike | str) -> None:
    """Put the weights of the model file ``path`` into ``net``; :class:`ValueError` naming the
    file when its network has other shapes."""
    _, weights = read_model_file(path)
    try:
        load_numpy_weights(net, weights)
    except RuntimeError as exc:
        first = str(exc).strip().splitlines()[-1].strip()
        raise ValueError(
            f"model {path}: its network does not fit this run's (card_hidden, trunk_hidden, "
            f"features): {first}"
        ) from None


def expert_iteration(trainer: TrainingRun, net: torch.nn.Module) -> None:
    """Rounds ``done + 1 .. exit_iterations`` of expert iteration on ``net`` (in place; see the
    module docstring). Each round ends with an evaluation against ``eval_opponents`` (a row in
    ``exit.csv``; the best one by the first opponent becomes ``best.npz``)."""
    c = trainer.config
    folder = trainer.files.root / FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    state = trainer.state_part("exit", {"done": 0, "decisions": 0, "rounds": []})
    if state["done"] > 0:
        load_weights(net, folder / f"net_{state['done']:03d}.npz")
        trainer.log(f"expert iteration: resuming after round {state['done']}")
    workers = max(1, min(os.cpu_count() or 1, c.n_envs))
    if state["done"] == 0 and not state.get("start_evaluated") and trainer.eval_specs:
        # round 0: the network the rounds start from, on the same deals as the rounds
        start = save_model(folder / "net_000.npz", numpy_weights(net), trainer.metadata(0))
        trainer.evaluate_file(
            start,
            {"round": 0, "decisions": 0, "overruled": ""},
            csv_name=CSV,
            best_key={"round": 0},
        )
        state["start_evaluated"] = True
        trainer.save_state()
    for k in range(state["done"] + 1, c.exit_iterations + 1):
        t0 = time.perf_counter()
        prior = save_model(folder / f"prior_{k:03d}.npz", numpy_weights(net), trainer.metadata(0))
        spec = teacher_spec(c.exit_teacher, prior)
        trainer.log(
            f"expert iteration {k}/{c.exit_iterations}: {c.exit_samples:,} decisions of "
            f"{c.exit_teacher} led by the network, on {workers} process(es)"
        )
        data = collect_teacher_data(
            c,
            workers,
            lambda done, total, s: trainer.log(f"  {done:,} of {total:,} decisions in {s:.0f} s"),
            every=600.0 if not c.progress_bar else 60.0,
            teacher=spec,
            samples=c.exit_samples,
            seed=c.seed * 7919 + 1_000_003 * k,  # other deals every round
        )
        save_teacher_data(folder / f"data_{k:03d}.npz", data)
        collected = time.perf_counter() - t0
        rounds = range(max(1, k - c.exit_window + 1), k + 1)
        earlier = ",".join(str(folder / f"data_{r:03d}.npz") for r in rounds if r < k)
        parts = [data] + (
            [load_teacher_data(earlier, trainer.features.size, NUM_ACTIONS)] if earlier else []
        )
        fit = join_teacher_data(parts)
        changed = _overruled(data)
        trainer.log(
            f"  collected {len(data['action']):,} decisions in {collected:.0f} s (the search "
            f"overruled the network in {changed:.1%}); fitting on {len(fit['action']):,}"
        )
        stats = behaviour_clone(
            net,
            fit,
            epochs=c.bc_epochs,
            lr=c.bc_lr,
            batch_size=c.bc_batch_size,
            seed=c.seed + k,
            log=lambda e, st: trainer.log(f"  epoch {e}: held-out accuracy {st['accuracy']:.3f}"),
            temperature=c.bc_value_temperature,
        )
        state["decisions"] += int(len(data["action"]))
        record = {
            "round": k,
            "decisions": int(len(data["action"])),
            "overruled": round(changed, 4),
            "seconds": round(time.perf_counter() - t0, 1),
            "accuracy": round(stats["accuracy"], 4),
        }
        state["rounds"].append(record)
        state["done"] = k  # on disk with the evaluation; the model file's metadata says it
        path = save_model(folder / f"net_{k:03d}.npz", numpy_weights(net), trainer.metadata(0))
        extra = {"round": k, "decisions": state["decisions"], "overruled": round(changed, 4)}
        trainer.evaluate_file(path, extra, csv_name=CSV, best_key={"round": k})
        trainer.save_state()


def _overruled(data: dict[str, np.ndarray]) -> float:
    """The share of decisions where the search played another action than the network that
    led it (``data["led"]``, when recorded; else NaN)."""
    led = data.get("led")
    if led is None:
        return float("nan")
    return float(np.mean(led != data["action"]))
