"""The port's contract through the PyGithub adapter, against the sandbox (which fails the test at
teardown on any request or answer outside GitHub's OpenAPI description): every operation the
flows use, what it returns, and how each refusal arrives as a typed reason or outcome."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from bot.adapters.pygithub import PyGithubPort
from bot.port import (
    ACTIONS_BOT,
    ANNOTATIONS_PER_REQUEST,
    Annotation,
    AnnotationLevel,
    AutoMergeAnswer,
    CheckOutput,
    CheckStatus,
    CommitStatus,
    Conclusion,
    EntryType,
    FileMode,
    FilesCommit,
    FileStatus,
    GitHubPort,
    Label,
    MergeMethod,
    Permission,
    PortError,
    PostedReviewComment,
    PullEdit,
    PullState,
    Reaction,
    Reason,
    RefUpdate,
    ReviewComment,
    StatusState,
)
from memshelf_sandbox import Sandbox
from tests import sandbox_fixtures
from tests.sandbox_fixtures import WHO, branch_with

bare_repo, sandbox = sandbox_fixtures.bare_repo, sandbox_fixtures.sandbox
TOKEN = "ghs_" + "P0rtC0ntract" * 3
READER = "ghp_" + "Reader" * 6
FIRST = "docs/topics/2026-01-05-first.md"


@pytest.fixture
def port(sandbox: Sandbox) -> Iterator[PyGithubPort]:
    sandbox.add_token(TOKEN, ACTIONS_BOT)
    sandbox.add_token(READER, "a-reader", permission="read", integration=False)
    yield PyGithubPort(TOKEN, sandbox.api_url, "octo/shelf", write_spacing=0, sleep=lambda s: None)


def test_the_adapter_is_a_port(port: PyGithubPort) -> None:
    assert isinstance(port, GitHubPort)


def test_identity_default_branch_refs_trees_and_files(port: PyGithubPort, sandbox: Sandbox) -> None:
    assert port.identity().login == ACTIONS_BOT  # GITHUB_TOKEN may not read /user
    assert port.read_only is False
    assert port.default_branch() == "main"
    main = port.branch_sha("main")
    assert main == sandbox.store.ref("refs/heads/main")
    with pytest.raises(PortError) as missing:
        port.branch_sha("no/such-branch")
    assert missing.value.reason is Reason.NOT_FOUND
    root = port.tree(main)
    assert root is not None and {(e.path, e.type) for e in root} >= {("README.md", EntryType.BLOB),
                                                                   ("docs", EntryType.TREE)}
    deep = port.tree(main, "docs", recursive=True)
    assert deep is not None and "topics/2026-01-05-first.md" in {e.path for e in deep}
    assert port.tree(main, "nowhere") is None
    assert port.file_at(main, FIRST) == sandbox_fixtures.EPISODE.encode()
    assert port.file_at(main, "docs/none.md") is None


def test_commits_move_branches_fast_forward_only_with_typed_refusals(port: PyGithubPort, sandbox: Sandbox) -> None:
    main = port.branch_sha("main")
    sha = port.create_commit(FilesCommit(main, "render [skip ci]", {"INDEX.md": b"# index\n", "bin.dat": b"\xff\x00",
                                                                     "README.md": None}))
    info = sandbox.store.commit(sha)
    assert tuple(info.parents) == (main,) and info.author.name == ACTIONS_BOT  # no explicit author: the token's identity
    assert port.file_at(sha, "bin.dat") == b"\xff\x00" and port.file_at(sha, "README.md") is None
    stale = port.create_commit(FilesCommit(main, "other", {"x.md": b"x\n"}))
    assert port.move_branch("main", sha) is RefUpdate.MOVED and port.branch_sha("main") == sha
    assert port.move_branch("main", stale) is RefUpdate.NON_FAST_FORWARD
    sandbox.faults.protected_branch("main", times=1)
    assert port.move_branch("main", port.create_commit(FilesCommit(sha, "again", {"y.md": b"y\n"}))) \
        is RefUpdate.PROTECTED
    port.create_branch("memshelf-bot/render", stale)
    port.reset_bot_branch("memshelf-bot/render", sha)  # the bot's own branch: forced
    assert port.branch_sha("memshelf-bot/render") == sha
    port.delete_branch("memshelf-bot/render")
    with pytest.raises(PortError):
        port.branch_sha("memshelf-bot/render")


def test_a_merge_commit_has_both_parents_and_modes_and_passes_a_signed_commits_ruleset(
        port: PyGithubPort, sandbox: Sandbox) -> None:
    head = branch_with(sandbox, "night-shift/m", {"docs/topics/2026-01-06-second.md": "# two\n"})
    base = port.create_commit(FilesCommit(port.branch_sha("main"), "main moves", {"docs/topics/2026-01-07-third.md":
                                                                                  b"# three\n"}))
    assert port.move_branch("main", base) is RefUpdate.MOVED
    sandbox.require_signed_commits("night-shift/m")
    merge = port.create_commit(FilesCommit(
        head, "Merge main into night-shift/m", {"docs/topics/2026-01-07-third.md": b"# three\n",
                                                "tools/run.sh": b"#!/bin/sh\n", "latest": b"docs/topics",
                                                "README.md": None},
        modes={"tools/run.sh": FileMode.EXECUTABLE, "latest": FileMode.SYMLINK}, merged=(base,)))
    info = sandbox.store.commit(merge)
    assert tuple(info.parents) == (head, base) and info.author.name == ACTIONS_BOT
    modes = {e.path: e.mode for e in port.tree(merge) or ()}
    assert modes["latest"] == "120000" and "README.md" not in modes
    assert {e.path: e.mode for e in port.tree(merge, "tools") or ()} == {"run.sh": "100755"}
    assert port.file_at(merge, "latest") == b"docs/topics"
    assert port.move_branch("night-shift/m", merge) is RefUpdate.MOVED  # GitHub made it: signed, so accepted
    assert sandbox.github(TOKEN).get_repo("octo/shelf").get_commit(merge).commit.verification.verified
    unsigned = sandbox.store.write_commit(info.tree, [merge], "made elsewhere\n", WHO, WHO)
    assert port.move_branch("night-shift/m", unsigned) is RefUpdate.RULESET  # GH013
    assert port.branch_sha("night-shift/m") == merge


def test_pull_requests_files_compare_and_edits(port: PyGithubPort, sandbox: Sandbox) -> None:
    head = branch_with(sandbox, "night-shift/a", {"docs/topics/2026-01-06-second.md": "# two\n",
                                                  "README.md": "# changed\n"})
    pull = port.open_pull(title="Shelve", body="body", head="night-shift/a", base="main")
    assert (pull.state, pull.head_ref, pull.head_sha, pull.base_ref) == (PullState.OPEN, "night-shift/a", head, "main")
    assert not pull.is_fork_of("octo/shelf") and pull.node_id
    with pytest.raises(PortError) as twice:
        port.open_pull(title="again", body="", head="night-shift/a", base="main")
    assert twice.value.reason is Reason.ALREADY_EXISTS
    assert [p.number for p in port.open_pulls("night-shift/a")] == [pull.number]
    assert port.open_pulls("night-shift/a", base="other") == ()
    files = port.pull_files(pull.number)
    assert files.total == 2 and files.unlisted == 0
    assert {(f.status, f.path) for f in files.files} == {(FileStatus.ADDED, "docs/topics/2026-01-06-second.md"),
                                                        (FileStatus.MODIFIED, "README.md")}
    assert "\n+# changed" in next(f.patch for f in files.files if f.path == "README.md")  # the hunks review comments need
    comparison = port.compare("main", head)
    assert comparison.ahead_by == 1 and comparison.behind_by == 0 and len(comparison.files) == 2
    assert comparison.base_sha == port.branch_sha("main") and comparison.commits[0].sha == head
    port.update_pull(pull.number, PullEdit(title="Renamed", body="new"))
    again = port.pull(pull.number)
    assert (again.title, again.body) == ("Renamed", "new")
    port.update_pull(pull.number, PullEdit(state=PullState.CLOSED))
    assert port.pull(pull.number).state is PullState.CLOSED
    with pytest.raises(PortError) as gone:
        port.pull(999)
    assert gone.value.reason is Reason.NOT_FOUND


def test_comments_with_authors_reactions_permissions_and_labels(port: PyGithubPort, sandbox: Sandbox) -> None:
    branch_with(sandbox, "night-shift/b", {"docs/topics/2026-01-07-third.md": "# three\n"})
    pull = port.open_pull(title="t", body="", head="night-shift/b", base="main")
    reader = sandbox.github(READER).get_repo("octo/shelf").get_issue(pull.number).create_comment("<!-- marker -->")
    mine = port.create_comment(pull.number, "<!-- marker --> the bot's")
    listed = port.comments(pull.number)
    assert [(c.id, c.author) for c in listed] == [(reader.id, "a-reader"), (mine.id, ACTIONS_BOT)]
    assert port.identity().wrote(listed[1]) and not port.identity().wrote(listed[0])
    port.edit_comment(mine.id, "edited")
    assert port.comments(pull.number)[1].body == "edited"
    port.react(reader.id, Reaction.SEEN)
    port.delete_comment(mine.id)
    with pytest.raises(PortError) as deleted:
        port.edit_comment(mine.id, "again")
    assert deleted.value.reason is Reason.NOT_FOUND
    assert port.permission("octo") is Permission.ADMIN
    assert port.permission("a-reader") is Permission.READ
    assert port.permission("nobody-at-all") is Permission.READ  # a public repository: anyone reads
    label = Label("shelf:episode", "5319e7", "Episodes")
    port.ensure_label(label)
    port.ensure_label(label)  # there already
    port.add_labels(pull.number, [label.name])
    assert port.pull(pull.number).labels == ("shelf:episode",)
    port.remove_label(pull.number, label.name)
    port.remove_label(pull.number, label.name)  # removed meanwhile: nothing to do
    assert port.pull(pull.number).labels == ()


def test_statuses_and_check_runs_with_annotations_in_batches(port: PyGithubPort, sandbox: Sandbox) -> None:
    main = port.branch_sha("main")
    port.set_status(main, CommitStatus(StatusState.FAILURE, "memshelf-bot/validate", "x" * 300, "https://e/1"))
    [status] = sandbox.state.latest_statuses(main)
    assert (status.state, status.context, len(status.description)) == ("failure", "memshelf-bot/validate", 140)
    run = port.create_check_run("memshelf-bot", main, CheckStatus.IN_PROGRESS)
    assert run.status is CheckStatus.IN_PROGRESS
    notes = tuple(Annotation(FIRST, i, i, AnnotationLevel.WARNING, f"m{i}") for i in range(1, 121))
    before = len(sandbox.calls)
    done = port.update_check_run(run.id, CheckStatus.COMPLETED, Conclusion.FAILURE,
                                 CheckOutput("title", "s" * 70_000, annotations=notes))
    patches = [c for c in sandbox.calls[before:] if c.method == "PATCH" and "/check-runs/" in c.path]
    assert len(patches) == -(-len(notes) // ANNOTATIONS_PER_REQUEST) == 3
    assert (done.status, done.conclusion) == (CheckStatus.COMPLETED, Conclusion.FAILURE)
    [stored] = sandbox.state.check_runs_for(main)
    assert len(stored.output["summary"]) <= 65535


def test_check_runs_carry_an_external_id_and_are_listed_every_one_by_name(port: PyGithubPort) -> None:
    main = port.branch_sha("main")
    first = port.create_check_run("memshelf-bot", main, CheckStatus.IN_PROGRESS, external_id="d-1:1")
    second = port.create_check_run("memshelf-bot", main, CheckStatus.COMPLETED, CheckOutput("t", "s"),
                                   Conclusion.SUCCESS, external_id="d-2:1")
    port.create_check_run("other", main, CheckStatus.IN_PROGRESS)
    listed = port.check_runs(main, "memshelf-bot")  # not only the latest: a re-run looks for its own
    assert [(r.id, r.external_id) for r in listed] == [(second.id, "d-2:1"), (first.id, "d-1:1")]
    assert first.external_id == "d-1:1" and port.check_runs(main, "absent") == ()


def test_auto_merge_and_merge(port: PyGithubPort, sandbox: Sandbox) -> None:
    head = branch_with(sandbox, "night-shift/c", {"docs/topics/2026-01-08-fourth.md": "# four\n"})
    pull = port.open_pull(title="t", body="", head="night-shift/c", base="main")
    answer = port.enable_auto_merge(pull, head, MergeMethod.SQUASH)
    assert answer.answer is AutoMergeAnswer.NOT_ALLOWED and answer.detail  # the sandbox repo does not allow it
    sandbox.state.repo.allow_auto_merge = True
    assert port.enable_auto_merge(pull, head, MergeMethod.SQUASH).answer is AutoMergeAnswer.CLEAN
    merged = port.merge(pull.number, head, MergeMethod.SQUASH)
    assert port.branch_sha("main") == merged and port.pull(pull.number).merged


def test_a_read_only_token_is_a_typed_refusal_that_marks_the_port(port: PyGithubPort, sandbox: Sandbox) -> None:
    main = port.branch_sha("main")
    sandbox.faults.forbidden_integration("POST", r".*/statuses/.*")
    with pytest.raises(PortError) as refused:
        port.set_status(main, CommitStatus(StatusState.SUCCESS, "c", "d"))
    assert refused.value.reason is Reason.READ_ONLY and port.read_only
    calls = len(sandbox.calls)
    with pytest.raises(PortError):
        port.create_comment(1, "x")  # known read-only: refused without a request
    assert len(sandbox.calls) == calls


def test_a_check_run_refusal_does_not_make_the_whole_port_read_only(port: PyGithubPort, sandbox: Sandbox) -> None:
    sandbox.faults.forbidden_integration("POST", r".*/check-runs")
    with pytest.raises(PortError):
        port.create_check_run("memshelf-bot", port.branch_sha("main"), CheckStatus.IN_PROGRESS)
    assert port.read_only is False


def test_a_review_puts_each_suggestion_on_its_line_of_the_diff(port: PyGithubPort, sandbox: Sandbox) -> None:
    fifth = "docs/topics/2026-01-09-fifth.md"
    head = branch_with(sandbox, "night-shift/d", {fifth: "# five\nid: wrong\n"})
    pull = port.open_pull(title="t", body="", head="night-shift/d", base="main")
    port.review(pull.number, head, [ReviewComment(fifth, 2, "```suggestion\nid: 2026-01-09-fifth\n```"),
                                    ReviewComment(fifth, 1, "second")])
    github = sandbox.github(READER).get_repo("octo/shelf").get_pull(pull.number)
    [review] = github.get_reviews()
    assert (review.state, review.commit_id, review.user.login) == ("COMMENTED", head, ACTIONS_BOT)
    comments = sorted(github.get_review_comments(), key=lambda c: c.id)
    assert [(c.path, c.line, c.side, c.commit_id, c.pull_request_review_id) for c in comments] == [
        (fifth, 2, "RIGHT", head, review.id), (fifth, 1, "RIGHT", head, review.id)]
    assert comments[0].body.startswith("```suggestion\n") and comments[0].diff_hunk.endswith("+id: wrong")
    assert port.review_comments(pull.number) == (
        PostedReviewComment(ReviewComment(fifth, 2, "```suggestion\nid: 2026-01-09-fifth\n```"), ACTIONS_BOT),
        PostedReviewComment(ReviewComment(fifth, 1, "second"), ACTIONS_BOT))
    with pytest.raises(PortError) as off_diff:  # a line the diff does not show: GitHub refuses the whole review
        port.review(pull.number, head, [ReviewComment(fifth, 1, "ok"), ReviewComment("README.md", 1, "not changed")])
    assert off_diff.value.reason is Reason.INVALID and len(list(github.get_reviews())) == 1
    reader = PyGithubPort(READER, sandbox.api_url, "octo/shelf", write_spacing=0, sleep=lambda s: None)
    with pytest.raises(PortError) as read_only:
        reader.review(pull.number, head, [ReviewComment(fifth, 1, "x")])
    assert read_only.value.reason in (Reason.READ_ONLY, Reason.FORBIDDEN)
