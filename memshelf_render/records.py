"""Episodes as rows: what the ledger, .meta.json, INDEX, stats and the chart are drawn from.

Built from the one parser's `Episode`. An episode that cannot give a row (no readable
frontmatter, no string id, a directory other than the three standard categories) is skipped with
a reason, so one bad file never blocks a render.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .episode import Episode
from .shelf import STANDARD_CATEGORIES

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
    ), None


def collect(episodes: list[Episode]) -> tuple[list[Record], list[tuple[str, str]]]:
    """Rows sorted by (date, id) in code-point order, and (path, reason) for each skipped file.

    Only the standard categories give rows (REFERENCE-BEHAVIOR §8.1): an episode in another
    directory is listed in INDEX but has no ledger row and no `.meta.json` entry.
    """
    rows: list[Record] = []
    skipped: list[tuple[str, str]] = []
    for ep in episodes:
        if ep.category not in STANDARD_CATEGORIES:
            skipped.append((ep.path, f"category '{ep.category}' is not one of "
                                     f"{', '.join(STANDARD_CATEGORIES)}: no ledger row"))
            continue
        rec, why = record_of(ep)
        if rec is None:
            skipped.append((ep.path, why or "skipped"))
        else:
            rows.append(rec)
    rows.sort(key=lambda r: (r.date, r.id))
    return rows, skipped
