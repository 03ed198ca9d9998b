"""A merge queue's group end to end on the sandbox: the queue branch's head is checked like a pull
request's and the verdict lands on it, run as the real `python -m bot.cli action` (the e2e tier's
merge_group step on the real process; see tests/stepserver.py)."""

from __future__ import annotations

import pytest

from tests import action_harness
from tests.action_harness import Harness, episode
from tests.sandbox_fixtures import merge_group_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness

BAD = "docs/topics/2026-09-23-nas.md"
BAD_TEXT = episode("2026-09-23-nas").replace("id: 2026-09-23-nas", "id: nas")


@pytest.mark.real_step
def test_a_merge_groups_head_is_checked_and_its_status_set(harness: Harness) -> None:
    number = harness.open_pr("shelve/nas", {BAD: BAD_TEXT})
    base = harness.sb.store.ref("refs/heads/main") or ""
    ref, head = harness.sb.enqueue(number, by="octo")
    payload = merge_group_event(harness.sb, ref, base)
    result = harness.step("merge_group", payload, harness.workspace(head))
    assert result.exit_code == 1, result.stdout + result.stderr
    assert [a.title for a in result.by_level("error")] == ["memshelf-bot: id-mismatch"]
    assert result.outputs["verdict"] == "violations"
    statuses = list(harness.repo.get_commit(head).get_statuses())
    assert [(s.context, s.state) for s in statuses] == [("memshelf-bot/validate", "failure")]
