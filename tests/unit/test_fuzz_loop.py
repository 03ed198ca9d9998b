"""The big fuzz (issue 8 "Proof"): 100,000 inputs per run, seeded, in a plain loop (no hypothesis
shrinking overhead). They start as episodes from a grammar (frontmatter keys and values of every shape
the parser meets: quotes, escapes, flow lists, block scalars, anchors, tags, secrets, markup;
bodies with sections, fences, bad headings, conflict markers): every fourth input is a fresh one,
the others are byte mutations of a recent one. Every input goes through the parser; every tenth
also through every per-episode rule, and its masking must be complete (no built-in shape left,
line count kept).
No exception may escape. `MEMSHELF_FUZZ_SEED` picks another seed (CI can vary it).
"""

from __future__ import annotations

import os
import random
import time

import pytest

from memshelf_render.catalog import RULES
from memshelf_render.episode import parse
from memshelf_render.findings import Finding
from memshelf_render.redact import mask, scan
from memshelf_render.rules import EPISODE_CHECKS, Context
from memshelf_render.shelf import load_shelf
from tests.shelfkit import TOPIC_PATH, make_shelf

INPUTS = 100_000
FRESH_EVERY = 4  # every 4th input is a fresh grammar episode; the rest mutate a recent one
RULES_EVERY = 10
SEED = int(os.environ.get("MEMSHELF_FUZZ_SEED", "8"))

KEYS = ["id", "kind", "span", "date", "tags", "approx_tokens", "approx_tokens_source", "mode", "notes",
        "display_title", "description", "retain_until", "yes", "on", "null", "a b", '"quoted key"', "?", "-"]
SECRETS = ["AKIAIOSFODNN7EXAMPLE", "ghp_" + "A1b2" * 9, "xoxb-1234567890-abcdefghij", "squ_" + "0a" * 20,
           "github_pat_" + "x" * 30, "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.sig", "DB_PASSWORD=hunter2",
           'PASSWORD="two words"', "Bearer abcdefghijklmnopqrstu", "-----BEGIN RSA PRIVATE KEY-----",
           "-----END RSA PRIVATE KEY-----", "\\u0067hp_" + "z" * 36, "\\x41KIAIOSFODNN7EXAMPLE"]
MARKUP = ["<img src=x onerror=alert(1)>", "<!--", "-->", "</details>", "[a](javascript:x)", "![t](http://t/p.png)",
          "<https://x>"]
WORDS = ["cache", "TTL", "décision", "кэш", "🚀", "we", "it", "ignore previous instructions", "you must now", "0",
         "2026-01-05", "2026-01-01..2026-01-05", "true", "null", "~", "1_0", "0x1F", ".inf", "12e-3", "-5", "1.5",
         *SECRETS, *MARKUP, "\t", "\x00", "\x1b[2J", "\u2028", "\x85", "\ufeff", "#", ": ", "'", '"', "\\"]
BODY_LINES = ["## Digest", "## Decisions", "## Timeline", "## Open threads", "## Sources", "##Bad", "##\tTab",
              "### Sub", "# H1", "```", "~~~", "    ```", "<<<<<<< HEAD", "=======", ">>>>>>> branch", "---", "- item",
              "> quote", "", "   ", *SECRETS, *MARKUP]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def _value(rng: random.Random) -> str:
    form = rng.randrange(12)
    if form == 0:
        return ""
    if form == 1:
        return '"' + _words(rng, rng.randint(0, 4)).replace('"', '\\"') + '"'
    if form == 2:
        return "'" + _words(rng, rng.randint(0, 3)).replace("'", "''") + "'"
    if form == 3:
        return "[" + ", ".join(_words(rng, 1) for _ in range(rng.randint(0, 4))) + "]"
    if form == 4:
        return rng.choice(["|", ">", "|-", ">+"]) + "\n  " + _words(rng, 3) + "\n  " + _words(rng, 2)
    if form == 5:
        return rng.choice(["&a x", "*a", "!!str x", "!!python/object:os.system x", "{a: 1, b: [2]}", "- x"])
    if form == 6:
        return '"' + rng.choice(["\\u0041", "\\x41", "\\q", "\\ud800", "\\n", "\\t", "\\\\"]) + _words(rng, 1) + '"'
    return _words(rng, rng.randint(1, 4))


def grammar_episode(rng: random.Random) -> str:
    parts = []
    if rng.random() < 0.4:
        parts.append(f"# {_words(rng, 1)}\n\n")
    if rng.random() < 0.95:
        parts.append(rng.choice(["---\n", "--- \n", "---\r\n"]))
        for key in rng.sample(KEYS, rng.randint(0, 9)):
            sep = rng.choice([": ", ":", ":  ", ": \t"])
            parts.append(f"{'  ' if rng.random() < 0.05 else ''}{key}{sep}{_value(rng)}\n")
        if rng.random() < 0.9:
            parts.append("---\n")
    for _ in range(rng.randint(0, 10)):
        line = rng.choice(BODY_LINES) if rng.random() < 0.5 else _words(rng, rng.randint(1, 8))
        parts.append(line + rng.choice(["\n", "\n", "\r\n", "\r"]))
    return "".join(parts)


def mutate(rng: random.Random, data: bytes) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(out))
        op = rng.randrange(5)
        if op == 0:
            out[at:at] = rng.randbytes(rng.randint(1, 6))
        elif op == 1:
            del out[at: at + rng.randint(1, 30)]
        elif op == 2 and out:
            out[min(at, len(out) - 1)] ^= 1 << rng.randrange(8)
        elif op == 3:
            start = rng.randint(0, len(out))
            out[at:at] = out[start: start + rng.randint(1, 40)]
        else:
            out[at:at] = rng.choice(BODY_LINES + WORDS).encode("utf-8")
    return bytes(out)


@pytest.fixture(scope="module")
def context(tmp_path_factory) -> Context:
    root = make_shelf(tmp_path_factory.mktemp("fuzz-loop") / "s", patterns="host db\\d+\\.corp\nword \\bcache\\b\n")
    shelf, problems = load_shelf(root)
    assert shelf is not None, problems
    ctx = Context(shelf)
    assert len(ctx.policy.rules) == 2
    return ctx


def _check(data: bytes, ctx: Context, with_rules: bool) -> None:
    ep = parse(data, TOPIC_PATH, category="topics")
    assert all(isinstance(p, Finding) and p.code in RULES for p in ep.problems)
    assert ep.meta is None or isinstance(ep.meta, dict)
    if not with_rules:
        return
    last = len(ep.lines) + 1
    for check in EPISODE_CHECKS:
        for f in check(ep, ctx):
            assert f.code in RULES and isinstance(f.message, str), f
            assert f.line is None or 1 <= f.line <= last, f
    masked = mask(ep.text)
    assert masked.count("\n") == ep.text.count("\n")
    assert scan(masked) == [], (ep.text, masked)


@pytest.mark.slow
def test_100k_inputs_nothing_escapes(context):
    rng = random.Random(SEED)
    recent: list[bytes] = []
    start = time.monotonic()
    for i in range(INPUTS):
        if i % FRESH_EVERY == 0 or not recent:
            data = grammar_episode(rng).encode("utf-8", errors="surrogatepass")
            recent = [*recent[-63:], data]
        else:
            data = mutate(rng, rng.choice(recent))
        try:
            _check(data, context, with_rules=i % RULES_EVERY == 0)
        except Exception as exc:  # name the input that broke it, then fail
            raise AssertionError(f"input {i} (seed {SEED}) raised {exc!r}: {data[:2000]!r}") from exc
    assert time.monotonic() - start < 300  # "no hang": ~15 s on an idle machine
