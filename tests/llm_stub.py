"""A stub of an OpenAI-compatible chat server on 127.0.0.1, for the tests of the ``llm`` agent:
nothing leaves the machine.

``StubServer(mode)`` answers ``POST /v1/chat/completions`` as the mode says:

- ``"good"``: ``Move: <n>`` for the last numbered legal move of the prompt; for a prompt that
  lists no moves (``legal_moves=hidden``), a legal move in words read from the position
  (``draw stock``, or the discard of the last card of the hand it may discard);
- ``"garbage"``: text that names no move;
- ``"bad-then-good"``: garbage, then a good answer to the retry that quotes the error;
- ``"illegal"``: a number beyond the legal moves (unlisted: the discard of a card not held);
- ``"slow"``: a good answer after ``delay`` seconds;
- ``"error"``: HTTP 500.

:func:`dead_url` gives the address of a port where nothing listens (a server that is down).
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class StubServer:
    def __init__(self, mode: str = "good", delay: float = 2.0) -> None:
        self.mode = mode
        self.delay = delay
        self.requests: list[dict] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # quiet
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append(body)
                if not self.path.endswith("/chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                if stub.mode == "error":
                    self._send(500, {"error": {"message": "the stub is broken on purpose"}})
                    return
                if stub.mode == "slow":
                    time.sleep(stub.delay)
                text = stub.answer(body["messages"])
                prompt = sum(len(m["content"]) for m in body["messages"]) // 4
                self._send(
                    200,
                    {
                        "id": "chatcmpl-stub",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body.get("model", "stub"),
                        "choices": [
                            {
                                "index": 0,
                                "message": {"role": "assistant", "content": text},
                                "finish_reason": "stop",
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt,
                            "completion_tokens": 5,
                            "total_tokens": prompt + 5,
                        },
                    },
                )

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout)
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def answer(self, messages: list[dict]) -> str:
        prompt = messages[1]["content"]
        numbers = re.findall(r"^  (\d+)\. ", prompt, re.M)
        good = (
            f"I play the last legal move.\nMove: {numbers[-1]}"
            if numbers
            else f"I play a legal move.\nMove: {_move_in_words(prompt)}"
        )
        if self.mode == "garbage":
            return "I like turtles."
        if self.mode == "illegal":
            return f"Move: {len(numbers) + 7}" if numbers else "Move: discard " + _not_held(prompt)
        if self.mode == "bad-then-good":
            return good if len(messages) > 2 else "Hmm, not sure."
        return good

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()


def _hand(prompt: str) -> list[str]:
    return re.search(r"^Your hand \(\d+ cards?\): (.*)$", prompt, re.M).group(1).split()


def _move_in_words(prompt: str) -> str:
    """A legal move of a prompt without the list: draw from the stock, or discard the last
    card of the hand that is not the card just taken from the discard pile."""
    if "It is your turn to draw." in prompt:
        return "draw stock"
    taken = re.search(r"You took (\S+) from the discard pile this turn", prompt)
    hand = _hand(prompt)
    return "discard " + next(c for c in reversed(hand) if not taken or c != taken.group(1))


def _not_held(prompt: str) -> str:
    hand = set(_hand(prompt))
    return next(r + s for s in "CDHS" for r in "A23456789TJQK" if r + s not in hand)


def dead_url() -> str:
    """The address of a local port where nothing listens."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
