"""The App's reporter: the job's own channel is the server's structured log (each line tagged
with the delivery); the check run, the sticky comment and the review comments are sinks.

Everything passes `clean` first (the shelf's redaction and the installation token), like the
Action's reporter; nothing here is a workflow command, so notes are plain log fields.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from memshelf_render.escape import log_line
from memshelf_render.redact import PolicyPack, mask

from ..report import Note
from .logs import log


@dataclass
class AppReporter:
    delivery: str
    policy: PolicyPack | None = None
    secrets: list[str] = field(default_factory=list)
    summary: list[str] = field(default_factory=list)  # the door writes it into the check run when no check did
    cut: list[Note] = field(default_factory=list)  # a check run shows every annotation: nothing is cut

    def use_policy(self, policy: PolicyPack | None) -> None:
        self.policy = policy

    def add_secret(self, value: str) -> None:
        if value and value not in self.secrets:
            self.secrets.append(value)

    def clean(self, text: str) -> str:
        text = mask(text, self.policy)
        for secret in self.secrets:
            text = text.replace(secret, "***")
        return text

    def log(self, text: str = "") -> None:
        for line in self.clean(text).split("\n"):
            if line.strip():
                log("flow", delivery=self.delivery, text=log_line(line))

    @contextmanager
    def group(self, title: str) -> Iterator[None]:
        log("flow.group", delivery=self.delivery, text=log_line(self.clean(title)))
        yield

    def annotate(self, note: Note) -> bool:
        log("flow.note", delivery=self.delivery, severity=note.level.value,
            path=self.clean(note.path) if note.path else None, line=note.line,
            title=log_line(self.clean(note.title)), text=log_line(self.clean(note.message)))
        return True

    def add_summary(self, markdown: str) -> None:
        self.summary.append(markdown)
