"""Issue 8, secrets and content: the built-in shapes, masking's invariants, linear time, POLICY
patterns that cannot hang, escaped secrets in YAML, and messages without Python reprs."""

from __future__ import annotations

import re
import time

import pytest

from memshelf_render.backtracking import backtracking_risk
from memshelf_render.redact import BUILTIN_KINDS, PolicyPack, mask, scan
from memshelf_render.validate import run
from tests.shelfkit import TOPIC, TOPIC_PATH, make_shelf

GHP = "ghp_" + "A1b2" * 9
PEM = ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7x+/abc=\nProc-Type: 4,ENCRYPTED\n"
       "c2VjcmV0IGtleSBtYXRlcmlhbA==\n-----END RSA PRIVATE KEY-----")
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"

# (kind, text holding the secret, the secret that must disappear)
SHAPES = [
    ("github-token", f"token {'github_pat_' + '11ABCDEFG0' * 3 + '_' + 'x' * 59} end", "github_pat_11ABCDEFG0"),
    ("github-token", f"ghs_{'Z9' * 18} server", f"ghs_{'Z9' * 18}"),
    ("github-token", f"gho_{'Z9' * 18}", f"gho_{'Z9' * 18}"),
    ("github-token", f"ghu_{'Z9' * 18}", f"ghu_{'Z9' * 18}"),
    ("github-token", f"ghr_{'Z9' * 18}", f"ghr_{'Z9' * 18}"),
    ("github-token", f"x{GHP} after a letter", GHP),
    ("aws-access-key", "keyAKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE"),
    ("slack-token", "hook xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx ok", "xoxb-1234567890"),
    ("slack-token", "xoxp-1234-5678-abcdefghij", "xoxp-1234"),
    ("jwt", f"Cookie: session={JWT}; path=/", JWT),
    ("private-key", f"key:\n{PEM}\nafter", "MIIEowIBAAKCAQEA7x"),
    ("private-key", f'"{PEM.replace(chr(10), chr(92) + "n")}"', "MIIEowIBAAKCAQEA7x"),
    ("env-secret", 'PASSWORD="correct horse battery staple"', "horse battery staple"),
    ("env-secret", "DB_PASSWORD = 'two words'", "words"),
    ("env-secret", "API_KEY=plainvalue", "plainvalue"),
]


@pytest.mark.parametrize(("kind", "text", "secret"), SHAPES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SHAPES)])
def test_each_shape_is_found_masked_whole_and_named(kind, text, secret):
    hits = scan(text)
    assert kind in {h.kind for h in hits}
    masked = mask(text)
    assert secret not in masked
    assert f"«redacted:{kind}»" in masked
    assert masked.count("\n") == text.count("\n")
    assert mask(masked) == masked  # idempotent
    assert scan(masked) == []  # already-masked text is not a match


def test_new_kinds_have_stable_names():
    assert BUILTIN_KINDS == ("private-key", "aws-access-key", "sonar-token", "github-token", "bearer",
                             "env-secret", "slack-token", "jwt")


def test_built_in_order_is_kept_and_each_rule_sees_the_previous_masks():
    """docs/reference.md §5: the five reference rules run in their order; a PEM block is one mask, not pieces."""
    text = f"AKIAIOSFODNN7EXAMPLE {GHP} Bearer abcdefghijklmnopqrst TOKEN=x\n{PEM}\nAKIAIOSFODNN7EXAMPLE"
    kinds = [h.kind for h in scan(text)]
    assert kinds == ["private-key", "aws-access-key", "aws-access-key", "github-token", "bearer", "env-secret"]
    assert mask(text).split("\n")[1] == "«redacted:private-key»"


def test_line_numbers_stay_true_after_a_multi_line_mask():
    text = f"one\n{PEM}\nAKIAIOSFODNN7EXAMPLE\nTOKEN=abc"
    lines = {h.kind: h.line for h in scan(text)}
    assert lines == {"private-key": 2, "aws-access-key": 7, "env-secret": 8}
    assert mask(text).split("\n")[6] == "«redacted:aws-access-key»"


def test_unclosed_private_key_is_masked_as_far_as_it_looks_like_key_material():
    text = "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nThe end."
    assert mask(text) == "«redacted:private-key»\n\n."


def test_plain_prose_is_not_a_secret():
    for text in ("the token bucket", "eyJ is base64 for {\"", "xox-", "xoxo-hugs-and-kisses", "a -----BEGIN PUBLIC KEY----- block",
                 "ghp_short", "password: see the vault", "Bearer of bad news"):
        assert scan(text) == [], text


MIB = 1024 * 1024


@pytest.mark.parametrize("unit", [
    "AKIAIOSFODNN7EXAMPLE\n",
    PEM + "\n",
    "-----BEGIN PRIVATE KEY-----\n",
    "DB_PASSWORD=hunter2hunter2\n",
    'API_KEY="two words\n',
    "TOKEN" + " " * 200 + "\n",
    "eyJ",
    "ghp_" + "a" * 30 + "_",
    "![x" * 10 + "\n",
    "xoxb-",
    "xoxb-1-",
], ids=["aws", "pem", "pem-unclosed", "env", "env-open-quote", "keyword-spaces", "eyJ-run", "gh-run", "brackets",
        "slack-run", "slack-digits-run"])
def test_a_mebibyte_scans_and_masks_in_linear_time(unit):
    """Bounds in CPU seconds, so a busy machine does not fail it; about 0.1-0.6 s each alone."""
    text = unit * (MIB // len(unit))
    start = time.process_time()
    hits = scan(text)
    scanned = time.process_time() - start
    masked = mask(text)
    assert scanned < 2.0 and time.process_time() - start < 4.0
    assert masked.count("\n") == text.count("\n")
    if unit.startswith("AKIA"):
        assert len(hits) == text.count("\n") and hits[-1].line == text.count("\n")


# --- POLICY.patterns --------------------------------------------------------------------------

HOSTILE = ["a" * 5000 + "!", "x" * 5000, "a" * 3000 + "\n" + "b" * 3000, ("ab" * 2000) + "c"]


@pytest.mark.parametrize("pattern", [r"(a+)+$", r"(x|x)*y", r"(.*a){20}", r"(\w+\s?)+$", r"(a?){40}a{40}",
                                     r"^(\w+\.?)*@", r"(?:a+b?)+c", r".*.*.*z", r"[ab]*[ab]*[ab]*c"])
def test_catastrophic_patterns_are_refused_and_finish_fast(pattern):
    pack = PolicyPack.parse(f"bad {pattern}\n")
    assert pack.rules == [] and pack.problems and "exponential" in pack.problems[0][1]
    assert backtracking_risk(re.compile(pattern)) is not None
    start = time.monotonic()
    for text in HOSTILE:
        assert scan(text, pack) == []
        assert mask(text, pack) == text
    assert time.monotonic() - start < 5.0


@pytest.mark.parametrize("pattern", [r"\b[a-z0-9]+\.corp\.example\.com\b", r"(\d{1,3}\.){3}\d{1,3}",
                                     r"([a-z0-9-]+\.)+internal", r"(?:foo|bar)+", r"(?:[A-Z][a-z]+ ?)+Ltd",
                                     r"db\d+\.corp"])
def test_ordinary_patterns_are_kept(pattern):
    assert PolicyPack.parse(f"ok {pattern}\n").problems == []


def test_policy_rules_match_line_by_line_and_report_lines():
    pack = PolicyPack.parse("host db\\d+\\.corp\n")
    text = "a\nuse db1.corp now\nb\ndb22.corp"
    assert [(h.kind, h.line) for h in scan(text, pack)] == [("host", 2), ("host", 4)]
    assert mask(text, pack) == "a\nuse «redacted:host» now\nb\n«redacted:host»"


def test_a_pattern_over_budget_is_a_finding_and_the_unchecked_rest_is_masked():
    pack = PolicyPack.parse("slow (?:x*)*y\nslow2 \\w+z\n")
    assert [r.kind for r in pack.rules] == ["slow2"]  # the nested one is refused outright
    pack.budget_seconds = 0.0
    text = "\n".join("z" * 50 for _ in range(5))
    hits = scan(text, pack)
    assert [(h.kind, h.line, h.over_budget) for h in hits] == [("slow2", 1, True)]
    assert set(mask(text, pack).split("\n")) == {"«redacted:slow2»"}


def test_a_quadratic_pattern_on_one_huge_line_stops_at_the_budget():
    """`\\w+y` is quadratic on a long word without a match; windows keep each search call small,
    so the budget is checked often enough to stop it."""
    pack = PolicyPack.parse("w \\w+y\n")
    pack.budget_seconds = 0.3
    text = "y" + "a" * MIB
    start = time.monotonic()
    hits = scan(text, pack)
    assert time.monotonic() - start < 20.0
    assert [(h.kind, h.over_budget) for h in hits] == [("w", True)]


def test_long_lines_are_searched_in_windows_without_losing_matches():
    pack = PolicyPack.parse("mail \\w+@corp\\.com\nhost ^db\\d+\n")
    line = "a" * 10_000 + " bob@corp.com " + "b" * 4090 + " x@corp.com " + "c" * 3000
    hits = scan(f"{line}\ndb1 x\nx db2", pack)
    assert [(h.kind, h.line) for h in hits] == [("mail", 1), ("mail", 1), ("host", 2)]
    assert mask(line, pack).count("«redacted:mail»") == 2


def test_slow_pattern_finding_in_validate(tmp_path, monkeypatch):
    monkeypatch.setattr("memshelf_render.redact.POLICY_BUDGET_SECONDS", 0.0)
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC}, patterns="slow \\w+e\n")
    report = run(root, changed=[TOPIC_PATH])
    # with no budget at all, even the finding's path is masked whole (text a rule could not check)
    assert [(f.code, f.line) for f in report.findings if f.code.startswith("policy")] == [("policy-pattern-slow", 1)]


def test_refused_pattern_is_a_policy_line_finding(tmp_path):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: TOPIC}, patterns="# x\nbad (a+)+$\n")
    report = run(root)
    found = [(f.code, f.path, f.line) for f in report.findings if f.code == "policy-pattern-invalid"]
    assert found == [("policy-pattern-invalid", "POLICY.patterns", 2)]


# --- escaped secrets in YAML --------------------------------------------------------------------


def _findings(tmp_path, content, patterns=None):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: content}, patterns=patterns)
    return [f for f in run(root, changed=[TOPIC_PATH]).findings if f.path == TOPIC_PATH]


@pytest.mark.parametrize(("field", "spelled", "kind"), [
    ("notes", '"\\u0067hp_' + "A1b2" * 9 + '"', "github-token"),
    ("display_title", '"\\x41KIAIOSFODNN7EXAMPLE"', "aws-access-key"),
    ("tags", '["cache", "\\u0041KIAIOSFODNN7EXAMPLE"]', "aws-access-key"),
    ("description", '"API_KEY\\u003dsup3rs3cret"', "env-secret"),
])
def test_a_secret_spelled_with_escapes_is_found_on_the_key_line(tmp_path, field, spelled, kind):
    lines = TOPIC.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith(f"{field}:"))
    lines[at] = f"{field}: {spelled}"
    found = _findings(tmp_path, "\n".join(lines))
    secrets = [f for f in found if f.code == "secret"]
    assert [(f.line, kind in f.message) for f in secrets] == [(at + 1, True)]
    assert "decoded value" in secrets[0].message and "A1b2A1b2" not in secrets[0].message
    assert "IOSFODNN7" not in secrets[0].message and "sup3rs3cret" not in secrets[0].message


def test_an_escaped_policy_match_is_found(tmp_path):
    content = TOPIC.replace('notes: "reviewed"', 'notes: "db\\u00312.corp"')
    found = _findings(tmp_path, content, patterns="host db\\d+\\.corp\n")
    assert [(f.code, f.line) for f in found] == [("policy-pattern-match", 14)]


def test_a_raw_secret_in_frontmatter_is_reported_once(tmp_path):
    found = _findings(tmp_path, TOPIC.replace('notes: "reviewed"', f'notes: "{GHP}"'))
    assert [(f.code, f.line) for f in found] == [("secret", 14)]


# --- messages in words, spec rules as shelf-spec reports them --------------------------------------

REPR = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\[\]|\{\}|\\x[0-9a-f]{2}")


@pytest.mark.parametrize(("old", "new", "code", "words"), [
    ("kind: topic", "kind:", "kind-empty", "kind is empty"),
    ("kind: topic", "kind: 5", "kind-invalid", "kind is the number 5, not topic"),
    ("kind: topic", "kind: [a]", "kind-invalid", "kind is a list, not topic"),
    ("mode: live", "mode:", "mode-invalid", "mode is empty, not live or import"),
    ("mode: live", "mode: true", "mode-invalid", "mode is the boolean true"),
    ("span: 2026-01-05", "span:", "span-invalid", "span must be a non-empty string, but it is empty"),
    ("tags: [cache, edge]", "tags:", "tags-invalid", "tags must be a list, but it is empty"),
    ("tags: [cache, edge]", "tags: [1, null]", "tag-invalid", "every tag must be a string, but one is the number 1"),
    ("approx_tokens: 1200", "approx_tokens:", "approx-tokens-invalid", "approx_tokens is empty"),
    ("approx_tokens: 1200", "approx_tokens: -5", "approx-tokens-not-plain", "approx_tokens '-5' is not"),
    ("approx_tokens_source: estimate", "approx_tokens_source:", "approx-tokens-source-invalid",
     "approx_tokens_source is empty"),
    ("date: 2026-01-05", "date:", "date-invalid", "date is empty, not a YYYY-MM-DD day"),
    ("id: 2026-01-05-cache-policy", "id: [x]", "id-type-invalid", "id must be a string, not a list"),
    ('display_title: "Cache policy"', "display_title: {a: 1}", "field-type-invalid",
     "display_title must be one line of text, not a mapping"),
])
def test_messages_say_what_the_value_is_in_words(tmp_path, old, new, code, words):
    found = _findings(tmp_path, TOPIC.replace(old, new))
    message = next(f.message for f in found if f.code == code)
    assert words in message
    assert not REPR.search(message), message


def test_empty_kind_has_the_spec_rule_shelf_spec_reports():
    from memshelf_render.catalog import RULES

    assert RULES["kind-empty"].spec_rule == "episode-frontmatter-invalid"
    assert RULES["kind-invalid"].spec_rule == "episode-kind-unknown"
    for code in ("tag-invalid", "approx-tokens-not-plain", "span-invalid", "frontmatter-alias", "field-type-invalid",
                 "date-missing", "ledger-duplicate-id"):  # shelf-spec passes these defects
        assert RULES[code].spec_rule is None, code


def test_the_catalog_names_every_built_in_kind():
    from memshelf_render.catalog import RULES

    assert all(kind in RULES["secret"].summary for kind in BUILTIN_KINDS)
