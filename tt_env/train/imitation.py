"""Imitation: a teacher's decisions collected in worker processes, saved and loaded, and the
behaviour-cloning fit of a policy to them (the warm start)."""

from __future__ import annotations

import dataclasses
import math
import multiprocessing
import os
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from tt_env.learned.network import CardNet, masked_logits
from tt_env.train.config import TrainConfig, _data_paths
from tt_env.train.env import make_training_env
from tt_env.util.workers import CtrlC, pool_ignoring_ctrl_c

# ---------------------------------------------------------------------------------- warm start
_COLLECTED = None  # a worker's shared counter of decisions collected (set by _collect_init)


def _collect_init(counter) -> None:
    global _COLLECTED
    _COLLECTED = counter


def _collect_worker(job: tuple[dict[str, Any], int, int]) -> dict[str, np.ndarray]:
    """Play the teacher as the learner; return its decisions (features, masks, actions) and
    the returns of their episodes (complete episodes only). A teacher that explains its
    choices (the search) adds ``"led"``, the choice that led it, and ``"values"``, the mean
    result of each candidate it weighed (points, lower is better; NaN elsewhere, and a whole
    row of NaN where it did not search). Adds the decisions of each finished episode to the
    shared counter, when there is one (progress reports)."""
    settings, seed, samples = job
    torch.set_num_threads(1)
    config = TrainConfig(**settings)
    from tt_env.agents import make_agent

    env = make_training_env(config, 0, seed, None, opponents=config.bc_opponents)
    rules = env.rules
    teacher = make_agent(config.bc_teacher, rules.num_players, rules, seed)
    xs, masks, actions, returns, led, values = [], [], [], [], [], []
    leads = hasattr(teacher, "led")  # the search: the choice that led it (network or rule)
    obs, info = env.reset(seed=seed)
    teacher.reset(seed)
    rounds = len(env.env.game.round_results)
    ep_x, ep_m, ep_a, ep_r, ep_l, ep_v = [], [], [], [], [], []
    while len(xs) < samples:
        mask = env.action_masks()
        raw = env.raw_observation
        action = teacher.act(raw, mask.astype(np.int8))
        ep_x.append(obs)
        ep_m.append(mask)
        ep_a.append(action)
        ep_l.append(teacher.led if leads else action)
        if leads:
            ep_v.append(_searched_values(teacher, raw, mask))
        obs, reward, terminated, truncated, info = env.step(action)
        ep_r.append(reward)
        if terminated or truncated:
            ret = np.cumsum(ep_r[::-1])[::-1]
            xs += ep_x
            masks += ep_m
            actions += ep_a
            returns += list(ret)
            led += ep_l
            values += ep_v
            if _COLLECTED is not None:
                with _COLLECTED.get_lock():
                    _COLLECTED.value += len(ep_a)
            ep_x, ep_m, ep_a, ep_r, ep_l, ep_v = [], [], [], [], [], []
            obs, info = env.reset()
            if len(env.env.game.round_results) < rounds:  # a new game
                teacher.reset(int(env.pool.rng.integers(2**31)))
            else:
                teacher.new_round()
            rounds = len(env.env.game.round_results)
    data = {
        "x": np.asarray(xs, np.float32),
        "mask": np.asarray(masks, bool),
        "action": np.asarray(actions, np.int64),
        "return": np.asarray(returns, np.float32),
    }
    if leads:
        data["led"] = np.asarray(led, np.int64)
        width = int(env.action_space.n)
        data["values"] = np.asarray(values, np.float32).reshape(len(actions), width)
    return data


def _searched_values(teacher, observation: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """The mean result of each candidate of the teacher's last search on ``observation`` (its
    :meth:`explain`), by action; NaN for the actions it did not weigh (all, when it did not
    search)."""
    row = np.full(mask.shape[0], np.nan, np.float32)
    explained = teacher.explain(observation, mask)
    if explained is not None:
        for action, mean in explained[1].items():
            row[action] = mean
    return row


DATA_KEYS = ("x", "mask", "action", "return")  # what a fit reads ("led" and "values" are extra)


def save_teacher_data(path: Path, data: dict[str, np.ndarray]) -> None:
    """Write teacher decisions (``bc_data.npz``) atomically, for ``bc_data`` of later runs.
    Compressed: the features are mostly zeros and one-hots (100k decisions of 2 players: 25 MB
    instead of 578 MB)."""
    tmp = path.with_name(path.name + ".tmp.npz")
    np.savez_compressed(tmp, **data)
    os.replace(tmp, path)


def load_teacher_data(text: str, width: int, actions: int) -> dict[str, np.ndarray]:
    """The teacher decisions of the ``bc_data`` files, concatenated; a file that is not one, or
    whose observations or actions do not fit this run, raises :class:`ValueError` naming it."""
    parts = []
    for path in _data_paths(text):
        try:
            with np.load(path, allow_pickle=False) as f:
                part = {k: f[k] for k in DATA_KEYS}
                if "values" in f.files:
                    part["values"] = f["values"]
        except (OSError, ValueError, KeyError, EOFError) as exc:
            raise ValueError(f"bc_data {path}: not a teacher-data file ({exc})") from None
        n = len(part["action"])
        if (
            part["x"].shape != (n, width)
            or part["mask"].shape != (n, actions)
            or part["return"].shape != (n,)
        ):
            raise ValueError(
                f"bc_data {path}: its decisions do not fit this run (observations "
                f"{part['x'].shape[1:]}, masks {part['mask'].shape[1:]}; this run: ({width},), "
                f"({actions},)): other players, rules or features"
            )
        if "values" in part and part["values"].shape != (n, actions):
            raise ValueError(f"bc_data {path}: its values are {part['values'].shape[1:]} wide")
        parts.append(part)
    return join_teacher_data(parts)


def join_teacher_data(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """The decisions of ``parts`` in one set; ``"values"`` too when every part has them."""
    keys = DATA_KEYS + (("values",) if all("values" in p for p in parts) else ())
    return {k: np.concatenate([p[k] for p in parts]) for k in keys}


def value_targets(values: torch.Tensor, action: torch.Tensor, temperature: float) -> torch.Tensor:
    """The policy targets of a fit to the search's action values: on a decision where the
    search weighed two candidates or more (``values`` finite there; lower is better), the
    softmax of ``-values / temperature`` over them; elsewhere all on the action played."""
    weighed = torch.isfinite(values)
    scores = torch.where(weighed, -values / temperature, torch.full_like(values, -torch.inf))
    searched = weighed.sum(1) >= 2
    soft = torch.softmax(torch.where(searched.unsqueeze(1), scores, 0.0), dim=1)
    hard = torch.nn.functional.one_hot(action, values.shape[1]).to(values.dtype)
    return torch.where(searched.unsqueeze(1), soft, hard)


def collect_teacher_data(
    config: TrainConfig,
    workers: int,
    progress=None,
    *,
    every: float = 60.0,
    teacher: str | None = None,
    samples: int | None = None,
    seed: int | None = None,
) -> dict[str, np.ndarray]:
    """``samples`` (default ``bc_samples``) decisions of ``teacher`` (default ``bc_teacher``),
    about, collected over ``workers`` processes in games seeded from ``seed`` (default from the
    config's). ``progress(done, total, seconds)`` is called every ``every`` seconds while they
    play (the workers count their finished episodes' decisions; the data do not depend on it)."""
    per = math.ceil((config.bc_samples if samples is None else samples) / workers)
    values = dataclasses.asdict(config)
    if teacher is not None:
        values["bc_teacher"] = teacher
    base = config.seed * 7919 + 17 if seed is None else seed
    jobs = [(values, base + w, per) for w in range(workers)]
    if workers == 1:
        parts = [_collect_worker(jobs[0])]
    else:
        ctx = multiprocessing.get_context("spawn")
        counter = ctx.Value("q", 0)
        start = time.perf_counter()
        # The workers ignore Ctrl-C; here it is seen between two short waits, and leaving the
        # pool stops them (tt-train then says how to resume).
        with CtrlC() as ctrl_c:  # entered first: a press while the workers start is noted
            with pool_ignoring_ctrl_c(ctx, workers, _collect_init, (counter,)) as pool:
                result = pool.map_async(_collect_worker, jobs)
                reported = start
                while not result.ready():
                    ctrl_c.check()
                    result.wait(min(every, 0.1))
                    now = time.perf_counter()
                    if progress is not None and now - reported >= every and not result.ready():
                        reported = now
                        progress(counter.value, per * workers, now - start)
                parts = result.get()
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def behaviour_clone(
    net: CardNet,
    data: dict[str, np.ndarray],
    *,
    epochs: int,
    lr: float,
    batch_size: int,
    seed: int,
    log=None,
    temperature: float = 0.0,
) -> dict[str, float]:
    """Fit ``net`` to the teacher: cross-entropy of the masked policy on its actions, and the
    value on the returns. Returns the held-out accuracy and losses.

    With ``temperature`` > 0 the policy's targets are the search's action values instead
    (:func:`value_targets`, ``data["values"]`` required): the network learns by how much the
    search preferred each candidate, not only which one it played."""
    if temperature > 0 and "values" not in data:
        raise ValueError(
            "bc_value_temperature: the teacher data has no search values (collect them with "
            "a search teacher)"
        )
    gen = torch.Generator().manual_seed(seed)
    n = len(data["action"])
    order = torch.randperm(n, generator=gen)
    held = order[: max(1, n // 20)]
    train = order[max(1, n // 20) :]
    x = torch.from_numpy(data["x"])
    mask = torch.from_numpy(data["mask"])
    action = torch.from_numpy(data["action"])
    ret = torch.from_numpy(data["return"]).unsqueeze(1)
    values = torch.from_numpy(data["values"]) if temperature > 0 else None
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    steps = epochs * math.ceil(len(train) / batch_size)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=max(1, steps))
    ce = torch.nn.CrossEntropyLoss()

    def evaluate() -> dict[str, float]:
        net.eval()
        with torch.no_grad():
            logits, value = net(x[held])
            logits = masked_logits(logits, mask[held])
            acc = (logits.argmax(1) == action[held]).float().mean().item()
            return {
                "accuracy": acc,
                "policy_loss": ce(logits, action[held]).item(),
                "value_loss": torch.mean((value - ret[held]) ** 2).item(),
            }

    stats = {}
    for epoch in range(epochs):
        net.train()
        perm = train[torch.randperm(len(train), generator=gen)]
        for i in range(0, len(perm), batch_size):
            idx = perm[i : i + batch_size]
            logits, value = net(x[idx])
            logits = masked_logits(logits, mask[idx])
            if values is None:
                policy = ce(logits, action[idx])
            else:
                target = value_targets(values[idx], action[idx], temperature)
                policy = -(target * torch.log_softmax(logits, dim=1)).sum(1).mean()
            loss = policy + 0.5 * torch.mean((value - ret[idx]) ** 2)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            sched.step()
        stats = evaluate()
        if log is not None:
            log(epoch + 1, stats)
    net.eval()
    return stats
