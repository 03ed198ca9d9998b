"""Sandbox fixtures and webhook payloads for tests.

Use in a test module: `bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox`
(after `from tests import sandbox_fixtures`: re-binding, not importing, the fixtures keeps ruff quiet).
`sandbox` is a running `Sandbox` on a fresh bare repository (seeded from `seed_tree`); at teardown
it fails the test if any sandbox response broke GitHub's OpenAPI description.

Webhook payloads start from the committed official examples in `tests/fixtures/webhooks/`, are
filled from the sandbox's real state (repository, pull request, commits, URLs) and are validated
against the committed official schemas every time they are built.
"""

from __future__ import annotations

import copy
import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from openapi_schema_validator import OAS31Validator

from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.gitstore import ZERO, Person

WEBHOOKS = Path(__file__).parent / "fixtures" / "webhooks"
EPISODE = """---
id: 2026-01-05-first
kind: topic
---
# First episode
"""


def seed_tree(root: Path) -> Path:
    """A tiny shelf-shaped directory: a README and one file under docs/."""
    (root / "docs" / "topics").mkdir(parents=True)
    (root / "README.md").write_text("# octo/shelf\n", encoding="utf-8")
    (root / "docs" / "topics" / "2026-01-05-first.md").write_text(EPISODE, encoding="utf-8")
    return root


@pytest.fixture
def bare_repo(tmp_path: Path) -> Path:
    bare = tmp_path / "shelf.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    return bare


@pytest.fixture
def sandbox(bare_repo: Path) -> Iterator[Sandbox]:
    with Sandbox.start(bare_repo, "octo/shelf") as sb:
        yield sb
        assert sb.validation_errors == [], "the sandbox answered outside GitHub's OpenAPI description"


# driving the sandbox ----------------------------------------------------------------

WHO = Person("Agent", "agent@example.com", "2026-02-01T10:00:00Z")


def branch_with(sb: Sandbox, branch: str, files: dict[str, str], base: str = "main", message: str = "change") -> str:
    """Commit `files` on top of `base` as branch `branch`, straight in git (as a push would)."""
    parent = sb.store.ref(f"refs/heads/{base}")
    assert parent
    tree = sb.store.commit(parent).tree
    changes = [(path, "100644", sb.store.write_blob(text.encode())) for path, text in files.items()]
    sha = sb.store.write_commit(sb.store.write_tree(tree, changes), [parent], message + "\n", WHO, WHO)
    assert sb.store.update_ref(f"refs/heads/{branch}", sha, None)
    return sha


def raw_request(sb: Sandbox, method: str, path: str, body: bytes | None = None,
                token: str | None = "ghs_sandbox") -> tuple[int, Any, dict[str, str]]:
    """One request outside PyGithub: status, body (JSON decoded when it is JSON), headers."""
    request = urllib.request.Request(f"{sb.api_url}{path}", data=body, method=method)
    if token:
        request.add_header("Authorization", f"token {token}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            status, data, headers = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        status, data, headers = error.code, error.read(), dict(error.headers)
    if headers.get("Content-Type", "").startswith("application/json") and data:
        return status, json.loads(data), headers
    return status, data.decode("utf-8", "replace") or None, headers


# webhook payloads -------------------------------------------------------------------


@cache
def webhook_schemas() -> dict[str, Any]:
    return json.loads((WEBHOOKS / "schemas.json").read_text(encoding="utf-8"))


def webhook_fixture(name: str) -> dict[str, Any]:
    return json.loads((WEBHOOKS / f"{name}.json").read_text(encoding="utf-8"))


def webhook_errors(name: str, payload: dict[str, Any]) -> list[str]:
    """Why `payload` is not a valid `name` event (e.g. "pull_request.opened"); empty when it is."""
    bundle = webhook_schemas()
    validator = OAS31Validator({**bundle["events"][name], "components": bundle["components"]})
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(payload)]


def validated(name: str, payload: dict[str, Any]) -> dict[str, Any]:
    errors = webhook_errors(name, payload)
    if errors:
        raise AssertionError(f"{name} payload breaks the official schema:\n" + "\n".join(errors[:20]))
    return payload


def _retarget(node: Any, sb: Sandbox) -> Any:
    """Point every github.com URL and the `octo/shelf` name of a fixture at this sandbox."""
    if isinstance(node, str):
        host = sb.api_url.split("://", 1)[1]
        for old, new in (("https://api.github.com", sb.api_url), ("https://github.com", sb.api_url),
                         ("git://github.com", f"git://{host}"), ("git@github.com:", f"git@{host}:"),
                         ("octo/shelf", sb.full_name)):
            node = node.replace(old, new)
        return node
    if isinstance(node, list):
        return [_retarget(item, sb) for item in node]
    if isinstance(node, dict):
        return {key: _retarget(value, sb) for key, value in node.items()}
    return node


def _user(sb: Sandbox, login: str) -> dict[str, Any]:
    return sb.repo.views.user(sb.state.user(login, "Bot" if login.endswith("[bot]") else "User"))  # type: ignore[return-value]


def _base(sb: Sandbox, name: str, sender: str) -> dict[str, Any]:
    payload = _retarget(copy.deepcopy(webhook_fixture(name)), sb)
    _identify(sb, payload["repository"])
    payload["sender"] = _user(sb, sender)
    return payload


def _identify(sb: Sandbox, repo: dict[str, Any]) -> None:
    """Give a fixture's repository object the sandbox repository's identity and addresses."""
    settings = sb.state.repo
    repo.update(id=settings.id, name=settings.name, full_name=settings.full_name, private=settings.private,
                fork=settings.fork, default_branch=settings.default_branch,
                clone_url=f"{sb.api_url}/{settings.full_name}.git", html_url=f"{sb.api_url}/{settings.full_name}",
                url=f"{sb.api_url}/repos/{settings.full_name}")
    repo["owner"].update(login=settings.owner, id=settings.owner_id)


def pull_request_event(sb: Sandbox, number: int, action: str = "opened", sender: str | None = None) -> dict[str, Any]:
    """A `pull_request` event (`opened`, `synchronize`, `reopened`) for the sandbox's PR `number`."""
    pr = sb.state.pull(number)
    if pr is None:
        raise KeyError(f"no pull request #{number}")
    payload = _base(sb, f"pull_request.{action}", sender or pr.user.login)
    rest = sb.repo.pull_json(pr, full=True)
    event_pr = payload["pull_request"]
    for key in ("url", "html_url", "diff_url", "patch_url", "issue_url", "commits_url", "review_comments_url",
                "review_comment_url", "comments_url", "statuses_url", "id", "node_id", "number", "state",
                "title", "body", "created_at", "updated_at", "closed_at", "merged_at", "merge_commit_sha",
                "draft", "merged", "mergeable", "mergeable_state", "commits", "additions", "deletions",
                "changed_files", "user", "labels", "auto_merge", "maintainer_can_modify", "_links"):
        event_pr[key] = rest[key]
    for side in ("head", "base"):
        event_pr[side].update({k: rest[side][k] for k in ("label", "ref", "sha")})
        _identify(sb, event_pr[side]["repo"])
        event_pr[side]["user"] = copy.deepcopy(event_pr[side]["repo"]["owner"])
    payload["number"] = number
    if action == "synchronize":
        commits = sb.repo.pull_commits(pr)
        payload["after"] = rest["head"]["sha"]
        payload["before"] = sb.store.commit(commits[-1]).parents[0] if commits else rest["base"]["sha"]
    return validated(f"pull_request.{action}", payload)


def _push_commit(sb: Sandbox, sha: str) -> dict[str, Any]:
    info = sb.store.commit(sha)
    changes = sb.store.diff(info.parents[0] if info.parents else "4b825dc642cb6eb9a060e54bf8d69288fbee4904", sha)
    return {
        "id": sha, "tree_id": info.tree, "distinct": True, "message": info.message.rstrip("\n"),
        "timestamp": info.committer.date, "url": f"{sb.api_url}/{sb.full_name}/commit/{sha}",
        "author": {"name": info.author.name, "email": info.author.email},
        "committer": {"name": info.committer.name, "email": info.committer.email},
        "added": [c.filename for c in changes if c.status == "added"],
        "removed": [c.filename for c in changes if c.status == "removed"],
        "modified": [c.filename for c in changes if c.status not in ("added", "removed")],
    }


def push_event(sb: Sandbox, ref: str, before: str, after: str, pusher: str = "github-actions[bot]",
               forced: bool = False) -> dict[str, Any]:
    """A `push` event of `before..after` on `ref` (ZERO for a created or deleted ref), commits from git."""
    payload = _base(sb, "push", pusher)
    shas = [] if after == ZERO else sb.store.commits_between(before, after) if before != ZERO else [after]
    commits = [_push_commit(sb, sha) for sha in shas]
    user = sb.state.user(pusher)
    payload.update(
        ref=ref, before=before, after=after, created=before == ZERO, deleted=after == ZERO, forced=forced,
        base_ref=None, commits=commits, head_commit=commits[-1] if commits else None,
        compare=f"{sb.api_url}/{sb.full_name}/compare/{before[:12]}...{after[:12]}",
        pusher={"name": user.login, "email": f"{user.id}+{user.login}@users.noreply.github.com"},
    )
    return validated("push", payload)


def issue_comment_event(sb: Sandbox, number: int, body: str, user: str = "octocat",
                        comment_id: int | None = None) -> dict[str, Any]:
    """An `issue_comment` `created` event on pull request `number` (e.g. `/shelf resolve`).

    With `comment_id`, the comment is the sandbox's own; otherwise a new id is taken, so the
    payload stands for a comment the API does not know (as when it was deleted since).
    """
    pr = sb.state.pull(number)
    if pr is None:
        raise KeyError(f"no pull request #{number}")
    payload = _base(sb, "issue_comment.created", user)
    views = sb.repo.views
    if comment_id is not None:
        rest_comment = views.comment(sb.state.comments[comment_id])
    else:
        from memshelf_sandbox.state import Comment

        rest_comment = views.comment(Comment(sb.state.next_id(), number, body, sb.state.user(user)))
    rest_comment["body"] = body
    comment = payload["comment"]
    for key in ("url", "html_url", "issue_url", "id", "node_id", "body", "created_at", "updated_at", "user"):
        comment[key] = rest_comment[key]
    issue = payload["issue"]
    rest_issue = views.issue(pr, sb.repo.comment_count(number))
    for key in ("url", "repository_url", "labels_url", "comments_url", "events_url", "html_url", "id", "node_id",
                "number", "title", "body", "state", "comments", "created_at", "updated_at", "closed_at",
                "user", "pull_request", "labels", "draft"):
        issue[key] = rest_issue[key]
    return validated("issue_comment.created", payload)


def workflow_dispatch_event(sb: Sandbox, ref: str = "refs/heads/main", inputs: dict[str, Any] | None = None,
                            sender: str = "octo") -> dict[str, Any]:
    payload = _base(sb, "workflow_dispatch", sender)
    payload.update(ref=ref, inputs=inputs or {})
    return validated("workflow_dispatch", payload)
