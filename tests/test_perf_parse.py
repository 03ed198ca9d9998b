"""The episode parser's section scan against its plain definition.

`_parse_sections` jumps with a regex search from one line that can matter (it opens with '#',
' ', '`' or '~') to the next, and over a fenced block to its closing line. The plain definition
below reads every line, as the format describes it. Both must give the same sections, malformed
headings and fenced blocks, in full mode and when parsing stops after the Digest.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.episode import Section, parse

PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MALFORMED = re.compile(r"^##(?:\t|[^#\s])")
_LINES = ["## Digest", "## Notes", "##Bad", "##\tTab", "# Title", "### Deep", "#", "```", "````", "~~~", "~~~~",
          "  ```", "    ```", " ``` ", "``` `", "\u2028```\u00a0", "\t```", "```python", "~~~ x", "`` `",
          "text", "", " indented", "```\r", "## digest ", "word ## x", "é", "\x0b~~~~~"]


def _plain(ep, lines: list[str], upto_digest: bool):
    sections, malformed, blocks = [], [], []
    fence, fence_start, current = None, 0, None
    for idx in range(ep.body_start, len(lines)):
        line = lines[idx]
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
                blocks.append((fence_start, idx + 1))
            continue
        if line.startswith("## "):
            if current is not None:
                current.end = idx
                if upto_digest and current.key == "digest":
                    return sections, malformed, blocks
            current = Section(line[3:].strip(" \t"), idx + 1, idx + 1, len(lines))
            sections.append(current)
        elif line.startswith("#"):
            if _MALFORMED.match(line):
                malformed.append(idx + 1)
        elif m := _FENCE_OPEN.match(line):
            fence, fence_start = m.group(1), idx
    if fence is not None:
        blocks.append((fence_start, len(lines)))
    return sections, malformed, blocks


@PROPERTY
@given(st.lists(st.sampled_from(_LINES), max_size=40), st.booleans(), st.booleans())
def test_the_section_scan_equals_reading_every_line(body, frontmatter, upto_digest):
    head = "---\nid: x\n---\n" if frontmatter else ""
    text = head + "\n".join(body)
    ep = parse(text.encode("utf-8"), "docs/topics/x.md", category="topics", upto_digest=upto_digest)
    sections, malformed, blocks = _plain(ep, ep.lines, upto_digest)
    assert [(s.name, s.line, s.start, s.end) for s in ep.sections] == [(s.name, s.line, s.start, s.end)
                                                                         for s in sections]
    assert ep.malformed_headings == malformed
    assert ep.code_blocks == blocks


def test_a_long_fence_is_closed_only_by_a_run_as_long():
    text = "## Digest\nd\n## Raw\n`````\n```\n  ````  \n``````\nafter\n## Notes\n"
    ep = parse(text.encode("utf-8"), "docs/topics/x.md", category="topics")
    assert ep.code_blocks == [(3, 7)]
    assert [s.name for s in ep.sections] == ["Digest", "Raw", "Notes"]
