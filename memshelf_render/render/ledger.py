"""ledger.tsv: one row per episode (docs and archive), sorted by (date, id) (docs/format.md §5,
docs/reference.md §8.2).

Every text cell is flattened (tab, CR, LF and the other line breaks become one space each), so no
frontmatter value can add a column or forge a row — the reference writes them raw (§14.3) — and
masked (`CellGuard`), so no secret in an id, mode or notes is published.
"""

from __future__ import annotations

from ..records import Record
from .cells import CellGuard
from .pieces import Pieces

HEADER = ("date", "episode_id", "mode", "approx_tokens_in", "digest_tokens", "notes")


def ledger_row(rec: Record, guard: CellGuard) -> str:
    """The row; the date (YYYY-MM-DD or empty) and the two counts are digits, the rest is guarded."""
    path = rec.path
    return "\t".join((rec.date, guard.ledger_cell(rec.id, path, "id"), guard.ledger_cell(rec.mode, path, "mode"),
                      str(rec.approx_tokens), str(rec.digest_tokens), guard.ledger_cell(rec.notes, path, "notes")))


def ledger_bytes(records: list[Record], guard: CellGuard | None = None, pieces: Pieces | None = None) -> bytes:
    """The whole file: header, then the rows in the order given (collect() sorts them); each row
    a piece (`pieces`) of the values it shows."""
    guard = CellGuard() if guard is None else guard
    pieces = Pieces() if pieces is None else pieces
    lines = ["\t".join(HEADER)]
    for r in records:
        lines.append(pieces.of(guard, r.path, ("ledger", r.date, r.id, r.mode, r.approx_tokens, r.digest_tokens,
                                                r.notes), 1, lambda g, r=r: (ledger_row(r, g),))[0])
    return ("\n".join(lines) + "\n").encode("utf-8")
