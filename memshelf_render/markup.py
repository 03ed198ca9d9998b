"""HTML and Markdown markup in one-line texts that INDEX.md shows (titles, descriptions).

INDEX is read on GitHub and by every future agent session, so a title must stay text: no tag, no
comment that hides the rest of the file, no link or tracking image. `find_markup` names what a
text holds (for the `markup-in-title` rule); `escape_markup` makes it inert for INDEX. Only the
markup-significant sequences are touched, so text without markup keeps its exact bytes.
"""

from __future__ import annotations

import re

from .casing import screen_lower

_LINK = "a Markdown link"
# (what it is, pattern, gate), most specific first: the first that matches names the finding.
# Each is a short pattern, so a search stays linear in the text. The two case-insensitive ones
# start with `\b`, which `re` tries at every position, so they run only where their lowercase
# gate occurs in the text's `screen_lower` (which every match of theirs shows, `casing`).
_SHAPES: tuple[tuple[str, re.Pattern[str], str | None], ...] = (
    ("an HTML comment", re.compile(r"<!--|-->"), None),
    (_LINK, re.compile(r"\][(\[]"), None),
    ("an autolink", re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:"), None),
    ("an HTML tag", re.compile(r"</?[A-Za-z]|<[!?]"), None),
    ("a javascript: URL", re.compile(r"(?i)\b(?:java|vb)script\s*:"), "script"),
    ("a data: URL", re.compile(r"(?i)\bdata:[a-z]+/"), "data:"),
)
# What escaping rewrites: `<` before a tag, comment or autolink; `>` closing a comment; `]` that
# would close a link's or image's text. Entities, not backslashes: a backslash already in the
# text cannot undo them.
_SIGNIFICANT = re.compile(r"<(?=[A-Za-z/!?])|(?<=--)>|\](?=[(\[])")
_ENTITY = {"<": "&lt;", ">": "&gt;", "]": "&#93;"}


def find_markup(text: str) -> str | None:
    """What markup `text` holds, in words (None when it is plain text)."""
    if not any(c in text for c in "<>]:"):
        return None
    lower: str | None = None
    for what, shape, gate in _SHAPES:
        if gate is not None:
            lower = screen_lower(text) if lower is None else lower
            if gate not in lower:
                continue
        m = shape.search(text)
        if m is None:
            continue
        if what == _LINK and "![" in text[: m.start()]:
            return "a Markdown image"
        return what
    return None


def escape_markup(text: str) -> str:
    """`text` with every markup-significant character replaced by its HTML entity."""
    if not any(c in text for c in "<>]"):
        return text
    return _SIGNIFICANT.sub(lambda m: _ENTITY[m.group()], text)
