"""`restore_derived` on an agent branch, in-process against the recording fake: the derived files
a branch regenerated go back to the base's version in one bot commit (fast-forward, never a
force; with `/shelf resolve`, the merge commit itself) and the new head is what gets checked; nothing to restore, opted out on the base, and a
branch that moved meanwhile leave the branch alone."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.flows import commands, open_pr
from bot.port import Permission, PortError, RefUpdate, StatusState
from tests.action_harness import episode
from tests.fakegh import World, git, ran

UPS = "docs/topics/2026-09-22-ups-runtime.md"
BRANCH = "night-shift/ups"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def push(world: World, files: dict[str, str | None]) -> tuple[int, object, str]:
    try:
        before = world.gh.branch_sha(BRANCH)
    except PortError:
        before = "0" * 40
    after = world.commit(BRANCH, files)
    job = world.job(world.push_event(BRANCH, before, after))
    return ran(open_pr.run, job, BRANCH), job, after


def test_regenerated_derived_files_are_restored_in_one_bot_commit_and_the_new_head_passes(world: World) -> None:
    main = world.gh.branch_sha("main")
    code, job, pushed = push(world, {UPS: episode("2026-09-22-ups-runtime"), "INDEX.md": "# regenerated\n",
                                     "ledger.tsv": "regenerated\n"})
    assert code == 0
    [(_, (parent, message, paths))] = world.gh.ops("create_commit")
    assert parent == pushed and paths == ("INDEX.md", "ledger.tsv") and message.startswith("Restore derived files")
    head = world.gh.branch_sha(BRANCH)
    assert head != pushed and world.gh.ops("move_branch") == [("move_branch", (BRANCH, head))]
    assert world.show(head, "INDEX.md") == world.show(main, "INDEX.md")
    assert world.show(head, UPS) == episode("2026-09-22-ups-runtime")
    [(sha, status)] = world.gh.statuses
    assert sha == head and status.state is StatusState.SUCCESS
    assert "Restored 2 derived file(s)" in job.reporter.summary_text()


def test_a_branch_of_episodes_only_gets_no_bot_commit(world: World) -> None:
    code, _, pushed = push(world, {UPS: episode("2026-09-22-ups-runtime")})
    assert code == 0 and not world.gh.ops("create_commit", "move_branch")
    assert world.gh.branch_sha(BRANCH) == pushed


def test_opted_out_on_the_base_the_branch_stays_as_pushed_and_red(world: World) -> None:
    world.commit("main", {".memshelf-bot.yml": "restore_derived: false\n"})
    code, _, pushed = push(world, {UPS: episode("2026-09-22-ups-runtime"), "INDEX.md": "# regenerated\n"})
    assert code == 1 and not world.gh.ops("create_commit", "move_branch")
    assert world.gh.branch_sha(BRANCH) == pushed and world.gh.statuses[-1][1].state is StatusState.FAILURE


def test_a_branch_that_moved_meanwhile_is_never_forced(world: World) -> None:
    world.gh.ref_answers = [RefUpdate.NON_FAST_FORWARD]
    code, job, pushed = push(world, {UPS: episode("2026-09-22-ups-runtime"), "INDEX.md": "# regenerated\n"})
    assert code == 1 and world.gh.ops("create_commit") and not world.gh.ops("reset_bot_branch")
    assert world.gh.branch_sha(BRANCH) == pushed and world.gh.statuses[-1][0] == pushed
    assert "were not restored: the branch moved while the bot worked" in job.reporter.summary_text()


def test_resolve_merges_and_restores_in_one_bot_commit_so_the_pull_request_passes(world: World) -> None:
    branch_head = world.commit(BRANCH, {UPS: episode("2026-09-22-ups-runtime"), "INDEX.md": "# branch's\n"},
                               base="main")
    pull = world.gh.add_pull(BRANCH)
    main = world.commit("main", {"docs/topics/2026-09-23-nas.md": episode("2026-09-23-nas"), "INDEX.md": "# main's\n"})
    world.gh.permissions["octo-maintainer"] = Permission.WRITE
    job = world.job(world.comment_event(pull, "/shelf resolve"))
    assert ran(commands.run, job) == 0
    head = world.gh.branch_sha(BRANCH)
    [(_, (parent, message, paths))] = world.gh.ops("create_commit")  # one commit: the merge restores too
    assert world.gh.ops("move_branch") == [("move_branch", (BRANCH, head))] and "INDEX.md" in paths
    assert parent == branch_head and git(world.repo, "rev-parse", f"{head}^@").split() == [branch_head, main]
    assert message.startswith("Merge main into night-shift/ups\n\nSettled by memshelf-bot on /shelf resolve "
                              "(requested by octo-maintainer): derived files kept at main's version")
    assert world.show(head, "INDEX.md") == "# main's\n" and world.show(head, UPS) == episode("2026-09-22-ups-runtime")
    assert not git(world.repo, "diff", "--name-only", "main", head, "--", *paths).strip()
    assert job.reporter.outputs["commit_sha"] == head and world.gh.statuses[-1][0] == head
    assert world.gh.statuses[-1][1].state is StatusState.SUCCESS
    [reply] = [c.body for c in world.gh.comments_on[pull.number] if c.body.startswith("🚀")]
    assert reply.startswith(f"🚀 Merged `main` (`{main[:12]}`) into `night-shift/ups` in one commit, `{head[:12]}`, "
                            f"on top of `{branch_head[:12]}`")
    assert "left at `main`'s version, since this branch regenerated them and `restore_derived` is on" in reply
