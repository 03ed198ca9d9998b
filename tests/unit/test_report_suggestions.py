"""Suggestion blocks: the exact replacement line for each mechanical fix, none where the right
fix is a judgement call, and never a secret in a replacement."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from bot.report.suggestions import suggest
from memshelf_render.redact import PolicyPack
from memshelf_render.shelf import load_shelf
from memshelf_render.validate import validate_shelf
from tests.action_harness import EXAMPLE, episode

PATH = "docs/topics/2026-09-23-nas.md"


def suggestions_for(tmp_path: Path, text: str) -> list[tuple[int, str, str, str]]:
    return checked(tmp_path, text)[1]


def checked(tmp_path: Path, text: str) -> tuple[set[str], list[tuple[int, str, str, str]]]:
    """The finding codes for `text` as an episode of the example shelf, and its suggestions."""
    root = tmp_path / "shelf"
    shutil.copytree(EXAMPLE, root)
    (root / PATH).write_text(text, encoding="utf-8")
    shelf, _ = load_shelf(root)
    assert shelf is not None
    findings = validate_shelf(shelf, changed=[str(root / PATH)])
    [ep] = [e for e in shelf.episodes if e.path == PATH]
    pack = PolicyPack.parse(shelf.read_text(shelf.patterns_path))
    return {f.code for f in findings}, [(s.line, s.code, s.original, s.replacement) for s in suggest(findings, ep, pack)]


GOOD = episode("2026-09-23-nas")


@pytest.mark.parametrize("before, after, code", [
    ("id: 2026-09-23-nas", "id: 2026-09-22-nas-old", "id-mismatch"),
    ("span: 2026-09-23", "span: '2026-09-23'", "frontmatter-ambiguous"),
    ("span: 2026-09-23", "span: 2026_09_23", "frontmatter-ambiguous"),
    ('display_title: "UPS runtime"', "display_title: Plan: move the pool", "frontmatter-yaml-invalid"),
    ("mode: live", 'mode: live\nnotes: "a\tb"', "control-character"),
    ("mode: live", 'mode: live\nnotes: "a\\tb"', "control-character"),
    ("tags: [homelab]", "tags: homelab, power", "tags-invalid"),
])
def test_each_mechanical_fix_replaces_its_line(tmp_path: Path, before: str, after: str, code: str) -> None:
    text = GOOD.replace(before, after)
    line = next(i for i, t in enumerate(text.split("\n"), start=1) if t.startswith(after.split("\n")[-1][:6]))
    expected = {
        "id-mismatch": "id: 2026-09-23-nas",
        "frontmatter-ambiguous": 'span: "2026-09-23"' if "'" in after else 'span: "2026_09_23"',
        "frontmatter-yaml-invalid": 'display_title: "Plan: move the pool"',
        "control-character": 'notes: "a b"',
        "tags-invalid": "tags: [homelab, power]",
    }[code]
    got = suggestions_for(tmp_path, text)
    assert (line, code, expected) in [(n, c, r) for n, c, _, r in got], got


def test_missing_keys_get_placeholders_before_the_closing_fence(tmp_path: Path) -> None:
    text = GOOD.replace("span: 2026-09-23\n", "").replace("tags: [homelab]\n", "")
    closing = text.split("\n").index("---", 3) + 1
    assert suggestions_for(tmp_path, text) == [(closing, "field-missing", "---", "span: 2026-09-23\ntags: []\n---")]


def test_a_secret_line_is_offered_masked_and_never_shown(tmp_path: Path) -> None:
    token = "ghp_" + "k" * 36
    text = GOOD.replace("- NUT client on the backup host.\n",
                        f"- NUT client on the backup host.\n- key {token} on db1.corp.example.com\n")
    [(line, code, original, replacement)] = suggestions_for(tmp_path, text)
    assert line == text.split("\n").index(f"- key {token} on db1.corp.example.com") + 1
    assert code in ("secret", "policy-pattern-match") and token not in original + replacement
    assert replacement == "- key «redacted:github-token» on «redacted:internal-host»"


def test_no_suggestion_where_the_fix_is_a_judgement_call(tmp_path: Path) -> None:
    commented = GOOD.replace("span: 2026-09-23", "span: 2026-09-23 # the night of the move")
    # quote the comment too, or drop it? the author decides
    assert checked(tmp_path / "a", commented) == ({"frontmatter-ambiguous"}, [])
    plural = GOOD.replace("The UPS carries", "We saw the UPS carry")
    assert checked(tmp_path / "b", plural) == ({"digest-referent-we"}, [])


def test_suggestions_come_from_the_findings_structure_never_their_words(tmp_path: Path) -> None:
    """The same suggestions with every message blanked: codes, lines and the rules' replacements
    carry them. Of the keys a rule inserts, only the id is certain (what `fix` applies)."""
    text = GOOD.replace("id: 2026-09-23-nas\n", "").replace("span: 2026-09-23\n", "").replace(
        "tags: [homelab]", "tags: homelab").replace("mode: live", 'mode: live\nnotes: "a\tb"')
    root = tmp_path / "shelf"
    shutil.copytree(EXAMPLE, root)
    (root / PATH).write_text(text, encoding="utf-8")
    shelf, _ = load_shelf(root)
    assert shelf is not None
    findings = validate_shelf(shelf, changed=[str(root / PATH)])
    [ep] = [e for e in shelf.episodes if e.path == PATH]
    inserted = {f.replacement.text.split(":")[0]: f.replacement.certain for f in findings if f.replacement}
    assert inserted == {"id": True, "span": False}
    given = suggest(findings, ep, None)
    assert {s.code for s in given} == {"field-missing", "tags-invalid", "control-character"}
    assert suggest([dataclasses.replace(f, message="") for f in findings], ep, None) == given
