"""The content and digest rules on the largest file the size cap admits (linear time), line
numbers from the line table against counting newlines, and quoted values read as JSON reads them.

The screens' property tests against the plain definitions are in `tests/screens/`.
"""

from __future__ import annotations

import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.episode import parse
from memshelf_render.rules import content, digest
from memshelf_render.rules.lines import LineTable
from memshelf_render.screens import grounding
from memshelf_render.screens.view import of_episode

PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
# grounding draws bodies of 60-200 words: hypothesis spends ~0.1 s generating each one
GROUNDING = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
HEAD = "---\nid: x\nkind: topic\nspan: 2026-01-01\ntags: []\napprox_tokens: 1\n---\n"
# The largest episode the default cap reads (1 MiB): generous bounds, only to catch a
# quadratic rule (the plain newline count took 17-33 s on these inputs).
CAP_CHARS = 1024 * 1024 - 4096
LINEAR_BOUND_S = 8.0


def _episode(text: str):
    return parse(text.encode("utf-8"), "docs/topics/x.md", category="topics")


# --- instruction screen and conflict markers ------------------------------------------------------

@PROPERTY
@given(st.lists(st.text(alphabet="ab\n", max_size=6), max_size=20))
def test_line_table_equals_counting_newlines(parts):
    text = "".join(parts)
    table = LineTable(text.split("\n"))
    for offset in range(len(text) + 1):
        assert table.line_of(offset) == text.count("\n", 0, offset) + 1


# --- linear time under the size cap ---------------------------------------------------------------


def _timed_findings(text: str) -> tuple[float, int]:
    ep = _episode(text[:CAP_CHARS])
    started = time.perf_counter()
    found = list(content.check(ep, None))
    sec = ep.section("digest")
    if sec is not None:
        words = digest.content_words(ep.section_text(sec))
        grounding.quick_share(of_episode(ep), sec, words, digest.CONTENT_WORD, digest.STOP, digest.GROUNDING_MIN,
                              digest.grounding)
    return time.perf_counter() - started, len(found)


def test_a_file_of_conflict_markers_is_checked_in_linear_time():
    lines = "<<<<<<< ours\n=======\n>>>>>>> theirs\n" * (CAP_CHARS // 36)
    elapsed, found = _timed_findings(HEAD + "## Digest\n" + lines)
    assert found > 80_000
    assert elapsed < LINEAR_BOUND_S


def test_a_file_of_instruction_lines_is_checked_in_linear_time():
    lines = "you must now\n" * (CAP_CHARS // 13)
    elapsed, found = _timed_findings(HEAD + "## Digest\nDecided.\n## Decisions\n" + lines)
    assert found > 70_000
    assert elapsed < LINEAR_BOUND_S


def test_an_ungrounded_body_at_the_cap_is_read_in_linear_time():
    words = " ".join(f"w{i}zz" for i in range(CAP_CHARS // 8))
    digest_text = "Decided: alpha bravo charlie delta echoes foxtrot golfer hotel indigo."
    elapsed, _ = _timed_findings(HEAD + "## Digest\n" + digest_text + "\n## Decisions\n" + words)
    assert elapsed < LINEAR_BOUND_S


@settings(max_examples=2000, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(['"', "\\", "a", "é", "\x01", "\t", "\ud800", "u", "0", "n", " ", "\\u0041", "\\n"]),
                max_size=10).map(lambda parts: '"' + "".join(parts) + '"'))
def test_a_quoted_value_is_read_as_json_reads_it(value):
    import json

    from memshelf_render.episode import quoted_as_line_read

    try:
        decoded = json.loads(value)
        expected = decoded if isinstance(decoded, str) else value[1:-1]
    except ValueError:
        expected = value[1:-1]
    assert quoted_as_line_read(value) == expected
