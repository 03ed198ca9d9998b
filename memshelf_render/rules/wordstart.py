"""Patterns for "one of these words, at the start of a word" that `re` can search quickly.

A pattern that begins with `\b` or a look-behind makes `re` try a match at every position of the
text; one that begins with a literal character, or an alternation of them, it skips through in C
to where that character occurs. So the word-start test goes after the first letter instead:
`x(?<!\\w.)rest` matches where `\\bxrest` does (the `.` is the x itself, never a line break).
"""

from __future__ import annotations


def at_word_start(words: tuple[str, ...]) -> str:
    """An alternation of `words` (regex pieces, each starting with a literal word character),
    tried in their order, each only at the start of a word: `\\b(?:w1|w2|...)`, grouped by first
    letter with the look-behind after it."""
    rests: dict[str, list[str]] = {}
    for word in words:
        rests.setdefault(word[0], []).append(word[1:])
    return "(?:" + "|".join(f"{first}(?<!\\w.)(?:{'|'.join(rest)})" for first, rest in rests.items()) + ")"
