"""Quick forms that try a case-insensitive pattern only where one of its opening words occurs.

A case-insensitive pattern that opens with cased letters gives `re` nothing to skip to: it tries
a match at every position of the text, each character compared through its case folding (some
20-90 ns a character, `\\b(?:ignore|disregard|…)` on prose). When every match opens with one of a
few literal words (`ignore`, `you`, `игнорируй`…), those words are looked for in the text's
lowercase with `str.find` (C, ~1 ns a character) and the pattern is tried only there, as a match
at that offset. That gives what `finditer` gives: every match starts at such an offset, and
after a match the next one is the first that starts at or after its end.

Only where the lowercase is the text letter for letter: as long (no `İ`, whose lowercase is two
characters) and free of the letters IGNORECASE takes for others that `str.lower()` leaves as they
are (`casing`), with opening words of letters `casing` vouches for; else the plain pattern
searches. Not for a pattern whose opening characters are all uncased (`<`, `[`): `re` skips to
them in C, faster than a Python loop over their places in a text full of them. `tests/unit/screens/test_anchors.py` holds it to the plain pattern.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .casing import VOUCHED, holds_misses
from .view import viewed

# the last text lowercased: the instruction patterns of one text ask one after another
_last: tuple[str, str | None] = ("", "")


def _lower_of(text: str) -> str | None:
    """`text` lowercased, when it is the text letter for letter (else None); an episode's text
    is lowercased once, by its view."""
    global _last
    if _last[0] is text:
        return _last[1]
    view = viewed(text)
    if view is not None:
        lower, misses = view.lower, view.misses
    else:
        lower = text.lower()
        misses = holds_misses(lower)
    found = lower if len(lower) == len(text) and not misses else None
    _last = (text, found)
    return found


class Anchored:
    """`plain`'s `finditer` and `search`, tried only where one of `words` (lowercase) occurs."""

    __slots__ = ("plain", "words")

    def __init__(self, plain: re.Pattern[str], words: tuple[str, ...]) -> None:
        self.plain = plain
        self.words = words

    def _starts(self, lower: str) -> list[int]:
        starts: set[int] = set()
        for word in self.words:
            at = lower.find(word)
            while at != -1:
                starts.add(at)
                at = lower.find(word, at + 1)
        return sorted(starts)

    def finditer(self, text: str) -> Iterator[re.Match[str]]:
        lower = _lower_of(text)
        if lower is None:
            yield from self.plain.finditer(text)
            return
        match, end = self.plain.match, 0
        for at in self._starts(lower):
            if at < end:
                continue
            m = match(text, at)
            if m is not None:
                end = m.end()
                yield m

    def search(self, text: str) -> re.Match[str] | None:
        return next(self.finditer(text), None)


def anchored(plain: re.Pattern[str]) -> Anchored | None:
    """The anchored form of a case-insensitive `plain` (None when it has none)."""
    if not plain.flags & re.IGNORECASE or plain.flags & re.VERBOSE or not isinstance(plain.pattern, str):
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        words = _opening_words(_parser, list(_parser.parse(plain.pattern, plain.flags)))
    except Exception:  # `re`'s private parse tree changed shape: no quick form
        return None
    if not words or not all(set(w) <= VOUCHED for w in words):
        return None
    if not any(w[0].lower() != w[0].upper() for w in words):
        return None  # no opening letter is cased: `re` skips to the first characters in C itself
    words = {w.lower() for w in words}
    # a word that starts with another adds no offset of its own
    return Anchored(plain, tuple(sorted(w for w in words if not any(w != o and w.startswith(o) for o in words))))


def _opening_words(p, items: list) -> list[str] | None:
    """The literal words one of which every match of `items` opens with (None when unsure)."""
    while items and items[0][0] is p.AT:  # zero-width: `\b`
        items = items[1:]
    if not items:
        return None
    op, av = items[0]
    if op is p.LITERAL:
        return [_literal_run(p, items)]
    if op is p.SUBPATTERN:
        _, add_flags, del_flags, body = av
        if add_flags or del_flags:
            return None
        return _opening_words(p, list(body))
    if op is p.BRANCH:
        words = []
        for branch in av[1]:
            found = _opening_words(p, list(branch))
            if not found:
                return None
            words += found
        return words
    return None


def _literal_run(p, items: list) -> str:
    run = []
    for op, av in items:
        if op is not p.LITERAL:
            break
        run.append(chr(av))
    return "".join(run)
