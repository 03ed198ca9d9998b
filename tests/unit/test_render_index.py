"""INDEX.md, SUBINDEX.md and .meta.json rules: titles, descriptions, split documents, category
order, footers, and each deliberate difference from the reference as its own named test."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memshelf_render.render import render_shelf
from memshelf_render.render.index import (
    DEFAULT_PREAMBLE,
    DOCSHELF_FOOTER,
    EMPTY_SHELF,
    category_heading,
    category_order,
    section_label,
)
from memshelf_render.shelf import load_shelf
from memshelf_render.text import clamp_description, humanize_stem
from tests import refs
from tests.shelfkit import MANIFEST, make_shelf


def episode(eid: str, kind: str = "topic", extra: str = "", body: str = "## Decisions\nNone yet.\n") -> str:
    return (f"# {eid}\n\n---\nid: {eid}\nkind: {kind}\nspan: 2026-01-01\n{extra}tags: []\napprox_tokens: 10\n"
            f"---\n\n## Digest\nDecided: x. Open: y.\n\n{body}")


def config(root: Path, **values) -> None:
    base = {"name": "N", "preamble": "Read me first.", "provider": "github", "remote": "", "branch": "main"}
    (root / ".docshelf.json").write_text(json.dumps(base | values), encoding="utf-8")


def render(root: Path):
    shelf, problems = load_shelf(root)
    assert shelf is not None, problems
    return render_shelf(shelf)


def index(root: Path) -> str:
    return (root / "INDEX.md").read_text(encoding="utf-8")


def reference_copy(root: Path, dest: Path) -> Path:
    """A copy of the shelf rendered by `memshelf rebuild` (the oracle)."""
    shutil.copytree(root, dest)
    result = refs.memshelf_rebuild(dest)
    assert "crash" not in result, result
    return dest


# --- small text rules ---------------------------------------------------------------------------


@pytest.mark.parametrize(("stem", "title"), [
    ("2026-03-04-queue-options", "2026 03 04 Queue Options"),
    ("foo_bar-BAZ-x1-iv", "Foo Bar BAZ X1 Iv"),
    ("a--b__c", "A B C"),
    (".hidden", ".hidden"),
    ("Ünïcode-été", "Ünïcode Été"),
])
def test_humanized_stems(stem, title):
    assert humanize_stem(stem) == title


@pytest.mark.parametrize(("name", "heading"), [
    ("topics", "Topics"), ("my-odd_cat2x", "My Odd Cat2X"), ("Zed", "Zed"), ("research", "Research"),
])
def test_category_headings(name, heading):
    assert category_heading(name) == heading


@pytest.mark.parametrize(("filename", "label"), [
    ("001-intro.md", "Intro"), ("002-part_two-x.md", "Part two x"), ("003-iv.md", "IV"),
    ("004-IV.md", "IV"), ("05-xlii.md", "XLII"), ("notes.md", "Notes"), ("003-.md", ""),
    ("1-a.md", "A"), ("x-1-b.md", "X 1 b"), ("001-MyPart-ABC.md", "Mypart abc"), ("006-ß.md", "Ss"),
    ("002-i v.md", "I v"), ("009-IIi.md", "III"),
])
def test_section_labels(filename, label):
    assert section_label(filename) == label


def test_clamp_keeps_short_text_and_cuts_long_text_at_a_word():
    assert clamp_description("  short   text ") == "short text"
    exact = "x" * 120
    assert clamp_description(exact) == exact
    words = "Lorem ipsum dolor sit amet, consectetur adipiscing elit; sed do eiusmod tempor incididunt ut " \
            "labore et dolore magna aliqua — ut enim ad minim"
    assert clamp_description(words) == ("Lorem ipsum dolor sit amet, consectetur adipiscing elit; sed do eiusmod "
                                        "tempor incididunt ut labore et dolore magna…")
    assert clamp_description("word " * 10 + "y" * 200) == ("word " * 10 + "y" * 200)[:119] + "…"


def test_category_order_puts_configured_first_then_code_points():
    assert category_order(["Zed", "alpha", "sessions", "topics"], ("sessions", "nope", "Zed")) == \
        ["sessions", "Zed", "alpha", "topics"]


# --- INDEX layout -------------------------------------------------------------------------------


def test_titles_sort_case_insensitively_and_stably(tmp_path):
    root = make_shelf(tmp_path / "s", {
        "docs/topics/a.md": episode("a", extra='display_title: "zebra"\n'),
        "docs/topics/b.md": episode("b", extra='display_title: "Zebra"\n'),
        "docs/topics/c.md": episode("c", extra='display_title: "Éclair"\n'),
        "docs/topics/d.md": episode("d", extra='display_title: "alpha"\n'),
        "docs/topics/e.md": episode("e"),
    })
    config(root)
    render(root)
    entries = [line for line in index(root).splitlines() if line.startswith("- ")]
    assert entries == ["- **alpha** — `d.md`", "- **E** — `e.md`", "- **zebra** — `a.md`",
                       "- **Zebra** — `b.md`", "- **Éclair** — `c.md`"]


def test_meta_title_falls_back_to_the_raw_id_and_description_is_clamped(tmp_path):
    long = "word " * 40
    root = make_shelf(tmp_path / "s", {
        "docs/topics/2026-01-02-x.md": episode("2026-01-02-x", extra=f'description: "{long}"\n'),
        "docs/topics/2026-01-01-y.md": episode("2026-01-01-y", extra='display_title: "Y"\n'),
        "docs/topics/2026-01-03-z.md": episode("2026-01-03-z"),
    })
    result = render(root)
    meta = json.loads((root / "docs/topics/.meta.json").read_text(encoding="utf-8"))
    assert list(meta) == ["2026-01-01-y.md", "2026-01-02-x.md"]
    assert meta["2026-01-02-x.md"] == {"title": "2026-01-02-x", "description": clamp_description(long)}
    assert meta["2026-01-01-y.md"] == {"title": "Y", "description": ""}
    assert "- **2026 01 03 Z** — `2026-01-03-z.md`" in index(root)
    assert "docs/topics/2026-01-02-x.md: description is 199 characters; clamped to 120 in .meta.json" \
        in result.warnings


def test_meta_is_deleted_when_no_episode_qualifies(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/a.md": episode("a", extra='display_title: "A"\n')})
    render(root)
    assert (root / "docs/topics/.meta.json").exists()
    (root / "docs/topics/a.md").write_text(episode("a"), encoding="utf-8")
    assert render(root).deleted == ["docs/topics/.meta.json"]
    assert not (root / "docs/topics/.meta.json").exists()


def test_repo_line_preamble_and_name_come_from_the_config(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode("t")})
    config(root, name="My shelf", preamble="Line one.", provider="gitea", remote="https://gitea.io/o/r")
    render(root)
    assert index(root).startswith("# My shelf\n\nRepo: <https://gitea.io/o/r>\n\nLine one.\n\n## Topics\n\n"
                                  "- [**T**](https://gitea.io/o/r/raw/branch/main/docs/topics/t.md)\n\n---\n")


def test_null_preamble_means_none(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode("t")})
    config(root, preamble=None)
    render(root)
    assert index(root).startswith("# N\n\n## Topics\n\n")


def split_shelf(tmp_path: Path, sections: int, **cfg) -> Path:
    root = make_shelf(tmp_path / "s", {
        "docs/topics/big.md": episode("big", extra='display_title: "Big Doc"\ndescription: "About it"\n')
        + "x" * 3000,
        **{f"docs/topics/big/{i:03d}-part-{i}.md": "p" * 1100 for i in range(1, sections + 1)},
        "docs/topics/big/SUBINDEX.md": "stale",
        "docs/topics/small.md": episode("small"),
    })
    config(root, **cfg)
    return root


def test_split_document_lists_its_sections(tmp_path):
    root = split_shelf(tmp_path, 2, provider="none")
    render(root)
    assert index(root).split("## Topics\n\n")[1].split("\n---\n")[0] == (
        "### Big Doc — About it\n\n"
        "Full document: [`big.md`](docs/topics/big.md) (~3 KB — prefer pulling individual sections below).\n\n"
        "- [Part 1](docs/topics/big/001-part-1.md)\n"
        "- [Part 2](docs/topics/big/002-part-2.md)\n\n"
        "  *(sections: 2)*\n\n"
        "- [**Small**](docs/topics/small.md)\n"
    )


def test_split_document_over_the_threshold_points_at_its_subindex(tmp_path):
    root = split_shelf(tmp_path, 3, subindex_threshold_sections=2)
    render(root)
    assert ("### Big Doc — About it\n\nFull document: `big.md` (~3 KB — prefer pulling individual sections "
            "below).\n\nSections (3): see the [SUBINDEX](docs/topics/big/SUBINDEX.md) for the per-chapter "
            "list.\n\n- **Small** — `small.md`\n") in index(root)


def test_deliberate_difference_subindex_is_our_own_layout(tmp_path):
    """docshelf's SUBINDEX wording is not part of the spec; ours lists the same chapters with the
    same links (relative without a forge URL) and the INDEX footer."""
    root = split_shelf(tmp_path, 2)
    render(root)
    assert (root / "docs/topics/big/SUBINDEX.md").read_text(encoding="utf-8") == (
        "# Big Doc — chapters\n\nAbout it\n\n"
        "Whole document: [`big.md`](../big.md) (~3 KB). Each chapter below is a file of its own; fetch only "
        "the one a question needs.\n\n"
        "- [Part 1](001-part-1.md) (~1 KB)\n"
        "- [Part 2](002-part-2.md) (~1 KB)\n\n"
        f"---\n\n{DOCSHELF_FOOTER}\n"
    )


def test_subindex_uses_forge_urls_when_there_are_some(tmp_path):
    root = split_shelf(tmp_path, 1, remote="https://github.com/o/r")
    render(root)
    text = (root / "docs/topics/big/SUBINDEX.md").read_text(encoding="utf-8")
    assert "[`big.md`](https://raw.githubusercontent.com/o/r/main/docs/topics/big.md)" in text
    assert "- [Part 1](https://raw.githubusercontent.com/o/r/main/docs/topics/big/001-part-1.md) (~1 KB)" in text


def test_subindex_of_a_directory_that_is_no_longer_split_is_deleted(tmp_path):
    root = split_shelf(tmp_path, 1)
    render(root)
    (root / "docs/topics/big/001-part-1.md").unlink()
    result = render(root)
    assert result.deleted == ["docs/topics/big/SUBINDEX.md"]
    assert "### Big Doc" not in index(root)
    assert "- **Big Doc** — About it — `big.md`" in index(root)


def test_split_index_matches_the_reference(tmp_path, ref_venv):
    root = split_shelf(tmp_path, 12, provider="none")
    ours = tmp_path / "ours"
    shutil.copytree(root, ours)
    render(ours)
    theirs = reference_copy(root, tmp_path / "theirs")
    assert index(ours) == index(theirs)


# --- footers and the empty shelf ----------------------------------------------------------------


def test_deliberate_difference_empty_shelf_keeps_the_footer(tmp_path, ref_venv):
    """docs/reference.md §14.8: the reference ends an empty INDEX after the placeholder line, so a
    fresh shelf fails shelf-spec (index-hand-edited). Ours keeps the footer."""
    root = make_shelf(tmp_path / "s", {})
    config(root)
    theirs = reference_copy(root, tmp_path / "theirs")
    render(root)
    head = f"# N\n\nRead me first.\n\n{EMPTY_SHELF}\n"
    assert index(theirs) == head
    assert index(root) == f"{head}\n---\n\n{DOCSHELF_FOOTER}\n"
    assert refs.shelf_spec_validate(root)["verdict"] == "valid"


def test_deliberate_difference_external_generator_gets_our_own_footer(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode("t")},
                      manifest=MANIFEST.replace("generated_by: docshelf-mcp", "generated_by: external"))
    render(root)
    assert index(root).endswith(
        "\n---\n\n*Rendered by memshelf-bot from the episodes in `docs/` — do not edit by hand.*\n")
    assert "docshelf-mcp" not in index(root)


def test_manual_index_is_neither_written_nor_derived(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode("t", extra='display_title: "T"\n')},
                      manifest=MANIFEST.replace("generated_by: docshelf-mcp", "generated_by: manual"))
    (root / "INDEX.md").write_text("# Hand-kept index\n", encoding="utf-8")
    result = render(root)
    assert "INDEX.md" not in result.files
    assert (root / "INDEX.md").read_text(encoding="utf-8") == "# Hand-kept index\n"
    assert (root / "docs/topics/.meta.json").exists()


def test_deliberate_difference_default_preamble_is_our_own(tmp_path, ref_venv):
    """Without a preamble in .docshelf.json (or without the file) docshelf prints its generic
    preamble; ours is our own text. Everything else is the same."""
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode("t")})
    theirs = reference_copy(root, tmp_path / "theirs")
    render(root)
    ours_lines, their_lines = index(root).split("\n"), index(theirs).split("\n")
    assert ours_lines[2] == DEFAULT_PREAMBLE
    assert their_lines[2] != DEFAULT_PREAMBLE
    assert ours_lines[:2] + ours_lines[3:] == their_lines[:2] + their_lines[3:] and ours_lines[0] == "# Document Shelf"


def test_deliberate_difference_flattened_titles_and_descriptions(tmp_path, ref_venv):
    """docs/reference.md §14.3: JSON escapes in a title or description put raw tabs and newlines
    into the reference's INDEX (a forged line); ours flattens each to one space."""
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode(
        "t", extra='display_title: "A\\nB\\tC"\ndescription: "d\\ne"\n')})
    config(root)
    theirs = reference_copy(root, tmp_path / "theirs")
    render(root)
    assert "- **A\nB\tC** — d e — `t.md`" in index(theirs)
    assert "- **A B C** — d e — `t.md`" in index(root)
    meta = json.loads((root / "docs/topics/.meta.json").read_text(encoding="utf-8"))
    assert meta["t.md"]["title"] == "A\nB\tC"  # .meta.json is JSON: the escape cannot break it


def test_deliberate_difference_repeated_category_order_lists_once(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode("t"),
                                       "docs/sessions/s.md": episode("s", "session")})
    config(root, category_order=["sessions", "topics", "sessions"])
    render(root)
    assert [line for line in index(root).splitlines() if line.startswith("## ")] == ["## Sessions", "## Topics"]


def test_episode_in_another_directory_is_listed_but_gets_no_row(tmp_path):
    root = make_shelf(tmp_path / "s", {"docs/topics/t.md": episode("t"),
                                       "docs/misc/m.md": episode("m", extra='display_title: "M title"\n')})
    config(root, category_order=["topics"])
    result = render(root)
    assert "## Topics\n\n- **T** — `t.md`\n\n## Misc\n\n- **M** — `m.md`\n" in index(root)
    assert ("docs/misc/m.md", "category 'misc' is not one of topics, research, sessions: no ledger row") \
        in result.skipped
    assert "\tm\t" not in (root / "ledger.tsv").read_text(encoding="utf-8")
    assert not (root / "docs/misc/.meta.json").exists()
