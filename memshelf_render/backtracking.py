"""Which regular expressions could take exponential (or high polynomial) time in `re`.

Stdlib `re` backtracks and has no timeout, so a POLICY.patterns line like `(a+)+$` would hang
every check on a hostile line. This walks `re`'s own parse tree and names the shapes that blow
up; `redact.PolicyPack` refuses those patterns. A pattern it lets through still runs under a
time budget, line by line, in windows.
"""

from __future__ import annotations

import re

_BACKTRACK_LIMIT = 10_000  # ways a bounded repeat may split its input before it is refused


def backtracking_risk(regex: re.Pattern[str]) -> str | None:
    """Why `regex` could take exponential time on a hostile line, or None. Refused: a repeat of
    variable length inside another repeat where the split between them is ambiguous (`(a+)+`,
    `(.*a){20}`, `(\\w+\\s?)+`; not `([a-z]+\\.)+`, whose dot fixes every split, nor small bounded
    ones like `(\\d{1,3}\\.){3}`), a repeated alternation whose branches can start alike
    (`(x|x)*`), and three unbounded repeats in a row over the same characters (`.*.*.*x`)."""
    from re import _parser  # type: ignore[attr-defined]

    try:
        tree = _parser.parse(regex.pattern, regex.flags)
    except Exception:  # it compiled, so this is a parser-version difference: refuse, to be safe
        return "the pattern cannot be analysed"
    return _Analysis(_parser).risk(list(tree), None, set())


Chars = set[int] | None  # the characters a piece of a match can start with; None: any at all
_CATEGORY_CHARS = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_WORD": "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_",
    "CATEGORY_SPACE": " \t\n\r\f\v",
}
_WIDE_RANGE = 512  # a character class wider than this is treated as "any character"


def _union(a: Chars, b: Chars) -> Chars:
    return None if a is None or b is None else a | b


def _overlap(a: Chars, b: Chars) -> bool:
    if a is None:
        return b is None or bool(b)
    return bool(a) and (b is None or bool(a & b))


class _Analysis:
    """A walk over `re`'s parse tree (the parser module is passed in: it is private API)."""

    def __init__(self, parser) -> None:
        p = self.p = parser
        self.repeats = {p.MAX_REPEAT, p.MIN_REPEAT, getattr(p, "POSSESSIVE_REPEAT", p.MAX_REPEAT)}

    def risk(self, items: list, outer: int | None, follow: Chars) -> str | None:
        """`outer`: how often the enclosing repeats may run `items` (None: outside any repeat);
        `follow`: what may come right after `items` within the innermost enclosing repeat."""
        p, many = self.p, self.p.MAXREPEAT
        chain, previous = 0, set()  # unbounded repeats in a row (only empty-able items between)
        for i, (op, av) in enumerate(items):
            rest, rest_empty = self.first(items[i + 1:])
            after = _union(rest, follow) if rest_empty else rest
            if op in self.repeats and av[1] == many:
                starts, _ = self.first(av[2])
                chain = chain + 1 if chain and _overlap(previous, starts) else 1
                previous = starts
                if chain >= 3:
                    return "three adjacent repeats can match the same text (polynomial backtracking)"
            elif not (op in (p.AT, p.ASSERT, p.ASSERT_NOT) or (op in self.repeats and av[0] == 0)):
                chain = 0
            if op in self.repeats:
                low, high, body = av
                starts, _ = self.first(body)
                big = outer == many or high == many or (high - low + 1) ** min(outer or 1, 64) > _BACKTRACK_LIMIT
                if outer is not None and low != high and big and _overlap(starts, after):
                    return "a repeated group holds another variable repeat (nested quantifiers)"
                if high > 1:
                    inner = many if many in (high, outer) else high * (outer or 1)
                    if (inner == many or 2 ** min(inner, 64) > _BACKTRACK_LIMIT) and self.branch_overlaps(body):
                        return "a repeated alternation has branches that can match the same text"
                    found = self.risk(list(body), inner, _union(starts, after))
                else:
                    found = self.risk(list(body), outer, after)
            elif op is p.SUBPATTERN:
                found = self.risk(list(av[3]), outer, after)
            elif op is p.BRANCH:
                found = next((r for b in av[1] if (r := self.risk(list(b), outer, after))), None)
            elif op in (p.ASSERT, p.ASSERT_NOT):
                found = self.risk(list(av[1]), outer, None)
            elif op is getattr(p, "ATOMIC_GROUP", None):
                found = self.risk(list(av), outer, after)
            elif op is p.GROUPREF_EXISTS:
                found = self.risk(list(av[1]), outer, after) or (self.risk(list(av[2]), outer, after) if av[2] else None)
            else:
                found = None
            if found:
                return found
        return None

    def first(self, items: list) -> tuple[Chars, bool]:
        """(the characters a match of `items` can start with; whether it can be empty)."""
        p = self.p
        chars: Chars = set()
        for op, av in items:
            if op in self.repeats:
                sub, empty = self.first(list(av[2]))
                empty = empty or av[0] == 0
            elif op is p.SUBPATTERN:
                sub, empty = self.first(list(av[3]))
            elif op is p.BRANCH:
                sub, empty = set(), False
                for branch in av[1]:
                    b, e = self.first(list(branch))
                    sub, empty = _union(sub, b), empty or e
            elif op in (p.AT, p.ASSERT, p.ASSERT_NOT):
                continue
            else:
                sub, empty = self.chars(op, av), False
            chars = _union(chars, sub)
            if chars is None or not empty:
                return chars, False
        return chars, True

    def chars(self, op, av) -> Chars:
        """The characters one single-character item can match (None: any, or too many to list)."""
        p = self.p
        if op is p.LITERAL:
            return {av}
        if op is not p.IN:
            return None
        out: set[int] = set()
        for kind, arg in av:
            if kind is p.LITERAL:
                out.add(arg)
            elif kind is p.RANGE and arg[1] - arg[0] <= _WIDE_RANGE:
                out.update(range(arg[0], arg[1] + 1))
            elif kind is p.CATEGORY and str(arg) in _CATEGORY_CHARS:
                out.update(map(ord, _CATEGORY_CHARS[str(arg)]))
            else:
                return None
        return out

    def branch_overlaps(self, items) -> bool:
        """Some alternation directly in `items` has two branches that can begin with the same
        character (or both match the empty string)."""
        p = self.p
        for op, av in items:
            if op is p.SUBPATTERN and self.branch_overlaps(av[3]):
                return True
            if op is p.BRANCH:
                seen: set[int] = set()
                empties = 0
                for branch in av[1]:
                    chars, empty = self.first(list(branch))
                    empties += empty
                    if chars is None or chars & seen or empties > 1:
                        return True
                    seen |= chars
        return False
