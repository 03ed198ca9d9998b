"""The stable JSON contract of PRODUCT.md: tool, version, verdict, counts, findings."""

from __future__ import annotations

import json
from typing import TextIO

from .. import __version__
from ..catalog import RULES


def as_dict(report) -> dict:
    return {
        "tool": "memshelf-bot",
        "version": __version__,
        "verdict": report.verdict,
        "counts": report.counts,
        "findings": [f.as_dict() for f in report.findings],
    }


def write(report, out: TextIO) -> None:
    json.dump(as_dict(report), out, ensure_ascii=False, indent=2)
    out.write("\n")


def write_rules(out: TextIO) -> None:
    rules = [
        {"code": r.code, "severity": r.severity.value, "scope": r.scope, "spec_rule": r.spec_rule,
         "summary": r.summary, "fix": r.fix}
        for r in RULES.values()
    ]
    json.dump({"tool": "memshelf-bot", "version": __version__, "rules": rules}, out, ensure_ascii=False, indent=2)
    out.write("\n")
