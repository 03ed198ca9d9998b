"""The line-run screen (`screens.lines.screen_of`): where it starts, and what it refuses. Its
property test against the line-by-line search is `test_patterns.py`'s, where it runs in
`PolicyPack.matches`."""

from __future__ import annotations

import re

from memshelf_render.screens.lines import screen_of
from tests.screens.test_patterns import PATTERNS as _ALL


def test_the_screen_starts_at_the_first_literal_unless_a_group_is_referred_back_to():
    screen = screen_of(re.compile(r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b"))
    assert screen is not None and screen.search("id 123-45-6789.").start() == 6
    screen = screen_of(re.compile(r"(a)-\1"))
    assert screen is not None and screen.search("x a-a").start() == 2


def test_the_screen_refuses_what_sees_past_a_line():
    screened = {p: screen_of(re.compile(p)) is not None for p in _ALL}
    assert not any(screened[p] for p in (r"(?<=a)b", r"(?<!a)b", r"a(?=\n)", r"a(?!b)", r"(?>a+)b", r"a++b",
                                         r"\Aa", r"b\Z", r"(?-m:^a)"))
    assert all(screened[p] for p in (r"ab", r"\bab\b", r"^a+", r"b$", r"a[^b]*b", r"(a|b)\1", r"(?i:AB)"))
