"""The App's own endpoints, authenticated by its JWT: `/app`, its installations, installation tokens."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .api import Reply, not_found, validation_failed
from .app import App, Installation, level_at_least
from .openapi import Operation
from .state import User

if TYPE_CHECKING:
    from .core import Core
    from .delivery import Deliveries


@dataclass
class AppContext:
    """One request to an App endpoint, after its JWT was accepted."""

    app: App
    cores: dict[str, Core]  # lower-case full name -> the repository's core
    deliveries: Deliveries | None
    base: str
    op: Operation
    params: dict[str, str]
    query: dict[str, Any]
    raw_query: dict[str, list[str]]
    body: Any
    request_url: str  # base + path, no query

    @property
    def primary(self) -> Core:
        return next(iter(self.cores.values()))

    def installation(self) -> Installation:
        inst = self.app.installations.get(int(self.params["installation_id"]))
        if inst is None:
            raise not_found()
        return inst

    def repositories(self, inst: Installation) -> list[Core]:
        return [core for core in self.cores.values() if core.state.repo.owner.lower() == inst.account.lower()]


AppHandler = Callable[[AppContext], Reply]
APP_ROUTES: dict[str, AppHandler] = {}


def app_route(key: str) -> Callable[[AppHandler], AppHandler]:
    def register(handler: AppHandler) -> AppHandler:
        APP_ROUTES[key] = handler
        return handler

    return register


# representations -------------------------------------------------------------------------


def installation_json(ctx: AppContext, inst: Installation) -> dict[str, Any]:
    account = ctx.primary.repo.views.user(User(inst.account, inst.account_id, inst.account_type))
    assert account is not None
    # the description of GET /app/installations joins simple-user and enterprise with allOf, so an
    # account there must carry the enterprise fields too; they are harmless everywhere else
    account.update(name=inst.account, slug=inst.account, description=None, website_url=None,
                   created_at=inst.created_at, updated_at=inst.created_at)
    return {
        "id": inst.id, "account": account, "repository_selection": "all",
        "access_tokens_url": f"{ctx.base}/app/installations/{inst.id}/access_tokens",
        "repositories_url": f"{ctx.base}/installation/repositories",
        "html_url": f"{ctx.base}/organizations/{inst.account}/settings/installations/{inst.id}",
        "app_id": ctx.app.id, "client_id": ctx.app.client_id, "target_id": inst.account_id,
        "target_type": inst.account_type, "permissions": dict(ctx.app.permissions), "events": list(ctx.app.events),
        "created_at": inst.created_at, "updated_at": inst.created_at, "single_file_name": None,
        "has_multiple_single_files": False, "single_file_paths": [], "app_slug": ctx.app.slug,
        "suspended_by": None, "suspended_at": None,
    }


# identity and installations --------------------------------------------------------------


@app_route("GET /app")
def get_app(ctx: AppContext) -> Reply:
    data = ctx.primary.repo.views.app(ctx.app.id)
    data["installations_count"] = len(ctx.app.installations)
    return Reply(200, data)


@app_route("GET /app/installations")
def list_installations(ctx: AppContext) -> Reply:
    installs = sorted(ctx.app.installations.values(), key=lambda i: i.id)
    per_page = max(1, min(int(ctx.query.get("per_page") or 30), 100))
    page = max(1, int(ctx.query.get("page") or 1))
    chunk = installs[(page - 1) * per_page: page * per_page]
    return Reply(200, [installation_json(ctx, inst) for inst in chunk])


@app_route("GET /app/installations/{installation_id}")
def get_installation(ctx: AppContext) -> Reply:
    return Reply(200, installation_json(ctx, ctx.installation()))


@app_route("GET /repos/{owner}/{repo}/installation")
def repo_installation(ctx: AppContext) -> Reply:
    core = ctx.cores.get(f"{ctx.params['owner']}/{ctx.params['repo']}".lower())
    inst = ctx.app.installation_for(ctx.params["owner"]) if core else None
    if inst is None:
        raise not_found()
    return Reply(200, installation_json(ctx, inst))


@app_route("POST /app/installations/{installation_id}/access_tokens")
def create_token(ctx: AppContext) -> Reply:
    """Mint a token, narrowed to the named repositories and permissions when the body asks."""
    inst = ctx.installation()
    body = ctx.body or {}
    asked = body.get("permissions") or {}
    for category, level in asked.items():
        if not level_at_least(ctx.app.permissions.get(category), level):
            raise validation_failed({"resource": "Installation", "code": "custom", "field": "permissions",
                                     "message": "The permissions requested are not granted to this installation."})
    covered = ctx.repositories(inst)
    chosen: list[Core] | None = None
    if "repositories" in body or "repository_ids" in body:
        names = {f"{inst.account}/{name}".lower() for name in body.get("repositories", [])}
        ids = set(body.get("repository_ids", []))
        known_names = {core.state.repo.full_name.lower() for core in covered}
        known_ids = {core.state.repo.id for core in covered}
        if not names <= known_names or not ids <= known_ids:
            raise validation_failed({"resource": "Installation", "code": "custom", "field": "repositories",
                                     "message": "There is at least one repository that does not exist or is not "
                                                "accessible to the parent installation."})
        chosen = [core for core in covered if core.state.repo.full_name.lower() in names
                  or core.state.repo.id in ids]
    permissions = dict(asked) if asked else dict(ctx.app.permissions)
    permissions.setdefault("metadata", "read")
    scope = frozenset(core.state.repo.full_name.lower() for core in (covered if chosen is None else chosen))
    token, principal = ctx.app.mint(inst, permissions, scope)
    assert principal.grant is not None
    expires = dt.datetime.fromtimestamp(principal.grant.expires, dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    data: dict[str, Any] = {"token": token, "expires_at": expires, "permissions": permissions,
                            "repository_selection": "all" if chosen is None else "selected"}
    if chosen is not None:
        data["repositories"] = [core.repo.views.repository(full=False) for core in chosen]
    return Reply(201, data)
