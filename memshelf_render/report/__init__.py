"""Reporters: one findings stream, several formats (text, json, github, sarif)."""

from __future__ import annotations

from typing import TextIO

from . import as_github, as_json, as_sarif, as_text


def emit(report, fmt: str, out: TextIO) -> None:
    {"text": as_text.write, "json": as_json.write, "github": as_github.write, "sarif": as_sarif.write}[fmt](report, out)


def list_rules(fmt: str, out: TextIO) -> None:
    if fmt == "json":
        as_json.write_rules(out)
    else:
        as_text.write_rules(out)
