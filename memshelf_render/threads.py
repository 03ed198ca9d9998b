"""The open threads of the live episodes: what the agents left unfinished, for the shelf dashboard.

A live episode is one under the docs root (not the archive) whose `mode` is `live` or absent.
Its threads are its `## Open threads` section as the one parser found it: each top-level item of
the section's list is a thread (its continuation lines and nested items joined to it), and a
section written as paragraphs gives one thread per paragraph. A checked task (`- [x] …`) is
closed, and an item that only says there is nothing open (`none`, `n/a`) is no thread. Episodes
come newest first by their date (the ledger's: `date`, else the id's `YYYY-MM-DD` prefix).
Every text here is the episode's own, as written: hostile, the caller masks and escapes it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from .episode import Episode
from .records import record_of

SECTION = "open threads"
_ITEM = re.compile(r"^( {0,3})(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)(.*)$")
_TASK = re.compile(r"^\[([ xX])\](?:[ \t]+|$)")
_NOTHING = frozenset({"none", "n/a", "na", "nothing", "nothing open", "no open threads", "-", "—", "–"})


@dataclass(frozen=True, slots=True)
class LiveEpisode:
    path: str  # shelf-relative
    id: str
    title: str  # display_title, else the id
    date: str  # YYYY-MM-DD, or "" when the episode gives none
    threads: tuple[str, ...]  # each one line: an item's lines joined by single spaces


def _is_thread(text: str) -> bool:
    return bool(text) and text.rstrip(".!").strip().lower() not in _NOTHING


def _close(pending: list[str], out: list[str]) -> None:
    text = " ".join(" ".join(pending).split())
    task = _TASK.match(text)
    if task is not None:
        if task.group(1) != " ":
            return  # a checked task is done
        text = text[task.end():]
    if _is_thread(text):
        out.append(text)


def open_threads(ep: Episode) -> tuple[str, ...]:
    """The threads of the episode's `## Open threads` section (none when it has no such section)."""
    sec = ep.section(SECTION)
    if sec is None:
        return ()
    out: list[str] = []
    pending: list[str] = []
    base: int | None = None  # the indent of the list's first item: deeper items are nested
    blank = False
    quoted = {i for first, last in ep.code_blocks for i in range(max(first, sec.start), min(last, sec.end))}
    for idx in range(sec.start, sec.end):
        line = ep.lines[idx]
        if not line.strip():
            blank = True
            continue
        item = None if idx in quoted else _ITEM.match(line)
        indent = len(line) - len(line.lstrip(" "))
        if item is not None and (base is None or indent <= base + 1):
            base = len(item.group(1)) if base is None else base
            new, text = True, item.group(2)
        else:
            # a paragraph line: it continues the open item or paragraph, unless a blank line
            # ended it and it is not indented under a list item
            new = not pending or (blank and idx not in quoted and (base is None or indent <= base))
            text = line.strip()
        if new:
            if pending:
                _close(pending, out)
            pending = []
        pending.append(text)
        blank = False
    if pending:
        _close(pending, out)
    return tuple(out)


def live_of(ep: Episode) -> LiveEpisode | None:
    """The episode with its open threads, when it is live and has any; else None."""
    if ep.archived:
        return None
    record, _ = record_of(ep)
    if record is None or record.mode.strip() not in ("", "live"):
        return None
    threads = open_threads(ep)
    if not threads:
        return None
    return LiveEpisode(ep.path, record.id, record.display_title.strip() or record.id, record.date, threads)


def newest_first(found: Iterable[LiveEpisode]) -> list[LiveEpisode]:
    """By date, newest first (dateless last), then by id."""
    ordered = sorted(found, key=lambda e: e.id)
    ordered.sort(key=lambda e: e.date, reverse=True)  # stable: ids stay ascending within a day
    return ordered


def live_threads(episodes: Iterable[Episode]) -> list[LiveEpisode]:
    """The live episodes that have open threads, newest first (dateless last), then by id."""
    return newest_first(e for ep in episodes if (e := live_of(ep)) is not None)
