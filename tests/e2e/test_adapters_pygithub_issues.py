"""The port's issue operations (the shelf dashboard) through the PyGithub adapter, against the
sandbox, which fails the test at teardown on any request or answer outside GitHub's OpenAPI
description: labeled issues by creator (pull requests left out), open, edit, close, reopen, and
the typed refusals."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.adapters.pygithub import PyGithubPort
from bot.port import ACTIONS_BOT, IssueEdit, IssueState, Label, PortError, Reason
from memshelf_sandbox import Sandbox
from tests import sandbox_fixtures
from tests.sandbox_fixtures import branch_with

bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox
TOKEN = "ghs_" + "Is5ueContract" * 3
READER = "ghp_" + "Reader" * 6
LABEL = Label("shelf:dashboard", "5319e7", "the dashboard")


@pytest.fixture
def port(sandbox: Sandbox) -> Iterator[PyGithubPort]:
    sandbox.add_token(TOKEN, ACTIONS_BOT)
    sandbox.add_token(READER, "a-reader", permission="read", integration=False)
    yield PyGithubPort(TOKEN, sandbox.api_url, "octo/shelf", write_spacing=0, sleep=lambda s: None)


def test_issues_are_opened_listed_by_label_and_creator_edited_closed_and_reopened(
        port: PyGithubPort, sandbox: Sandbox) -> None:
    port.ensure_label(LABEL)
    # a pull request with the label and a reader's issue with the label: neither is the bot's dashboard
    branch_with(sandbox, "night-shift/a", {"docs/topics/2026-01-07-third.md": "# three\n"})
    pull = port.open_pull(title="t", body="", head="night-shift/a", base="main")
    port.add_labels(pull.number, [LABEL.name])
    theirs = sandbox.github(READER).get_repo("octo/shelf").create_issue("Shelf dashboard", "mine", labels=[LABEL.name])
    [only] = port.labeled_issues(LABEL.name)  # the pull request is left out
    assert (only.number, only.author, only.body) == (theirs.number, "a-reader", "mine")
    assert port.labeled_issues(LABEL.name, ACTIONS_BOT) == ()

    issue = port.create_issue("Shelf dashboard", "body <b>", [LABEL.name])
    assert issue.number > theirs.number and issue.author == ACTIONS_BOT and issue.labels == (LABEL.name,)
    assert issue.state is IssueState.OPEN and issue.body == "body <b>"
    assert [i.number for i in port.labeled_issues(LABEL.name)] == [theirs.number, issue.number]
    assert port.labeled_issues(LABEL.name, ACTIONS_BOT) == (issue,)
    assert port.labeled_issues("no-such-label", ACTIONS_BOT) == ()

    port.update_issue(issue.number, IssueEdit(body="new body"))
    port.update_issue(issue.number, IssueEdit(state=IssueState.CLOSED))
    [closed] = port.labeled_issues(LABEL.name, ACTIONS_BOT)  # closed ones are listed too
    assert (closed.state, closed.body, closed.title) == (IssueState.CLOSED, "new body", "Shelf dashboard")
    assert sandbox.state.issues[issue.number].closed_at is not None
    port.update_issue(issue.number, IssueEdit(title="Shelf dashboard", state=IssueState.OPEN))
    [reopened] = port.labeled_issues(LABEL.name, ACTIONS_BOT)
    assert reopened.state is IssueState.OPEN and sandbox.state.issues[issue.number].state_reason == "reopened"
    # an issue is a conversation like a pull request's
    port.create_comment(issue.number, "a comment")
    assert [c.body for c in port.comments(issue.number)] == ["a comment"]


def test_many_labeled_issues_are_read_over_pages(port: PyGithubPort, sandbox: Sandbox) -> None:
    port.ensure_label(LABEL)
    for n in range(105):
        port.create_issue(f"dashboard {n}", "", [LABEL.name])
    listed = port.labeled_issues(LABEL.name, ACTIONS_BOT)
    assert len(listed) == 105 and [i.title for i in listed[:2]] == ["dashboard 0", "dashboard 1"]
    pages = [c for c in sandbox.calls if c.method == "GET" and c.path.endswith("/issues")]
    assert len(pages) == 2


def test_an_issue_write_without_the_permission_is_a_typed_refusal(port: PyGithubPort, sandbox: Sandbox) -> None:
    sandbox.faults.forbidden_integration("POST", r".*/repos/octo/shelf/issues$")
    with pytest.raises(PortError) as refused:
        port.create_issue("Shelf dashboard", "", [LABEL.name])
    assert refused.value.reason is Reason.READ_ONLY and port.read_only
    with pytest.raises(PortError) as missing:
        PyGithubPort(TOKEN, sandbox.api_url, "octo/shelf", write_spacing=0).update_issue(999, IssueEdit(body="x"))
    assert missing.value.reason is Reason.NOT_FOUND
