"""The markup screens (`screens.markup`): `find_markup` names what the ungated shapes of
`markup.SHAPES` name, case-insensitive shapes and the spellings only IGNORECASE takes included."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render import markup
from memshelf_render.screens import switch

_MARKUP_PIECES = st.sampled_from([
    "java", "JAVA", "vb", "VB", "script", "SCRIPT", "ſcript", "ſCRİPT", "scrıpt", "Script", "data", "DATA", ":", " ", "\t",
    "image/png", "/", "<", ">", "!--", "-->", "]", "(", "[", "![", "a", "x1", "é", "İ", "ı", "ſ", "K", "_", "\u0307",
    "javascript:", "vbscript:", "VBſcript :", "JavaSCRİPT\t:", "jAvAscrıpt:", "data:image/", "DATA:x/", "dAtA:", "x",
])


@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(_MARKUP_PIECES, max_size=12).map("".join))
def test_markup_gates_find_what_the_shapes_find(text):
    """Each shape searched with no gate names the same markup (case-insensitive shapes included)."""
    screened = markup.find_markup(text)
    with switch.maybe_only():
        assert markup.find_markup(text) == screened


def test_the_gates_are_not_vacuous():
    assert markup.find_markup("see JavaSCRİPT:alert") == "a javascript: URL"
    assert markup.find_markup("a ſcript: b") is None and markup.find_markup("plain") is None
