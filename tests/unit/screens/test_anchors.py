"""The anchored quick forms (`screens.anchors`) find what the case-insensitive patterns find, where
they find it: the instruction patterns (`rules.content.INSTRUCTIONS`) and patterns drawn to tempt
the derivation (groups, alternations, words of letters `casing` does not vouch for)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.rules import content
from memshelf_render.screens.anchors import Anchored, anchored
from tests.unit.screens.instruction_texts import FRAGMENTS


def _found(pattern, text: str) -> list[tuple[tuple[int, int], str]]:
    return [(m.span(), m.group(0)) for m in pattern.finditer(text)]


def test_every_instruction_pattern_opens_with_its_words():
    forms = {name: anchored(pattern) for name, pattern in content.INSTRUCTIONS.items()}
    assert forms["ignore-previous"].words == ("bypass", "disregard", "forget", "ignore", "override")
    assert forms["ignore-previous-ru"].words == ("забудь", "игнорируй", "отбрось")
    # `re` skips to an uncased opening character itself
    assert [name for name, form in forms.items() if form is None] == ["role-tag", "chat-token", "inst-tag"]


def test_patterns_without_sure_opening_words_have_no_anchored_form():
    for source in (r"\bfoo", r"(?i:foo)bar", r"(?i)(?:foo|)bar", r"(?i)[ab]foo", r"(?i)\w+foo", r"(?i)(?<=x)foo", r"(?i)<a", r"(?i)\[x|<<",
                   r"(?i)ﬀoo", r"(?i)straße", r"(?i)(?:s|ſ)t", r"(?i)a*b"):
        assert anchored(re.compile(source)) is None, source


_PIECES = [*FRAGMENTS, "x", "_", "1", "İ", "ı", "K", "ſ", "Ignore", "YOU", "do not", "new", "reveal", "from", "теперь",
           "Теперь", "a", "the", "in", "Σ", "ς", "ß", "ǅ", "\u0307", "ẞ", "ﬀ", "  ", "\t", "FORGET the earlier context",
           "you you are now the", "donot", "do", "Do Not inform the USER", "[inst][/INST]"]


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(_PIECES), max_size=20).map("".join))
def test_instruction_patterns_equal_their_definitions(text):
    for pattern in content.INSTRUCTIONS.values():
        quick = anchored(pattern) or pattern
        assert _found(quick, text) == _found(pattern, text)
        plain = pattern.search(text)
        fast = quick.search(text)
        assert (fast.span() if fast else None) == (plain.span() if plain else None)


_DRAWN = [r"(?i)\b(?:ab|abc|b)c", r"(?i)(?:aa|a)a", r"(?i)x(?:y|z)?", r"(?i)\bi\w*", r"(?i)to+",
          r"(?i)(?:in|i)(?:n|)"]


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(_DRAWN),
       st.lists(st.sampled_from(["a", "A", "b", "c", "x", "y", "z", "s", "S", "ſ", "t", "T", "i", "I", "İ", "ı", "n",
                                 "o", "O", " ", "\n", "_"]), max_size=24).map("".join))
def test_drawn_patterns_equal_their_definitions(source, text):
    """Overlapping openings, optional tails, a word that starts another: the same matches."""
    pattern = re.compile(source)
    quick = anchored(pattern)
    assert isinstance(quick, Anchored), source
    assert _found(quick, text) == _found(pattern, text)
