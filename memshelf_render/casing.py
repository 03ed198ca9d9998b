"""Where `re.IGNORECASE` and `str.lower()` disagree, for the keyword screens in front of patterns.

A screen asks whether a lowercase keyword occurs in the lowercased text, and lets the pattern
run only then; so it must pass wherever the case-insensitive pattern matches. For most letters it
does: every character the pattern takes for the letter lowercases to that letter. For the letters
below it does not: IGNORECASE also takes `ı` and `İ` for `i` (and `İ` lowercases to `i` plus a
combining dot), `ſ` for `s`, and Cyrillic Extended-C letters for six Cyrillic ones, all of which
`str.lower()` leaves as they are. A hostile episode could spell `İGNORE ALL PREVIOUS
INSTRUCTIONS` or `ſECRET=…` with them to slip past a screen the pattern itself would not.
`tests/unit/test_casing.py` derives this table from `re` over every code point.

A screen either looks for these forms too (`lowered_forms`), or folds the rare text that holds
one (`holds_misses`, then `fold`); `may_hold_misses` tells from a file's bytes, with a memchr or
three, that it holds none.
"""

from __future__ import annotations

import re

# letter -> the other characters IGNORECASE takes for it whose lowercase is not the letter
LOWER_MISSES: dict[str, str] = {
    "i": "ıİ",
    "s": "ſ",
    "в": "ᲀ",
    "д": "ᲁ",
    "о": "ᲂ",
    "с": "ᲃ",
    "т": "ᲄᲅ",
    "ъ": "ᲆ",
}
_MISSES = "".join(LOWER_MISSES.values())
_ANY_MISS = re.compile("[" + re.escape(_MISSES) + "]")
# the first UTF-8 byte of each miss (Latin Extended-A, Cyrillic Extended-C): rare in any text
_LEAD_BYTES = tuple(sorted({other.encode()[:1] for other in _MISSES}))
# a lowered miss -> its letter; the combining dot of a lowered `İ` goes (a screen may pass more)
_FOLD = str.maketrans({**{other.lower(): letter for letter, others in LOWER_MISSES.items() for other in others
                          if len(other.lower()) == 1}, "\u0307": None})


# the characters LOWER_MISSES is derived for (printable ASCII, the Russian alphabet): a keyword of
# these only is screened as above; `tests/unit/test_casing.py` checks every one of them
_RUSSIAN = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"
VOUCHED = frozenset(chr(i) for i in range(0x20, 0x7F)) | frozenset(_RUSSIAN + _RUSSIAN.upper())


def lowered_forms(letter: str) -> tuple[str, ...]:
    """What the lowercased text may hold where an IGNORECASE pattern matched `letter`."""
    return (letter, *(other.lower() for other in LOWER_MISSES.get(letter, "")))


def may_hold_misses(data: bytes) -> bool:
    """False when the UTF-8 `data` surely holds no character of LOWER_MISSES."""
    return any(lead in data for lead in _LEAD_BYTES)


def holds_misses(text: str) -> bool:
    return not text.isascii() and _ANY_MISS.search(text) is not None  # isascii: a flag, O(1)


def screen_lower(text: str) -> str:
    """`text` lowercased for a keyword screen: folded (below) when it holds a miss."""
    return fold(text.lower()) if holds_misses(text) else text.lower()


def fold(lower: str) -> str:
    """A lowercased text in which every keyword occurs that an IGNORECASE pattern matched in the
    text: each lowered miss is its letter again."""
    return lower.translate(_FOLD)
