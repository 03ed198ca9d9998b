"""Reporters: where a run's words and findings go (reviewdog's model: one findings stream, several
reporters).

`Reporter` is the run's own channel (the Action's: log, workflow-command annotations, job
summary, step outputs; the App's: its log and the check run's output). Everything a reporter
writes passes `clean` first: the shelf's redaction and the secrets the run holds, in every field
(path included). `Sink`s take one `Publication` (the findings of one check and what the flow did)
and put it somewhere else: a check run, the sticky comment, review comments, a SARIF file.
Reporters never import flows; flows hand them typed values.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

from memshelf_render.check import Outcome
from memshelf_render.findings import Finding
from memshelf_render.redact import PolicyPack

from ..port import ChangedFile

OUTPUTS = ("verdict", "errors", "warnings", "episodes", "changed", "commit_sha", "pr_number", "standing_tokens",
           "sarif_file")


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
    def outputs(self) -> Mapping[str, str]: ...

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

    def set_output(self, name: str, value: object) -> None: ...


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

    @property
    def prefix(self) -> str:
        """The shelf's directory in the repository ('' for the root)."""
        return "" if self.shelf_path == "." else self.shelf_path

    @property
    def findings(self) -> list[Finding]:
        return self.outcome.report.findings


class Delivery(StrEnum):
    """What a sink did with a publication."""

    DONE = "done"
    SKIPPED = "skipped"  # nothing to say there, or the policy says no
    READ_ONLY = "read-only"  # the token may not write there; the summary carries it
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class Delivered:
    delivery: Delivery
    said: str  # one sentence for the log and the summary
    outputs: Mapping[str, str] = field(default_factory=dict)  # step outputs it gives (the SARIF file's path)


class Sink(Protocol):
    """One more place a publication goes."""

    def publish(self, publication: Publication) -> Delivered: ...
