"""The conflict-marker screen: a marker line starts with seven `<`, `>` or `|`, so a text holding
none of those three runs (three substring checks) holds no marker."""

from __future__ import annotations

from . import switch


def may_hold_marker(text: str) -> bool:
    if switch.MAYBE_ONLY:
        return True
    return "<<<<<<<" in text or ">>>>>>>" in text or "|||||||" in text
