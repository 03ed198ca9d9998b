"""Pushes that are not to main: agent branches are checked (validate only), others are left alone."""

from __future__ import annotations

from tests import action_harness
from tests.action_harness import Harness, episode
from tests.sandbox_fixtures import push_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness
ZERO = "0" * 40
BAD = "docs/topics/2026-09-23-nas.md"


def push(h: Harness, branch: str, files: dict[str, str], **inputs: str):
    main = h.sb.store.ref("refs/heads/main")
    after = h.branch(branch, files)
    payload = push_event(h.sb, f"refs/heads/{branch}", main or ZERO, after, pusher="night-shift-agent")
    return h.step("push", payload, h.workspace(after), **inputs)


def test_a_push_to_an_agent_branch_is_validated_and_nothing_is_written(harness: Harness) -> None:
    mark = len(harness.sb.calls)
    result = push(harness, "night-shift/2026-09-23", {
        "docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups"),
        BAD: episode("2026-09-23-nas").replace("id: 2026-09-23-nas", "id: nas"),
        "INDEX.md": "# hand-edited\n"})
    assert result.exit_code == 1
    assert {(a.file, a.title) for a in result.annotations} == {
        (BAD, "memshelf-bot: id-mismatch"), ("INDEX.md", "memshelf-bot: derived-path-touched")}
    assert "## memshelf-bot · push to night-shift/2026-09-23 (validate only)" in result.summary
    assert "this version opens no pull request for agent branches" in result.summary
    assert "| `docs/topics/2026-09-22-ups.md` (added) | ✅ valid | 0 | 0 |" in result.summary
    assert result.outputs["pr_number"] == "" and result.outputs["episodes"] == "2"
    writes = [(m, p) for m, p, _ in harness.api_calls(mark) if m != "GET"]
    assert writes == []  # no PR, no comment, no status: validate only
    assert any(p.endswith(f"/compare/main...{harness.sb.store.ref('refs/heads/night-shift/2026-09-23')}")
               for _, p, _ in harness.api_calls(mark))


def test_branch_patterns_come_from_the_input(harness: Harness) -> None:
    ignored = push(harness, "agents/one", {"docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")})
    assert ignored.exit_code == 0 and ignored.annotations[0].level == "notice"
    assert "does not act on a push to agents/one" in ignored.annotations[0].message
    checked = push(harness, "agents/two", {"docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")},
                   branch_patterns="agents/**\nbots/*")
    assert checked.exit_code == 0 and checked.outputs["verdict"] == "valid"
    assert "push to agents/two (validate only)" in checked.summary


def test_a_deleted_agent_branch_and_a_tag_are_nothing_to_do(harness: Harness) -> None:
    main = harness.sb.store.ref("refs/heads/main") or ""
    deleted = push_event(harness.sb, "refs/heads/shelve/gone", main, ZERO, pusher="night-shift-agent")
    result = harness.step("push", deleted, harness.workspace(main))
    assert result.exit_code == 0 and "was deleted; nothing to check" in result.stdout
    tag = push_event(harness.sb, "refs/tags/v1", ZERO, main, pusher="octo")
    tagged = harness.step("push", tag, harness.workspace(main))
    assert tagged.exit_code == 0 and "does not act on a push to refs/tags/v1 (not a branch)" in tagged.summary
