"""Which episodes are past their `retain_until` (docs/reference.md §12): the ones a purge removes.

The reference's rule, kept exactly: an episode, under the docs root or in the archive, whose
`retain_until` text sorts before today's ISO date has expired; the same day keeps it, and an
episode without `retain_until` (or with an empty one) is kept forever. A value that is not a
`YYYY-MM-DD` day is still compared as text, as the reference does (`retain-until-invalid` warns
about it). One selection, used by the shelf dashboard and by `/shelf purge`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from dataclasses import dataclass

from .episode import Episode
from .records import row_text


@dataclass(frozen=True, slots=True)
class Expired:
    """One episode past its `retain_until` (its text as written: hostile, the caller escapes)."""

    path: str  # shelf-relative
    id: str
    title: str  # display_title, else the id
    retain_until: str
    archived: bool


def expired_of(ep: Episode, cutoff: str) -> Expired | None:
    """The episode as expired on the day whose ISO date is `cutoff`, or None when it is kept."""
    if ep.meta is None or "retain_until" not in ep.meta:
        return None
    until = row_text(ep, "retain_until").strip()
    if not until or until >= cutoff:
        return None
    eid = row_text(ep, "id").strip() or ep.stem
    return Expired(ep.path, eid, row_text(ep, "display_title").strip() or eid, until, ep.archived)


def in_order(found: Iterable[Expired]) -> list[Expired]:
    """Oldest `retain_until` first, then by path."""
    return sorted(found, key=lambda e: (e.retain_until, e.path))


def expired(episodes: Iterable[Episode], today: dt.date) -> list[Expired]:
    """The episodes whose `retain_until` has passed on `today`, oldest `retain_until` first."""
    cutoff = today.isoformat()
    return in_order(e for ep in episodes if (e := expired_of(ep, cutoff)) is not None)
