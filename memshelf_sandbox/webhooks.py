"""Webhook payloads built from the sandbox's real state, valid against GitHub's webhook schemas.

Each payload starts from GitHub's official example for its event and action
(`@octokit/webhooks-examples`, in `data/webhooks/<event>.<action>.json`, written by
`scripts/extract_webhooks.py`), is filled from the repository's state (pull request, commits,
check runs, people, every URL pointing at the sandbox), and can be checked with `errors()`
against the official schemas (`@octokit/openapi-webhooks`, `data/webhooks/schemas.json`).
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

from openapi_schema_validator import OAS31Validator

from .gitstore import ZERO
from .repo import Repository, noreply
from .state import CheckRun, CheckSuite, Comment, PullRequest, User

DATA = Path(__file__).parent / "data" / "webhooks"
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@cache
def schemas() -> dict[str, Any]:
    return json.loads((DATA / "schemas.json").read_text(encoding="utf-8"))


@cache
def _example(name: str) -> str:
    return (DATA / f"{name}.json").read_text(encoding="utf-8")


def example(name: str) -> dict[str, Any]:
    """A fresh copy of the official example for `name` ("pull_request.opened", "push", …)."""
    return json.loads(_example(name))


@cache
def _validator(name: str) -> Any:
    bundle = schemas()
    return OAS31Validator({**bundle["events"][name], "components": bundle["components"]})


def errors(name: str, payload: dict[str, Any]) -> list[str]:
    """Why `payload` is not a valid `name` event; empty when it is."""
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in _validator(name).iter_errors(payload)]


# the pieces every payload shares ---------------------------------------------------------


def _retarget(node: Any, repo: Repository) -> Any:
    """Point every github.com URL and the `octo/shelf` name of an example at this sandbox."""
    if isinstance(node, str):
        base = repo.urls.base
        host = base.split("://", 1)[1]
        for old, new in (("https://api.github.com", base), ("https://github.com", base),
                         ("git://github.com", f"git://{host}"), ("git@github.com:", f"git@{host}:"),
                         ("octo/shelf", repo.state.repo.full_name)):
            node = node.replace(old, new)
        return node
    if isinstance(node, list):
        return [_retarget(item, repo) for item in node]
    if isinstance(node, dict):
        return {key: _retarget(value, repo) for key, value in node.items()}
    return node


def identify(repo: Repository, obj: dict[str, Any]) -> None:
    """Give an example's repository object this repository's identity and addresses."""
    s = repo.state.repo
    obj.update(id=s.id, node_id=repo.views.repository()["node_id"], name=s.name, full_name=s.full_name,
               private=s.private, fork=s.fork, default_branch=s.default_branch,
               clone_url=f"{repo.urls.html}.git", html_url=repo.urls.html, url=repo.urls.api)
    obj["owner"].update(login=s.owner, id=s.owner_id)


def user(repo: Repository, who: User) -> dict[str, Any]:
    data = repo.views.user(who)
    assert data is not None
    return data


def base(repo: Repository, name: str, sender: User) -> dict[str, Any]:
    payload = _retarget(example(name), repo)
    identify(repo, payload["repository"])
    payload["sender"] = user(repo, sender)
    if "organization" in payload:
        payload["organization"].update(login=repo.state.repo.owner, id=repo.state.repo.owner_id)
    return payload


# events -----------------------------------------------------------------------------------

PULL_FIELDS = ("url", "html_url", "diff_url", "patch_url", "issue_url", "commits_url", "review_comments_url",
               "review_comment_url", "comments_url", "statuses_url", "id", "node_id", "number", "state",
               "title", "body", "created_at", "updated_at", "closed_at", "merged_at", "merge_commit_sha",
               "draft", "merged", "mergeable", "mergeable_state", "commits", "additions", "deletions",
               "changed_files", "user", "labels", "auto_merge", "maintainer_can_modify", "_links", "merged_by")


def pull_request(repo: Repository, pr: PullRequest, action: str, sender: User, before: str | None = None,
                 after: str | None = None) -> dict[str, Any]:
    """A `pull_request` event (`opened`, `synchronize` with `before`/`after`, `reopened`, `closed`)."""
    payload = base(repo, f"pull_request.{action}", sender)
    rest = repo.pull_json(pr, full=True)
    event_pr = payload["pull_request"]
    for key in PULL_FIELDS:
        event_pr[key] = rest[key]
    for side in ("head", "base"):
        event_pr[side].update({k: rest[side][k] for k in ("label", "ref", "sha")})
        identify(repo, event_pr[side]["repo"])
        if side == "head" and pr.head_repo:  # a fork's pull request: its head is the fork, as in the REST view
            fork = rest["head"]["repo"]
            event_pr["head"]["repo"].update({k: fork[k] for k in ("id", "node_id", "name", "full_name", "fork",
                                                                  "html_url", "url", "clone_url")})
            event_pr["head"]["repo"]["owner"].update(login=fork["owner"]["login"], id=fork["owner"]["id"])
        event_pr[side]["user"] = copy.deepcopy(event_pr[side]["repo"]["owner"])
    payload["number"] = pr.number
    if action == "synchronize":
        payload["before"], payload["after"] = before or ZERO, after or rest["head"]["sha"]
    return payload


def _push_commit(repo: Repository, sha: str) -> dict[str, Any]:
    store = repo.store
    info = store.commit(sha)
    changes = store.diff(info.parents[0] if info.parents else EMPTY_TREE, sha)
    return {
        "id": sha, "tree_id": info.tree, "distinct": True, "message": info.message.rstrip("\n"),
        "timestamp": info.committer.date, "url": f"{repo.urls.html}/commit/{sha}",
        "author": {"name": info.author.name, "email": info.author.email},
        "committer": {"name": info.committer.name, "email": info.committer.email},
        "added": [c.filename for c in changes if c.status == "added"],
        "removed": [c.filename for c in changes if c.status == "removed"],
        "modified": [c.filename for c in changes if c.status not in ("added", "removed")],
    }


def push(repo: Repository, ref: str, before: str, after: str, pusher: User, forced: bool = False) -> dict[str, Any]:
    """A `push` of `before..after` on `ref` (ZERO for a created or deleted ref), commits from git."""
    payload = base(repo, "push", pusher)
    store = repo.store
    shas = [] if after == ZERO else store.commits_between(before, after) if before != ZERO else [after]
    commits = [_push_commit(repo, sha) for sha in shas[-20:]]  # GitHub lists at most 20
    payload.update(
        ref=ref, before=before, after=after, created=before == ZERO, deleted=after == ZERO, forced=forced,
        base_ref=None, commits=commits, head_commit=_push_commit(repo, after) if after != ZERO else None,
        compare=f"{repo.urls.html}/compare/{before[:12]}...{after[:12]}",
        pusher={"name": pusher.login, "email": noreply(pusher)},
    )
    return payload


def issue_comment(repo: Repository, comment: Comment, sender: User) -> dict[str, Any]:
    """An `issue_comment` `created` event for a comment on a pull request or a plain issue."""
    pr = repo.state.issue(comment.issue_number)
    assert pr is not None
    payload = base(repo, "issue_comment.created", sender)
    views = repo.views
    rest_comment = views.comment(comment)
    event_comment = payload["comment"]
    for key in ("url", "html_url", "issue_url", "id", "node_id", "body", "created_at", "updated_at", "user",
                "performed_via_github_app"):
        event_comment[key] = rest_comment[key]
    issue = payload["issue"]
    rest_issue = views.issue(pr, repo.comment_count(pr.number))
    for key in ("url", "repository_url", "labels_url", "comments_url", "events_url", "html_url", "id", "node_id",
                "number", "title", "body", "state", "comments", "created_at", "updated_at", "closed_at",
                "user", "pull_request", "labels", "draft"):
        if key in rest_issue:
            issue[key] = rest_issue[key]
        else:  # a plain issue: no pull request, no draft
            issue.pop(key, None)
    return payload


def _pulls_of(repo: Repository, sha: str) -> list[dict[str, Any]]:
    with repo.state.lock:
        return [repo.views.pull_minimal(pr, repo.head_sha(pr), repo.base_sha(pr))
                for pr in repo.state.pulls.values() if pr.state == "open" and repo.head_sha(pr) == sha]


def suite_state(repo: Repository, suite: CheckSuite) -> tuple[str, str | None]:
    """A suite's status and conclusion, from its check runs (GitHub's rollup)."""
    with repo.state.lock:
        runs = [r for r in repo.state.check_runs.values() if r.suite_id == suite.id]
    if suite.rerequested or not runs:
        return "queued", None
    if any(r.status != "completed" for r in runs):
        return "in_progress", None
    for worst in ("failure", "timed_out", "cancelled", "action_required", "stale", "neutral", "skipped"):
        if any(r.conclusion == worst for r in runs):
            return "completed", worst
    return "completed", "success"


def simple_commit(repo: Repository, sha: str) -> dict[str, Any]:
    """A commit as webhooks name one (`simple-commit`)."""
    info = repo.store.commit(sha)
    return {"id": info.sha, "tree_id": info.tree, "message": info.message.rstrip("\n"),
            "timestamp": info.committer.date,
            "author": {"name": info.author.name, "email": info.author.email},
            "committer": {"name": info.committer.name, "email": info.committer.email}}


def check_suite(repo: Repository, suite: CheckSuite, action: str, sender: User) -> dict[str, Any]:
    """A `check_suite` event (`requested` after a push, `rerequested` by a user)."""
    payload = base(repo, f"check_suite.{action}", sender)
    status, conclusion = suite_state(repo, suite)
    event_suite = payload["check_suite"]
    event_suite.update(
        id=suite.id, node_id=repo.views.check_suite_node_id(suite), head_branch=suite.head_branch,
        head_sha=suite.head_sha, status=status, conclusion=conclusion,
        url=f"{repo.urls.api}/check-suites/{suite.id}", before=suite.before, after=suite.after,
        pull_requests=_pulls_of(repo, suite.head_sha), app=repo.views.app(suite.app_id),
        created_at=suite.created_at, updated_at=suite.updated_at,
        latest_check_runs_count=sum(r.suite_id == suite.id for r in repo.state.check_runs.values()),
        check_runs_url=f"{repo.urls.api}/check-suites/{suite.id}/check-runs",
        head_commit=simple_commit(repo, suite.head_sha),
    )
    return payload


def check_run(repo: Repository, run: CheckRun, action: str, sender: User) -> dict[str, Any]:
    """A `check_run` event (`rerequested` by a user)."""
    payload = base(repo, f"check_run.{action}", sender)
    rest = repo.views.check_run(run, _pulls_of(repo, run.head_sha))
    event_run = payload["check_run"]
    for key in ("id", "node_id", "head_sha", "external_id", "url", "html_url", "details_url", "status",
                "conclusion", "started_at", "completed_at", "name", "app", "pull_requests"):
        event_run[key] = rest[key]
    event_run["output"].update({k: rest["output"][k] for k in ("title", "summary", "text", "annotations_count",
                                                                "annotations_url")})
    suite = repo.state.check_suites.get(run.suite_id)
    if suite is not None:
        status, conclusion = suite_state(repo, suite)
        event_run["check_suite"].update(
            id=suite.id, head_branch=suite.head_branch, head_sha=suite.head_sha, status=status,
            conclusion=conclusion, url=f"{repo.urls.api}/check-suites/{suite.id}", before=suite.before,
            after=suite.after, pull_requests=event_run["pull_requests"], app=rest["app"],
            created_at=suite.created_at, updated_at=suite.updated_at)
    return payload


def merge_group(repo: Repository, head_ref: str, base_ref: str, base_sha: str, sender: User) -> dict[str, Any]:
    """A `merge_group` `checks_requested` event: the queue branch `head_ref` (a full ref) holds the
    merge group's commit, to be checked before it lands on `base_ref` (at `base_sha`)."""
    payload = base(repo, "merge_group.checks_requested", sender)
    head_sha = repo.store.ref(head_ref)
    assert head_sha is not None
    payload["merge_group"] = {"head_sha": head_sha, "head_ref": head_ref, "base_sha": base_sha,
                              "base_ref": base_ref, "head_commit": simple_commit(repo, head_sha)}
    return payload


def ping(repo: Repository, hook_id: int, url: str, events: list[str], app_id: int | None) -> dict[str, Any]:
    """The `ping` GitHub sends when a hook is set up: for an App's hook (`app_id`), about the App."""
    payload = base(repo, "ping", repo.state.user(repo.state.repo.owner))
    hook = payload["hook"]
    hook.update(id=hook_id, events=list(events), active=True, name="web",
                config={"content_type": "json", "insecure_ssl": "0", "url": url})
    payload["hook_id"] = hook_id
    if app_id is not None:
        hook.update(type="App", app_id=app_id, deliveries_url=f"{repo.urls.base}/app/hook/deliveries")
        for key in ("url", "test_url", "ping_url", "last_response"):
            hook.pop(key, None)
        payload.pop("repository", None)
    else:
        hooks = f"{repo.urls.api}/hooks/{hook_id}"
        hook.update(type="Repository", url=hooks, test_url=f"{hooks}/test", ping_url=f"{hooks}/pings",
                    deliveries_url=f"{hooks}/deliveries")
        hook.pop("app_id", None)
    return payload
