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
from . import Delivered, Delivery, Publication
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
    """One check run per head commit; `start` it before the work, `publish` completes it."""

    port: GitHubPort
    clean: Callable[[str], str]  # the reporter's masker
    name: str = CHECK_NAME
    run_id: int | None = None

    def start(self, head_sha: str) -> None:
        try:
            self.run_id = self.port.create_check_run(self.name, head_sha, CheckStatus.IN_PROGRESS).id
        except PortError as exc:
            if exc.reason not in (Reason.READ_ONLY, Reason.FORBIDDEN):
                raise

    def publish(self, publication: Publication) -> Delivered:
        clean, outcome = self.clean, publication.outcome
        output = CheckOutput(
            title=clean(headline(outcome).replace("**", "")),
            summary=fit(clean(check_page(publication.title, outcome, publication.prefix, cut=[],
                                         actions=list(publication.actions), waits=[],
                                         suggestions=list(publication.suggestions)))),
            annotations=check_annotations(publication.findings, publication.prefix, clean))
        try:
            if self.run_id is None:
                run = self.port.create_check_run(self.name, publication.head_sha, CheckStatus.COMPLETED, output,
                                                 CONCLUSION[outcome.verdict])
            else:
                run = self.port.update_check_run(self.run_id, CheckStatus.COMPLETED, CONCLUSION[outcome.verdict],
                                                 output)
        except PortError as exc:
            if exc.reason in (Reason.READ_ONLY, Reason.FORBIDDEN):
                return Delivered(Delivery.READ_ONLY, f"Check run `{self.name}`: not written (the token may not "
                                                     "write checks).")
            raise
        self.run_id = run.id
        return Delivered(Delivery.DONE, f"Check run `{self.name}`: {CONCLUSION[outcome.verdict].value} with "
                                        f"{len(output.annotations)} annotation(s).")
