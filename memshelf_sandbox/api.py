"""The pieces every route shares: request context, GitHub-shaped errors, paging, the route table."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from .gitstore import GitStore
from .openapi import Operation
from .repo import Repository
from .state import Principal, State, User
from .views import Views

MAX_PER_PAGE = 100


class ApiError(Exception):
    """An answer GitHub gives instead of the resource: status, message, optional `errors` list."""

    def __init__(self, status: int, message: str, errors: list[dict[str, Any]] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.errors = errors


def not_found() -> ApiError:
    return ApiError(404, "Not Found")


def validation_failed(*errors: dict[str, Any]) -> ApiError:
    return ApiError(422, "Validation Failed", list(errors))


@dataclass
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Context:
    """One API request after routing and validation."""

    repo: Repository
    op: Operation
    params: dict[str, str]
    query: dict[str, Any]
    body: Any
    principal: Principal | None
    request_url: str  # base + path, no query: paging links are built on it
    raw_query: dict[str, list[str]]

    @property
    def state(self) -> State:
        return self.repo.state

    @property
    def store(self) -> GitStore:
        return self.repo.store

    @property
    def views(self) -> Views:
        return self.repo.views

    def actor(self) -> User:
        if self.principal is None:
            raise ApiError(401, "Requires authentication")
        return self.principal.user

    def page(self, items: list[Any], cap: int | None = None) -> tuple[list[Any], dict[str, str]]:
        """GitHub paging: `per_page` (max 100) and `page`, with a `Link` header (first/prev/next/last)."""
        if cap is not None:
            items = items[:cap]
        per_page = max(1, min(int(self.query.get("per_page") or 30), MAX_PER_PAGE))
        page = max(1, int(self.query.get("page") or 1))
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page: page * per_page]
        links = []

        def url(n: int) -> str:
            query = {k: v[-1] for k, v in self.raw_query.items()}
            query.update(per_page=str(per_page), page=str(n))
            return f"<{self.request_url}?{urlencode(query)}>"

        if page > 1:
            links += [f'{url(page - 1)}; rel="prev"', f'{url(1)}; rel="first"']
        if page < last:
            links += [f'{url(page + 1)}; rel="next"', f'{url(last)}; rel="last"']
        return chunk, ({"Link": ", ".join(links)} if links else {})


Handler = Callable[[Context], Reply]
# operation key ("GET /repos/{owner}/{repo}/pulls") -> (handler, permission needed)
ROUTES: dict[str, tuple[Handler, str]] = {}


def route(key: str, needs: str = "read") -> Callable[[Handler], Handler]:
    """Register a handler for an operation of the description; `needs` is the permission it takes."""

    def register(handler: Handler) -> Handler:
        if key in ROUTES:
            raise ValueError(f"two handlers for {key}")
        ROUTES[key] = (handler, needs)
        return handler

    return register


R = "/repos/{owner}/{repo}"
