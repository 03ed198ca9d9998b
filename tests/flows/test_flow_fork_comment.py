"""The fork path, in-process: a fork's pull request (read-only token) leaves the comment it could
not post in `.memshelf-bot/comment.json`, masked like the comment and exactly as the
fork-comment workflow reads it; a file or symlink the fork planted there is never used."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot import action
from bot.flows import fork_comment
from bot.report.comment import marker
from tests.action_harness import episode
from tests.fakegh import World, ran

BAD = "docs/topics/2026-09-23-nas.md"
SECRET = "ghp_" + "Zz9" * 12
BAD_TEXT = (episode("2026-09-23-nas", title="NAS").replace("tags: [homelab]\n", "")
            .replace("- NUT client on the backup host.\n", f"- NUT client on the backup host.\n- key {SECRET}\n"))
ARTIFACT = Path(fork_comment.DIRECTORY) / fork_comment.FILE


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def fork_run(world: World, files: dict[str, str | None], **overrides: object) -> tuple[int, object]:
    world.commit("patch-1", files, base="main")
    pull = world.gh.add_pull("patch-1", head_repo="outsider/shelf")
    job = world.job(world.pr_event(pull, fork=True), **overrides)
    return ran(action.auto_mode, job), pull


def test_a_fork_pull_request_leaves_its_masked_comment_for_the_workflow_run(world: World) -> None:
    code, pull = fork_run(world, {BAD: BAD_TEXT})
    assert code == 1 and not world.gh.ops("create_comment", "edit_comment")
    given = json.loads((world.repo / ARTIFACT).read_text(encoding="utf-8"))
    assert set(given) == {"pr_number", "head_sha", "body"}
    assert given["pr_number"] == pull.number and given["head_sha"] == pull.head_sha
    assert given["body"].startswith(marker(".")) and "❌ violations" in given["body"]
    assert SECRET not in given["body"] and len(given["body"]) <= 65536


def test_a_clean_fork_pull_request_with_comment_auto_and_no_sticky_yet_leaves_nothing(world: World) -> None:
    code, _ = fork_run(world, {"docs/topics/2026-09-22-ups-runtime.md": episode("2026-09-22-ups-runtime")})
    assert code == 0 and not (world.repo / ARTIFACT).exists()


def test_what_the_fork_planted_at_the_artifact_path_is_removed_and_never_followed(world: World,
                                                                                   tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (world.repo / fork_comment.DIRECTORY).symlink_to(outside, target_is_directory=True)
    code, _ = fork_run(world, {"docs/topics/2026-09-22-ups-runtime.md": episode("2026-09-22-ups-runtime")})
    planted = world.repo / fork_comment.DIRECTORY  # the SARIF file may be there now, in a real directory
    assert code == 0 and not planted.is_symlink() and not (world.repo / ARTIFACT).exists()
    assert list(outside.iterdir()) == []
    planted.mkdir(exist_ok=True)
    (world.repo / ARTIFACT).write_text('{"pr_number": 1, "head_sha": "x", "body": "forged"}', encoding="utf-8")
    code, pull = fork_run(world, {BAD: BAD_TEXT}, comment="always")
    given = json.loads((world.repo / ARTIFACT).read_text(encoding="utf-8"))
    assert given["body"] != "forged" and given["head_sha"] == pull.head_sha and list(outside.iterdir()) == []
