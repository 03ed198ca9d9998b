"""The other reporters of one publication: the check run (annotations, conclusion, summary within
GitHub's limit), review comments holding the suggestions, and a SARIF file; each masks every field
and treats a token that may not write as a sink result, not a failure."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from bot.port import AnnotationLevel, ChangedFile, CheckStatus, Conclusion, FileStatus, PullFiles, Reason
from bot.report import Posted, Publication, Suggestion
from bot.report.check_run import CheckRunSink, fit
from bot.report.review import ReviewSink, commentable
from bot.report.sarif import SarifSink
from bot.report.workflow import WorkflowReporter
from memshelf_render.check import Outcome
from memshelf_render.findings import Finding
from memshelf_render.validate import Report
from tests.fakegh import FakeGH

SECRET = "AKIA" + "QWERTYUIOPASDFGH"
PATH = "docs/topics/2026-09-23-nas.md"


@pytest.fixture
def gh(tmp_path: Path) -> FakeGH:
    return FakeGH(tmp_path)


def publication(findings: list[Finding], **kw: object) -> Publication:
    outcome = Outcome(report=Report(Path("."), findings=findings), checked=1)
    return Publication("pull request #1", "a" * 40, outcome, "memory", pr_number=1, **kw)  # type: ignore[arg-type]


FINDINGS = [Finding("secret", PATH, 3, f"a credential: {SECRET}"), Finding("field-missing", PATH, 1, "tags"),
            Finding("manifest-invalid", "", None, "shelf-wide")]


def test_a_check_run_completes_with_every_finding_on_a_file_as_a_masked_annotation(gh: FakeGH) -> None:
    sink = CheckRunSink(gh, WorkflowReporter().clean)
    sink.start("a" * 40)
    delivered = sink.publish(publication(FINDINGS))
    assert delivered.posted is Posted.DONE
    [(run, outputs)] = gh.check_runs_on.values()
    assert (run.status, run.conclusion) == (CheckStatus.COMPLETED, Conclusion.FAILURE)
    [output] = outputs
    assert [(a.path, a.start_line, a.level) for a in output.annotations] == [
        (f"memory/{PATH}", 1, AnnotationLevel.FAILURE), (f"memory/{PATH}", 3, AnnotationLevel.FAILURE)]
    text = json.dumps([output.title, output.summary, [a.message for a in output.annotations]], ensure_ascii=False)
    assert SECRET not in text and "«redacted:aws-access-key»" in text


def test_the_lines_a_review_comment_may_sit_on_are_the_diffs_head_side() -> None:
    assert commentable("@@ -1,3 +1,4 @@\n a\n-b\n+c\n+d\n e\n\\ No newline at end of file\n@@ -20 +21,2 @@\n+x\n y") == {
        1, 2, 3, 4, 21, 22}
    assert commentable(None) == commentable("") == frozenset()


def test_a_check_run_summary_is_cut_at_githubs_limit_at_a_line() -> None:
    text = "".join(f"line {i}\n" for i in range(20_000))
    cut = fit(text)
    assert len(cut) <= 65535 and cut.endswith("findings are annotations)\n") and "\nline 1" in cut


def test_a_token_without_checks_write_is_said_not_raised(gh: FakeGH) -> None:
    gh.refuse("create_check_run", Reason.FORBIDDEN, times=2)
    sink = CheckRunSink(gh, str)
    sink.start("a" * 40)
    assert sink.publish(publication(FINDINGS)).posted is Posted.READ_ONLY


def test_suggestions_on_the_diff_become_one_review_with_suggestion_blocks(gh: FakeGH) -> None:
    patch = "@@ -1,2 +1,3 @@\n ---\n+tags: [a]\n id: x\n@@ -9 +10,0 @@\n-gone"
    gh.pull_files = lambda number: PullFiles((ChangedFile(FileStatus.MODIFIED, f"memory/{PATH}", patch=patch),), 1)
    fix = Suggestion(PATH, 1, "field-missing", "---", f"tags: []\n---\n# {SECRET}", "add the key")
    off = Suggestion(PATH, 7, "control-character", "a\tb", "a b", "flatten")  # line 7 is not in the diff
    delivered = ReviewSink(gh, WorkflowReporter().clean).publish(publication(FINDINGS, suggestions=(fix, off)))
    assert delivered.posted is Posted.DONE and "; 1 on lines outside the diff are in this summary" in delivered.said
    [(number, sha, comments)] = gh.reviews
    assert (number, sha) == (1, "a" * 40)
    [comment] = comments
    assert comment.path == f"memory/{PATH}" and comment.line == 1 and "```suggestion\ntags: []" in comment.body
    assert SECRET not in comment.body
    gh.read_only = True
    assert ReviewSink(gh, str).publish(publication(FINDINGS, suggestions=(fix,))).posted is Posted.READ_ONLY


def test_sarif_has_repository_paths_and_no_secret(tmp_path: Path) -> None:
    delivered = SarifSink(tmp_path, WorkflowReporter().clean).publish(publication(FINDINGS))
    assert delivered.posted is Posted.DONE
    assert delivered.file == ".memshelf-bot/memshelf-bot.sarif"
    text = (tmp_path / ".memshelf-bot" / "memshelf-bot.sarif").read_text()
    log = json.loads(text)
    uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]]
    assert uris == [f"memory/{PATH}", f"memory/{PATH}", "memory/shelf.yml"] and SECRET not in text
    assert sorted(p.name for p in (tmp_path / ".memshelf-bot").iterdir()) == ["memshelf-bot.sarif"]


def test_sarif_replaces_a_planted_file_but_never_writes_through_a_symlink(tmp_path: Path) -> None:
    """The workspace is the pull request's checkout: a file it holds at the path is replaced
    (not written through: a hard link's other name keeps its bytes), a symlink or a
    non-directory in the way is refused and named, and the output stays empty."""
    planted = tmp_path / ".memshelf-bot"
    planted.mkdir()
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("keep\n")
    os.link(elsewhere, planted / "memshelf-bot.sarif")
    assert SarifSink(tmp_path, str).publish(publication(FINDINGS)).posted is Posted.DONE
    assert elsewhere.read_text() == "keep\n" and json.loads((planted / "memshelf-bot.sarif").read_text())["runs"]

    (planted / "memshelf-bot.sarif").unlink()
    (planted / "memshelf-bot.sarif").symlink_to(elsewhere)
    refused = SarifSink(tmp_path, str).publish(publication(FINDINGS))
    assert (refused.posted, refused.file) == (Posted.FAILED, "")
    assert "not a regular file" in refused.said and elsewhere.read_text() == "keep\n"

    shutil.rmtree(planted)
    target = tmp_path / "target"
    target.mkdir()
    planted.symlink_to(target)
    refused = SarifSink(tmp_path, str).publish(publication(FINDINGS))
    assert refused.posted is Posted.FAILED and "not a directory" in refused.said and list(target.iterdir()) == []

    planted.unlink()
    planted.write_text("a file\n")
    refused = SarifSink(tmp_path, str).publish(publication(FINDINGS))
    assert refused.posted is Posted.FAILED and planted.read_text() == "a file\n"


def test_the_workflow_reporter_and_the_fake_satisfy_their_protocols(gh: FakeGH) -> None:
    from bot.port import GitHubPort
    from bot.report import Reporter

    assert isinstance(WorkflowReporter(), Reporter) and isinstance(gh, GitHubPort)
