"""Which of the Action's sinks run for which token, in-process over the recording fake: a writer
token gets the check run (every finding an annotation) and one review holding the suggestions,
a pull request's check also leaves the SARIF file (`sarif_file`); a fork's read-only token writes
neither; a refusal of one (no `checks: write`, no `pull-requests: write`) leaves the other and
the verdict alone, and the summary keeps every suggestion."""

from __future__ import annotations

import json
from pathlib import Path

from bot import action
from bot.port import CheckStatus, Conclusion, Reason
from bot.report.check_run import CheckRunSink
from bot.report.comment import StickySink
from bot.report.review import ReviewSink
from bot.report.sarif import SarifSink
from memshelf_render.check import Verdict
from tests.action_harness import episode
from tests.fakegh import World, ran

NAS = "docs/topics/2026-09-23-nas.md"
FIXABLE = episode("2026-09-23-nas", title="NAS").replace("id: 2026-09-23-nas\n", "id: nas-move\n")
SARIF = ".memshelf-bot/memshelf-bot.sarif"
SUGGESTION = "```suggestion\nid: 2026-09-23-nas\n```"


def pr_run(tmp_path: Path, *, fork: bool = False, refuse: dict[str, Reason] | None = None):
    world = World.make(tmp_path)
    world.commit("night-shift/nas", {NAS: FIXABLE}, base="main")
    pull = world.gh.add_pull("night-shift/nas")
    for op, reason in (refuse or {}).items():
        world.gh.refuse(op, reason)
    job = world.job(world.pr_event(pull, fork=fork))
    return ran(action.auto_mode, job), job, world, pull


def test_the_sinks_each_mode_and_event_gets(tmp_path: Path) -> None:
    world = World.make(tmp_path)
    world.commit("night-shift/nas", {NAS: FIXABLE}, base="main")
    pr = world.pr_event(world.gh.add_pull("night-shift/nas"))
    main = world.gh.branch_sha("main")
    kinds = {(mode, name): [type(s) for s in action.sinks(mode, world.job(event, mode=None))]
             for mode in ("auto", "guard", "validate", "badge", "render")
             for name, event in (("pr", pr), ("push", world.push_event("main", main, main)))}
    assert kinds[("auto", "pr")] == kinds[("guard", "pr")] == [StickySink, CheckRunSink, ReviewSink, SarifSink]
    assert kinds[("auto", "push")] == kinds[("render", "push")] == kinds[("render", "pr")] == [
        StickySink, CheckRunSink, ReviewSink]
    assert kinds[("validate", "pr")] == kinds[("badge", "push")] == []  # the modes that need no API write nothing


def test_a_writer_token_gets_the_check_run_the_review_and_the_sarif_file(tmp_path: Path) -> None:
    code, job, world, pull = pr_run(tmp_path)
    assert code == 1
    [(run, [output])] = world.gh.check_runs_on.values()
    assert (run.name, run.head_sha, run.status, run.conclusion) == (
        "memshelf-bot", pull.head_sha, CheckStatus.COMPLETED, Conclusion.FAILURE)
    assert (NAS, "memshelf-bot: id-mismatch") in {(a.path, a.title) for a in output.annotations}
    [(number, sha, comments)] = world.gh.reviews
    assert (number, sha) == (pull.number, pull.head_sha) and any(SUGGESTION in c.body for c in comments)
    assert job.reporter.outputs["sarif_file"] == SARIF and job.reporter.outputs["verdict"] == Verdict.VIOLATIONS
    results = json.loads((world.repo / SARIF).read_text(encoding="utf-8"))["runs"][0]["results"]
    assert ("id-mismatch", NAS) in {(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
                                    for r in results}
    summary = job.reporter.summary_text()
    assert "Check run `memshelf-bot`: failure with" in summary and "as review comments" in summary
    assert SUGGESTION in summary  # the summary keeps the suggestions whatever else carries them


def test_a_fork_token_writes_no_check_run_and_no_review_and_the_summary_keeps_the_suggestions(tmp_path: Path) -> None:
    code, job, world, _ = pr_run(tmp_path, fork=True)
    assert code == 1 and world.gh.check_runs_on == {} and world.gh.reviews == []
    summary = job.reporter.summary_text()
    assert "Check run `memshelf-bot`: not written (the token may not write checks)." in summary
    assert "Suggested changes: in this summary (the token may not review)." in summary and SUGGESTION in summary
    assert job.reporter.outputs["sarif_file"] == SARIF  # local: the workflow does not upload it for a fork


def test_a_token_without_checks_write_still_reviews(tmp_path: Path) -> None:
    code, job, world, _ = pr_run(tmp_path, refuse={"create_check_run": Reason.READ_ONLY})
    assert code == 1 and world.gh.check_runs_on == {} and len(world.gh.reviews) == 1
    assert "not written (the token may not write checks)" in job.reporter.summary_text()


def test_a_refused_review_falls_back_to_the_summary(tmp_path: Path) -> None:
    code, job, world, _ = pr_run(tmp_path, refuse={"review": Reason.FORBIDDEN})
    assert code == 1 and world.gh.reviews == [] and len(world.gh.check_runs_on) == 1
    summary = job.reporter.summary_text()
    assert "Suggested changes: in this summary (GitHub refused the review: 403" in summary and SUGGESTION in summary
