"""Markdown for text that came from a pull request or a shelf: it renders as written, never as markup.

A file name, a finding message or an episode's open thread may hold `|`, `<tag>`, `<!--`,
`[link](javascript:…)`, an `@mention` or an issue reference (`#12`, `GH-12`); in a comment, an
issue or a summary each would change what the reader sees, ping someone or link an issue. These
helpers drop control characters, escape Markdown punctuation (HTML's `<`, `>` and `&` included),
and put a zero-width joiner after every `@` and `#` (and inside `GH-`) that GitHub would link:
a backslash or an HTML entity does not stop GitHub's autolinking of `@name` or `#1`, the joiner
does. Code spans need no joiner (GitHub links nothing inside them); fenced code is verbatim.
"""

from __future__ import annotations

import re

_PUNCT = re.compile(r"([\\`*_\[\]<>|~&$])")
# what GitHub would link: a mention, an issue reference (#12, owner/repo#12, GH-12)
_LINKED = re.compile(r"[@#](?=[A-Za-z0-9])|(?<=[Gg][Hh])(?=-[0-9])")
_BREAKS = re.compile(r"[\r\n\t\u2028\u2029]+")
# C0 and C1 controls, DEL, bidirectional embeddings/overrides/isolates and marks, the BOM
_CONTROLS = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
ZWJ = "\u200d"


def _line(value: str) -> str:
    """One line: line breaks and tabs flattened to a space, control characters dropped."""
    return _CONTROLS.sub("", _BREAKS.sub(" ", value))


def text(value: str) -> str:
    """One line of literal text: control characters dropped, punctuation escaped, mentions and
    references broken, line breaks flattened."""
    return _LINKED.sub(lambda m: m.group(0) + ZWJ, _PUNCT.sub(r"\\\1", _line(value)))


def code(value: str, in_table: bool = False) -> str:
    """An inline code span that shows `value` verbatim (backticks inside included, control
    characters dropped); in a table cell a `|` is escaped, as GitHub's tables require even inside
    code."""
    value = _line(value)
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
