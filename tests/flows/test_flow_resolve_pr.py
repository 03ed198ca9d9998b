"""`/shelf resolve` in-process against the recording fake: the merged tree goes through the port as
one commit with the head and the base as parents, file modes kept (a submodule refused), the
branch fast-forwarded; a branch that moved is retried from its new head, and each refusal
(protected, ruleset, read-only) is named in the reply."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.flows import commands
from bot.port import FileMode, Permission, Reason, RefUpdate
from tests.action_harness import episode
from tests.fakegh import World, git, ran

UPS, NAS = "docs/topics/2026-09-22-ups-runtime.md", "docs/topics/2026-09-23-nas.md"
BRANCH = "night-shift/ups"


@pytest.fixture
def world(tmp_path: Path) -> World:
    world = World.make(tmp_path)
    world.gh.permissions["octo-maintainer"] = Permission.WRITE
    return world


def diverged(world: World, branch_files: dict[str, str | None] | None = None) -> tuple[object, str, str]:
    """A PR branch with one episode and main moved on with another: (the pull, its head, main)."""
    head = world.commit(BRANCH, branch_files or {UPS: episode("2026-09-22-ups-runtime")}, base="main")
    pull = world.gh.add_pull(BRANCH)
    main = world.commit("main", {NAS: episode("2026-09-23-nas")})
    return pull, head, main


def with_entries(world: World, branch: str, entries: list[tuple[str, str, bytes | str]]) -> str:
    """A commit on `branch` adding (mode, path, bytes-or-object-sha) entries, as git stores them."""
    index = world.repo / ".git" / "entries-index"
    run = {"cwd": world.repo, "capture_output": True, "check": True,
           "env": {"GIT_INDEX_FILE": str(index), "PATH": "/usr/bin:/bin", "HOME": str(world.repo)}}
    subprocess.run(["git", "read-tree", f"refs/heads/{branch}"], **run)
    for mode, path, data in entries:
        sha = data if isinstance(data, str) else subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], input=data, cwd=world.repo, capture_output=True,
            check=True).stdout.decode().strip()
        subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"{mode},{sha},{path}"], **run)
    tree = subprocess.run(["git", "write-tree"], **run).stdout.decode().strip()
    sha = git(world.repo, "commit-tree", tree, "-p", f"refs/heads/{branch}", "-m", "entries").strip()
    git(world.repo, "update-ref", f"refs/heads/{branch}", sha)
    return sha


def resolve(world: World, pull: object) -> tuple[int, str]:
    job = world.job(world.comment_event(pull, "/shelf resolve"))
    code = ran(commands.run, job)
    replies = [c.body for c in world.gh.comments_on[pull.number] if c.body.startswith(("🚀", "😕"))]
    return code, replies[-1]


def test_the_merge_is_one_commit_of_both_parents_carrying_executable_and_symlink_modes(world: World) -> None:
    pull, head, _ = diverged(world)
    main = with_entries(world, "main", [("100755", "tools/render.sh", b"#!/bin/sh\necho hi\n"),
                                        ("120000", "latest.md", NAS.encode())])
    code, reply = resolve(world, pull)
    assert code == 0, reply
    new = world.gh.branch_sha(BRANCH)
    assert git(world.repo, "rev-parse", f"{new}^@").split() == [head, main]
    [(_, (parent, message, paths))] = world.gh.ops("create_commit")
    assert parent == head and message.startswith("Merge main into night-shift/ups")
    assert {"tools/render.sh", "latest.md", NAS} <= set(paths)
    assert git(world.repo, "ls-tree", new, "tools/render.sh", "latest.md").split()[0::4] == ["120000", "100755"]
    assert git(world.repo, "cat-file", "blob", f"{new}:latest.md") == NAS
    assert not git(world.repo, "diff", "--name-only", main, new, "--", "tools", "latest.md").strip()
    assert "in one commit" in reply and "never forced" in reply


def test_with_restore_derived_off_the_merge_carries_the_regenerated_derived_files(world: World) -> None:
    world.commit("main", {".memshelf-bot.yml": "restore_derived: false\n"})
    pull, head, main = diverged(world, {UPS: episode("2026-09-22-ups-runtime"), "INDEX.md": "# branch's\n"})
    code, reply = resolve(world, pull)
    assert code == 0, reply
    new = world.gh.branch_sha(BRANCH)
    assert git(world.repo, "rev-parse", f"{new}^@").split() == [head, main] and len(world.gh.ops("create_commit")) == 1
    index = world.show(new, "INDEX.md")
    assert "2026-09-22-ups-runtime" in index and "2026-09-23-nas" in index  # rendered from the merged episodes
    assert "- regenerated from the merged episodes: " in reply and "left at" not in reply


def test_a_branch_that_moved_is_retried_from_its_new_head(world: World) -> None:
    pull, _, _ = diverged(world)
    world.gh.ref_answers = [RefUpdate.NON_FAST_FORWARD]
    code, reply = resolve(world, pull)
    assert code == 0, reply
    assert len(world.gh.ops("create_commit")) == 2 and not world.gh.ops("reset_bot_branch")
    assert "2 attempts in all" in reply


@pytest.mark.parametrize(("answer", "named"), [
    (RefUpdate.PROTECTED, "a branch protection rule on night-shift/ups refused the update"),
    (RefUpdate.RULESET, "a repository ruleset on night-shift/ups refused the update (GH013)"),
    (RefUpdate.READ_ONLY, "the token may not write to night-shift/ups (read-only)"),
])
def test_a_refused_update_is_named_and_the_branch_stays(world: World, answer: RefUpdate, named: str) -> None:
    pull, head, _ = diverged(world)
    world.gh.ref_answers = [answer]
    code, reply = resolve(world, pull)
    assert code == 1 and world.gh.branch_sha(BRANCH) == head
    assert reply == f"😕 `/shelf resolve` failed: {named}. Nothing was pushed."
    assert not world.gh.statuses  # nothing new to validate


def test_a_token_that_may_not_write_commits_is_named(world: World) -> None:
    pull, head, _ = diverged(world)
    world.gh.refuse("create_commit", Reason.FORBIDDEN, "Resource not accessible by integration")
    code, reply = resolve(world, pull)
    assert code == 1 and world.gh.branch_sha(BRANCH) == head and not world.gh.ops("move_branch")
    assert reply.startswith("😕 `/shelf resolve` failed: the token may not write to night-shift/ups: ")


def test_a_submodule_in_the_merge_is_refused_and_nothing_is_committed(world: World) -> None:
    pull, head, _ = diverged(world)
    with_entries(world, "main", [("160000", "vendor/lib", head)])  # a gitlink (any commit id)
    code, reply = resolve(world, pull)
    assert code == 1 and world.gh.branch_sha(BRANCH) == head and not world.gh.ops("create_commit")
    assert "vendor/lib is a submodule (a gitlink), which the bot never writes" in reply
    assert FileMode("100755") is FileMode.EXECUTABLE and "160000" not in {m.value for m in FileMode}
