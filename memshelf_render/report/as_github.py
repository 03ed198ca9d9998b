"""GitHub workflow commands (`::error file=...,line=...::message`), escaped as the runner expects."""

from __future__ import annotations

from typing import TextIO

from .paths import workspace_path

LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(level: str, path: str | None, line: int | None, title: str, message: str) -> str:
    props = []
    if path:
        props.append(f"file={escape_property(path)}")
        if line:
            props.append(f"line={line}")
    props.append(f"title={escape_property(title)}")
    return f"::{level} {','.join(props)}::{escape_data(message)}"


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
