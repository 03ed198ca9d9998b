"""Small text rules shared by the checks and the renderers (docs/reference.md §4, §8.4)."""

from __future__ import annotations

import re

MAX_DESCRIPTION_CHARS = 120
_CUT_TRAILERS = " ,;:—-"
_SPLIT_PARTS = re.compile(r"[-_]+")
_CELL_BREAKS = re.compile(r"[\t\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def flatten(text: str) -> str:
    """Collapse every whitespace run to one space and trim the ends."""
    return " ".join(text.split())


def flatten_cell(text: str) -> str:
    """A single-line cell: tabs, CR, LF (and other line breaks) become one space each."""
    return text if text.isprintable() else _CELL_BREAKS.sub(" ", text)


def clamp_description(text: str, limit: int = MAX_DESCRIPTION_CHARS) -> str:
    """The description clamp of docs/reference.md §4: at most `limit` characters, cut at a word
    when sensible."""
    t = flatten(text)
    if len(t) <= limit:
        return t
    head = t[: limit - 1]
    cut = ""
    if " " in head:
        cut = head[: head.rfind(" ")].rstrip(_CUT_TRAILERS)
    if len(cut) < (2 * limit) // 3:
        cut = head.rstrip()
    return cut + "…"


def humanize_stem(stem: str) -> str:
    """`2026-03-04-queue-options` -> `2026 03 04 Queue Options` (entirely-lowercase parts
    are capitalized; digits-only and mixed-case parts stay as written)."""
    parts = [p for p in _SPLIT_PARTS.split(stem) if p]
    return " ".join(p.capitalize() if p.islower() else p for p in parts)


CHARS_PER_TOKEN = 4


def tokens(text: str) -> int:
    """The shelf's one estimator of tokens: characters // 4."""
    return tokens_in(len(text))


def tokens_in(chars: int) -> int:
    """The estimator for a count of characters (of several texts together)."""
    return chars // CHARS_PER_TOKEN
