"""Mechanical fixes, as GitHub ```suggestion blocks: the replacement for one line of an episode.

Only fixes with a single right answer are suggested: the replacement a rule attached to its
finding (`Finding.replacement`, e.g. placeholders for missing required keys inserted before the
closing `---`), quoting a value YAML or the line readers misread (a date-like or colon-holding
value), flattening a control character in a one-line field, the id a renamed file needs, and the
masked version of a line that holds a secret. Every replacement passes through the shelf's
masker, so a suggestion can never carry a secret. Nothing here reads a finding's message.
"""

from __future__ import annotations

import json
import re

import yaml

from memshelf_render import yamlload
from memshelf_render.episode import Episode
from memshelf_render.findings import Finding
from memshelf_render.redact import PolicyPack, mask

from . import Suggestion

_KEY_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)(?P<sep>:[ \t]*)(?P<value>.*)$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_JSON_BREAKS = re.compile(r"\\[tnrfbv]|\\u00[01][0-9a-fA-F]")
QUOTABLE = ("frontmatter-yaml-invalid", "frontmatter-ambiguous", "span-invalid")
TEXT_KEYS = ("id", "kind", "span", "date", "display_title", "description", "notes", "retain_until", "mode")


def _line(ep: Episode, number: int | None) -> str | None:
    if number is None or not 1 <= number <= len(ep.lines):
        return None
    return ep.lines[number - 1]


def _quoted(value: str) -> str | None:
    """The value as one double-quoted YAML/JSON string, or None when the intent is unclear."""
    value = value.rstrip()
    if not value or value.startswith('"') or " #" in value or "\t#" in value:
        return None
    if len(value) >= 2 and value[0] == value[-1] == "'":
        value = value[1:-1].replace("''", "'")
    quoted = json.dumps(value, ensure_ascii=False)
    try:
        if yamlload.load(f"k: {quoted}") != {"k": value}:
            return None
    except (yaml.YAMLError, yamlload.AliasError):
        return None
    return quoted


def _quote(f: Finding, ep: Episode) -> Suggestion | None:
    raw = _line(ep, f.line)
    m = _KEY_LINE.match(raw or "")
    if raw is None or m is None or m.group("key") not in TEXT_KEYS:
        return None
    if f.code == "frontmatter-yaml-invalid" and ": " not in m.group("value"):
        return None
    quoted = _quoted(m.group("value"))
    if quoted is None:
        return None
    return Suggestion(f.path, f.line, f.code, raw, f"{m.group('key')}{m.group('sep') or ': '}{quoted}",
                      f"quote the {m.group('key')} value so YAML and the line readers both read it as text")


def _flatten(f: Finding, ep: Episode) -> Suggestion | None:
    raw = _line(ep, f.line)
    if raw is None:
        return None
    fixed = _JSON_BREAKS.sub(" ", _CONTROL.sub(" ", raw))
    if fixed == raw:
        return None
    return Suggestion(f.path, f.line, f.code, raw, fixed, "replace the control character with a space")


def _rename(f: Finding, ep: Episode) -> Suggestion | None:
    raw = _line(ep, f.line)
    m = _KEY_LINE.match(raw or "")
    if raw is None or m is None or m.group("key") != "id":
        return None
    return Suggestion(f.path, f.line, f.code, raw, f"id: {ep.stem}", f"the id must be the file name, {ep.stem}")


def _secret(f: Finding, ep: Episode, pack: PolicyPack | None) -> Suggestion | None:
    raw = _line(ep, f.line)
    if raw is None:
        return None
    masked = mask(raw, pack)
    if masked == raw:
        return None
    return Suggestion(f.path, f.line, f.code, raw, masked, "drop the secret (and rotate it: git history keeps it)")


def _inserted(findings: list[Finding], ep: Episode) -> Suggestion | None:
    """The lines the rules would insert before one line (missing keys before the closing `---`),
    merged into one suggestion: each replacement is its inserted lines, then the line itself."""
    fixes = [f for f in findings if f.path == ep.path and f.replacement is not None]
    if not fixes:
        return None
    at = fixes[0].replacement.line  # type: ignore[union-attr]
    same = [f for f in fixes if f.replacement is not None and f.replacement.line == at]
    raw = _line(ep, at)
    if raw is None:
        return None
    added = [line for f in same if f.replacement is not None for line in f.replacement.text.split("\n")[:-1]]
    why = same[0].replacement.why if len(same) == 1 and same[0].replacement else (
        f"add the {len(same)} required keys; the values are placeholders, put in the real ones")
    return Suggestion(ep.path, at, same[0].code, raw, "\n".join([*added, raw]), why)


def suggest(findings: list[Finding], ep: Episode, pack: PolicyPack | None) -> list[Suggestion]:
    """One suggestion per fixable line of `ep`, in line order; every replacement masked."""
    found: dict[int, Suggestion] = {}
    inserted = _inserted(findings, ep)
    if inserted is not None:
        found[inserted.line] = inserted
    for f in findings:
        if f.path != ep.path or f.line is None or f.line in found or f.replacement is not None:
            continue
        if f.code in ("secret", "policy-pattern-match"):
            s = _secret(f, ep, pack)
        elif f.code == "control-character":
            s = _flatten(f, ep)
        elif f.code == "id-mismatch":
            s = _rename(f, ep)
        elif f.code in QUOTABLE:
            s = _quote(f, ep)
        else:
            s = None
        if s is not None:
            found[s.line] = s
    out = []
    for line in sorted(found):
        s = found[line]
        out.append(Suggestion(s.path, s.line, s.code, mask(s.original, pack), mask(s.replacement, pack), s.why))
    return out
