"""`validate --format sarif` is valid SARIF 2.1.0: checked against the schema OASIS publishes
(tests/fixtures/sarif/, with its source), for a clean shelf, a shelf full of findings (lines,
no lines, shelf-level and guard findings, hostile text) and a config error."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import jsonschema
import pytest

from memshelf_render.findings import Finding
from memshelf_render.report import as_sarif
from memshelf_render.validate import Report
from tests.shelfkit import TOPIC, TOPIC_PATH, make_shelf, run_cli

SCHEMA_FILE = Path(__file__).resolve().parents[1] / "fixtures" / "sarif" / "sarif-schema-2.1.0.json"
SCHEMA_SHA256 = "c3b4bb2d6093897483348925aaa73af03b3e3f4bd4ca38cef26dcb4212a2682e"


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    raw = SCHEMA_FILE.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256  # the file as published
    schema = json.loads(raw)
    assert schema["id"].startswith("https://docs.oasis-open.org/sarif/sarif/v2.1.0/")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)


def errors(validator, log: dict) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(log)]


def sarif_of(root: Path, *extra: str) -> dict:
    proc = run_cli("validate", str(root), "--format", "sarif", *extra)
    return json.loads(proc.stdout)


def test_the_schema_catches_a_broken_log(validator) -> None:
    """The check can fail: a result without a message is not SARIF."""
    log = as_sarif.as_dict(Report(Path("."), findings=[Finding("id-mismatch", TOPIC_PATH, 4, "x")]))
    del log["runs"][0]["results"][0]["message"]
    assert errors(validator, log)


def test_a_clean_shelf(validator, tmp_path: Path) -> None:
    log = sarif_of(make_shelf(tmp_path / "shelf"), "--changed", str(tmp_path / "shelf" / TOPIC_PATH))
    assert errors(validator, log) == [] and log["runs"][0]["results"] == []


def test_a_shelf_with_findings(validator, tmp_path: Path) -> None:
    bad = TOPIC.replace("id: 2026-01-05-cache-policy", "id: other").replace(
        "TTL 300 s for every route.", "key AKIAQ7SMOKETESTKEY42 \u202e <script> \x1b[31m")
    root = make_shelf(tmp_path / "shelf", {TOPIC_PATH: bad, "docs/stray.md": "# stray\n"})
    log = sarif_of(root)
    assert errors(validator, log) == []
    results = log["runs"][0]["results"]
    assert {"id-mismatch", "secret", "stray-file"} <= {r["ruleId"] for r in results}
    assert "AKIAQ7SMOKETESTKEY42" not in json.dumps(log)


def test_every_finding_shape_in_process(validator) -> None:
    findings = [Finding("id-mismatch", TOPIC_PATH, 4, "id differs"),
                Finding("manifest-missing", "", None, "no shelf.yml"),
                Finding("path-not-allowed", "../tool.sh", None, "outside"),
                Finding("episode-removed", TOPIC_PATH, None, "removed"),
                Finding("category-empty", "docs/research", None, "empty \u2028 line")]
    log = as_sarif.as_dict(Report(Path("."), findings=findings))
    assert errors(validator, log) == []
    assert [r["level"] for r in log["runs"][0]["results"]] == ["error", "error", "error", "warning", "note"]


def test_a_config_error(validator, tmp_path: Path) -> None:
    root = make_shelf(tmp_path / "shelf", manifest="spec_version: 1\n")
    log = sarif_of(root)
    assert errors(validator, log) == [] and log["runs"][0]["results"]


def test_the_actions_sarif_file_is_valid_with_repository_paths(validator, tmp_path: Path) -> None:
    """The file the Action's SARIF sink leaves for upload-sarif: the shelf in `memory/`."""
    from bot.report import Publication
    from bot.report.sarif import SarifSink
    from bot.report.workflow import WorkflowReporter
    from memshelf_render.check import Outcome

    findings = [Finding("id-mismatch", TOPIC_PATH, 4, "id differs"), Finding("manifest-missing", "", None, "none")]
    outcome = Outcome(report=Report(Path("."), findings=findings), checked=1)
    delivered = SarifSink(tmp_path, WorkflowReporter().clean).publish(
        Publication("pull request #1", "a" * 40, outcome, "memory", pr_number=1))
    log = json.loads((tmp_path / delivered.file).read_text(encoding="utf-8"))
    assert errors(validator, log) == []
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]] == [
        f"memory/{TOPIC_PATH}", "memory/shelf.yml"]
