"""`memshelf-bot render`: every derived file, from the episodes, totally and idempotently.

Each derived file is rendered from scratch (never merged with what is on disk) and then compared
with disk: `--check` only reports what differs; otherwise differing files are written atomically
and files that must not exist are deleted, so a second run writes nothing. An episode that cannot
give a row is skipped with its reason; it never blocks the rest.

Order: ledger, docs `.meta.json`, INDEX.md, SUBINDEX.md files, archive `.meta.json`,
archive/INDEX.md (and its SUBINDEX files), stats.svg, then the badge when enabled.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from .. import __version__
from ..cache import EpisodeCache
from ..chartjob import ChartJob
from ..derived import (
    ARCHIVE_INDEX,
    BADGE_PATHS,
    STATS_PATH,
    badge_enabled,
    derived_paths,
    index_is_derived,
    meta_paths,
    normalize,
    split_documents,
    subindex_paths,
)
from ..parallel import cores
from ..records import Collecting, Record
from ..redact import mask
from ..shelf import DOCSHELF, MANIFEST, Shelf
from ..text import MAX_DESCRIPTION_CHARS, flatten
from .archive import CONFIG_PATH, archive_book
from .cells import CellGuard
from .disk import on_disk, sync
from .index import Book, docs_book, footer, index_categories, index_text, subindex_text
from .ledger import ledger_bytes, ledger_row
from .links import Links
from .meta import has_meta, meta_bytes, meta_entries, meta_piece
from .pieces import Pieces


@dataclass
class RenderResult:
    """What a render wanted (`files`: path -> bytes, or None = must be absent) and what it did."""

    files: dict[str, bytes | None]
    check: bool = False
    episodes: int = 0
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    drifted: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    neutralised: list[tuple[str, str]] = field(default_factory=list)  # (episode or config, what was masked/escaped)

    @property
    def ok(self) -> bool:
        return not self.drifted

    def as_dict(self) -> dict:
        """The stable `--format json` object: tool, version, command ("render"), check, ok (no
        drift), episodes (files discovered), written, deleted, unchanged, drifted (shelf-relative
        paths in render order), skipped ([{path, reason}]: episodes without a ledger row and
        derived paths that could not be written), warnings (strings) and neutralised ([{path,
        reason}]: episodes with error-level content — a secret, markup or a line break in a title, a
        secret in the file name — that was masked or escaped on its way into the derived files, and
        a renderer config file with a secret that was masked)."""
        return {
            "tool": "memshelf-bot",
            "version": __version__,
            "command": "render",
            "check": self.check,
            "ok": self.ok,
            "episodes": self.episodes,
            "written": self.written,
            "deleted": self.deleted,
            "unchanged": self.unchanged,
            "drifted": self.drifted,
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
            "warnings": self.warnings,
            "neutralised": [{"path": p, "reason": r} for p, r in self.neutralised],
        }


def _record_warnings(records: list[Record]) -> list[str]:
    out = []
    for rec in records:
        if not rec.date:
            out.append(f"{rec.path}: no YYYY-MM-DD `date` and the id has no date prefix; its ledger date is empty")
        elif rec.date != rec.given_date:
            out.append(f"{rec.path}: no YYYY-MM-DD `date`; the ledger date is taken from the id ({rec.date})")
        if len(rec.description) <= MAX_DESCRIPTION_CHARS:  # flattening never lengthens a text
            continue
        length = len(flatten(rec.description))
        if length > MAX_DESCRIPTION_CHARS:
            out.append(f"{rec.path}: description is {length} characters; clamped to {MAX_DESCRIPTION_CHARS} "
                       "in .meta.json")
    paths_of: dict[str, list[str]] = defaultdict(list)
    for rec in records:
        paths_of[rec.id].append(rec.path)
    for eid, paths in sorted(paths_of.items()):
        if len(paths) > 1:
            out.append(f"episode id '{mask(eid)}' is used by {len(paths)} files ({', '.join(paths)}); "
                       "each gets a ledger row")
    return out


def utf8(text: str) -> bytes:
    """A derived text file's bytes. An undecodable file-name byte (a lone surrogate) is written as
    a visible `\\udcXX` escape: a derived file stays valid UTF-8 whatever a file is called."""
    return text.encode("utf-8", "backslashreplace")


def _index_files(shelf: Shelf, book: Book, meta: tuple[dict, dict], splits: dict, foot: str,
                 guard: CellGuard, pieces: Pieces) -> dict[str, bytes | None]:
    """The book's INDEX, then its SUBINDEX files (empty when a human keeps the docs INDEX). Its
    config and every name it takes pass `guard` first."""
    if not book.archived and not index_is_derived(shelf):
        return {}
    cfg = guard.config(book.cfg, CONFIG_PATH if book.archived else DOCSHELF)
    links = Links(cfg, book.rel(posixpath.dirname(book.index_path)))
    categories = index_categories(shelf, archived=book.archived, meta=meta[0], made=meta[1], splits=splits,
                                  guard=guard, links=links, pieces=pieces)
    text = index_text(cfg, categories, links, default_preamble=book.default_preamble, footer_line=foot)
    files: dict[str, bytes | None] = {book.index_path: utf8(text)}
    split_entries = {e.source[:-3]: e for entries in categories.values() for e in entries if e.sections}
    for path in subindex_paths(shelf, archived=book.archived):
        entry = split_entries.get(book.rel(posixpath.dirname(path)))
        files[path] = None if entry is None else utf8(subindex_text(entry, Links(cfg, entry.split_dir), foot))
    return files


def _meta_files(shelf: Shelf, meta: dict, *, archived: bool) -> dict[str, bytes | None]:
    return {path: meta_bytes(meta.get(path.rsplit("/", 2)[-2])) for path in meta_paths(shelf, archived=archived)}


def _row_piece(rec: Record, guard: CellGuard) -> tuple[str, str, str, str]:
    """What a row shows: its .meta.json entry (file name, title, description; empty when it has
    none), then its ledger line."""
    entry = meta_piece(rec, guard) if has_meta(rec) else ("", "", "")
    return (*entry, ledger_row(rec, guard))


def _row_pieces(records: list[Record], guard: CellGuard, pieces: Pieces) -> list[tuple[str, ...]]:
    """Each row's `_row_piece`, one piece of the row's values it reads."""
    return [pieces.of(guard, r.path, ("row", r.date, r.id, r.mode, r.approx_tokens, r.digest_tokens, r.notes,
                                      r.display_title, r.description, r.filename), 4,
                      lambda g, r=r: _row_piece(r, g)) for r in records]


def _chart(records: list[Record], index_text: str, shelf: Shelf, job: ChartJob) -> Callable[[], bytes]:
    """Start drawing stats.svg (the seam tests replace); calling the result gives its bytes."""
    previous = on_disk(shelf.root, STATS_PATH)
    return job.submit(records, index_text, shelf.settings.context_window,
                      previous.data if previous.kind == "file" else None)


def _unavailable(exc: ImportError) -> Callable[[], bytes]:
    def fail() -> bytes:
        raise exc

    return fail


def _badge(shelf: Shelf, records: list[Record], index_text: str) -> dict[str, bytes]:
    from ..badge import badge_files

    return badge_files(shelf, records, index_text)


def plan(shelf: Shelf, records: list[Record], *, badge: bool | None = None,
         chart: ChartJob | None = None, draw_chart: bool = True,
         guard: CellGuard | None = None, pieces: Pieces | None = None) -> tuple[dict[str, bytes | None], list[str]]:
    """Every derived path's desired bytes (None = must be absent), in render order, and warnings.

    INDEX comes first so the chart (which counts INDEX tokens) is drawing while the rest renders.
    `draw_chart=False` leaves stats.svg out, for callers that only read the text files. `guard`
    (by default one with the shelf's POLICY.patterns) masks every episode text on its way in.
    `pieces`: each row's rendered pieces, from the cache when it holds them (by default all
    computed here); saved while the chart is drawn.
    """
    guard = CellGuard.for_shelf(shelf) if guard is None else guard
    pieces = Pieces() if pieces is None else pieces
    warnings: list[str] = []
    if shelf.docshelf_problem:
        warnings.append(f"{DOCSHELF}: {shelf.docshelf_problem}; INDEX.md rendered with the default settings")
    splits = split_documents(shelf)
    foot = footer(shelf.generated_by, guard.name(shelf.docs_root, MANIFEST, "docs_root"))
    shown = _row_pieces(records, guard, pieces)
    entries = [piece[:3] for piece in shown]
    docs_meta = meta_entries(records, entries, archived=False)
    docs_index = _index_files(shelf, docs_book(shelf), docs_meta, splits, foot, guard, pieces)
    index_str = _index_str(shelf, docs_index)
    drawing: Callable[[], bytes] | None = None
    if draw_chart:
        try:
            drawing = _chart(records, index_str, shelf, chart or ChartJob(False))
        except ImportError as exc:
            drawing = _unavailable(exc)

    files: dict[str, bytes | None] = {normalize(shelf.ledger_path): ledger_bytes([piece[3] for piece in shown])}
    files.update(_meta_files(shelf, docs_meta[0], archived=False))
    files.update(docs_index)
    if on_disk(shelf.root, shelf.archive_docs_root).kind == "directory":
        archive, problem = archive_book(shelf)
        if problem:
            warnings.append(f"{CONFIG_PATH}: {problem}; {ARCHIVE_INDEX} rendered with the default settings")
        archive_meta = meta_entries(records, entries, archived=True)
        files.update(_meta_files(shelf, archive_meta[0], archived=True))
        files.update(_index_files(shelf, archive, archive_meta, splits, foot, guard, pieces))
    elif on_disk(shelf.root, ARCHIVE_INDEX).exists:
        files[ARCHIVE_INDEX] = None
    pieces.save()

    if drawing is not None:
        try:
            files[STATS_PATH] = drawing()
        except ImportError as exc:
            warnings.append(f"{STATS_PATH} not drawn: the chart renderer is unavailable ({exc})")
    if badge_enabled(shelf, badge):
        try:
            drawn = _badge(shelf, records, index_str)
            files.update({p: drawn[p] for p in BADGE_PATHS})
        except ImportError as exc:
            warnings.append(f"badge not drawn: the badge renderer is unavailable ({exc})")
    return files, warnings


def _index_str(shelf: Shelf, docs_index: dict[str, bytes | None]) -> str:
    """INDEX as the chart and badge count it: as rendered, or as a human keeps it."""
    data = docs_index.get(normalize(shelf.index_path))
    if data is not None:
        return data.decode("utf-8")
    return shelf.read_text(shelf.index_path) or ""


SHARE_CORES_FROM = 6000


def gather_rows(shelf: Shelf, chart: ChartJob, cache: EpisodeCache | None = None) -> Collecting:
    """The episodes' rows, being gathered (unchanged ones from `cache`, when given). While the
    chart helper imports matplotlib it takes a core for about as long as parsing a few thousand
    episodes: below SHARE_CORES_FROM the parse leaves it that core; from there on the workers
    take every core and the helper is paused until the rows are in (its chart is wanted only
    after them), so its import runs while this process renders the text files. With a warm
    cache the rows are a matter of hashing files: the chart, the floor, keeps its core."""
    small = len(shelf.layout.episodes) < SHARE_CORES_FROM
    rows = Collecting(shelf, workers=max(1, cores() - 1) if chart.forked and small else None, cache=cache)
    if not small and not rows.warm:
        chart.pause()
    return rows


def render_shelf(shelf: Shelf, *, check: bool = False, badge: bool | None = None,
                 chart: ChartJob | None = None, rows: Collecting | None = None,
                 cache: EpisodeCache | None = None) -> RenderResult:
    """Render every derived file; with `check`, write nothing and list what differs. `chart`:
    a chart helper the caller started early (and closes); by default one is started here for a
    big shelf, never for --check (an unchanged chart is judged by its input hash alone).
    `rows`: the episodes' rows, already being gathered; else they are gathered here, unchanged
    episodes' rows from `cache` when one is given (the bytes are the same either way)."""
    own = chart is None
    job = ChartJob.for_shelf(0 if check else len(shelf.layout.episodes)) if chart is None else chart
    try:
        records, skipped = (rows or gather_rows(shelf, job, cache)).result()
        job.resume()
        guard = CellGuard.for_shelf(shelf)
        files, warnings = plan(shelf, records, badge=badge, chart=job, guard=guard,
                               pieces=Pieces.for_shelf(shelf, cache))
    finally:
        if own:
            job.close()
    outcome = sync(shelf.root, files, check=check, derived=derived_paths(shelf, badge))
    return RenderResult(
        files=files, check=check, episodes=len(shelf.layout.episodes),
        written=outcome.written, deleted=outcome.deleted, unchanged=outcome.unchanged,
        drifted=outcome.drifted, skipped=skipped + outcome.skipped,
        warnings=_record_warnings(records) + warnings, neutralised=guard.report(),
    )
