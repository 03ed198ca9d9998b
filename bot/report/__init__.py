"""Reporters: where a run's words and findings go (reviewdog's model: one findings stream, several
reporters).

`Reporter` is the run's own channel (the Action's: log, workflow-command annotations, job
summary; the App's: its structured log). Everything a reporter writes passes `clean` first: the
shelf's redaction and the secrets the run holds, in every field (path included). `Sink`s take one
`Publication` (the findings of one check and what the flow did) and put it somewhere else: the
sticky comment, a check run, review comments, a SARIF file. Which sinks a run has is the front
door's choice, made in one place per door; flows publish to whatever they are given. Step outputs
are no reporter's business: flows return a typed result and the Action's door turns it into
outputs. Reporters never import flows nor doors; flows hand them typed values.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, runtime_checkable

from memshelf_render.check import Outcome
from memshelf_render.findings import Finding
from memshelf_render.redact import PolicyPack

from ..port import ChangedFile


class Level(StrEnum):
    """An annotation's level, in workflow-command words."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"


@dataclass(frozen=True, slots=True)
class Note:
    """One annotation: on a file's line, or on the run (path None)."""

    level: Level
    path: str | None
    line: int | None
    title: str
    message: str


@runtime_checkable
class Reporter(Protocol):
    """The run's own channel. `cut` holds the annotations the channel could not show (GitHub
    shows 10 per type per step), for the summary to list."""

    @property
    def cut(self) -> Sequence[Note]: ...

    @property
    def policy(self) -> PolicyPack | None: ...

    def use_policy(self, policy: PolicyPack | None) -> None:
        """Mask with this shelf's redaction from now on."""

    def add_secret(self, value: str) -> None: ...

    def clean(self, text: str) -> str:
        """`text` with every secret the run knows masked."""

    def log(self, text: str = "") -> None: ...

    def group(self, title: str) -> AbstractContextManager[None]: ...

    def annotate(self, note: Note) -> bool:
        """Show `note`; False when it went to `cut` instead."""

    def add_summary(self, markdown: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A mechanical fix for one line: what GitHub's "Commit suggestion" button would apply."""

    path: str  # shelf-relative
    line: int  # 1-based line the suggestion replaces
    code: str  # the finding it fixes
    original: str
    replacement: str  # one or more lines, without the trailing newline
    why: str


@dataclass(frozen=True, slots=True)
class Publication:
    """One check's result as every sink receives it: the outcome (findings, guard, rows, notes),
    the mechanical fixes, where the shelf lives in the repository, and what the flow did on GitHub
    (`actions` for the summary, `remarks` for the comment as well)."""

    title: str
    head_sha: str
    outcome: Outcome
    shelf_path: str = "."
    suggestions: tuple[Suggestion, ...] = ()
    pr_number: int | None = None
    files: int = 0
    actions: tuple[str, ...] = ()
    remarks: tuple[str, ...] = ()
    summary_url: str | None = None
    changed: tuple[ChangedFile, ...] | None = None  # the pull request's files, hunks included, when the flow read them
    comment_policy: str = "auto"  # the shelf's `comment` setting (auto | always | never)

    @property
    def prefix(self) -> str:
        """The shelf's directory in the repository ('' for the root)."""
        return "" if self.shelf_path == "." else self.shelf_path

    @property
    def findings(self) -> list[Finding]:
        return self.outcome.report.findings


class Posted(StrEnum):
    """What a sink did with a publication."""

    DONE = "done"
    SKIPPED = "skipped"  # nothing to say there, or the policy says no
    READ_ONLY = "read-only"  # the token may not write there; the summary carries it
    FAILED = "failed"


class SinkName(StrEnum):
    COMMENT = "comment"
    CHECK_RUN = "check-run"
    REVIEW = "review"
    SARIF = "sarif"


@dataclass(frozen=True, slots=True)
class SinkResult:
    sink: SinkName
    posted: Posted
    said: str  # one sentence for the log and the summary
    file: str = ""  # a file it left in the workspace (the SARIF file's path)


class Sink(Protocol):
    """One more place a publication goes."""

    def publish(self, publication: Publication) -> SinkResult: ...
