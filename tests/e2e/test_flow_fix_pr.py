"""`/shelf fix` end to end on the sandbox: a maintainer's command on an agent's pull request
commits the mechanical fixes as `memshelf-bot fix` (one fast-forward commit by the bot through
the Git Data API, no git push) and the new head's check is green."""

from __future__ import annotations

from bot.pulls import STATUS_CONTEXT
from tests import action_harness
from tests.action_harness import MAINTAINER_TOKEN, REPO, Harness, episode
from tests.sandbox_fixtures import issue_comment_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness
NAS = "docs/topics/2026-09-23-nas.md"
FIXABLE = episode("2026-09-23-nas", title="NAS move").replace("id: 2026-09-23-nas\n", "id: nas\n").replace(
    "tags: [homelab]\n", "tags: homelab\n")


def test_shelf_fix_commits_the_fixes_and_the_pull_request_turns_green(harness: Harness) -> None:
    number = harness.open_pr("shelve/nas", {NAS: FIXABLE})
    head = harness.sb.store.ref("refs/heads/shelve/nas") or ""
    comment = harness.sb.github(MAINTAINER_TOKEN).get_repo(REPO).get_issue(number).create_comment("/shelf fix")
    payload = issue_comment_event(harness.sb, number, "/shelf fix", user="octo-maintainer", comment_id=comment.id)
    mark = len(harness.sb.calls)
    result = harness.step("issue_comment", payload, harness.workspace(harness.sb.store.ref("refs/heads/main") or ""))

    assert result.exit_code == 0, result.stdout + result.stderr
    new = harness.sb.store.ref("refs/heads/shelve/nas") or ""
    fixed = harness.sb.store.commit(new)
    assert fixed.parents == (head,) and fixed.message.startswith("memshelf-bot fix\n")
    assert fixed.author.name == "github-actions[bot]"
    assert not any(c.path.endswith("/git-receive-pack") for c in harness.sb.calls[mark:])
    text = harness.show(new, NAS)
    assert "id: 2026-09-23-nas\n" in text and "tags: homelab\n" not in text
    [status] = [s for s in harness.sb.state.latest_statuses(new) if s.context == STATUS_CONTEXT]
    assert status.state == "success" and result.outputs["commit_sha"] == new
    with harness.sb.state.lock:
        [reply] = [c.body for c in harness.sb.state.comments.values() if c.issue_number == number
                   and c.user.login == "github-actions[bot]" and c.body.startswith("🚀")]
    assert reply.startswith("🚀 Fixed 1 episode(s) and pushed") and "`id-mismatch`" in reply
