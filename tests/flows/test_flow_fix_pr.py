"""`/shelf fix` in-process against the recording fake: a writer's command commits the core's
mechanical fixes of the pull request's changed episodes as `memshelf-bot fix` (fast-forward
only, no explicit author) and the new head is checked; nothing to fix, a fork, a reader and a
branch that moved meanwhile change nothing."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from bot.flows import commands
from bot.port import Permission, Reaction, RefUpdate, StatusState
from tests.action_harness import episode
from tests.fakegh import World, git, ran

NAS = "docs/topics/2026-09-23-nas.md"
FIXABLE = episode("2026-09-23-nas", title="NAS").replace("id: 2026-09-23-nas\n", "id: nas-move\n").replace(
    "tags: [homelab]\n", "tags: homelab\n")


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def fix(world: World, text: str, permission: Permission = Permission.WRITE, **pull_changes: object):
    world.commit("night-shift/nas", {NAS: text}, base="main")
    pull = world.gh.add_pull("night-shift/nas")
    if pull_changes:
        pull = world.gh.pulls[pull.number] = replace(pull, **pull_changes)
    world.gh.permissions["octo-maintainer"] = permission
    job = world.job(world.comment_event(pull, "/shelf fix"))
    return ran(commands.run, job), job, pull


def replies(world: World, number: int = 1) -> list[str]:
    return [c.body for c in world.gh.comments_on.get(number, []) if c.author == "github-actions[bot]"
            and not c.body.startswith("<!-- memshelf-bot:sticky")]


def test_a_writer_gets_the_fixes_committed_fast_forward_and_the_new_head_checked(world: World) -> None:
    code, job, pull = fix(world, FIXABLE)
    assert code == 0
    head = world.gh.branch_sha("night-shift/nas")
    [(_, (parent, message, paths))] = world.gh.ops("create_commit")
    assert parent == pull.head_sha and paths == (NAS,) and message.startswith("memshelf-bot fix\n")
    assert world.gh.ops("move_branch") == [("move_branch", ("night-shift/nas", head))]
    assert git(world.repo, "rev-parse", f"{head}^").strip() == pull.head_sha
    fixed = world.show(head, NAS)
    assert "id: 2026-09-23-nas\n" in fixed and "tags: homelab\n" not in fixed
    assert fixed.replace("id: 2026-09-23-nas\n", "").split("tags:")[0] == FIXABLE.replace(
        "id: nas-move\n", "").split("tags:")[0]  # every other line as it was
    assert world.gh.statuses[-1][0] == head and world.gh.statuses[-1][1].state is StatusState.SUCCESS
    [reply] = replies(world)
    assert reply.startswith("🚀 Fixed 1 episode(s) and pushed") and f"`{NAS}`: `id-mismatch`" in reply
    assert world.gh.reactions[-1][1] is Reaction.DONE and job.reporter.outputs["commit_sha"] == head


def test_nothing_to_fix_is_said_and_nothing_is_pushed(world: World) -> None:
    code, _, pull = fix(world, episode("2026-09-23-nas", title="NAS"))
    assert code == 0 and not world.gh.ops("create_commit", "move_branch")
    assert world.gh.branch_sha("night-shift/nas") == pull.head_sha
    assert replies(world)[-1].startswith("🚀 Nothing to fix:")


def test_a_fork_is_refused_with_a_clear_answer(world: World) -> None:
    code, _, _ = fix(world, FIXABLE, head_repo="outsider/shelf", head_label="outsider:patch-1")
    assert code == 0 and not world.gh.ops("create_commit", "move_branch")
    assert replies(world)[-1].startswith("😕 `/shelf fix` cannot work on this pull request: its branch lives in a "
                                         "fork (outsider:patch-1)")
    assert world.gh.reactions[-1][1] is Reaction.FAILED


def test_a_reader_may_not_fix(world: World) -> None:
    code, _, _ = fix(world, FIXABLE, permission=Permission.READ)
    assert code == 0 and not world.gh.ops("create_commit", "pull_files")
    assert "needs write access" in replies(world)[-1]


def test_a_branch_that_moved_meanwhile_is_never_forced(world: World) -> None:
    world.gh.ref_answers = [RefUpdate.NON_FAST_FORWARD]
    code, _, pull = fix(world, FIXABLE)
    assert code == 0 and world.gh.branch_sha("night-shift/nas") == pull.head_sha
    assert not world.gh.ops("reset_bot_branch")
    assert replies(world)[-1].startswith("😕 `/shelf fix` failed: night-shift/nas moved while the bot worked")


def test_help_lists_fix(world: World) -> None:
    fix(world, FIXABLE, permission=Permission.READ)
    assert ran(commands.run, world.job(world.comment_event(world.gh.pulls[1], "/shelf help"))) == 0
    assert "| `/shelf fix` |" in replies(world)[-1]
