"""Fixtures for tests of the sandbox's GitHub App side: an App key, a webhook receiver.

Use in a test module: `pem, receiver = sandbox_app_fixtures.pem, sandbox_app_fixtures.receiver`
(after `from tests import sandbox_app_fixtures`), as with `sandbox_fixtures`.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

APP_ID = 4242


def private_pem() -> bytes:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


@pytest.fixture(scope="module")
def pem() -> bytes:
    return private_pem()


SECRET = "It's a Secret to Everybody"


@dataclass
class Received:
    event: str
    headers: dict[str, str]
    raw: bytes

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.raw)

    @property
    def name(self) -> str:
        action = self.payload.get("action")
        return f"{self.event}.{action}" if action and self.event != "push" else self.event


@dataclass
class Receiver:
    """A tiny webhook endpoint: keeps what it got, answers `status`."""

    got: list[Received] = field(default_factory=list)
    status: int = 202
    lock: threading.Condition = field(default_factory=threading.Condition)
    hold: threading.Event = field(default_factory=threading.Event)  # cleared: requests wait until set

    def __post_init__(self) -> None:
        self.hold.set()

    def wait_for(self, count: int, timeout: float = 30) -> list[Received]:
        deadline = time.monotonic() + timeout
        with self.lock:
            while len(self.got) < count and time.monotonic() < deadline:
                self.lock.wait(0.1)
            return list(self.got)


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    box = Receiver()

    class Hook(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            box.hold.wait()
            with box.lock:
                box.got.append(Received(self.headers["X-GitHub-Event"], dict(self.headers), raw))
                box.lock.notify_all()
            self.send_response(box.status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield box, f"http://127.0.0.1:{server.server_address[1]}/webhook"
    server.shutdown()
    server.server_close()
