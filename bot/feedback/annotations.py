"""Findings as workflow-command annotations on the exact lines, errors first.

GitHub shows 10 annotations of each type per step; the runner keeps the rest, and the summary
lists them with their count, so nothing is lost when a change has many findings.
"""

from __future__ import annotations

from memshelf_render.check import repo_path
from memshelf_render.findings import Finding

from ..runner import Runner

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def emit(runner: Runner, findings: list[Finding], prefix: str) -> None:
    for f in sorted(findings, key=lambda f: (f.severity.rank, *f.sort_key())):
        runner.annotate(LEVEL[f.severity.value], repo_path(f.path, prefix) if f.path else None, f.line,
                        f"memshelf-bot: {f.code}", f"{f.message}\nfix: {f.rule.fix}")
