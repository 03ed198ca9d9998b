"""Injected faults answer as GitHub does, for as long as asked, and then the sandbox recovers."""

from __future__ import annotations

import json
import threading

import pytest
from github import GithubException, RateLimitExceededException, UnknownObjectException

from memshelf_sandbox import Sandbox
from tests import sandbox_fixtures
from tests.sandbox_fixtures import branch_with, raw_request

bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox


def fast_forward_target(sb: Sandbox) -> str:
    return branch_with(sb, "next", {"INDEX.md": "derived\n"})


def test_non_fast_forward_once_then_the_retry_lands(sandbox: Sandbox) -> None:
    target = fast_forward_target(sandbox)
    main = sandbox.github().get_repo("octo/shelf").get_git_ref("heads/main")
    sandbox.faults.non_fast_forward("main")
    with pytest.raises(GithubException) as lost:
        main.edit(target, force=False)
    assert lost.value.status == 422
    assert lost.value.data == {"message": "Update is not a fast forward", "status": "422",
                               "documentation_url": "https://docs.github.com/rest/git/refs#update-a-reference"}
    assert sandbox.store.ref("refs/heads/main") != target
    main.edit(target, force=False)
    assert sandbox.store.ref("refs/heads/main") == target
    assert [c.status for c in sandbox.calls_to("PATCH", "/git/refs/heads/main")] == [422, 200]


def test_protected_branch_refuses_until_cleared(sandbox: Sandbox) -> None:
    target = fast_forward_target(sandbox)
    main = sandbox.github().get_repo("octo/shelf").get_git_ref("heads/main")
    sandbox.faults.protected_branch("main")
    for _ in range(2):
        with pytest.raises(GithubException) as refused:
            main.edit(target)
        assert (refused.value.status, refused.value.data["message"]) == (
            422, "Protected branch update failed for refs/heads/main.")
    sandbox.github().get_repo("octo/shelf").create_git_ref("refs/heads/render", target)  # other refs are fine
    sandbox.faults.clear()
    main.edit(target)
    assert sandbox.store.ref("refs/heads/main") == target


def test_forbidden_integration_on_comments(sandbox: Sandbox) -> None:
    branch_with(sandbox, "shelve/x", {"docs/x.md": "x\n"})
    pr = sandbox.github().get_repo("octo/shelf").create_pull(title="x", body="", head="shelve/x", base="main")
    sandbox.faults.forbidden_integration("POST", r"/repos/octo/shelf/issues/\d+/comments")
    with pytest.raises(GithubException) as refused:
        pr.create_issue_comment("sticky")
    assert refused.value.status == 403
    assert refused.value.data["message"] == "Resource not accessible by integration"
    assert refused.value.data["documentation_url"] == "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
    assert list(pr.get_issue_comments()) == []
    pr.create_issue_comment("sticky")
    assert [c.body for c in pr.get_issue_comments()] == ["sticky"]


@pytest.mark.parametrize("status", [403, 429])
def test_secondary_rate_limit_with_retry_after(sandbox: Sandbox, status: int) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    sandbox.faults.rate_limited(retry_after=7, status=status, method="GET", path_regex=r".*/pulls")
    with pytest.raises(GithubException) as limited:
        list(repo.get_pulls())
    assert limited.value.status == status
    assert limited.value.headers["retry-after"] == "7"
    assert limited.value.data["message"].startswith("You have exceeded a secondary rate limit.")
    if status == 403:  # PyGithub recognises GitHub's wording and raises its rate-limit exception
        assert isinstance(limited.value, RateLimitExceededException)
    assert list(repo.get_pulls()) == []


def test_server_error_then_recovery(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    sandbox.faults.server_error(502, path_regex=r"/repos/octo/shelf/commits/.*")
    with pytest.raises(GithubException) as failed:
        repo.get_commit("main")
    assert (failed.value.status, failed.value.data["message"]) == (502, "Server Error")
    assert repo.get_commit("main").sha == sandbox.store.ref("refs/heads/main")
    with pytest.raises(ValueError):
        sandbox.faults.server_error(418)


def test_deleted_comment_answers_404(sandbox: Sandbox) -> None:
    branch_with(sandbox, "shelve/d", {"docs/d.md": "d\n"})
    repo = sandbox.github().get_repo("octo/shelf")
    pr = repo.create_pull(title="d", body="", head="shelve/d", base="main")
    sticky = pr.create_issue_comment("<!-- memshelf-bot -->")
    sandbox.faults.delete_comment(sticky.id)
    with pytest.raises(UnknownObjectException):
        sticky.edit("<!-- memshelf-bot --> updated")
    with pytest.raises(UnknownObjectException):
        repo.get_issue(pr.number).get_comment(sticky.id)
    assert list(pr.get_issue_comments()) == []
    with pytest.raises(KeyError):
        sandbox.faults.delete_comment(sticky.id)


def test_custom_fault_counts_its_uses(sandbox: Sandbox) -> None:
    repo = sandbox.github().get_repo("octo/shelf")
    fault = sandbox.faults.add("GET", r"/repos/octo/shelf/branches/main", 404,
                               {"message": "Branch not found"}, headers={"X-Custom": "1"}, times=2)
    for _ in range(2):
        with pytest.raises(GithubException) as missing:
            repo.get_branch("main")
        assert missing.value.headers["x-custom"] == "1"
    assert fault.hits == 2 and sandbox.faults.pending == []
    assert repo.get_branch("main").name == "main"


def test_a_delay_holds_a_request_then_lets_it_through_to_the_real_answer(sandbox: Sandbox) -> None:
    control = json.dumps({"method": "GET", "path": r"/repos/octo/shelf/git/ref/heads/main", "seconds": 60}).encode()
    assert raw_request(sandbox, "POST", "/_sandbox/delay", control)[0] == 201
    assert raw_request(sandbox, "POST", "/_sandbox/delay", b'{"path": "x", "seconds": 1, "times": "2"}')[0] == 422
    [held] = sandbox.faults.holding
    answers: list[int] = []
    asking = threading.Thread(target=lambda: answers.append(raw_request(sandbox, "GET",
                                                                        "/repos/octo/shelf/git/ref/heads/main")[0]))
    asking.start()
    assert held.reached.wait(30) and answers == [] and sandbox.faults.holding == []  # held, its one use taken
    held.release()
    asking.join(30)
    assert answers == [200]
