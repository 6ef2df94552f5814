"""A small driver of headless Chromium over the DevTools protocol, through a pipe.

Chromium started with ``--remote-debugging-pipe`` reads protocol messages (JSON, each ended by a
NUL byte) on its file descriptor 3 and writes its answers and events on 4; nothing else is needed
(no WebDriver, no websocket library). Used by ``tests/replay/test_replay.py`` and
``benchmarks/bench_replay.py``.

    with Chromium() as browser:
        browser.open(Path("game.html"))
        browser.key("ArrowRight")
        print(browser.evaluate("document.title"), browser.errors())
        browser.screenshot(Path("game.png"))
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

CHROMIUM = "/usr/bin/chromium"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-pipe",
)
KEY_CODES = {
    "ArrowRight": 39,
    "ArrowLeft": 37,
    "Home": 36,
    "End": 35,
    "PageDown": 34,
    "PageUp": 33,
    " ": 32,
}


class BrowserError(RuntimeError):
    """Chromium did not start, died, answered with an error or took too long."""


class Chromium:
    """One headless Chromium with one page (see the module docstring)."""

    def __init__(
        self, executable: str = CHROMIUM, width: int = 1280, height: int = 900, timeout=30.0
    ):
        self.executable = executable
        self.size = (width, height)
        self.timeout = timeout
        self._buffer = b""
        self._id = 0
        self._events: list[dict[str, Any]] = []
        self.process: subprocess.Popen | None = None

    # -------------------------------------------------------------- start and stop
    def __enter__(self) -> Chromium:
        self._profile = tempfile.mkdtemp(prefix="tt-chromium-")
        child_in, self._writer = _pipe_above(4)  # Chromium reads child_in as its fd 3
        self._reader, child_out = _pipe_above(4)  # and writes child_out as its fd 4
        self._log = open(Path(self._profile) / "stderr.txt", "wb")

        def fds_3_and_4() -> None:
            os.dup2(child_in, 3)
            os.dup2(child_out, 4)

        self.process = subprocess.Popen(
            [
                self.executable,
                *FLAGS,
                f"--user-data-dir={self._profile}",
                f"--window-size={self.size[0]},{self.size[1]}",
                "about:blank",
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
            pass_fds=(3, 4),
            preexec_fn=fds_3_and_4,  # (the tests and the benchmark start no threads)
        )
        os.close(child_in)
        os.close(child_out)
        try:
            targets = self.call("Target.getTargets")["targetInfos"]
            page = next(t["targetId"] for t in targets if t["type"] == "page")
            self.session = self.call("Target.attachToTarget", targetId=page, flatten=True)[
                "sessionId"
            ]
            for domain in ("Page", "Runtime", "Log"):
                self.call(f"{domain}.enable", session=True)
            self.call(
                "Emulation.setDeviceMetricsOverride",
                session=True,
                width=self.size[0],
                height=self.size[1],
                deviceScaleFactor=1,
                mobile=False,
            )
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.process is not None and self.process.poll() is None:
            try:
                self._send("Browser.close", {}, None)
                self.process.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired, BrowserError):
                self.process.kill()
                self.process.wait()
        for fd in (self._reader, self._writer):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        shutil.rmtree(self._profile, ignore_errors=True)

    # -------------------------------------------------------------- the protocol
    def _send(self, method: str, params: dict, session: str | None) -> int:
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._writer, json.dumps(message).encode() + b"\0")
        return self._id

    def _receive(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready = select.select([self._reader], [], [], max(0.0, left))[0] if left > 0 else []
            if not ready:
                raise BrowserError(f"Chromium gave no answer within {self.timeout} s")
            chunk = os.read(self._reader, 1 << 20)
            if not chunk:
                raise BrowserError(f"Chromium closed the pipe (exit status {self.process.poll()})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command (to the page's session with ``session``) and return its result;
        events that arrive meanwhile are kept (:meth:`events`)."""
        wanted = self._send(method, params, self.session if session else None)
        deadline = time.monotonic() + self.timeout
        while True:
            message = self._receive(deadline)
            if message.get("id") == wanted:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self._events.append(message)

    def wait_for(self, event: str) -> dict[str, Any]:
        """The next event named ``event`` (one already received counts)."""
        deadline = time.monotonic() + self.timeout
        while True:
            for i, message in enumerate(self._events):
                if message["method"] == event:
                    return self._events.pop(i)
            message = self._receive(deadline)
            if "method" in message:
                self._events.append(message)

    def events(self) -> list[dict[str, Any]]:
        return list(self._events)

    # -------------------------------------------------------------- the page
    def open(self, path: Path, fragment: str = "") -> None:
        """Load a local file (at ``#fragment`` if given) and wait until it has loaded."""
        self._events = [e for e in self._events if e["method"] != "Page.loadEventFired"]
        url = path.resolve().as_uri() + (f"#{fragment}" if fragment else "")
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (a JSON value); a thrown exception
        is a :class:`BrowserError`."""
        result = self.call(
            "Runtime.evaluate", session=True, expression=expression, returnByValue=True
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:60]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def key(self, key: str) -> None:
        """Press and release a key, as a person would (the page's keydown handler sees it)."""
        code = KEY_CODES[key]
        name = "Space" if key == " " else key
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                session=True,
                type=kind,
                key=key,
                code=name,
                windowsVirtualKeyCode=code,
                nativeVirtualKeyCode=code,
            )

    def screenshot(self, path: Path, full_page: bool = False) -> None:
        """A PNG of the page (its viewport, or all of it)."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
            height = int(self.evaluate("document.documentElement.scrollHeight"))
            params["clip"] = {"x": 0, "y": 0, "width": self.size[0], "height": height, "scale": 1}
        data = self.call("Page.captureScreenshot", session=True, **params)["data"]
        path.write_bytes(base64.b64decode(data))

    def errors(self) -> list[str]:
        """What the page reported as errors: uncaught exceptions, ``console.error`` calls and
        error entries of the browser's log."""
        found = []
        for event in self._events:
            method, params = event["method"], event.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append(str(params.get("exceptionDetails", {}).get("text")))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                found.append(" ".join(str(a.get("value")) for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append(str(params["entry"].get("text")))
        return found


def _pipe_above(low: int) -> tuple[int, int]:
    """A pipe whose two descriptors are above ``low`` (so that moving a child's ends onto 3
    and 4 cannot overwrite one with the other)."""
    import fcntl

    read, write = os.pipe()
    high = []
    for fd in (read, write):
        moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, low + 1)
        os.close(fd)
        high.append(moved)
    return high[0], high[1]
