"""Webhook fixtures: the committed official examples validate, and payloads built from them do too."""

from __future__ import annotations

import json

import pytest

from memshelf_sandbox import Sandbox
from memshelf_sandbox.gitstore import ZERO
from tests import sandbox_fixtures
from tests.sandbox_fixtures import (
    WEBHOOKS,
    branch_with,
    issue_comment_event,
    pull_request_event,
    push_event,
    webhook_errors,
    webhook_fixture,
    webhook_schemas,
    workflow_dispatch_event,
)

bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox
EVENTS = ["pull_request.opened", "pull_request.synchronize", "pull_request.reopened", "pull_request.closed",
          "push", "issue_comment.created", "workflow_dispatch", "check_suite.requested",
          "check_suite.rerequested", "check_run.rerequested", "ping", "merge_group.checks_requested"]


def test_schema_bundle_records_its_sources() -> None:
    source = webhook_schemas()["source"]
    assert source["schemas"]["package"] == "@octokit/openapi-webhooks"
    assert source["examples"]["package"] == "@octokit/webhooks-examples"
    assert sorted(webhook_schemas()["events"]) == sorted(EVENTS)
    assert sorted(p.stem for p in WEBHOOKS.glob("*.json") if p.name != "schemas.json") == sorted(EVENTS)


@pytest.mark.parametrize("name", EVENTS)
def test_every_committed_fixture_validates(name: str) -> None:
    payload = webhook_fixture(name)
    assert webhook_errors(name, payload) == []
    assert payload["repository"]["full_name"] == "octo/shelf"
    assert payload["repository"]["owner"]["login"] == "octo"


def test_a_broken_payload_is_caught() -> None:
    payload = webhook_fixture("push")
    del payload["after"]
    payload["repository"]["id"] = "not a number"
    errors = webhook_errors("push", payload)
    assert any("'after' is a required property" in e for e in errors)
    assert any(e.startswith("/repository/id") for e in errors)


def test_pull_request_events_follow_the_sandbox(sandbox: Sandbox) -> None:
    head = branch_with(sandbox, "shelve/ev", {"docs/ev.md": "ev\n"})
    repo = sandbox.github().get_repo("octo/shelf")
    repo.create_pull(title="Shelve ev", body="digest", head="shelve/ev", base="main")
    opened = pull_request_event(sandbox, 1)
    assert (opened["action"], opened["number"], opened["pull_request"]["head"]["sha"]) == ("opened", 1, head)
    assert opened["pull_request"]["head"]["ref"] == "shelve/ev"
    assert opened["pull_request"]["base"]["sha"] == sandbox.store.ref("refs/heads/main")
    assert opened["repository"]["clone_url"] == f"{sandbox.api_url}/octo/shelf.git"
    text = json.dumps(opened)
    assert "api.github.com" not in text and "https://github.com" not in text

    second = branch_with(sandbox, "shelve/ev", {"docs/ev2.md": "two\n"}, base="shelve/ev")
    sync = pull_request_event(sandbox, 1, "synchronize")
    assert (sync["before"], sync["after"]) == (head, second)
    assert pull_request_event(sandbox, 1, "reopened")["action"] == "reopened"


def test_push_event_lists_real_commits(sandbox: Sandbox) -> None:
    before = sandbox.store.ref("refs/heads/main") or ""
    after = branch_with(sandbox, "main", {"docs/new.md": "n\n", "README.md": "changed\n"}, message="render")
    payload = push_event(sandbox, "refs/heads/main", before, after, pusher="github-actions[bot]")
    assert [c["id"] for c in payload["commits"]] == [after]
    assert payload["head_commit"]["message"] == "render"
    assert (payload["head_commit"]["added"], payload["head_commit"]["modified"]) == (["docs/new.md"], ["README.md"])
    assert payload["pusher"]["name"] == "github-actions[bot]"
    created = push_event(sandbox, "refs/heads/shelve/new", ZERO, after)
    assert created["created"] and not created["deleted"]
    deleted = push_event(sandbox, "refs/heads/shelve/new", after, ZERO)
    assert deleted["deleted"] and deleted["head_commit"] is None


def test_issue_comment_event_on_a_pull_request(sandbox: Sandbox) -> None:
    branch_with(sandbox, "shelve/r", {"docs/r.md": "r\n"})
    repo = sandbox.github().get_repo("octo/shelf")
    pr = repo.create_pull(title="r", body="", head="shelve/r", base="main")
    sandbox.add_token("ghp_maintainer", "maintainer", permission="write", integration=False)
    comment = sandbox.github("ghp_maintainer").get_repo("octo/shelf").get_issue(pr.number).create_comment(
        "/shelf resolve")
    payload = issue_comment_event(sandbox, pr.number, "/shelf resolve", user="maintainer", comment_id=comment.id)
    assert payload["comment"]["id"] == comment.id and payload["comment"]["body"] == "/shelf resolve"
    assert payload["comment"]["user"]["login"] == payload["sender"]["login"] == "maintainer"
    assert payload["issue"]["pull_request"]["url"] == pr.url
    unknown = issue_comment_event(sandbox, pr.number, "/shelf resolve", user="drive-by")
    assert unknown["comment"]["id"] not in sandbox.state.comments
    assert repo.get_collaborator_permission("drive-by") == "read"


def test_workflow_dispatch_event(sandbox: Sandbox) -> None:
    payload = workflow_dispatch_event(sandbox, inputs={"mode": "render"})
    assert (payload["ref"], payload["inputs"], payload["repository"]["full_name"]) == (
        "refs/heads/main", {"mode": "render"}, "octo/shelf")
