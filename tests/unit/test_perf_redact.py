"""The policy rules' run screen against the plain line-by-line definition, and the secret pre-screen
against the built-in rules it must never hide.

`PolicyPack.matches` searches runs of lines at once and reads a run line by line only when the
screen finds something there. The plain definition below is the rule as documented: every line,
in overlapping windows, no screen. Both must give the same matches, for patterns the screen
accepts (anchors, word boundaries, classes that match a newline, back-references) and for those
it must refuse (look-arounds, atomic groups, possessive repeats, `\\A`, `\\Z`).
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render import redact
from memshelf_render.casing import fold
from memshelf_render.classcodes import class_run, codes
from memshelf_render.episode import parse
from memshelf_render.redact import WINDOW, WINDOW_OVERLAP, PolicyPack, mask, screen_of

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


def _fast(pack: PolicyPack, text: str, lower: str | None = None) -> list[tuple[str, int, int, int]]:
    out = []
    for rule, number, m in pack.matches(text, lower):
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
    episode = parse(text.encode("utf-8", "surrogatepass"), "docs/topics/x.md")  # as the secrets rule calls it
    assert _fast(pack, text, fold(episode.lower) if episode.case_misses else episode.lower) == _plain(pack, text)


def test_rules_without_a_literal_get_the_class_codes_every_match_shows():
    runs = [rule.shape for rule in _pack([r"\b[A-Z]{2}[0-9]{2}[A-Z0-9]{12,30}\b", r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b",
                                         r"x[0-9]{2,}y-", r"[0-9a-f]{12}", r"(?i)[A-Z]{2}[0-9]{2}", r"\d{4}", r"ab+c"]).rules]
    assert runs == [b"AA00", b"000-00-0000", b"00a-", None, None, None, None]
    assert codes("Hé DE12_x\ud800") == b"A\x80\x80 AA00_a\x80\x80\x80"


_SHAPED = (r"\b[A-Z]{2}[0-9]{2}[A-Z0-9]{1,3}\b", r"^A[0-9]+-B$", r"x[0-9]{2,}y-", r"[0-9]{3}-?[0-9]", r"Z[0-9]{1,2}_[a-z]{2}9",
           r"(?:ab)[0-9]{3}", r"\bA9{2,3}b", r"[A-Z]{2,}0[a-b]{2}", r"[0-9][0-9]?[0-9]{2}-", r"é?A[0-9]{3}", r"\B_A[09]{3}\b")


@PROPERTY
@given(st.sampled_from(_SHAPED), st.text(alphabet="aAbZxy019-_ é\n", max_size=40))
def test_a_text_without_a_rules_class_codes_holds_no_match(pattern, text):
    regex = re.compile(pattern)
    shape = class_run(regex)
    assert shape is not None
    if any(regex.search(line) for line in text.split("\n")):
        assert shape in codes(text), (pattern, text, shape)


def test_case_insensitive_rules_have_a_lowercase_needle():
    assert [rule.folded_needle for rule in _pack([r"(?i:project\s+nightingale)", r"(?i)INC\d+", r"(?i:straße)", r"HR-\d"]).rules] \
        == ["nightingale", "inc", None, None]


def test_runs_cross_the_window_size_and_long_lines_keep_their_windows():
    line = "x" * 300
    text = "\n".join([line] * 40 + ["ab " + "y" * 9000 + " ab", "ab"] + [line] * 20 + ["b ab"])
    pack = _pack([r"\bab\b", r"^ab", r"ab$"])
    assert len(text) > 4 * WINDOW
    assert _fast(pack, text) == _plain(pack, text) != []


def test_the_screen_starts_at_the_first_literal_unless_a_group_is_referred_back_to():
    screen = screen_of(re.compile(r"\b[0-9]{3}-[0-9]{2}-[0-9]{4}\b"))
    assert screen is not None and screen.search("id 123-45-6789.").start() == 6
    screen = screen_of(re.compile(r"(a)-\1"))
    assert screen is not None and screen.search("x a-a").start() == 2


def test_the_screen_refuses_what_sees_past_a_line():
    screened = {p: screen_of(__import__("re").compile(p)) is not None for p in PATTERNS}
    assert not any(screened[p] for p in (r"(?<=a)b", r"(?<!a)b", r"a(?=\n)", r"a(?!b)", r"(?>a+)b", r"a++b",
                                         r"\Aa", r"b\Z", r"(?-m:^a)"))
    assert all(screened[p] for p in (r"ab", r"\bab\b", r"^a+", r"b$", r"a[^b]*b", r"(a|b)\1", r"(?i:AB)"))


def test_masking_uses_the_same_matches():
    pack = _pack([r"\bdb\d+\b", r"^host"])
    text = "host a\n" + "filler words here\n" * 500 + "use db12 now\nhost"
    assert mask(text, pack).split("\n")[-2:] == ["use «redacted:p0» now", "«redacted:p1»"]


# --- the secret pre-screen ------------------------------------------------------------------------

_SECRET_PIECES = st.sampled_from([
    "token", "TOKEN", "secret", "passw", "pwd", "api_key", "api-key", "apikey", "access_key", "accesskey", "access-key",
    "=", "= ", " =", "\t", "\n", "\u00a0", "\u2003", " ", "x", "_", "-", "9", "é", "my", ".", ":", "\"", "AKIA",
    "AKIAABCDEFGHIJKLMNOP", "squ_" + "a" * 40, "-----BEGIN RSA PRIVATE KEY-----", "ghp_" + "A" * 36, "Bearer ",
    "abcdefghijklmnop", "github_pat_" + "a" * 22, "xoxb-1234567890", "eyJabcdefghij.eyJabcdefghij.x", "Y", "J",
    "K", "AKI", "KIA", "PRIVATE", " KEY", "sq", "qu_", "gh", "ghp", "gho_", "github", "_pat_", "xo", "ox", "ey", "BEA",
    "bearer", "rer", "pass", "w=", "ACCESS", "ключ", "İ", "«redacted:env-secret»", "«REDACTED:", "«redacted:bearer»",
    "«redacted", "'", "=\"«redacted:", "='«redacted:x»'",
])
_SECRET_TEXTS = st.lists(st.tuples(_SECRET_PIECES, st.sampled_from([1, 1, 1, 2, 40])), max_size=30).map(
    lambda parts: "".join(piece * times for piece, times in parts))
# the lowercased text: `s` may also be `ſ`, `i` also `ı` or `i̇` (`casing.LOWER_MISSES`), in the keyword
# and among the identifier characters after it
_S, _I = "[sſ]", "(?:i\u0307|i|ı)"
_ENV_PLAIN = re.compile(rf"(?:token|{_S}ecret|pa{_S}{_S}w|pwd|ap{_I}[_-]?key|acce{_S}{_S}[_-]?key)"
                        r"[a-z0-9_\-ıſ\u0307]*\s*=(?![\"']?«redacted:)")


@PROPERTY
@given(_SECRET_TEXTS)
def test_env_assignment_screen_equals_its_regex(text):
    """The keyword scans give the same answer as searching the superset regex they stand for."""
    lower = text.lower()
    assert redact._env_assignment(lower) == (_ENV_PLAIN.search(lower) is not None)


_SCREEN_PLAIN = re.compile(r"AKIA|squ_|PRIVATE KEY|github_pat_|xox|eyJ|gh[pousr]_")


@PROPERTY
@given(_SECRET_TEXTS)
def test_secret_screen_equals_its_literals(text):
    """The screen's cheap forms give the same answer as searching the literals they stand for."""
    lower = text.lower()
    plain = (bool(_SCREEN_PLAIN.search(text)) or re.search(r"bearer\s", lower) is not None
             or _ENV_PLAIN.search(lower) is not None)
    assert redact._may_hold_secret(text) == plain
    assert redact._may_hold_secret(text, lower) == plain


# and the spellings only IGNORECASE takes for a keyword's letter (`casing.LOWER_MISSES`)
_CASE_TEXTS = st.lists(st.tuples(st.sampled_from([*_SECRET_PIECES.elements, "ſ", "İ", "ı", "\u0307", "ECRET", "ſECRET",
                                                   "APİ_KEY", "PAſſWD", "ACCEſS_KEY", "toKen", "i"]),
                                 st.sampled_from([1, 1, 2])), max_size=20).map(
    lambda parts: "".join(piece * times for piece, times in parts))


@PROPERTY
@given(st.one_of(_SECRET_TEXTS, _CASE_TEXTS))
def test_secret_screen_passes_every_text_a_builtin_rule_matches(text):
    if any(rule.regex.search(text) for rule in redact.BUILTIN):
        assert redact._may_hold_secret(text)
        assert redact._may_hold_secret(text, text.lower())
