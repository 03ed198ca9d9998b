"""What a flow did, as a typed value: the flows return it and each front door turns it into its
own outputs (the Action's step outputs and exit status, the App's check run and delivery record).

`outcome` says whether the work succeeded: a pull request with violations is `DONE` (checked and
told), a render that could not land is `FAILED`. `verdict` and the counts are the check's, when
the flow checked something; `posted` is what each sink did with the check's publication.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from memshelf_render.check import Verdict

from ..report import Posted, SinkName, SinkResult

DETAIL_LIMIT = 300  # characters of `detail`: a line for a log or the status page, not a report


class FlowOutcome(StrEnum):
    DONE = "done"
    NOTHING_TO_DO = "nothing-to-do"  # the event asks for nothing (a notice says why)
    FAILED = "failed"  # the work did not happen (a render that did not land, a command that failed)


@dataclass(frozen=True, slots=True)
class FlowResult:
    outcome: FlowOutcome
    verdict: Verdict | None = None
    errors: int | None = None
    warnings: int | None = None
    episodes: int | None = None
    changed: int | None = None  # files the check covered, or derived files a render changed
    commit_sha: str = ""  # a commit the flow made (a render, a restore, a command's)
    pr_number: int | None = None
    standing_tokens: int | None = None
    head_sha: str = ""  # the commit the verdict is about
    posted: tuple[SinkResult, ...] = ()
    detail: str = ""  # one masked line for logs and the status page
    judged: bool = True  # the verdict is the flow's own judgement (a command's check of its new head is not)

    def __post_init__(self) -> None:
        if len(self.detail) > DETAIL_LIMIT:
            object.__setattr__(self, "detail", self.detail[:DETAIL_LIMIT - 1] + "…")

    @property
    def sarif_file(self) -> str:
        return next((r.file for r in self.posted if r.sink is SinkName.SARIF and r.file), "")

    def sink(self, name: SinkName) -> Posted | None:
        """What the sink `name` did, when the check went to it."""
        return next((r.posted for r in self.posted if r.sink is name), None)

    @property
    def exit_code(self) -> int:
        """0 clean, 1 violations or failed work, 2 a configuration error."""
        if self.judged and self.verdict is Verdict.CONFIG_ERROR:
            return 2
        if self.outcome is FlowOutcome.FAILED:
            return 1
        return 1 if self.judged and self.verdict is Verdict.VIOLATIONS else 0

    def failed(self, detail: str) -> FlowResult:
        return replace(self, outcome=FlowOutcome.FAILED, detail=detail)


def nothing_to_do(detail: str, *, pr_number: int | None = None) -> FlowResult:
    return FlowResult(FlowOutcome.NOTHING_TO_DO, pr_number=pr_number, detail=detail)
