"""SARIF 2.1.0 for GitHub code scanning (`github/codeql-action/upload-sarif`)."""

from __future__ import annotations

from typing import TextIO

from .. import __version__
from ..catalog import RULES
from .as_json import dumps
from .paths import workspace_path

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}
INFO_URI = "https://github.com/memshelf/memshelf-bot"


def _rules() -> tuple[list[dict], dict[str, int]]:
    rules, index = [], {}
    for i, rule in enumerate(RULES.values()):
        index[rule.code] = i
        entry = {
            "id": rule.code,
            "name": "".join(part.capitalize() for part in rule.code.split("-")),
            "shortDescription": {"text": rule.summary},
            "help": {"text": rule.fix},
            "defaultConfiguration": {"level": LEVEL[rule.severity.value]},
            "properties": {"scope": rule.scope},
        }
        if rule.spec_rule:
            entry["properties"]["shelf-spec-rule"] = rule.spec_rule
        rules.append(entry)
    return rules, index


def as_dict(report) -> dict:
    from hashlib import sha256  # here: every validate loads the reporters, few write SARIF

    rules, index = _rules()
    results = []
    for f in report.findings:
        uri = workspace_path(report.root, f.path) if f.path else "shelf.yml"
        fingerprint = sha256(f"{f.code}\0{f.path}\0{f.message}".encode("utf-8", "surrogatepass")).hexdigest()
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": LEVEL[f.severity.value],
            "message": {"text": f"{f.message} (fix: {f.rule.fix})"},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": f.line or 1},
                }
            }],
            "partialFingerprints": {"memshelfFinding/v1": fingerprint},
        })
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "memshelf-bot", "version": __version__,
                                "informationUri": INFO_URI, "rules": rules}},
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    }


def write(report, out: TextIO) -> None:
    out.write(dumps(as_dict(report)) + "\n")
