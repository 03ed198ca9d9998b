"""Class codes: a screen for POLICY rules that hold no literal to look for, as an IBAN's
`\\b[A-Z]{2}[0-9]{2}[A-Z0-9]{12,30}\\b`, which `re` can only try at every capital letter.

A text's codes are its UTF-8 bytes translated one for one: an ASCII capital to `A`, a small
letter to `a`, a digit to `0`, every other ASCII byte to itself and every byte of a non-ASCII
character to 0x80. A rule whose top level holds a run of items that each take characters of one
code only (a literal, `[A-Z]`, `[0-9]{2}`, `[a-f]`) spells that run in codes (`AA00`), and every
match of the rule shows it in the text's codes: a text whose codes lack it holds no match. One
translate of the text then serves every such rule with a `bytes.find` each.
"""

from __future__ import annotations

import re

from .literals import top_level

_CAPITAL, _SMALL, _DIGIT, _OTHER = ord("A"), ord("a"), ord("0"), 0x80


def _code(byte: int) -> int:
    if 0x41 <= byte <= 0x5A:
        return _CAPITAL
    if 0x61 <= byte <= 0x7A:
        return _SMALL
    if 0x30 <= byte <= 0x39:
        return _DIGIT
    return byte if byte < 0x80 else _OTHER


_TABLE = bytes(_code(b) for b in range(256))
# fewer codes than this other than small letters, and the run would pass most texts anyway
_MIN_RARE = 3


def codes(text: str) -> bytes:
    """The text's class codes (a lone surrogate, which `mask` may be handed, is 3 bytes of 0x80)."""
    return text.encode("utf-8", "surrogatepass").translate(_TABLE)


def class_run(regex: re.Pattern[str]) -> bytes | None:
    """The codes every match of `regex` shows, from its top level (None when unsure, when a flag
    such as IGNORECASE changes what a class takes, or when the run is mostly small letters)."""
    items = top_level(regex)
    if items is None or regex.flags & (re.IGNORECASE | re.LOCALE):
        return None
    from re import _parser  # type: ignore[attr-defined]

    runs: list[list[int]] = [[]]
    for op, av in items:
        if op is _parser.AT:  # `\b`, `^`, `$` take no character
            continue
        code = _item_code(_parser, op, av)
        if code is not None:
            runs[-1].append(code)
            continue
        if op in (_parser.MAX_REPEAT, _parser.MIN_REPEAT):
            low, high, body = av
            code = _item_code(_parser, *body[0]) if len(body) == 1 else None
            if code is not None and low >= 1:
                runs[-1] += [code] * low
                if high != low:  # what follows is next to the last `low` of them only
                    runs.append([code] * low)
                continue
        runs.append([])
    best = max(runs, key=_rare)
    return bytes(best) if _rare(best) >= _MIN_RARE else None


def _rare(run: list[int]) -> int:
    return sum(code != _SMALL for code in run)


def _item_code(p, op, av) -> int | None:
    """The one code of every character a one-character item takes, else None."""
    if op is p.LITERAL:
        return _TABLE[av] if av < 0x80 else None
    if op is not p.IN:
        return None
    found: set[int] = set()
    for kind, value in av:
        if kind is p.LITERAL and value < 0x80:
            found.add(_TABLE[value])
        elif kind is p.RANGE and value[1] < 0x80:
            found.update(_TABLE[c] for c in range(value[0], value[1] + 1))
        else:  # a negation, a category (`\d` takes other digits too), a non-ASCII character
            return None
    return found.pop() if len(found) == 1 else None
