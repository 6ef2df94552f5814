"""LLMAgent: a language model at the table, through any OpenAI-compatible chat server.

The spec ``llm(base_url=http://127.0.0.1:8000/v1, model=qwen2.5-7b-instruct)`` plays with a
local server (vLLM, llama.cpp's ``llama-server``, Ollama's ``/v1``) or a hosted API (leave out
``base_url`` for OpenAI's). It needs the extra ``llm`` (the ``openai`` client library).

Each decision is one chat request: the prompt of :mod:`tt_env.text` (the rules in force, the
position from the seat's observation alone, the numbered legal moves, or with
``legal_moves=hidden`` no list: the move is named in words) and the model's answer, read by
:func:`tt_env.text.parse_answer`:

- an answer that names no legal move gets **one retry** that quotes the error; a second bad
  answer gives, as ``on_invalid`` says, the **fallback** (the move ``counting`` would make) or
  a **forfeit** (:class:`~tt_env.agents.Forfeit` is raised: ``tt-arena`` scores the seat's
  round as if it held its whole hand); a server that does not answer within ``timeout``
  seconds (over ``retries`` + 1 attempts), or answers with an error, gives the fallback
  whatever ``on_invalid`` says (the model was not heard). Every fallback and forfeit is
  counted (:meth:`LLMAgent.usage`, and ``tt-arena``'s results);
- a move that is the only legal one is played without asking;
- the API key is read from the environment variable ``api_key_env`` (``OPENAI_API_KEY`` by
  default), never from the command line; a local server that needs none gets a placeholder.

Options (``llm(name=value, ...)``): ``model`` (required), ``base_url``, ``temperature`` (0.0),
``timeout`` (seconds per decision, 60), ``retries`` (1: attempts after a failed request),
``max_tokens`` (the answer's length, 400), ``api_key_env``, ``legal_moves`` (``listed``, the
default, or ``hidden``), ``on_invalid`` (``fallback``, the default, or ``forfeit``).
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from tt_env.agents.base import BaseAgent, Forfeit, legal_actions
from tt_env.agents.specs import builtin_agent, make_agent
from tt_env.text import AnswerError, RecentMoves, decision_prompt, parse_answer

SYSTEM_PROMPT = (
    "You are an expert player of the rummy card game Three Thirteen. You get the rules, the "
    "position and the numbered legal moves; reply with the number of the move you play. You may "
    "think first, but end your reply with a line 'Move: <number>'."
)
SYSTEM_PROMPT_HIDDEN = (
    "You are an expert player of the rummy card game Three Thirteen. You get the rules and the "
    "position; reply with the move you play, in words. You may think first, but end your reply "
    "with a line 'Move: <move>', as in 'Move: discard 7H'."
)
"""The system prompt with ``legal_moves=hidden``."""
LEGAL_MOVES = ("listed", "hidden")
ON_INVALID = ("fallback", "forfeit")
PLACEHOLDER_KEY = "not-needed"  # what a local server without authentication is sent


class LLMError(ValueError):
    """The language model could not be asked (no client library, no key, a bad option)."""


@builtin_agent
class LLMAgent(BaseAgent):
    """A language model's play (see the module docstring)."""

    name = "llm"

    def __init__(
        self,
        num_players: int = 2,
        rules=None,
        seed: int | None = None,
        *,
        model: str | None = None,
        base_url: str | None = None,
        temperature: float = 0.0,
        timeout: float = 60.0,
        retries: int = 1,
        max_tokens: int = 400,
        api_key_env: str = "OPENAI_API_KEY",
        legal_moves: str = "listed",
        on_invalid: str = "fallback",
    ) -> None:
        super().__init__(num_players, rules, seed)
        if not model or not isinstance(model, str):
            raise ValueError("the llm agent needs model=<name>, e.g. llm(model=gpt-4o-mini)")
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or timeout <= 0:
            raise ValueError(f"llm timeout must be a number of seconds > 0, got {timeout!r}")
        if not isinstance(retries, int) or isinstance(retries, bool) or retries < 0:
            raise ValueError(f"llm retries must be an integer >= 0, got {retries!r}")
        if not isinstance(temperature, (int, float)) or isinstance(temperature, bool):
            raise ValueError(f"llm temperature must be a number, got {temperature!r}")
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ValueError(f"llm max_tokens must be an integer >= 1, got {max_tokens!r}")
        if legal_moves not in LEGAL_MOVES:
            raise ValueError(f"llm legal_moves must be listed or hidden, got {legal_moves!r}")
        if on_invalid not in ON_INVALID:
            raise ValueError(f"llm on_invalid must be fallback or forfeit, got {on_invalid!r}")
        key = os.environ.get(str(api_key_env))
        if not key and base_url is None:
            raise LLMError(
                f"the llm agent reads the API key from ${api_key_env}, which is not set "
                "(for a local server give base_url=...)"
            )
        try:
            import openai
        except ImportError:
            raise LLMError(
                "the llm agent needs the openai client library: pip install 'tt_env[llm]'"
            ) from None
        self.model = model
        self.base_url = base_url
        self.temperature = float(temperature)
        self.timeout = float(timeout)
        self.retries = retries
        self.max_tokens = max_tokens
        self.api_key_env = str(api_key_env)
        self.legal_moves = legal_moves
        self.on_invalid = on_invalid
        self._openai = openai
        self._client = self._make_client()
        self._recent = RecentMoves(self.num_players)
        self._fallback_agent = None
        self._last: dict[str, Any] | None = None
        self._reset_usage()

    # ------------------------------------------------------------------ bookkeeping
    def _reset_usage(self) -> None:
        self._usage = {
            "decisions": 0,
            "asked": 0,
            "requests": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "seconds": 0.0,
            "retries": 0,
            "fallbacks": 0,
            "forfeits": 0,
        }
        self.fallback_reasons: list[str] = []

    def usage(self) -> dict[str, float]:
        """Since the last :meth:`reset`: decisions, those asked of the model, requests sent,
        tokens (prompt and completion), seconds waiting, retries after a bad answer,
        fallbacks to ``counting``'s move, and forfeits (``on_invalid=forfeit``)."""
        return dict(self._usage)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self._reset_usage()

    def new_round(self) -> None:
        self._recent.reset()

    def __getstate__(self) -> dict:
        # The client holds a connection pool: rebuilt in the process that plays (tt-arena's
        # workers get a pickled copy).
        state = self.__dict__.copy()
        state["_client"] = None
        state["_openai"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        import openai

        self._openai = openai
        self._client = self._make_client()

    def _make_client(self):
        """The chat client: no retries of its own (the agent counts its retries), the key
        from the environment or a placeholder for a local server."""
        key = os.environ.get(self.api_key_env)
        return self._openai.OpenAI(
            base_url=self.base_url,
            api_key=key or PLACEHOLDER_KEY,
            max_retries=0,
            timeout=self.timeout,
        )

    # ------------------------------------------------------------------ playing
    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = legal_actions(action_mask)
        self._usage["decisions"] += 1
        recent = self._recent.update(observation)
        if legal.size == 1:
            self._last = {"answer": None, "action": int(legal[0]), "note": "the only legal move"}
            return int(legal[0])
        self._usage["asked"] += 1
        listed = self.legal_moves == "listed"
        prompt = decision_prompt(
            observation, action_mask, self.rules, recent, drawn=self._recent.drawn, listed=listed
        )
        messages = [
            {"role": "system", "content": SYSTEM_PROMPT if listed else SYSTEM_PROMPT_HIDDEN},
            {"role": "user", "content": prompt},
        ]
        move = "<number>" if listed else "<move>"
        deadline = time.monotonic() + self.timeout
        answers: list[str] = []
        for attempt in range(2):  # the answer, then one retry that quotes the error
            answer, error = self._ask(messages, deadline)
            if answer is None:
                return self._fallback(observation, action_mask, error, answers)
            answers.append(answer)
            try:
                action = parse_answer(answer, action_mask, numbered=listed)
            except AnswerError as exc:
                if attempt == 1:
                    why = f"unusable answer twice: {exc}"
                    if self.on_invalid == "forfeit":
                        self._forfeit(why, answers)
                    return self._fallback(observation, action_mask, why, answers)
                self._usage["retries"] += 1
                messages += [
                    {"role": "assistant", "content": answer},
                    {
                        "role": "user",
                        "content": f"That answer cannot be played: {exc}. Reply again, ending "
                        f"with a line 'Move: {move}'.",
                    },
                ]
                continue
            self._last = {"answer": "\n---\n".join(answers), "action": action, "note": "model"}
            return action
        raise AssertionError("unreachable")

    def _ask(self, messages, deadline: float) -> tuple[str | None, str]:
        """The model's answer (text), or None and why not."""
        openai = self._openai
        error = "no request sent"
        for _ in range(self.retries + 1):
            left = deadline - time.monotonic()
            if left <= 0:
                return None, f"no answer within the timeout of {self.timeout:g} s ({error})"
            self._usage["requests"] += 1
            start = time.monotonic()
            try:
                response = self._client.chat.completions.create(
                    model=self.model,
                    messages=messages,
                    temperature=self.temperature,
                    max_tokens=self.max_tokens,
                    timeout=left,
                )
            except openai.APITimeoutError:
                error = f"no answer within the timeout of {self.timeout:g} s"
            except openai.APIConnectionError as exc:
                error = f"cannot reach {self.base_url or 'the API'}: {_first_line(exc)}"
            except openai.APIStatusError as exc:
                error = f"the server answered {exc.status_code}: {_first_line(exc)}"
            except openai.OpenAIError as exc:
                error = f"{type(exc).__name__}: {_first_line(exc)}"
            else:
                self._usage["seconds"] += time.monotonic() - start
                usage = getattr(response, "usage", None)
                if usage is not None:
                    self._usage["prompt_tokens"] += int(getattr(usage, "prompt_tokens", 0) or 0)
                    self._usage["completion_tokens"] += int(
                        getattr(usage, "completion_tokens", 0) or 0
                    )
                try:
                    text = response.choices[0].message.content
                except (AttributeError, IndexError, TypeError):
                    text = None
                return (text or "", "")
            self._usage["seconds"] += time.monotonic() - start
        return None, error

    def _fallback(self, observation, action_mask, why: str, answers: list[str]) -> int:
        if self._fallback_agent is None:
            self._fallback_agent = make_agent("counting", self.num_players, self.rules)
        action = int(self._fallback_agent.act(observation, action_mask))
        self._usage["fallbacks"] += 1
        self.fallback_reasons.append(why)
        said = "\n---\n".join(answers) if answers else None
        self._last = {"answer": said, "action": action, "note": f"fallback: {why}"}
        return action

    def _forfeit(self, why: str, answers: list[str]) -> None:
        """Give up the round (``on_invalid=forfeit``): raises :class:`Forfeit`."""
        self._usage["forfeits"] += 1
        self.fallback_reasons.append(f"forfeit: {why}")
        said = "\n---\n".join(answers) if answers else None
        self._last = {"answer": said, "action": None, "note": f"forfeit: {why}"}
        raise Forfeit(why)

    def explain(self, observation: np.ndarray, action_mask: np.ndarray):
        """For replays: the move played and what the model said (or why it fell back)."""
        last = self._last
        if last is None or last["note"] == "the only legal move":
            return None
        kind = "llm" if last["note"] == "model" else "llm fallback (counting)"
        text = last["answer"] or ""
        if last["note"] != "model":
            text = (last["note"] + ("\n" + text if text else "")).strip()
        return kind, {last["action"]: 1.0}, text


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


__all__ = ["LLMAgent", "LLMError", "SYSTEM_PROMPT", "SYSTEM_PROMPT_HIDDEN"]
