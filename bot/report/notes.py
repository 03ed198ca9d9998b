"""Findings as annotations on their exact lines, errors first, for whichever reporter shows them.

The Action's reporter shows 10 of each type per step and keeps the rest for the summary, which
lists them with their count; a check run takes them all (50 per request).
"""

from __future__ import annotations

from collections.abc import Callable

from memshelf_render.check import repo_path
from memshelf_render.findings import Finding

from ..port import Annotation, AnnotationLevel
from . import Level, Note, Reporter

LEVEL = {"error": Level.ERROR, "warning": Level.WARNING, "info": Level.NOTICE}
CHECK_LEVEL = {Level.ERROR: AnnotationLevel.FAILURE, Level.WARNING: AnnotationLevel.WARNING,
               Level.NOTICE: AnnotationLevel.NOTICE}


def notes(findings: list[Finding], prefix: str) -> list[Note]:
    return [Note(LEVEL[f.severity.value], repo_path(f.path, prefix) if f.path else None, f.line,
                 f"memshelf-bot: {f.code}", f"{f.message}\nfix: {f.rule.fix}")
            for f in sorted(findings, key=lambda f: (f.severity.rank, *f.sort_key()))]


def emit(reporter: Reporter, findings: list[Finding], prefix: str) -> None:
    for note in notes(findings, prefix):
        reporter.annotate(note)


def check_annotations(findings: list[Finding], prefix: str, clean: Callable[[str], str]) -> tuple[Annotation, ...]:
    """The findings on files as check-run annotations (a finding on the shelf as a whole has no
    line to sit on: the check run's summary carries it), every field masked by `clean`."""
    return tuple(Annotation(clean(n.path), n.line or 1, n.line or 1, CHECK_LEVEL[n.level], clean(n.message),
                            clean(n.title)) for n in notes(findings, prefix) if n.path)
