"""Literal needles (`screens.literals`): a text without the literal a pattern's every match holds
(its lowercase form in `screen_lower` for a case-insensitive one) holds no match."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render import redact
from memshelf_render.screens.casing import screen_lower
from memshelf_render.screens.literals import folded_literal, required_literal
from tests.screens.test_patterns import PATTERNS

PROPERTY = settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
_REGEXES = [re.compile(p) for p in PATTERNS] + [rule.regex for rule in redact.BUILTIN]
_PIECES = st.sampled_from(["a", "b", "ab", "-", "x", "1", "A", "B", "I", "i", "s", "S", "İ", "ı", "ſ", "\n", " ", "AKIA",
                           "squ_", "ghp_", "github_pat_", "xoxb-", "eyJ", "-----BEGIN", "PRIVATE KEY-----", "Z9", "AB12"])


@PROPERTY
@given(st.sampled_from(_REGEXES), st.lists(_PIECES, max_size=30).map("".join))
def test_a_text_without_the_needle_holds_no_match(regex, text):
    if regex.search(text) is None:
        return
    needle, folded = required_literal(regex), folded_literal(regex)
    assert needle is None or needle in text
    assert folded is None or folded in screen_lower(text)


def test_the_needles_are_not_vacuous():
    assert [required_literal(rule.regex) for rule in redact.BUILTIN] == [
        "PRIVATE KEY-----", "AKIA", "squ_", "gh", None, None, "github_pat_", "xox", ".eyJ"]
    assert [folded_literal(re.compile(p)) for p in (r"(?i:project\s+nightingale)", r"(?i)INC\d+", r"(?i:straße)",
                                                    r"HR-\d")] == ["nightingale", "inc", None, None]
