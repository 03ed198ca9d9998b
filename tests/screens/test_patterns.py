"""The screens of the POLICY rules (`screens.patterns`: literal needles, class codes, the
line-run screen) against the plain line-by-line definition: every line, in overlapping windows,
no screen. Both must give the same matches, for patterns the run screen accepts (anchors, word
boundaries, classes that match a newline, back-references) and for those it must refuse
(look-arounds, atomic groups, possessive repeats, `\\A`, `\\Z`).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.episode import parse
from memshelf_render.redact import WINDOW, WINDOW_OVERLAP, PolicyPack, mask
from memshelf_render.screens import switch
from memshelf_render.screens.classcodes import codes
from memshelf_render.screens.lines import RUN_CHARS
from memshelf_render.screens.view import Screened, of_episode

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
PATTERNS = (
    r"ab", r"\bab\b", r"\Bb", r"^a+", r"b$", r"^$x?y", r"a[^b]*b", r"\b-\d", r"\b[ab]+", r"a\s*b", r"(?s)a.{0,3}b", r"a.*?b",
    r"(a|b)\1", r"[ab]{1,2}?b", r"\b\d{1}-", r"(x)?(?(1)a|b)b", r"(?i:AB)", r"(?m:^b)", r"[ab]{2,}", r"-\d", r"(?<=a)b", r"(?<!a)b",
    r"a(?=\n)", r"a(?!b)", r"(?>a+)b", r"a++b", r"\Aa", r"b\Z", r"(?-m:^a)", r"(?s:.)+x",
    # a screen that starts at the first literal: the part before it may hold edges, repeats, groups
    r"\b[ab]{2}-[ab]\b", r"^a*-$", r"(a|b)?-x", r"\s*_a", r"[^\n]{0,3}-b", r"(a)-\1", r"(a)?-(?(1)b|x)", r"\Bb-",
    # case-insensitive as a whole: a lowercase literal in the folded lowercased text (`casing`)
    r"(?i)ab", r"(?i:is\s+b)", r"(?i)x-?si", r"(?i:SA)", r"(?i:bı)x", r"(?i:ᲂx)", r"(?i)\bis",
    # a run of one-code items, screened by the text's class codes (`classcodes`)
    r"\b[A-Z]{2}[0-9]{2}[A-Z0-9]{1,3}\b", r"[0-9]{2,}a-", r"\b[0-9]{3}-[0-9]{2}\b", r"(?i)[A-B]{2}1", r"[a-b]{1,2}[0-9]-A",
    r"^A[0-9]+-b$", r"[A-Z]1(?=-)", r"\BAB1", r"[AB]{2}1?[0-9]-", r"é[0-9]{3}",
)
_PIECES = st.sampled_from(["a", "b", "ab", " ", "\n", "\n\n", "x", "-1", "é", "_", "ba", "\t", "-", "A", "B", "I",
                           "i", "s", "S", "İ", "ı", "ſ", "о", "ᲂ", "\u0307", "1", "12", "AB", "Z9", "AB12"])


def _plain(pack: PolicyPack, text: str) -> list[tuple[str, int, int, int]]:
    out = []
    for rule in pack.rules:
        for number, line in enumerate(text.split("\n"), start=1):
            covered = 0
            for start in range(0, max(len(line) - WINDOW_OVERLAP, 1), WINDOW - WINDOW_OVERLAP):
                for m in rule.regex.finditer(line, start, start + WINDOW):
                    if m.end() > m.start() and m.start() >= covered:
                        covered = m.end()
                        out.append((rule.kind, number, m.start(), m.end()))
    return out


def _fast(pack: PolicyPack, text: str, screened: Screened | None = None) -> list[tuple[str, int, int, int]]:
    out = []
    for rule, number, m in pack.matches(text, screened):
        assert m is not None
        out.append((rule.kind, number, m.start(), m.end()))
    return out


def _pack(patterns: list[str]) -> PolicyPack:
    pack = PolicyPack.parse("".join(f"p{i} {p}\n" for i, p in enumerate(patterns)))
    pack.budget_seconds = 3600.0
    return pack


_TEXTS = st.lists(st.tuples(_PIECES, st.sampled_from([1, 1, 1, 3, 700, 2100])), max_size=40).map(
    lambda parts: "".join(piece * times for piece, times in parts))


@PROPERTY
@given(st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=4), _TEXTS)
def test_screened_runs_equal_the_line_by_line_search(patterns, text):
    pack = _pack(patterns)
    assert _fast(pack, text) == _plain(pack, text)
    with switch.maybe_only():
        assert _fast(pack, text) == _plain(pack, text)
    episode = parse(text.encode("utf-8", "surrogatepass"), "docs/topics/x.md")  # as the secrets rule calls it
    assert _fast(pack, text, of_episode(episode).screened) == _plain(pack, text)


def test_rules_without_a_literal_get_the_class_codes_every_match_shows():
    runs = [screen.shape for screen in _pack([r"\b[A-Z]{2}[0-9]{2}[A-Z0-9]{12,30}\b", r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b",
                                         r"x[0-9]{2,}y-", r"[0-9a-f]{12}", r"(?i)[A-Z]{2}[0-9]{2}", r"\d{4}", r"ab+c"]).screens]
    assert runs == [b"AA00", b"000-00-0000", b"00a-", None, None, None, None]
    assert codes("Hé DE12_x\ud800") == b"A\x80\x80 AA00_a\x80\x80\x80"


def test_case_insensitive_rules_have_a_lowercase_needle():
    assert [screen.folded for screen in _pack([r"(?i:project\s+nightingale)", r"(?i)INC\d+", r"(?i:straße)", r"HR-\d"]).screens] \
        == ["nightingale", "inc", None, None]


def test_runs_cross_the_window_size_and_long_lines_keep_their_windows():
    line = "x" * 300
    text = "\n".join([line] * 40 + ["ab " + "y" * 9000 + " ab", "ab"] + [line] * 20 + ["b ab"])
    pack = _pack([r"\bab\b", r"^ab", r"ab$"])
    assert len(text) > 4 * max(WINDOW, RUN_CHARS)
    assert _fast(pack, text) == _plain(pack, text) != []


def test_masking_uses_the_same_matches():
    pack = _pack([r"\bdb\d+\b", r"^host"])
    text = "host a\n" + "filler words here\n" * 500 + "use db12 now\nhost"
    assert mask(text, pack).split("\n")[-2:] == ["use «redacted:p0» now", "«redacted:p1»"]
