"""Whether a config surely conforms to our JSON schemas, without importing jsonschema.

jsonschema's import costs more CPU than validating a small shelf. Almost every shelf.yml and
.memshelf-bot.yml is valid, so the common path asks this small reader first: it knows the few
keywords our two schemas use, answers True (valid), False (invalid) or None (not sure: a
keyword or a value type it does not judge), and only a False or None goes on to jsonschema for
the messages. A wrong True would hide a finding, so every True is the plain definition's
answer; `tests/unit/test_perf_schema.py` holds it to jsonschema's.
"""

from __future__ import annotations

import re
from typing import Any

Verdict = bool | None
_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "title", "description"})


def conforms(data: Any, schema: dict[str, Any]) -> bool:
    """True only when `data` is valid against `schema` for certain."""
    return _verdict(data, schema, schema) is True


def _verdict(data: Any, schema: Any, root: dict[str, Any]) -> Verdict:
    if not isinstance(schema, dict):
        return None
    verdicts: list[Verdict] = []
    for key, value in schema.items():
        if key in _ANNOTATIONS:
            continue
        check = _KEYWORDS.get(key)
        if check is None:
            return None
        verdict = check(data, value, schema, root)
        if verdict is False:
            return False
        verdicts.append(verdict)
    return None if None in verdicts else True


def _type(data: Any, expected: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    if expected == "object":
        return isinstance(data, dict)
    if expected == "array":
        return isinstance(data, list)
    if expected == "string":
        return isinstance(data, str)
    if expected == "boolean":
        return isinstance(data, bool)
    if expected == "integer":
        if isinstance(data, float):
            return None  # 1.0 is an integer to JSON Schema
        return isinstance(data, int) and not isinstance(data, bool)
    return None


def _properties(data: Any, properties: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    if not isinstance(data, dict):
        return True
    if not isinstance(properties, dict):
        return None
    verdicts = [_verdict(data[key], sub, root) for key, sub in properties.items() if key in data]
    return False if False in verdicts else None if None in verdicts else True


def _additional(data: Any, allowed: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    if not isinstance(data, dict):
        return True
    if allowed is not False or not all(isinstance(key, str) for key in data):
        return None
    return all(key in schema.get("properties", {}) for key in data)


def _required(data: Any, keys: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    return True if not isinstance(data, dict) else all(key in data for key in keys)


def _ref(data: Any, ref: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    prefix = "#/$defs/"
    if not isinstance(ref, str) or not ref.startswith(prefix) or ref[len(prefix):] not in root.get("$defs", {}):
        return None
    return _verdict(data, root["$defs"][ref[len(prefix):]], root)


def _enum(data: Any, options: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    if not isinstance(data, str) or not all(isinstance(option, str) for option in options):
        return None  # JSON equality differs from Python's for numbers and booleans
    return data in options


def _min_length(data: Any, limit: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    return True if not isinstance(data, str) else len(data) >= limit


def _pattern(data: Any, pattern: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    return True if not isinstance(data, str) else re.search(pattern, data) is not None


def _minimum(data: Any, limit: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        return True
    return None if isinstance(data, float) else data >= limit


def _not(data: Any, sub: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    verdict = _verdict(data, sub, root)
    return None if verdict is None else not verdict


def _any_of(data: Any, subs: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    verdicts = [_verdict(data, sub, root) for sub in subs]
    return True if True in verdicts else None if None in verdicts else False


def _items(data: Any, sub: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    if not isinstance(data, list):
        return True
    verdicts = [_verdict(item, sub, root) for item in data]
    return False if False in verdicts else None if None in verdicts else True


def _unique(data: Any, unique: Any, schema: dict[str, Any], root: dict[str, Any]) -> Verdict:
    if not isinstance(data, list) or unique is not True:
        return True if unique is False or not isinstance(data, list) else None
    if not all(isinstance(item, str) for item in data):
        return None
    return len(set(data)) == len(data)


_KEYWORDS = {
    "type": _type, "properties": _properties, "additionalProperties": _additional, "required": _required,
    "$ref": _ref, "enum": _enum, "minLength": _min_length, "pattern": _pattern, "minimum": _minimum,
    "not": _not, "anyOf": _any_of, "items": _items, "uniqueItems": _unique,
}

