"""Frontmatter fields (docs/format.md §2): presence, types, values, and agreement with line readers.

The reference tools read frontmatter line by line (split at the first colon, JSON-decode a
double-quoted value) while shelf-spec uses YAML. A value the two read differently renders
differently, so it is an error here (`frontmatter-ambiguous`), whatever YAML says.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterator
from typing import Any

from ..episode import Episode
from ..findings import Finding, Replacement
from ..markup import find_markup
from ..records import ledger_date
from ..shelf import KIND_OF_CATEGORY
from ..text import MAX_DESCRIPTION_CHARS, flatten
from ..yamlload import scalar_text
from .context import Context

REQUIRED = ("id", "kind", "span", "tags", "approx_tokens")
KINDS = ("topic", "research", "session")
TOKEN_SOURCES = ("estimate", "measured", "unmeasured")
MODES = ("live", "import")
ONE_LINE_TEXT = ("display_title", "description", "notes")
# Fields the line-reading tools (doctor, rebuild) also read, so both readings must agree.
LINE_READ = ("id", "kind", "span", "date", "mode", "approx_tokens", "approx_tokens_source",
             "display_title", "description", "notes", "retain_until")
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
_SPAN = re.compile(r"(?:\d{4}-\d{2}-\d{2})?(?:\.\.\d{4}-\d{2}-\d{2})?")
_DIGITS = re.compile(r"[0-9]+")
_LINE_BREAKING = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _is_day(value: str) -> bool:
    if not _DAY.fullmatch(value):
        return False
    try:
        dt.date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _words(value: Any) -> str:
    """What a frontmatter value is, in words (never a Python repr: no None, no [..], no quotes
    escaped the Python way)."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return "empty"
    if isinstance(value, bool):
        return f"the boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text '{_clip(value)}'"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, dict):
        return "a mapping"
    return "a value of another type"


def _not(key: str, value: Any, expected: str) -> str:
    """`kind 'memo' is not topic, ...` for text; `kind is empty, not topic, ...` for the rest."""
    if isinstance(value, str) and value.strip():
        return f"{key} '{_clip(value)}' is not {expected}"
    return f"{key} is {_words(value)}, not {expected}"


def _reading(value: Any) -> str:
    """A value as one reader reads it: quoted text, or what it is in words."""
    if isinstance(value, str) and value:
        return f"'{_clip(value)}'"
    return "nothing" if value is None or value == "" else _words(value)


def _yaml_as_line_text(value: Any) -> str | None:
    """How a YAML scalar would have to be spelled for a line reader to read the same text;
    None for values whose type is wrong anyway (a type finding reports those)."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, str)):
        return str(value)
    return None


def _placeholder(key: str, ep: Episode) -> str:
    """A value a missing required key can start from (the episode's own where it tells)."""
    day = _DAY.match(ep.stem)
    return {"id": scalar_text(ep.stem), "kind": KIND_OF_CATEGORY.get(ep.category, "topic"),
            "span": day.group(0) if day else "YYYY-MM-DD", "tags": "[]", "approx_tokens": "0"}.get(key, '""')


def check(ep: Episode, ctx: Context) -> Iterator[Finding]:
    if ep.meta is None or not ctx.memory:
        return
    meta, path = ep.meta, ep.path

    def at(code: str, key: str, message: str) -> Finding:
        return Finding(code, path, ep.line_of(key), message)

    closing = ep.lines[ep.fm_close - 1] if ep.fm_close and ep.fm_close <= len(ep.lines) else None
    for key in REQUIRED:
        if key not in meta:
            insert = None if closing is None or ep.fm_close is None else Replacement(
                ep.fm_close, f"{key}: {_placeholder(key, ep)}\n{closing}",
                f"the id must be the file name, {ep.stem}" if key == "id" else
                f"add the required key {key}; the value is a placeholder, put in the real one", certain=key == "id")
            yield Finding("field-missing", path, ep.fm_open, f"required key '{key}' is missing", insert)

    yield from _ambiguity(ep)

    if "id" in meta:
        value = meta["id"]
        if isinstance(value, (dict, list, bool)):
            yield at("id-type-invalid", "id", f"id must be a string, not {_words(value)}")
        elif value is None or not str(value).strip():
            yield at("id-mismatch", "id", f"id is empty; it must be '{ep.stem}'")
        elif str(value) != ep.stem:
            yield at("id-mismatch", "id", f"id '{value}' differs from the file name '{ep.stem}'")

    if "kind" in meta:
        kind = meta["kind"]
        if kind is None:
            yield at("kind-empty", "kind", "kind is empty; it must be topic, research or session")
        elif kind not in KINDS:
            yield at("kind-invalid", "kind", _not("kind", kind, "topic, research or session"))
        else:
            expected = KIND_OF_CATEGORY.get(ep.category)
            if expected is not None and expected != kind:
                yield at("kind-directory-mismatch", "kind",
                         f"kind '{kind}' but the file is in '{ep.category}/' (the directory of kind '{expected}')")

    if "span" in meta:
        span = meta["span"]
        if not isinstance(span, str) or not span.strip():
            yield at("span-invalid", "span", f"span must be a non-empty string, but it is {_words(span)}")
        elif not _SPAN.fullmatch(span.strip()) or span.strip() == "..":
            yield at("span-format", "span", f"span '{span}' is neither YYYY-MM-DD nor a YYYY-MM-DD..YYYY-MM-DD range")

    if "tags" in meta:
        tags = meta["tags"]
        if not isinstance(tags, list):
            yield at("tags-invalid", "tags", f"tags must be a list, but it is {_words(tags)}")
        elif not all(isinstance(t, str) for t in tags):
            bad = next(t for t in tags if not isinstance(t, str))
            yield at("tag-invalid", "tags", f"every tag must be a string, but one is {_words(bad)}")

    if "approx_tokens" in meta:
        value = meta["approx_tokens"]
        raw = ep.line_reader_values().get("approx_tokens", "")
        if not isinstance(value, int):
            yield at("approx-tokens-invalid", "approx_tokens",
                     _not("approx_tokens", raw or value, "a non-negative integer written as plain digits"))
        elif isinstance(value, bool) or value < 0 or not _DIGITS.fullmatch(raw):
            yield at("approx-tokens-not-plain", "approx_tokens",
                     _not("approx_tokens", raw or value, "a non-negative integer written as plain digits"))

    if "approx_tokens_source" in meta and meta["approx_tokens_source"] not in TOKEN_SOURCES:
        yield at("approx-tokens-source-invalid", "approx_tokens_source",
                 _not("approx_tokens_source", meta["approx_tokens_source"], "estimate, measured or unmeasured"))

    if "mode" in meta and meta["mode"] not in MODES:
        yield at("mode-invalid", "mode", _not("mode", meta["mode"], "live or import"))

    yield from _dates(ep, at)
    yield from _text_fields(ep, at)


def _ambiguity(ep: Episode) -> Iterator[Finding]:
    raw = ep.line_reader_values()
    meta = ep.meta or {}
    for key in LINE_READ:
        in_yaml, in_raw = key in meta, key in raw
        if not in_yaml and not in_raw:
            continue
        if in_raw and not in_yaml:
            line = next((ep.fm_open + 1 + i for i, text in enumerate(ep.lines[ep.fm_open: (ep.fm_close or 1) - 1])
                         if text.partition(":")[0].strip() == key), ep.fm_open)
            yield Finding("frontmatter-ambiguous", ep.path, line,
                          f"line readers see a '{key}' key here that YAML does not (indented or inside a block value)")
            continue
        if not in_raw:
            continue
        spelled = _yaml_as_line_text(meta[key])
        if spelled is not None and spelled != raw[key]:
            yield Finding("frontmatter-ambiguous", ep.path, ep.line_of(key),
                          f"{key}: YAML reads {_reading(meta[key])} but line-based tools read {_reading(raw[key])}")


def _dates(ep: Episode, at) -> Iterator[Finding]:
    meta = ep.meta or {}
    eid = str(meta.get("id") or ep.stem)
    if "date" in meta:
        value = meta["date"]
        text = value.strip() if isinstance(value, str) else ""
        if _DAY.fullmatch(text):
            if not _is_day(text):
                yield at("date-invalid", "date", f"date '{text}' is not a calendar day")
        elif ledger_date(None, eid):
            yield at("date-invalid", "date", _not("date", value, "a YYYY-MM-DD day; the ledger uses the id prefix instead"))
        else:
            yield at("date-missing", "date", _not("date", value, "YYYY-MM-DD and the id has no date prefix: "
                                                   "the ledger row would have no date"))
    elif not ledger_date(None, eid):
        yield Finding("date-missing", ep.path, ep.fm_open,
                      "no date key and the id has no YYYY-MM-DD prefix: the ledger row would have no date")
    if "retain_until" in meta:
        value = meta["retain_until"]
        if not (isinstance(value, str) and _is_day(value.strip())):
            yield at("retain-until-invalid", "retain_until", _not("retain_until", value, "a YYYY-MM-DD date"))


def _text_fields(ep: Episode, at) -> Iterator[Finding]:
    meta = ep.meta or {}
    for key in ONE_LINE_TEXT:
        if key not in meta:
            continue
        value = meta[key]
        if isinstance(value, (list, dict, bool)):
            yield at("field-type-invalid", key, f"{key} must be one line of text, not {_words(value)}")
            continue
        text = "" if value is None else str(value)
        bad = _LINE_BREAKING.search(text)
        if bad:
            yield at("control-character", key,
                     f"{key} contains the control character U+{ord(bad.group()):04X}, which breaks "
                     + ("the ledger row" if key == "notes" else "the INDEX line"))
        what = find_markup(text) if key != "notes" else None
        if what is not None:
            yield at("markup-in-title", key, f"{key} holds {what}, which INDEX would render as markup "
                                            "(it is escaped there)")
        if key == "description" and len(flatten(text)) > MAX_DESCRIPTION_CHARS:
            yield at("description-too-long", key,
                     f"description has {len(flatten(text))} characters; INDEX shows the first {MAX_DESCRIPTION_CHARS}")
