"""The Action's reporter: the step's log, workflow-command annotations, outputs and job summary.

Everything written passes `clean`: the shelf's redaction (built-in credential shapes plus
`POLICY.patterns`) and the literal secrets the step holds, in every field, the annotation's file
path included. Each field is then escaped for its channel (`memshelf_render.escape`): a log line
never starts a workflow command nor carries a control character, and an annotation's properties
and message decode to exactly the text meant, so nothing a pull request carries can forge a
command. GitHub shows 10 annotations of each type per step; the rest go to `cut`, which the
summary lists with their count.
"""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO

from memshelf_render.escape import log_line, workflow_data, workflow_property
from memshelf_render.redact import PolicyPack, mask

from . import Level, Note

ANNOTATIONS_PER_TYPE = 10  # GitHub displays at most 10 annotations of each type per step
SUMMARY_LIMIT = 1024 * 1024  # GitHub refuses a step summary over 1 MiB


def command(note: Note) -> str:
    """`note` as one workflow command, every field escaped for where it goes."""
    props = []
    if note.path:
        props.append(f"file={workflow_property(note.path)}")
        if note.line:
            props.append(f"line={note.line}")
    props.append(f"title={workflow_property(note.title)}")
    return f"::{note.level.value} {','.join(props)}::{workflow_data(note.message)}"


@dataclass
class WorkflowReporter:
    """One Actions step; `output_path` and `summary_path` are $GITHUB_OUTPUT and
    $GITHUB_STEP_SUMMARY (None: not written)."""

    out: TextIO = field(default_factory=lambda: sys.stdout)
    output_path: str | None = None
    summary_path: str | None = None
    policy: PolicyPack | None = None
    secrets: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: list[str] = field(default_factory=list)
    shown: dict[Level, int] = field(default_factory=lambda: dict.fromkeys(Level, 0))
    cut: list[Note] = field(default_factory=list)

    @classmethod
    def from_env(cls, env: Mapping[str, str], out: TextIO | None = None) -> WorkflowReporter:
        return cls(out=out or sys.stdout, output_path=env.get("GITHUB_OUTPUT") or None,
                   summary_path=env.get("GITHUB_STEP_SUMMARY") or None)

    # redaction -------------------------------------------------------------------------

    def use_policy(self, policy: PolicyPack | None) -> None:
        self.policy = policy

    def add_secret(self, value: str) -> None:
        """Mask `value` in the runner's log (`::add-mask::`) and in everything written here."""
        if not value or value in self.secrets:
            return
        self.secrets.append(value)
        for line in value.splitlines():
            if line.strip():
                self.out.write(f"::add-mask::{line}\n")

    def clean(self, text: str) -> str:
        text = mask(text, self.policy)
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    # the log -----------------------------------------------------------------------------

    def log(self, text: str = "") -> None:
        """Lines of text, each one a plain log line whatever it holds."""
        for line in self.clean(text).split("\n"):
            self.out.write(log_line(line) + "\n")
        self.out.flush()

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        self.out.write(f"::group::{workflow_data(self.clean(title))}\n")
        try:
            yield
        finally:
            self.out.write("::endgroup::\n")
            self.out.flush()

    def annotate(self, note: Note) -> bool:
        """Emit one annotation; past GitHub's per-type limit keep it for the summary instead."""
        clean = Note(note.level, self.clean(note.path) if note.path else None, note.line,
                     self.clean(note.title), self.clean(note.message))
        if self.shown[clean.level] >= ANNOTATIONS_PER_TYPE:
            self.cut.append(clean)
            return False
        self.shown[clean.level] += 1
        self.out.write(command(clean) + "\n")
        return True

    # outputs and summary -------------------------------------------------------------------

    def set_output(self, name: str, value: object) -> None:
        self.outputs[name] = self.clean("" if value is None else str(value))

    def write_outputs(self) -> None:
        """Append every output to $GITHUB_OUTPUT in the heredoc form, with a fresh random delimiter."""
        if not self.output_path:
            return
        chunks = []
        for name, value in self.outputs.items():
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
            if delimiter in value or delimiter in name:  # cannot happen with a fresh uuid; never write one
                raise RuntimeError("output delimiter collision")
            chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        with open(self.output_path, "a", encoding="utf-8") as fh:
            fh.write("".join(chunks))

    def add_summary(self, markdown: str) -> None:
        self.summary.append(markdown)

    def summary_text(self, limit: int = SUMMARY_LIMIT) -> str:
        return fit_summary(self.clean("\n".join(self.summary).rstrip() + "\n"), limit)

    def write_summary(self) -> None:
        if not self.summary_path or not self.summary:
            return
        with open(self.summary_path, "a", encoding="utf-8") as fh:
            fh.write(self.summary_text())


def fit_summary(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """`text` if it fits in `limit` bytes of UTF-8; else its head, cut at a line, and a visible note."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    note = ("\n\n> [!WARNING]\n> **This summary was truncated**: {omitted:,} bytes are not shown "
            "(GitHub keeps at most 1 MiB per step). The step's log has every finding.\n")
    room = limit - len(note.format(omitted=len(data)).encode("utf-8"))
    head = data[:room].decode("utf-8", errors="ignore")
    head = head[: head.rfind("\n") + 1] if "\n" in head else head
    omitted = len(data) - len(head.encode("utf-8"))
    return head + note.format(omitted=omitted)
