"""The quick forms (`screens.wordstart`) find what the rules' plain patterns find, where they find
it: the instruction patterns (`rules.content.INSTRUCTIONS`) and the digest's (`rules.digest`)."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.rules import content, digest
from memshelf_render.screens import switch
from memshelf_render.screens.anchors import Anchored
from memshelf_render.screens.wordstart import quick, quick_search
from tests.unit.screens.instruction_texts import FRAGMENTS


def _found(pattern: re.Pattern[str], text: str) -> list[tuple[tuple[int, int], str]]:
    return [(m.span(), m.group(0)) for m in pattern.finditer(text)]


def test_the_word_openings_get_quick_forms_and_the_rest_keep_theirs():
    # the instruction patterns are case-insensitive; those opening with cased words: `anchors`
    anchored = {name for name, p in content.INSTRUCTIONS.items() if isinstance(quick(p), Anchored)}
    assert anchored == set(content.INSTRUCTIONS) - {"role-tag", "chat-token", "inst-tag"}
    assert all(quick(p) is not p for p in (digest.WE, digest.CUE))
    assert quick_search(digest.BARE) != digest.BARE.search
    with switch.maybe_only():
        assert quick(digest.WE) is digest.WE and quick_search(digest.BARE) == digest.BARE.search


@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from([*FRAGMENTS, "x", "_", "1", "İ", "ı", "K", "ſ", "Ignore", "YOU", "do not", "new",
                                 "reveal", "from", "теперь", "Теперь", "a", "the", "in"]), max_size=16).map("".join))
def test_instruction_patterns_equal_their_definitions(text):
    for pattern in content.INSTRUCTIONS.values():
        assert _found(quick(pattern), text) == _found(pattern, text)


_DIGEST_PIECES = st.sampled_from([
    "we", "we're", "we’ve", "we'd", "ours", "our", "us", "it", "this", "that", "they", "these", "those", "это",
    "эти", "они", "мы", "нам", "наш", "нашего", "нашу", "decid", "reject", "chose", "open", "todo", "verdict",
    "реш", "отклон", "выбра", "открыт", "итог", "x", "_", "1", "é", "ы", "'", "’", " ", "  ", "\n", "\t", ".", "!",
    "?", ",", "-", "re", "ve", "d", "s", "e", "w", "o", "u",
])


@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_DIGEST_PIECES, max_size=12).map("".join))
def test_digest_patterns_equal_their_definitions(low):
    """The quick forms find what the definitions find, where they find it (group 1 of a match)."""
    for pattern in (digest.WE, digest.CUE):
        assert [m.span(1 if pattern.groups else 0) for m in quick(pattern).finditer(low)] == \
            [m.span(1 if pattern.groups else 0) for m in pattern.finditer(low)]
    plain = digest.BARE.search(low)
    fast = quick_search(digest.BARE)(low)
    assert (fast.span(1) if fast else None) == (plain.span(1) if plain else None)
