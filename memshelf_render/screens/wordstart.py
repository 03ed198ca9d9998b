"""Quick forms: regular expressions that find what a rule's plain pattern finds, where it finds
it, spelled so that `re` can skip to the places a match can start.

A pattern that begins with `\\b` or a look-behind makes `re` try a match at every position of the
text; one that begins with a literal character, or an alternation of them, it skips through in C
to where that character occurs. (A case-insensitive pattern that opens with literal words is
tried only where they occur instead: `anchors`.) So for a plain pattern that opens with `\\b` and a word (or an
alternation of words, grouped or not) the word-start test goes after the first letter instead:
`x(?<!\\w.)rest` matches where `\\bxrest` does (the `.` is the x itself, never a line break); not
for a case-insensitive alternation of words with several first letters, where `re` has no one
letter to skip to and the `\\b` first is the cheaper. A plain pattern that opens a sentence,
`(?:^|(?<=[.!?])\\s+)(…)`, is tried once at the start and then only after a sentence's end. `tests/unit/screens/test_wordstart.py` ties each to its plain form.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import switch
from .anchors import Anchored, anchored

Search = Callable[[str], "re.Match[str] | None"]


def at_word_start(words: tuple[str, ...]) -> str:
    """An alternation of `words` (regex pieces, each starting with a literal word character),
    tried in their order, each only at the start of a word: `\\b(?:w1|w2|...)`, grouped by first
    letter with the look-behind after it."""
    rests: dict[str, list[str]] = {}
    for word in words:
        rests.setdefault(word[0], []).append(word[1:])
    return "(?:" + "|".join(f"{first}(?<!\\w.)(?:{'|'.join(rest)})" for first, rest in rests.items()) + ")"


def _sentence_opening(rest: str, flags: int) -> Search:
    """`(?:^|(?<=[.!?])\\s+)(rest)` searched as a match at the start, else a search after a
    sentence's end (the same first match, its group 1 at the same place)."""
    first, after = re.compile(rest, flags), re.compile(r"[.!?]\s+" + rest, flags)

    def search(string: str) -> re.Match[str] | None:
        return first.match(string) or after.search(string)

    return search


_SENTENCE = r"(?:^|(?<=[.!?])\s+)"
_WORD_PIECE = re.compile(r"(?:\w|\[[^\]\\]*\])+")  # a word, maybe with a class of literals (`we['’]re`)


def _words_opening(source: str) -> tuple[list[str], bool, str] | None:
    """(words, grouped, rest) for a source `\\bword…`, `\\b(?:w1|w2)…` or `\\b(w1|w2)…`."""
    if not source.startswith("\\b"):
        return None
    body = source[2:]
    if body.startswith("("):
        grouped = not body.startswith("(?:")
        inside_at = 1 if grouped else 3
        close = body.find(")")
        inside = body[inside_at:close]
        if close == -1 or "(" in inside:
            return None
        words, rest = inside.split("|"), body[close + 1:]
    else:
        m = _WORD_PIECE.match(body)
        if m is None:
            return None
        words, grouped, rest = [m.group()], False, body[m.end():]
    if not all(_WORD_PIECE.fullmatch(w) and w[0].isalnum() for w in words):
        return None
    return words, grouped, rest


def _derive(plain: re.Pattern[str]) -> re.Pattern[str] | Anchored:
    found = anchored(plain)
    if found is not None:
        return found
    opening = _words_opening(plain.pattern)
    if opening is None:
        return plain
    words, grouped, rest = opening
    if plain.flags & re.IGNORECASE and len({word[0] for word in words}) > 1:
        return plain  # no one letter to skip to, and each one tried through case folding: `\b` first is cheaper
    head = at_word_start(tuple(words))
    return re.compile(("(" + head + ")" if grouped else head) + rest, plain.flags)


# id(plain) -> (plain, its quick form): keyed by identity, as hashing a compiled pattern hashes its
# whole code each time; `plain` is kept in the entry, so its id is never reused while it is there
_QUICK: dict[int, tuple[re.Pattern[str], re.Pattern[str] | Anchored]] = {}
_SEARCH: dict[int, tuple[re.Pattern[str], Search]] = {}


def quick(plain: re.Pattern[str]) -> re.Pattern[str] | Anchored:
    """The quick form of `plain` (`plain` itself when it has none, and under `switch.maybe_only`):
    for a case-insensitive pattern that opens with literal words, `anchors.Anchored`."""
    if switch.MAYBE_ONLY:
        return plain
    entry = _QUICK.get(id(plain))
    if entry is None:
        entry = _QUICK[id(plain)] = (plain, _derive(plain))
    return entry[1]


def quick_search(plain: re.Pattern[str]) -> Search:
    """`plain.search` in its quick form, a sentence opening's included."""
    if switch.MAYBE_ONLY:
        return plain.search
    entry = _SEARCH.get(id(plain))
    if entry is None:
        source = plain.pattern
        search = (_sentence_opening(source[len(_SENTENCE):], plain.flags) if source.startswith(_SENTENCE)
                  else quick(plain).search)
        entry = _SEARCH[id(plain)] = (plain, search)
    return entry[1]
