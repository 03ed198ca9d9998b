"""The markup screens of `markup.find_markup` (titles and descriptions, in validate and in INDEX).

Every shape holds one of `<`, `>`, `]`, `:`: a text with none of them holds no markup. The two
case-insensitive shapes start with `\\b`, which `re` tries at every position, so they are searched
only where their lowercase gate (`script`, `data:`) occurs in the text's `casing.screen_lower`
(which every match of theirs shows, `casing`).
"""

from __future__ import annotations

import re

from . import switch
from .casing import screen_lower

# a shape's name -> the lowercase text every match of it shows in `screen_lower`
GATES = {"a javascript: URL": "script", "a data: URL": "data:"}
Shapes = tuple[tuple[str, re.Pattern[str]], ...]


def may_hold(text: str, shapes: Shapes) -> Shapes:
    """The (name, shape) pairs of `shapes`, in order, that may match `text`."""
    if switch.MAYBE_ONLY:
        return shapes
    if "<" not in text and ">" not in text and "]" not in text and ":" not in text:
        return ()
    lower: str | None = None
    kept = []
    for what, shape in shapes:
        gate = GATES.get(what)
        if gate is not None:
            lower = screen_lower(text) if lower is None else lower
            if gate not in lower:
                continue
        kept.append((what, shape))
    return tuple(kept)
