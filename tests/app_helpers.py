"""Helpers for the App's tests: an RSA key, signed requests into the WSGI app, a recording handler."""

from __future__ import annotations

import io
import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.app.wsgi import sign

SECRET = b"test-webhook-secret"


def rsa_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode("ascii")


def write_key(tmp: Path) -> Path:
    path = tmp / "app.pem"
    path.write_text(rsa_pem(), encoding="ascii")
    return path


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def call(app: Any, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None,
         content_length: str | None = None) -> Response:
    """One request through a WSGI app, in-process."""
    environ: dict[str, Any] = {
        "REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "", "SERVER_NAME": "test",
        "SERVER_PORT": "80", "wsgi.input": io.BytesIO(body), "wsgi.url_scheme": "http",
        "CONTENT_LENGTH": str(len(body)) if content_length is None else content_length,
    }
    for name, value in (headers or {}).items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    got: dict[str, Any] = {}

    def start_response(status: str, response_headers: list[tuple[str, str]]) -> None:
        got["status"] = int(status.split()[0])
        got["headers"] = dict(response_headers)

    chunks = b"".join(app(environ, start_response))
    return Response(got["status"], got["headers"], chunks)


def delivery_headers(event: str, body: bytes, guid: str | None = None, secret: bytes = SECRET,
                     hook: str = "1") -> dict[str, str]:
    return {"X-GitHub-Event": event, "X-GitHub-Delivery": guid or str(uuid.uuid4()),
            "X-GitHub-Hook-ID": hook, "X-Hub-Signature-256": sign(secret, body),
            "Content-Type": "application/json"}


def push_payload(repo: str = "shelf/one", branch: str = "main", sender: str = "agent",
                 installation: int = 7, default: str = "main") -> bytes:
    return json.dumps({
        "ref": f"refs/heads/{branch}", "before": "0" * 40, "after": "a" * 40, "deleted": False,
        "repository": {"full_name": repo, "default_branch": default, "name": repo.split("/")[1]},
        "installation": {"id": installation}, "sender": {"login": sender, "type": "User"},
    }).encode("utf-8")


def pull_payload(repo: str = "shelf/one", number: int = 3, action: str = "opened", sender: str = "agent") -> bytes:
    return json.dumps({
        "action": action, "number": number,
        "pull_request": {"number": number, "head": {"sha": "b" * 40, "ref": "shelve/x"},
                         "base": {"sha": "c" * 40, "ref": "main"}},
        "repository": {"full_name": repo, "default_branch": "main"},
        "installation": {"id": 7}, "sender": {"login": sender, "type": "User"},
    }).encode("utf-8")


@dataclass
class Recorder:
    """A flow handler that records which deliveries ran (and can fail on demand)."""

    ran: list[str] = field(default_factory=list)
    fail: list[BaseException] = field(default_factory=list)

    def __call__(self, key: str, route: Any, login: str) -> str:
        self.ran.append(key)
        if self.fail:
            raise self.fail.pop(0)
        return f"ran {route.flow}"
