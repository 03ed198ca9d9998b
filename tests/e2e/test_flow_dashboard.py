"""The shelf dashboard end to end: `memshelf-bot action` in a subprocess against the sandbox (every
request and answer checked against GitHub's OpenAPI description). The dashboard is created after a
render, left alone by a render with nothing new (no edit call), edited for a new open thread,
closed by `dashboard: false`, and shows a hostile corpus escaped or masked."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.report.dashboard import LABEL, TITLE, last_render
from memshelf_sandbox.state import Issue
from tests import action_harness
from tests.action_harness import REPO, Harness, episode
from tests.sandbox_fixtures import workflow_dispatch_event

pytestmark = pytest.mark.e2e

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

UPS = "docs/topics/2026-09-22-ups-runtime.md"
EVIL = "docs/sessions/2026-10-01-evil-night.md"
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
