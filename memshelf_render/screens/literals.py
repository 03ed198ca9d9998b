"""The literal every match of a pattern holds, read from `re`'s own parse of the pattern.

A text without that literal holds no match: the needle screen of the built-in secret shapes and of
the POLICY rules (`patterns`). For a pattern matched case-insensitively as a whole the literal is
lowercased and looked for in the text's `casing.screen_lower`.
"""

from __future__ import annotations

import re

from .casing import VOUCHED


def top_level(regex: re.Pattern[str]) -> list | None:
    """`re`'s parse of a str pattern, its top-level items (None for bytes, or when the private
    parser, which may change between versions, cannot read it): what the screens in front of the
    POLICY rules are derived from."""
    if not isinstance(regex.pattern, str):
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        return list(_parser.parse(regex.pattern, regex.flags))
    except Exception:  # the pattern compiled, so this is only a parser-version difference
        return None


def required_literal(regex: re.Pattern[str]) -> str | None:
    """The longest run of literal characters that every match of `regex` must contain, taken
    from the top level of its parse (None when unsure: flags, no literal run)."""
    if regex.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    items = top_level(regex)
    return None if items is None else _longest_literal(items)


def folded_literal(regex: re.Pattern[str]) -> str | None:
    """For a pattern matched case-insensitively as a whole (IGNORECASE, or one `(?i:...)` group
    around it all, as `(?i:project\\s+nightingale)`): its longest top-level literal run,
    lowercased, which every match shows in the text's `casing.screen_lower`. Only for runs of
    characters `casing` vouches for (None otherwise, and when unsure)."""
    if regex.flags & re.VERBOSE:
        return None
    items = top_level(regex)
    if items is None:
        return None
    if not regex.flags & re.IGNORECASE:
        from re import _parser  # type: ignore[attr-defined]

        if len(items) != 1 or items[0][0] is not _parser.SUBPATTERN:
            return None
        _, add_flags, del_flags, body = items[0][1]
        if not add_flags & re.IGNORECASE or del_flags:
            return None
        items = list(body)
    run = _longest_literal(items)
    if run is None or not set(run) <= VOUCHED:
        return None
    return run.lower()


def _longest_literal(items: list) -> str | None:
    from re import _parser  # type: ignore[attr-defined]

    best, run = "", []
    for op, arg in [*items, (None, None)]:
        if op is _parser.LITERAL:
            run.append(chr(arg))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best or None
