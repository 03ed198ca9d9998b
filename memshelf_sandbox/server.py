"""The sandbox's HTTP front: routing to repositories and to the App, and `memshelf-bot sandbox`.

One `ThreadingHTTPServer` on loopback serves one or more repositories (`--repo BARE --name
OWNER/REPO`, repeatable; object ids never collide between them) and answers five kinds of
request: git smart HTTP under `/<owner>/<repo>.git/`, `POST /graphql`, the REST API (also under
`/api/v3`, as on GitHub Enterprise), the App's endpoints (`/app…` and
`/repos/{owner}/{repo}/installation`, authenticated by the App's JWT; see `app.py`), and the
sandbox's own control surface under `/_sandbox/` (no authentication; not GitHub's API):

- `GET /_sandbox/deliveries`: every webhook delivery, newest first, with request and response;
- `POST /_sandbox/deliveries/{id}/redeliver`: send a recorded delivery again (202);
- `POST /_sandbox/webhooks/mode` `{"drop_next": n, "duplicate_next": n}`: record the next n
  deliveries as failed without sending them / send each of the next n twice (same guid);
- `POST /_sandbox/webhooks/ping`: deliver the `ping` GitHub sends when a hook is set up (202);
- `POST /_sandbox/webhooks/wait` `{"timeout": seconds}`: block until every queued delivery was
  attempted, answering `{"idle": true|false}`.
- `POST /_sandbox/delay` `{"method": "POST", "path": regex, "seconds": n, "times": n}`: hold the
  next `times` matching REST requests of the first repository `seconds` before answering them (201).
- `POST /_sandbox/merge-queue` `{"pull_number": n, "sender": login, "repository": "owner/name"}`:
  put the pull request in its base's merge queue (GitHub's `gh-readonly-queue/<base>/pr-<n>-<sha>`
  branch holding the merge onto the base; its `push`, then `merge_group` `checks_requested`); 201
  with the queue branch's ref and sha, 422 when the pull request cannot be queued.

It also serves GitHub's web pages of the App manifest flow on the same origin (see
`registration.py`): `/settings/apps/new`, `/organizations/ORG/settings/apps/new` and the
"Create GitHub App" click; `POST /app-manifests/{code}/conversions` creates the App, which the
sandbox plays from then on (`play`).

`--fork OWNER/REPO` (repeatable) serves a fork of the first repository, made at the start, over git
smart HTTP at `/OWNER/REPO.git` (its refs in a git namespace of the first repository, sharing its
objects as GitHub's forks do): anyone with a token may fetch it, OWNER (`--user`) may push to it;
`POST /repos/{first}/pulls` with `head: "OWNER:branch"` opens a pull request from it, and a push to
that branch of the fork moves the pull request's head (`synchronize`). The fork has no REST API of
its own and the App is not installed on it.

Every REST request is matched to an operation of GitHub's OpenAPI description, and handled by
the repository's `Core` (see `core.py`) or by `routes_app`/`routes_hooks`.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import threading
import time
import uuid
from collections.abc import Sequence
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from . import registration, routes_git, routes_hooks, smart_http, webhooks
from .api import ApiError, Reply
from .app import App, JwtRefused, looks_like_jwt
from .calllog import CallLog
from .core import Core, Problems
from .delivery import Deliveries
from .events import Events
from .openapi import description
from .repo import MergeRefused
from .routes_app import APP_ROUTES, AppContext

JWT_DOCS = "https://docs.github.com/rest/apps/apps"
CONTROL = "/_sandbox/"
INSTALLATION_REPOSITORIES = "GET /installation/repositories"
MANIFEST_CONVERSION = "POST /app-manifests/{code}/conversions"
APP_ROUTE_MODULES = (routes_hooks,)  # importing it adds the deliveries API to APP_ROUTES


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
        server = self.server
        url = urlsplit(self.path)
        path, query = url.path, parse_qs(url.query, keep_blank_values=True)
        raw = self._body()
        headers = {k.lower(): v for k, v in self.headers.items()}
        if path.startswith(CONTROL):
            status, data = server.control(self.command, path[len(CONTROL):], raw)
            self._send_reply(Reply(status, data))
            return
        page = server.web(self.command, path, url.query, raw)
        if page is not None:
            self._send(page.status, page.headers(), page.body.encode("utf-8"))
            return
        fork = server.fork_target(path)
        if fork is not None:
            self._send(*server.fork_git(*fork, self.command, url.query, raw, headers))
            return
        found = server.git_target(path)
        if found is not None:
            core, rest = found
            token = smart_http.token_from(headers.get("authorization"))
            principal = core.principal(token)
            pushing = smart_http.pushing(rest, url.query) and self.command == "POST"
            with core.writing("POST" if pushing else "GET"):  # a push and its webhooks: one write
                cgi = smart_http.serve(core.state, principal, core.repo.store.path, rest, self.command, url.query,
                                       raw, headers, partial(routes_git.breaks_signed_rule, core.repo))
                if pushing and cgi.status == 200:
                    core.repo.sweep_auto_merge()
                    core.settle(principal)
            core.record(self.command, path, query, None, cgi.status, principal.user.login if principal else None,
                        sent=len(cgi.body))
            self._send(cgi.status, cgi.headers, cgi.body)
            return
        if path.startswith("/api/v3/"):
            path = path[len("/api/v3"):]
        if self.command == "POST" and path in ("/graphql", "/api/graphql"):
            reply = server.graphql(raw, headers)
        else:
            reply = server.rest(self.command, path, query, raw, headers)
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
            self.server.count_served(len(payload))


class SandboxServer(ThreadingHTTPServer):
    """A listening sandbox: `cores` holds its repositories (the first is `core`), `app` the GitHub
    App it plays GitHub for (None without `--app-id`)."""

    daemon_threads = True
    allow_reuse_address = True

    def count_served(self, size: int) -> None:
        with self._served_lock:
            self.served += size

    def __init__(self, bare: Path, name: str, token: str | None = None, port: int = 0,
                 host: str = "127.0.0.1", more: Sequence[tuple[Path, str]] = (), app: App | None = None,
                 log: Path | None = None, webhook: tuple[str, str] | None = None, forks: Sequence[str] = ()) -> None:
        super().__init__((host, port), Handler)
        self.problems = Problems()
        self.served = 0  # bytes of every answer's body (REST, git, pages), for the benchmarks
        self._served_lock = threading.Lock()
        self.app: App | None = None
        self.log = CallLog(log) if log is not None else None
        self.deliveries: Deliveries | None = None
        self.registrations = registration.Registrations()
        self.cores: dict[str, Core] = {}
        owner_ids: dict[str, int] = {}
        for index, (path, full_name) in enumerate([(Path(bare), name), *((Path(b), n) for b, n in more)]):
            core = Core(path, full_name, self.api_url, token, index, self.problems)
            key = core.state.repo.full_name.lower()
            if key in self.cores:
                raise ValueError(f"two repositories named {full_name}")
            settings = core.state.repo
            settings.owner_id = owner_ids.setdefault(settings.owner.lower(), settings.owner_id + len(owner_ids))
            core.log = self.log
            self.cores[key] = core
        self.core = next(iter(self.cores.values()))
        self.forks: dict[str, str] = {}  # lower-case full name -> full name, of the first repository's forks
        for fork in forks:
            self.add_fork(fork)
        self.api = description()
        self.play(app, webhook)

    def add_fork(self, fork: str) -> None:
        """Serve a fork of the first repository named `fork` (see the module docstring); a fork
        already served stays as it is."""
        if fork.lower() in self.forks:
            return
        owner, _, name = fork.partition("/")
        if not owner or not name or "/" in name or fork.lower() in self.cores or \
                owner.lower() in (self.core.state.repo.owner.lower(), *self.core.repo.forks):
            raise ValueError(f"--fork must be OWNER/REPO, owned by no one else served, got {fork!r}")
        self.core.repo.make_fork(fork)
        self.forks[fork.lower()] = fork

    def play(self, app: App | None, webhook: tuple[str, str] | None) -> None:
        """Play GitHub for `app` (installed on every served repository's owner) and deliver signed
        webhooks to `webhook` = (url, secret): from the start (`--app-id`, `--webhook-url`), or
        once the manifest flow registered a new App (whose hook replaces the one before)."""
        self.app = app
        for core in self.cores.values():
            settings = core.state.repo
            core.app, core.repo.views.installed_app = app, app
            if app is not None:
                app.install(settings.owner, settings.owner_id, settings.owner_type)
                core.state.users[app.bot.login] = app.bot
        before, self.deliveries = self.deliveries, None
        if webhook is not None:
            url, secret = webhook
            target = ("integration", app.id) if app else ("repository", self.core.state.repo.id)
            self.deliveries = Deliveries(url, secret, 400_000_000 + target[1], *target, check=self._check_webhook)
        for core in self.cores.values():
            core.repo.events = Events(core.repo, self.deliveries, app) if self.deliveries else None
        if before is not None:
            before.close()

    @property
    def api_url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def _check_webhook(self, name: str, payload: dict[str, Any]) -> None:
        for problem in webhooks.errors(name, payload):
            self.problems.add(f"webhook {name} {problem}")

    def server_close(self) -> None:
        super().server_close()
        if self.deliveries is not None:
            self.deliveries.close()
        if self.log is not None:
            self.log.close()

    # routing ------------------------------------------------------------------------------

    def git_target(self, path: str) -> tuple[Core, str] | None:
        """The repository a smart-HTTP path is for, and the path after `<owner>/<repo>[.git]`."""
        lowered = path.lower()
        for key, core in self.cores.items():
            root = f"/{key}"
            if lowered.startswith(root + ".git/"):
                return core, path[len(root) + 4:]
            if lowered.startswith((root + "/info/refs", root + "/git-")):
                return core, path[len(root):]
        return None

    def web(self, method: str, path: str, query: str, raw: bytes) -> registration.Page | None:
        """GitHub's web pages of the manifest flow; None for any other request."""
        org = registration.ORG_FORM.match(path)
        if method not in ("GET", "POST") or (path not in (registration.USER_FORM, registration.CONFIRM)
                                              and org is None):
            return None
        fields = registration.form_fields(raw, query)
        if path == registration.CONFIRM:
            page = self.registrations.confirm(fields) if method == "POST" else registration.Page(404, "Not Found")
        elif org is not None and not any(core.state.repo.owner.lower() == org["org"].lower()
                                         for core in self.cores.values()):
            page = registration.Page(404, "Not Found")
        else:
            owner = org["org"] if org is not None else self.core.state.repo.owner
            page = self.registrations.new(fields, fields.get("state", ""), owner)
        self.core.record(method, path, {}, None, page.status, None)
        return page

    def convert(self, path: str, matched: tuple[Any, dict[str, str]]) -> Reply:
        """`POST /app-manifests/{code}/conversions`: the App a one-time code stands for, created and
        played from now on; its key and secrets are in this answer only."""
        op, params = matched
        manifest = self.registrations.redeem(params["code"])
        if manifest is None:
            reply = Reply(404, {"message": "Not Found", "documentation_url": op.documentation_url, "status": "404"})
        else:
            app, credentials = self.registrations.create(manifest)
            hook = credentials.webhook_secret
            self.play(app, (manifest.hook_url, hook) if manifest.hook_url and hook else None)
            data = self.core.repo.views.app(app.id)
            data.update(client_id=credentials.client_id, client_secret=credentials.client_secret,
                        webhook_secret=hook, pem=credentials.pem)
            reply = Reply(201, data)
        for text in self.api.validate_response(op, reply.status, reply.body):
            self.problems.add(text)
        self.core.record("POST", path, {}, None, reply.status, None)
        return reply

    def enqueue(self, full_name: str, number: int, login: str) -> tuple[str, str]:
        """Put pull request `number` of `full_name` in its merge queue (see the module docstring);
        the queue branch's ref and head sha. `MergeRefused` when it cannot be queued, KeyError
        when there is no such repository or pull request."""
        core = self.cores[full_name.lower()]
        pr = core.state.pulls[number]
        sender = core.state.user(login)
        with core.writing("POST"):
            ref, base_sha = core.repo.enqueue(pr, sender)
            if core.repo.events is not None:
                core.repo.events.settle(sender)
                core.repo.events.merge_group(ref, f"refs/heads/{pr.base_ref}", base_sha, sender)
        sha = core.repo.store.ref(ref)
        assert sha is not None
        return ref, sha

    def fork_target(self, path: str) -> tuple[str, str] | None:
        """The fork a smart-HTTP path is for, and the path after `<owner>/<repo>.git`."""
        lowered = path.lower()
        for key, fork in self.forks.items():
            if lowered.startswith(f"/{key}.git/"):
                return fork, path[len(key) + 5:]
        return None

    def fork_git(self, fork: str, rest: str, method: str, query: str, raw: bytes,
                 headers: dict[str, str]) -> tuple[int, list[tuple[str, str]], bytes]:
        """git over smart HTTP on a fork: anyone with a token reads it, its owner pushes to it; a
        push moves the pull requests opened from its branches (`synchronize`)."""
        core = self.core
        principal = core.principal(smart_http.token_from(headers.get("authorization")))
        owner = fork.partition("/")[0]
        pushing = smart_http.pushing(rest, query)
        if principal is None or principal.grant is not None:  # the App is not installed on the fork
            cgi = smart_http.CgiReply(401, [("WWW-Authenticate", 'Basic realm="GitHub"')], b"Invalid token.\n")
        elif pushing and principal.user.login.lower() != owner.lower():
            cgi = smart_http.CgiReply(403, [], f"Permission to {fork}.git denied to {principal.user.login}.\n".encode())
        else:
            with core.writing("POST" if pushing else "GET"):
                cgi = smart_http.backend(core.repo.store.path, rest, method, query, raw, headers,
                                         principal.user.login, core.repo.fork_namespace(owner))
                if pushing and method == "POST" and cgi.status == 200:
                    core.repo.fork_pushed(fork, principal.user)
        core.record(method, f"/{fork}.git{rest}", {}, None, cgi.status, principal.user.login if principal else None)
        return cgi.status, cgi.headers, cgi.body

    def rest(self, method: str, path: str, query: dict[str, list[str]], raw: bytes,
             headers: dict[str, str]) -> Reply:
        matched = self.api.match(method, path)
        if matched is not None and matched[0].key == MANIFEST_CONVERSION:
            return self.convert(path, matched)
        if matched is not None and matched[0].key in APP_ROUTES:
            return self.app_rest(method, path, query, raw, headers, matched)
        if matched is not None and matched[0].key == INSTALLATION_REPOSITORIES:
            return self.installation_repositories(path, query, headers, matched[0])
        core = self.core
        if matched is not None and "owner" in matched[1]:
            core = self.cores.get(f"{matched[1]['owner']}/{matched[1].get('repo', '')}".lower(), self.core)
        return core.rest(method, path, query, raw, headers, matched)

    def installation_repositories(self, path: str, query: dict[str, list[str]], headers: dict[str, str],
                                  op: Any) -> Reply:
        """`GET /installation/repositories`: what an installation token may reach (PyGithub's
        `Installation.get_repos`)."""
        principal = self.core.principal(smart_http.token_from(headers.get("authorization")))
        doc = op.documentation_url or JWT_DOCS
        values, problem = self.api.coerce_query(op, query)
        if principal is None:
            reply = Reply(401, {"message": "Bad credentials", "documentation_url": doc, "status": "401"})
        elif principal.grant is None:
            reply = Reply(403, {"message": "This endpoint needs an installation access token",
                                "documentation_url": doc, "status": "403"})
        elif problem is not None:
            reply = Reply(problem.status, {"message": problem.message, "errors": problem.errors,
                                           "documentation_url": doc, "status": str(problem.status)})
        else:
            grant = principal.grant
            cores = [core for key, core in self.cores.items() if grant.covers(key)]
            installation = self.app.installations[grant.installation_id] if self.app else None
            everything = [core for core in self.cores.values()
                          if installation and core.state.repo.owner.lower() == installation.account.lower()]
            per_page, page = max(1, min(values.get("per_page") or 30, 100)), max(1, values.get("page") or 1)
            chunk = cores[(page - 1) * per_page: page * per_page]
            reply = Reply(200, {"total_count": len(cores),
                                "repository_selection": "all" if len(cores) == len(everything) else "selected",
                                "repositories": [core.repo.views.repository(full=False) for core in chunk]})
        for text in self.api.validate_response(op, reply.status, reply.body):
            self.problems.add(text)
        self.core.record("GET", path, query, None, reply.status, principal.user.login if principal else None)
        return reply

    def control(self, method: str, path: str, raw: bytes) -> tuple[int, Any]:
        """The `/_sandbox/` switches listed in the module docstring; `path` is what follows it."""
        try:
            body = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return 400, {"message": "Problems parsing JSON"}
        parts = path.strip("/").split("/")
        if method == "POST" and parts == ["delay"]:
            times = body.get("times", 1)
            try:
                if times is not None and (type(times) is not int or times < 1):
                    raise ValueError(times)
                held = self.core.faults.delay(str(body.get("method", "*")), str(body["path"]),
                                              float(body["seconds"]), times)
            except (KeyError, TypeError, ValueError, re.error):
                return 422, {"message": "path (a regex) and seconds (a number) are required; times is a count"}
            return 201, {"method": held.method, "path": held.path.pattern, "seconds": held.seconds}
        if method == "POST" and parts == ["merge-queue"]:
            try:
                number = body["pull_number"]
                if type(number) is not int:
                    raise TypeError(number)
                ref, sha = self.enqueue(str(body.get("repository") or self.core.state.repo.full_name), number,
                                        str(body.get("sender") or self.core.state.repo.owner))
            except (KeyError, TypeError, AttributeError):
                return 404, {"message": "no such repository or pull request (pull_number is a number)"}
            except MergeRefused as refused:
                return refused.status, {"message": refused.message}
            return 201, {"ref": ref, "sha": sha}
        hooks = self.deliveries
        if hooks is None:
            return 404, {"message": "this sandbox delivers no webhooks (no --webhook-url)"}
        if method == "GET" and parts == ["deliveries"]:
            return 200, [hooks.record(item["id"]) for item in hooks.listing()]
        if method == "POST" and len(parts) == 3 and parts[0] == "deliveries" and parts[2] == "redeliver" \
                and parts[1].isdigit():
            again = hooks.redeliver(int(parts[1]))
            return (202, {"id": again.id, "guid": again.guid}) if again else (404, {"message": "Not Found"})
        if method == "POST" and parts == ["webhooks", "mode"]:
            try:
                return 200, hooks.mode(body.get("drop_next"), body.get("duplicate_next"))
            except TypeError:
                return 422, {"message": "drop_next and duplicate_next are numbers"}
        if method == "POST" and parts == ["webhooks", "ping"]:
            events = self.app.events if self.app else ["*"]
            payload = webhooks.ping(self.core.repo, hooks.hook_id, hooks.url, events, self.app.id if self.app else None)
            sent = hooks.send("ping", None, payload, None, None if self.app else self.core.state.repo.id)
            return 202, {"id": sent.id, "guid": sent.guid}
        if method == "POST" and parts == ["webhooks", "wait"]:
            return 200, {"idle": hooks.wait_idle(float(body.get("timeout", 30)))}
        return 404, {"message": "Not Found"}

    def graphql(self, raw: bytes, headers: dict[str, str]) -> Reply:
        """GraphQL names pull requests by node id; ids are unique across the repositories."""
        try:
            wanted = json.loads(raw).get("variables", {}).get("input", {}).get("pullRequestId")
        except (ValueError, AttributeError):
            wanted = None
        for core in self.cores.values():
            with core.state.lock:
                if any(pr.node_id == wanted for pr in core.state.pulls.values()):
                    return core.graphql(raw, headers)
        return self.core.graphql(raw, headers)

    def app_rest(self, method: str, path: str, query: dict[str, list[str]], raw: bytes, headers: dict[str, str],
                 matched: tuple[Any, dict[str, str]]) -> Reply:
        """An App endpoint: only the App's JWT opens it; validated like every REST answer."""
        op, params = matched
        doc = op.documentation_url or JWT_DOCS
        token = smart_http.token_from(headers.get("authorization"))

        def error(status: int, message: str, errors: list[dict[str, Any]] | None = None) -> Reply:
            data: dict[str, Any] = {"message": message, "documentation_url": doc, "status": str(status)}
            if errors:
                data["errors"] = errors
            return Reply(status, data)

        reply: Reply
        if self.app is None:
            reply = error(404, "Not Found")
        elif (fault := self.core.faults.take(method, path)) is not None:  # the first repository's book
            reply = Reply(fault.status, fault.body_for(doc), dict(fault.headers))
        elif not looks_like_jwt(token):
            reply = error(401, "A JSON web token could not be decoded")
        else:
            reply = self._app_operation(op, params, query, raw, path, error, token or "")
        for text in self.api.validate_response(op, reply.status, reply.body):
            self.problems.add(text)
        try:
            body = json.loads(raw) if raw.strip() else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        self.core.record(method, path, query, body, reply.status, f"{self.app.slug}[app]" if self.app else None)
        return reply

    def _app_operation(self, op: Any, params: dict[str, str], query: dict[str, list[str]], raw: bytes, path: str,
                       error: Any, token: str) -> Reply:
        assert self.app is not None
        try:
            self.app.verify_jwt(token)
        except JwtRefused as refused:
            return error(401, str(refused))
        values, problem = self.api.coerce_query(op, query)
        if problem is None:
            body, problem = self.api.check_body(op, raw)
        if problem is not None:
            return error(problem.status, problem.message, problem.errors or None)
        ctx = AppContext(self.app, self.cores, self.deliveries, self.api_url, op, params, values, query, body,
                         f"{self.api_url}{path}")
        try:
            return APP_ROUTES[op.key](ctx)
        except ApiError as exc:
            return error(exc.status, exc.message, exc.errors)


def parse_user(spec: str) -> tuple[str, str, str]:
    """`LOGIN=TOKEN[:PERMISSION]` → (login, token, permission); permission defaults to write."""
    login, sep, rest = spec.partition("=")
    token, _, permission = rest.partition(":")
    permission = permission or "write"
    if not sep or not login or not token or permission not in ("admin", "write", "read"):
        raise ValueError(f"--user must be LOGIN=TOKEN[:admin|write|read], got {spec!r}")
    return login, token, permission


def build(args: argparse.Namespace) -> SandboxServer:
    """The server `memshelf-bot sandbox` runs, from its arguments."""
    repos = [Path(r) for r in args.repo]
    names = list(args.name or [])
    if len(repos) > 1 and len(names) != len(repos):
        raise ValueError("with several --repo, give one --name OWNER/REPO for each, in the same order")
    names = names or ["octo/shelf"]
    if (args.app_id is None) != (args.app_private_key is None):
        raise ValueError("--app-id and --app-private-key go together")
    if (args.webhook_url is None) != (args.webhook_secret is None):
        raise ValueError("--webhook-url and --webhook-secret go together")
    app = App.from_key_file(args.app_id, Path(args.app_private_key), slug=args.app_slug) if args.app_id else None
    webhook = (args.webhook_url, args.webhook_secret) if args.webhook_url else None
    server = SandboxServer(repos[0], names[0], token=args.token, port=args.port,
                           more=list(zip(repos[1:], names[1:], strict=True)), app=app,
                           log=Path(args.log) if args.log else None, webhook=webhook, forks=args.fork or ())
    for spec in args.user or []:
        login, token, permission = parse_user(spec)
        for core in server.cores.values():
            core.state.add_token(token, login, permission, integration=False)
    return server


def cli_main(args: argparse.Namespace) -> int:
    """`memshelf-bot sandbox --repo BARE [--name OWNER/REPO] … [--app-id ID --app-private-key PEM]
    [--webhook-url URL --webhook-secret S] [--user LOGIN=TOKEN[:PERMISSION]]… [--fork OWNER/REPO]…
    [--log FILE]`."""
    try:
        server = build(args)
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
