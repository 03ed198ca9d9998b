"""The line-run screen of the POLICY rules: one search over many lines instead of one per line.

A POLICY rule matches within one line. Searching it over a run of lines joined by newlines (with
MULTILINE) finds a match wherever the line-by-line search finds one, for the patterns `screen_of`
accepts; so a run where that search finds nothing holds no match in any of its lines, and the
plain line-by-line search (`redact.policy_matches`) reads only the runs where it finds something.
"""

from __future__ import annotations

import re

RUN_CHARS = 4096  # the lines of a text are screened in runs of at most this many characters


def runs(text: str) -> list[tuple[int, int, int]]:
    """`text` cut at line ends into runs of at most RUN_CHARS characters (a longer line is a run of
    its own): (start offset, end offset, 1-based number of the run's first line)."""
    found: list[tuple[int, int, int]] = []
    start, number, size = 0, 1, len(text)
    while size - start > RUN_CHARS:
        cut = text.rfind("\n", start, start + RUN_CHARS + 1)
        if cut == -1:  # a line longer than RUN_CHARS
            cut = text.find("\n", start)
            if cut == -1:
                break
        found.append((start, cut, number))
        number += text.count("\n", start, cut) + 1
        start = cut + 1
    found.append((start, size, number))
    return found


# `^`, `$` (MULTILINE once compiled for the screen), `\b`, `\B`; not `\A`, `\Z`
_LINE_EDGE_AT = frozenset({"AT_BEGINNING", "AT_END", "AT_BEGINNING_LINE", "AT_END_LINE", "AT_BOUNDARY",
                           "AT_NON_BOUNDARY"})


def screen_of(regex: re.Pattern[str]) -> re.Pattern[str] | None:
    """`regex` with MULTILINE, when a search of it over lines joined by newlines must find a match
    wherever the line-by-line search finds one (None when that is not sure).

    A match in a line is a path of the regex through that line alone; over the joined lines the
    same path still succeeds (the search backtracks until some path does) as long as nothing
    looks past its own characters differently at a line's edge: no look-around, no `\\A`/`\\Z`,
    nothing that keeps what it took (atomic groups, possessive repeats); `^`/`$` hold at every
    line edge once MULTILINE is set, and a newline counts as a non-word character for
    `\\b`/`\\B`, as the string's edge does.

    The screen may match more than that (it only clears text), so its start is made cheap to
    find: it starts at the pattern's first top-level literal when it has one (`-[0-9]{2}-…` for
    `\\b[0-9]{3}-[0-9]{2}-…`: every match holds a match of that rest, and `re` skips from one
    `-` to the next in C), unless a back-reference needs the part left out; else a leading `\\b`
    is left out, and a leading repeat of one character class, `[0-9]{3}`, is spelled
    `[0-9][0-9]{2}`, which lets `re` skip to the places where a match can start."""
    if not isinstance(regex.pattern, str):
        return None
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]

        tree = _parser.parse(regex.pattern, regex.flags | re.MULTILINE)
        screen = re.compile(regex.pattern, regex.flags | re.MULTILINE)
    except Exception:  # it compiled without MULTILINE; refuse to screen what cannot be analysed
        return None
    if not _line_local(_parser, list(tree)):
        return None
    try:
        head = _quick_start(_parser, list(tree))
        return _compiler.compile(_parser.SubPattern(tree.state, head), regex.flags | re.MULTILINE)
    except Exception:  # `re`'s private parse tree changed shape: the pattern itself screens
        return screen


def _quick_start(p, items: list) -> list:
    """The items from the first top-level literal on (when nothing refers back to a group); else
    without a leading `\\b`, a leading single-class repeat split in two."""
    first = next((i for i, (op, _) in enumerate(items) if op is p.LITERAL), 0)
    if first and not _refers_back(p, items):
        return items[first:]
    if items and items[0] == (p.AT, p.AT_BOUNDARY):
        items = items[1:]
    if items and items[0][0] in (p.MAX_REPEAT, p.MIN_REPEAT):
        low, high, body = items[0][1]
        if low >= 1 and len(body) == 1 and body[0][0] in (p.IN, p.LITERAL):
            rest = (low - 1, high if high == p.MAXREPEAT else high - 1, body)
            items = [body[0], (items[0][0], rest), *items[1:]]
    return items


def _refers_back(p, items: list) -> bool:
    """Whether a back-reference or a conditional on a group occurs at any depth."""
    for op, av in items:
        if op in (p.GROUPREF, p.GROUPREF_EXISTS):
            return True
        if op in (p.MAX_REPEAT, p.MIN_REPEAT) and _refers_back(p, list(av[2])):
            return True
        if op is p.SUBPATTERN and _refers_back(p, list(av[3])):
            return True
        if op is p.BRANCH and any(_refers_back(p, list(sub)) for sub in av[1]):
            return True
    return False


def _line_local(p, items: list) -> bool:
    """Only parse-tree items `screen_of` may screen, at any depth (unknown ones refuse)."""
    for op, av in items:
        if op in (p.LITERAL, p.NOT_LITERAL, p.IN, p.ANY, p.GROUPREF):
            continue
        if op is p.AT:
            if av.name not in _LINE_EDGE_AT:
                return False
            continue
        if op in (p.MAX_REPEAT, p.MIN_REPEAT):
            subs = [av[2]]
        elif op is p.SUBPATTERN:
            if av[2] & re.MULTILINE:  # `(?-m:...)`: its `^` and `$` would not see line edges
                return False
            subs = [av[3]]
        elif op is p.BRANCH:
            subs = list(av[1])
        elif op is p.GROUPREF_EXISTS:
            subs = [av[1], av[2]] if av[2] is not None else [av[1]]
        else:  # look-arounds, atomic groups, possessive repeats, anything newer
            return False
        if not all(_line_local(p, list(sub)) for sub in subs):
            return False
    return True
