"""git's smart HTTP protocol over `git http-backend`, with GitHub's token authentication.

`http://x-access-token:<token>@host/<owner>/<repo>.git` works for clone, fetch and push, as
with an Actions token on GitHub: the password is the token (the user name is ignored), a missing
or unknown token gets 401 with a Basic challenge, and a push needs write permission (an App
installation token: `contents: write`, and the repository among the token's).
"""

from __future__ import annotations

import base64
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .app import level_at_least
from .state import Principal, State


@dataclass
class CgiReply:
    status: int
    headers: list[tuple[str, str]]
    body: bytes


def token_from(authorization: str | None) -> str | None:
    """The token of a `Basic` (password part) or `token`/`Bearer` Authorization header."""
    if not authorization:
        return None
    scheme, _, value = authorization.partition(" ")
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(value.strip()).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            return None
        return decoded.partition(":")[2] or decoded.partition(":")[0] or None
    if scheme.lower() in ("token", "bearer"):
        return value.strip() or None
    return None


def _challenge(message: str, status: int = 401) -> CgiReply:
    headers = [("Content-Type", "text/plain")]
    if status == 401:
        headers.append(("WWW-Authenticate", 'Basic realm="GitHub"'))
    return CgiReply(status, headers, message.encode() + b"\n")


def pushing(rest: str, query: str) -> bool:
    return rest.endswith("/git-receive-pack") or "service=git-receive-pack" in query


def serve(state: State, principal: Principal | None, bare: Path, rest: str, method: str, query: str, body: bytes,
          headers: dict[str, str]) -> CgiReply:
    """Answer one smart-HTTP request for the repository (`rest` is the path after `<repo>.git`) from
    `principal` (who the request's token is; None: no token or an unknown one)."""
    if principal is None:
        return _challenge("Invalid username or token. Password authentication is not supported "
                          "for Git operations.")
    needed = "write" if pushing(rest, query) else "read"
    grant = principal.grant
    if grant is not None and not grant.covers(state.repo.full_name):
        return _challenge("Repository not found.", 404)
    allowed = (level_at_least(grant.level("contents"), needed) if grant is not None
               else principal.allows(needed))
    if not allowed:
        return _challenge(f"Permission to {state.repo.full_name}.git denied to {principal.user.login}.", 403)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_PROJECT_ROOT": str(bare.parent), "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": f"/{bare.name}{rest}", "REQUEST_METHOD": method, "QUERY_STRING": query,
        "CONTENT_TYPE": headers.get("content-type", ""), "CONTENT_LENGTH": str(len(body)),
        "REMOTE_USER": principal.user.login, "REMOTE_ADDR": "127.0.0.1",
        "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_PROTOCOL": "HTTP/1.1",
    }
    for name in ("content-encoding", "git-protocol"):
        if name in headers:
            env["HTTP_" + name.upper().replace("-", "_")] = headers[name]
    proc = subprocess.run(["git", "http-backend"], input=body, capture_output=True, env=env, check=False)
    return _parse_cgi(proc.stdout)


def _parse_cgi(output: bytes) -> CgiReply:
    head, sep, body = output.partition(b"\r\n\r\n")
    if not sep:
        head, _, body = output.partition(b"\n\n")
    status, headers = 200, []
    for line in head.decode("latin-1").splitlines():
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        elif name:
            headers.append((name.strip(), value.strip()))
    return CgiReply(status, headers, body)
