"""The Actions runner's side of a step: log, annotations, outputs, job summary, masks, git trust.

Everything the bot writes to the runner passes through `Runner.clean`: the shelf's redaction
(built-in credential shapes plus `POLICY.patterns`) and the literal tokens the step holds, so a
secret reaches neither the log, an annotation, an output nor the summary. Annotation text is
escaped and log lines never start with text from a change, so nothing in a pull request can be
read as a workflow command.
"""

from __future__ import annotations

import subprocess
import sys
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO

from memshelf_render.redact import PolicyPack, mask
from memshelf_render.report.as_github import annotation

ANNOTATIONS_PER_TYPE = 10  # GitHub displays at most 10 annotations of each type per step
SUMMARY_LIMIT = 1024 * 1024  # GitHub refuses a step summary over 1 MiB
LEVELS = ("error", "warning", "notice")


@dataclass(frozen=True, slots=True)
class Note:
    """One annotation, shown or (over the per-type limit) kept for the summary."""

    level: str
    path: str | None
    line: int | None
    title: str
    message: str


@dataclass
class Runner:
    env: Mapping[str, str]
    out: TextIO = field(default_factory=lambda: sys.stdout)
    policy: PolicyPack | None = None
    secrets: list[str] = field(default_factory=list)
    outputs: dict[str, str] = field(default_factory=dict)
    summary: list[str] = field(default_factory=list)
    shown: dict[str, int] = field(default_factory=lambda: dict.fromkeys(LEVELS, 0))
    cut: list[Note] = field(default_factory=list)

    # redaction -------------------------------------------------------------------------

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
        self.out.write(self.clean(text) + "\n")
        self.out.flush()

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        self.out.write(f"::group::{self.clean(title)}\n")
        try:
            yield
        finally:
            self.out.write("::endgroup::\n")
            self.out.flush()

    def annotate(self, level: str, path: str | None, line: int | None, title: str, message: str) -> bool:
        """Emit one annotation; past GitHub's per-type limit keep it for the summary instead."""
        note = Note(level, path, line, self.clean(title), self.clean(message))
        if self.shown[level] >= ANNOTATIONS_PER_TYPE:
            self.cut.append(note)
            return False
        self.shown[level] += 1
        self.out.write(annotation(level, note.path, note.line, note.title, note.message) + "\n")
        return True

    # outputs and summary -------------------------------------------------------------------

    def set_output(self, name: str, value: object) -> None:
        self.outputs[name] = self.clean("" if value is None else str(value))

    def write_outputs(self) -> None:
        """Append every output to $GITHUB_OUTPUT in the heredoc form, with a fresh random delimiter."""
        path = self.env.get("GITHUB_OUTPUT")
        if not path:
            return
        chunks = []
        for name, value in self.outputs.items():
            delimiter = f"ghadelimiter_{uuid.uuid4()}"
            if delimiter in value or delimiter in name:  # cannot happen with a fresh uuid; never write one
                raise RuntimeError("output delimiter collision")
            chunks.append(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")
        with open(path, "a", encoding="utf-8") as fh:
            fh.write("".join(chunks))

    def add_summary(self, markdown: str) -> None:
        self.summary.append(markdown)

    def summary_text(self, limit: int = SUMMARY_LIMIT) -> str:
        return fit_summary(self.clean("\n".join(self.summary).rstrip() + "\n"), limit)

    def write_summary(self) -> None:
        path = self.env.get("GITHUB_STEP_SUMMARY")
        if not path or not self.summary:
            return
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(self.summary_text())

    # git ---------------------------------------------------------------------------------

    def trust_workspace(self, workspace: str) -> None:
        """Add the workspace to git's `safe.directory` (the container's user does not own it)."""
        try:
            listed = subprocess.run(["git", "config", "--global", "--get-all", "safe.directory"],
                                    capture_output=True, text=True, check=False).stdout.split("\n")
            if workspace not in listed and "*" not in listed:
                subprocess.run(["git", "config", "--global", "--add", "safe.directory", workspace],
                               capture_output=True, check=True)
        except (OSError, subprocess.CalledProcessError) as exc:
            self.log(f"memshelf-bot: could not mark {workspace} as a safe git directory: {exc}")


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

