"""One row's guarded cells: its ledger line, its `.meta.json` entry and what the guard changed.

Computed where the row is parsed (an episode worker, or this process for a small shelf), so the
process that writes the files only joins strings in order. The notes are taken in render order:
a docs episode's `.meta.json` is rendered before the ledger, an archived one's after it.
"""

from __future__ import annotations

from typing import NamedTuple

from ..records import Record
from .cells import CellGuard
from .ledger import ledger_row
from .meta import MetaCell, meta_cell


class Cells(NamedTuple):
    ledger: str  # the row's ledger.tsv line
    meta: MetaCell | None  # its .meta.json entry (None: it has none)
    notes: tuple[str, ...]  # what the guard neutralised, in render order


def cells_of(guard: CellGuard, rec: Record) -> Cells:
    """`rec`'s cells through `guard`; the notes are taken out of the guard (see `CellGuard.take`)."""
    if rec.archived:
        ledger = ledger_row(rec, guard)
        meta = meta_cell(rec, guard)
    else:
        meta = meta_cell(rec, guard)
        ledger = ledger_row(rec, guard)
    return Cells(ledger, meta, guard.take(rec.path))


def neutralised(records: list[Record], cells: list[Cells]) -> list[tuple[str, str]]:
    """(path, what was neutralised) per episode whose cells the guard changed, in path order."""
    return sorted((rec.path, "; ".join(c.notes)) for rec, c in zip(records, cells, strict=True) if c.notes)
