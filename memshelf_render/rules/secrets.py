"""Credential shapes and POLICY.patterns matches anywhere in an episode, frontmatter included.

The finding names the kind and line and shows that line with every match masked; the secret
itself is never part of any output. The raw text is not enough: a double-quoted YAML value can
spell a token with escapes (`"\\u0067hp_…"`), which the ledger, INDEX and .meta.json then carry
decoded, so every decoded frontmatter string (keys and list items too) is scanned as well.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from ..episode import Episode
from ..findings import Finding
from ..redact import PolicyPack, mask, scan
from ..screens.view import of_episode
from .context import Context

SHOWN_CHARS = 100


def _shown(text: str) -> str:
    text = text.strip()
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def _what(kind: str, policy: bool) -> str:
    return f"text matching the policy rule '{kind}'" if policy else f"a credential ({kind})"


def check(ep: Episode, ctx: Context) -> Iterator[Finding]:
    if not ep.readable:
        return
    hits = scan(ep.text, ctx.policy, of_episode(ep).screened)
    seen: set[tuple[str, int]] = set()
    if hits:
        masked_lines = mask(ep.text, ctx.policy).split("\n")
        for hit in sorted(hits, key=lambda h: (h.line, h.kind)):
            if (hit.kind, hit.line) in seen:
                continue
            seen.add((hit.kind, hit.line))
            if hit.over_budget:
                yield Finding("policy-pattern-slow", ep.path, hit.line,
                              f"the policy rule '{hit.kind}' used up the time budget here; the rest of the "
                              "file was not checked against the policy")
                continue
            shown = _shown(masked_lines[hit.line - 1]) if hit.line <= len(masked_lines) else ""
            code = "policy-pattern-match" if hit.policy else "secret"
            yield Finding(code, ep.path, hit.line, f"{_what(hit.kind, hit.policy)}: {shown}")
    yield from _decoded(ep, ctx.policy, seen)


def _strings(value: Any) -> Iterator[str]:
    """Every string in a frontmatter value: itself, list items, mapping keys and values."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                stack.extend((key, inner))


def _decoded(ep: Episode, pack: PolicyPack, raw_hits: set[tuple[str, int]]) -> Iterator[Finding]:
    """Secrets that only the decoded frontmatter shows, one finding per (kind, key): each key's
    strings are scanned once, joined; kinds the raw scan found in the block are not repeated.
    Only an escape (a backslash) lets YAML spell a token the raw text does not show."""
    if not ep.meta or ep.fm_open is None or ep.fm_close is None:
        return
    if not any("\\" in line for line in ep.lines[ep.fm_open: ep.fm_close - 1]):
        return
    in_block = {kind for kind, line in raw_hits if ep.fm_open <= line <= ep.fm_close}
    for key, value in ep.meta.items():
        text = "\n".join(_strings([key, value]))
        hits = [h for h in scan(text, pack) if not h.over_budget and h.kind not in in_block]
        if not hits:
            continue
        masked = mask(text, pack).split("\n")
        line = ep.line_of(str(key))
        for kind in dict.fromkeys(h.kind for h in hits):
            hit = next(h for h in hits if h.kind == kind)
            shown = _shown(masked[hit.line - 1]) if hit.line <= len(masked) else ""
            code = "policy-pattern-match" if hit.policy else "secret"
            yield Finding(code, ep.path, line,
                          f"{_what(kind, hit.policy)} in the decoded value of '{_shown(mask(str(key), pack))}' "
                          f"(written with escapes): {shown}")
