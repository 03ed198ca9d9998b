"""Reporting a check, whichever flow ran it: one publication, handed to the run's reporter (log and
annotations) and to every sink the front door gave the job (the sticky comment, the check run,
review comments with suggestions, a SARIF file), then the summary; the check as a `FlowResult`.
"""

from __future__ import annotations

from memshelf_render.check import Outcome, repo_path
from memshelf_render.escape import terminal
from memshelf_render.findings import Finding
from memshelf_render.redact import mask
from memshelf_render.shelf import Shelf
from memshelf_render.validate import Report

from ..job import Job
from ..port import ChangedFile
from ..report import Level, Note, Posted, Publication, Reporter, SinkName, Suggestion, notes, summary
from ..report.suggestions import suggest
from . import stale
from .result import FlowOutcome, FlowResult, nothing_to_do


def not_acted_on(reporter: Reporter, what: str) -> FlowResult:
    """Say (a notice and the summary) that the bot does not act on `what`: nothing to do."""
    reporter.annotate(Note(Level.NOTICE, None, None, "memshelf-bot", f"memshelf-bot does not act on {what}; nothing to do"))
    reporter.add_summary(f"## memshelf-bot\n\nNothing to do: memshelf-bot does not act on {what}.\n")
    return nothing_to_do(reporter.clean(f"memshelf-bot does not act on {what}"))


def log_findings(job: Job, findings: list[Finding]) -> None:
    """One log line per finding; its path and message masked, then shown with every control
    character visible (the reporter keeps the line from starting a workflow command)."""
    if not findings:
        return
    reporter = job.reporter
    with reporter.group(f"memshelf-bot: {len(findings)} finding(s)"):
        for f in findings:
            where = repo_path(f.path, job.prefix) + (f":{f.line}" if f.line else "") if f.path else "(shelf)"
            message = " ".join(f.message.split())
            reporter.log(f"{terminal(reporter.clean(where))}: {f.severity.value} [{f.code}] "
                         f"{terminal(reporter.clean(message))}")


def config_error(problems: list[Finding], job: Job) -> Outcome:
    return Outcome(report=Report(job.workspace.root, findings=list(problems), config_error=True))


def suggestions_for(job: Job, outcome: Outcome, shelf: Shelf | None) -> list[Suggestion]:
    """Mechanical fixes for the changed episodes' findings."""
    if shelf is None or outcome.guard is None:
        return []
    changed = set(outcome.guard.changed_episodes)
    policy = job.reporter.policy
    out: list[Suggestion] = []
    for ep in shelf.episodes:
        if ep.path in changed:
            out += suggest([f for f in outcome.report.findings if f.path == ep.path], ep, policy)
    return [Suggestion(s.path, s.line, s.code, mask(s.original, policy), job.reporter.clean(s.replacement), s.why)
            for s in out]


def publish_check(job: Job, outcome: Outcome, shelf: Shelf | None, *, title: str, head_sha: str,
                  pr_number: int | None = None, files: int = 0, actions: list[str] | None = None,
                  remarks: list[str] | None = None, changed: tuple[ChangedFile, ...] | None = None) -> FlowResult:
    """Tell the author everything, everywhere the front door said it belongs (the job's sinks),
    unless a newer head made this run stale; the check as a result. `remarks` (what the bot did
    about the pull request) go into the sticky comment and the summary."""
    reporter = job.reporter
    remarks = list(remarks or [])
    actions = [*(actions or []), *remarks]
    findings = outcome.report.findings
    log_findings(job, findings)
    for note in outcome.notes:
        reporter.annotate(Note(Level.ERROR, None, None, "memshelf-bot", note))
    notes.emit(reporter, findings, job.prefix)
    suggestions = suggestions_for(job, outcome, shelf)
    policy = shelf.settings.comment if shelf is not None else job.workspace.overrides.get("comment", "auto")
    publication = Publication(title, head_sha, outcome, job.workspace.shelf_path, tuple(suggestions), pr_number,
                              files, tuple(actions), tuple(remarks), job.workspace.run_url, changed, policy)
    newer = stale.newer_head(job, pr_number, head_sha) if pr_number is not None else None
    if newer is not None:
        actions.append(stale.withheld(job, pr_number or 0, head_sha, newer))
    posted = tuple(sink.publish(publication) for sink in (job.sinks if newer is None else ()))
    for result in posted:
        if result.said and (result.posted is not Posted.SKIPPED or result.sink is SinkName.COMMENT):
            actions.append(result.said)
            reporter.log(f"memshelf-bot: {result.said}")
        if result.sink is SinkName.COMMENT and result.posted in (Posted.READ_ONLY, Posted.FAILED):
            reporter.annotate(Note(Level.NOTICE, None, None, "memshelf-bot: no PR comment",
                                   "The sticky comment could not be written (a fork's read-only token, or GitHub "
                                   "failing); this check's annotations and job summary carry the full result."))
    counts = outcome.counts
    reporter.add_summary(summary.check_page(title, outcome, job.prefix, cut=list(reporter.cut), actions=actions,
                                            waits=list(job.port.waits), suggestions=suggestions))
    said = f"{outcome.verdict} ({counts['error']} error(s), {counts['warning']} warning(s))"
    reporter.log(f"memshelf-bot: {said}")
    return FlowResult(FlowOutcome.DONE, outcome.verdict, counts["error"], counts["warning"], outcome.checked, files,
                      pr_number=pr_number, standing_tokens=outcome.standing.head if outcome.standing else None,
                      head_sha=head_sha, posted=posted, detail=f"{title}: {reporter.clean(said)}")
