"""Required `## ` sections per kind (docs/format.md §2) and lines that only look like headings."""

from __future__ import annotations

from collections.abc import Iterator

from ..episode import Episode
from ..findings import Finding
from .context import Context

REQUIRED = {
    "topic": ("decisions",),
    "session": ("timeline", "open threads"),
}
TITLES = {"decisions": "Decisions", "timeline": "Timeline", "open threads": "Open threads"}


def check(ep: Episode, ctx: Context) -> Iterator[Finding]:
    if not ep.readable or not ctx.memory or (ep.fm_open is not None and ep.fm_close is None):
        return
    for line in ep.malformed_headings:
        yield Finding("heading-malformed", ep.path, line,
                      f"'{ep.lines[line - 1][:40]}' is not a section heading; write '## Name'")
    names = {sec.key for sec in ep.sections}
    if "digest" not in names:
        yield Finding("digest-missing", ep.path, None, "no '## Digest' section")
    kind = ep.get("kind")
    if not isinstance(kind, str):
        return
    for key in REQUIRED.get(kind, ()):
        if key not in names:
            yield Finding("section-missing", ep.path, None, f"a {kind} needs a '## {TITLES[key]}' section")
    if kind == "research" and not names - {"digest"}:
        yield Finding("section-missing", ep.path, None,
                      "a research episode needs at least one section besides '## Digest'")
