"""Episodes as rows: what the ledger, .meta.json, INDEX, stats and the chart are drawn from.

Built from the one parser's `Episode`. An episode that cannot give a row (no readable
frontmatter, no string id, a directory other than the three standard categories) is skipped with
a reason, so one bad file never blocks a render.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from . import parallel
from .cache import EpisodeCache, Kind, Read, Store
from .episode import Episode
from .shelf import STANDARD_CATEGORIES, EpisodeRef, Shelf
from .text import tokens

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


_FROM_FILE = ("id", "date", "mode", "approx_tokens", "digest_tokens", "notes", "display_title", "description",
              "tokens_source", "given_date")  # Record's fields from the file: `id`, then those after `archived`


def _text(value: object) -> str:
    if type(value) is str:
        return value
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


def unrowed(ep: Episode) -> str | None:
    """Why the episode has no row (None when it has one)."""
    if not ep.readable:
        return "not read (over the size cap or unreadable)"
    meta = ep.meta
    if meta is None:
        return "no readable frontmatter"
    raw_id = meta.get("id")
    if raw_id is None or isinstance(raw_id, (dict, list)) or not _text(raw_id).strip():
        return "no id in the frontmatter"
    return None


def row_text(ep: Episode, key: str) -> str:
    """A frontmatter value as its row holds it (for an episode that has one)."""
    return _text(ep.meta.get(key)) if ep.meta else ""


def record_of(ep: Episode) -> tuple[Record | None, str | None]:
    """The episode's row, or None and why it was skipped."""
    why = unrowed(ep)
    if why is not None:
        return None, why
    meta = ep.meta or {}  # unrowed: there is one
    eid = _text(meta.get("id"))
    date = meta.get("date")
    texts = [row_text(ep, key) for key in _TEXT_KEYS]
    sec = ep.section("digest")
    return Record(
        id=eid,
        filename=ep.path.rsplit("/", 1)[-1],
        path=ep.path,
        category=ep.category,
        archived=ep.archived,
        date=ledger_date(date, eid),
        mode=_text(meta.get("mode", "live")),
        approx_tokens=approx_tokens(meta.get("approx_tokens")),
        digest_tokens=0 if sec is None else tokens(ep.section_text(sec)),
        notes=texts[0],
        display_title=texts[1],
        description=texts[2],
        tokens_source=texts[3],
        given_date=_text(date).strip(),
    ), None


_TEXT_KEYS = ("notes", "display_title", "description", "approx_tokens_source")


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

    Only the standard categories give rows (docs/reference.md §8.1): an episode in another
    directory is listed in INDEX but has no ledger row and no `.meta.json` entry.
    """
    return _gather(row_of(ep) for ep in episodes)


def _row(shelf: Shelf, ref: EpisodeRef, read: Read | None = None) -> tuple | str | None:
    _, rec, why = row_of(shelf.parse_episode(ref, upto_digest=True, read=read))
    return why if rec is None else tuple(getattr(rec, name) for name in _FROM_FILE)


def _rows_of(shelf: Shelf, refs: list[EpisodeRef]) -> list[tuple | str | None]:
    """Per ref: the row's file-derived values (the rest is the ref's), or why it was skipped.
    Plain tuples, because thousands of rows cross back from the worker processes."""
    return [_row(shelf, ref) for ref in refs]


_ROW_TYPES = (str, str, str, int, int, str, str, str, str, str)


def _decode_row(raw: Any) -> tuple | str | None:
    """A cached row as `_row` gives it, or None when the entry is not of its shape."""
    if type(raw) is str:
        return raw
    if type(raw) is tuple and tuple(map(type, raw)) == _ROW_TYPES:
        return raw
    return None


def _rows_cached(state: tuple[Shelf, Store], refs: list[EpisodeRef]) -> list:
    shelf, store = state
    return store.through(shelf, refs, lambda ref, read: _row(shelf, ref, read), _decode_row)


def _rebuild(refs: list[EpisodeRef], rows: list[tuple | str | None]) -> Iterator[tuple[str, Record | None, str | None]]:
    for ref, row in zip(refs, rows, strict=True):
        if isinstance(row, tuple):  # id, then the fields after `archived` (`_FROM_FILE`'s order)
            yield ref.path, Record(row[0], ref.path.rsplit("/", 1)[-1], ref.path, ref.category, ref.archived,
                                   *row[1:]), None
        else:
            yield ref.path, None, row


class Collecting:
    """A shelf's rows, being gathered: on worker processes (at most `workers`) for a big shelf,
    so the caller can do other work (e.g. the schema checks) meanwhile. With a `cache`, an
    unchanged episode's row comes from there; when most do, one process hashes the files."""

    def __init__(self, shelf: Shelf, *, workers: int | None = None, cache: EpisodeCache | None = None) -> None:
        self._shelf = shelf
        self._refs = shelf.layout.episodes
        self._store = None if cache is None else cache.store(shelf, Kind.ROWS)
        jobs = 1 if self.warm else parallel.jobs_for(len(self._refs), workers)
        fn, state = (_rows_of, shelf) if self._store is None else (_rows_cached, (shelf, self._store))
        self._pending = None if jobs == 1 else parallel.start(fn, self._refs, state=state, jobs=jobs)

    @property
    def warm(self) -> bool:
        """The cache holds a row for most episodes: parsing is not what the render waits for."""
        return self._store is not None and len(self._store.entries) * 2 >= len(self._refs)

    def result(self) -> tuple[list[Record], list[tuple[str, str]]]:
        if self._store is not None:
            results = self._pending.result() if self._pending is not None \
                else _rows_cached((self._shelf, self._store), self._refs)
            self._store.save(self._refs, results, lambda row: row)
            return _gather(_rebuild(self._refs, [result[0] for result in results]))
        if self._pending is not None:
            return _gather(_rebuild(self._refs, self._pending.result()))
        return _gather(row_of(self._shelf.parse_episode(ref, upto_digest=True)) for ref in self._refs)

    def cancel(self) -> None:
        if self._pending is not None:
            self._pending.cancel()


Row = tuple[str, "Record | None", "str | None"]  # (path, row or None, why skipped), as row_of gives it


def gather(rows: Iterable[Row]) -> tuple[list[Record], list[tuple[str, str]]]:
    """Rows from wherever they came (parsed, cached, taken from derived files) as `collect`
    orders them: sorted by (date, id), and (path, reason) for each skipped file."""
    return _gather(rows)


def cached_rows(shelf: Shelf, cache: EpisodeCache, blobs: dict[str, bytes]) -> dict[str, Row]:
    """The rows `cache` holds for episodes known only by path and git blob id (their files need
    not be on disk: a pull request's check reads ids from the head's trees). An entry whose
    blob id differs, or that does not decode, is left out: the caller parses that episode."""
    store = cache.store(shelf, Kind.ROWS)
    refs = [ref for ref in shelf.layout.episodes if ref.path in blobs]
    found: dict[str, Row] = {}
    for ref in refs:
        entry = store.entries.get(ref.path)
        if entry is None or entry[0] != blobs[ref.path]:
            continue
        row = _decode_row(entry[1])
        if row is not None:
            found[ref.path] = next(_rebuild([ref], [row]))
    return found
