"""Repository, branches, permissions, contents, commits, compare and statuses."""

from __future__ import annotations

from .api import ApiError, Context, R, Reply, not_found, route, validation_failed
from .gitstore import TreeEntry
from .state import Status

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
# The collaborator-permission endpoint folds maintain into write and triage into read.
LEGACY = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read", "read": "read", "none": "none"}


def commit_or_422(ctx: Context, ref: str) -> str:
    sha = ctx.store.resolve_commit(ref)
    if sha is None:
        raise ApiError(422, f"No commit found for SHA: {ref}")
    return sha


@route(f"GET {R}")
def get_repository(ctx: Context) -> Reply:
    permission = ctx.principal.permission if ctx.principal else None
    return Reply(200, ctx.views.repository(permission, full=True))


@route(f"GET {R}/branches/{{branch}}")
def get_branch(ctx: Context) -> Reply:
    name = ctx.params["branch"]
    sha = ctx.store.ref(f"refs/heads/{name}")
    if sha is None:
        raise ApiError(404, "Branch not found")
    protection = ctx.state.protection.get(name)
    branch_url = f"{ctx.repo.urls.api}/branches/{name}"
    contexts = protection.required_contexts if protection else []
    return Reply(200, {
        "name": name, "commit": ctx.views.commit(ctx.store.commit(sha), None, ctx.repo.logins()),
        "_links": {"html": f"{ctx.repo.urls.html}/tree/{name}", "self": branch_url},
        "protected": protection is not None,
        "protection": {"enabled": protection is not None,
                       "required_status_checks": {"enforcement_level": "non_admins" if protection else "off",
                                                  "contexts": contexts, "checks": [
                                                      {"context": c, "app_id": None} for c in contexts]}},
        "protection_url": f"{branch_url}/protection",
    })


@route(f"GET {R}/collaborators/{{username}}/permission")
def collaborator_permission(ctx: Context) -> Reply:
    login = ctx.params["username"]
    permission = ctx.state.permission_of(login)
    user = ctx.views.user(ctx.state.user(login))
    level = {"admin": 5, "maintain": 4, "write": 3, "triage": 2, "read": 1, "none": 0}[permission]
    user["permissions"] = {"admin": level >= 5, "maintain": level >= 4, "push": level >= 3,
                           "triage": level >= 2, "pull": level >= 1}
    user["role_name"] = permission
    return Reply(200, {"permission": LEGACY[permission], "role_name": permission, "user": user})


@route(f"GET {R}/contents/{{path}}")
def get_contents(ctx: Context) -> Reply:
    ref = ctx.query.get("ref") or ctx.state.repo.default_branch
    commit = ctx.store.resolve_commit(ref)
    if commit is None:
        raise ApiError(404, f"No commit found for the ref {ref}")
    path = ctx.params["path"].strip("/")
    root = ctx.store.commit(commit).tree
    if path == "":
        entries = ctx.store.tree(root)
        return Reply(200, [ctx.views.content(e.path, e, ref, None) for e in entries])
    parent, _, leaf = path.rpartition("/")
    listing = _listing(ctx, root, parent)
    entry = next((e for e in listing if e.path == leaf), None)
    if entry is None:
        raise not_found()
    if entry.type == "tree":
        children = ctx.store.tree(entry.sha)
        return Reply(200, [ctx.views.content(f"{path}/{c.path}", c, ref, None) for c in children])
    data = ctx.store.read_blob(entry.sha) if entry.type == "blob" else b""
    return Reply(200, ctx.views.content(path, entry, ref, data))


def _listing(ctx: Context, root: str, directory: str) -> list[TreeEntry]:
    tree = root
    for part in [p for p in directory.split("/") if p]:
        entry = next((e for e in ctx.store.tree(tree) if e.path == part and e.type == "tree"), None)
        if entry is None:
            raise not_found()
        tree = entry.sha
    return ctx.store.tree(tree)


@route(f"GET {R}/commits/{{ref}}")
def get_commit(ctx: Context) -> Reply:
    sha = commit_or_422(ctx, ctx.params["ref"])
    info = ctx.store.commit(sha)
    files = ctx.store.diff(info.parents[0] if info.parents else EMPTY_TREE, sha)
    return Reply(200, ctx.views.commit(info, files, ctx.repo.logins()))


@route(f"GET {R}/compare/{{basehead}}")
def compare(ctx: Context) -> Reply:
    base_rev, sep, head_rev = ctx.params["basehead"].partition("...")
    if not sep:
        raise not_found()
    base, head = ctx.store.resolve_commit(base_rev), ctx.store.resolve_commit(head_rev)
    if base is None or head is None:
        raise not_found()
    merge_base = ctx.store.merge_base(base, head)
    if merge_base is None:
        raise ApiError(404, f"No common ancestor between {base_rev} and {head_rev}.")
    ahead = ctx.store.commits_between(merge_base, head)
    behind = ctx.store.commits_between(merge_base, base)
    status = ("identical" if not ahead and not behind else "ahead" if not behind
              else "behind" if not ahead else "diverged")
    logins = ctx.repo.logins()
    commits, headers = ctx.page(ahead, cap=250)
    urls = ctx.repo.urls
    body = {
        "url": f"{urls.api}/compare/{base_rev}...{head_rev}", "html_url": f"{urls.html}/compare/{base_rev}...{head_rev}",
        "permalink_url": f"{urls.html}/compare/{ctx.state.repo.owner}:{base[:7]}...{ctx.state.repo.owner}:{head[:7]}",
        "diff_url": f"{urls.html}/compare/{base_rev}...{head_rev}.diff",
        "patch_url": f"{urls.html}/compare/{base_rev}...{head_rev}.patch",
        "base_commit": ctx.views.commit(ctx.store.commit(base), None, logins),
        "merge_base_commit": ctx.views.commit(ctx.store.commit(merge_base), None, logins),
        "status": status, "ahead_by": len(ahead), "behind_by": len(behind), "total_commits": len(ahead),
        "commits": [ctx.views.commit(ctx.store.commit(c), None, logins) for c in commits],
        "files": [ctx.views.diff_entry(f, head) for f in ctx.store.diff(merge_base, head)[:300]],
    }
    return Reply(200, body, headers)


# statuses ----------------------------------------------------------------------------


@route(f"POST {R}/statuses/{{sha}}", needs="write")
def create_status(ctx: Context) -> Reply:
    sha = ctx.params["sha"]
    if ctx.store.object_type(sha) != "commit":
        raise validation_failed({"resource": "Status", "code": "custom", "field": "sha",
                                 "message": f"No commit found for SHA: {sha}"})
    with ctx.state.lock:
        status = Status(ctx.state.next_id(), sha, ctx.body["state"], ctx.body.get("context") or "default",
                        ctx.body.get("description"), ctx.body.get("target_url"), ctx.actor())
        ctx.state.statuses.append(status)
    return Reply(201, ctx.views.status(status), {"Location": f"{ctx.repo.urls.api}/statuses/{sha}"})


def combined_state(statuses: list[Status]) -> str:
    states = {s.state for s in statuses}
    if states & {"error", "failure"}:
        return "failure"
    if not statuses or "pending" in states:
        return "pending"
    return "success"


@route(f"GET {R}/commits/{{ref}}/status")
def combined_status(ctx: Context) -> Reply:
    sha = commit_or_422(ctx, ctx.params["ref"])
    latest = ctx.state.latest_statuses(sha)
    page, headers = ctx.page(latest)
    return Reply(200, {
        "state": combined_state(latest), "sha": sha, "total_count": len(latest),
        "statuses": [{k: v for k, v in ctx.views.status(s).items() if k != "creator"} for s in page],
        "repository": ctx.views.repository(), "commit_url": f"{ctx.repo.urls.api}/commits/{sha}",
        "url": f"{ctx.repo.urls.api}/commits/{sha}/status",
    }, headers)


@route(f"GET {R}/commits/{{ref}}/statuses")
def list_statuses(ctx: Context) -> Reply:
    sha = ctx.store.resolve_commit(ctx.params["ref"])
    with ctx.state.lock:
        statuses = [s for s in reversed(ctx.state.statuses) if s.sha == sha]
    page, headers = ctx.page(statuses)
    return Reply(200, [ctx.views.status(s) for s in page], headers)
