"""The one episode parser (docs/format.md §2), used by every rule and every renderer.

Bytes in, an `Episode` out, never an exception: undecodable bytes, a BOM, a missing or broken
frontmatter block and oversized files become parse findings on the episode, with 1-based line
numbers, and the rest of the file is still read as far as it can be.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from . import yamlload
from .findings import Finding

DEFAULT_MAX_BYTES = 1024 * 1024
_BOM = b"\xef\xbb\xbf"
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MALFORMED_HEADING = re.compile(r"^##(?:\t|[^#\s])")


@dataclass(slots=True)
class Section:
    """A `## ` section: heading line (1-based) and body as a [start, end) range of line indexes."""

    name: str
    line: int
    start: int
    end: int
    key: str = ""  # the name lowercased, for case-insensitive lookups

    def __post_init__(self) -> None:
        self.key = self.name.lower()


@dataclass(slots=True)
class Episode:
    path: str
    stem: str
    category: str
    archived: bool
    size: int = 0
    text: str = ""
    lines: list[str] = field(default_factory=list)
    meta: dict[str, Any] | None = None
    key_lines: dict[str, int] = field(default_factory=dict)
    fm_open: int | None = None
    fm_close: int | None = None
    body_start: int = 0
    sections: list[Section] = field(default_factory=list)
    malformed_headings: list[int] = field(default_factory=list)
    code_blocks: list[tuple[int, int]] = field(default_factory=list)  # fenced [start, end) line indexes
    problems: list[Finding] = field(default_factory=list)
    readable: bool = True
    partial: bool = False  # parsed only up to the end of the Digest (renderers' mode)
    digest_ended: bool = False  # ...and another section followed it: what the renderers need is read
    _line_values: dict[str, str] | None = None

    def get(self, key: str, default: Any = None) -> Any:
        return default if self.meta is None else self.meta.get(key, default)

    def has(self, key: str) -> bool:
        return self.meta is not None and key in self.meta

    def line_of(self, key: str) -> int | None:
        return self.key_lines.get(key, self.fm_open)

    def section(self, key: str) -> Section | None:
        for sec in self.sections:
            if sec.key == key:
                return sec
        return None

    def section_text(self, sec: Section) -> str:
        return "\n".join(self.lines[sec.start : sec.end]).strip()

    @property
    def digest(self) -> str | None:
        sec = self.section("digest")
        return None if sec is None else self.section_text(sec)

    @property
    def body_lines(self) -> list[str]:
        return self.lines[self.body_start :]

    def line_reader_values(self) -> dict[str, str]:
        """The frontmatter as line-based shelf tools read it: split at the first colon,
        trim, decode a double-quoted value as JSON (else just drop the quotes)."""
        if self._line_values is None:
            self._line_values = self._read_lines()
        return self._line_values

    def _read_lines(self) -> dict[str, str]:
        values: dict[str, str] = {}
        if self.fm_open is None or self.fm_close is None:
            return values
        for raw in self.lines[self.fm_open : self.fm_close - 1]:
            if ":" not in raw:
                continue
            key, _, value = raw.partition(":")
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = quoted_as_line_read(value)
            values[key.strip()] = value
        return values


def quoted_as_line_read(value: str) -> str:
    """A double-quoted value as line readers decode it: as a JSON string, else its inside. JSON
    reads a value without a backslash as its inside too (or fails, giving the same), so only
    escapes are worth asking json about."""
    if "\\" in value:
        try:
            decoded = json.loads(value)
        except ValueError:
            return value[1:-1]
        if isinstance(decoded, str):
            return decoded
    return value[1:-1]


def _problem(ep: Episode, code: str, line: int | None, message: str) -> None:
    ep.problems.append(Finding(code, ep.path, line, message))


def read_bytes(abs_path: str, max_bytes: int, head: int | None = None) -> tuple[bytes, int]:
    """Read at most max_bytes + 1 bytes (at most `head` bytes, when given); return them and the
    file size on disk. (Sized reads: asking a buffered file for max_bytes + 1 allocates that much
    every time.)"""
    fd = os.open(abs_path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    try:
        size = os.fstat(fd).st_size
        want = min(size, max_bytes + 1, size if head is None else head)
        data = os.read(fd, want)
        while len(data) < want:  # short read (or the file shrank): keep reading until EOF
            chunk = os.read(fd, want - len(data))
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    return data, max(size, len(data))


def parse(
    data: bytes,
    path: str,
    *,
    category: str = "",
    archived: bool = False,
    size: int | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
    upto_digest: bool = False,
) -> Episode:
    """Parse one episode file's bytes. `path` is shelf-relative, POSIX separators.

    `upto_digest` stops reading sections once the Digest section has ended: enough for the
    renderers (frontmatter and digest), not for the checks, which need every section."""
    stem = path.rsplit("/", 1)[-1]
    stem = stem[:-3] if stem.endswith(".md") else stem
    ep = Episode(path=path, stem=stem, category=category, archived=archived)
    ep.size = len(data) if size is None else size
    if ep.size > max_bytes:
        _problem(ep, "file-too-large", None, f"{ep.size:,} bytes, over the cap of {max_bytes:,}; not read")
        ep.readable = False
        return ep

    if data.startswith(_BOM):
        _problem(ep, "bom", 1, "UTF-8 byte order mark at the start of the file (stripped)")
        data = data[len(_BOM) :]
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        _problem(ep, "invalid-utf8", line, f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not UTF-8")
        text = data.decode("utf-8", errors="replace")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    ep.text = text
    ep.lines = lines = text.split("\n")

    _parse_frontmatter(ep, lines)
    ep.digest_ended = _parse_sections(ep, lines, upto_digest)
    ep.partial = upto_digest
    return ep


def _parse_frontmatter(ep: Episode, lines: list[str]) -> None:
    n = len(lines)
    i = 0
    while i < n and not lines[i].strip():
        i += 1
    h1 = i < n and lines[i].startswith("# ")
    if h1:
        i += 1
        while i < n and not lines[i].strip():
            i += 1
    if i >= n or lines[i].strip() != "---":
        where = i + 1 if i < n else None
        _problem(ep, "frontmatter-missing", where,
                 "expected '---' on the first line or after one '# ' title line" +
                 (f", found '{_clip(lines[i])}'" if i < n else ", found the end of the file"))
        ep.body_start = _after_title(lines)
        return
    ep.fm_open = i + 1
    j = i + 1
    while j < n and lines[j].strip() != "---":
        j += 1
    if j >= n:
        _problem(ep, "frontmatter-unclosed", ep.fm_open, "the '---' on this line is never closed")
        ep.body_start = n
        return
    ep.fm_close = j + 1
    ep.body_start = j + 1
    first = i + 2  # 1-based line of the block's first line
    simple = yamlload.load_simple_mapping(lines[i + 1 : j])
    if simple is not None:
        ep.meta = simple[0]
        ep.key_lines = {key: first + index for key, index in simple[1].items()}
        return
    block = "\n".join(lines[i + 1 : j])
    try:
        node = yamlload.compose(block)
    except yamlload.AliasError as exc:
        _problem(ep, "frontmatter-alias", ep.fm_open, str(exc))
        return
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = first + mark.line if mark is not None else ep.fm_open
        _problem(ep, "frontmatter-yaml-invalid", line, _yaml_message(exc))
        return
    except (yaml.YAMLError, RecursionError, MemoryError, ValueError) as exc:
        _problem(ep, "frontmatter-yaml-invalid", ep.fm_open, f"YAML could not be read: {type(exc).__name__}")
        return
    if not isinstance(node, yaml.MappingNode):
        what = "empty" if node is None else "not a mapping of keys to values"
        _problem(ep, "frontmatter-not-mapping", ep.fm_open, f"the frontmatter block is {what}")
        return
    try:
        meta = yamlload.construct(node)
    except (yaml.YAMLError, RecursionError, MemoryError, ValueError, TypeError) as exc:
        _problem(ep, "frontmatter-yaml-invalid", ep.fm_open, f"YAML could not be read: {_clip(str(exc))}")
        return
    ep.meta = meta
    for key_node, _ in node.value:
        if isinstance(key_node.value, str):
            ep.key_lines[key_node.value] = first + key_node.start_mark.line


def _after_title(lines: list[str]) -> int:
    """Where the body starts in a file without frontmatter: after blank lines and one H1."""
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    return i + 1 if i < len(lines) and lines[i].startswith("# ") else i


def _parse_sections(ep: Episode, lines: list[str], upto_digest: bool = False) -> bool:
    """The sections, code blocks and malformed headings; True when `upto_digest` stopped it at
    the section after the Digest."""
    fence: str | None = None
    fence_start = 0
    current: Section | None = None
    for idx in range(ep.body_start, len(lines)):
        line = lines[idx]
        if fence is not None:
            stripped = line.strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                fence = None
                ep.code_blocks.append((fence_start, idx + 1))
            continue
        if line.startswith("#"):
            if line.startswith("## "):
                if current is not None:
                    current.end = idx
                    if upto_digest and current.key == "digest":
                        return True
                current = Section(line[3:].strip(" \t"), idx + 1, idx + 1, len(lines))
                ep.sections.append(current)
                continue
            if _MALFORMED_HEADING.match(line):
                ep.malformed_headings.append(idx + 1)
            continue
        if line[:1] in (" ", "`", "~"):
            m = _FENCE_OPEN.match(line)
            if m:
                fence = m.group(1)
                fence_start = idx
    if fence is not None:
        ep.code_blocks.append((fence_start, len(lines)))
    return False


def _yaml_message(exc: yaml.MarkedYAMLError) -> str:
    parts = [p for p in (exc.context, exc.problem) if p]
    return "invalid YAML: " + ", ".join(parts) if parts else "invalid YAML"


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
