"""The stable JSON contract of PRODUCT.md: tool, version, verdict, counts, findings."""

from __future__ import annotations

import json
from typing import TextIO

from .. import __version__
from ..catalog import RULES
from ..escape import json_text


def as_dict(report) -> dict:
    return {
        "tool": "memshelf-bot",
        "version": __version__,
        "verdict": report.verdict,
        "counts": report.counts,
        "findings": [f.as_dict() for f in report.findings],
    }


def dumps(data: dict) -> str:
    """A JSON document for stdout: readable Unicode, but no character a terminal would act on
    (those are `\\uXXXX` escapes; lone surrogates from undecodable file names too)."""
    return json_text(json.dumps(data, ensure_ascii=False, indent=2))


def write(report, out: TextIO) -> None:
    out.write(dumps(as_dict(report)) + "\n")


def write_rules(out: TextIO) -> None:
    rules = [
        {"code": r.code, "severity": r.severity.value, "scope": r.scope, "spec_rule": r.spec_rule,
         "summary": r.summary, "fix": r.fix}
        for r in RULES.values()
    ]
    out.write(dumps({"tool": "memshelf-bot", "version": __version__, "rules": rules}) + "\n")
