"""The shelf dashboard's pure parts: which episodes are expired, which threads are open, and the
Markdown (order, ages, links, escaping and masking, the 65,536-character limit)."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bot.port import COMMENT_LIMIT
from bot.report import markdown as md
from bot.report.dashboard import Dashboard, Where, facts, last_render
from memshelf_render.episode import Episode, parse
from memshelf_render.glance import glance, glance_of
from memshelf_render.redact import PolicyPack, mask
from memshelf_render.retention import expired
from memshelf_render.threads import live_threads, open_threads
from memshelf_render.validate import Report

TODAY = dt.date(2026, 12, 3)
WHERE = Where("https://github.com/octo/shelf", "main")


def episode(eid: str, threads: str = "", *, kind: str = "session", archived: bool = False, extra: str = "",
            category: str = "sessions") -> Episode:
    root = "archive/docs" if archived else "docs"
    text = (f"---\nid: {eid}\nkind: {kind}\nspan: {eid[:10]}\ntags: []\napprox_tokens: 10\n{extra}---\n\n"
            f"## Digest\nSomething happened.\n\n## Open threads\n{threads}\n## Timeline\n- 09:00 start\n")
    return parse(text.encode(), f"{root}/{category}/{eid}.md", category=category, archived=archived)


def test_expired_is_the_references_text_comparison_with_today() -> None:
    eps = [episode("2026-01-01-a", extra="retain_until: 2026-12-02\n"),
           episode("2026-01-02-b", extra="retain_until: 2026-12-03\n"),  # today: kept
           episode("2026-01-03-c"),  # no retain_until: kept forever
           episode("2026-01-04-d", extra='retain_until: ""\n'),  # empty: kept
           episode("2026-01-05-e", extra="retain_until: 2025-06-01\ndisplay_title: \"Old\"\n", archived=True),
           episode("2026-01-06-f", extra="retain_until: 2026-1-9\n")]  # not a day: compared as text
    found = expired(eps, TODAY)
    assert [(e.id, e.retain_until, e.archived) for e in found] == [
        ("2026-01-05-e", "2025-06-01", True), ("2026-01-06-f", "2026-1-9", False),
        ("2026-01-01-a", "2026-12-02", False)]
    assert found[0].title == "Old" and found[2].title == "2026-01-01-a"
    assert found[0].path == "archive/docs/sessions/2026-01-05-e.md"


def test_open_threads_are_top_level_items_or_paragraphs() -> None:
    ep = episode("2026-01-01-a", "- First thread\n  continued here\n  - a nested detail\n- [ ] an open task\n"
                                 "- [x] a finished task\n* Third, a star\n\n1. numbered\n  ```\n  - not an item\n  ```\n"
                                 "- none\n")
    assert list(open_threads(ep)) == [
        "First thread continued here - a nested detail", "an open task", "Third, a star",
        "numbered ``` - not an item ```"]
    prose = episode("2026-01-01-b", "Alerting is missing.\nIt should page.\n\nThe NAS move.\n")
    assert list(open_threads(prose)) == ["Alerting is missing. It should page.", "The NAS move."]
    assert open_threads(episode("2026-01-01-c", "None.\n")) == ()


def test_live_threads_are_the_docs_live_episodes_newest_first() -> None:
    eps = [episode("2026-03-01-old", "- old\n"),
           episode("2026-05-01-new", "- new\n"),
           episode("2026-05-01-another", "- same day\n"),
           episode("2026-06-01-imported", "- imported\n", extra="mode: import\n"),
           episode("2026-07-01-archived", "- archived\n", archived=True),
           episode("2026-08-01-quiet", ""),
           episode("2026-04-01-explicit", "- explicit\n", extra="mode: live\ndate: 2026-09-09\n")]
    assert [e.id for e in live_threads(eps)] == ["2026-04-01-explicit", "2026-05-01-another", "2026-05-01-new",
                                                  "2026-03-01-old"]


def build(eps: list[Episode], *, pack: PolicyPack | None = None, render: str | None = "ab12cd34ef56",
          limit: int = COMMENT_LIMIT, pr: int | None = None) -> str:
    report = Report(Path("."), episodes=len(eps))
    f = facts(glance_of(eps, TODAY), report, 1234)
    return Dashboard(f, WHERE, TODAY, lambda text: mask(text, pack)).body(render, pr, limit=limit)


def test_the_body_shows_health_kinds_threads_with_age_and_link_expired_and_render() -> None:
    eps = [episode("2026-11-30-backups", "- Alerting on failed checks.\n", extra='display_title: "Backups"\n'),
           episode("2026-09-16-rack", "- Rail kit.\n", kind="topic", category="topics"),
           episode("2025-01-01-gone", extra="retain_until: 2026-01-01\n", archived=True)]
    body = build(eps)
    assert body.startswith("<!-- memshelf-bot:dashboard render=ab12cd34ef56 -->\n")
    assert last_render(body) == "ab12cd34ef56"
    assert "**✅ valid** — 3 episodes · 0 errors · 0 warnings · 0 notes" in body
    assert "Standing cost: **1,234 tokens**" in body
    assert "| session | 1 | 1 |" in body and "| topic | 1 | 0 |" in body
    assert "## Open threads (2 threads in 2 live episodes)" in body
    backups = body.index("[Backups](https://github.com/octo/shelf/blob/main/docs/sessions/2026-11-30-backups.md)")
    rack = body.index("/blob/main/docs/topics/2026-09-16-rack.md)")
    assert backups < rack  # newest first
    assert "`2026-11-30`, 3 days old" in body and "`2026-09-16`, 78 days old" in body
    assert "  - Alerting on failed checks." in body
    assert "## Past `retain_until` (1 episode)" in body and "`/shelf purge`" in body
    assert "retained until `2026-01-01` (archived)" in body
    assert "Render commit: [`ab12cd34ef56`](https://github.com/octo/shelf/commit/ab12cd34ef56) on `main`." in body
    assert build(eps) == body  # deterministic: the flow edits only when this changes
    assert "waiting in pull request #7" in build(eps, pr=7)
    nothing = build(eps, render=None)
    assert last_render(nothing) is None and "none yet" in nothing


def test_links_quote_the_path_and_the_branch() -> None:
    where = Where("https://ghe.example/octo/shelf", "release/ü x", "shelves/a b")
    assert where.link("docs/sessions/2026-01-01-a (1).md") == (
        "https://ghe.example/octo/shelf/blob/release/%C3%BC%20x/shelves/a%20b/docs/sessions/2026-01-01-a%20%281%29.md")


HOSTILE = [
    "<img src=x onerror=alert(1)> and <script>alert(1)</script>",
    "<!-- the rest is hidden",
    "ping @octocat and @octo-org/admins",
    "see #12 and octo/shelf#3 and GH-4",
    "[click](javascript:alert(1)) and <javascript:alert(2)>",
    "token ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "employee id EMP-123456 leaked",
    "bell \x07 escape \x1b[31m bidi \u202e",
    "**bold** _it_ `code` | pipe & amp &lt; $x$",
]


def test_a_hostile_corpus_is_escaped_or_masked() -> None:
    pack = PolicyPack.parse("employee-id EMP-\\d{6}\n")
    threads = "".join(f"- {line}\n" for line in HOSTILE)
    body = build([episode("2026-11-01-evil", threads, extra='display_title: "@admin #1 <b>"\n')], pack=pack)
    section = body[body.index("## Open threads"):body.index("## Past")]
    assert "ghp_" not in body and "EMP-123456" not in body
    assert re.search(r"- token «redacted:[a-z-]+»\n", section)
    assert "«redacted:employee-id»" in section
    assert not re.search(r"(?<!\\)<(?!!-- memshelf-bot)", body.replace("<sub>", "").replace("</sub>", ""))
    assert "\\<!-- the rest" in section  # shown, not a comment hiding the rest
    for mention in re.finditer(r"@(?=[A-Za-z0-9])", body):  # every @ GitHub would link is broken
        raise AssertionError(f"a live mention at {mention.start()}: {body[mention.start():mention.start() + 20]!r}")
    assert not re.search(r"#[0-9]", section) and not re.search(r"GH-[0-9]", section)
    assert not re.search(r"(?<!\\)\]\(", body.replace(f"]({WHERE.web}/", "")) and "\\[click\\]" in section
    assert "\x07" not in body and "\x1b" not in body and "\u202e" not in body
    assert "\\*\\*bold\\*\\*" in section and "\\| pipe \\& amp \\&lt; \\$x\\$" in section
    assert f"[{md.text('@admin #1 <b>')}](" in section


def many(n: int, per: int = 3) -> list[Episode]:
    return [episode(f"2026-{1 + i // 28 % 12:02d}-{1 + i % 28:02d}-e{i:05d}",
                    "".join(f"- thread {k} of episode {i}: " + "words " * 30 + "\n" for k in range(per)))
            for i in range(n)]


def test_the_body_stays_within_the_limit_and_says_how_many_threads_were_cut() -> None:
    eps = many(600)
    body = build(eps)
    assert len(body) <= COMMENT_LIMIT
    m = re.search(r"… and ([\d,]+) more threads in ([\d,]+) more episodes", body)
    assert m is not None
    shown = len(re.findall(r"^  - thread", body, flags=re.M))
    assert shown + int(m.group(1).replace(",", "")) == 600 * 3
    assert len(re.findall(r"^- \[", body[body.index("## Open threads"):body.index("## Past")], flags=re.M)) \
        + int(m.group(2)) == 600
    small = build(eps, limit=5000)
    assert len(small) <= 5000 and "more threads" in small


def test_a_huge_thread_is_cut_and_the_expired_list_is_cut_too() -> None:
    huge = episode("2026-11-01-huge", "- " + "x" * 100_000 + "\n")
    gone = [episode(f"2020-01-{1 + i % 28:02d}-g{i:05d}", extra="retain_until: 2021-01-01\n") for i in range(2000)]
    body = build([huge, *gone])
    assert len(body) <= COMMENT_LIMIT
    assert "x" * 499 + "…" in body.replace("\\", "")
    assert re.search(r"… and [\d,]+ more episodes past `retain_until`", body)


def test_the_glance_counts_kinds_on_the_shelf_and_in_the_archive() -> None:
    eps = [episode("2026-01-01-a"), episode("2026-01-02-b", kind="topic", category="topics"),
           episode("2026-01-03-c", archived=True), episode("2026-01-04-d", kind="<b>weird</b>")]
    assert glance_of(eps, TODAY).kinds == (("topic", 1, 0), ("session", 1, 1), ("other", 1, 0))


def test_the_glance_of_a_shelf_on_forked_workers_is_the_glance_of_its_parsed_episodes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memshelf_render.shelf import load_shelf
    from tests.shelfgen import generate_shelf

    generate_shelf(tmp_path / "s", seed=5, episodes=450, archive=40)
    shelf, _ = load_shelf(tmp_path / "s")
    assert shelf is not None
    for ref in shelf.layout.episodes[::7]:  # some expired, on the shelf and in the archive
        path = tmp_path / "s" / ref.path
        path.write_text(path.read_text().replace("\nid: ", "\nretain_until: 2026-01-01\nid: ", 1))
    shelf, _ = load_shelf(tmp_path / "s")
    assert shelf is not None and len(shelf.layout.episodes) >= 400
    monkeypatch.setenv("MEMSHELF_BOT_JOBS", "2")
    forked = glance(shelf, TODAY)
    monkeypatch.setenv("MEMSHELF_BOT_JOBS", "1")
    assert glance(shelf, TODAY) == forked == glance_of(shelf.episodes, TODAY)
    assert forked.live and forked.expired and any(e.archived for e in forked.expired)
