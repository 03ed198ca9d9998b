"""The sandbox plays merge queues: a pull request put in the queue gets GitHub's read-only queue
branch holding its merge onto the base, a `push` for that branch, and a `merge_group`
`checks_requested` webhook valid against the official schema, as a GitHub App receives them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memshelf_sandbox import Sandbox, seed_bare_repo
from memshelf_sandbox.app import App
from tests import sandbox_app_fixtures
from tests.e2e.test_sandbox_app_webhooks import assert_genuine, clone, commit, git
from tests.sandbox_app_fixtures import APP_ID, SECRET, Receiver
from tests.sandbox_fixtures import raw_request, seed_tree

pem, receiver = sandbox_app_fixtures.pem, sandbox_app_fixtures.receiver


@pytest.fixture
def hooked(tmp_path: Path, pem: bytes, receiver: tuple[Receiver, str]) -> Iterator[tuple[Sandbox, Receiver]]:
    bare = tmp_path / "shelf.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    with Sandbox.start(bare, "octo/shelf", app=App.from_private_key(APP_ID, pem),
                       webhook=(receiver[1], SECRET)) as sb:
        yield sb, receiver[0]
        assert sb.deliveries.wait_idle(60)
        assert sb.validation_errors == [], "a response or webhook broke GitHub's descriptions"


def open_pull(sb: Sandbox, box: Receiver, tmp_path: Path, name: str = "c") -> tuple[int, str, Path]:
    work = clone(sb, tmp_path)
    head = commit(work, f"docs/{name}.md", f"{name}\n")
    git("push", "-q", "origin", f"HEAD:refs/heads/shelve/{name}", cwd=work)
    box.wait_for(2)
    pr = sb.github("ghp_agent").get_repo("octo/shelf").create_pull(title=name, body="", head=f"shelve/{name}",
                                                                   base="main")
    box.wait_for(3)
    return pr.number, head, work


def test_a_queued_pull_request_gets_a_merge_group(hooked: tuple[Sandbox, Receiver], tmp_path: Path) -> None:
    sb, box = hooked
    number, head, _ = open_pull(sb, box, tmp_path)
    base = sb.store.ref("refs/heads/main")
    status, queued, _ = raw_request(sb, "POST", "/_sandbox/merge-queue",
                                    json.dumps({"pull_number": number, "sender": "agent"}).encode(), token=None)
    assert status == 201
    assert queued["ref"] == f"refs/heads/gh-readonly-queue/main/pr-{number}-{head}"
    assert list(sb.store.commit(queued["sha"]).parents) == [base, head]  # the merge of the PR onto the base
    got = box.wait_for(6)[3:]
    assert [g.name for g in got] == ["push", "check_suite.requested", "merge_group.checks_requested"]
    for g in got:
        assert_genuine(sb, g)  # signed, GitHub's headers, valid against @octokit/openapi-webhooks
    assert got[0].payload["ref"] == queued["ref"] and got[0].payload["created"] is True
    group = got[2].payload["merge_group"]
    assert (group["head_sha"], group["head_ref"], group["base_sha"], group["base_ref"]) == (
        queued["sha"], queued["ref"], base, "refs/heads/main")
    assert group["head_commit"]["id"] == queued["sha"]
    assert got[2].payload["sender"]["login"] == "agent"
    assert sb.store.ref("refs/heads/main") == base  # queued, not merged


def test_the_python_api_queues_too_and_refuses_what_github_refuses(hooked: tuple[Sandbox, Receiver],
                                                                   tmp_path: Path) -> None:
    sb, box = hooked
    number, head, _ = open_pull(sb, box, tmp_path)
    ref, sha = sb.enqueue(number, by="agent")
    assert sb.store.ref(ref) == sha and ref.endswith(f"/pr-{number}-{head}")
    box.wait_for(6)
    status, body, _ = raw_request(sb, "POST", "/_sandbox/merge-queue", json.dumps({"pull_number": number}).encode(),
                                  token=None)
    assert (status, body["message"]) == (422, "Pull request is already queued")
    status, _, _ = raw_request(sb, "POST", "/_sandbox/merge-queue", json.dumps({"pull_number": 999}).encode(),
                               token=None)
    assert status == 404
    status, _, _ = raw_request(sb, "POST", "/_sandbox/merge-queue", b'{"pull_number": "1"}', token=None)
    assert status == 404


def test_a_pull_request_that_conflicts_is_not_queued(hooked: tuple[Sandbox, Receiver], tmp_path: Path) -> None:
    sb, box = hooked
    number, _, work = open_pull(sb, box, tmp_path)
    git("checkout", "-q", "-b", "other", "origin/main", cwd=work)
    commit(work, "docs/c.md", "something else\n")
    git("push", "-q", "origin", "HEAD:refs/heads/main", cwd=work)
    status, body, _ = raw_request(sb, "POST", "/_sandbox/merge-queue", json.dumps({"pull_number": number}).encode(),
                                  token=None)
    assert (status, body["message"]) == (422, "Pull request has merge conflicts")
    assert not any(ref.startswith("refs/heads/gh-readonly-queue/") for ref in sb.store.refs("refs/heads/"))
