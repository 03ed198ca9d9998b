"""One repository behind the sandbox's socket: its git store, state, faults, and the REST and
GraphQL answers about it.

Every REST request reaching a `Core` was matched to an operation of GitHub's OpenAPI
description by the server; the core authenticates it, validates it, handles it, and validates
its answer again; an answer the description rejects is a sandbox bug and lands in the server's
`Problems` (`Sandbox.validation_errors`; tests assert the list stays empty).
"""

from __future__ import annotations

import contextlib
import json
import sys
import threading
from pathlib import Path
from typing import Any

from . import (
    graphql,
    routes_checks,
    routes_git,
    routes_issues,
    routes_pulls,
    routes_repo,
    routes_reviews,
    smart_http,
)
from .api import ROUTES, ApiError, Context, Reply
from .app import App, looks_like_jwt, refusal
from .calllog import CallLog
from .faults import Faults
from .gitstore import GitError, GitStore
from .openapi import Operation, description
from .repo import Repository
from .state import PERMISSIONS, Call, Principal, RepoSettings, State

# importing them fills ROUTES
ROUTE_MODULES = (routes_checks, routes_git, routes_issues, routes_pulls, routes_repo, routes_reviews)
REST_DOCS = "https://docs.github.com/rest"
GRAPHQL_DOCS = "https://docs.github.com/graphql"
REPO_ID_RANGE = 10_000_000  # ids of objects in the n-th repository start at 1001 + n * this


class Problems:
    """Answers (and webhook payloads) GitHub's descriptions reject: sandbox bugs, for tests to fail on."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.items: list[str] = []

    def add(self, text: str) -> None:
        with self._lock:
            self.items.append(text)
        print(f"sandbox: {text}", file=sys.stderr)


class Core:
    """Everything behind the socket: the repository, its state, faults, validation, calls."""

    def __init__(self, bare: Path, name: str, base_url: str, token: str | None = None, index: int = 0,
                 problems: Problems | None = None) -> None:
        owner, _, repo = name.partition("/")
        if not owner or not repo or "/" in repo:
            raise ValueError(f"--name must be OWNER/REPO, got {name!r}")
        store = GitStore(bare)
        head = store.out("symbolic-ref", "--short", "HEAD") or "main"
        settings = RepoSettings(owner, repo, default_branch=head)
        settings.id += index
        self.state = State(settings, first_id=1001 + index * REPO_ID_RANGE)
        if token is not None:
            self.state.pin_token(token)
        self.repo = Repository(store, self.state, base_url)
        self.api = description()
        self.faults = Faults(f"/repos/{owner}/{repo}", self._delete_comment)
        # One write at a time, with the settles around it: a push over git and a REST write of
        # another client at the same moment must not see each other's moved heads, or the push
        # webhook names the wrong sender (an agent's push delivered as made by the App).
        self._writes = threading.RLock()
        self.app: App | None = None
        self.log: CallLog | None = None
        self._problems = problems or Problems()

    def principal(self, token: str | None) -> Principal | None:
        """Who a token is: one of the App's installation tokens (None once expired), a token the
        sandbox was told about, or — unless pinned — anyone as github-actions[bot]. A JWT is no
        token for a repository."""
        if self.app is not None:
            found = self.app.principal(token)
            if found is not None:
                return found or None
        if looks_like_jwt(token):
            return None
        return self.state.principal(token)

    def _delete_comment(self, comment_id: int) -> bool:
        with self.state.lock:
            return self.state.comments.pop(comment_id, None) is not None

    def problem(self, text: str) -> None:
        self._problems.add(text)

    def record(self, method: str, path: str, query: dict[str, list[str]], body: Any, status: int,
               login: str | None, sent: int | None = None) -> None:
        """`sent`: the bytes a git smart-HTTP answer served (logged with it)."""
        with self.state.lock:
            self.state.calls.append(Call(method, path, query, body, status, login, sent))
        if self.log is not None:
            self.log.write(method, path, status, login, body, sent)

    # REST --------------------------------------------------------------------------------

    def rest(self, method: str, path: str, query: dict[str, list[str]], raw: bytes,
             headers: dict[str, str], matched: tuple[Operation, dict[str, str]] | None) -> Reply:
        token = smart_http.token_from(headers.get("authorization"))
        principal = self.principal(token)
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
        self.faults.hold(method, path)
        with self.writing(method):
            if token and principal is None:
                reply = error(401, "Bad credentials")
            elif (fault := self.faults.take(method, path)) is not None:
                reply = Reply(fault.status, fault.body_for(doc), dict(fault.headers))
            elif op is None or matched is None:
                reply = error(404, "Not Found")
            else:
                self.settle(principal, method)
                reply = self._operation(method, matched[1], query, raw, principal, op, path, error)
            if op is not None:
                for text in self.api.validate_response(op, reply.status, reply.body):
                    self.problem(text)
            if method != "GET" and reply.status < 400:
                self.repo.sweep_auto_merge()
            self.settle(principal, method)
        self.record(method, path, query, body, reply.status, principal.user.login if principal else None)
        return reply

    def writing(self, method: str) -> contextlib.AbstractContextManager[Any]:
        """Held while a write runs, its settles included (see `_writes`); reads run freely."""
        return self._writes if method != "GET" else contextlib.nullcontext()

    def settle(self, principal: Principal | None, method: str = "POST") -> None:
        """After (and before) a write: webhooks for the branch heads that moved."""
        if self.repo.events is not None and method != "GET":
            who = principal.user if principal else self.state.user(self.state.repo.owner)
            self.repo.events.settle(who)

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
        if principal is not None and principal.grant is not None:
            refused = refusal(principal.grant, op.key, settings.full_name)
            if refused is not None:
                return error(*refused)
        elif principal is not None and method != "GET":
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
        principal = self.principal(smart_http.token_from(headers.get("authorization")))
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
            with self.writing("POST"):
                reply = Reply(200, graphql.execute(self.repo, principal, request))
                self.repo.sweep_auto_merge()
                self.settle(principal)
        self.record("POST", "/graphql", {}, request, reply.status, principal.user.login if principal else None)
        return reply
