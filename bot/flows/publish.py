"""Reporting a check, whichever flow ran it: the log, annotations, the sticky comment (when
there is a pull request), the job summary and the step outputs. Exit status = the verdict.
"""

from __future__ import annotations

from typing import Any

from github import GithubException

from memshelf_render.check import Outcome, repo_path
from memshelf_render.findings import Finding
from memshelf_render.shelf import Shelf
from memshelf_render.validate import Report

from ..context import ActionContext
from ..feedback import annotations, comment, summary
from ..feedback.suggestions import Suggestion, suggest
from ..github import ApiUnavailable
from ..runner import Runner

OUTPUTS = ("verdict", "errors", "warnings", "episodes", "changed", "commit_sha", "pr_number", "standing_tokens")


def set_outputs(runner: Runner, **values: object) -> None:
    """Every output the action declares, empty when this run has no value for it."""
    for name in OUTPUTS:
        runner.set_output(name, values.get(name, ""))


def log_findings(ctx: ActionContext, findings: list[Finding]) -> None:
    if not findings:
        return
    with ctx.runner.group(f"memshelf-bot: {len(findings)} finding(s)"):
        for f in findings:
            where = repo_path(f.path, ctx.prefix) + (f":{f.line}" if f.line else "") if f.path else "(shelf)"
            ctx.runner.log(f"{where}: {f.severity.value} [{f.code}] {' '.join(f.message.split())}")


def config_error(problems: list[Finding], ctx: ActionContext) -> Outcome:
    return Outcome(report=Report(ctx.workspace, findings=list(problems), config_error=True))


def suggestions_for(ctx: ActionContext, outcome: Outcome, shelf: Shelf | None) -> list[Suggestion]:
    """Mechanical fixes for the changed episodes' findings."""
    if shelf is None or outcome.guard is None:
        return []
    changed = set(outcome.guard.changed_episodes)
    out: list[Suggestion] = []
    for ep in shelf.episodes:
        if ep.path in changed:
            out += suggest([f for f in outcome.report.findings if f.path == ep.path], ep, ctx.runner.policy)
    return out


def publish_check(ctx: ActionContext, outcome: Outcome, shelf: Shelf | None, *, title: str, head_sha: str,
                  pull: Any = None, files: int = 0, actions: list[str] | None = None,
                  remarks: list[str] | None = None) -> int:
    """Tell the author everything, everywhere it belongs; return the exit status. `remarks`
    (what the bot did about the pull request) go into the sticky comment and the summary."""
    runner = ctx.runner
    remarks = list(remarks or [])
    actions = [*(actions or []), *remarks]
    findings = outcome.report.findings
    log_findings(ctx, findings)
    for note in outcome.notes:
        runner.annotate("error", None, None, "memshelf-bot", note)
    annotations.emit(runner, findings, ctx.prefix)
    suggestions = suggestions_for(ctx, outcome, shelf)
    if pull is not None:
        text = comment.body(outcome, suggestions, shelf_path=ctx.inputs.shelf_path,
                            head_sha=head_sha, summary_url=comment.run_url(ctx.server_url, ctx.full_name, ctx.run_id),
                            remarks=remarks)
        text = runner.clean(text)
        policy = shelf.settings.comment if shelf is not None else ctx.inputs.overrides.get("comment", "auto")
        c = outcome.counts
        try:
            result = comment.upsert(ctx.github, pull, text, shelf_path=ctx.inputs.shelf_path, policy=policy,
                                    has_news=bool(c["error"] or c["warning"] or c["info"] or outcome.notes
                                                  or remarks))
        except (ApiUnavailable, GithubException) as exc:  # the verdict stands without the comment
            result = comment.CommentResult("failed", reason=str(exc) if isinstance(exc, ApiUnavailable)
                                           else f"GitHub answered {exc.status}")
        actions.append(f"Sticky comment: {result.describe()}.")
        runner.log(f"memshelf-bot: {result.describe()}")
        if result.action in ("read-only", "failed"):
            runner.annotate("notice", None, None, "memshelf-bot: no PR comment",
                            "The sticky comment could not be written (a fork's read-only token, or GitHub failing); "
                            "this check's annotations and job summary carry the full result.")
    counts = outcome.counts
    runner.add_summary(summary.check_page(title, outcome, ctx.prefix, cut=runner.cut, actions=actions,
                                          waits=ctx.waits, suggestions=suggestions))
    set_outputs(ctx.runner, verdict=outcome.verdict, errors=counts["error"], warnings=counts["warning"],
                episodes=outcome.checked, changed=files, pr_number=getattr(pull, "number", ""),
                standing_tokens=outcome.standing.head if outcome.standing else "")
    runner.log(f"memshelf-bot: {outcome.verdict} ({counts['error']} error(s), {counts['warning']} warning(s))")
    return outcome.exit_code
