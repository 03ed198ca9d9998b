"""Git Data API: blobs, trees, commits and refs, all real objects in the bare repository."""

from __future__ import annotations

import base64
import binascii

from .api import ApiError, Context, R, Reply, not_found, route
from .gitstore import SHA_RE, ZERO, GitError, Person
from .repo import Repository, noreply
from .state import now

MODES = {"100644": "blob", "100755": "blob", "120000": "blob", "040000": "tree", "160000": "commit"}


def _full_ref(ref: str) -> str:
    return ref if ref.startswith("refs/") else f"refs/{ref}"


RULE_VIOLATION = "Repository rule violations found\n\nCommits must have verified signatures.\n\n"


def breaks_signed_rule(repo: Repository, name: str, old: str | None, new: str) -> bool:
    """Whether moving `name` from `old` to `new` brings a commit GitHub did not sign into a branch
    whose ruleset requires verified signatures (a commit not in the repository yet, as a git
    push brings it, is never signed)."""
    branch = name.removeprefix("refs/heads/")
    if not name.startswith("refs/heads/") or branch not in repo.state.signed_only or new == ZERO:
        return False
    kind = repo.store.object_type(new)
    if kind is None:
        return True
    if kind != "commit":
        return False
    added = repo.store.commits_between(old, new) if old and old != ZERO else [new]
    return any(sha not in repo.views.signed for sha in added)


def _check_rules(ctx: Context, name: str, old: str | None, new: str) -> None:
    """A branch whose ruleset requires verified signatures takes only commits GitHub signed."""
    if breaks_signed_rule(ctx.repo, name, old, new):
        raise ApiError(422, RULE_VIOLATION)


def _ref_reply(ctx: Context, name: str, sha: str, status: int = 200) -> Reply:
    kind = ctx.store.object_type(sha) or "commit"
    return Reply(status, ctx.views.ref(name, sha, kind))


@route(f"POST {R}/git/blobs", needs="write")
def create_blob(ctx: Context) -> Reply:
    content, encoding = ctx.body["content"], ctx.body.get("encoding", "utf-8")
    if encoding == "base64":
        try:
            data = base64.b64decode(content, validate=False)
        except (binascii.Error, ValueError) as exc:
            raise ApiError(422, "Invalid Base64 content") from exc
    elif encoding in ("utf-8", "utf8"):
        data = content.encode("utf-8")
    else:
        raise ApiError(422, f"encoding must be either 'utf-8' or 'base64', got {encoding!r}")
    sha = ctx.store.write_blob(data)
    return Reply(201, {"url": f"{ctx.repo.urls.api}/git/blobs/{sha}", "sha": sha},
                 {"Location": f"{ctx.repo.urls.api}/git/blobs/{sha}"})


@route(f"GET {R}/git/blobs/{{file_sha}}")
def get_blob(ctx: Context) -> Reply:
    sha = ctx.params["file_sha"]
    if ctx.store.object_type(sha) != "blob":
        raise not_found()
    return Reply(200, ctx.views.blob(sha, ctx.store.read_blob(sha)))


@route(f"POST {R}/git/trees", needs="write")
def create_tree(ctx: Context) -> Reply:
    base_tree = ctx.body.get("base_tree")
    if base_tree is not None and ctx.store.object_type(base_tree) != "tree":
        raise ApiError(422, "Invalid tree info")
    changes: list[tuple[str, str, str | None]] = []
    for entry in ctx.body["tree"]:
        path, mode = entry.get("path"), entry.get("mode")
        if not path or mode is None or path.startswith("/") or path.endswith("/"):
            raise ApiError(422, "Invalid tree info")
        if "content" in entry and entry.get("sha") is not None:
            raise ApiError(422, "Invalid tree info")
        if "content" in entry:
            changes.append((path, mode, ctx.store.write_blob(entry["content"].encode("utf-8"))))
            continue
        sha = entry.get("sha")
        if sha is not None and ctx.store.object_type(sha) != MODES[mode]:
            raise ApiError(422, f"tree.sha {sha} is not a valid {MODES[mode]}")
        if sha is None and base_tree is None:
            raise ApiError(422, "Invalid tree info")
        changes.append((path, mode, sha))
    sha = ctx.store.write_tree(base_tree, changes)
    return Reply(201, ctx.views.tree(sha, ctx.store.tree(sha)), {"Location": f"{ctx.repo.urls.api}/git/trees/{sha}"})


@route(f"GET {R}/git/trees/{{tree_sha}}")
def get_tree(ctx: Context) -> Reply:
    rev = ctx.params["tree_sha"]
    kind = ctx.store.object_type(rev)
    if kind == "tree":
        sha = rev
    else:
        commit = ctx.store.resolve_commit(rev)
        if commit is None:
            raise not_found()
        sha = ctx.store.commit(commit).tree
    recursive = "recursive" in ctx.raw_query
    return Reply(200, ctx.views.tree(sha, ctx.store.tree(sha, recursive)))


def _person(ctx: Context, given: dict | None, fallback: Person | None = None) -> Person:
    if given:
        return Person(given["name"], given["email"], given.get("date") or now())
    if fallback is not None:
        return fallback
    user = ctx.actor()
    return Person(user.login, noreply(user), now())


@route(f"POST {R}/git/commits", needs="write")
def create_commit(ctx: Context) -> Reply:
    tree, parents = ctx.body["tree"], ctx.body.get("parents", [])
    if ctx.store.object_type(tree) != "tree":
        raise ApiError(422, "Tree SHA does not exist")
    for parent in parents:
        if ctx.store.object_type(parent) != "commit":
            raise ApiError(422, "Parent SHA does not exist or is not a commit object")
    author = _person(ctx, ctx.body.get("author"))
    committer = _person(ctx, ctx.body.get("committer"), author)
    sha = ctx.store.write_commit(tree, parents, ctx.body["message"], author, committer)
    if not ctx.body.get("author") and not ctx.body.get("committer"):
        ctx.views.signed.setdefault(sha, now())  # GitHub signs what it authors itself
    return Reply(201, ctx.views.git_commit(ctx.store.commit(sha)),
                 {"Location": f"{ctx.repo.urls.api}/git/commits/{sha}"})


@route(f"GET {R}/git/commits/{{commit_sha}}")
def get_commit(ctx: Context) -> Reply:
    sha = ctx.params["commit_sha"]
    if ctx.store.object_type(sha) != "commit":
        raise not_found()
    return Reply(200, ctx.views.git_commit(ctx.store.commit(sha)))


@route(f"GET {R}/git/ref/{{ref}}")
def get_ref(ctx: Context) -> Reply:
    name = _full_ref(ctx.params["ref"])
    sha = ctx.store.ref(name)
    if sha is None:
        raise not_found()
    return _ref_reply(ctx, name, sha)


@route(f"GET {R}/git/matching-refs/{{ref}}")
def matching_refs(ctx: Context) -> Reply:
    prefix = _full_ref(ctx.params["ref"])
    refs = {name: sha for name, sha in ctx.store.refs("refs/").items() if name.startswith(prefix)}
    return Reply(200, [ctx.views.ref(name, sha, ctx.store.object_type(sha) or "commit")
                       for name, sha in sorted(refs.items())])


@route(f"POST {R}/git/refs", needs="write")
def create_ref(ctx: Context) -> Reply:
    name, sha = ctx.body["ref"], ctx.body["sha"]
    if not name.startswith("refs/") or name.count("/") < 2:
        raise ApiError(422, "Reference name must start with 'refs/' and have at least two slashes.")
    if not SHA_RE.match(sha) or ctx.store.object_type(sha) is None:
        raise ApiError(422, "Object does not exist")
    _check_rules(ctx, name, None, sha)
    try:
        created = ctx.store.update_ref(name, sha, ZERO)
    except GitError as exc:
        raise ApiError(422, f"{name} is not a valid ref name.") from exc
    if not created:
        raise ApiError(422, "Reference already exists")
    return Reply(201, ctx.views.ref(name, sha, ctx.store.object_type(sha) or "commit"),
                 {"Location": f"{ctx.repo.urls.api}/git/{name}"})


@route(f"PATCH {R}/git/refs/{{ref}}", needs="write")
def update_ref(ctx: Context) -> Reply:
    name, sha, force = _full_ref(ctx.params["ref"]), ctx.body["sha"], bool(ctx.body.get("force", False))
    current = ctx.store.ref(name)
    if current is None:
        raise ApiError(422, "Reference does not exist")
    if not SHA_RE.match(sha) or ctx.store.object_type(sha) is None:
        raise ApiError(422, "Object does not exist")
    if not force and not (ctx.store.object_type(sha) == "commit" and ctx.store.is_ancestor(current, sha)):
        raise ApiError(422, "Update is not a fast forward")
    _check_rules(ctx, name, current, sha)
    if not ctx.store.update_ref(name, sha, current):
        # someone moved the ref between our read and our write: the update was not a fast forward of it
        raise ApiError(422, "Update is not a fast forward")
    return _ref_reply(ctx, name, sha)


@route(f"DELETE {R}/git/refs/{{ref}}", needs="write")
def delete_ref(ctx: Context) -> Reply:
    name = _full_ref(ctx.params["ref"])
    current = ctx.store.ref(name)
    if current is None or not ctx.store.delete_ref(name, current):
        raise ApiError(422, "Reference does not exist")
    return Reply(204)
