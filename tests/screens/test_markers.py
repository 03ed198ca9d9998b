"""The conflict-marker screen (`screens.markers`) passes every text the plain definition
`rules.content.conflict_markers` finds a marker in."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.rules.content import conflict_markers
from memshelf_render.screens.markers import may_hold_marker

_PIECES = st.sampled_from(["<<<<<<<", "<<<<<<", ">>>>>>>", ">>>>>>", "|||||||", "||||||", "=======", " ", "\n", "x",
                           "<", ">", "|", "=", "\t", "HEAD"])


@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_PIECES, max_size=16).map("".join))
def test_the_screen_passes_every_text_with_a_marker(text):
    if conflict_markers(text):
        assert may_hold_marker(text)


def test_the_screen_is_not_vacuous():
    assert conflict_markers("<<<<<<< HEAD\n=======\n>>>>>>> b") == [0, 13, 21]
    assert not may_hold_marker("=======\n<<<<<< six\n")
