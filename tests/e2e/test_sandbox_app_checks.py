"""The Checks API as the App uses it: runs with annotations in batches of 50, suites, re-requests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from github import Auth, Github

from memshelf_sandbox import Sandbox, seed_bare_repo, webhooks
from memshelf_sandbox.app import App
from tests import sandbox_app_fixtures
from tests.sandbox_app_fixtures import APP_ID, SECRET, Receiver
from tests.sandbox_fixtures import branch_with, raw_request, seed_tree

pem, receiver = sandbox_app_fixtures.pem, sandbox_app_fixtures.receiver

ANNOTATION = {"path": "docs/a.md", "start_line": 1, "end_line": 1, "annotation_level": "failure",
              "message": "bad", "title": "E001"}


@pytest.fixture
def checks(tmp_path: Path, pem: bytes, receiver: tuple[Receiver, str]) -> Iterator[tuple[Sandbox, Receiver, Github]]:
    bare = tmp_path / "shelf.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    with Sandbox.start(bare, "octo/shelf", app=App.from_private_key(APP_ID, pem),
                       webhook=(receiver[1], SECRET)) as sb:
        auth = Auth.AppAuth(APP_ID, pem.decode()).get_installation_auth(next(iter(sb.app.installations)))
        yield sb, receiver[0], Github(auth=auth, base_url=sb.api_url, retry=None)
        assert sb.deliveries.wait_idle(60), "deliveries still pending at the end of the test"
        assert sb.validation_errors == [], "a response or webhook broke GitHub's descriptions"


def test_annotations_at_most_50_per_request(checks: tuple[Sandbox, Receiver, Github]) -> None:
    sb, _, gh = checks
    repo = gh.get_repo("octo/shelf")
    sha = sb.store.ref("refs/heads/main")
    run = repo.create_check_run("memshelf-bot", sha, status="in_progress")
    too_many = {"output": {"title": "t", "summary": "s", "annotations": [ANNOTATION] * 51}}
    installation_token = gh.requester.auth.token  # type: ignore[union-attr]
    status, body, _ = raw_request(sb, "PATCH", f"/repos/octo/shelf/check-runs/{run.id}",
                                  json.dumps(too_many).encode(), token=installation_token)
    assert status == 422 and body["errors"][0]["field"] == "output/annotations"
    assert "is too long" in body["errors"][0]["message"]
    for batch in range(3):
        lines = [{**ANNOTATION, "start_line": batch * 50 + n + 1, "end_line": batch * 50 + n + 1} for n in range(50)]
        run.edit(output={"title": "t", "summary": "s", "annotations": lines})
    run.edit(conclusion="failure")
    annotations = list(repo.get_check_run(run.id).get_annotations())
    assert [a.start_line for a in annotations] == list(range(1, 151))
    assert annotations[0].blob_href.endswith(f"/blob/{sha}/docs/a.md")
    assert repo.get_check_run(run.id).output.annotations_count == 150


def test_suites_follow_their_runs(checks: tuple[Sandbox, Receiver, Github]) -> None:
    sb, _, gh = checks
    head = branch_with(sb, "shelve/s", {"docs/s.md": "s\n"})
    repo = gh.get_repo("octo/shelf")
    run = repo.create_check_run("memshelf-bot", head, status="in_progress")
    suites = list(repo.get_commit(head).get_check_suites())
    assert [(s.app.id, s.head_branch, s.status) for s in suites] == [(APP_ID, "shelve/s", "in_progress")]
    assert run.check_suite.id == suites[0].id
    run.edit(conclusion="success")
    suite = repo.get_check_suite(suites[0].id)
    assert (suite.status, suite.conclusion, suite.latest_check_runs_count) == ("completed", "success", 1)
    assert [r.id for r in suite.get_check_runs()] == [run.id]


def test_rerequests_deliver_to_the_app(checks: tuple[Sandbox, Receiver, Github]) -> None:
    sb, box, gh = checks
    sha = sb.store.ref("refs/heads/main")
    assert sha
    run = gh.get_repo("octo/shelf").create_check_run("memshelf-bot", sha, conclusion="failure",
                                                      output={"title": "t", "summary": "s"})
    sb.add_token("ghp_maintainer", "maintainer", "write", integration=False)
    user_repo = sb.github("ghp_maintainer").get_repo("octo/shelf")
    assert raw_request(sb, "POST", f"/repos/octo/shelf/check-runs/{run.id}/rerequest", b"",
                       token="ghp_maintainer")[0] == 201
    assert user_repo.get_check_suite(run.check_suite.id).rerequest() is True
    got = box.wait_for(2)
    assert [g.name for g in got] == ["check_run.rerequested", "check_suite.rerequested"]
    for g in got:
        assert webhooks.errors(g.name, g.payload) == []
        assert g.payload["sender"]["login"] == "maintainer"
    assert got[0].payload["check_run"]["id"] == run.id and got[0].payload["check_run"]["app"]["id"] == APP_ID
    assert got[1].payload["check_suite"]["id"] == run.check_suite.id
    assert got[1].payload["check_suite"]["status"] == "queued"
