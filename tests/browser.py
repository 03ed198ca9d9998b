"""A real headless Chromium (Debian's package), driven over its DevTools pipe, for the tests that
need a person's browser: open a page, read it, click a button with real mouse events.

`--remote-debugging-pipe` speaks the DevTools protocol on file descriptors 3 (commands in) and 4
(answers and events out), as NUL-terminated JSON messages: no port, no websocket library.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
         "--remote-debugging-pipe")


class Browser:
    """One Chromium process with one page; `close()` ends it."""

    def __init__(self, profile: Path) -> None:
        assert CHROMIUM is not None
        reading, self._commands = os.pipe()
        self._answers, writing = os.pipe()
        # Chromium's ends moved to 10 and up, clear of 3 and 4, where the shell then puts them
        to_child, from_child = (fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (reading, writing))
        os.close(reading)
        os.close(writing)
        script = f'exec "$0" "$@" 3<&{to_child} 4>&{from_child} {to_child}<&- {from_child}>&-'
        self._proc = subprocess.Popen(["bash", "-c", script, CHROMIUM, *FLAGS, f"--user-data-dir={profile}",
                                       "about:blank"], pass_fds=(to_child, from_child),
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_child)
        os.close(from_child)
        self._buffer = b""
        self._ids = 0
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = False,
             timeout: float = 30.0) -> dict[str, Any]:
        """One command; its result (events met meanwhile are dropped)."""
        self._ids += 1
        message: dict[str, Any] = {"id": self._ids, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                answer = json.loads(raw)
                if answer.get("id") == self._ids:
                    if "error" in answer:
                        raise RuntimeError(f"{method}: {answer['error']}")
                    return answer["result"]
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed its DevTools pipe")
            self._buffer += chunk
        raise TimeoutError(method)

    def open(self, url: str) -> None:
        self.send("Page.navigate", {"url": url}, session=True)

    def evaluate(self, expression: str) -> Any:
        """The value of `expression` in the page (None while the page is between documents)."""
        try:
            result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=True)
        except RuntimeError:
            return None
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        """Poll until `expression` is truthy in the page; its value."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise TimeoutError(f"{expression!r} stayed false; the page is at {self.evaluate('location.href')}")

    def click(self, selector: str) -> None:
        """A left click, pressed and released at the middle of the element, as a mouse does it."""
        box = self.wait_for(f"(e => e && (r => [r.x + r.width / 2, r.y + r.height / 2])"
                            f"(e.getBoundingClientRect()))(document.querySelector({json.dumps(selector)}))")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left",
                                                   "clickCount": 1}, session=True)

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"}, session=True)["data"]))

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):  # it may close before answering
            self.send("Browser.close", timeout=5)
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._commands)
        os.close(self._answers)
