"""The App's door in-process over the recording fake: a routed event runs its flow as the App
would, with the App's sinks (check run, sticky comment, review suggestions). A fork's pull
request is a pull request like any other for the App (its token may write there); a job run again
under the same key finds its check run by `external_id` and updates it; a render's result and a
merge group's check each end as one completed check run on their head."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.door import run_with
from bot.app.reporter import AppReporter
from bot.events import Event, EventKind
from bot.flows.render_main import RENDER_BRANCH
from bot.flows.result import FlowOutcome
from bot.port import CheckStatus, Conclusion, PortError, Reason, RefUpdate
from bot.report import Posted, SinkName
from bot.report.check_run import CHECK_NAME
from bot.router import FlowName, Route, route
from memshelf_render.check import Verdict
from tests.action_harness import episode
from tests.fakegh import World

NAS = "docs/topics/2026-09-23-nas.md"
FIXABLE = episode("2026-09-23-nas", title="NAS").replace("id: 2026-09-23-nas\n", "id: nas-move\n")
SUGGESTION = "```suggestion\nid: 2026-09-23-nas\n```"


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def through_the_door(world: World, event: Event, key: str = "delivery-1:1") -> tuple:
    routed = route(event)
    assert routed is not None
    reporter = AppReporter(key)
    return run_with(Route.from_json(routed.to_json()), key=key, port=world.gh, reporter=reporter,
                    remote=str(world.repo)), reporter


def runs(world: World) -> list:
    return [run for run, _ in world.gh.check_runs_on.values()]


def test_a_fork_pull_request_gets_its_check_run_comment_and_suggestions_from_the_app(world: World) -> None:
    world.commit("patch-1", {NAS: FIXABLE}, base="main")
    pull = world.gh.add_pull("patch-1", head_repo="outsider/shelf")
    result, _ = through_the_door(world, world.pr_event(pull, fork=True))
    assert not world.gh.ops("mark_read_only") and not world.gh.read_only
    assert (result.outcome, result.verdict, result.pr_number) == (FlowOutcome.DONE, Verdict.VIOLATIONS, pull.number)
    [run] = runs(world)
    assert (run.name, run.head_sha, run.status, run.conclusion, run.external_id) == (
        CHECK_NAME, pull.head_sha, CheckStatus.COMPLETED, Conclusion.FAILURE, "delivery-1:1")
    [sticky] = world.gh.comments_on[pull.number]
    assert sticky.body.startswith("<!-- memshelf-bot:sticky") and "❌ violations" in sticky.body
    [(number, sha, comments)] = world.gh.reviews
    assert (number, sha) == (pull.number, pull.head_sha) and any(SUGGESTION in c.body for c in comments)
    assert {r.sink: r.posted for r in result.posted} == {
        SinkName.COMMENT: Posted.DONE, SinkName.CHECK_RUN: Posted.DONE, SinkName.REVIEW: Posted.DONE}


def test_a_job_run_again_under_its_key_updates_its_own_check_run(world: World) -> None:
    world.commit("night-shift/nas", {NAS: FIXABLE}, base="main")
    pull = world.gh.add_pull("night-shift/nas")
    event = world.pr_event(pull)
    through_the_door(world, event, key="d-7:1")
    again, _ = through_the_door(world, event, key="d-7:1")  # the same job, run again after a lost "finished"
    assert again.verdict is Verdict.VIOLATIONS
    [run] = runs(world)
    assert (run.external_id, run.status, run.conclusion) == ("d-7:1", CheckStatus.COMPLETED, Conclusion.FAILURE)
    assert len(world.gh.ops("create_check_run")) == 1 and world.gh.ops("check_runs")
    through_the_door(world, event, key="d-8:1")  # a re-request is a new job: a new run
    assert sorted(r.external_id for r in runs(world)) == ["d-7:1", "d-8:1"]


def test_a_renders_result_is_one_completed_check_run_on_the_pushed_commit(world: World) -> None:
    before = world.gh.branch_sha("main")
    merged = world.commit("main", {"docs/topics/2026-09-24-new.md": episode("2026-09-24-new", title="New")})
    push = world.push_event("main", before, merged, pusher="octo")
    result, _ = through_the_door(world, push, key="push-1:1")
    assert result.outcome is FlowOutcome.DONE and result.commit_sha == world.gh.branch_sha("main") != merged
    [run] = runs(world)
    assert (run.head_sha, run.conclusion, run.external_id) == (merged, Conclusion.SUCCESS, "push-1:1")
    [(_, outputs)] = world.gh.check_runs_on.values()
    assert "committed" in outputs[-1].summary
    through_the_door(world, push, key="push-1:1")  # run again: main is rendered now, the same run says so
    assert len(runs(world)) == 1 and len(world.gh.ops("create_check_run")) == 1


def test_a_render_that_does_not_land_is_a_failed_result_and_a_failed_check_run(world: World) -> None:
    before = world.gh.branch_sha("main")
    merged = world.commit("main", {"docs/topics/2026-09-24-new.md": episode("2026-09-24-new", title="New")})
    world.commit(RENDER_BRANCH, {"INDEX.md": "# mine\n"}, base="main", author="human@example.com")
    world.gh.ref_answers = [RefUpdate.PROTECTED]  # and the render branch is someone else's: it never lands
    result, _ = through_the_door(world, world.push_event("main", before, merged, pusher="octo"))
    assert result.outcome is FlowOutcome.FAILED and result.exit_code == 1
    assert result.detail.startswith("render on main: memshelf-bot/render holds commits by someone")
    [run] = runs(world)
    assert (run.head_sha, run.conclusion) == (merged, Conclusion.FAILURE)
    [(_, outputs)] = world.gh.check_runs_on.values()
    assert outputs[-1].title == "memshelf-bot: needs attention" and "holds commits by someone" in outputs[-1].summary


def test_a_merge_group_is_checked_on_its_head_with_a_check_run_and_a_status(world: World) -> None:
    base = world.gh.branch_sha("main")
    head = world.commit("gh-readonly-queue/main/pr-1", {NAS: FIXABLE}, base="main")
    group = Event(EventKind.MERGE_GROUP, "merge_group", action="checks_requested", repository="octo/shelf",
                  default_branch="main", head_sha=head, head_ref="refs/heads/gh-readonly-queue/main/pr-1",
                  base_sha=base, base_ref="refs/heads/main", installation_id=9)
    assert route(group) == Route(FlowName.CHECK_MERGE_GROUP, group)
    result, _ = through_the_door(world, group, key="mq-1:1")
    assert (result.verdict, result.head_sha, result.pr_number) == (Verdict.VIOLATIONS, head, None)
    [run] = runs(world)
    assert (run.head_sha, run.status, run.conclusion, run.external_id) == (
        head, CheckStatus.COMPLETED, Conclusion.FAILURE, "mq-1:1")
    [(sha, status)] = world.gh.statuses
    assert sha == head and status.state.value == "failure"
    assert not world.gh.comments_on and not world.gh.reviews  # no pull request to talk to


def test_a_refusal_ends_the_started_check_run_and_only_a_transient_one_raises(world: World) -> None:
    world.commit("night-shift/nas", {NAS: FIXABLE}, base="main")
    pull = world.gh.add_pull("night-shift/nas")
    world.gh.refuse("pull_files", Reason.NOT_FOUND)
    result, _ = through_the_door(world, world.pr_event(pull), key="k-1:1")
    assert result.outcome is FlowOutcome.FAILED and result.detail.startswith("check-pr: pull_files: refused")
    [run] = runs(world)
    assert (run.status, run.conclusion) == (CheckStatus.COMPLETED, Conclusion.FAILURE)
    world.gh.refuse("pull_files", Reason.UNAVAILABLE)
    with pytest.raises(PortError) as raised:
        through_the_door(world, world.pr_event(pull), key="k-1:1")
    assert raised.value.reason is Reason.UNAVAILABLE and len(runs(world)) == 1  # the same run, failed again
