"""git's smart HTTP protocol over `git http-backend`, with GitHub's token authentication.

`http://x-access-token:<token>@host/<owner>/<repo>.git` works for clone, fetch and push, as
with an Actions token on GitHub: the password is the token (the user name is ignored), a missing
or unknown token gets 401 with a Basic challenge, and a push needs write permission (an App
installation token: `contents: write`, and the repository among the token's). A push that would
bring a commit GitHub did not sign into a branch whose ruleset requires verified signatures is
declined as GitHub declines it: nothing is written, every ref is reported `ng` with GitHub's
words, and the GH013 explanation goes to the client's progress channel.

Fetches take filters as GitHub's do: upload-pack advertises `filter` (protocol v2's `fetch`, and
v0/v1's capability), so `--filter=blob:none` makes a partial clone, and the blobs a promisor remote
asks for afterwards, by their ids, are served (`uploadpack.allowAnySHA1InWant`).
"""

from __future__ import annotations

import base64
import gzip
import os
import subprocess
from collections.abc import Callable
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


# upload-pack's settings, given through git's environment to the process http-backend starts
UPLOAD_PACK = (("uploadpack.allowFilter", "true"), ("uploadpack.allowAnySHA1InWant", "true"))


def config_env(settings: tuple[tuple[str, str], ...]) -> dict[str, str]:
    env = {"GIT_CONFIG_COUNT": str(len(settings))}
    for i, (key, value) in enumerate(settings):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    return env


def pushing(rest: str, query: str) -> bool:
    return rest.endswith("/git-receive-pack") or "service=git-receive-pack" in query


Update = tuple[str, str, str]  # old, new, ref name
DECLINED = "push declined due to repository rule violations"
GH013 = ("GH013: Repository rule violations found for {ref}.\n\n- Commits must have verified signatures.\n"
         "  Found 1 violation:\n\n  {sha}\n")


def _pkt(data: bytes) -> bytes:
    return f"{len(data) + 4:04x}".encode() + data


def push_updates(body: bytes, headers: dict[str, str]) -> tuple[list[Update], set[str]]:
    """The ref updates a receive-pack request asks for, and the client's capabilities."""
    if headers.get("content-encoding", "").lower() == "gzip":
        try:
            body = gzip.decompress(body)
        except (OSError, EOFError):
            return [], set()
    updates: list[Update] = []
    caps: set[str] = set()
    at = 0
    while at + 4 <= len(body):
        try:
            size = int(body[at:at + 4], 16)
        except ValueError:
            break
        if size < 4:  # a flush: the commands end, the pack follows
            break
        line, at = body[at + 4:at + size], at + size
        command, _, capabilities = line.rstrip(b"\n").partition(b"\0")
        caps |= set(capabilities.decode("utf-8", "replace").split())
        parts = command.decode("utf-8", "surrogateescape").split(" ", 2)
        if len(parts) == 3:
            updates.append((parts[0], parts[1], parts[2]))
    return updates, caps


def _declined(updates: list[Update], broken: Update, caps: set[str]) -> CgiReply:
    """receive-pack's report for a push GitHub's rules decline: unpacked, every ref `ng`."""
    report = _pkt(b"unpack ok\n") + b"".join(_pkt(f"ng {ref} {DECLINED}\n".encode()) for _, _, ref in updates)
    report += b"0000"
    if "side-band-64k" in caps or "side-band" in caps:
        message = GH013.format(ref=broken[2], sha=broken[1]).encode()
        body = _pkt(b"\2" + message) + _pkt(b"\1" + report) + b"0000"
    else:
        body = report
    return CgiReply(200, [("Content-Type", "application/x-git-receive-pack-result"),
                          ("Cache-Control", "no-cache")], body)


def serve(state: State, principal: Principal | None, bare: Path, rest: str, method: str, query: str, body: bytes,
          headers: dict[str, str], breaks_rules: Callable[[str, str, str], bool] | None = None) -> CgiReply:
    """Answer one smart-HTTP request for the repository (`rest` is the path after `<repo>.git`) from
    `principal` (who the request's token is; None: no token or an unknown one); `breaks_rules(ref,
    old, new)` says whether a pushed update breaks a ruleset."""
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
    if breaks_rules is not None and method == "POST" and rest.endswith("/git-receive-pack"):
        updates, caps = push_updates(body, headers)
        broken = next((u for u in updates if breaks_rules(u[2], u[0], u[1])), None)
        if broken is not None:
            return _declined(updates, broken, caps)
    return backend(bare, rest, method, query, body, headers, principal.user.login)


def backend(bare: Path, rest: str, method: str, query: str, body: bytes, headers: dict[str, str], login: str,
            namespace: str | None = None) -> CgiReply:
    """`git http-backend` on `bare` for an authorized request; `namespace` serves only the refs
    under `refs/namespaces/<namespace>/` (a fork sharing the repository's objects, as on GitHub)."""
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
        "GIT_PROJECT_ROOT": str(bare.parent), "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": f"/{bare.name}{rest}", "REQUEST_METHOD": method, "QUERY_STRING": query,
        "CONTENT_TYPE": headers.get("content-type", ""), "CONTENT_LENGTH": str(len(body)),
        "REMOTE_USER": login, "REMOTE_ADDR": "127.0.0.1",
        "GATEWAY_INTERFACE": "CGI/1.1", "SERVER_PROTOCOL": "HTTP/1.1",
        **config_env(UPLOAD_PACK),
    }
    if namespace is not None:
        env["GIT_NAMESPACE"] = namespace
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
