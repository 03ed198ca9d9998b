"""Mechanical fixes, as GitHub ```suggestion blocks: the replacement for one line of an episode.

Only fixes with a single right answer are suggested: quoting a value YAML or the line readers
misread (a date-like or colon-holding value), flattening a control character in a one-line
field, the id a renamed file needs, placeholders for missing required keys (inserted before the
closing `---`), and the masked version of a line that holds a secret. Every replacement passes
through the shelf's masker, so a suggestion can never carry a secret.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import yaml

from memshelf_render import yamlload
from memshelf_render.episode import Episode
from memshelf_render.findings import Finding
from memshelf_render.redact import PolicyPack, mask
from memshelf_render.shelf import KIND_OF_CATEGORY

_KEY_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)(?P<sep>:[ \t]*)(?P<value>.*)$")
_MISSING = re.compile(r"required key '([a-z_]+)' is missing")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_JSON_BREAKS = re.compile(r"\\[tnrfbv]|\\u00[01][0-9a-fA-F]")
_DAY_PREFIX = re.compile(r"^\d{4}-\d{2}-\d{2}")
QUOTABLE = ("frontmatter-yaml-invalid", "frontmatter-ambiguous", "span-invalid")
TEXT_KEYS = ("id", "kind", "span", "date", "display_title", "description", "notes", "retain_until", "mode")


@dataclass(frozen=True, slots=True)
class Suggestion:
    path: str  # shelf-relative
    line: int  # 1-based line the suggestion replaces
    code: str  # the finding it fixes
    original: str
    replacement: str  # one or more lines, without the trailing newline
    why: str


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


def placeholder(key: str, ep: Episode) -> str:
    day = _DAY_PREFIX.match(ep.stem)
    return {
        "id": ep.stem,
        "kind": KIND_OF_CATEGORY.get(ep.category, "topic"),
        "span": day.group(0) if day else "YYYY-MM-DD",
        "tags": "[]",
        "approx_tokens": "0",
    }.get(key, '""')


def _missing(findings: list[Finding], ep: Episode) -> Suggestion | None:
    keys = [m.group(1) for f in findings if f.code == "field-missing" and (m := _MISSING.search(f.message))]
    closing = _line(ep, ep.fm_close)
    if not keys or closing is None or ep.fm_close is None:
        return None
    added = "\n".join(f"{key}: {placeholder(key, ep)}" for key in keys)
    return Suggestion(ep.path, ep.fm_close, "field-missing", closing, f"{added}\n{closing}",
                      f"add the required key{'s' if len(keys) > 1 else ''} {', '.join(keys)}; "
                      "the values are placeholders, put in the real ones")


def suggest(findings: list[Finding], ep: Episode, pack: PolicyPack | None) -> list[Suggestion]:
    """One suggestion per fixable line of `ep`, in line order; every replacement masked."""
    found: dict[int, Suggestion] = {}
    missing = _missing(findings, ep)
    if missing is not None:
        found[missing.line] = missing
    for f in findings:
        if f.path != ep.path or f.line is None or f.line in found:
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
