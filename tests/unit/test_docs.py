"""The repository explains itself: docs/rules.md matches the catalog, and every section citation
in the code names a document of this repository and a heading that exists in it.

The citation rule: in a .py file a citation is a file and a section number, "docs/reference.md
§14.3". A bare number after it in the same comment block (consecutive comment lines) or string
literal (adjacent literals count as one) cites the same file, so "docs/format.md §5, §7" cites two
sections of one file. A bare number with no citation before it, a file that does not exist, or a
number with no heading of that number in the file fails the test.
"""

from __future__ import annotations

import importlib.util
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SECTION = "\N{SECTION SIGN}"
# "docs/format.md §2" (a full citation; quotes and backticks may stand between) or a bare "§4"
CITATION = re.compile(rf"(?:(?P<file>[\w./-]+\.md)[\s`\"']+)?{SECTION}(?P<num>\d+(?:\.\d+)*)")
HEADING = re.compile(r"^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
CITE_DOCS = "python scripts/cite_docs.py"
# the old document names, spelled so that the rewrite never sees them here
OLD_FORMAT, OLD_REFERENCE = "SP" "EC", "REFERENCE-" "BEHAVIOR"


def _script(name: str):
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _gen_rules_doc():
    return _script("gen_rules_doc")


# --- docs/rules.md ------------------------------------------------------------------------------


def test_rules_doc_is_current():
    gen = _gen_rules_doc()
    committed = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert committed == gen.render(), (
        f"docs/rules.md differs from memshelf_render/catalog.py; regenerate it with: {gen.COMMAND}")


def test_rules_doc_lists_every_code_once():
    from memshelf_render.catalog import RULES

    rows = re.findall(r"^\| `([a-z0-9-]+)` \|", _gen_rules_doc().render(), re.MULTILINE)
    assert sorted(rows) == sorted(RULES)
    assert len(rows) == len(set(rows))


def test_rules_doc_keeps_table_cells_intact():
    """A summary holding `|` or `<tag>` must neither split a row nor become HTML."""
    from memshelf_render.catalog import Rule
    from memshelf_render.findings import Severity

    gen = _gen_rules_doc()
    rule = Rule("x-code", Severity.ERROR, "episode", None, "a | b <system> c", "fix & go")
    row = next(line for line in gen.render({"x-code": rule}).splitlines() if line.startswith("| `x-code`"))
    assert row == "| `x-code` | error | a \\| b &lt;system&gt; c | fix &amp; go | — |"


def test_rules_doc_refuses_a_scope_it_cannot_describe():
    from memshelf_render.catalog import Rule
    from memshelf_render.findings import Severity

    with pytest.raises(ValueError, match="new-scope"):
        _gen_rules_doc().render({"y": Rule("y", Severity.INFO, "new-scope", None, "s", "f")})


# --- section citations --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Citation:
    source: str  # repository-relative .py path
    line: int
    file: str | None  # the .md path it belongs to, or None when none precedes it
    number: str


def _text_blocks(source: str) -> Iterator[list[tuple[int, str]]]:
    """Every comment block and string literal (adjacent literals joined), as its parts: (first
    line, text) of each token."""
    parts: list[tuple[int, str]] = []
    kind, last_row = None, -1
    significant = {tokenize.STRING, tokenize.COMMENT, getattr(tokenize, "FSTRING_MIDDLE", -1)}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type in (tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            if tok.type == tokenize.NEWLINE and kind == "string":
                yield parts
                parts, kind = [], None
            continue
        this = ("comment" if tok.type == tokenize.COMMENT else "string") if tok.type in significant else None
        joins = this is not None and this == kind and (this == "string" or tok.start[0] == last_row + 1)
        if parts and not joins:
            yield parts
            parts, kind = [], None
        if this is not None:
            parts.append((tok.start[0], tok.string))
            kind, last_row = this, tok.end[0]
    if parts:
        yield parts


def citations_in(source: str, name: str) -> Iterator[Citation]:
    for parts in _text_blocks(source):
        text = "\n".join(t for _, t in parts)
        starts, offset = [], 0
        for line, t in parts:
            starts.append((offset, line))
            offset += len(t) + 1
        current: str | None = None
        for m in CITATION.finditer(text):
            current = m["file"] or current
            at = m.start("num")
            part_offset, part_line = next((o, ln) for o, ln in reversed(starts) if o <= at)
            yield Citation(name, part_line + text.count("\n", part_offset, at), current, m["num"])


def headings_of(path: Path) -> set[str]:
    """Section numbers of a Markdown file's headings (`## 6.`, `### 14.3 …`), fenced code skipped."""
    numbers, fence = set(), None
    for line in path.read_text(encoding="utf-8").splitlines():
        m = FENCE.match(line)
        if m:
            fence = None if fence and m[1].startswith(fence) else (fence or m[1][:3])
            continue
        h = None if fence else HEADING.match(line)
        if h:
            numbers.add(h[1])
    return numbers


def citation_problems(cites: list[Citation]) -> list[str]:
    problems, headings = [], {}
    for c in cites:
        where = f"{c.source}:{c.line}: {SECTION}{c.number}"
        if c.file is None:
            problems.append(f"{where} names no file before it (write e.g. 'docs/format.md {SECTION}2')")
            continue
        target = ROOT / c.file
        if not target.is_file():
            problems.append(f"{where} cites {c.file}, which is not a file of the repository")
            continue
        if c.file not in headings:
            headings[c.file] = headings_of(target)
        if c.number not in headings[c.file]:
            problems.append(f"{where}: {c.file} has no heading numbered {c.number}")
    return problems


def test_every_section_citation_names_a_heading_of_a_repository_file():
    cites = [c for path in _script("cite_docs").python_files([ROOT])
             for c in citations_in(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix())]
    assert len(cites) > 50, "the scan found almost no citations: is it still reading the code?"
    problems = citation_problems(cites)
    assert not problems, (
        f"{len(problems)} bad section citation(s); old-style citations are rewritten by "
        f"`{CITE_DOCS}`, the rest need a file named before them:\n" + "\n".join(problems))


def test_citation_scan_follows_the_rule():
    source = (
        '"""See docs/format.md \N{SECTION SIGN}2 and \N{SECTION SIGN}5; docs/reference.md \N{SECTION SIGN}14.3."""\n'
        "# a bare \N{SECTION SIGN}4 in a comment\n"
        "# continued from docs/format.md \N{SECTION SIGN}6\n"
        "x = 1  # \N{SECTION SIGN}7 alone again\n"
        'y = ("docs/reference.md "\n     "\N{SECTION SIGN}8.4")\n'
    )
    got = [(c.line, c.file, c.number) for c in citations_in(source, "m.py")]
    assert got == [
        (1, "docs/format.md", "2"), (1, "docs/format.md", "5"), (1, "docs/reference.md", "14.3"),
        (2, None, "4"), (3, "docs/format.md", "6"),
        (4, None, "7"),
        (6, "docs/reference.md", "8.4"),
    ]


def test_citation_problems_name_file_and_heading(tmp_path):
    cites = [Citation("m.py", 1, None, "4"), Citation("m.py", 2, "NOWHERE.md", "2"),
             Citation("m.py", 3, "docs/format.md", "99"), Citation("m.py", 4, "docs/format.md", "2")]
    problems = citation_problems(cites)
    assert len(problems) == 3
    assert "names no file" in problems[0]
    assert "not a file of the repository" in problems[1]
    assert "no heading numbered 99" in problems[2]


def test_headings_skip_fenced_code(tmp_path):
    doc = tmp_path / "d.md"
    doc.write_text("## 1. One\n```\n## 2. not a heading\n```\n### 1.1 Sub\n# 2026-09-16-id\n", encoding="utf-8")
    assert headings_of(doc) == {"1", "1.1"}


@pytest.mark.parametrize(("doc", "numbers"), [
    ("docs/format.md", [str(n) for n in range(1, 11)]),
    ("docs/reference.md", [str(n) for n in range(1, 15)]
     + ["2.1", "2.2", "2.3", "2.4", "2.5", "6.1", "6.2", "6.3", "6.4", "6.5", "6.6", "7.1", "7.2"]
     + [f"8.{n}" for n in range(1, 9)] + [f"14.{n}" for n in range(1, 15)]),
])
def test_docs_keep_their_section_numbers(doc, numbers):
    """The numbering is a contract with the code's comments: it may grow, never lose a number."""
    assert set(numbers) <= headings_of(ROOT / doc)


def test_docs_cross_references_resolve():
    """Inside docs/ the same rule holds per line, except that a bare number with no citation
    before it on its line cites the document itself."""
    problems = []
    for doc in sorted((ROOT / "docs").glob("*.md")):
        own = doc.relative_to(ROOT).as_posix()
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            current = own
            for m in CITATION.finditer(line):
                current = m["file"] or current
                problems += citation_problems([Citation(own, number, current, m["num"])])
    assert not problems, "\n".join(problems)


def _prose(markdown: str) -> str:
    """Markdown without its fenced code blocks and code spans (whose links are examples)."""
    without_blocks = re.sub(r"^(`{3,}|~{3,}).*?^\1", "", markdown, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"(`+)[^\n]*?\1", "", without_blocks)


def test_relative_links_in_the_docs_resolve():
    problems = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(doc.read_text(encoding="utf-8"))):
            if re.match(r"[a-z][a-z0-9+.-]*:|#", target):
                continue
            if not (doc.parent / target.split("#", 1)[0]).exists():
                problems.append(f"{doc.relative_to(ROOT)}: link to {target}, which does not exist")
    assert not problems, "\n".join(problems)


# --- scripts/cite_docs.py -----------------------------------------------------------------------


def test_cite_docs_rewrites_comments_and_literals_only():
    cite = _script("cite_docs")
    source = (
        f'"""{OLD_FORMAT} {SECTION}2 and {OLD_REFERENCE} {SECTION}8.4; see reference/{OLD_REFERENCE}.md."""\n'
        f"{OLD_FORMAT} = 1  # {OLD_FORMAT}.md {SECTION}5, {OLD_FORMAT}_VERSION, a {OLD_FORMAT} sheet\r\n"
        f'x = "{OLD_REFERENCE} {SECTION}14.3"\n'
    )
    expected = (
        f'"""docs/format.md {SECTION}2 and docs/reference.md {SECTION}8.4; see docs/reference.md."""\n'
        f"{OLD_FORMAT} = 1  # docs/format.md {SECTION}5, {OLD_FORMAT}_VERSION, a {OLD_FORMAT} sheet\r\n"
        f'x = "docs/reference.md {SECTION}14.3"\n'
    )
    assert cite.rewrite_source(source) == expected
    assert cite.rewrite_source(expected) == expected  # idempotent


def test_nothing_is_left_for_cite_docs():
    cite = _script("cite_docs")
    stale = [p.relative_to(ROOT).as_posix() for p in cite.rewrite_targets([ROOT])
             if cite.rewrite_source(p.read_bytes().decode("utf-8")) != p.read_bytes().decode("utf-8")]
    assert not stale, f"old-style citations in {', '.join(stale)}; rewrite them with: {CITE_DOCS}"
