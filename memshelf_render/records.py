"""Episodes as rows: what the ledger, .meta.json, INDEX, stats and the chart are drawn from.

Built from the one parser's `Episode`. An episode that cannot give a row (no readable
frontmatter, no string id, a directory other than the three standard categories) is skipped with
a reason, so one bad file never blocks a render.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from . import parallel
from .episode import Episode
from .shelf import STANDARD_CATEGORIES, EpisodeRef, Shelf

_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


@dataclass(frozen=True, slots=True)
class Record:
    id: str
    filename: str
    path: str
    category: str
    archived: bool
    date: str
    mode: str
    approx_tokens: int
    digest_tokens: int
    notes: str
    display_title: str
    description: str
    tokens_source: str
    given_date: str = ""  # the frontmatter `date` as written (trimmed); `date` is the ledger's

    @property
    def unmeasured(self) -> bool:
        return self.tokens_source == "unmeasured"


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value if isinstance(value, str) else str(value)


def ledger_date(date: object, episode_id: str) -> str:
    """Frontmatter date if it is YYYY-MM-DD, else the id's date prefix, else empty."""
    d = _text(date).strip()
    if _ISO_DAY.fullmatch(d):
        return d
    prefix = episode_id[:10]
    return prefix if _ISO_DAY.fullmatch(prefix) else ""


def approx_tokens(value: object) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    try:
        return int(_text(value))
    except ValueError:
        return 0


def record_of(ep: Episode) -> tuple[Record | None, str | None]:
    """The episode's row, or None and why it was skipped."""
    if not ep.readable:
        return None, "not read (over the size cap or unreadable)"
    if ep.meta is None:
        return None, "no readable frontmatter"
    raw_id = ep.meta.get("id")
    if raw_id is None or isinstance(raw_id, (dict, list)) or not _text(raw_id).strip():
        return None, "no id in the frontmatter"
    eid = _text(raw_id)
    mode = ep.meta.get("mode", "live")
    digest = ep.digest or ""
    return Record(
        id=eid,
        filename=ep.path.rsplit("/", 1)[-1],
        path=ep.path,
        category=ep.category,
        archived=ep.archived,
        date=ledger_date(ep.meta.get("date"), eid),
        mode=_text(mode),
        approx_tokens=approx_tokens(ep.meta.get("approx_tokens")),
        digest_tokens=len(digest) // 4,
        notes=_text(ep.meta.get("notes")),
        display_title=_text(ep.meta.get("display_title")),
        description=_text(ep.meta.get("description")),
        tokens_source=_text(ep.meta.get("approx_tokens_source")),
        given_date=_text(ep.meta.get("date")).strip(),
    ), None


def row_of(ep: Episode) -> tuple[str, Record | None, str | None]:
    """(path, row or None, why skipped) — the ledger's view of one episode."""
    if ep.category not in STANDARD_CATEGORIES:
        return ep.path, None, f"category '{ep.category}' is not one of {', '.join(STANDARD_CATEGORIES)}: no ledger row"
    return (ep.path, *record_of(ep))


def _gather(rows: Iterable[tuple[str, Record | None, str | None]]) -> tuple[list[Record], list[tuple[str, str]]]:
    records: list[Record] = []
    skipped: list[tuple[str, str]] = []
    for path, rec, why in rows:
        if rec is None:
            skipped.append((path, why or "skipped"))
        else:
            records.append(rec)
    records.sort(key=lambda r: (r.date, r.id))
    return records, skipped


def collect(episodes: list[Episode]) -> tuple[list[Record], list[tuple[str, str]]]:
    """Rows sorted by (date, id) in code-point order, and (path, reason) for each skipped file.

    Only the standard categories give rows (REFERENCE-BEHAVIOR §8.1): an episode in another
    directory is listed in INDEX but has no ledger row and no `.meta.json` entry.
    """
    return _gather(row_of(ep) for ep in episodes)


def _rows_of(shelf: Shelf, refs: list[EpisodeRef]) -> list[tuple[str, Record | None, str | None]]:
    return [row_of(shelf.parse_episode(ref, upto_digest=True)) for ref in refs]


def collect_shelf(shelf: Shelf, *, workers: int | None = None) -> tuple[list[Record], list[tuple[str, str]]]:
    """`collect(shelf.episodes)` without keeping the parsed episodes (a big shelf is parsed on
    every core, at most `workers`). An already parsed shelf is not parsed again."""
    if "episodes" in vars(shelf):
        return collect(shelf.episodes)
    refs = shelf.layout.episodes
    return _gather(parallel.map_chunks(_rows_of, refs, state=shelf, jobs=parallel.jobs_for(len(refs), workers)))
