"""`/shelf purge` end to end: `memshelf-bot action` in a subprocess against the sandbox. A reader's
command on the shelf dashboard issue is refused; a writer's opens the pull request that removes
exactly the expired episode files (docs and archive), and the same command on a pull request
updates that pull request instead of opening a second."""

from __future__ import annotations

from typing import Any

import pytest

from memshelf_sandbox import webhooks
from tests import action_harness
from tests.action_harness import MAINTAINER_TOKEN, REPO, Harness, episode
from tests.e2e.test_flow_dashboard import UPS, dashboard, render
from tests.sandbox_fixtures import issue_comment_event, validated

pytestmark = pytest.mark.e2e

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

OLD = "docs/topics/2026-01-10-old-ups.md"
ARCHIVED = "archive/docs/topics/2025-02-01-older-ups.md"
READER_TOKEN = "ghp_" + "Read0nly" * 4 + "qrst"


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
