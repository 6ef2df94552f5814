"""Write the golden playthroughs of ``tests/golden/`` (see README.md there).

    python tests/golden/make_golden.py          # rewrite every file
    python tests/golden/make_golden.py 2p_game  # rewrite some of them

Run it only on purpose: the files pin the behaviour of the engine, the observation encoder and
the environment, and ``tests/game/test_golden.py`` replays them. A commit that rewrites a file
must say why its behaviour changed.

Each file is a seeded playthrough of ``three_thirteen_v0.raw_env`` (one or more episodes)
driven by the AEC loop, one text line per agent-step. The lines are written by
:func:`playthrough`, which the test also uses to write the lines of its replay, so a file and
its replay are compared line by line as text.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from tt_env.env import aec as three_thirteen_v0
from tt_env.encoding.actions import DISCARD_ACTION_BASE, GO_OUT_ACTION_BASE, TAKE_DISCARD_ACTION, describe
from tt_env.game.melds import discard_penalties

HERE = Path(__file__).resolve().parent
FORMAT = "tt_env.golden"
VERSION = 1
SEP = " | "  # between the fields of a step line (no field value contains it)

# The playthroughs: env keyword arguments, the seed of the first reset, how many episodes (the
# later resets have no seed: episode="round" then plays the next round of the same game), and
# the policy's options (see Policy).
CASES: dict[str, dict] = {
    "2p_game": dict(
        kwargs=dict(num_players=2), seed=1, episodes=1),
    "2p_one_wild_game": dict(
        kwargs=dict(num_players=2, rules="one-wild"), seed=2, episodes=1),
    "4p_jokers_redemption_game": dict(
        kwargs=dict(num_players=4, jokers_per_deck=2, redemption=True, joker_layoff=True),
        seed=3, episodes=1),
    "4p_aces_high_false_out_game": dict(
        # seed 6: besides the false go-outs, a Q-K-A run is melded (round 7, player_1 goes out)
        kwargs=dict(num_players=4, aces_high=True, false_out_penalty=20), seed=6, episodes=1,
        policy=dict(false_out=0.05)),
    "8p_rounds": dict(
        kwargs=dict(num_players=8, episode="round"), seed=5, episodes=12),
}


class Policy:
    """A seeded, deterministic policy that plays legal moves and ends rounds by going out often.

    Uniform random play almost never melds a whole hand of 8 cards or more, so every round would
    run to the turn cap. So: go out whenever a valid go-out is legal; take the discard with
    probability ``take``; discard the card that leaves the fewest penalty points with
    probability ``greedy`` (the solver on the true hand), else a uniformly random legal discard.
    With ``false_out_penalty`` every go-out action is legal; a valid one is still preferred, and
    with probability ``false_out`` an invalid one is played, to exercise the penalty.

    Only the generator uses it: the test replays the recorded actions.
    """

    def __init__(self, seed: int, take: float = 0.3, greedy: float = 0.4,
                 false_out: float = 0.0) -> None:
        self.rng = np.random.default_rng(seed)
        self.take, self.greedy, self.false_out = take, greedy, false_out
        self.options = {"seed": seed, "take": take, "greedy": greedy, "false_out": false_out}

    def __call__(self, env: three_thirteen_v0.raw_env, mask: np.ndarray) -> int:
        rng, game = self.rng, env.game
        legal = np.flatnonzero(mask)
        if legal[-1] <= TAKE_DISCARD_ACTION:  # the draw
            if TAKE_DISCARD_ACTION in legal and (len(legal) == 1 or rng.random() < self.take):
                return TAKE_DISCARD_ACTION
            return int(legal[0])
        outs = legal[legal >= GO_OUT_ACTION_BASE]
        valid = sorted(game.go_out_discards())
        valid_outs = [GO_OUT_ACTION_BASE + k for k in valid if GO_OUT_ACTION_BASE + k in outs]
        if valid_outs:
            return int(valid_outs[rng.integers(len(valid_outs))])
        if len(outs) and rng.random() < self.false_out:
            return int(outs[rng.integers(len(outs))])
        discards = legal[legal < GO_OUT_ACTION_BASE]
        if rng.random() < self.greedy:
            penalties = discard_penalties(game.hand_counts(game.current), game.wild_rank,
                                          env.rules)
            best = min(int(a) - DISCARD_ACTION_BASE for a in discards)
            for a in discards:  # the fewest penalty points, the lowest kind among ties
                k = int(a) - DISCARD_ACTION_BASE
                if penalties[k] < penalties[best]:
                    best = k
            return DISCARD_ACTION_BASE + best
        return int(discards[rng.integers(len(discards))])


# ------------------------------------------------------------------------- text
def number(x: float) -> str:
    """A float as short exact text: integers without ``.0``, others as ``repr`` (which reads
    back to the same double, so a float32 value is exact too)."""
    x = float(x)
    return str(int(x)) if x.is_integer() else repr(x)


def sparse(vector: np.ndarray) -> str:
    """The nonzero values of a vector as ``index:value`` pairs, space-separated."""
    nz = np.flatnonzero(vector)
    return " ".join(f"{i}:{number(v)}" for i, v in zip(nz.tolist(), vector[nz].tolist()))


def by_seat(values: dict[str, float]) -> str:
    """A dict by agent as ``seat:value`` pairs (the agents still in it: finished ones leave)."""
    return ",".join(f"{a.removeprefix('player_')}:{number(v)}" for a, v in values.items())


def compact_json(data) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True)


def header(name: str, case: dict, policy: Policy) -> dict:
    """What made the file: the replay reads ``kwargs``, ``seed`` and ``episodes``; the policy's
    options are there for the record (the replay does not need them)."""
    return {"format": FORMAT, "version": VERSION, "name": name,
            "env": "tt_env.three_thirteen_v0.raw_env", "kwargs": case["kwargs"],
            "illegal_action": "raise", "seed": case["seed"], "episodes": case["episodes"],
            "policy": policy.options}


class RecordedActionsExhausted(Exception):
    """A replay needs more actions than the file recorded."""


_NO_ACTION = object()


def playthrough(kwargs: dict, seed: int, episodes: int,
                choose=None, actions: Iterator | None = None) -> Iterator[str]:
    """The lines of a playthrough after its header: ``reset``, one line per agent-step, ``end``.

    The actions come from ``choose(env, mask)`` (generating) or from the iterator ``actions``
    (replaying: the recorded actions, None for the steps of terminated agents). A step line is
    yielded before its action is played, so that a replay can stop at the first difference.
    """
    env = three_thirteen_v0.raw_env(illegal_action="raise", **kwargs)
    step = 0
    for episode in range(episodes):
        reset_seed = seed if episode == 0 else None
        env.reset(seed=reset_seed)
        yield f"reset {episode} seed={reset_seed}"
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            mask = obs["action_mask"]
            if actions is not None:
                action = next(actions, _NO_ACTION)
                if action is _NO_ACTION:  # (a StopIteration would end this generator quietly)
                    raise RecordedActionsExhausted(f"no recorded action is left for step {step}")
            elif termination or truncation:
                action = None
            else:
                action = choose(env, mask)
            act = "None" if action is None else f"{action} ({describe(action)})"
            yield SEP.join([
                f"{step} {agent} act={act}",
                f"reward={number(reward)} term={int(termination)} trunc={int(truncation)}",
                "rewards=" + by_seat(env.rewards),
                "cum=" + by_seat(env._cumulative_rewards),
                "info=" + compact_json(info),
                "mask=" + ",".join(map(str, np.flatnonzero(mask).tolist())),
                "obs=" + sparse(obs["observation"]),
                "state=" + sparse(env.state()),
            ])
            env.step(action)
            step += 1
        game = env.game
        yield f"end {episode} " + compact_json({"scores": list(game.scores),
                                                "record": game.record()})


def step_action(line: str) -> int | None:
    """The action recorded in a step line."""
    act = line.split(SEP, 1)[0].split("act=", 1)[1]
    return None if act == "None" else int(act.split(" ", 1)[0])


def write(name: str) -> Path:
    case = CASES[name]
    policy = Policy(case["seed"], **case.get("policy", {}))
    path = HERE / f"{name}.txt"
    lines = [
        "# tt_env golden playthrough: see tests/golden/README.md; written by "
        "tests/golden/make_golden.py, replayed by tests/test_golden.py",
        "header " + compact_json(header(name, case, policy)),
        *playthrough(case["kwargs"], case["seed"], case["episodes"], choose=policy),
    ]
    # Bytes, not text mode: "\n" on every platform, so the same lines give the same file.
    path.write_bytes(("\n".join(lines) + "\n").encode())
    return path


def main(names: list[str]) -> None:
    for name in names or CASES:
        path = write(name)
        print(f"{path.name}: {path.stat().st_size:,} bytes")


if __name__ == "__main__":
    main(sys.argv[1:])
