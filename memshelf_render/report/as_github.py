"""GitHub workflow commands (`::error file=...,line=...::message`), escaped as the runner expects.

Every property and the message are escaped for the channel (`escape.workflow_property`,
`escape.workflow_data`) after control characters are made visible, so a hostile file name or
value can neither end the command early, add a property, nor reach the log as a control
sequence; the closing summary line is the bot's own text.
"""

from __future__ import annotations

from typing import TextIO

from ..escape import multiline_terminal, terminal, workflow_data, workflow_property
from .paths import workspace_path

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def annotation(level: str, path: str | None, line: int | None, title: str, message: str) -> str:
    """One workflow command line; `level` is the bot's own (error, warning, notice)."""
    props = []
    if path:
        props.append(f"file={workflow_property(terminal(path))}")
        if line:
            props.append(f"line={int(line)}")
    props.append(f"title={workflow_property(terminal(title))}")
    return f"::{level} {','.join(props)}::{workflow_data(multiline_terminal(message))}"


def finding_annotation(report, f) -> str:
    return annotation(
        LEVEL[f.severity.value],
        workspace_path(report.root, f.path) if f.path else None,
        f.line,
        f"memshelf-bot: {f.code}",
        f"{f.message}\nfix: {f.rule.fix}",
    )


def write(report, out: TextIO) -> None:
    for f in report.findings:
        out.write(finding_annotation(report, f) + "\n")
    c = report.counts
    out.write(f"memshelf-bot: {report.verdict} ({c['error']} error(s), {c['warning']} warning(s))\n")
