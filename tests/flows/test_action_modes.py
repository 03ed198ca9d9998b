"""The `mode` input and the events the bot leaves alone, in-process: each mode's flow on a job
over the recording fake; modes that need another event say so (exit 2); validate and badge need
no API at all."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot import action
from bot.context import ContextError
from bot.events import Event, EventKind
from bot.report.workflow import WorkflowReporter
from memshelf_sandbox.actionrun import parse_commands, parse_outputs
from tests.action_harness import episode
from tests.fakegh import World, git, ran

BAD = "docs/topics/2026-09-23-nas.md"
BAD_TEXT = episode("2026-09-23-nas").replace("id: 2026-09-23-nas", "id: nas")
EMPTY = {k: "" for k in ("verdict", "errors", "warnings", "episodes", "changed", "commit_sha", "pr_number",
                         "standing_tokens", "sarif_file")}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World.make(tmp_path)


def test_explicit_open_pr_and_resolve_modes_need_their_events(world: World) -> None:
    main = world.gh.branch_sha("main")
    with pytest.raises(ContextError, match=r"^mode open-pr opens pull requests for agent branches; main is the "
                                           r"default branch$"):
        ran(action.open_pr_mode, world.job(world.push_event("main", main, main)))
    world.commit("shelve/x", {"docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")}, base="main")
    pull = world.gh.add_pull("shelve/x")
    with pytest.raises(ContextError, match=r"^mode resolve answers `/shelf` comments: it needs an issue_comment "
                                           r"event, not pull_request$"):
        ran(action.resolve_mode, world.job(world.pr_event(pull)))
    with pytest.raises(ContextError, match=r"^mode guard needs a pull_request event, not push$"):
        ran(action.guard_mode, world.job(world.push_event("main", main, main)))
    # open-pr on any branch, patterns or not: a manual run on it
    world.commit("chore/notes", {"docs/topics/2026-09-23-nas.md": episode("2026-09-23-nas")}, base="main")
    dispatch = Event(EventKind.WORKFLOW_DISPATCH, "workflow_dispatch", repository="octo/shelf",
                     default_branch="main", ref="refs/heads/chore/notes")
    job = world.job(dispatch)
    assert ran(action.open_pr_mode, job) == 0
    opened = world.gh.pulls[int(job.reporter.outputs["pr_number"])]
    assert (opened.head_ref, opened.base_ref) == ("chore/notes", "main")


def test_a_comment_that_is_no_command_is_ignored_without_a_word(world: World) -> None:
    world.commit("shelve/x", {"docs/topics/2026-09-22-ups.md": episode("2026-09-22-ups")}, base="main")
    pull = world.gh.add_pull("shelve/x")
    job = world.job(world.comment_event(pull, "Looks good; merging after lunch. /shelf resolve later?"))
    assert ran(action.auto_mode, job) == 0 and job.reporter.outputs == EMPTY
    assert parse_commands(world.out.getvalue())[0] == []
    assert "ignoring a comment that is not a /shelf command" in world.out.getvalue()
    assert world.gh.calls == []


def test_a_closed_pull_request_and_other_events_are_left_alone(world: World) -> None:
    world.commit("shelve/closed", {BAD: BAD_TEXT}, base="main")
    pull = world.gh.add_pull("shelve/closed")
    job = world.job(world.pr_event(pull, "closed"))
    assert ran(action.auto_mode, job) == 0 and world.gh.calls == []
    assert "does not act on a closed pull request" in job.reporter.summary_text()
    star = world.job(Event(EventKind.OTHER, "star"))
    assert ran(action.auto_mode, star) == 0 and "does not act on star events" in star.reporter.summary_text()
    tag = world.job(Event(EventKind.PUSH, "push", default_branch="main", ref="refs/tags/v1"))
    assert ran(action.auto_mode, tag) == 0 and "a push to refs/tags/v1 (not a branch)" in tag.reporter.summary_text()


@pytest.mark.parametrize("name, value, message", [
    ("SHELF-PATH", ".", "unknown input(s): shelf-path; this action accepts: mode, token, shelf_path,"),
    ("MODE", "merge", "input 'mode' must be one of auto, validate, render, guard, open-pr, resolve, badge, got "
                      "'merge'"),
    ("STRICT", "yes", "input 'strict' must be true or false, got 'yes'"),
    ("COMMENT", "sometimes", "input 'comment' must be one of auto, always, never, got 'sometimes'"),
    ("SHELF_PATH", "../elsewhere", "input 'shelf_path' must be a path inside the workspace"),
])
def test_unknown_and_malformed_inputs_are_configuration_errors(tmp_path: Path, name: str, value: str,
                                                               message: str) -> None:
    out, output = io.StringIO(), tmp_path / "output"
    env = {"GITHUB_OUTPUT": str(output), "GITHUB_EVENT_NAME": "push", f"INPUT_{name}": value}
    assert action.run(env, WorkflowReporter.from_env(env, out)) == 2
    [error] = parse_commands(out.getvalue())[0]
    assert error.title == "memshelf-bot: invalid input" and error.message.startswith(message)
    assert parse_outputs(output.read_text()) == {**EMPTY, "verdict": "config-error"}


def test_validate_mode_needs_no_api_and_runs_the_guard_from_git_history(world: World) -> None:
    head = world.commit("shelve/v", {BAD: BAD_TEXT, "notes.txt": "x\n"}, base="main")
    pull = world.gh.add_pull("shelve/v")
    git(world.repo, "checkout", "--quiet", "--detach", head)
    job = world.job(world.pr_event(pull), mode="validate")
    assert ran(action.MODE_FLOWS["validate"], job) == 1
    assert world.gh.calls == []  # not one API call
    assert {(a.file, a.title) for a in parse_commands(world.out.getvalue())[0]} == {
        (BAD, "memshelf-bot: id-mismatch"), ("notes.txt", "memshelf-bot: path-not-allowed")}
    assert job.reporter.outputs["pr_number"] == "" and job.reporter.outputs["episodes"] == "1"


def test_validate_mode_on_main_checks_the_whole_rendered_shelf(world: World) -> None:
    main = world.gh.branch_sha("main")
    job = world.job(world.push_event("main", main, main), mode="validate")
    assert ran(action.MODE_FLOWS["validate"], job) == 0 and world.gh.calls == []
    assert job.reporter.outputs["verdict"] == "valid" and job.reporter.outputs["episodes"] == "3"


def test_guard_mode_reports_the_guard_alone(world: World) -> None:
    world.commit("shelve/g", {BAD: BAD_TEXT, "INDEX.md": "# mine\n"}, base="main")
    pull = world.gh.add_pull("shelve/g")
    job = world.job(world.pr_event(pull), mode="guard")
    assert ran(action.guard_mode, job) == 1
    assert [(a.file, a.title) for a in parse_commands(world.out.getvalue())[0]] == [
        ("INDEX.md", "memshelf-bot: derived-path-touched")]
    assert "## memshelf-bot · pull request #1 (guard)" in job.reporter.summary_text()


def test_badge_mode_writes_the_badge_into_the_workspace(world: World) -> None:
    main = world.gh.branch_sha("main")
    job = world.job(world.push_event("main", main, main), mode="badge")
    assert ran(action.MODE_FLOWS["badge"], job) == 0 and world.gh.calls == []
    assert (world.repo / "badge.svg").read_text().startswith("<svg")
    assert '"message": "3 episodes · ' in (world.repo / "badge.json").read_text()
    assert (job.reporter.outputs["episodes"], job.reporter.outputs["changed"]) == ("3", "2")


def test_a_pr_that_breaks_shelf_yml_is_a_configuration_error(world: World) -> None:
    world.commit("shelve/cfg", {"shelf.yml": "spec_version: 0.1\nprofile: memory\n"}, base="main")
    pull = world.gh.add_pull("shelve/cfg")
    job = world.job(world.pr_event(pull))
    assert ran(action.auto_mode, job) == 2 and job.reporter.outputs["verdict"] == "config-error"
    assert any(a.file == "shelf.yml" and a.title == "memshelf-bot: manifest-invalid"
               for a in parse_commands(world.out.getvalue())[0])
    [sticky] = world.gh.comments_on[pull.number]
    assert "### memshelf-bot: ⚠️ config error" in sticky.body
