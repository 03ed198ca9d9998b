"""End to end on the sandbox: an agent branch shaped by the reference tool (a new episode, then
memshelf-mcp's own `memshelf rebuild`, as `memshelf shelve --publish` leaves a branch: derived
files regenerated) is pushed; the bot restores the derived files with exactly one commit of its
own and the pull request it opens is green."""

from __future__ import annotations

from bot.pulls import STATUS_CONTEXT
from memshelf_render.derived import is_derived
from memshelf_render.shelf import load_shelf
from tests import action_harness, refs
from tests.action_harness import Harness, episode, git
from tests.sandbox_fixtures import push_event

shelf_sandbox, harness = action_harness.shelf_sandbox, action_harness.harness
UPS = "docs/topics/2026-09-22-ups.md"


def test_a_shelve_publish_shaped_branch_becomes_a_green_pull_request_with_one_bot_commit(harness: Harness) -> None:
    main = harness.sb.store.ref("refs/heads/main") or ""
    work = harness.workspace(main)
    (work / UPS).write_text(episode("2026-09-22-ups", title="UPS runtime test"), encoding="utf-8")
    rebuilt = refs.memshelf_rebuild(work)
    assert rebuilt["exit"] == 0, rebuilt
    git("add", "-A", cwd=work, home=harness.home)
    git("commit", "--quiet", "-m", "shelve 2026-09-22-ups (memshelf shelve --publish)", cwd=work, home=harness.home)
    git("push", "--quiet", "origin", "HEAD:refs/heads/shelve/ups", cwd=work, home=harness.home)
    pushed = git("rev-parse", "HEAD", cwd=work, home=harness.home)
    changed = git("diff", "--name-only", main, pushed, cwd=work, home=harness.home).split()
    shelf, _ = load_shelf(work)
    assert shelf is not None
    derived = [p for p in changed if is_derived(p, shelf)]
    assert "INDEX.md" in derived and "ledger.tsv" in derived  # the reference tool regenerated them

    payload = push_event(harness.sb, "refs/heads/shelve/ups", "0" * 40, pushed, pusher="night-shift-agent")
    result = harness.step("push", payload, harness.workspace(pushed))

    assert result.exit_code == 0, result.stdout + result.stderr
    head = harness.sb.store.ref("refs/heads/shelve/ups") or ""
    bot_commit = harness.sb.store.commit(head)
    assert bot_commit.parents == (pushed,)  # exactly one commit on top of the agent's, a fast-forward
    assert bot_commit.message.startswith("Restore derived files of shelve/ups to main's version")
    assert bot_commit.author.name == "github-actions[bot]"
    git("fetch", "--quiet", "origin", head, cwd=work, home=harness.home)
    assert git("diff", "--name-only", main, head, cwd=work, home=harness.home).split() == [UPS]
    with harness.sb.state.lock:
        [pull] = [p for p in harness.sb.state.pulls.values() if p.head_ref == "shelve/ups"]
    assert pull.state == "open" and harness.repo.get_pull(pull.number).head.sha == head
    [status] = [s for s in harness.sb.state.latest_statuses(head) if s.context == STATUS_CONTEXT]
    assert status.state == "success"
    assert result.outputs["verdict"] == "valid" and result.outputs["pr_number"] == str(pull.number)
    assert f"Restored {len(derived)} derived file(s)" in result.summary
