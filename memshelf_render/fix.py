"""`memshelf-bot fix`: apply the mechanical fixes that have one right answer, in place.

The fixes are the ones a suggestion offers: the id set from the file stem, a scalar `tags` made a
list, a value YAML and the line readers read differently quoted, control characters in a one-line
field flattened, a byte order mark stripped, and every detected secret masked as
`«redacted:<kind>»` (what the capture-time redaction pass does). Only the lines concerned change;
every other byte, line endings included, stays as it was. Fixing until nothing more changes makes
the result a fixed point, so a second run changes nothing. `plan` is pure (new bytes per file);
`memshelf_render.commands.fix` writes them and reports what is left.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import yaml

from . import yamlload
from .episode import Episode, parse
from .findings import Finding
from .redact import PolicyPack, mask
from .rules import Context
from .shelf import EpisodeRef, Shelf
from .yamlload import scalar_text

BOM = b"\xef\xbb\xbf"
MAX_PASSES = 4  # each pass fixes what the last one's parse found; two are the most seen
_LINES = re.compile(rb"(\r\n|\r|\n)")
_KEY_LINE = re.compile(r"^(?P<key>[A-Za-z_][\w-]*)(?P<sep>:[ \t]*)(?P<value>.*)$")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_JSON_BREAKS = re.compile(r"\\[tnrfbv]|\\u00[01][0-9a-fA-F]")
QUOTABLE = ("frontmatter-yaml-invalid", "frontmatter-ambiguous", "span-invalid")
TEXT_KEYS = ("id", "kind", "span", "date", "display_title", "description", "notes", "retain_until", "mode")
SECRET_CODES = ("secret", "policy-pattern-match")
FIXABLE = ("bom", "id-mismatch", "field-missing", "tags-invalid", "control-character", *QUOTABLE, *SECRET_CODES)


@dataclass(frozen=True, slots=True)
class FileFix:
    path: str  # shelf-relative
    data: bytes  # the fixed file
    codes: tuple[str, ...]  # the finding codes fixed, in order


def quoted(value: str) -> str | None:
    """The value as one double-quoted YAML/JSON string, or None when the intent is unclear."""
    value = value.rstrip()
    if not value or value.startswith('"') or " #" in value or "\t#" in value:
        return None
    if len(value) >= 2 and value[0] == value[-1] == "'":
        value = value[1:-1].replace("''", "'")
    text = json.dumps(value, ensure_ascii=False)
    try:
        if yamlload.load(f"k: {text}") != {"k": value}:
            return None
    except (yaml.YAMLError, yamlload.AliasError):
        return None
    return text


def _quote(f: Finding, line: str) -> str | None:
    m = _KEY_LINE.match(line)
    if m is None or m.group("key") not in TEXT_KEYS:
        return None
    if f.code == "frontmatter-yaml-invalid" and ": " not in m.group("value"):
        return None
    value = quoted(m.group("value"))
    return None if value is None else f"{m.group('key')}{m.group('sep') or ': '}{value}"


def flattened(line: str) -> str:
    """Control characters (raw, or as JSON escapes inside a quoted value) as spaces."""
    return _JSON_BREAKS.sub(" ", _CONTROL.sub(" ", line))


def _tags_list(line: str) -> str | None:
    """`tags: a, b` (a scalar) as `tags: [a, b]`; None when the value is not a one-line scalar."""
    m = _KEY_LINE.match(line)
    if m is None or m.group("key") != "tags":
        return None
    try:
        value = yamlload.load(f"tags: {m.group('value')}")["tags"]
    except (yaml.YAMLError, yamlload.AliasError, TypeError):
        return None
    if value is None:
        items: list[str] = []
    elif isinstance(value, str | int | float) and not isinstance(value, bool):
        raw = value if isinstance(value, str) else m.group("value").strip()
        items = [item.strip() for item in raw.split(",") if item.strip()]
    else:
        return None
    return f"tags: [{', '.join(scalar_text(item) for item in items)}]"


def line_fix(f: Finding, ep: Episode, line: str) -> str | None:
    """The line `line` (the finding's) becomes, for a code fixed on its own line; None otherwise."""
    if f.code == "id-mismatch":
        m = _KEY_LINE.match(line)
        return f"id: {scalar_text(ep.stem)}" if m is not None and m.group("key") == "id" else None
    if f.code == "tags-invalid":
        return _tags_list(line)
    if f.code == "control-character":
        return flattened(line)
    if f.code in QUOTABLE:
        return _quote(f, line)
    return None


class _Lines:
    """A file's lines as the parser numbers them (after the BOM; CR LF, CR and LF end a line),
    each kept with its own ending so an edit touches nothing else."""

    def __init__(self, data: bytes) -> None:
        self.bom = data.startswith(BOM)
        parts = _LINES.split(data[len(BOM):] if self.bom else data)
        self.text = parts[0::2]
        self.ends = [*parts[1::2], b""]

    def get(self, number: int) -> str:
        return self.text[number - 1].decode("utf-8")

    def set(self, number: int, text: str) -> None:
        self.text[number - 1] = text.encode("utf-8")

    def ending(self) -> bytes:
        """The file's own line ending, for an inserted line."""
        return next((end for end in self.ends if end), b"\n")

    def data(self, *, bom: bool) -> bytes:
        return (BOM if bom else b"") + b"".join(t + e for t, e in zip(self.text, self.ends, strict=True))


def _pass(data: bytes, ep: Episode, findings: list[Finding], pack: PolicyPack) -> tuple[bytes, list[str]]:
    """One round of fixes for what one parse found."""
    lines = _Lines(data)
    codes: list[str] = []
    count = len(lines.text)
    if any(f.code in SECRET_CODES for f in findings):
        masked = mask(ep.text, pack).split("\n")
        if len(masked) == count:
            for number, (old, new) in enumerate(zip(ep.lines, masked, strict=True), start=1):
                if old != new and lines.get(number) == old:
                    lines.set(number, new)
                    codes.append(next(f.code for f in findings if f.code in SECRET_CODES))
    if codes:  # re-parse before touching anything else: the masks move no line but change text
        return lines.data(bom=lines.bom), codes
    for f in findings:
        if f.line is None or not 1 <= f.line <= count or f.path != ep.path:
            continue
        line = lines.get(f.line)
        fixed = line_fix(f, ep, line)
        if fixed is not None and fixed != line:
            lines.set(f.line, fixed)
            codes.append(f.code)
    for f in findings:  # the lines a rule inserts when it knows them for certain (the missing id)
        r = f.replacement
        if r is None or not r.certain or not 1 <= r.line <= count:
            continue
        *added, kept = r.text.split("\n")
        if added and kept == lines.get(r.line):
            ending = lines.ending().decode()
            lines.set(r.line, "".join(a + ending for a in added) + kept)
            codes.append(f.code)
    bom = lines.bom and not any(f.code == "bom" for f in findings)
    if lines.bom and not bom:
        codes.append("bom")
    return lines.data(bom=bom), codes


def fix_episode(data: bytes, ref: EpisodeRef, ctx: Context) -> tuple[bytes, tuple[str, ...]]:
    """The episode's bytes with every fixable finding fixed, and the codes fixed."""
    from .validate import check_episode

    codes: list[str] = []
    max_bytes = ctx.shelf.settings.max_episode_bytes
    for _ in range(MAX_PASSES):
        ep = parse(data, ref.path, category=ref.category, archived=ref.archived, max_bytes=max_bytes)
        if not ep.readable or any(f.code == "invalid-utf8" for f in ep.problems):
            break
        findings, _ = check_episode(ep, ctx)
        fixed, done = _pass(data, ep, [f for f in findings if f.code in FIXABLE], ctx.policy)
        if fixed == data:
            break
        data, codes = fixed, codes + done
    return data, tuple(codes)


def plan(shelf: Shelf, changed: list[str] | None = None) -> list[FileFix]:
    """The episodes (all, or those among `changed`) whose bytes a fix changes, with the new bytes."""
    from .validate import _changed_refs

    ctx = Context(shelf)
    refs = shelf.layout.episodes if changed is None else _changed_refs(shelf, changed)
    out = []
    for ref in refs:
        data = shelf.read_bytes(ref.path)
        if data is None:
            continue
        fixed, codes = fix_episode(data, ref, ctx)
        if fixed != data:
            out.append(FileFix(ref.path, fixed, codes))
    return out
