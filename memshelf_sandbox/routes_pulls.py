"""Pull requests: list, create, read, update, files, commits, merge."""

from __future__ import annotations

from .api import ApiError, Context, R, Reply, not_found, route, validation_failed
from .gitstore import ZERO
from .repo import MergeRefused
from .state import PullRequest, now

MAX_FILES = 3000  # GitHub lists at most 3000 files of a pull request
MAX_COMMITS = 250


def _pull(ctx: Context) -> PullRequest:
    pr = ctx.state.pull(int(ctx.params["pull_number"]))
    if pr is None:
        raise not_found()
    return pr


def _branch(ctx: Context, spec: str) -> str | None:
    """`branch` or `owner:branch` (only this repository's owner exists in the sandbox)."""
    owner, sep, branch = spec.rpartition(":")
    if sep and owner.lower() != ctx.state.repo.owner.lower():
        return None
    return branch


@route(f"GET {R}/pulls")
def list_pulls(ctx: Context) -> Reply:
    state, head, base = ctx.query.get("state", "open"), ctx.query.get("head"), ctx.query.get("base")
    with ctx.state.lock:
        pulls = [pr for pr in ctx.state.pulls.values() if state == "all" or pr.state == state]
    if head:
        owner, sep, branch = head.rpartition(":")
        if sep:  # GitHub applies `head` only in its `user:ref-name` form
            pulls = [pr for pr in pulls if owner.lower() == (pr.head_owner or ctx.state.repo.owner).lower()
                     and pr.head_ref == branch]
    if base:
        pulls = [pr for pr in pulls if pr.base_ref == base]
    sort, direction = ctx.query.get("sort", "created"), ctx.query.get("direction")
    key = {"created": lambda p: (p.created_at, p.number), "updated": lambda p: (p.updated_at, p.number)}.get(
        sort, lambda p: (p.created_at, p.number))
    descending = (direction or ("desc" if sort in ("created", "updated") else "asc")) == "desc"
    pulls.sort(key=key, reverse=descending)
    page, headers = ctx.page(pulls)
    return Reply(200, [ctx.repo.pull_json(pr, full=False) for pr in page], headers)


@route(f"POST {R}/pulls", needs="read")  # anyone who can read may propose (from a fork)
def create_pull(ctx: Context) -> Reply:
    body = ctx.body
    if "issue" in body:
        raise ApiError(422, "Converting an issue to a pull request is not supported by the sandbox")
    if not body.get("title"):
        raise validation_failed({"resource": "PullRequest", "code": "missing_field", "field": "title"})
    owner, sep, _ = body["head"].rpartition(":")
    fork = ctx.repo.forks.get(owner.lower()) if sep else None  # `owner:branch` of a fork (`--fork`)
    head = body["head"].rpartition(":")[2] if fork else _branch(ctx, body["head"])
    base = body["base"]
    store = ctx.store
    if store.ref(f"refs/heads/{base}") is None:
        raise validation_failed({"resource": "PullRequest", "field": "base", "code": "invalid"})
    head_ref = ctx.repo.fork_branch(owner, head or "") if fork else f"refs/heads/{head}"
    head_sha = store.ref(head_ref) if head else None
    if head_sha is None:
        raise validation_failed({"resource": "PullRequest", "field": "head", "code": "invalid"})
    label = f"{owner}:{head}" if fork else f"{ctx.state.repo.owner}:{head}"
    with ctx.state.lock:
        for pr in ctx.state.pulls.values():
            if pr.state == "open" and (pr.head_repo or "").lower() == (fork or "").lower() and pr.head_ref == head \
                    and pr.base_ref == base:
                raise validation_failed({"resource": "PullRequest", "code": "custom",
                                         "message": f"A pull request already exists for {label}."})
        if not store.commits_between(store.ref(f"refs/heads/{base}") or "", head_sha):
            raise validation_failed({"resource": "PullRequest", "code": "custom",
                                     "message": f"No commits between {base} and {label if fork else head}"})
        number = ctx.state.next_number()
        pr = PullRequest(number, ctx.state.next_id(), body["title"], body.get("body"), ctx.actor(), head or "", base,
                         draft=bool(body.get("draft", False)),
                         maintainer_can_modify=bool(body.get("maintainer_can_modify", False)), head_repo=fork)
        if fork and not store.update_ref(ctx.repo.head_ref_name(pr), head_sha, ZERO):
            raise ApiError(500, "Server Error")
        ctx.state.pulls[number] = pr
    data = ctx.repo.pull_json(pr, full=True)
    if ctx.repo.events is not None:
        ctx.repo.events.pull_request(pr, "opened", ctx.actor())
    return Reply(201, data, {"Location": data["url"]})


@route(f"GET {R}/pulls/{{pull_number}}")
def get_pull(ctx: Context) -> Reply:
    return Reply(200, ctx.repo.pull_json(_pull(ctx), full=True))


@route(f"PATCH {R}/pulls/{{pull_number}}", needs="write")
def update_pull(ctx: Context) -> Reply:
    action = None
    with ctx.state.lock:
        pr = _pull(ctx)
        body = ctx.body or {}
        if "base" in body:
            if ctx.store.ref(f"refs/heads/{body['base']}") is None:
                raise validation_failed({"resource": "PullRequest", "field": "base", "code": "invalid"})
            pr.base_ref = body["base"]
        if "title" in body:
            pr.title = body["title"]
        if "body" in body:
            pr.body = body["body"]
        if "maintainer_can_modify" in body:
            pr.maintainer_can_modify = bool(body["maintainer_can_modify"])
        if body.get("state") == "closed" and pr.state == "open":
            pr.head_sha_frozen, pr.base_sha_frozen = ctx.repo.head_sha(pr), ctx.repo.base_sha(pr)
            pr.state, pr.closed_at, pr.auto_merge = "closed", now(), None
            action = "closed"
        elif body.get("state") == "open" and pr.state == "closed":
            if pr.merged_at is not None:
                raise validation_failed({"resource": "PullRequest", "code": "custom", "field": "state",
                                         "message": "state cannot be changed. The pull request cannot be reopened."})
            if ctx.store.ref(ctx.repo.head_ref_name(pr)) is None:
                raise validation_failed({"resource": "PullRequest", "code": "custom", "field": "state",
                                         "message": "state cannot be changed. The head branch was deleted."})
            pr.head_sha_frozen = pr.base_sha_frozen = None
            pr.state, pr.closed_at = "open", None
            action = "reopened"
        pr.updated_at = now()
    if action is not None and ctx.repo.events is not None:
        ctx.repo.events.pull_request(pr, action, ctx.actor())
    return Reply(200, ctx.repo.pull_json(pr, full=True))


@route(f"GET {R}/pulls/{{pull_number}}/files")
def list_files(ctx: Context) -> Reply:
    pr = _pull(ctx)
    files = list(ctx.repo.pull_files(pr))
    page, headers = ctx.page(files, cap=MAX_FILES)
    head = ctx.repo.head_sha(pr)
    return Reply(200, [ctx.views.diff_entry(f, head) for f in page], headers)


@route(f"GET {R}/pulls/{{pull_number}}/commits")
def list_commits(ctx: Context) -> Reply:
    commits = ctx.repo.pull_commits(_pull(ctx))
    page, headers = ctx.page(commits, cap=MAX_COMMITS)
    logins = ctx.repo.logins()
    return Reply(200, [ctx.views.commit(ctx.store.commit(c), None, logins) for c in page], headers)


@route(f"GET {R}/pulls/{{pull_number}}/merge")
def check_merged(ctx: Context) -> Reply:
    pr = _pull(ctx)
    return Reply(204) if pr.merged_at else Reply(404)


@route(f"PUT {R}/pulls/{{pull_number}}/merge", needs="write")
def merge_pull(ctx: Context) -> Reply:
    body = ctx.body or {}
    pr = _pull(ctx)
    try:
        sha = ctx.repo.merge(pr, ctx.actor(), body.get("merge_method", "merge"), body.get("commit_title"),
                             body.get("commit_message"), body.get("sha"))
    except MergeRefused as refused:
        raise ApiError(refused.status, refused.message) from refused
    return Reply(200, {"sha": sha, "merged": True, "message": "Pull Request successfully merged"})
