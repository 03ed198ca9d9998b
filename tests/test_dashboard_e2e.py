"""The shelf dashboard and `/shelf purge` end to end: `memshelf-bot action` in a subprocess against
the sandbox (every request and answer checked against GitHub's OpenAPI description). The dashboard
is created after a render, left alone by a render with nothing new (no edit call), edited for a new
open thread, closed by `dashboard: false`, and shows a hostile corpus escaped or masked; `/shelf
purge` by a writer on the dashboard issue opens the pull request that removes exactly the expired
episodes, and a reader's is refused."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.report.dashboard import LABEL, TITLE, last_render
from memshelf_sandbox import webhooks
from memshelf_sandbox.state import Issue
from tests import action_harness
from tests.action_harness import MAINTAINER_TOKEN, REPO, Harness, episode
from tests.sandbox_fixtures import issue_comment_event, validated, workflow_dispatch_event

pytestmark = pytest.mark.e2e

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

UPS = "docs/topics/2026-09-22-ups-runtime.md"
EVIL = "docs/sessions/2026-10-01-evil-night.md"
OLD = "docs/topics/2026-01-10-old-ups.md"
ARCHIVED = "archive/docs/topics/2025-02-01-older-ups.md"
READER_TOKEN = "ghp_" + "Read0nly" * 4 + "qrst"
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
HOSTILE_THREADS = (
    "- <img src=x onerror=alert(1)> and <script>alert(1)</script>\n"
    "- <!-- everything after this is hidden\n"
    "- ping @octocat and @octo-org/admins\n"
    "- see #1 and octo/shelf#2 and GH-3\n"
    "- [click](javascript:alert(1)) and <javascript:alert(2)>\n"
    f"- the token {GHP}\n"
    "- reach backup01.corp.example.com for the keys\n"
)


def render(h: Harness, files: dict[str, str] | None = None, branch: str = "shelve/x") -> Any:
    """Merge `files` (when given) and run the push's render step; the step's result."""
    if files:
        before, after = h.merge(h.open_pr(branch, files))
        result = h.push_step(before, after)
    else:  # nothing new: a dispatched render of main as it is
        main = h.sb.store.ref("refs/heads/main") or ""
        result = h.step("workflow_dispatch", workflow_dispatch_event(h.sb, inputs={"mode": "render"}),
                        h.workspace(main), mode="render")
    assert result.exit_code in (0, 1), result.stdout + result.stderr
    return result


def dashboard(h: Harness) -> Issue:
    [issue] = [i for i in h.sb.state.issues.values() if i.title == TITLE]
    return issue


def issue_writes(h: Harness, since: int) -> list[tuple[str, str]]:
    return [(m, p) for m, p, _ in h.api_calls(since) if m != "GET" and "/issues" in p and "/comments" not in p]


def test_the_dashboard_is_created_kept_edited_and_closed(harness: Harness) -> None:
    h = harness
    result = render(h, {UPS: episode("2026-09-22-ups-runtime")})
    main = h.sb.store.ref("refs/heads/main")
    issue = dashboard(h)
    assert (issue.state, [label.name for label in issue.labels], issue.user.login) == (
        "open", [LABEL.name], "github-actions[bot]")
    body = issue.body or ""
    assert last_render(body) == main == result.outputs["commit_sha"]
    assert f"[UPS runtime]({h.sb.api_url}/octo/shelf/blob/main/{UPS})" in body
    assert "NUT client on the backup host." in body and "Rail kit delivery." in body
    assert f"Shelf dashboard: memshelf-bot opened the Shelf dashboard issue #{issue.number}." in result.summary

    mark = len(h.sb.calls)
    render(h)  # nothing new
    assert issue_writes(h, mark) == []
    assert dashboard(h).body == body

    mark = len(h.sb.calls)
    render(h, {UPS: episode("2026-09-22-ups-runtime", body="- Order a spare UPS battery.\n")}, "shelve/y")
    assert issue_writes(h, mark) == [("PATCH", f"/repos/{REPO}/issues/{issue.number}")]
    assert "Order a spare UPS battery." in (dashboard(h).body or "")

    render(h, {".memshelf-bot.yml": "dashboard: false\n"}, "shelve/off")
    closed = dashboard(h)
    assert closed.number == issue.number and closed.state == "closed" and closed.closed_at


def test_a_hostile_corpus_of_open_threads_is_escaped_or_masked(harness: Harness) -> None:
    h = harness
    evil = episode("2026-10-01-evil-night", kind="session", title="@octocat <b>night</b> #4",
                   body=HOSTILE_THREADS).replace("docs/topics", "docs/sessions")
    render(h, {EVIL: evil})
    body = dashboard(h).body or ""
    threads = body[body.index("## Open threads"):body.index("## Past")]
    assert GHP not in body and "«redacted:" in threads
    assert "backup01.corp.example.com" not in body and "«redacted:internal-host»" in threads
    visible = body.replace("<sub>", "").replace("</sub>", "")
    assert [m.start() for m in re.finditer(r"(?<!\\)<", visible)] == [0]  # only the bot's own marker comment
    assert "\\<!-- everything after this is hidden" in threads
    assert not re.search(r"@[A-Za-z0-9]", body)  # every mention broken by a zero-width joiner
    assert not re.search(r"#[0-9]", threads) and not re.search(r"GH-[0-9]", threads)
    assert not re.search(r"(?<!\\)\]\((?!" + re.escape(h.sb.api_url) + ")", body)  # no link but the episodes'
    assert "\\[click\\](javascript:alert(1))" in threads


def comment_on_issue(h: Harness, number: int, body: str, token: str, login: str) -> dict[str, Any]:
    created = h.sb.github(token).get_repo(REPO).get_issue(number).create_comment(body)
    comment = h.sb.state.comments[created.id]
    return validated("issue_comment.created", webhooks.issue_comment(h.sb.repo, comment, comment.user))


def test_purge_by_a_writer_on_the_dashboard_and_a_reader_refused(harness: Harness) -> None:
    h = harness
    h.sb.add_token(READER_TOKEN, "curious-reader", permission="read", integration=False)
    render(h, {OLD: episode("2026-01-10-old-ups", title="Old UPS", extra="retain_until: 2026-06-30\n"),
               ARCHIVED: episode("2025-02-01-older-ups", title="Older UPS", extra="retain_until: 2025-12-31\n"),
               UPS: episode("2026-09-22-ups-runtime", extra="retain_until: 2999-12-31\n")})
    issue = dashboard(h)
    assert "## Past `retain_until` (2 episodes)" in (issue.body or "")
    main = h.sb.store.ref("refs/heads/main") or ""

    refused = h.step("issue_comment", comment_on_issue(h, issue.number, "/shelf purge", READER_TOKEN,
                                                       "curious-reader"), h.workspace(main))
    assert refused.exit_code == 0, refused.stdout + refused.stderr
    replies = [c.body for c in h.sb.state.comments.values() if c.issue_number == issue.number
               and c.user.login == "github-actions[bot]"]
    assert replies == ["😕 `/shelf purge` changes branches, so it needs write access to the repository; "
                       "curious-reader has `read`. Nothing was changed."]
    assert not [p for p in h.sb.state.pulls.values() if p.head_ref == "memshelf-bot/purge"]

    asked = h.step("issue_comment", comment_on_issue(h, issue.number, "/shelf purge", MAINTAINER_TOKEN,
                                                     "octo-maintainer"), h.workspace(main))
    assert asked.exit_code == 0, asked.stdout + asked.stderr
    [pull] = [p for p in h.sb.state.pulls.values() if p.head_ref == "memshelf-bot/purge"]
    head = h.sb.store.ref("refs/heads/memshelf-bot/purge") or ""
    changes = sorted((c.status, c.filename) for c in h.sb.store.diff(main, head))
    assert changes == [("removed", ARCHIVED), ("removed", OLD)]
    assert pull.title == "memshelf-bot: purge 2 episodes past retain_until" and pull.merged_at is None
    assert "| `2026-01-10-old-ups` | Old UPS | `2026-06-30` |" in (pull.body or "")
    assert asked.outputs["pr_number"] == str(pull.number)
    reply = [c.body for c in h.sb.state.comments.values() if c.issue_number == issue.number][-1]
    assert reply.startswith(f"🚀 Opened pull request #{pull.number}: it removes 2 episodes past `retain_until`")

    # on a pull request too, and again: the same pull request, updated
    number = h.open_pr("shelve/z", {"docs/topics/2026-09-30-z.md": episode("2026-09-30-z")})
    comment = h.sb.github(MAINTAINER_TOKEN).get_repo(REPO).get_issue(number).create_comment("/shelf purge")
    again = h.step("issue_comment", issue_comment_event(h.sb, number, "/shelf purge", "octo-maintainer",
                                                        comment_id=comment.id), h.workspace(main))
    assert again.exit_code == 0, again.stdout + again.stderr
    assert [p.number for p in h.sb.state.pulls.values() if p.head_ref == "memshelf-bot/purge"] == [pull.number]
    assert [c.body for c in h.sb.state.comments.values() if c.issue_number == number][-1].startswith(
        f"🚀 Updated pull request #{pull.number}")
