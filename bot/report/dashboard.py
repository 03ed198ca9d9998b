"""The shelf dashboard's Markdown: one issue that shows what the agents' memory holds and left open.

As Renovate keeps its Dependency Dashboard: the shelf's health (verdict and counts, episodes by
kind, the standing token cost), every live episode's open threads (newest first, with their age
and a link to the episode on the default branch), the episodes past their `retain_until` (and how
to remove them) and the last render commit. Pure: the same facts and day give the same bytes, so
the flow edits the issue only when its text changes.

Every text from the shelf is hostile: it is masked first (`clean`: the shelf's POLICY.patterns,
the built-in credential shapes, the run's secrets), then escaped (`markdown.text`/`code`: no
markup, no HTML, no mention or issue reference GitHub would link). The body stays within an
issue's 65,536 characters: the threads, then the expired episodes, are cut with "and N more".
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import quote

from memshelf_render import __version__
from memshelf_render.check import repo_path
from memshelf_render.glance import Glance
from memshelf_render.retention import Expired
from memshelf_render.threads import LiveEpisode
from memshelf_render.validate import Report

from ..port import COMMENT_LIMIT, Label
from . import markdown as md
from .summary import VERDICT, plural

TITLE = "Shelf dashboard"
LABEL = Label("shelf:dashboard", "5319e7", "memshelf-bot keeps this issue: the shelf's health and open threads")
_MARKER = "<!-- memshelf-bot:dashboard render={sha} -->"
_MARKED = re.compile(r"\A<!-- memshelf-bot:dashboard render=([0-9a-f]{7,40})? -->")
_ROOM = 400  # characters kept free below the limit for the "and N more" lines
THREAD_CHARS = 500  # a thread longer than this is cut (after masking, so no secret is cut in half)
TITLE_CHARS = 160  # titles, ids, dates


@dataclass(frozen=True, slots=True)
class Facts:
    """What the dashboard shows: the rendered shelf's validation and standing cost, and its glance
    (episodes by kind, open threads, expired episodes)."""

    verdict: str  # valid | violations | config-error
    counts: dict[str, int]  # findings per severity
    standing: int  # tokens every session pays: INDEX and the digests
    glance: Glance

    @property
    def live(self) -> tuple[LiveEpisode, ...]:
        return self.glance.live

    @property
    def expired(self) -> tuple[Expired, ...]:
        return self.glance.expired


def facts(glance: Glance, report: Report, standing: int) -> Facts:
    return Facts(report.verdict, report.counts, standing, glance)


@dataclass(frozen=True, slots=True)
class Where:
    """Where the shelf is: the repository's web page (`https://github.com/octo/shelf`), the
    default branch, and the shelf's directory in the repository ('' for the root)."""

    web: str
    branch: str
    prefix: str = ""

    def link(self, path: str) -> str:
        """The episode's file on the default branch (the path URL-quoted)."""
        return f"{self.web}/blob/{quote(self.branch, safe='/')}/{quote(repo_path(path, self.prefix), safe='/')}"


def last_render(body: str) -> str | None:
    """The render commit a dashboard body recorded (so a render that commits nothing keeps it)."""
    m = _MARKED.match(body)
    return m.group(1) if m else None


def clip(text: str, cap: int) -> str:
    return text if len(text) <= cap else text[: cap - 1] + "…"


def _age(date: str, today: dt.date) -> str:
    try:
        days = (today - dt.date.fromisoformat(date)).days
    except ValueError:
        return "age unknown"
    return "today" if days == 0 else f"in {plural(-days, 'day')}" if days < 0 else f"{plural(days, 'day')} old"


def fit_blocks(blocks: Iterable[list[str]], room: int) -> tuple[list[str], int]:
    """Whole blocks while they fit in `room` characters: their lines and how many there are. The
    blocks are made one at a time, so those that do not fit are never masked or escaped."""
    out: list[str] = []
    size = shown = 0
    for block in blocks:
        text = "\n".join(block)
        if size + len(text) + 1 > room:
            break
        out += block
        size += len(text) + 1
        shown += 1
    return out, shown


class Dashboard:
    """One rendering of the dashboard: `clean` masks a hostile text before it is escaped."""

    def __init__(self, facts: Facts, where: Where, today: dt.date, clean: Callable[[str], str]) -> None:
        self.facts, self.where, self.today, self.clean = facts, where, today, clean

    def text(self, value: str, cap: int = THREAD_CHARS) -> str:
        return md.text(clip(self.clean(value), cap))

    def code(self, value: str) -> str:
        return md.code(clip(self.clean(value), TITLE_CHARS))

    def episode_link(self, title: str, path: str) -> str:
        return f"[{self.text(title, TITLE_CHARS)}]({self.where.link(path)})"

    def head(self, render_sha: str | None) -> list[str]:
        f = self.facts
        c = f.counts
        branch = md.code(self.where.branch)
        lines = [_MARKER.format(sha=render_sha or ""),
                 f"memshelf-bot keeps this issue up to date after every render on {branch}: what the agents' "
                 "memory shelf holds and what they left open. Set `dashboard: false` in `.memshelf-bot.yml` to "
                 "turn it off.", "",
                 "## Health", "",
                 f"**{VERDICT.get(f.verdict, f.verdict)}** — {plural(f.glance.episodes, 'episode')} · "
                 f"{plural(c.get('error', 0), 'error')} · {plural(c.get('warning', 0), 'warning')} · "
                 f"{plural(c.get('info', 0), 'note')}", "",
                 f"Standing cost: **{f.standing:,} tokens**, what every session pays to read INDEX and the "
                 "digests.", ""]
        if f.glance.kinds:
            lines += ["| kind | on the shelf | archived |", "|---|---:|---:|",
                      *(f"| {kind} | {docs:,} | {archived:,} |" for kind, docs, archived in f.glance.kinds), ""]
        return lines

    def thread_blocks(self) -> Iterator[list[str]]:
        for ep in self.facts.live:
            when = f"{md.code(ep.date)}, {_age(ep.date, self.today)}" if ep.date else "no date"
            yield [f"- {self.episode_link(ep.title, ep.path)} · {self.code(ep.id)} · {when}",
                   *(f"  - {self.text(thread)}" for thread in ep.threads)]

    def expired_blocks(self) -> Iterator[list[str]]:
        for e in self.facts.expired:
            yield [f"- {self.episode_link(e.title, e.path)} · {self.code(e.id)} · retained until "
                   f"{self.code(e.retain_until)}{' (archived)' if e.archived else ''}"]

    def tail(self, render_sha: str | None, render_pr: int | None) -> list[str]:
        branch = md.code(self.where.branch)
        commit = f"[{md.code(render_sha[:12])}]({self.where.web}/commit/{render_sha})" if render_sha else ""
        if render_sha and render_pr is not None:
            last = (f"{commit}, waiting in pull request #{render_pr} ({branch} is protected, so the "
                    "bot may not commit to it)")
        elif render_sha:
            last = f"{commit} on {branch}"
        else:
            last = f"none yet: the derived files on {branch} were already current"
        return ["## Last render", "", f"Render commit: {last}.", "", "---",
                f"<sub>memshelf-bot {__version__} · ages as of {self.today.isoformat()}</sub>"]

    def body(self, render_sha: str | None, render_pr: int | None = None, limit: int = COMMENT_LIMIT) -> str:
        """The issue's Markdown, within `limit` characters."""
        f = self.facts
        head, tail = self.head(render_sha), self.tail(render_sha, render_pr)
        threads = sum(len(ep.threads) for ep in f.live)
        thread_head = [f"## Open threads ({plural(threads, 'thread')} in {plural(len(f.live), 'live episode')})",
                       "", "Newest episode first; each links to its file on the default branch.", ""]
        if not f.live:
            thread_head = ["## Open threads", "", "No live episode has an open thread.", ""]
        gone_head = [f"## Past `retain_until` ({plural(len(f.expired), 'episode')})", ""]
        gone_foot = (["", "Comment `/shelf purge` on this issue (write access needed) and memshelf-bot opens a pull "
                          "request that removes exactly these episode files, for a person to review and merge; the "
                          "render after the merge updates the derived files.", ""] if f.expired
                     else ["No episode is past its `retain_until`.", ""])
        fixed = "\n".join([*head, *thread_head, *gone_head, *gone_foot, *tail])
        room = limit - len(fixed) - _ROOM
        gone, gone_shown = fit_blocks(self.expired_blocks(), room // 2)
        listed, shown = fit_blocks(self.thread_blocks(), room - sum(len(line) + 1 for line in gone))
        cut, gone_cut = len(f.live) - shown, len(f.expired) - gone_shown
        more = []
        if cut:
            left = f.live[shown:]
            more = ["", f"… and {plural(sum(len(ep.threads) for ep in left), 'more thread')} in "
                        f"{plural(cut, 'more episode')}, cut to fit GitHub's limit on an issue."]
        gone_more = ["", f"… and {plural(gone_cut, 'more episode')} past `retain_until`."] if gone_cut else []
        lines = [*head, *thread_head, *listed, *more, "", *gone_head, *gone, *gone_more, *gone_foot, *tail]
        return re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
