"""The sandbox's HTTP front: routing, auth, faults, validation, the call log, `memshelf-bot sandbox`.

One `ThreadingHTTPServer` on loopback answers three kinds of request: git smart HTTP under
`/<owner>/<repo>.git/`, `POST /graphql`, and the REST API (also under `/api/v3`, as on GitHub
Enterprise). Every REST request is matched to an operation of GitHub's OpenAPI description,
validated, handled, and its answer validated again; an answer the description rejects is a
sandbox bug and lands in `validation_errors` (tests assert the list stays empty).
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from . import graphql, routes_git, routes_issues, routes_pulls, routes_repo, smart_http
from .api import ROUTES, ApiError, Context, Reply
from .faults import Faults
from .gitstore import GitError, GitStore
from .openapi import description
from .repo import Repository
from .state import PERMISSIONS, Call, RepoSettings, State

ROUTE_MODULES = (routes_git, routes_issues, routes_pulls, routes_repo)  # importing them fills ROUTES
REST_DOCS = "https://docs.github.com/rest"
GRAPHQL_DOCS = "https://docs.github.com/graphql"


class Core:
    """Everything behind the socket: the repository, its state, faults, validation, calls."""

    def __init__(self, bare: Path, name: str, base_url: str, token: str | None = None) -> None:
        owner, _, repo = name.partition("/")
        if not owner or not repo or "/" in repo:
            raise ValueError(f"--name must be OWNER/REPO, got {name!r}")
        store = GitStore(bare)
        head = store.out("symbolic-ref", "--short", "HEAD") or "main"
        self.state = State(RepoSettings(owner, repo, default_branch=head))
        if token is not None:
            self.state.pin_token(token)
        self.repo = Repository(store, self.state, base_url)
        self.api = description()
        self.faults = Faults(f"/repos/{owner}/{repo}", self._delete_comment)
        self.validation_errors: list[str] = []
        self._errors_lock = threading.Lock()

    def _delete_comment(self, comment_id: int) -> bool:
        with self.state.lock:
            return self.state.comments.pop(comment_id, None) is not None

    def problem(self, text: str) -> None:
        with self._errors_lock:
            self.validation_errors.append(text)
        print(f"sandbox: {text}", file=sys.stderr)

    def record(self, method: str, path: str, query: dict[str, list[str]], body: Any, status: int,
               login: str | None) -> None:
        with self.state.lock:
            self.state.calls.append(Call(method, path, query, body, status, login))

    # REST --------------------------------------------------------------------------------

    def rest(self, method: str, path: str, query: dict[str, list[str]], raw: bytes,
             headers: dict[str, str]) -> Reply:
        token = smart_http.token_from(headers.get("authorization"))
        principal = self.state.principal(token)
        matched = self.api.match(method, path)
        op = matched[0] if matched else None
        doc = (op.documentation_url if op else None) or REST_DOCS
        body: Any = None
        try:
            body = json.loads(raw) if raw.strip() else None
        except ValueError:
            body = raw.decode("utf-8", "replace")

        def error(status: int, message: str, errors: list[dict[str, Any]] | None = None) -> Reply:
            data: dict[str, Any] = {"message": message, "documentation_url": doc, "status": str(status)}
            if errors:
                data["errors"] = errors
            return Reply(status, data)

        reply: Reply
        if token and principal is None:
            reply = error(401, "Bad credentials")
        elif (fault := self.faults.take(method, path)) is not None:
            data = dict(fault.body) if isinstance(fault.body, dict) else fault.body
            if isinstance(data, dict):
                data.setdefault("documentation_url", doc)
            reply = Reply(fault.status, data, dict(fault.headers))
        elif op is None or matched is None:
            reply = error(404, "Not Found")
        else:
            reply = self._operation(method, matched[1], query, raw, principal, op, path, error)
        if op is not None:
            for text in self.api.validate_response(op, reply.status, reply.body):
                self.problem(text)
        if method != "GET" and reply.status < 400:
            self.repo.sweep_auto_merge()
        self.record(method, path, query, body, reply.status, principal.user.login if principal else None)
        return reply

    def _operation(self, method: str, params: dict[str, str], query: dict[str, list[str]], raw: bytes,
                   principal: Any, op: Any, path: str, error: Any) -> Reply:
        settings = self.state.repo
        if (params.get("owner", "").lower(), params.get("repo", "").lower()) != (
                settings.owner.lower(), settings.name.lower()):
            return error(404, "Not Found")
        if principal is None and settings.private:
            return error(404, "Not Found")
        if principal is None and method != "GET":
            return error(401, "Requires authentication")
        values, problem = self.api.coerce_query(op, query)
        if problem is None:
            body, problem = self.api.check_body(op, raw)
        if problem is not None:
            return error(problem.status, problem.message, problem.errors or None)
        handler, needs = ROUTES[op.key]
        if principal is not None and method != "GET":
            needed = "write" if principal.integration and PERMISSIONS.index(needs) < 3 else needs
            if not principal.allows(needed):
                return error(403, "Resource not accessible by integration" if principal.integration
                             else "Resource not accessible by personal access token")
        ctx = Context(self.repo, op, params, values, body, principal, f"{self.repo.urls.base}{path}", query)
        try:
            return handler(ctx)
        except ApiError as exc:
            return error(exc.status, exc.message, exc.errors)
        except GitError as exc:
            self.problem(f"{op.key}: git failed: {exc}")
            return error(500, "Server Error")

    # GraphQL -----------------------------------------------------------------------------

    def graphql(self, raw: bytes, headers: dict[str, str]) -> Reply:
        principal = self.state.principal(smart_http.token_from(headers.get("authorization")))
        try:
            request: Any = json.loads(raw)
        except ValueError:
            request = None
        if principal is None:
            reply = Reply(401, {"message": "This endpoint requires you to be authenticated.",
                                "documentation_url": f"{GRAPHQL_DOCS}/guides/forming-calls-with-graphql"
                                                     "#authenticating-with-graphql", "status": "401"})
        elif request is None:
            reply = Reply(400, {"message": "Problems parsing JSON", "documentation_url": GRAPHQL_DOCS, "status": "400"})
        elif not isinstance(request, dict) or not isinstance(request.get("query"), str):
            reply = Reply(200, {"errors": [{"message": "A query attribute must be specified and must be a string."}]})
        else:
            reply = Reply(200, graphql.execute(self.repo, principal, request))
            self.repo.sweep_auto_merge()
        self.record("POST", "/graphql", {}, request, reply.status, principal.user.login if principal else None)
        return reply


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: SandboxServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the call log is the record."""

    def do_GET(self) -> None:
        self._dispatch()

    do_POST = do_PATCH = do_PUT = do_DELETE = do_GET

    def _body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline().strip():
                        pass
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _dispatch(self) -> None:
        core = self.server.core
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query, keep_blank_values=True)
        raw = self._body()
        headers = {k.lower(): v for k, v in self.headers.items()}
        git_root = f"/{core.state.repo.full_name}".lower()
        lowered = path.lower()
        if lowered.startswith(git_root + ".git/") or lowered.startswith(git_root + "/info/refs") or \
                lowered.startswith(git_root + "/git-"):
            rest = path[len(git_root) + (4 if lowered.startswith(git_root + ".git/") else 0):]
            cgi, principal = smart_http.serve(core.state, core.repo.store.path, rest, self.command, url.query,
                                              raw, headers)
            core.record(self.command, path, query, None, cgi.status, principal.user.login if principal else None)
            if rest.endswith("git-receive-pack") and cgi.status == 200:
                core.repo.sweep_auto_merge()
            self._send(cgi.status, cgi.headers, cgi.body)
            return
        if path.startswith("/api/v3/"):
            path = path[len("/api/v3"):]
        if self.command == "POST" and path in ("/graphql", "/api/graphql"):
            reply = core.graphql(raw, headers)
        else:
            reply = core.rest(self.command, path, query, raw, headers)
        self._send_reply(reply)

    def _send_reply(self, reply: Reply) -> None:
        headers = [
            ("Content-Type", "application/json; charset=utf-8"),
            ("X-GitHub-Media-Type", "github.v3; format=json"),
            ("X-GitHub-Api-Version-Selected", "2022-11-28"),
            ("X-GitHub-Request-Id", uuid.uuid4().hex[:20].upper()),
            ("X-RateLimit-Limit", "5000"), ("X-RateLimit-Remaining", "4999"),
            ("X-RateLimit-Reset", str(int(time.time()) + 3600)), ("X-RateLimit-Used", "1"),
            ("X-RateLimit-Resource", "core"),
        ]
        overridden = {name.lower() for name in reply.headers}
        headers = [h for h in headers if h[0].lower() not in overridden] + list(reply.headers.items())
        payload = b"" if reply.body is None else json.dumps(reply.body).encode("utf-8")
        self._send(reply.status, headers, payload)

    def _send(self, status: int, headers: list[tuple[str, str]], payload: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            if name.lower() not in ("content-length", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(payload)


class SandboxServer(ThreadingHTTPServer):
    """A listening sandbox; `core` holds its repository and state."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, bare: Path, name: str, token: str | None = None, port: int = 0,
                 host: str = "127.0.0.1") -> None:
        super().__init__((host, port), Handler)
        self.core = Core(Path(bare), name, self.api_url, token)

    @property
    def api_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


def cli_main(args: argparse.Namespace) -> int:
    """`memshelf-bot sandbox --repo BARE [--port N] [--name OWNER/REPO] [--token T]`."""
    try:
        server = SandboxServer(Path(args.repo), args.name, token=args.token, port=args.port)
    except (ValueError, OSError) as exc:
        print(f"memshelf-bot sandbox: {exc}", file=sys.stderr)
        return 2

    def stop(*_: Any) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    print(f"ready {server.api_url}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
