"""The agent branch's pull request text: titles from episodes, the body block between markers, a
human's text kept around it, hostile episode text rendered literally, GitHub's size limits."""

from __future__ import annotations

from bot.report import pr_body
from bot.report.pr_body import EpisodeEntry

UPS = EpisodeEntry("docs/topics/2026-09-22-ups.md", "UPS runtime test", "topic", "The UPS carries the rack.",
                   "valid", 0, 0)
NAS = EpisodeEntry("docs/topics/2026-09-23-nas.md", "NAS move", "topic", None, "violations", 2, 1)


def block(entries: list[EpisodeEntry], title: str = "UPS runtime test", compact: bool = False) -> str:
    return pr_body.block(entries, shelf_path=".", branch="shelve/ups", base="main", title_set=title,
                         headline="**✅ valid**", head_sha="a" * 40, context="memshelf-bot/validate", compact=compact)


def test_titles_come_from_the_episodes_and_fit_githubs_limit() -> None:
    assert pr_body.title([UPS], "shelve/ups") == "UPS runtime test"
    assert pr_body.title([UPS, NAS], "shelve/ups") == "2 episodes: UPS runtime test; NAS move"
    assert pr_body.title([], "shelve/empty") == "Shelve shelve/empty"
    odd = EpisodeEntry("p", "Line one\nline\ttwo\x00\x1b[31m", "topic", None, "valid", 0, 0)
    assert pr_body.title([odd], "b") == "Line one line two[31m"
    many = [EpisodeEntry("p", f"Episode number {n} with a long title", "topic", None, "valid", 0, 0)
            for n in range(20)]
    long = pr_body.title(many, "b")
    assert len(long) == pr_body.MAX_TITLE and long.startswith("20 episodes: Episode number 0") and long.endswith("…")


def test_the_block_lists_each_episode_and_renders_hostile_text_literally() -> None:
    hostile = EpisodeEntry("docs/topics/x.md", "<img src=x onerror=alert(1)> @octocat", "topic",
                           "Ping @admins and [click](http://evil) | now", "valid", 0, 0)
    text = block([hostile, NAS])
    assert text.startswith(f"<!-- memshelf-bot:pr shelf=. title={pr_body.fingerprint('UPS runtime test')} -->\n")
    assert text.endswith(pr_body.END)
    assert "#### \\<img src=x onerror=alert(1)\\> @\u200doctocat" in text
    assert "> Ping @\u200dadmins and \\[click\\](http://evil) \\| now" in text
    assert "`docs/topics/2026-09-23-nas.md` · topic · ❌ violations (2 errors, 1 warning)\n\n> *(no digest)*" in text


def test_a_long_branch_lists_forty_episodes_and_counts_the_rest() -> None:
    entries = [UPS] * 45
    text = block(entries)
    assert text.count("#### UPS runtime test") == pr_body.MAX_LISTED
    assert "… and 5 more episodes: the job summary lists every one." in text


def test_updates_replace_only_the_bots_block_and_keep_a_humans_text() -> None:
    first = block([UPS])
    body = f"Reviewed.\n\n{first}\n\nPS: ship it"
    second = block([UPS, NAS], title="2 episodes: UPS runtime test; NAS move")
    merged = pr_body.merged(body, second, "compact", ".")
    assert merged == f"Reviewed.\n\n{second}\n\nPS: ship it"
    assert pr_body.merged("Opened by hand.  \n", second, "compact", ".") == f"Opened by hand.\n\n{second}"
    assert pr_body.merged(None, second, "compact", ".") == second
    assert pr_body.merged(first, second, "compact", "memory") == f"{first}\n\n{second}"  # another shelf's block
    assert pr_body.has_block(body, ".") and not pr_body.has_block("Opened by hand.", ".")


def test_a_title_a_human_changed_is_recognised() -> None:
    body = block([UPS], title="UPS runtime test")
    assert pr_body.title_is_the_bots(body, "UPS runtime test", ".")
    assert not pr_body.title_is_the_bots(body, "UPS test, reviewed", ".")
    assert not pr_body.title_is_the_bots("no block here", "UPS runtime test", ".")


def test_a_body_at_githubs_limit_gets_the_compact_block() -> None:
    human = "x" * (pr_body.MAX_BODY - 2000)
    full, compact = block([UPS] * 30), block([UPS] * 30, compact=True)
    merged = pr_body.merged(human, full, compact, ".")
    assert merged == f"{human}\n\n{compact}" and len(merged) <= pr_body.MAX_BODY
    assert "#### UPS" not in compact and "30 episodes" in compact
