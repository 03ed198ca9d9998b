"""Reporting a check, whichever flow ran it: one publication, handed to every reporter that
applies (the run's log and annotations, the sticky comment when there is a pull request, review
comments with suggestions, the check run and SARIF file when the front door asks for them), then
the summary and the outputs. Exit status = the verdict.
"""

from __future__ import annotations

from memshelf_render.check import Outcome, repo_path
from memshelf_render.escape import terminal
from memshelf_render.findings import Finding
from memshelf_render.redact import mask
from memshelf_render.shelf import Shelf
from memshelf_render.validate import Report

from ..job import Job
from ..port import ChangedFile, PortError, Reason
from ..report import (
    OUTPUTS,
    Delivery,
    Level,
    Note,
    Publication,
    Reporter,
    Suggestion,
    comment,
    notes,
    summary,
)
from ..report.suggestions import suggest
from . import fork_comment, stale


def set_outputs(reporter: Reporter, **values: object) -> None:
    """Every output the action declares, empty when this run has no value for it."""
    for name in OUTPUTS:
        reporter.set_output(name, values.get(name, ""))


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
                  remarks: list[str] | None = None, changed: tuple[ChangedFile, ...] | None = None) -> int:
    """Tell the author everything, everywhere it belongs; return the exit status. `remarks`
    (what the bot did about the pull request) go into the sticky comment and the summary."""
    reporter = job.reporter
    remarks = list(remarks or [])
    actions = [*(actions or []), *remarks]
    findings = outcome.report.findings
    log_findings(job, findings)
    for note in outcome.notes:
        reporter.annotate(Note(Level.ERROR, None, None, "memshelf-bot", note))
    notes.emit(reporter, findings, job.prefix)
    suggestions = suggestions_for(job, outcome, shelf)
    publication = Publication(title, head_sha, outcome, job.workspace.shelf_path, tuple(suggestions), pr_number,
                              files, tuple(actions), tuple(remarks), job.workspace.run_url, changed)
    newer = stale.newer_head(job, pr_number, head_sha) if pr_number is not None else None
    if newer is not None:
        actions.append(stale.withheld(job, pr_number or 0, head_sha, newer))
    elif pr_number is not None:
        actions.append(_sticky(job, publication, shelf))
    given: dict[str, str] = {}
    for sink in job.sinks if newer is None else ():
        delivered = sink.publish(publication)
        given.update(delivered.outputs)
        if delivered.delivery is not Delivery.SKIPPED:
            actions.append(delivered.said)
    counts = outcome.counts
    reporter.add_summary(summary.check_page(title, outcome, job.prefix, cut=list(reporter.cut), actions=actions,
                                            waits=list(job.port.waits), suggestions=suggestions))
    set_outputs(reporter, **given, verdict=outcome.verdict, errors=counts["error"], warnings=counts["warning"],
                episodes=outcome.checked, changed=files, pr_number=pr_number or "",
                standing_tokens=outcome.standing.head if outcome.standing else "")
    reporter.log(f"memshelf-bot: {outcome.verdict} ({counts['error']} error(s), {counts['warning']} warning(s))")
    return outcome.exit_code


def _sticky(job: Job, publication: Publication, shelf: Shelf | None) -> str:
    """Upsert the sticky comment; what became of it, for the summary."""
    reporter, outcome = job.reporter, publication.outcome
    text = reporter.clean(comment.body(outcome, list(publication.suggestions),
                                       shelf_path=publication.shelf_path, head_sha=publication.head_sha,
                                       summary_url=publication.summary_url, remarks=list(publication.remarks)))
    policy = comment.CommentPolicy(shelf.settings.comment if shelf is not None
                                   else job.workspace.overrides.get("comment", "auto"))
    c = outcome.counts
    has_news = bool(c["error"] or c["warning"] or c["info"] or outcome.notes or publication.remarks)
    assert publication.pr_number is not None
    try:
        result = comment.upsert(job.port, publication.pr_number, text, shelf_path=publication.shelf_path,
                                policy=policy, has_news=has_news)
    except PortError as exc:  # the verdict stands without the comment
        result = comment.CommentResult(comment.CommentAction.FAILED, reason=exc.message if exc.reason in (
            Reason.UNAVAILABLE, Reason.RATE_LIMITED) else f"GitHub answered {exc.status}")
    reporter.log(f"memshelf-bot: {result.describe()}")
    if result.action is comment.CommentAction.READ_ONLY and fork_comment.would_post(
            job, publication.pr_number, publication.shelf_path, policy, has_news):
        fork_comment.keep(job, publication.pr_number, publication.head_sha, text)
    if result.action in (comment.CommentAction.READ_ONLY, comment.CommentAction.FAILED):
        reporter.annotate(Note(Level.NOTICE, None, None, "memshelf-bot: no PR comment",
                               "The sticky comment could not be written (a fork's read-only token, or GitHub "
                               "failing); this check's annotations and job summary carry the full result."))
    return f"Sticky comment: {result.describe()}."
