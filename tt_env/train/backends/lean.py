"""The lean backend of ``tt-train``: PPO in one file, on the compiled batch.

In the manner of CleanRL's ``ppo.py``: the whole algorithm is here, in the order it runs. The
tables are :class:`~tt_env.vector.native.CompiledSelfPlay`: every table stepped in one C call,
every seat of every table played by a policy. Each seat of a table is, for one episode, the
learner or an opponent drawn from the ``opponents`` pool (``self`` is the learner itself, so
``self=1`` is pure self-play; ``league`` one of the learner's latest snapshots; any agent spec);
one seat of every table is always the learner. Only the learner's decisions are trained on.

One iteration:

1. **Rollout.** ``n_steps`` steps of all ``n_envs`` tables. Each step computes the features of
   every table's position at once (:meth:`CardFeatures.batch`), runs the network once on them,
   samples the learner's actions from the masked logits, asks the opponents for theirs (one
   forward pass per snapshot in play, the built-in agents row by row) and steps the batch.
2. **Advantages.** Each (table, seat) is a stream of its own decisions. Going back in time, what
   a seat earns between two of its decisions is the reward of the first; GAE runs along each
   stream. At the rollout's end a stream is bootstrapped with the value of the position when
   its seat is to move, else with the value of its own last decision.
3. **Update.** ``n_epochs`` passes over the learner's decisions in minibatches of
   ``batch_size``: the clipped policy loss, the value loss and the entropy bonus, all over the
   legal actions only; an update stops early past ``target_kl``. With ``anneal_lr`` the
   learning rate falls linearly to 0 at ``total_timesteps``.

The run directory is that of every backend (:class:`~tt_env.train.run.TrainingRun`): config,
command, ``progress.csv``, TensorBoard, checkpoints (``--resume``), the league's snapshots,
evaluations and ``.npz`` model files that numpy alone plays. ``device = "auto"`` trains on
CUDA when torch sees a GPU (the rollout's tensors stay there), else on the CPU with ``threads``
torch threads.
"""

from __future__ import annotations

import io
import json
import shutil
import time
import zipfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from tt_env.encoding.actions import NUM_ACTIONS
from tt_env.learned.network import CardNet, card_net_from_weights, masked_logits
from tt_env.train.config import LEAGUE, SELF, parse_pool
from tt_env.train.opponents import _step_of
from tt_env.train.run import TrainingRun
from tt_env.util.files import atomic_file
from tt_env.vector.native import ACT, CALLER, builtin_kind


def pick_device(name: str) -> torch.device:
    """``"auto"``: CUDA when torch sees a GPU, else the CPU; or the device named."""
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("setting device: 'cuda', but torch sees no GPU")
    return torch.device(name)


class _Logger:
    """TensorBoard scalars (``record``, as SB3's logger names it) written at each ``dump``."""

    def __init__(self, folder: Path) -> None:
        try:
            from torch.utils.tensorboard import SummaryWriter

            self.writer = SummaryWriter(str(folder / "lean"))
        except ImportError:  # tensorboard is part of the train extra; never lose a run to it
            self.writer = None
        self.values: dict[str, float] = {}

    def record(self, key: str, value: float) -> None:
        self.values[key] = float(value)

    def dump(self, steps: int) -> None:
        if self.writer is not None:
            for key, value in self.values.items():
                self.writer.add_scalar(key, value, steps)
            self.writer.flush()
        self.values.clear()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


class Learner:
    """What the lean PPO trains and counts: the network, its optimizer, the learner's steps so
    far and the TensorBoard logger (the ``model`` of :class:`TrainingRun`'s methods)."""

    def __init__(self, net: CardNet, lr: float, logger: _Logger) -> None:
        self.net = net
        self.optimizer = torch.optim.Adam(net.parameters(), lr=lr, eps=1e-5)
        self.num_timesteps = 0
        self.logger = logger

    def save(self, path: Path, extra: dict[str, Any]) -> None:
        """A checkpoint: a zip of ``data`` (JSON) and ``policy.pth`` (the network and the
        optimizer), written whole or not at all."""
        weights = io.BytesIO()
        torch.save(
            {"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict()}, weights
        )
        data = {"num_timesteps": self.num_timesteps, "backend": "lean", **extra}
        with atomic_file(path, "wb") as fh, zipfile.ZipFile(fh, "w") as archive:
            archive.writestr("data", json.dumps(data))
            archive.writestr("policy.pth", weights.getvalue())

    def load(self, path: Path) -> dict[str, Any]:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
            if data.get("backend") != "lean":
                raise ValueError(f"{path}: not a checkpoint of the lean backend")
            state = torch.load(
                io.BytesIO(archive.read("policy.pth")), map_location="cpu", weights_only=True
            )
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.num_timesteps = int(data["num_timesteps"])
        return data


# ---------------------------------------------------------------------------------- seats
class Seats:
    """Who plays each seat of each table this episode: 0 the learner, ``k > 0`` the ``k``-th
    opponent of :attr:`players` (a built-in agent, or a snapshot's network). The built-in
    ``random``, ``greedy`` and ``counting`` move inside the batch's C call (``seat_agents``);
    their Python twins answer only the decisions the batch leaves to them."""

    def __init__(self, config, rules, *, league_dir: Path, device: torch.device, seed: int) -> None:
        self.rules = rules
        self.pool = parse_pool(config.opponents)
        self.league_dir = league_dir
        self.league_size = config.league_size
        self.device = device
        self.net_kwargs: dict[str, Any] = {}
        self.rng = np.random.default_rng(seed)
        self.players: list[Any] = [None]  # index 0: the learner
        self.names = [SELF]
        self.codes = [CALLER]  # who decides in the batch: the caller, or a built-in agent
        self.snapshots: dict[str, int] = {}  # path -> index in players
        n, p = config.n_envs, rules.num_players
        self.who = np.zeros((n, p), np.int64)
        self._snapshots: list[str] = []
        self._looked = -np.inf
        self.seed = seed

    def _index(self, spec: str) -> int:
        if spec in self.snapshots:
            return self.snapshots[spec]
        if spec.endswith(".npz"):
            from tt_env.learned.model import read_model_file

            _, weights = read_model_file(spec)
            net = card_net_from_weights(weights, **self.net_kwargs).to(self.device).eval()
            self.players.append(net)
            self.snapshots[spec] = len(self.players) - 1
            self.names.append(LEAGUE)
            self.codes.append(CALLER)
            return len(self.players) - 1
        if spec not in self.names:
            from tt_env.agents import make_agent

            seed = int(self.rng.integers(2**31))
            self.players.append(make_agent(spec, self.rules.num_players, self.rules, seed))
            self.names.append(spec)
            self.codes.append(builtin_kind(spec))
        return self.names.index(spec)

    def _league(self) -> list[str]:
        """The latest snapshots, looked up again at most every few seconds (a table ends at
        almost every step; the folder changes once in ``league_every`` steps)."""
        now = time.monotonic()
        if now - self._looked >= 5.0:
            found = sorted(self.league_dir.glob("step_*.npz"), key=_step_of)
            self._snapshots = [str(p) for p in found[-self.league_size :]]
            self._looked = now
        return self._snapshots

    def draw(self, tables: np.ndarray, seat_agents: np.ndarray) -> None:
        """New players for the seats of ``tables`` (their next episode), and who decides for
        each in the batch (``seat_agents``, the batch's array)."""
        names = list(self.pool)
        league = self._league() if LEAGUE in self.pool else []
        if LEAGUE in names and not league:
            names.remove(LEAGUE)
        if not names:
            names = [SELF]
        w = np.array([self.pool[k] for k in names], float)
        p = self.rules.num_players
        for i in tables:
            picks = self.rng.choice(len(names), size=p, p=w / w.sum())
            row = []
            for k in picks:
                name = names[k]
                if name == SELF:
                    row.append(0)
                elif name == LEAGUE:
                    row.append(self._index(league[int(self.rng.integers(len(league)))]))
                else:
                    row.append(self._index(name))
            row[int(self.rng.integers(p))] = 0  # the learner plays at every table
            self.who[i] = row
            seat_agents[i] = [self.codes[k] for k in row]

    def label(self, table: int) -> str:
        """The opponents of a table, for the learning curve ("self": the learner alone)."""
        others = sorted({self.names[k] for k in self.who[table] if k})
        return "+".join(others) or SELF

    def act(self, players, actions, *, x, observations, masks) -> None:
        """Replace ``actions`` where an opponent is to move (``players``: who moves, per table)."""
        for k in np.unique(players):
            if k == 0:
                continue
            rows = np.flatnonzero(players == k)
            player = self.players[k]
            if isinstance(player, nn.Module):
                with torch.no_grad():
                    index = torch.as_tensor(rows, device=self.device)
                    mask = torch.as_tensor(masks[rows], device=self.device)
                    logits = masked_logits(player.actor(x[index]), mask)
                    chosen = torch.distributions.Categorical(logits=logits).sample()
                actions[rows] = chosen.cpu().numpy()
            else:
                for i in rows:
                    actions[i] = player.act(observations[i], masks[i])


# ---------------------------------------------------------------------------------- trainer
class LeanTrainer(TrainingRun):
    """A run of ``tt-train`` with ``backend = "lean"``: PPO on the compiled batch (see the
    module docstring)."""

    def ppo_name(self) -> str:
        return "PPO (tt_env lean backend, self-play on the compiled batch)"

    def backend_versions(self) -> dict[str, str]:
        return {}

    def network(self, model: Learner) -> CardNet:
        return model.net

    def at_boundary(self, model: Learner, final: bool = False) -> None:
        steps = model.num_timesteps
        if steps >= self.next_league or final:
            self.export(model, self.files.league / f"step_{steps:09d}.npz")
        if (steps >= self.next_eval or final) and steps != self._evaluated_at:
            self.evaluate(model)
        if steps >= self.next_checkpoint or final:
            model.save(self.files.checkpoints / f"ckpt_{steps:09d}.zip", {})
            self._state["wall_time"] = self.wall_time()
            self._state["timesteps"] = steps
            self.files.save_state(self._state)
        if steps >= min(self.next_league, self.next_eval, self.next_checkpoint):
            self._schedule(steps)

    def learner(self, device: torch.device, checkpoint: Path | None = None) -> Learner:
        """A new network and optimizer on ``device`` (or the state of ``checkpoint``)."""
        model = Learner(
            CardNet(**self.net_kwargs), self.config.learning_rate, _Logger(self.files.tb)
        )
        if checkpoint is not None:
            self.log(f"resuming {self.files.root} from {checkpoint.name}")
            model.load(checkpoint)
        model.net.to(device)
        _optimizer_to(model.optimizer, device)
        return model

    def run(self) -> Path:
        from tt_env.vector.native import CompiledSelfPlay

        c = self.config
        device = pick_device(c.device)
        if device.type == "cpu":
            torch.set_num_threads(c.threads)
        root = self.files.root
        made = [p for p in (root, *root.parents) if not p.exists()]  # removed if setup fails
        try:
            checkpoint = self.open_files()
            seed = c.seed + (_step_of(checkpoint) if checkpoint else 0)  # resumed: other deals
            torch.manual_seed(seed)
            model = self.learner(device, checkpoint)
            tables = CompiledSelfPlay(c.n_envs, self.rules, episode=c.episode, reward=c.reward)
        except BaseException:
            if made:
                shutil.rmtree(made[-1], ignore_errors=True)
            raise
        try:
            if checkpoint is None:
                self.start_network(model)
                self.export(model, self.files.league / f"step_{0:09d}.npz")
                if self.eval_specs and c.eval_every > 0:
                    self.evaluate(model)  # the starting point of the learning curve
            self._schedule(model.num_timesteps)
            seats = Seats(c, self.rules, league_dir=self.files.league, device=device, seed=seed)
            seats.net_kwargs = self.net_kwargs
            self.log(
                f"PPO (lean, {device}): {model.num_timesteps:,} -> {c.total_timesteps:,} "
                f"steps, {c.n_envs} tables, opponents {c.opponents}"
            )
            train_loop(self, model, tables=tables, seats=seats, device=device, seed=seed)
            self.at_boundary(model, final=True)
            final = self.export(model, self.files.root / "model.npz")
        finally:
            model.logger.close()
        return self.close(model, final)


def _optimizer_to(optimizer: torch.optim.Optimizer, device: torch.device) -> None:
    for state in optimizer.state.values():
        for key, value in state.items():
            if isinstance(value, torch.Tensor):
                state[key] = value.to(device)


# ---------------------------------------------------------------------------------- PPO
def train_loop(
    run: LeanTrainer, model: Learner, *, tables, seats: Seats, device, seed: int
) -> dict[str, float]:
    """PPO until ``total_timesteps`` learner steps (see the module docstring); the learner
    steps it played, the seconds it took and the environment's share of them (stepping the
    tables and computing their features)."""
    c = run.config
    n, t_max, p = c.n_envs, c.n_steps, run.rules.num_players
    totals = {"steps": 0, "seconds": 0.0, "environment_seconds": 0.0}
    features = run.features
    width = features.size
    net = model.net

    # the rollout's storage, allocated once (on the device: what the update reads)
    x_all = torch.zeros((t_max, n, width), dtype=torch.float32, device=device)
    mask_all = torch.zeros((t_max, n, NUM_ACTIONS), dtype=torch.bool, device=device)
    act_all = torch.zeros((t_max, n), dtype=torch.long, device=device)
    logp_all = torch.zeros((t_max, n), dtype=torch.float32, device=device)
    value_all = np.zeros((t_max, n), np.float32)
    seat_all = np.zeros((t_max, n), np.int64)
    mine = np.zeros((t_max, n), bool)  # a learner's decision, to train on
    valid = np.zeros((t_max, n), bool)  # a decision at all (not a table waiting for reset)
    rewards = np.zeros((t_max, n, p), np.float32)
    done = np.zeros((t_max, n), bool)
    x_np = np.zeros((n, width), np.float32)
    episode_return = np.zeros((n, p))
    curve: dict[str, list[float]] = defaultdict(list)

    tables.reset(seed=seed * 1_000_003 % 2**63)
    seats.draw(np.arange(n), tables.seat_agents)
    act = np.full(n, ACT, np.uint8)
    waiting = np.zeros(n, bool)  # tables that ended and start again at the next step
    rows = np.arange(n)
    progress = _progress(c, model.num_timesteps)
    while model.num_timesteps < c.total_timesteps:
        if c.anneal_lr:  # CleanRL's schedule: linear to 0 at total_timesteps
            left = 1.0 - model.num_timesteps / max(c.total_timesteps, 1)
            for group in model.optimizer.param_groups:
                group["lr"] = c.learning_rate * left
        t0 = time.perf_counter()
        env_time = 0.0
        for t in range(t_max):
            e0 = time.perf_counter()
            features.batch(tables.observations, x_np)
            env_time += time.perf_counter() - e0
            x = torch.from_numpy(x_np).to(device)
            mask = torch.from_numpy(tables.masks).to(device).bool()
            with torch.no_grad():
                logits, value = net(x)
                dist = torch.distributions.Categorical(logits=masked_logits(logits, mask))
                action = dist.sample()
                logp = dist.log_prob(action)
            seat = tables.seats.copy()
            player = np.where(waiting, 0, seats.who[rows, seat])  # a waiting table: no one
            actions = action.cpu().numpy()
            seats.act(player, actions, x=x, observations=tables.observations, masks=tables.masks)
            x_all[t], mask_all[t], logp_all[t] = x, mask, logp
            act_all[t] = torch.from_numpy(actions).to(device)
            value_all[t] = value.squeeze(-1).cpu().numpy()
            seat_all[t] = seat
            valid[t] = ~waiting
            mine[t] = valid[t] & (player == 0)
            e0 = time.perf_counter()
            tables.rewards[:] = 0.0  # the call adds what each seat earns
            tables.advance(act, actions)
            env_time += time.perf_counter() - e0
            rewards[t] = tables.rewards * c.reward_scale
            done[t] = tables.terminations
            episode_return += tables.rewards
            waiting = tables.terminations.copy()
            if waiting.any():
                ended = np.flatnonzero(waiting)
                for i in ended:
                    label = seats.label(i)
                    for s in np.flatnonzero(seats.who[i] == 0):
                        curve[label].append(float(episode_return[i, s]))
                episode_return[ended] = 0.0
                seats.draw(ended, tables.seat_agents)
        with torch.no_grad():  # the bootstrap: the value of each table's position now
            features.batch(tables.observations, x_np)
            last = net.critic(torch.from_numpy(x_np).to(device)).squeeze(-1).cpu().numpy()
        adv = advantages(
            rewards=rewards,
            values=value_all,
            seats=seat_all,
            valid=valid,
            done=done,
            bootstrap=np.where(waiting, np.nan, last),
            bootstrap_seats=tables.seats,
            gamma=c.gamma,
            lam=c.gae_lambda,
        )
        steps = int(mine.sum())
        rollout_time = time.perf_counter() - t0
        index = torch.as_tensor(np.flatnonzero(mine.reshape(-1)), device=device)
        stats = update(
            c,
            model,
            x=x_all.reshape(t_max * n, width)[index],
            mask=mask_all.reshape(t_max * n, NUM_ACTIONS)[index],
            actions=act_all.reshape(-1)[index],
            old_logp=logp_all.reshape(-1)[index],
            adv=torch.as_tensor(adv.reshape(-1), device=device)[index],
            old_values=torch.as_tensor(value_all.reshape(-1), device=device)[index],
        )
        elapsed = time.perf_counter() - t0
        model.num_timesteps += steps
        totals["steps"] += steps
        totals["seconds"] += elapsed
        totals["environment_seconds"] += env_time
        stats.update(
            learning_rate=model.optimizer.param_groups[0]["lr"],
            steps_per_second=steps / elapsed,
            environment_share=env_time / elapsed,
            rollout_share=rollout_time / elapsed,
        )
        _log_iteration(run, model, curve, stats)
        curve.clear()
        if progress is not None:
            progress.update(steps)
        run.at_boundary(model)
    if progress is not None:
        progress.close()
    return totals


def advantages(
    *,
    rewards: np.ndarray,
    values: np.ndarray,
    seats: np.ndarray,
    valid: np.ndarray,
    done: np.ndarray,
    bootstrap: np.ndarray,
    bootstrap_seats: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE along each (table, seat) stream of decisions.

    ``rewards`` (T, N, P): what each seat earned in each step; ``values``/``seats``/``valid``
    (T, N): the value of the position of each step, the seat that decided, and whether the step
    was a decision (not a table waiting for its reset); ``done`` (T, N): the step ended the
    episode. ``bootstrap`` (N,): the value of each table's position after the last step, for the
    seat ``bootstrap_seats`` to move (NaN: none). A seat's reward for a decision is what it
    earned from that step up to its next decision; a stream the rollout cuts is bootstrapped
    with the value of the position now if its seat is to move, else with the value of its own
    last decision (no advantage for the cut tail).
    """
    t_max, n, p = rewards.shape
    rows = np.arange(n)
    next_value = np.full((n, p), np.nan)
    next_value[rows, bootstrap_seats] = bootstrap
    next_adv = np.zeros((n, p))
    pending = np.zeros((n, p))
    out = np.zeros((t_max, n), np.float32)
    for t in range(t_max - 1, -1, -1):
        ended = done[t]
        next_value[ended] = 0.0
        next_adv[ended] = 0.0
        pending[ended] = 0.0
        pending += rewards[t]
        live = rows[valid[t]]
        s = seats[t, live]
        v = values[t, live]
        nv = next_value[live, s]
        cut = np.isnan(nv)
        nv = np.where(cut, v, nv)
        delta = pending[live, s] + gamma * nv - v
        adv = delta + gamma * lam * np.where(cut, 0.0, next_adv[live, s])
        out[t, live] = adv
        pending[live, s] = 0.0
        next_value[live, s] = v
        next_adv[live, s] = adv
    return out


def update(c, model: Learner, *, x, mask, actions, old_logp, adv, old_values) -> dict[str, float]:
    """``n_epochs`` of clipped PPO over the rollout's learner decisions, in minibatches."""
    net, optimizer = model.net, model.optimizer
    returns = adv + old_values
    total = x.shape[0]
    stats: dict[str, list[float]] = defaultdict(list)
    stop = False
    for _ in range(c.n_epochs):
        order = torch.randperm(total, device=x.device)
        for start in range(0, total, c.batch_size):
            mb = order[start : start + c.batch_size]
            if mb.numel() < 2:
                continue
            logits, value = net(x[mb])
            logp_all = torch.log_softmax(masked_logits(logits, mask[mb]), dim=-1)
            logp = logp_all.gather(1, actions[mb].unsqueeze(1)).squeeze(1)
            entropy = -(logp_all.exp() * logp_all).sum(-1).mean()
            ratio = (logp - old_logp[mb]).exp()
            a = adv[mb]
            a = (a - a.mean()) / (a.std() + 1e-8)
            policy_loss = torch.max(
                -a * ratio, -a * ratio.clamp(1 - c.clip_range, 1 + c.clip_range)
            ).mean()
            value_loss = 0.5 * (value.squeeze(-1) - returns[mb]).pow(2).mean()
            loss = policy_loss + c.vf_coef * value_loss - c.ent_coef * entropy
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), c.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - (logp - old_logp[mb])).mean().item()
            stats["policy_loss"].append(policy_loss.item())
            stats["value_loss"].append(value_loss.item())
            stats["entropy"].append(entropy.item())
            stats["approx_kl"].append(approx_kl)
            stats["clip_fraction"].append(((ratio - 1).abs() > c.clip_range).float().mean().item())
            if c.target_kl > 0 and approx_kl > 1.5 * c.target_kl:
                stop = True
                break
        if stop:
            break
    return {k: float(np.mean(v)) for k, v in stats.items()}


def _log_iteration(run: LeanTrainer, model: Learner, curve, stats: dict[str, float]) -> None:
    steps = model.num_timesteps
    for key, value in stats.items():
        model.logger.record(f"train/{key}", value)
    everything = [r for v in curve.values() for r in v]
    for name, returns in [("all", everything)] + sorted(curve.items()):
        if not returns:
            continue
        mean = float(np.mean(returns))
        run.files.append_csv(
            "progress.csv",
            {
                "timesteps": steps,
                "wall_time": round(run.wall_time(), 1),
                "opponents": name,
                "episodes": len(returns),
                "mean_reward": round(mean, 4),
            },
        )
        model.logger.record(f"episode/reward_vs_{name}", mean)
    model.logger.dump(steps)


def _progress(c, start: int):
    if not c.progress_bar:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=c.total_timesteps, initial=start, unit="step", dynamic_ncols=True)
