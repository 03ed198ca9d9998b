"""Where `re.IGNORECASE` and `str.lower()` disagree, for the keyword screens in front of patterns.

A screen asks whether a lowercase keyword occurs in the lowercased text, and lets the pattern
run only then; so it must pass wherever the case-insensitive pattern matches. For most letters it
does: every character the pattern takes for the letter lowercases to that letter. For the letters
below it does not: IGNORECASE also takes `ı` and `İ` for `i` (and `İ` lowercases to `i` plus a
combining dot), `ſ` for `s`, and Cyrillic Extended-C letters for six Cyrillic ones, all of which
`str.lower()` leaves as they are. A hostile episode could spell `İGNORE ALL PREVIOUS
INSTRUCTIONS` or `ſECRET=…` with them to slip past a screen the pattern itself would not.
`tests/screens/test_casing.py` derives this table from `re` over every code point.

A screen either looks for these forms too (`lowered_forms`), or folds the rare text that holds
one (`holds_misses`, then `fold`).
"""

from __future__ import annotations

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
_LOWERED_MISSES = "".join(sorted({c for miss in _MISSES for c in miss.lower() if not c.isascii()}))
# a lowered miss -> its letter; the combining dot of a lowered `İ` goes (a screen may pass more)
_FOLD = str.maketrans({**{other.lower(): letter for letter, others in LOWER_MISSES.items() for other in others
                          if len(other.lower()) == 1}, "\u0307": None})


# the characters LOWER_MISSES is derived for (printable ASCII, the Russian alphabet): a keyword of
# these only is screened as above; `tests/test_casing.py` checks every one of them
_RUSSIAN = "абвгдеёжзийклмнопрстуфхцчшщъыьэюя"
VOUCHED = frozenset(chr(i) for i in range(0x20, 0x7F)) | frozenset(_RUSSIAN + _RUSSIAN.upper())


def lowered_forms(letter: str) -> tuple[str, ...]:
    """What the lowercased text may hold where an IGNORECASE pattern matched `letter`."""
    return (letter, *(other.lower() for other in LOWER_MISSES.get(letter, "")))


def holds_misses(lower: str) -> bool:
    """Whether the lowercased text `lower` holds a lowered miss (`İ` lowered is `i` and a combining
    dot: a dot of the text's own counts too, and folding it away only makes a screen pass more).
    Looked for in the lowercased text, whose misses do not share their low byte with a common
    Cyrillic letter (`İ` does, with `а`, and `str`'s memchr stops at each); isascii is a flag, O(1)."""
    if lower.isascii():
        return False
    for miss in _LOWERED_MISSES:  # noqa: SIM110 (a loop: a generator would resume once a miss, on every text)
        if miss in lower:
            return True
    return False


def screen_lower(text: str) -> str:
    """`text` lowercased for a keyword screen: folded (below) when it holds a miss."""
    lower = text.lower()
    return fold(lower) if holds_misses(lower) else lower


def fold(lower: str) -> str:
    """A lowercased text in which every keyword occurs that an IGNORECASE pattern matched in the
    text: each lowered miss is its letter again."""
    return lower.translate(_FOLD)
