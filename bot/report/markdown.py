"""Markdown for text that came from a pull request: it renders as written, never as markup.

A file name or a finding message may hold `|`, `<tag>`, `[link](…)` or an `@mention`; in a
comment or a summary each would change what the reader sees (or ping someone). These helpers
escape Markdown punctuation, break mentions with a zero-width space and fence code so that no
backtick run inside can close it.
"""

from __future__ import annotations

import re

_PUNCT = re.compile(r"([\\`*_\[\]<>|~&])")
_MENTION = re.compile(r"@(?=[A-Za-z0-9])")
_BREAKS = re.compile(r"[\r\n\t]+")
ZWSP = "\u200b"


def text(value: str) -> str:
    """One line of literal text: punctuation escaped, mentions broken, line breaks flattened."""
    return _MENTION.sub("@" + ZWSP, _PUNCT.sub(r"\\\1", _BREAKS.sub(" ", value)))


def code(value: str, in_table: bool = False) -> str:
    """An inline code span that shows `value` verbatim (backticks inside included); in a table
    cell a `|` is escaped, as GitHub's tables require even inside code."""
    value = _BREAKS.sub(" ", value)
    if in_table:
        value = value.replace("|", "\\|")
    run = max((len(m) for m in re.findall(r"`+", value)), default=0)
    fence = "`" * (run + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def fenced(body: str, info: str = "") -> str:
    """A fenced block holding `body` verbatim (the fence is longer than any backtick run in it)."""
    run = max((len(m) for m in re.findall(r"`{3,}", body)), default=0)
    fence = "`" * max(3, run + 1)
    return f"{fence}{info}\n{body}\n{fence}"

