"""Every edge case of docs/reference.md §13 through `validate`, with the exact codes memshelf-bot reports.

Keys are the §13 "case" column. Where the references disagree, we take the stricter reading
(docs/format.md §2); the BOM row is a deliberate difference (stripped and warned, docs/format.md §2),
also run against the references in tests/unit/test_validate_differential.py
(`test_s2_1_s13_bom_is_stripped_and_warned`).
"""

from __future__ import annotations

import os

import pytest

from memshelf_render.validate import run
from tests.shelfkit import MANIFEST, RESEARCH, RESEARCH_PATH, TOPIC, TOPIC_PATH, make_shelf

DIGEST = "The edge cache moved to TTL eviction. Decided: a TTL of 300 seconds. Open: per-route overrides.\n"

# case -> (episode text for TOPIC_PATH, exact codes on that file)
EPISODE_ROWS = {
    "CRLF line endings": (TOPIC.replace("\n", "\r\n"), []),
    "UTF-8 BOM": ("\ufeff" + TOPIC, ["bom"]),
    "Frontmatter at byte 0": (TOPIC.split("\n", 2)[2], []),
    "Indented H1 before fence": ("  " + TOPIC, ["frontmatter-missing"]),
    "Two H1 lines before fence": ("# one\n" + TOPIC, ["frontmatter-missing"]),
    "Unclosed fence": (TOPIC.replace('notes: "reviewed"\n---\n', 'notes: "reviewed"\n'), ["frontmatter-unclosed"]),
    "id: '...' (single quotes)": (TOPIC.replace("id: 2026-01-05-cache-policy", "id: '2026-01-05-cache-policy'"),
                                  ["frontmatter-ambiguous"]),
    "Unquoted title with ': '": (TOPIC.replace('"Cache policy"', "Cache: policy"), ["frontmatter-yaml-invalid"]),
    "invalid \\q escape": (TOPIC.replace('"Cache policy"', '"Cache \\q"'), ["frontmatter-yaml-invalid"]),
    "notes: x # y": (TOPIC.replace('notes: "reviewed"', "notes: x # y"), ["frontmatter-ambiguous"]),
    "Folded description: >": (TOPIC.replace('description: "Edge cache eviction settled on TTL"',
                                            "description: >\n  Edge cache eviction"),
                              ["control-character", "frontmatter-ambiguous"]),
    "tags: a": (TOPIC.replace("tags: [cache, edge]", "tags: a"), ["tags-invalid"]),
    "tags: (empty)": (TOPIC.replace("tags: [cache, edge]", "tags:"), ["tags-invalid"]),
    'approx_tokens: "100"': (TOPIC.replace("approx_tokens: 1200", 'approx_tokens: "100"'), ["approx-tokens-invalid"]),
    "approx_tokens: -5": (TOPIC.replace("approx_tokens: 1200", "approx_tokens: -5"), ["approx-tokens-not-plain"]),
    "approx_tokens: true": (TOPIC.replace("approx_tokens: 1200", "approx_tokens: true"), ["approx-tokens-not-plain"]),
    "approx_tokens: 1.5": (TOPIC.replace("approx_tokens: 1200", "approx_tokens: 1.5"), ["approx-tokens-invalid"]),
    "approx_tokens: 12k": (TOPIC.replace("approx_tokens: 1200", "approx_tokens: 12k"), ["approx-tokens-invalid"]),
    "mode: bogus": (TOPIC.replace("mode: live", "mode: bogus"), ["mode-invalid"]),
    "unknown kind": (TOPIC.replace("kind: topic", "kind: memo"), ["kind-invalid"]),
    "kind: empty": (TOPIC.replace("kind: topic", "kind:"), ["kind-empty"]),
    "missing span": (TOPIC.replace("span: 2026-01-05\n", ""), ["field-missing"]),
    "empty required section": (TOPIC.replace("TTL 300 s for every route.\n", ""), []),
    "##Decisions": (TOPIC.replace("## Decisions", "##Decisions"), ["heading-malformed", "section-missing"]),
    "##\\tDecisions": (TOPIC.replace("## Decisions", "##\tDecisions"), ["heading-malformed", "section-missing"]),
    "## decisions, trailing spaces": (TOPIC.replace("## Decisions", "## decisions   "), []),
    "## digest lowercase": (TOPIC.replace("## Digest", "## digest"), []),
    "empty Digest section": (TOPIC.replace(DIGEST, ""), ["digest-empty"]),
    "episode in wrong category": (TOPIC.replace("kind: topic", "kind: research"), ["kind-directory-mismatch"]),
    "date absent, dated slug": (TOPIC.replace("date: 2026-01-05\n", ""), []),
    "date: A..B range": (TOPIC.replace("date: 2026-01-05", "date: 2026-01-01..2026-01-05"), ["date-invalid"]),
    "notes with JSON \\t": (TOPIC.replace('notes: "reviewed"', 'notes: "a\\tb"'), ["control-character"]),
    "description > 120 chars": (TOPIC.replace("Edge cache eviction settled on TTL", "x" * 130),
                                ["description-too-long"]),
    "already-redacted KEY=«redacted:env-secret»": (TOPIC.replace("TTL 300 s for every route.",
                                                                 "API_KEY=«redacted:env-secret»"), []),
    "Cyrillic / emoji titles": (TOPIC.replace('"Cache policy"', '"Кэш: политика 🚀"'), []),
    "conflict markers in an episode": (TOPIC.replace("TTL 300 s for every route.\n",
                                                     "<<<<<<< ours\na\n=======\nb\n>>>>>>> theirs\n"),
                                       ["conflict-marker"]),
}


@pytest.mark.parametrize("case", list(EPISODE_ROWS))
def test_episode_edge_case(tmp_path, case):
    text, expected = EPISODE_ROWS[case]
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: text})
    report = run(root, changed=[TOPIC_PATH])
    assert sorted({f.code for f in report.findings if f.path == TOPIC_PATH}) == sorted(expected)


def test_non_utf8_bytes(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC.encode().replace(b"TTL 300", b"TTL \xe9300")})
    report = run(root, changed=[TOPIC_PATH])
    assert [(f.code, f.line) for f in report.findings if f.path == TOPIC_PATH] == [("invalid-utf8", 21)]


def test_research_with_two_digests(tmp_path):
    root = make_shelf(tmp_path / "s", {RESEARCH_PATH: RESEARCH.replace("## Sources", "## Digest")})
    report = run(root, changed=[RESEARCH_PATH])
    assert [f.code for f in report.findings if f.path == RESEARCH_PATH] == ["section-missing"]


def test_date_absent_undated_slug(tmp_path):
    text = TOPIC.replace("2026-01-05-cache-policy", "cache-policy").replace("date: 2026-01-05\n", "")
    root = make_shelf(tmp_path / "s", {"docs/topics/cache-policy.md": text})
    report = run(root, changed=["docs/topics/cache-policy.md"])
    assert [f.code for f in report.findings] == ["date-missing"]


def test_same_id_in_two_categories(tmp_path):
    other = "docs/research/2026-01-05-cache-policy.md"
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, other: TOPIC.replace("kind: topic", "kind: research")
                                       .replace("## Decisions", "## Notes")})
    codes = sorted((f.code, f.path) for f in run(root).findings if f.code == "duplicate-id")
    assert codes == [("duplicate-id", other), ("duplicate-id", TOPIC_PATH)]


def test_docs_readme_at_root_level(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, "docs/README.md": "# Readme\n"})
    assert [(f.code, f.path) for f in run(root).findings if f.severity.value == "error"] == [
        ("stray-file", "docs/README.md")]


def test_extra_category_directory(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, "docs/misc/2026-01-05-x.md": TOPIC})
    errors = {(f.code, f.path) for f in run(root).findings if f.severity.value == "error"}
    assert ("category-undeclared", "docs/misc") in errors


def test_extra_category_declared_is_still_not_a_memory_category(tmp_path):
    manifest = MANIFEST.replace("  - sessions\n", "  - sessions\n  - misc\n")
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, "docs/misc/2026-01-05-x.md": TOPIC}, manifest=manifest)
    errors = {(f.code, f.path) for f in run(root).findings if f.severity.value == "error"}
    assert ("category-unknown", "docs/misc") in errors


def test_split_directory_without_parent(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC, "docs/topics/gone/001-a.md": "# a\n"})
    assert ("split-dir-orphaned", "docs/topics/gone") in {(f.code, f.path) for f in run(root).findings}


def test_split_directory_numbering(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC,
                                       "docs/topics/2026-01-05-cache-policy/001-a.md": "a\n",
                                       "docs/topics/2026-01-05-cache-policy/003-c.md": "c\n"})
    assert "split-out-of-sync" in {f.code for f in run(root).findings}


def test_no_docshelf_json_is_fine(tmp_path):
    root = make_shelf(tmp_path / "s")
    assert not [f for f in run(root).findings if f.path == ".docshelf.json"]


def test_manifest_spec_version_unquoted(tmp_path):
    root = make_shelf(tmp_path / "s", manifest=MANIFEST.replace('"0.1"', "0.1"))
    report = run(root)
    assert report.verdict == "config-error" and report.exit_code == 2
    assert [(f.code, f.line) for f in report.findings] == [("manifest-invalid", 1)]
    assert "spec_version" in report.findings[0].message


def test_empty_shelf_is_valid_but_needs_a_render(tmp_path):
    root = make_shelf(tmp_path / "s", {})
    report = run(root)
    assert report.verdict == "valid"
    assert {f.code for f in report.findings} == {"category-empty", "ledger-missing", "index-missing"}


def test_symlinked_episode_is_not_followed(tmp_path):
    outside = tmp_path / "secret.md"
    outside.write_text(TOPIC, encoding="utf-8")
    root = make_shelf(tmp_path / "s", {})
    os.symlink(outside, root / "docs/topics/2026-01-05-cache-policy.md")
    report = run(root)
    assert ("symlink", "docs/topics/2026-01-05-cache-policy.md") in {(f.code, f.path) for f in report.findings}
    assert report.episodes == 0


def test_nested_repository_under_docs(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC})
    (root / "docs/vendor/.git").mkdir(parents=True)
    assert ("submodule", "docs/vendor") in {(f.code, f.path) for f in run(root).findings}
