"""The Action's door turns a flow's typed result into the step's outputs and exit status (the flows
write no output); a merge queue's group is checked by `mode: auto` like a pull request, with a
commit status and the check run on the group's head."""

from __future__ import annotations

import io
import json
from pathlib import Path

from bot import action
from bot.events import Event, EventKind
from bot.flows.result import FlowOutcome, FlowResult
from bot.report import Posted, SinkName, SinkResult
from bot.report.workflow import WorkflowReporter
from memshelf_render.check import Verdict
from memshelf_sandbox.actionrun import parse_outputs
from tests.action_harness import episode
from tests.fakegh import World, ran

NAS = "docs/topics/2026-09-23-nas.md"
BROKEN = episode("2026-09-23-nas", title="NAS").replace("id: 2026-09-23-nas\n", "id: nas-move\n")
SARIF = SinkResult(SinkName.SARIF, Posted.DONE, "SARIF: 2 finding(s).", ".memshelf-bot/memshelf-bot.sarif")


def test_a_result_becomes_every_declared_output_and_its_exit_status() -> None:
    checked = FlowResult(FlowOutcome.DONE, Verdict.VIOLATIONS, 2, 1, 3, 4, pr_number=7, standing_tokens=1234,
                         posted=(SARIF,))
    assert action.outputs(checked) == {
        "verdict": "violations", "errors": "2", "warnings": "1", "episodes": "3", "changed": "4", "commit_sha": "",
        "pr_number": "7", "standing_tokens": "1234", "sarif_file": ".memshelf-bot/memshelf-bot.sarif"}
    assert checked.exit_code == 1
    rendered = FlowResult(FlowOutcome.DONE, Verdict.VALID, 0, 0, 9, 2, "f" * 40, standing_tokens=99)
    assert (action.outputs(rendered)["commit_sha"], rendered.exit_code) == ("f" * 40, 0)
    assert FlowResult(FlowOutcome.FAILED, Verdict.VALID).exit_code == 1  # a render that did not land
    assert FlowResult(FlowOutcome.DONE, Verdict.CONFIG_ERROR).exit_code == 2
    # a command that committed reports its new head's check as information: the command succeeded
    assert FlowResult(FlowOutcome.DONE, Verdict.VIOLATIONS, judged=False).exit_code == 0
    assert action.outputs(None) == dict.fromkeys(action.OUTPUTS, "")


def test_the_step_writes_the_results_outputs_to_github_output(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    world.commit("night-shift/nas", {NAS: BROKEN}, base="main")
    pull = world.gh.add_pull("night-shift/nas")
    job = world.job(world.pr_event(pull))
    output = tmp_path / "github-output"
    reporter = WorkflowReporter(out=io.StringIO(), output_path=str(output))
    job.reporter = reporter
    assert action.conclude(reporter, action.auto_mode(job)) == 1
    reporter.write_outputs()
    given = parse_outputs(output.read_text(encoding="utf-8"))
    assert (given["verdict"], given["pr_number"], given["sarif_file"]) == (
        "violations", str(pull.number), ".memshelf-bot/memshelf-bot.sarif")


def test_mode_auto_checks_a_merge_groups_head_against_its_base(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    base = world.gh.branch_sha("main")
    head = world.commit("gh-readonly-queue/main/pr-1", {NAS: BROKEN}, base="main")
    group = Event(EventKind.MERGE_GROUP, "merge_group", action="checks_requested", repository="octo/shelf",
                  default_branch="main", head_sha=head, head_ref="refs/heads/gh-readonly-queue/main/pr-1",
                  base_sha=base, base_ref="refs/heads/main")
    job = world.job(group)
    assert ran(action.auto_mode, job) == 1
    outputs = job.reporter.outputs
    assert (outputs["verdict"], outputs["changed"], outputs["pr_number"]) == ("violations", "1", "")
    [(sha, status)] = world.gh.statuses
    assert sha == head and status.state.value == "failure" and status.context == "memshelf-bot/validate"
    [(run, _)] = world.gh.check_runs_on.values()
    assert (run.head_sha, run.conclusion.value) == (head, "failure")
    summary = job.reporter.summary_text()
    assert "## memshelf-bot · merge group for main" in summary and "id-mismatch" in summary
    world.commit("gh-readonly-queue/main/pr-2", {NAS: episode("2026-09-23-nas", title="NAS")}, base="main")
    clean = Event(**{**json.loads(json.dumps(group.to_dict())), "kind": EventKind.MERGE_GROUP,
                     "head_sha": world.gh.branch_sha("gh-readonly-queue/main/pr-2")})
    assert ran(action.auto_mode, world.job(clean)) == 0


def test_a_forks_token_is_made_read_only_by_the_actions_door_not_by_the_flow(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    world.commit("patch-1", {NAS: BROKEN}, base="main")
    pull = world.gh.add_pull("patch-1", head_repo="outsider/shelf")
    assert ran(action.auto_mode, world.job(world.pr_event(pull, fork=True), mode=None)) == 1
    assert not world.gh.ops("mark_read_only")  # a bare job: the flow alone never decides the token is read-only
    ran(action.auto_mode, world.job(world.pr_event(pull, fork=True)))
    assert world.gh.ops("mark_read_only") and world.gh.check_runs_on == {} and not world.gh.reviews
    assert not world.gh.comments_on.get(pull.number)
