"""One pass over a shelf for the shelf dashboard: every episode's kind, the live ones' open threads
(`threads`) and the ones past `retain_until` (`retention`), on every core for a big shelf.

A worker reads each of its episodes once (an archived one only up to its Digest: its frontmatter
is all the dashboard needs of it) and sends back only the small facts, never the episode.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from . import parallel
from .episode import Episode
from .retention import Expired, expired_of, in_order
from .shelf import EpisodeRef, Shelf
from .threads import LiveEpisode, live_of, newest_first

KINDS = ("topic", "research", "session")
OTHER = "other"  # a kind that is none of the three (or none at all)


@dataclass(frozen=True, slots=True)
class Glance:
    episodes: int
    kinds: tuple[tuple[str, int, int], ...]  # (kind, on the shelf, archived), the known kinds first
    live: tuple[LiveEpisode, ...]  # with open threads, newest first
    expired: tuple[Expired, ...]  # oldest `retain_until` first


_One = tuple[str, bool, LiveEpisode | None, Expired | None]


def _one(ep: Episode, cutoff: str) -> _One:
    kind = ep.get("kind")
    return (kind if kind in KINDS else OTHER), ep.archived, live_of(ep), expired_of(ep, cutoff)


def _gather(found: Iterable[_One]) -> Glance:
    shelf: Counter[str] = Counter()
    archived: Counter[str] = Counter()
    live, gone, count = [], [], 0
    for kind, in_archive, alive, past in found:
        count += 1
        (archived if in_archive else shelf)[kind] += 1
        live += [alive] if alive is not None else []
        gone += [past] if past is not None else []
    kinds = tuple((k, shelf[k], archived[k]) for k in (*KINDS, OTHER) if shelf[k] or archived[k])
    return Glance(count, kinds, tuple(newest_first(live)), tuple(in_order(gone)))


def glance_of(episodes: Iterable[Episode], today: dt.date) -> Glance:
    """The glance of episodes already parsed."""
    cutoff = today.isoformat()
    return _gather(_one(ep, cutoff) for ep in episodes)


def _share(state: tuple[Shelf, str], refs: Sequence[EpisodeRef]) -> list[_One]:
    shelf, cutoff = state
    return [_one(shelf.parse_episode(ref, upto_digest=ref.archived), cutoff) for ref in refs]


def glance(shelf: Shelf, today: dt.date) -> Glance:
    """The glance of a shelf on `today`, its episodes read on forked workers when there are many."""
    refs = shelf.layout.episodes
    found = parallel.map_items(_share, refs, state=(shelf, today.isoformat()), jobs=parallel.jobs_for(len(refs)))
    return _gather(found)
