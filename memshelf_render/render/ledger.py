"""ledger.tsv: one row per episode (docs and archive), sorted by (date, id) (docs/format.md §5,
docs/reference.md §8.2).

Every text cell is flattened (tab, CR, LF and the other line breaks become one space each), so no
frontmatter value can add a column or forge a row — the reference writes them raw (§14.3).
"""

from __future__ import annotations

from ..records import Record
from ..text import flatten_cell

HEADER = ("date", "episode_id", "mode", "approx_tokens_in", "digest_tokens", "notes")


def ledger_row(rec: Record) -> str:
    cells = (rec.date, rec.id, rec.mode, str(rec.approx_tokens), str(rec.digest_tokens), rec.notes)
    return "\t".join(flatten_cell(c) for c in cells)


def ledger_bytes(records: list[Record]) -> bytes:
    """The whole file: header, then the rows in the order given (collect() sorts them)."""
    lines = ["\t".join(HEADER), *(ledger_row(r) for r in records)]
    return ("\n".join(lines) + "\n").encode("utf-8")
