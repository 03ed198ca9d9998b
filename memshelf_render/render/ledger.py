"""ledger.tsv: one row per episode (docs and archive), sorted by (date, id) (docs/format.md §5,
docs/reference.md §8.2).

Every text cell is flattened (tab, CR, LF and the other line breaks become one space each), so no
frontmatter value can add a column or forge a row — the reference writes them raw (§14.3) — and
masked (`CellGuard`), so no secret in an id, mode or notes is published.
"""

from __future__ import annotations

from ..records import Record
from .cells import CellGuard

HEADER = ("date", "episode_id", "mode", "approx_tokens_in", "digest_tokens", "notes")


def ledger_row(rec: Record, guard: CellGuard) -> str:
    """The row; the date (YYYY-MM-DD or empty) and the two counts are digits, the rest is guarded."""
    path = rec.path
    return "\t".join((rec.date, guard.ledger_cell(rec.id, path, "id"), guard.ledger_cell(rec.mode, path, "mode"),
                      str(rec.approx_tokens), str(rec.digest_tokens), guard.ledger_cell(rec.notes, path, "notes")))


def ledger_bytes(lines: list[str]) -> bytes:
    """The whole file: header, then the rows' lines (`ledger_row`) in the order given (collect()
    sorts the rows)."""
    return ("\n".join(["\t".join(HEADER), *lines]) + "\n").encode("utf-8")
