"""Credential shapes and POLICY.patterns matches anywhere in an episode, frontmatter included.

The finding names the kind and line and shows that line with every match masked; the secret
itself is never part of any output.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..episode import Episode
from ..findings import Finding
from ..redact import mask, scan
from .context import Context

SHOWN_CHARS = 100


def check(ep: Episode, ctx: Context) -> Iterator[Finding]:
    if not ep.readable:
        return
    hits = scan(ep.text, ctx.policy, ep.lower)
    if not hits:
        return
    masked_lines = mask(ep.text, ctx.policy).split("\n")
    seen: set[tuple[str, int]] = set()
    for hit in sorted(hits, key=lambda h: (h.line, h.kind)):
        if (hit.kind, hit.line) in seen:
            continue
        seen.add((hit.kind, hit.line))
        shown = masked_lines[hit.line - 1].strip() if hit.line <= len(masked_lines) else ""
        if len(shown) > SHOWN_CHARS:
            shown = shown[: SHOWN_CHARS - 1] + "…"
        code = "policy-pattern-match" if hit.policy else "secret"
        what = f"text matching the policy rule '{hit.kind}'" if hit.policy else f"a credential ({hit.kind})"
        yield Finding(code, ep.path, hit.line, f"{what}: {shown}")
