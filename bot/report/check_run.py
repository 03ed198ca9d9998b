"""The check run `memshelf-bot` on the head commit: in progress while the bot works, then
completed with the verdict, the summary, and every finding on a file as an annotation (the
adapter sends them 50 per request; summary and text are cut at GitHub's 65,535 characters).

The App's feedback; the Action's too when its token has `checks: write` (without it GitHub
refuses, and the commit status and the job summary carry the verdict).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memshelf_render.check import Verdict

from ..port import CHECK_TEXT_LIMIT, CheckOutput, CheckStatus, Conclusion, GitHubPort, PortError, Reason
from . import Posted, Publication, SinkName, SinkResult
from .notes import check_annotations
from .summary import check_page, headline

CHECK_NAME = "memshelf-bot"
CONCLUSION = {Verdict.VALID: Conclusion.SUCCESS, Verdict.VIOLATIONS: Conclusion.FAILURE,
              Verdict.CONFIG_ERROR: Conclusion.ACTION_REQUIRED}
CUT = "\n\n… (cut: GitHub keeps 65,535 characters of a check run's summary; the findings are annotations)\n"


def fit(markdown: str) -> str:
    """`markdown` within a check run's limit, cut at a line with a visible note."""
    if len(markdown) <= CHECK_TEXT_LIMIT:
        return markdown
    head = markdown[: CHECK_TEXT_LIMIT - len(CUT)]
    return head[: head.rfind("\n") + 1 or len(head)] + CUT


@dataclass
class CheckRunSink:
    """One check run per head commit; `start` it before the work, `publish` completes it. With an
    `external_id` (the App's job key) a job that runs again finds the check run it made before, on
    the same head, and updates it instead of making a second one."""

    port: GitHubPort
    clean: Callable[[str], str]  # the reporter's masker
    name: str = CHECK_NAME
    external_id: str = ""
    run_id: int | None = None

    def _mine(self, head_sha: str) -> int | None:
        if self.run_id is not None or not self.external_id:
            return self.run_id
        return next((run.id for run in self.port.check_runs(head_sha, self.name)
                     if run.external_id == self.external_id), None)

    def start(self, head_sha: str) -> None:
        try:
            self.run_id = self._mine(head_sha)
            if self.run_id is None:
                self.run_id = self.port.create_check_run(self.name, head_sha, CheckStatus.IN_PROGRESS,
                                                         external_id=self.external_id).id
            else:
                self.port.update_check_run(self.run_id, CheckStatus.IN_PROGRESS)
        except PortError as exc:
            if exc.reason not in (Reason.READ_ONLY, Reason.FORBIDDEN):
                raise

    def complete(self, head_sha: str, conclusion: Conclusion, output: CheckOutput) -> None:
        """Complete this job's check run on `head_sha` (made now when there is none yet)."""
        run_id = self._mine(head_sha)
        if run_id is None:
            run = self.port.create_check_run(self.name, head_sha, CheckStatus.COMPLETED, output, conclusion,
                                             external_id=self.external_id)
        else:
            run = self.port.update_check_run(run_id, CheckStatus.COMPLETED, conclusion, output)
        self.run_id = run.id

    def publish(self, publication: Publication) -> SinkResult:
        clean, outcome = self.clean, publication.outcome
        output = CheckOutput(
            title=clean(headline(outcome).replace("**", "")),
            summary=fit(clean(check_page(publication.title, outcome, publication.prefix, cut=[],
                                         actions=list(publication.actions), waits=[],
                                         suggestions=list(publication.suggestions)))),
            annotations=check_annotations(publication.findings, publication.prefix, clean))
        try:
            self.complete(publication.head_sha, CONCLUSION[outcome.verdict], output)
        except PortError as exc:
            if exc.reason in (Reason.READ_ONLY, Reason.FORBIDDEN):
                return SinkResult(SinkName.CHECK_RUN, Posted.READ_ONLY, f"Check run `{self.name}`: not written (the "
                                                                        "token may not write checks).")
            raise
        return SinkResult(SinkName.CHECK_RUN, Posted.DONE, f"Check run `{self.name}`: "
                                                           f"{CONCLUSION[outcome.verdict].value} with "
                                                           f"{len(output.annotations)} annotation(s).")
