"""The guard's path classes (docs/format.md §8), in-process: repository upkeep and recall-log.tsv pass by
default, changed config files are validated with their line, derived paths and unknown files
among the episodes stay blocked, `allow_paths` and `deny_paths` adjust."""

from __future__ import annotations

from pathlib import Path

import pytest

from memshelf_render.guard import Change, classify
from memshelf_render.shelf import Settings, load_shelf
from tests.shelfkit import make_shelf

UPKEEP = [".github/workflows/shelf-bot.yml", ".github/CODEOWNERS", "README.md", "README", "LICENSE",
          "LICENSE.txt", ".memshelf-bot.yml", "shelf.yml", "POLICY.md", "POLICY.patterns", "recall-log.tsv"]
BLOCKED = ["docs/topics/notes.txt", "docs/topics/sub/deeper.md", "docs/README.md", "archive/docs/topics/x.txt",
           "archive/notes.md", "scripts/tool.sh", "notes.md", "docs/topics/README.md.bak"]
DERIVED = ["INDEX.md", "ledger.tsv", "stats.svg", "docs/topics/.meta.json", "archive/docs/topics/.meta.json"]


@pytest.fixture
def shelf(tmp_path: Path):
    shelf, problems = load_shelf(make_shelf(tmp_path / "shelf"))
    assert shelf is not None, problems
    return shelf


def judge(shelf, path: str, status: str = "modified", **kw):
    return classify(shelf, [Change(status, path)], base_ids=set(), **kw)


@pytest.mark.parametrize("path", UPKEEP)
def test_upkeep_passes_by_default(shelf, path: str) -> None:
    result = judge(shelf, path)
    assert result.ok and result.allowed == [path] and result.findings == []


@pytest.mark.parametrize("path", [".github/workflows/shelf-bot.yml", "README.md", "LICENSE"])
def test_repository_upkeep_passes_beside_a_shelf_in_a_subdirectory(shelf, path: str) -> None:
    result = judge(shelf, f"../{path}")
    assert result.ok and result.allowed == [f"../{path}"]


def test_only_the_repository_level_upkeep_passes_outside_the_shelf(shelf) -> None:
    assert not judge(shelf, "../shelf.yml").ok and not judge(shelf, "../other/tool.sh").ok


@pytest.mark.parametrize("path", BLOCKED)
def test_unknown_files_stay_blocked(shelf, path: str) -> None:
    result = judge(shelf, path, status="added")
    assert not result.ok and result.other == [path]
    assert [f.code for f in result.findings] == ["path-not-allowed"]


def test_the_message_says_a_stray_file_is_among_the_episodes(shelf) -> None:
    [finding] = judge(shelf, "docs/topics/notes.txt", status="added").findings
    assert "among the episodes" in finding.message
    [finding] = judge(shelf, "scripts/tool.sh", status="added").findings
    assert "neither an episode nor in allow_paths" in finding.message


@pytest.mark.parametrize("path", DERIVED)
def test_derived_paths_stay_blocked_even_when_allowed(shelf, path: str) -> None:
    result = judge(shelf, path, allow=["**", path])
    assert not result.ok and [f.code for f in result.findings] == ["derived-path-touched"]


def test_allow_paths_lets_other_paths_through(shelf) -> None:
    assert judge(shelf, "scripts/tool.sh", allow=["scripts/**"]).ok
    assert judge(shelf, "docs/topics/notes.txt", allow=["docs/topics/notes.txt"]).ok


def test_deny_paths_blocks_upkeep_and_wins_over_allow_paths(shelf) -> None:
    result = judge(shelf, ".github/workflows/x.yml", deny=[".github/**"])
    assert not result.ok and "deny_paths" in result.findings[0].message
    assert not judge(shelf, "scripts/tool.sh", allow=["scripts/**"], deny=["scripts/**"]).ok
    assert judge(shelf, "README.md", deny=[".github/**"]).ok


def test_deny_paths_comes_from_the_settings_by_default(shelf) -> None:
    shelf.settings = Settings(deny_paths=("README*",))
    assert not judge(shelf, "README.md").ok
    assert judge(shelf, "README.md", deny=()).ok


def test_a_changed_valid_config_file_passes(shelf) -> None:
    (shelf.root / ".memshelf-bot.yml").write_text("badge: true\ndeny_paths: [scripts/**]\n", encoding="utf-8")
    (shelf.root / "POLICY.patterns").write_text("# kinds\nticket TICKET-[0-9]+\n", encoding="utf-8")
    result = classify(shelf, [Change("modified", ".memshelf-bot.yml"), Change("added", "POLICY.patterns"),
                              Change("modified", "shelf.yml")], base_ids=set())
    assert result.ok and result.findings == []


def test_a_broken_settings_file_is_an_error_with_its_line(shelf) -> None:
    (shelf.root / ".memshelf-bot.yml").write_text("badge: true\nallow_path: [x]\n", encoding="utf-8")
    [finding] = judge(shelf, ".memshelf-bot.yml").findings
    assert (finding.code, finding.severity.value, finding.path) == ("config-invalid", "error", ".memshelf-bot.yml")
    assert "allow_path" in finding.message


def test_a_settings_file_that_is_not_yaml_is_an_error_with_its_line(shelf) -> None:
    (shelf.root / ".memshelf-bot.yml").write_text("badge: true\nstrict: [\n", encoding="utf-8")
    [finding] = judge(shelf, ".memshelf-bot.yml").findings
    assert finding.code == "config-invalid" and finding.line is not None and "not valid YAML" in finding.message


def test_a_broken_manifest_is_an_error_with_its_line(shelf) -> None:
    manifest = shelf.root / "shelf.yml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("mode: single", "mode: [single]"),
                        encoding="utf-8")
    [finding] = judge(shelf, "shelf.yml").findings
    assert (finding.code, finding.line) == ("config-invalid", 2) and "mode" in finding.message


def test_a_broken_patterns_line_is_an_error_with_its_line(shelf) -> None:
    (shelf.root / "POLICY.patterns").write_text("ticket TICKET-[0-9]+\nbroken (\nlonely\n", encoding="utf-8")
    findings = judge(shelf, "POLICY.patterns", status="added").findings
    assert [(f.code, f.line) for f in findings] == [("config-invalid", 2), ("config-invalid", 3)]
    assert not judge(shelf, "POLICY.patterns", status="added").ok


def test_a_removed_config_file_is_not_validated(shelf) -> None:
    (shelf.root / ".memshelf-bot.yml").write_text("nonsense: 1\n", encoding="utf-8")
    assert judge(shelf, ".memshelf-bot.yml", status="removed").ok


def test_the_policy_files_shelf_yml_names_are_upkeep(tmp_path: Path) -> None:
    from tests.shelfkit import MANIFEST

    root = make_shelf(tmp_path / "s", manifest=MANIFEST.replace("POLICY.md", "RULES.md").replace(
        "POLICY.patterns", "rules.patterns"))
    shelf, problems = load_shelf(root)
    assert shelf is not None, problems
    assert judge(shelf, "RULES.md").ok and judge(shelf, "rules.patterns").ok
