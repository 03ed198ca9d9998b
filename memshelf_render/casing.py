"""Where `re.IGNORECASE` and `str.lower()` disagree, for the keyword screens in front of patterns.

A screen asks whether a lowercase keyword occurs in the lowercased text, and lets the pattern
run only then; so it must pass wherever the case-insensitive pattern matches. For most letters it
does: every character the pattern takes for the letter lowercases to that letter. For the letters
below it does not: IGNORECASE also takes `ı` and `İ` for `i` (and `İ` lowercases to `i` plus a
combining dot), `ſ` for `s`, and Cyrillic Extended-C letters for six Cyrillic ones, all of which
`str.lower()` leaves as they are. A hostile episode could spell `İGNORE ALL PREVIOUS
INSTRUCTIONS` or `ſECRET=…` with them to slip past a screen that the pattern itself would not.
`tests/test_casing.py` derives this table from `re` over every code point.
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


def screenable(keyword: str) -> str:
    """The longest run of `keyword` (the first of equal ones) without a letter of LOWER_MISSES:
    wherever an IGNORECASE pattern matches the keyword, the lowercased text holds this run."""
    best, run = "", ""
    for char in keyword + "\0":
        if char in LOWER_MISSES or char == "\0":
            if len(run) > len(best):
                best = run
            run = ""
        else:
            run += char
    return best


def lowered_forms(letter: str) -> tuple[str, ...]:
    """What the lowercased text may hold where an IGNORECASE pattern matched `letter`."""
    return (letter, *(other.lower() for other in LOWER_MISSES.get(letter, "")))
