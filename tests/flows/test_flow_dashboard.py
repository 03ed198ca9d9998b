"""The shelf dashboard's decisions, in-process against the recording fake: created after a render
of the default branch, left alone when nothing changed (no edit call), edited for a new open
thread, closed by `dashboard: false` and reopened when it is on again, never someone else's issue,
a race's duplicate closed, and a token without `issues: write` said once while the render stands.
Both doors: the Action's (`ran`) and the App's (`run_with`)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot.app.door import run_with
from bot.app.reporter import AppReporter
from bot.flows import render_main
from bot.flows.result import FlowOutcome
from bot.port import IssueState, PortError, Reason
from bot.report.dashboard import LABEL, TITLE, last_render
from bot.router import Route, route
from memshelf_sandbox.actionrun import parse_commands
from tests.action_harness import episode
from tests.fakegh import World, ran

UPS = "docs/topics/2026-09-22-ups-runtime.md"
ISSUE_WRITES = ("create_issue", "update_issue")


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def render(world: World) -> tuple[int, object]:
    job = world.job(world.push_event("main", "", world.gh.branch_sha("main")))
    return ran(render_main.run, job, sleep=lambda s: None, rng=random.Random(1)), job


def dashboards(world: World) -> list:
    return [i for i in world.gh.issues.values() if LABEL.name in i.labels and i.author == world.gh.login]


def test_a_render_creates_the_dashboard_and_a_second_render_leaves_it_alone(world: World) -> None:
    before = world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    code, job = render(world)
    assert code == 0
    [issue] = dashboards(world)
    assert (issue.title, issue.state, issue.labels) == (TITLE, IssueState.OPEN, (LABEL.name,))
    assert world.gh.labels[LABEL.name] == LABEL
    commit = job.reporter.outputs["commit_sha"]
    assert commit != before and last_render(issue.body) == commit
    assert "NUT client on the backup host." in issue.body and "Alerting on failed nightly checks." in issue.body
    assert f"/blob/main/{UPS})" in issue.body
    assert f"Shelf dashboard: memshelf-bot opened the Shelf dashboard issue #{issue.number}." in \
        job.reporter.summary_text()
    writes, commits = len(world.gh.ops(*ISSUE_WRITES)), len(world.gh.ops("create_commit"))
    code, job = render(world)  # main is the render commit now: nothing to render, nothing new
    assert code == 0 and len(world.gh.ops("create_commit")) == commits
    assert len(world.gh.ops(*ISSUE_WRITES)) == writes  # no edit call
    assert dashboards(world)[0].body == issue.body  # the render commit is kept, though none was made
    assert "left the Shelf dashboard issue" in job.reporter.summary_text()


def test_a_new_open_thread_edits_the_dashboard(world: World) -> None:
    render(world)
    [issue] = dashboards(world)
    world.commit("main", {UPS: episode("2026-09-22-ups-runtime", body="- Replace the UPS battery.\n")})
    render(world)
    [(_, (number, edit))] = world.gh.ops("update_issue")
    assert number == issue.number and "Replace the UPS battery." in (edit.body or "")
    assert dashboards(world)[0].body == edit.body


def test_dashboard_false_closes_it_and_true_reopens_it(world: World) -> None:
    render(world)
    [issue] = dashboards(world)
    world.commit("main", {".memshelf-bot.yml": "dashboard: false\n"})
    code, job = render(world)
    assert code == 0 and dashboards(world)[0].state is IssueState.CLOSED
    assert "closed the Shelf dashboard issue" in job.reporter.summary_text()
    render(world)  # off and closed: nothing more
    assert len(world.gh.ops("update_issue")) == 1
    world.commit("main", {".memshelf-bot.yml": "dashboard: true\n"})
    render(world)
    [again] = dashboards(world)
    assert again.number == issue.number and again.state is IssueState.OPEN
    assert len(world.gh.ops("create_issue")) == 1


def test_someone_elses_labeled_issue_is_never_touched_and_a_duplicate_is_closed(world: World) -> None:
    theirs = world.gh.add_issue("Shelf dashboard", "my notes", "octo-maintainer", [LABEL.name])
    render(world)
    assert world.gh.issues[theirs.number] == theirs
    [mine] = dashboards(world)
    twin = world.gh.add_issue(TITLE, "a race", world.gh.login, [LABEL.name])
    render(world)
    assert world.gh.issues[twin.number].state is IssueState.CLOSED
    assert world.gh.issues[mine.number].state is IssueState.OPEN


def test_a_token_without_issues_write_is_said_once_and_the_render_stands(world: World) -> None:
    world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    world.gh.refuse("ensure_label", Reason.READ_ONLY, "Resource not accessible by integration")
    code, job = render(world)
    assert code == 0 and job.reporter.outputs["commit_sha"]
    notices = [a for a in parse_commands(world.out.getvalue())[0] if a.level == "notice"]
    assert len(notices) == 1 and "issues: write" in notices[0].message
    assert job.reporter.summary_text().count("could not keep the Shelf dashboard issue") == 1
    assert not dashboards(world)


def test_no_dashboard_for_a_render_of_another_branch(world: World) -> None:
    world.commit("release", {UPS: episode("2026-09-22-ups-runtime")})
    job = world.job(world.push_event("release", "", world.gh.branch_sha("release")))
    assert ran(render_main.run, job, branch="release", sleep=lambda s: None) == 0
    assert not world.gh.ops("labeled_issues", *ISSUE_WRITES)


def test_the_apps_door_keeps_the_dashboard_too(world: World) -> None:
    before = world.gh.branch_sha("main")
    world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    event = world.push_event("main", before, world.gh.branch_sha("main"))
    routed = route(event)
    assert routed is not None
    event_in = Route.from_json(routed.to_json())
    result = run_with(event_in, key="d-1:1", port=world.gh, reporter=AppReporter("d-1:1"), remote=str(world.repo))
    assert result.outcome is FlowOutcome.DONE and result.commit_sha
    [issue] = dashboards(world)
    assert last_render(issue.body) == result.commit_sha and "NUT client on the backup host." in issue.body


def through_the_door(world: World, event: object, key: str) -> object:
    routed = route(event)  # type: ignore[arg-type]
    assert routed is not None
    return run_with(Route.from_json(routed.to_json()), key=key, port=world.gh, reporter=AppReporter(key),
                    remote=str(world.repo))


def test_the_apps_door_keeps_leaves_edits_and_closes_the_dashboard(world: World) -> None:
    def pushed(files: dict[str, str], key: str) -> object:
        before = world.gh.branch_sha("main")
        world.commit("main", files)
        return through_the_door(world, world.push_event("main", before, world.gh.branch_sha("main")), key)

    pushed({UPS: episode("2026-09-22-ups-runtime")}, "d-1:1")
    [issue] = dashboards(world)
    writes = len(world.gh.ops(*ISSUE_WRITES))
    job = world.job(world.push_event("main", "", world.gh.branch_sha("main")))
    assert render_main.run(job).outcome is FlowOutcome.DONE  # nothing new
    assert len(world.gh.ops(*ISSUE_WRITES)) == writes
    pushed({UPS: episode("2026-09-22-ups-runtime", body="- Hostile <b>@octocat</b> #3\n")}, "d-2:1")
    [(_, (number, edit))] = world.gh.ops("update_issue")
    assert number == issue.number and "Hostile \\<b\\>@\u200doctocat\\</b\\> #\u200d3" in (edit.body or "")
    pushed({".memshelf-bot.yml": "dashboard: false\n"}, "d-3:1")
    assert dashboards(world)[0].state is IssueState.CLOSED


def test_issues_turned_off_are_said_once_and_a_transient_failure_is_raised(world: World) -> None:
    world.gh.refuse("labeled_issues", Reason.INVALID, "Issues are disabled for this repo")
    code, job = render(world)
    assert code == 0 and "could not keep the Shelf dashboard issue: GitHub refused it" in job.reporter.summary_text()
    world.commit("main", {UPS: episode("2026-09-22-ups-runtime")})
    world.gh.refuse("labeled_issues", Reason.UNAVAILABLE, "GitHub answered 502 5 times")
    with pytest.raises(PortError):
        render_main.run(world.job(world.push_event("main", "", world.gh.branch_sha("main"))))
