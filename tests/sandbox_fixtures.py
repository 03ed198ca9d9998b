"""Sandbox fixtures and webhook payloads for tests.

Use in a test module: `bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox`
(after `from tests import sandbox_fixtures`: re-binding, not importing, the fixtures keeps ruff quiet).
`sandbox` is a running `Sandbox` on a fresh bare repository (seeded from `seed_tree`); at teardown
it fails the test if any sandbox response broke GitHub's OpenAPI description.

Webhook payloads are the sandbox's own (`memshelf_sandbox.webhooks`: official examples filled from
the sandbox's real state) and are validated against the official schemas every time they are built.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memshelf_sandbox import Sandbox, seed_bare_repo, webhooks
from memshelf_sandbox.gitstore import Person
from memshelf_sandbox.state import Comment, User

WEBHOOKS = webhooks.DATA
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


def webhook_schemas() -> dict[str, Any]:
    return webhooks.schemas()


def webhook_fixture(name: str) -> dict[str, Any]:
    return webhooks.example(name)


def webhook_errors(name: str, payload: dict[str, Any]) -> list[str]:
    """Why `payload` is not a valid `name` event (e.g. "pull_request.opened"); empty when it is."""
    return webhooks.errors(name, payload)


def validated(name: str, payload: dict[str, Any]) -> dict[str, Any]:
    errors = webhook_errors(name, payload)
    if errors:
        raise AssertionError(f"{name} payload breaks the official schema:\n" + "\n".join(errors[:20]))
    return payload


def _who(sb: Sandbox, login: str) -> User:
    return sb.state.user(login, "Bot" if login.endswith("[bot]") else "User")


def pull_request_event(sb: Sandbox, number: int, action: str = "opened", sender: str | None = None) -> dict[str, Any]:
    """A `pull_request` event (`opened`, `synchronize`, `reopened`, `closed`) for the sandbox's PR `number`;
    `synchronize` as if the head's last commit was just pushed."""
    pr = sb.state.pull(number)
    if pr is None:
        raise KeyError(f"no pull request #{number}")
    before = after = None
    if action == "synchronize":
        commits = sb.repo.pull_commits(pr)
        after = sb.repo.head_sha(pr)
        before = sb.store.commit(commits[-1]).parents[0] if commits else sb.repo.base_sha(pr)
    payload = webhooks.pull_request(sb.repo, pr, action, _who(sb, sender or pr.user.login), before, after)
    return validated(f"pull_request.{action}", payload)


def push_event(sb: Sandbox, ref: str, before: str, after: str, pusher: str = "github-actions[bot]",
               forced: bool = False) -> dict[str, Any]:
    """A `push` event of `before..after` on `ref` (ZERO for a created or deleted ref), commits from git."""
    return validated("push", webhooks.push(sb.repo, ref, before, after, _who(sb, pusher), forced))


def issue_comment_event(sb: Sandbox, number: int, body: str, user: str = "octocat",
                        comment_id: int | None = None) -> dict[str, Any]:
    """An `issue_comment` `created` event on pull request `number` (e.g. `/shelf resolve`).

    With `comment_id`, the comment is the sandbox's own; otherwise a new id is taken, so the
    payload stands for a comment the API does not know (as when it was deleted since).
    """
    if sb.state.pull(number) is None:
        raise KeyError(f"no pull request #{number}")
    who = _who(sb, user)
    comment = (sb.state.comments[comment_id] if comment_id is not None
               else Comment(sb.state.next_id(), number, body, who))
    payload = webhooks.issue_comment(sb.repo, comment, who)
    payload["comment"]["body"] = body
    return validated("issue_comment.created", payload)


def workflow_dispatch_event(sb: Sandbox, ref: str = "refs/heads/main", inputs: dict[str, Any] | None = None,
                            sender: str = "octo") -> dict[str, Any]:
    payload = webhooks.base(sb.repo, "workflow_dispatch", _who(sb, sender))
    payload.update(ref=ref, inputs=inputs or {})
    return validated("workflow_dispatch", payload)


def merge_group_event(sb: Sandbox, head_ref: str, base_sha: str, base_ref: str = "refs/heads/main",
                      sender: str = "octo") -> dict[str, Any]:
    """A `merge_group` `checks_requested` event for the queue branch `head_ref` (from `sb.enqueue`)."""
    return validated("merge_group.checks_requested",
                     webhooks.merge_group(sb.repo, head_ref, base_ref, base_sha, _who(sb, sender)))
