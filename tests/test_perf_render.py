"""The renderers' head-first parse against its plain definition: parsing the whole file.

`parse(..., upto_digest=True)` first parses only the whole lines of the first HEAD_BYTES and
keeps that when the Digest ends inside them. Whatever the head size, the ledger row (and every
parsed field up to the Digest's end) must be the one the whole file gives.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render import episode
from memshelf_render.episode import parse
from memshelf_render.records import record_of
from tests.shelfgen import generate_shelf

PROPERTY = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
HEAD_SIZES = (1, 16, 64, 200, 700, 4096)
FM = "---\nid: 2026-01-01-x\ndate: 2026-01-01\nmode: live\napprox_tokens: 40\ndisplay_title: T\n---\n"


def _head_first(data: bytes, head: int) -> episode.Episode:
    saved, episode.HEAD_BYTES = episode.HEAD_BYTES, head
    try:
        return parse(data, "docs/topics/x.md", category="topics", upto_digest=True)
    finally:
        episode.HEAD_BYTES = saved


def _same_up_to_the_digest(data: bytes) -> None:
    whole = parse(data, "docs/topics/x.md", category="topics")
    for head in HEAD_SIZES:
        fast = _head_first(data, head)
        assert record_of(fast) == record_of(whole)
        digest = fast.section("digest")
        if digest is None:
            continue
        names = [s.name for s in whole.sections]
        upto = names.index(digest.name) + 1
        assert [(s.name, s.line, s.start, s.end) for s in fast.sections] == [
            (s.name, s.line, s.start, s.end) for s in whole.sections[:upto]]
        assert (fast.meta, fast.key_lines, fast.fm_open, fast.fm_close, fast.body_start, fast.size) == (
            whole.meta, whole.key_lines, whole.fm_open, whole.fm_close, whole.body_start, whole.size)
        assert fast.code_blocks == [b for b in whole.code_blocks if b[1] <= digest.end]
        assert fast.malformed_headings == [n for n in whole.malformed_headings if n <= digest.end]


def test_generated_episodes_give_the_whole_file_rows(tmp_path):
    generate_shelf(tmp_path / "s", seed=3, episodes=60, archive=6, quirks=True)
    files = sorted((tmp_path / "s").rglob("*.md"))
    assert len(files) > 60
    for path in files:
        _same_up_to_the_digest(path.read_bytes())


_line = st.sampled_from(["## Digest", "## Summary", "## Raw", "```", "~~~~", "   ```py", "# title", "##bad",
                         "## digest ", "plain words", "", "\r", "---", "  ## not a heading", "## Next\r",
                         "привет мир", "\x85", "\ufeff"])


@PROPERTY
@given(st.lists(_line, max_size=30), st.sampled_from([FM, "", "# Title\n" + FM, FM.replace("---\n", "", 1)]),
       st.booleans())
def test_any_layout_gives_the_whole_file_rows(lines, frontmatter, bad_byte):
    data = (frontmatter + "\n".join(lines)).encode("utf-8")
    if bad_byte:
        data += b"\n\xff\n## After\n"
    _same_up_to_the_digest(data)
