"""`memshelf-bot fix`: every fixable code fixed in place, only on the lines concerned (byte-exact
elsewhere, CRLF kept), idempotent; exit 0 when nothing is left, 1 when findings remain."""

from __future__ import annotations

from pathlib import Path

import pytest

from memshelf_render.fix import plan
from memshelf_render.shelf import load_shelf
from tests.shelfkit import TOPIC, TOPIC_PATH, make_shelf, run_cli, validate_json

SECRET = "AKIAQ7SMOKETESTKEY42"

# code: (the broken TOPIC, the line as fixed); each breaks exactly one line of TOPIC
CASES = {
    "id-mismatch": (TOPIC.replace("id: 2026-01-05-cache-policy", "id: cache-policy"),
                    "id: 2026-01-05-cache-policy"),
    "tags-invalid": (TOPIC.replace("tags: [cache, edge]", "tags: cache, edge"), "tags: [cache, edge]"),
    "frontmatter-ambiguous": (TOPIC.replace('display_title: "Cache policy"', "display_title: 'Cache policy'"),
                              'display_title: "Cache policy"'),
    "frontmatter-yaml-invalid": (TOPIC.replace('description: "Edge cache eviction settled on TTL"',
                                               "description: Edge cache: eviction settled on TTL"),
                                 'description: "Edge cache: eviction settled on TTL"'),
    "control-character": (TOPIC.replace('notes: "reviewed"', 'notes: "reviewed\\tby ops"'),
                          'notes: "reviewed by ops"'),
    "secret": (TOPIC.replace("TTL 300 s for every route.", f"TTL 300 s; the key {SECRET} rotates."),
               "TTL 300 s; the key «redacted:aws-access-key» rotates."),
}


def shelf_with(tmp_path: Path, data: bytes):
    root = make_shelf(tmp_path / "shelf", {TOPIC_PATH: data})
    shelf, problems = load_shelf(root)
    assert shelf is not None, problems
    return root, shelf


def codes_of(root: Path) -> set[str]:
    _, report = validate_json(root, "--changed", str(root / TOPIC_PATH))
    return {f["code"] for f in report["findings"]}


@pytest.mark.parametrize("code", CASES)
def test_each_fixable_code_is_fixed_on_its_line_only(tmp_path: Path, code: str) -> None:
    broken, expected = CASES[code]
    root, shelf = shelf_with(tmp_path, broken.encode())
    assert code in codes_of(root)
    [fix] = plan(shelf)
    assert fix.path == TOPIC_PATH and code in fix.codes
    before, after = broken.split("\n"), fix.data.decode().split("\n")
    changed = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert len(changed) == 1 and changed[0][1] == expected
    (root / TOPIC_PATH).write_bytes(fix.data)
    assert codes_of(root) == set()
    assert plan(load_shelf(root)[0]) == []  # idempotent


def test_a_missing_id_is_set_from_the_stem_before_the_closing_fence(tmp_path: Path) -> None:
    broken = TOPIC.replace("id: 2026-01-05-cache-policy\n", "")
    _, shelf = shelf_with(tmp_path, broken.encode())
    [fix] = plan(shelf)
    assert fix.codes == ("field-missing",)
    assert fix.data.decode() == broken.replace('notes: "reviewed"\n---', 'notes: "reviewed"\nid: 2026-01-05-cache-policy\n---')


def test_a_raw_tab_in_a_title_is_flattened(tmp_path: Path) -> None:
    broken = TOPIC.replace('display_title: "Cache policy"', 'display_title: "Cache\tpolicy"')
    root, shelf = shelf_with(tmp_path, broken.encode())
    assert "control-character" in codes_of(root)
    [fix] = plan(shelf)
    assert fix.data.decode() == TOPIC


def test_a_bom_is_stripped_and_nothing_else_changes(tmp_path: Path) -> None:
    _, shelf = shelf_with(tmp_path, b"\xef\xbb\xbf" + TOPIC.encode())
    [fix] = plan(shelf)
    assert fix.codes == ("bom",) and fix.data == TOPIC.encode()


def test_crlf_is_kept_and_every_other_byte_too(tmp_path: Path) -> None:
    broken = CASES["id-mismatch"][0].replace("\n", "\r\n")
    _, shelf = shelf_with(tmp_path, broken.encode())
    [fix] = plan(shelf)
    assert fix.data == TOPIC.replace("\n", "\r\n").encode()


def test_mixed_line_endings_and_a_missing_id_insert_with_the_files_ending(tmp_path: Path) -> None:
    broken = TOPIC.replace("id: 2026-01-05-cache-policy\n", "").replace("\n", "\r\n")
    broken = broken.replace("## Digest\r\n", "## Digest\n")  # one LF among CRLFs stays an LF
    _, shelf = shelf_with(tmp_path, broken.encode())
    [fix] = plan(shelf)
    text = fix.data.decode()
    assert 'notes: "reviewed"\r\nid: 2026-01-05-cache-policy\r\n---\r\n' in text and "## Digest\n" in text
    assert text.replace("id: 2026-01-05-cache-policy\r\n", "") == broken


def test_several_fixes_in_one_file_reach_a_fixed_point(tmp_path: Path) -> None:
    broken = TOPIC
    for code in ("id-mismatch", "tags-invalid", "control-character", "secret"):
        old, new = next((a, b) for a, b in zip(TOPIC.split("\n"), CASES[code][0].split("\n"), strict=True) if a != b)
        broken = broken.replace(old, new)
    _, shelf = shelf_with(tmp_path, b"\xef\xbb\xbf" + broken.replace("\n", "\r\n").encode())
    [fix] = plan(shelf)
    assert set(fix.codes) == {"bom", "id-mismatch", "tags-invalid", "control-character", "secret"}
    expected = TOPIC.replace('notes: "reviewed"', 'notes: "reviewed by ops"').replace(
        "TTL 300 s for every route.", CASES["secret"][1])
    assert fix.data == expected.replace("\n", "\r\n").encode()


def test_unfixable_findings_are_left_alone(tmp_path: Path) -> None:
    broken = TOPIC.replace("kind: topic", "kind: essay")
    _, shelf = shelf_with(tmp_path, broken.encode())
    assert plan(shelf) == []


def test_cli_writes_the_fixes_and_exits_0_when_nothing_is_left(tmp_path: Path) -> None:
    root, _ = shelf_with(tmp_path, CASES["id-mismatch"][0].encode())
    proc = run_cli("fix", str(root))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"fixed {TOPIC_PATH}: id-mismatch" in proc.stdout and "1 file(s) changed, 0 finding(s) left" in proc.stdout
    assert (root / TOPIC_PATH).read_text(encoding="utf-8") == TOPIC
    again = run_cli("fix", str(root))
    assert again.returncode == 0 and "0 file(s) changed" in again.stdout


def test_cli_exits_1_when_findings_remain_and_never_prints_the_secret(tmp_path: Path) -> None:
    broken = CASES["secret"][0].replace("kind: topic", "kind: essay")
    root, _ = shelf_with(tmp_path, broken.encode())
    proc = run_cli("fix", str(root))
    assert proc.returncode == 1 and "[kind-invalid]" in proc.stdout and SECRET not in proc.stdout
    assert SECRET not in (root / TOPIC_PATH).read_text(encoding="utf-8")


def test_cli_changed_fixes_only_the_named_episodes(tmp_path: Path) -> None:
    other = "docs/topics/2026-01-09-other.md"
    other_text = CASES["id-mismatch"][0].replace("2026-01-05-cache-policy", "2026-01-09-other").replace(
        "id: cache-policy", "id: wrong")
    root = make_shelf(tmp_path / "shelf", {TOPIC_PATH: CASES["id-mismatch"][0], other: other_text})
    proc = run_cli("fix", str(root), "--changed", str(root / TOPIC_PATH))
    assert proc.returncode == 0, proc.stdout
    assert (root / TOPIC_PATH).read_text(encoding="utf-8") == TOPIC
    assert (root / other).read_text(encoding="utf-8") == other_text
