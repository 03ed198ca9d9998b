"""Property tests: no input, however broken, makes the parser or validate raise.

Every input yields findings or a clean pass. Hypothesis explores (and shrinks) a few thousand
examples per property; the big volume runs are plain seeded loops, which cost a fraction of
hypothesis's generation per example: the YAML fast path's 40k here, and the 100k inputs of
`test_fuzz_loop.py` through the parser and every per-episode rule.
"""

from __future__ import annotations

import dataclasses
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.episode import parse
from memshelf_render.findings import Finding
from memshelf_render.shelf import load_shelf
from memshelf_render.validate import validate_shelf
from tests.shelfkit import SESSION, TOPIC, TOPIC_PATH, make_shelf

TOKENS = ["---", "\n", "\r\n", "\r", "# ", "## ", "##\t", "```", "~~~", ":", ": ", "'", '"', "\\", "\t", "- ",
          "[", "]", "{", "}", "&a ", "*a", "!!python/object:x", "? ", "|", ">", "\ufeff", "\x00", "\u2028",
          "<<<<<<< ", "=======", "ignore previous instructions", "AKIA" + "A" * 16, "TOKEN=x", "мы ", "id: ",
          "kind: topic", "span: 2026-01-01", "tags: []", "approx_tokens: 5", "## Digest", "## Decisions", "é", "🚀"]


def _mutations():
    op = st.one_of(
        st.tuples(st.just("insert"), st.integers(0, 2000), st.sampled_from(TOKENS)),
        st.tuples(st.just("delete"), st.integers(0, 2000), st.integers(1, 40)),
        st.tuples(st.just("bytes"), st.integers(0, 2000), st.binary(min_size=1, max_size=8)),
    )
    return st.lists(op, min_size=1, max_size=6)


def mutate(base: bytes, ops) -> bytes:
    data = bytearray(base)
    for kind, pos, arg in ops:
        pos = pos % (len(data) + 1)
        if kind == "insert":
            data[pos:pos] = arg.encode("utf-8")
        elif kind == "delete":
            del data[pos: pos + arg]
        else:
            data[pos:pos] = arg
    return bytes(data)


def _assert_parse_total(data: bytes) -> None:
    ep = parse(data, TOPIC_PATH, category="topics")
    assert all(isinstance(p, Finding) for p in ep.problems)
    assert ep.meta is None or isinstance(ep.meta, dict)
    for sec in ep.sections:
        assert 1 <= sec.line <= len(ep.lines)


@pytest.fixture(scope="module")
def fuzz_shelf(tmp_path_factory):
    root = make_shelf(tmp_path_factory.mktemp("fuzz") / "s", {TOPIC_PATH: TOPIC})
    shelf, problems = load_shelf(root)
    assert not problems
    return shelf


def _validate_bytes(shelf, data: bytes) -> list[Finding]:
    (shelf.root / TOPIC_PATH).write_bytes(data)
    findings = validate_shelf(dataclasses.replace(shelf))
    assert all(isinstance(f, Finding) and f.code for f in findings)
    return findings


FAST = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
SLOW = settings(max_examples=2_000, deadline=None, suppress_health_check=list(HealthCheck))


@FAST
@given(st.binary(max_size=4000))
def test_parse_arbitrary_bytes(data):
    _assert_parse_total(data)


@FAST
@given(_mutations())
def test_validate_mutated_episode(fuzz_shelf, ops):
    _validate_bytes(fuzz_shelf, mutate(TOPIC.encode(), ops))


@pytest.mark.slow
@SLOW
@given(st.one_of(st.binary(max_size=6000), _mutations().map(lambda ops: mutate(SESSION.encode(), ops))))
def test_parse_mixed_inputs(data):
    _assert_parse_total(data)


@pytest.mark.slow
@SLOW
@given(st.one_of(_mutations().map(lambda ops: mutate(TOPIC.encode(), ops)), st.binary(max_size=3000)))
def test_validate_mixed_inputs(fuzz_shelf, data):
    _validate_bytes(fuzz_shelf, data)


HEAD = "# 2026-01-05-cache-policy\n\n---\n"
TAIL = "\n---\n\n## Digest\nDecided x.\n\n## Decisions\nx\n"


@pytest.mark.parametrize("block", [
    "id: &a [x]\nkind: *a\n" + "".join(f"l{i}: &l{i} [*l{i - 1},*l{i - 1},*l{i - 1},*l{i - 1}]\n" for i in range(1, 30))
    .replace("*l0", "*a"),
    "id: " + "[" * 50_000 + "]" * 50_000,
    "id: " + "{a: " * 20_000 + "x" + "}" * 20_000,
    "k" * 1_000_000 + ": v",
    "id: " + "x" * 1_000_000,
    "? " + "k" * 2_000 + "\n: v",
    "id: !!python/object/apply:os.system ['true']",
    "id: !!binary aGVsbG8=",
    "<<: {id: x}",
    "\x00id: x",
])
def test_hostile_yaml_is_a_finding(tmp_path, block):
    root = make_shelf(tmp_path / "s", {TOPIC_PATH: HEAD + block + TAIL})
    shelf, _ = load_shelf(root)
    findings = validate_shelf(shelf)
    assert any(f.path == TOPIC_PATH and f.severity.value == "error" for f in findings)


@FAST
@given(st.sampled_from(["AKIA" + "Q" * 16, "squ_" + "a" * 40, "ghp_" + "b" * 40, "Bearer " + "c" * 20,
                        "DB_PASSWORD=hunter2hunter2", "github_pat_" + "d" * 40, "ghs_" + "e" * 36,
                        "xoxb-1234567890-" + "f" * 12, "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4eXoifQ.c2ln",
                        'PASSWORD="two whole words"', "x" + "gho_" + "g" * 36]),
       st.integers(0, 600))
def test_secrets_are_found_and_never_echoed(fuzz_shelf, secret, pos):
    text = TOPIC
    cut = 250 + pos % (len(text) - 250)
    data = (text[:cut] + f" {secret} " + text[cut:]).encode()
    findings = _validate_bytes(fuzz_shelf, data)
    assert any(f.code == "secret" for f in findings)
    for f in findings:
        assert secret not in f.message


_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
_docs = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                     max_leaves=20)


@FAST
@given(_docs, st.sampled_from(["block", "flow"]))
def test_fast_constructor_equals_pyyaml(doc, style):
    """The fast path of yamlload.construct gives exactly what PyYAML's SafeConstructor gives."""
    import yaml

    from memshelf_render import yamlload

    text = yaml.safe_dump({"k": doc}, default_flow_style=(style == "flow"), allow_unicode=True)
    node = yamlload.compose(text)
    loader = yamlload.ShelfLoader("")
    try:
        expected = loader.construct_document(node)
    finally:
        loader.dispose()
    assert yamlload.construct(node) == expected


_PALETTE = [*list("abcxyz019 -.:#'\"[]{}&*!|>%@`,?~=<\\\t\x85\u2028\x01é🚀_+/"), "yes", "null", "0x1F", "1_0", "1:20", "1-2", "1_0-", "2026-01-02x", "12e-3", "1.5e-3", "0", "0123", "60000", "٣", ".inf", "2026-01-02", "<<"]
_words = st.one_of(
    st.lists(st.sampled_from([*list("abcé019 -._/"), "yes", "1_0", ".inf", "2026-01-02"]), max_size=6).map("".join),
    st.lists(st.sampled_from(_PALETTE), max_size=8).map("".join),
)
_values = st.one_of(
    _words,
    _words.map(lambda w: '"' + w + '"'),
    _words.map(lambda w: "'" + w + "'"),
    st.lists(_words, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
    st.just(""),
)
_keys = st.sampled_from(["id", "kind", "span", "tags", "notes", "yes", "on", "null", "True", "a_b", "x1"])
_key_value = st.tuples(_keys, st.sampled_from([": ", ":", ":  ", ": \t"]), _values).map("".join)
_lines = st.one_of(
    _key_value, _key_value, _key_value, _key_value,
    _words.map(lambda w: "#" + w),
    st.sampled_from(["", "  ", " \t", "  indented: x", "- item", "..."]),
)


# Blocks the fast path must answer: one `key: value` per line in exactly its subset (plain text
# with the values YAML resolves specially, double quotes with JSON escapes, single quotes, flow
# lists, empty values, comment lines). Without them most generated blocks fall back to the full
# loader and the comparison below proves little (issue 9: ~12% reached it).
_plain_word = st.lists(st.sampled_from([*"abcxyzé019 -._/+", "yes", "null", "0x1F", "1_0", "1-2", "0", "0123",
                                        "60000", ".inf", "2026-01-02", "12e-3", "1.5e-3", "٣", "True", "~"]),
                       min_size=1, max_size=6).map("".join).filter(lambda w: w.strip() and w[0] not in " -")
_dq_text = st.lists(st.sampled_from([*"ab é:#'[]{}", "\\n", "\\t", '\\"', "\\\\", "\\/", "\\u00e9",
                                     "\\u0041", "🚀"]), max_size=6).map("".join)
_flow_item = st.lists(st.sampled_from([*"abcé019._/", "yes", "null", "1_0", "2026-01-02"]),
                      min_size=1, max_size=4).map("".join)
_eligible_value = st.one_of(
    _plain_word,
    _dq_text.map(lambda w: '"' + w + '"'),
    st.lists(st.sampled_from([*"ab é:#\"[]", "''"]), max_size=6).map(lambda w: "'" + "".join(w) + "'"),
    st.lists(_flow_item, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
    st.just(""),
)
_eligible_key_value = st.tuples(
    st.sampled_from(["id", "kind", "span", "tags", "notes", "a_b", "x1", "display_title"]),
    st.sampled_from([": ", ":  "]), _eligible_value).map(lambda kv: (kv[0] + kv[1] + kv[2]).rstrip())
_eligible_line = st.integers(0, 3).flatmap(  # 3 in 4 a key and value, else a blank or comment line
    lambda i: st.sampled_from(["", "# a comment", "#"]) if i == 0 else _eligible_key_value)
_eligible_block = st.lists(_eligible_line, min_size=1, max_size=6)
_mixed_block = st.lists(_lines, min_size=1, max_size=5)
_blocks = st.integers(0, 3).flatmap(lambda i: _mixed_block if i == 0 else _eligible_block)  # 3 in 4 eligible
FAST_PATH_SHARE = 0.4  # at least this share of generated blocks must reach the comparison (~0.7 measured)


def _fast_equals_full(lines) -> bool:
    """Compare the fast path with PyYAML when it answers; True when it did."""
    import yaml

    from memshelf_render import yamlload

    fast = yamlload.load_simple_mapping(lines)
    if fast is None:
        return False
    node = yamlload.compose("\n".join(lines))
    full = yamlload.construct(node)
    assert repr(fast[0]) == repr(full)
    assert fast[1] == {k.value: k.start_mark.line for k, _ in node.value if isinstance(k, yaml.ScalarNode)}
    return True


def _fast_path_run(examples: int) -> None:
    """Run the comparison on `examples` blocks, then fail if the fast path stopped answering."""
    tried, compared = [0], [0]

    @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(_blocks)
    def compare(lines):
        tried[0] += 1
        compared[0] += _fast_equals_full(lines)

    compare()
    assert compared[0] >= FAST_PATH_SHARE * tried[0], f"the fast path answered {compared[0]} of {tried[0]} blocks"


def test_simple_frontmatter_fast_path_equals_yaml():
    """Whenever the fast path answers, PyYAML (the full loader) gives the very same mapping and
    key lines; otherwise the fast path declines and the full loader decides. Most blocks are in
    the fast path's subset, and the test fails if it stops answering them."""
    _fast_path_run(300)


# The same grammar as `_blocks`, drawn from a seeded `random.Random` in a plain loop: hypothesis
# spends ~6 ms an example generating, the comparison itself ~0.2 ms, so the 40k run is a loop.
_WORD_CHARS = [*"abcé019 -._/", "yes", "1_0", ".inf", "2026-01-02"]
_PLAIN_CHARS = [*"abcxyzé019 -._/+", "yes", "null", "0x1F", "1_0", "1-2", "0", "0123", "60000", ".inf",
                "2026-01-02", "12e-3", "1.5e-3", "٣", "True", "~"]
_DQ_CHARS = [*"ab é:#'[]{}", "\\n", "\\t", '\\"', "\\\\", "\\/", "\\u00e9", "\\u0041", "🚀"]
_SQ_CHARS = [*"ab é:#\"[]", "''"]
_FLOW_CHARS = [*"abcé019._/", "yes", "null", "1_0", "2026-01-02"]
_ELIGIBLE_KEYS = ["id", "kind", "span", "tags", "notes", "a_b", "x1", "display_title"]
_MIXED_KEYS = ["id", "kind", "span", "tags", "notes", "yes", "on", "null", "True", "a_b", "x1"]


def _join(rng, alphabet, low: int, high: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(low, high)))


def _random_word(rng) -> str:
    return _join(rng, _WORD_CHARS, 0, 6) if rng.random() < 0.5 else _join(rng, _PALETTE, 0, 8)


def _random_mixed_line(rng) -> str:
    pick = rng.randrange(6)
    if pick < 4:
        shape = rng.randrange(5)
        value = (_random_word(rng), '"' + _random_word(rng) + '"', "'" + _random_word(rng) + "'",
                 "[" + ", ".join(_random_word(rng) for _ in range(rng.randint(0, 4))) + "]", "")[shape]
        return rng.choice(_MIXED_KEYS) + rng.choice([": ", ":", ":  ", ": \t"]) + value
    if pick == 4:
        return "#" + _random_word(rng)
    return rng.choice(["", "  ", " \t", "  indented: x", "- item", "..."])


def _random_plain_word(rng) -> str:
    while True:
        word = _join(rng, _PLAIN_CHARS, 1, 6)
        if word.strip() and word[0] not in " -":
            return word


def _random_eligible_line(rng) -> str:
    if rng.randrange(4) == 0:
        return rng.choice(["", "# a comment", "#"])
    shape = rng.randrange(5)
    value = (_random_plain_word(rng), '"' + _join(rng, _DQ_CHARS, 0, 6) + '"', "'" + _join(rng, _SQ_CHARS, 0, 6) + "'",
             "[" + ", ".join(_join(rng, _FLOW_CHARS, 1, 4) for _ in range(rng.randint(0, 4))) + "]", "")[shape]
    return (rng.choice(_ELIGIBLE_KEYS) + rng.choice([": ", ":  "]) + value).rstrip()


def _random_block(rng) -> list[str]:
    if rng.randrange(4) == 0:
        return [_random_mixed_line(rng) for _ in range(rng.randint(1, 5))]
    return [_random_eligible_line(rng) for _ in range(rng.randint(1, 6))]


@pytest.mark.slow
def test_simple_frontmatter_fast_path_equals_yaml_40k():
    """40,000 seeded blocks of the same grammar through the same comparison (issue 9: the big fuzz
    runs in the suite; `MEMSHELF_FUZZ_SEED` picks another seed)."""
    rng = random.Random(int(os.environ.get("MEMSHELF_FUZZ_SEED", "9")))
    examples = 40_000
    compared = 0
    for _ in range(examples):
        lines = _random_block(rng)
        try:
            compared += _fast_equals_full(lines)
        except AssertionError as exc:
            raise AssertionError(f"block {lines!r}: {exc}") from exc
    assert compared >= FAST_PATH_SHARE * examples, f"the fast path answered {compared} of {examples} blocks"


_meta_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=12)


@FAST
@given(st.dictionaries(_meta_text, st.tuples(_meta_text, _meta_text).map(
    lambda td: {"title": td[0], "description": td[1]}), min_size=1, max_size=5))
def test_meta_json_writer_equals_json_dumps(entries):
    """The hand-written .meta.json encoder gives json.dumps(indent=2, ensure_ascii=False)'s bytes."""
    import json

    from memshelf_render.render.meta import meta_bytes

    assert meta_bytes(entries) == (json.dumps(entries, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


_VOCAB = ["cache", "caches", "cached", "eviction", "policy", "policies", "queue", "queues", "latency", "routing",
          "router", "деплой", "деплоя", "кластер", "кластера", "1234", "this", "that", "which", "about", "x", "ab",
          "décision", "nats", "jetstream", "billing", "ttl"]
_prose = st.lists(st.sampled_from(_VOCAB), max_size=90).map(" ".join)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(_prose, st.lists(_prose, max_size=6), st.lists(_prose, max_size=6), st.booleans())
def test_grounding_matches_the_plain_definition(digest_text, before, after, unicode_case):
    """docs/reference.md §6.4 computed over the whole body (`digest.grounding`) equals the chunked,
    early-stopping screen (same warn decision; the same value whenever it warns)."""
    from memshelf_render.rules.digest import CONTENT_WORD, GROUNDING_MIN, STOP, content_words, grounding
    from memshelf_render.screens.grounding import share
    from memshelf_render.screens.view import of_episode

    body_before = "\n".join(before)
    body_after = "\n".join(after) + ("\nİSTANBUL" if unicode_case else "")
    text = ("---\nid: x\nkind: topic\nspan: 2026-01-01\ntags: []\napprox_tokens: 1\n---\n" + body_before
            + "\n## Digest\n" + digest_text + "\n## Decisions\n" + body_after + "\n")
    ep = parse(text.encode(), "docs/topics/x.md", category="topics")
    sec = ep.section("digest")
    expected = grounding(ep, sec)
    got = share(of_episode(ep), sec, content_words(ep.section_text(sec)), CONTENT_WORD, STOP, GROUNDING_MIN)
    assert (got is None) == (expected is None)
    if expected is not None:
        assert (got < GROUNDING_MIN) == (expected < GROUNDING_MIN)
        if expected < GROUNDING_MIN:
            assert got == expected
