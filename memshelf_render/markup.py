"""HTML and Markdown markup in one-line texts that INDEX.md shows (titles, descriptions).

INDEX is read on GitHub and by every future agent session, so a title must stay text: no tag, no
comment that hides the rest of the file, no link or tracking image. `find_markup` names what a
text holds (for the `markup-in-title` rule); `escape_markup` makes it inert for INDEX. Only the
markup-significant sequences are touched, so text without markup keeps its exact bytes.
"""

from __future__ import annotations

import re

from .screens.markup import may_hold

_LINK = "a Markdown link"
# (what it is, pattern), most specific first: the first that matches names the finding. Each is a
# short pattern, so a search stays linear in the text.
SHAPES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an HTML comment", re.compile(r"<!--|-->")),
    (_LINK, re.compile(r"\][(\[]")),
    ("an autolink", re.compile(r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:")),
    ("an HTML tag", re.compile(r"</?[A-Za-z]|<[!?]")),
    ("a javascript: URL", re.compile(r"(?i)\b(?:java|vb)script\s*:")),
    ("a data: URL", re.compile(r"(?i)\bdata:[a-z]+/")),
)
# What escaping rewrites: `<` before a tag, comment or autolink; `>` closing a comment; `]` that
# would close a link's or image's text. Entities, not backslashes: a backslash already in the
# text cannot undo them.
_SIGNIFICANT = re.compile(r"<(?=[A-Za-z/!?])|(?<=--)>|\](?=[(\[])")
_ENTITY = {"<": "&lt;", ">": "&gt;", "]": "&#93;"}


def find_markup(text: str) -> str | None:
    """What markup `text` holds, in words (None when it is plain text). Each shape is searched
    where its screen (`screens.markup`) says it may match."""
    for what, shape in may_hold(text, SHAPES):
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
