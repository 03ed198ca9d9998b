"""`<category>/.meta.json`: INDEX titles and descriptions of one category (docs/reference.md §8.3).

Present only when some episode of the category has a display_title or a description; then every
such episode gets `{"title": display_title or id, "description": clamped description}`, in
ledger order, as 2-space JSON with raw non-ASCII and one trailing newline. Both values pass the
`CellGuard` first, so no secret is published; INDEX takes its titles from these entries.
"""

from __future__ import annotations

import json

from ..records import Record
from ..text import clamp_description
from .cells import CellGuard

Entry = dict[str, str]


def meta_piece(rec: Record, guard: CellGuard) -> tuple[str, str, str]:
    """The episode's entry as (file name, title, description), each passed through `guard`."""
    title = guard.instruction_free(rec.display_title, rec.path, "display_title")
    title = guard.shown_text(title, rec.path, "display_title") if title else guard.cell(rec.id, rec.path, "id")
    description = guard.instruction_free(rec.description, rec.path, "description")
    description = clamp_description(guard.shown_text(description, rec.path, "description"))
    return guard.cell(rec.filename, rec.path, "its file name"), title, description


def has_meta(rec: Record) -> bool:
    """Whether the episode has an entry (a display_title or a description)."""
    return bool(rec.display_title or rec.description)


def meta_entries(records: list[Record], shown: list[tuple[str, str, str]], *,
                 archived: bool) -> tuple[dict[str, dict[str, Entry]], dict[str, Entry]]:
    """Category -> {file name: {"title", "description"}} for the docs (or the archive), from
    each row's `meta_piece` (`shown`, in the order of `records`; unused for a row without an
    entry); and path -> the entry made from that episode's row."""
    out: dict[str, dict[str, Entry]] = {}
    made: dict[str, Entry] = {}
    for rec, (name, title, description) in zip(records, shown, strict=True):
        if rec.archived != archived or not has_meta(rec):
            continue
        out.setdefault(rec.category, {})[name] = made[rec.path] = {"title": title, "description": description}
    return out, made


def meta_bytes(entries: dict[str, Entry] | None) -> bytes | None:
    """The file's bytes, or None when the category has no entry (the file must be absent).

    Exactly `json.dumps(entries, indent=2, ensure_ascii=False)` plus a newline, written out by
    hand: with `indent`, json falls back to its pure-Python encoder, which dominates big shelves."""
    if not entries:
        return None
    quote = _QUOTE
    parts = [
        f'  {quote(name)}: {{\n    "title": {quote(e["title"])},\n    "description": {quote(e["description"])}\n  }}'
        for name, e in entries.items()
    ]
    return ("{\n" + ",\n".join(parts) + "\n}\n").encode("utf-8")


_QUOTE = json.JSONEncoder(ensure_ascii=False).encode
