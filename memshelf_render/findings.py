"""The one findings stream: every check, in every front-end, yields these."""

from __future__ import annotations

from dataclasses import dataclass

from .catalog import RULES, Rule
from .severity import Severity

__all__ = ["Finding", "Severity"]


@dataclass(frozen=True, slots=True)
class Replacement:
    """A mechanical fix the rule knows: line `line` of the file becomes `text` (one or more
    lines), for `why`. Front-ends turn it into a suggestion; nothing parses messages for it.
    `certain`: the text is the one right answer, which `fix` applies; otherwise it holds
    placeholders a person completes, and is only suggested."""

    line: int
    text: str
    why: str
    certain: bool = False


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem at one place. Severity, fix and spec rule come from the catalog by code."""

    code: str
    path: str
    line: int | None
    message: str
    replacement: Replacement | None = None

    @property
    def rule(self) -> Rule:
        return RULES[self.code]

    @property
    def severity(self) -> Severity:
        return self.rule.severity

    def sort_key(self) -> tuple:
        return (self.path, self.line or 0, self.severity.rank, self.code, self.message)

    def as_dict(self) -> dict:
        rule = self.rule
        return {
            "code": self.code,
            "severity": rule.severity.value,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "fix": rule.fix,
            "spec_rule": rule.spec_rule,
        }
