"""The sticky comment's text and the Markdown escaping of everything that came from a change."""

from __future__ import annotations

from pathlib import Path

from bot.report import Level, Note, Suggestion
from bot.report import markdown as md
from bot.report.comment import MAX_BODY, body, marker
from bot.report.summary import cut_lines, findings_table
from memshelf_render.check import EpisodeRow, Outcome, Standing
from memshelf_render.findings import Finding
from memshelf_render.validate import Report


def outcome(findings: list[Finding]) -> Outcome:
    report = Report(Path("."), findings=findings)
    return Outcome(report=report, rows=[EpisodeRow("docs/topics/a.md", "added", 1, 0, 12, 40)],
                   standing=Standing(300, 340), checked=1)


def test_text_from_a_change_renders_literally() -> None:
    assert md.text("a | b <img src=x> [x](y) *bold* @octocat") == (
        "a \\| b \\<img src=x\\> \\[x\\](y) \\*bold\\* @\u200doctocat")
    assert md.text("line one\r\nline two\ttab") == "line one line two tab"
    assert md.code("uses `ticks` here") == "``uses `ticks` here``"
    assert md.code("a|b", in_table=True) == "`a\\|b`"
    assert md.code("`edge`") == "`` `edge` ``"
    assert md.fenced("x\n```\ny", "suggestion") == "````suggestion\nx\n```\ny\n````"


def test_the_body_is_deterministic_marked_and_carries_each_suggestion_once() -> None:
    findings = sorted([Finding("id-mismatch", "docs/topics/a.md", 4, "id 'b' differs from the file name 'a'"),
                       Finding("duplicate-id", "docs/topics/a.md", 4, "id 'b' is also used by docs/topics/b.md")],
                      key=Finding.sort_key)
    suggestion = Suggestion("docs/topics/a.md", 4, "id-mismatch", "id: b", "id: a", "the id must be the file name, a")
    first = body(outcome(findings), [suggestion], shelf_path=".", head_sha="f" * 40, summary_url=None)
    second = body(outcome(findings), [suggestion], shelf_path=".", head_sha="f" * 40, summary_url=None)
    assert first == second and first.startswith(marker(".") + "\n### memshelf-bot: ❌ violations")
    assert first.count("```suggestion\n  id: a\n  ```") == 1
    # under the finding it fixes, not the first finding on its line
    assert first.index("`duplicate-id`") < first.index("`id-mismatch`") < first.index("```suggestion")
    assert "Standing cost: 300 → 340 tokens (+40)." in first
    assert "| `docs/topics/a.md` (added) | ❌ violations | 1 | 0 | 12 | +40 |" in first
    assert "head `ffffffffffff`" in first


def test_a_huge_report_is_cut_to_githubs_comment_limit_with_a_note() -> None:
    findings = [Finding("path-not-allowed", f"junk/{i:05d}-{'x' * 60}.txt", None, "not an episode " * 10)
                for i in range(3000)]
    text = body(outcome(findings), [], shelf_path=".", head_sha="0" * 40, summary_url="http://x/runs/1")
    assert len(text) <= MAX_BODY
    assert "more findings: the job summary lists every one." in text
    assert text.endswith("every finding is also an annotation on its line and in the "
                         "[job summary](http://x/runs/1).</sub>")


def test_the_summary_lists_every_finding_and_every_cut_annotation() -> None:
    rows = findings_table([Finding("secret", "docs/a|b.md", 3, "a | pipe")], "")
    assert rows[-2] == ("| ❌ error | `docs/a\\|b.md:3` | `secret` | a \\| pipe | Remove the secret (rotate it if "
                        "it was real); it stays in git history until rewritten. |")
    cut = cut_lines([Note(Level.ERROR, "a.md", 3, "memshelf-bot: x", "m1"), Note(Level.WARNING, None, None, "t", "m2")])
    assert cut[0] == "### Not shown as annotations (1 error, 1 warning)"
    assert cut[4:6] == ["- error `a.md:3` memshelf-bot: x: m1", "- warning `(no file)` t: m2"]
