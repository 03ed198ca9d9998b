"""The secret pre-screen (`screens.secrets`) against the built-in shapes it must never hide
(`redact.BUILTIN`), and its cheap forms against the plain searches they stand for."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render import redact
from memshelf_render.screens.secrets import env_assignment, may_hold_secret
from memshelf_render.screens.view import Screened

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))


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
    assert env_assignment(lower) == (_ENV_PLAIN.search(lower) is not None)


_SCREEN_PLAIN = re.compile(r"AKIA|squ_|PRIVATE KEY|github_pat_|xox|eyJ|gh[pousr]_")


@PROPERTY
@given(_SECRET_TEXTS)
def test_secret_screen_equals_its_literals(text):
    """The screen's cheap forms give the same answer as searching the literals they stand for."""
    lower = text.lower()
    plain = (bool(_SCREEN_PLAIN.search(text)) or re.search(r"bearer\s", lower) is not None
             or _ENV_PLAIN.search(lower) is not None)
    assert may_hold_secret(Screened(text)) == plain
    assert may_hold_secret(Screened(text, lower)) == plain


# and the spellings only IGNORECASE takes for a keyword's letter (`casing.LOWER_MISSES`)
_CASE_TEXTS = st.lists(st.tuples(st.sampled_from([*_SECRET_PIECES.elements, "ſ", "İ", "ı", "\u0307", "ECRET", "ſECRET",
                                                   "APİ_KEY", "PAſſWD", "ACCEſS_KEY", "toKen", "i"]),
                                 st.sampled_from([1, 1, 2])), max_size=20).map(
    lambda parts: "".join(piece * times for piece, times in parts))


@PROPERTY
@given(st.one_of(_SECRET_TEXTS, _CASE_TEXTS))
def test_secret_screen_passes_every_text_a_builtin_rule_matches(text):
    if any(rule.regex.search(text) for rule in redact.BUILTIN):
        assert may_hold_secret(Screened(text))
        assert may_hold_secret(Screened(text, text.lower()))
