"""The scheduled render (`schedule` events, `mode: auto`): a merge made with the job's token starts
no workflow, so main is rendered on a timer; on a fresh main that is a no-op (no commit), on a
main that missed its render it is the render."""

from __future__ import annotations

from pathlib import Path

from bot import action
from bot.events import Event, EventKind
from tests.action_harness import episode
from tests.fakegh import World, ran

SCHEDULE_PAYLOAD = {"schedule": "23 */6 * * *", "repository": {"full_name": "octo/shelf", "default_branch": "main"}}


def scheduled(world: World) -> tuple[int, object]:
    event = Event.from_payload("schedule", SCHEDULE_PAYLOAD)
    assert event.kind is EventKind.SCHEDULE
    job = world.job(event)
    return ran(action.auto_mode, job), job


def test_the_scheduled_render_of_a_fresh_main_commits_nothing(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    main = world.gh.branch_sha("main")
    code, job = scheduled(world)
    assert code == 0 and not world.gh.ops("create_commit", "move_branch", "open_pull")
    assert world.gh.branch_sha("main") == main and job.reporter.outputs["commit_sha"] == ""
    assert "nothing to render" in job.reporter.summary_text()


def test_the_scheduled_render_catches_a_merge_that_started_no_workflow(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    merged = world.commit("main", {"docs/topics/2026-09-22-ups-runtime.md": episode("2026-09-22-ups-runtime")})
    code, job = scheduled(world)
    rendered = world.gh.branch_sha("main")
    assert code == 0 and rendered != merged and job.reporter.outputs["commit_sha"] == rendered
    assert "UPS runtime" in world.show(rendered, "INDEX.md")
