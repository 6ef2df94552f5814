# noqa: D212, D415
"""
# Three Thirteen

| Import             | `from tt_env import three_thirteen_v0`                 |
|--------------------|--------------------------------------------------------|
| Actions            | Discrete                                               |
| Parallel API       | No                                                     |
| Manual Control     | No                                                     |
| Agents             | `agents= ['player_0', 'player_1', ...]`                |
| Agents             | 2 to 8 (`num_players`, default 2)                      |
| Action Shape       | Discrete(108)                                          |
| Action Values      | Discrete(108)                                          |
| Observation Shape  | (32 + 53 × 5 + 58 × n,): 413 for 2 players             |
| Observation Values | [0, bound] (float32; bounds in `observation_space`)    |

Three Thirteen is a rummy game for 2 to 8 players over 11 rounds: round 1 deals 3 cards to each
player, round 11 deals 13, and the rank equal to the number of cards dealt is wild. On a turn a
player draws (from the stock or the top of the discard pile) and then discards, or goes out when
all the other cards form melds (sets of one rank, runs of one suit, 3 cards or more). After
someone goes out every other player has one more turn; then every hand is scored by its best
arrangement (cards outside melds cost their points) and the lowest total after the last round
wins. The exact rules and every variant are in `RULES.md`; each variant is a keyword argument.

A player's turn is two steps of the same agent: first a draw, then a discard (or going out).

### Arguments

``` python
three_thirteen_v0.env(num_players=2, episode="game", reward="penalty", render_mode=None)
three_thirteen_v0.env(rules=Rules.preset("one-wild"), num_players=4, jokers_per_deck=2)
```

| argument | default | meaning |
| --- | --- | --- |
| any `Rules` field | as `RULES.md` | `num_players`, `max_wilds_per_meld`, `unused_wild_penalty`, `aces_high`, `court_values`, `extra_rounds`, `there_and_back`, `jokers_per_deck`, `joker_layoff`, `redemption`, `double_court_rounds`, `all_wild_melds`, `false_out_penalty`, `discard_drawn_upcard`, `max_turns_per_round`, `num_decks` |
| `rules` | `Rules()` | a `tt_env.Rules`, a preset name (`"standard"`, `"one-wild"`) or a dict; single fields given as keywords override the fields it leaves at their default (setting one field both ways to different values is an error) |
| `episode` | `"game"` | `"game"`: an episode is a whole game; `"round"`: one round (after an episode that ended with its round, a reset without a seed plays the next round of the same game; otherwise, or after the last round, a new game) |
| `reward` | `"penalty"` | `"penalty"`: minus the own round penalty; `"relative"`: the mean of the others' round penalties minus the own (positive when better than the table) |
| `illegal_action` | `"raise"` (`raw_env`), `"terminate"` (`env`) | `"raise"`: an illegal action raises `IllegalActionError` and changes nothing; `"terminate"`: as PettingZoo's `TerminateIllegalWrapper`, it ends the episode, the offender gets `illegal_reward` and the others 0 (the warning is logged once per environment, not once per illegal action) |
| `illegal_reward` | `None` | reward for an illegal action under `"terminate"`; `None`: minus the worst score a player can get in the episode, so an illegal move never pays |
| `render_mode` | `None` | `"human"` prints the table after every step, `"ansi"` makes `render()` return the text, `"rgb_array"` a picture of the table (`raw_env.frame`: a (540, 960, 3) `uint8` array; needs Pillow: `pip install "tt_env[render]"`) |

Unknown keywords raise a `TypeError` that lists the valid ones. An action outside 0..107 raises
`ActionOutOfBoundsError` (an `AssertionError`, as PettingZoo's `AssertOutOfBoundsWrapper` does)
whatever `illegal_action` says. `env()` is `raw_env(illegal_action="terminate")` behind
PettingZoo's `OrderEnforcingWrapper` only (a subclass whose `last()` skips four attribute
look-ups through the wrapper): the other two classic wrappers are folded into `raw_env`, which is
much faster than stacking them.

### Observation Space

The observation is a dictionary with an `'observation'` element, the flat `float32` vector
below, and an `'action_mask'` element that holds the legal moves (see Legal Actions Mask).

The vector is a concatenation of named pieces (`tt_env.encoding.observation.OBSERVATION_PIECES`;
`tt_env.encoding.observation.decode(vector, n)` cuts it back into them, `hand_of` and `top_discard_of`
recover the observer's hand and the top discard). Card pieces have one value per card kind:
0..12 clubs A..K, 13..25 diamonds, 26..38 hearts, 39..51 spades, 52 the joker. Pieces of shape
(n, ...) have one row per seat in play order from the observer: row 0 is the observer, row 1 the
next player, and so on. Nothing hidden is in it: other hands and the stock order never change it.

| piece | shape | values | description |
| --- | --- | --- | --- |
| `hand` | (53,) | count | the observer's hand: copies held of each card kind |
| `drawn_upcard` | (53,) | one-hot | the card the observer just took from the discard pile this turn (it may not be discarded in the same turn unless `discard_drawn_upcard`); zeros otherwise |
| `top_discard` | (53,) | one-hot | the top card of the discard pile; zeros when the pile is empty |
| `discard_below` | (53,) | count | the cards lower in the discard pile (public: every discard was seen) |
| `table` | (53,) | count | the cards laid down in melds this round (by the player who went out and, with `redemption`, by the others on their final turn) |
| `wild_rank` | (13,) | one-hot | the wild rank of the round, A..K |
| `cards_dealt` | (13,) | one-hot | cards dealt to each player this round, 3..15 |
| `rounds_left` | (1,) | fraction | rounds still to play after this one / rounds in the game |
| `phase` | (2,) | one-hot | the phase of the seat to move: [draw, discard]; zeros once the episode is over |
| `final_turn` | (1,) | 0/1 | 1 once a player has gone out this round: every other player has one last turn |
| `stock_size` | (1,) | fraction | cards in the stock / cards in the decks |
| `turns_left` | (1,) | fraction | turns left before the round ends by the turn cap / `max_turns_per_round` |
| `known` | (n, 53) | count | per seat: cards it is known to hold: taken from the discard pile this round, less one for each card of that kind it discarded or laid down since (public events only: with several decks the copy that left may be another); row 0 shows what the others know of the observer's hand |
| `hand_size` | (n,) | count | per seat: cards held |
| `went_out` | (n,) | 0/1 | per seat: 1 for the seat that went out this round |
| `score` | (n,) | points / 100 | per seat: cumulative score of the game / 100 |
| `to_move` | (n,) | one-hot | per seat: 1 for the seat to move |
| `dealer` | (n,) | one-hot | per seat: 1 for the dealer of the round |

The observation at the end of an episode shows the cards as the last move left them: the last
discard is on top of the pile and no longer in the hand, the melds of a player who went out are on
the table; with the final scores and nobody to move (`phase` and `to_move` all zeros).
`public_view` shows the same position. It is `game.ended_round()` of the engine: in
`episode="round"` the engine has already dealt the next round, which is not shown.

`state()` (`state_space`) is the perfect-information state for centralised critics and
debugging: the same pieces in absolute seat order with every hand (`hands`, (n, 53)) and the
`drawn_upcard` of each seat, plus the stock's contents (`stock`, counts) and its top card
(`next_stock`, one-hot; both zeros once the episode is over); `tt_env.encoding.observation.decode_state`
names them.

For scripted agents and language-model harnesses, `raw_env.public_view(agent)` gives the same
public information as a plain dict: hand and known cards as names, scores, legal moves in words.

#### Legal Actions Mask

The legal moves of the agent to move are in the `action_mask` element of the observation: an
`int8` vector of 108 values, 1 for each legal action. It is all zeros for every other agent and
once the episode is over. It holds exactly the engine's legal moves: the draws that are possible;
then the kinds in hand (not the card just taken from the discard pile unless
`discard_drawn_upcard`, or another copy is held), and the go-out actions whose discard leaves a
hand that melds completely (every discard when `false_out_penalty` is set).

### Action Space

| Action ID | Action |
| --- | --- |
| 0 | draw the top card of the stock |
| 1 | take the top card of the discard pile |
| 2 + k (2..54) | discard card kind k (`2 + 32` = discard 7♥, `54` = discard the joker) |
| 55 + k (55..107) | go out, discarding card kind k |

`tt_env.encoding.actions.describe(34)` is `"discard 7H"` and `parse_action("go out, discard KD")` is the
inverse.

### Rewards

When a round ends every agent gets minus its penalty points for that round (after doubling in
the court rounds with `double_court_rounds`); every other step gives 0. Over a game the rewards of
an agent add up to minus its final score. With `reward="relative"` the reward is the mean of the
other players' round penalties minus the own round penalty: positive for a player who did better
than the table, and the rewards of a round sum to 0.

| event | reward (`"penalty"`) | reward (`"relative"`) |
| --- | --- | --- |
| a round ends | −(own round penalty) | mean of the others' penalties − own penalty |
| any other step | 0 | 0 |
| illegal action (`illegal_action="terminate"`) | offender: `illegal_reward`, others 0 | same |

Episodes end with `terminations` (all agents at once); `truncations` are never set (the rules'
turn cap, `max_turns_per_round`, ends a round that nobody goes out of, and it is scored as usual),
except together with the terminations after an illegal action, as `TerminateIllegalWrapper`
does. `infos[agent]` holds `round` (the round in play, from 1), `score` and `scores` (totals),
`round_penalty` and `round_penalties` (of the last round scored in the episode, else None),
and once the episode is over `winners`: the agents with the lowest score over the episode.

A finished episode follows PettingZoo's AEC convention: every agent is stepped once with `None`
(as `agent_iter()` does) and leaves `agents`; `agent_iter()` then stops. A `step()` after that
only warns, as PettingZoo's `OrderEnforcingWrapper` does ("step() called after all agents are
terminated or truncated. Should reset() first."), and `last()` keeps giving the final status of
`agent_selection` with a reward of 0.

`reset(seed=s)` plays the engine game `tt_env.game.engine.Game(rules, seed=s)` (`raw_env.game`; its
`record()` replays it); resets without a seed draw the next game's seed from the last seed.
A seed is a non-negative integer (Python or NumPy); anything else (a bool, a float, a string, an
array, a negative number) raises a `ValueError` naming `seed` before anything changes.
`reset(options={"game": game})` starts from a copy of a given engine `Game` (from a record, or
set up with `Game.arrange`).

### Version History

* v0: Initial release (tt_env 0.1.0)
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from tt_env.encoding.actions import ACTION_TO_MOVE, NUM_ACTIONS, describe
from tt_env.encoding.observation import (
    EngineLayout,
    IncrementalEncoder,
    max_round_penalty,
    observation_layout,
    observation_space,
    state_space,
)
from tt_env.encoding.words import public_view
from tt_env.game.cards import NUM_KINDS
from tt_env.game.engine import Game, IllegalMoveError, check_seed
from tt_env.game.rules import FIELD_NAMES, Rules

EPISODES = ("game", "round")
REWARDS = ("penalty", "relative")
ILLEGAL_ACTIONS = ("raise", "terminate")
ENV_OPTIONS = ("rules", "render_mode", "episode", "reward", "illegal_action", "illegal_reward")

_NO_MOVES = bytes(NUM_ACTIONS)
_ZERO_MASK = np.zeros(NUM_ACTIONS, np.int8)
_RULE_DEFAULTS = Rules().to_dict()


class IllegalActionError(IllegalMoveError):
    """An action that is not legal now; the environment is left unchanged."""


class ActionOutOfBoundsError(IllegalActionError, AssertionError):
    """An action outside ``Discrete(108)`` (an ``AssertionError``, as PettingZoo's
    ``AssertOutOfBoundsWrapper`` raises)."""


def env(**kwargs: Any) -> AECEnv:
    """The environment as PettingZoo's classic environments are made: an illegal action ends the
    episode with ``illegal_reward`` for the offender (``illegal_action="terminate"``), behind the
    ``OrderEnforcingWrapper``. Takes the keyword arguments of :class:`raw_env`."""
    kwargs.setdefault("illegal_action", "terminate")
    return _OrderEnforcingWrapper(raw_env(**kwargs))


class _OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with ``last()`` answered by the environment in one
    call and ``step()`` reading the agents from the environment directly: the inherited methods
    read attributes through the wrapper's ``__getattr__`` (after a failed normal look-up), which
    costs a quarter of a step. Same checks, same errors, same warnings."""

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise AttributeError("agent_selection cannot be accessed before reset")
        return self.env.last(observe)

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        elif not self.env.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            self._has_updated = True
            self.env.step(action)


def _resolve_rules(rules: Rules | str | dict | None, fields: dict[str, Any]) -> Rules:
    if rules is None:
        base = Rules()
    elif isinstance(rules, Rules):
        base = rules
    elif isinstance(rules, str):
        base = Rules.preset(rules)
    elif isinstance(rules, dict):
        base = Rules.from_dict(rules)
    else:
        raise TypeError(f"rules must be a Rules, a preset name or a dict, got {rules!r}")
    for name, value in fields.items():
        mine = getattr(base, name)
        if mine != _RULE_DEFAULTS[name] and mine != value:
            raise ValueError(
                f"{name} is given twice: {name}={value!r} and rules with {name}={mine!r}"
            )
    return base.replace(**fields) if fields else base


def check_render_mode(render_mode: str | None, modes: Sequence[str]) -> None:
    """Refuse an unknown render mode; for ``"rgb_array"``, check that Pillow is there."""
    if render_mode is not None and render_mode not in modes:
        raise ValueError(
            f"render_mode must be None or one of {', '.join(map(repr, modes))}, got {render_mode!r}"
        )
    if render_mode == "rgb_array":
        from tt_env.env.render import require_pillow

        require_pillow()


def render_text(render_mode: str | None, text) -> str | None:
    """``render()`` of both environments: print ``text()`` ("human"), return it ("ansi"), or
    warn that no render mode was given (as Gymnasium and PettingZoo environments do)."""
    if render_mode is None:
        logger.warn("You are calling render method without specifying any render mode.")
        return None
    if render_mode == "human":
        print(text())
        return None
    return text()


class raw_env(AECEnv):
    """Three Thirteen as a PettingZoo AEC environment (see the module documentation).

    Safe without wrappers: an illegal action raises :class:`IllegalActionError` and leaves the
    state unchanged (or, with ``illegal_action="terminate"``, ends the episode as PettingZoo's
    ``TerminateIllegalWrapper`` does).
    """

    metadata = {
        "name": "three_thirteen_v0",
        "render_modes": ["human", "ansi", "rgb_array"],
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        *,
        rules: Rules | str | dict | None = None,
        render_mode: str | None = None,
        episode: str = "game",
        reward: str = "penalty",
        illegal_action: str = "raise",
        illegal_reward: float | None = None,
        **rule_fields: Any,
    ) -> None:
        super().__init__()
        unknown = sorted(set(rule_fields) - set(FIELD_NAMES))
        if unknown:
            raise TypeError(
                f"three_thirteen_v0: unknown keyword argument(s) {', '.join(unknown)}; valid ones "
                f"are {', '.join(ENV_OPTIONS)} and the Rules fields {', '.join(FIELD_NAMES)}"
            )
        for name, value, valid in (
            ("episode", episode, EPISODES),
            ("reward", reward, REWARDS),
            ("illegal_action", illegal_action, ILLEGAL_ACTIONS),
        ):
            if value not in valid:
                raise ValueError(
                    f"{name} must be one of {', '.join(map(repr, valid))}, got {value!r}"
                )
        check_render_mode(render_mode, self.metadata["render_modes"])
        self.rules = _resolve_rules(rules, rule_fields)
        self.render_mode = render_mode
        self.episode = episode
        self.reward_mode = reward
        self.illegal_action = illegal_action
        if illegal_reward is None:
            rounds = 1 if episode == "round" else self.rules.num_rounds
            illegal_reward = -float(rounds * max_round_penalty(self.rules))
        self.illegal_reward = float(illegal_reward)

        n = self.rules.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self._seat_of = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_spaces = {  # built once: observation_space(a) is always the same
            a: spaces.Dict(
                {
                    "observation": observation_space(self.rules),
                    "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        self.state_space = state_space(self.rules)

        self.game: Game | None = None
        self._final: Game | None = None  # once the episode is over: the game as it ended
        self._layout = EngineLayout(self.rules)  # the engine writes the observations by it
        layout = observation_layout(n)
        self._nobody_to_move = (layout.slices["phase"], layout.slices["to_move"])
        self._encoder = IncrementalEncoder(self.rules)  # the state vector (state())
        self._seed_rng = np.random.default_rng()
        self._legal: bytes | None = None  # mask of the state, cached until the next step
        self._mask: np.ndarray = _ZERO_MASK
        self._over = True
        self._rewards_dirty = False
        self._episode_scores = [0] * n
        self._last_result = None
        self._winners: list[str] | None = None
        self._round_played = False  # episode="round" ended by its round: reset plays the next
        self._finished: dict[str, tuple] = {}  # final status of the agents that left the episode
        self._warned_illegal = False

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ reset
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start an episode. ``seed`` reproduces it exactly; ``options={"game": game}`` starts
        from a copy of an engine :class:`~tt_env.game.engine.Game` with the same rules."""
        # Everything is checked before anything changes: a refused reset leaves the env as it was.
        if seed is not None:
            seed = check_seed(seed)
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options must be a dict or None, got {type(options).__name__}")
        given = (options or {}).get("game")
        if given is not None:
            if not isinstance(given, Game) or given.rules != self.rules:
                raise ValueError("options['game'] must be a tt_env Game with this env's rules")
            if given.is_over:
                raise ValueError("options['game'] is over")
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)  # the seeds of the games that follow
        if given is not None:
            self.game = copy.deepcopy(given)
        elif seed is not None:
            self.game = Game(self.rules, seed=seed)
        elif self._round_played and not self.game.is_over:
            pass  # episode="round": the next round of the same game, already dealt by the engine
        else:
            self.game = Game(self.rules, seed=int(self._seed_rng.integers(2**63)))
        game = self.game
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._skip_agent_selection = None
        self._rewards_dirty = False
        self._over = False
        self._legal = None
        self._episode_scores = [0] * self.rules.num_players
        self._last_result = None
        self._winners = None
        self._round_played = False
        self._finished = {}
        self._final = None
        self._set_infos()
        self.agent_selection = self.possible_agents[game.current]

    # ------------------------------------------------------------------ step
    def step(self, action: int) -> None:
        agent = self.agent_selection
        try:
            dead = self.terminations[agent] or self.truncations[agent]
        except KeyError:  # every agent has left a finished episode
            EnvLogger.warn_step_after_terminated_truncated()
            return None
        if dead:
            return self._was_dead_step(action)
        if type(action) is not int:
            given, action = action, _as_action(action)
        else:
            given = action
        if not 0 <= action < NUM_ACTIONS:
            raise ActionOutOfBoundsError(
                f"action {given!r} of {agent} is not in the action space Discrete({NUM_ACTIONS})"
            )
        legal = self._legal
        if legal is None:
            legal = self._legal_now()
        if not legal[action]:
            return self._illegal(agent, action)
        self._cumulative_rewards[agent] = 0.0
        if self._rewards_dirty:
            for a in self.rewards:
                self.rewards[a] = 0.0
            self._rewards_dirty = False
        self._legal = None
        # The engine changes the state and says what happened; the rewards read that outcome.
        outcome = self.game.apply(ACTION_TO_MOVE[action])
        if outcome.round_result is not None:
            self._end_round(outcome.round_result)
        else:
            self.agent_selection = self.possible_agents[outcome.next_seat]
        if self.render_mode == "human":
            self.render()

    def _was_dead_step(self, action: Any) -> None:
        agent = self.agent_selection
        status = (self.terminations[agent], self.truncations[agent], self.infos[agent])
        super()._was_dead_step(action)  # refuses an action other than None, changing nothing
        self._finished[agent] = status

    def last(self, observe: bool = True):
        """``(observation, cumulative reward, termination, truncation, info)`` of
        ``agent_selection``; once every agent has left a finished episode, its final status with
        a reward of 0 (PettingZoo's ``AECEnv.last`` would raise ``KeyError``)."""
        agent = self.agent_selection
        try:
            reward, termination, truncation, info = (
                self._cumulative_rewards[agent],
                self.terminations[agent],
                self.truncations[agent],
                self.infos[agent],
            )
        except KeyError:
            if agent not in self._finished:
                raise
            termination, truncation, info = self._finished[agent]
            reward = 0.0
        return (self.observe(agent) if observe else None, reward, termination, truncation, info)

    def cumulative_reward(self, agent: str) -> float:
        """What ``agent`` has earned since it last acted (what :meth:`last` returns for it)."""
        return self._cumulative_rewards[agent]

    @property
    def last_step_rewarded(self) -> bool:
        """True when ``rewards`` holds rewards given by the last step (the next step clears them)."""
        return self._rewards_dirty

    def _legal_now(self) -> bytes:
        """The mask of the state as bytes (kept until the next step) and as an array."""
        legal = _NO_MOVES if self._over else self.game.legal_mask()
        self._legal = legal
        self._mask = np.frombuffer(legal, np.int8)
        return legal

    def _end_round(self, result) -> None:
        game = self.game
        self._last_result = result
        penalties = result.penalties
        n = len(penalties)
        for s, p in enumerate(penalties):
            self._episode_scores[s] += p
        if self.reward_mode == "penalty":
            values = [-float(p) for p in penalties]
        else:
            total = sum(penalties)
            values = [-(p - (total - p) / (n - 1)) for p in penalties]
        for a, r in zip(self.possible_agents, values):
            self.rewards[a] = r
        self._rewards_dirty = True
        self._accumulate_rewards()
        if game.is_over or self.episode == "round":
            self._over = True
            self._round_played = self.episode == "round"
            self._final = game.ended_round()  # the next round, if dealt, stays hidden
            self.terminations = dict.fromkeys(self.agents, True)
            self._set_infos()
        else:
            self._set_infos()
            self.agent_selection = self.possible_agents[game.current]

    def _illegal(self, agent: str, action: int) -> None:
        move = ACTION_TO_MOVE[action]
        if self.illegal_action == "raise":
            try:
                self.game.check(move)
                why = "the episode is over"
            except IllegalMoveError as exc:
                why = str(exc)
            legal = [describe(a) for a in np.flatnonzero(np.frombuffer(self._legal, np.int8))]
            raise IllegalActionError(
                f"{agent} cannot play action {action} ({describe(action)}): {why}. "
                f"Legal now: {', '.join(legal) or 'nothing'}"
            )
        # As PettingZoo's TerminateIllegalWrapper: the episode ends, the offender is penalised.
        # Warned once per environment: an unmasked learner would otherwise flood the log.
        if not self._warned_illegal:
            self._warned_illegal = True
            EnvLogger.warn_on_illegal_move()
        self._cumulative_rewards[agent] = 0.0
        self.terminations = dict.fromkeys(self.agents, True)
        self.truncations = dict.fromkeys(self.agents, True)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self.rewards[agent] = self.illegal_reward
        self._rewards_dirty = True
        self._accumulate_rewards()
        self._over = True
        self._legal = None
        self._final = self.game
        self.infos[agent] = {
            **self.infos[agent],
            "illegal_action": action,
            "illegal_move": describe(action),
        }
        self._deads_step_first()

    def _set_infos(self) -> None:
        game, names = self.game, self.possible_agents
        result = self._last_result
        scores = dict(zip(names, game.scores))
        penalties = dict(zip(names, result.penalties)) if result is not None else None
        round_number = (result.round_index if self._over else game.round_index) + 1
        winners = None
        if self._over:
            best = min(self._episode_scores)
            winners = [a for a, s in zip(names, self._episode_scores) if s == best]
        self._winners = winners
        self.infos = {}
        for a in names:
            info = {
                "round": round_number,
                "score": scores[a],
                "scores": scores,
                "round_penalty": penalties[a] if penalties else None,
                "round_penalties": penalties,
            }
            if winners is not None:
                info["winners"] = winners
            self.infos[a] = info

    # ------------------------------------------------------------------ observe
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat_of[agent]
        if agent == self.agent_selection and not self._over:
            if self._legal is None:
                self._legal_now()
            mask = self._mask.copy()
        else:
            mask = _ZERO_MASK.copy()
        return {"observation": self._observation(seat), "action_mask": mask}

    def _observation(self, seat: int) -> np.ndarray:
        """``seat``'s observation, written by the engine; once the episode is over, of the game
        as it ended, with nobody to move."""
        if not self._over:
            return self.game.observation(seat, self._layout)
        if self._final is None:  # before the first reset
            return np.zeros(self._layout.size, np.float32)
        observation = self._final.observation(seat, self._layout)
        for piece in self._nobody_to_move:  # the game left in play by an illegal action
            observation[piece] = 0
        return observation

    def state(self) -> np.ndarray:
        """The perfect-information state vector (``state_space``)."""
        encoder = self._encoder
        if self._over:
            if self._final is None:  # before the first reset
                encoder.v[:] = 0
            else:
                encoder.finish(self._final)
            return np.concatenate([encoder.v, np.zeros(2 * NUM_KINDS, np.float32)])
        encoder.sync(self.game)
        return encoder.state(self.game)

    def public_view(self, agent: str, pretty: bool = False) -> dict[str, Any]:
        """The public information of ``agent`` as a plain dict of words (cards as names, legal
        moves in words and as actions), for scripted agents and language-model harnesses."""
        game = self._final if self._over and self._final is not None else self.game
        view = game.view(self._seat_of[agent])
        out = public_view(view, self.rules, pretty)
        out["agent"] = agent
        if self._over:
            out["legal_moves"], out["legal_actions"] = [], []
        return out

    # ------------------------------------------------------------------ render
    def render(self) -> str | np.ndarray | None:
        """``"human"``: print the table; ``"ansi"``: return it as text; ``"rgb_array"``: return
        a picture of it (:meth:`frame`)."""
        if self.render_mode == "rgb_array":
            return self.frame()
        return render_text(self.render_mode, self._text)

    def _text(self) -> str:
        from tt_env.env.render import table_text

        return table_text(
            self.game,
            self.rules,
            self.possible_agents,
            over=self._over,
            result=self._last_result,
            winners=self._winners,
        )

    def frame(self, seat: int | None = None, notes: Sequence[str] = ()) -> np.ndarray:
        """A picture of the table (what ``render()`` returns in ``"rgb_array"`` mode): an
        ``(540, 960, 3)`` ``uint8`` array. It shows the round and wild rank, each seat's hand size,
        score and known cards, the stock and the top discard, and the hand of ``seat`` (default:
        the seat to move; once the episode is over, the last to move) in its best melds, wild
        cards marked, with ``notes`` (lines of text) below. Needs Pillow (extra ``render``)."""
        from tt_env.env.render import draw, table_scene

        game = self._final if self._over and self._final is not None else self.game
        scene = table_scene(
            game,
            self.rules,
            self.possible_agents,
            over=self._over,
            result=self._last_result,
            winners=self._winners,
            seat=seat,
            notes=tuple(notes),
        )
        return draw(scene)

    def close(self) -> None:
        pass


def _as_action(action: Any) -> int:
    """An int from a NumPy integer or 0-d integer array; -1 for anything else (out of bounds)."""
    if isinstance(action, (bool, np.bool_)):
        return -1
    if isinstance(action, int):
        return int(action)
    if (
        isinstance(action, (np.integer, np.ndarray))
        and np.issubdtype(np.asarray(action).dtype, np.integer)
        and np.ndim(action) == 0
    ):
        return int(action)
    return -1


__all__ = ["ActionOutOfBoundsError", "IllegalActionError", "env", "raw_env"]
