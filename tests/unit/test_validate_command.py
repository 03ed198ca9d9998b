"""`memshelf-bot validate` as a user runs it: exit codes, the JSON contract, GitHub
annotations, SARIF, --changed, --strict, --list-rules."""

from __future__ import annotations

import json

from memshelf_render.catalog import RULES
from memshelf_render.escape import workflow_data as escape_data
from memshelf_render.escape import workflow_property as escape_property
from memshelf_render.report.as_github import annotation
from tests.shelfkit import MANIFEST, TOPIC, TOPIC_PATH, make_shelf, run_cli, validate_json

GH_TOKEN = "ghp_" + "Zz09" * 9


def test_clean_shelf_json_contract(tmp_path):
    code, out = validate_json(make_shelf(tmp_path / "s"))
    assert code == 0
    assert set(out) == {"tool", "version", "verdict", "counts", "findings"}
    assert out["tool"] == "memshelf-bot" and out["verdict"] == "valid"
    assert out["counts"] == {"error": 0, "warning": 2, "info": 0}
    assert {f["code"] for f in out["findings"]} == {"ledger-missing", "index-missing"}
    for f in out["findings"]:
        assert set(f) == {"code", "severity", "path", "line", "message", "fix", "spec_rule"}


def test_errors_exit_1_with_exact_finding(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC.replace("mode: live", "mode: bogus")})
    code, out = validate_json(root)
    assert code == 1 and out["verdict"] == "violations"
    [f] = [f for f in out["findings"] if f["severity"] == "error"]
    assert f == {
        "code": "mode-invalid", "severity": "error", "path": TOPIC_PATH, "line": 13,
        "message": "mode 'bogus' is not live or import", "fix": RULES["mode-invalid"].fix,
        "spec_rule": "episode-frontmatter-invalid",
    }


def test_strict_fails_on_warnings(tmp_path):
    root = make_shelf(tmp_path / "s")
    assert validate_json(root)[0] == 0
    code, out = validate_json(root, "--strict")
    assert code == 1 and out["verdict"] == "violations"


def test_config_error_exit_2_with_one_finding(tmp_path):
    root = make_shelf(tmp_path / "s")
    (root / "shelf.yml").unlink()
    code, out = validate_json(root)
    assert code == 2 and out["verdict"] == "config-error"
    assert [f["code"] for f in out["findings"]] == ["manifest-missing"]


def test_schema_invalid_manifest_names_the_key(tmp_path):
    root = make_shelf(tmp_path / "s", manifest=MANIFEST + "colour: blue\n")
    code, out = validate_json(root)
    assert code == 2
    [f] = out["findings"]
    assert f["code"] == "manifest-invalid" and "colour" in f["message"]


def test_settings_unknown_key_is_a_config_error(tmp_path):
    root = make_shelf(tmp_path / "s")
    (root / ".memshelf-bot.yml").write_text("badge: true\nbadges: false\n", encoding="utf-8")
    code, out = validate_json(root)
    assert code == 2 and [f["code"] for f in out["findings"]] == ["settings-invalid"]
    assert out["findings"][0]["line"] is None or out["findings"][0]["line"] >= 1


def test_changed_mode_reports_only_named_episodes_and_no_derived_findings(tmp_path):
    broken = "docs/sessions/2026-01-09-broken.md"
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, broken: "no frontmatter at all\n"})
    code, out = validate_json(root, "--changed", TOPIC_PATH)
    assert code == 0 and out["findings"] == []
    code, out = validate_json(root)
    assert code == 1 and {f["path"] for f in out["findings"] if f["severity"] == "error"} == {broken}


def test_changed_mode_does_not_parse_other_episodes(tmp_path, monkeypatch):
    from memshelf_render import shelf as shelf_mod
    from memshelf_render.validate import run

    others = {f"docs/topics/2026-02-{d:02d}-x.md": TOPIC for d in range(1, 20)}
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, **others})
    parsed = []
    real = shelf_mod.parse
    monkeypatch.setattr(shelf_mod, "parse", lambda data, path, **kw: parsed.append(path) or real(data, path, **kw))
    run(root, changed=[TOPIC_PATH])
    assert parsed == [TOPIC_PATH]


def test_changed_mode_catches_id_collision_by_file_name(tmp_path):
    dup = "docs/research/2026-01-05-cache-policy.md"
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, dup: TOPIC.replace("kind: topic", "kind: research")
                                       .replace("## Decisions", "## Notes")})
    code, out = validate_json(root, "--changed", dup)
    assert code == 1
    assert [(f["code"], f["path"]) for f in out["findings"]] == [("duplicate-id", dup)]


def test_secret_never_printed_in_any_format(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC.replace("every route.", f"every route {GH_TOKEN}.")})
    for fmt in ("text", "json", "github", "sarif"):
        proc = run_cli("validate", str(root), "--format", fmt)
        assert proc.returncode == 1
        assert GH_TOKEN not in proc.stdout + proc.stderr
        assert "«redacted:github-token»" in proc.stdout


def test_github_annotations_escape_and_point_at_lines(tmp_path):
    make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC.replace("mode: live", "mode: bogus")})
    proc = run_cli("validate", "s", "--format", "github", cwd=tmp_path)
    line = next(x for x in proc.stdout.splitlines() if x.startswith("::error"))
    assert line == (f"::error file=s/{TOPIC_PATH},line=13,title=memshelf-bot%3A mode-invalid::"
                    f"mode 'bogus' is not live or import%0Afix: {escape_data(RULES['mode-invalid'].fix)}")


def test_escaping_rules():
    assert escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert escape_property("a,b:c%") == "a%2Cb%3Ac%25"
    assert annotation("warning", "d,x.md", None, "t", "m") == "::warning file=d%2Cx.md,title=t::m"


def test_sarif_is_code_scanning_shaped(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC.replace("## Decisions", "## Choices")})
    proc = run_cli("validate", str(root), "--format", "sarif")
    assert proc.returncode == 1
    sarif = json.loads(proc.stdout)
    assert sarif["version"] == "2.1.0" and sarif["$schema"].endswith("sarif-2.1.0.json")
    [run] = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "memshelf-bot"
    rule_ids = [r["id"] for r in driver["rules"]]
    assert rule_ids == list(RULES)
    errors = [r for r in run["results"] if r["level"] == "error"]
    assert [r["ruleId"] for r in errors] == ["section-missing"]
    for r in run["results"]:
        assert driver["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["region"]["startLine"] >= 1 and not loc["artifactLocation"]["uri"].startswith("/")
        assert r["message"]["text"] and r["partialFingerprints"]


def test_list_rules_prints_every_code(tmp_path):
    proc = run_cli("validate", "--list-rules")
    assert proc.returncode == 0
    for code in RULES:
        assert code in proc.stdout
    data = json.loads(run_cli("validate", "--list-rules", "--format", "json").stdout)
    assert [r["code"] for r in data["rules"]] == list(RULES)
    assert all(r["severity"] in ("error", "warning", "info") and r["fix"] for r in data["rules"])


def test_text_output_ends_with_the_verdict(tmp_path):
    proc = run_cli("validate", str(make_shelf(tmp_path / "s")))
    assert proc.stdout.splitlines()[-1] == "verdict: valid — 0 error(s), 2 warning(s), 0 info (3 episode(s) checked)"
