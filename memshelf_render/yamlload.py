"""Safe YAML loading for shelf files: C loader when available, dates kept as strings.

`span: 2026-09-16` must stay the string "2026-09-16" (docs/format.md §2), so the timestamp resolver is
removed. Anchors and aliases are refused before anything is constructed, which also defuses
"billion laughs" documents.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

import yaml

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class ShelfLoader(_Base):  # type: ignore[misc, valid-type]
    """SafeLoader (C-accelerated) that leaves dates and timestamps as plain strings."""


ShelfLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for first, resolvers in _Base.yaml_implicit_resolvers.items()
}


class AliasError(ValueError):
    """The document reuses a node (anchor/alias) or has a key that is not a scalar."""


def _check_tree(root: yaml.Node) -> None:
    seen: set[int] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            raise AliasError("anchors and aliases are not allowed")
        seen.add(id(node))
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if not isinstance(key, yaml.ScalarNode):
                    raise AliasError("a mapping key is not a plain scalar")
                stack.append(key)
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)


def compose(text: str) -> yaml.Node | None:
    """Parse to a node tree (raises yaml.YAMLError, AliasError). Without a '*' the text holds
    no alias, so the tree walk is skipped; non-scalar keys then fail in `construct`."""
    loader = ShelfLoader(text)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    if node is not None and "*" in text:
        _check_tree(node)
    return node


class _Unusual(Exception):
    """A node the fast path leaves to PyYAML's full constructor (merge keys, rare tags)."""


_SCALARS = {
    "tag:yaml.org,2002:int": "construct_yaml_int",
    "tag:yaml.org,2002:bool": "construct_yaml_bool",
    "tag:yaml.org,2002:null": "construct_yaml_null",
    "tag:yaml.org,2002:float": "construct_yaml_float",
}
_STR = "tag:yaml.org,2002:str"
_SEQ = "tag:yaml.org,2002:seq"
_MAP = "tag:yaml.org,2002:map"
_SCALAR_CONSTRUCTOR = yaml.constructor.SafeConstructor()


def _fast(node: yaml.Node) -> Any:
    """Plain strings, numbers, booleans, nulls, lists and mappings, converted with PyYAML's own
    scalar constructors; anything else raises _Unusual."""
    tag = node.tag
    if isinstance(node, yaml.ScalarNode):
        if tag == _STR:
            return node.value
        method = _SCALARS.get(tag)
        if method is None:
            raise _Unusual
        return getattr(_SCALAR_CONSTRUCTOR, method)(node)
    if isinstance(node, yaml.SequenceNode) and tag == _SEQ:
        return [_fast(item) for item in node.value]
    if isinstance(node, yaml.MappingNode) and tag == _MAP:
        out = {}
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                raise _Unusual
            key = _fast(key_node)
            if isinstance(key, (list, dict)):
                raise _Unusual
            out[key] = _fast(value_node)
        return out
    raise _Unusual


def construct(node: yaml.Node) -> Any:
    try:
        return _fast(node)
    except _Unusual:
        pass
    loader = ShelfLoader("")
    try:
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load(text: str) -> Any:
    """Safe-load one document with the shelf's rules (raises yaml.YAMLError, AliasError)."""
    node = compose(text)
    return None if node is None else construct(node)


def scalar_text(text: str) -> str:
    """`text` as a YAML scalar that reads back as exactly `text`: plain when it does, else JSON."""
    try:
        if load(f"k: {text}") == {"k": text}:
            return text
    except (yaml.YAMLError, AliasError):
        pass
    return json.dumps(text, ensure_ascii=False)


# --- the fast path for the frontmatter agents actually write --------------------------------
#
# Most frontmatter is one `key: value` per line with plain, quoted or `[a, b]` values. For
# exactly that subset the YAML result is known without running the YAML parser: the value's
# type comes from PyYAML's own implicit resolvers and scalar constructors, so the answer is
# PyYAML's. Anything outside the subset (indentation, block scalars, anchors, tags, comments
# after values, colons in plain values, ...) returns None and goes through the full loader.
# tests/unit/test_fuzz.py proves fast == full on generated blocks.

# Characters YAML prints as themselves on one line (no control characters, no line breaks of
# any kind: NEL, LS and PS break lines for YAML although not for str.split("\n")).
_P = "\x00-\x1f\x7f-\x9f\u2028\u2029\ufffe\uffff"
_FIRST = rf"(?:[^{_P}\s\-?:,\[\]{{}}#&*!|>'\"%@`]|[-+](?=[0-9.]))"
_COMMENT = re.compile(rf"#[^{_P}]*")
_FLOW_ITEM = rf"{_FIRST}[^{_P}:#,\[\]{{}}]*"


class _Resolver(yaml.resolver.Resolver):
    yaml_implicit_resolvers = ShelfLoader.yaml_implicit_resolvers


_RESOLVER = _Resolver()


@lru_cache(maxsize=8192)
def _plain(text: str) -> Any:
    """A plain scalar's value (immutable, so memoized: keys and common values repeat)."""
    tag = _RESOLVER.resolve(yaml.ScalarNode, text, (True, False))
    if tag == _STR:
        return text
    method = _SCALARS.get(tag)
    if method is None:
        raise _Unusual
    return getattr(_SCALAR_CONSTRUCTOR, method)(yaml.ScalarNode(tag, text))


# One pattern per line: the key, then (optionally) exactly one value form. A plain scalar that
# YAML reads as the text itself: a safe first character, then no ':' or '#' at all (so never
# ': ' or ' #') and no tab; double-quoted text with only the escapes JSON and YAML agree on. The
# quoted forms are spelled "runs of plain characters between escapes" (one class repeated, which
# `re` runs in C), not "a plain character or an escape, repeated": the same texts, faster.
_LINE = re.compile(
    rf"([A-Za-z_][A-Za-z0-9_]*):(?:[ ]+(?:(?P<plain>{_FIRST}[^{_P}:#]*)"
    rf"|\"(?P<dq>[^{_P}\"\\]*(?:(?:\\[\"\\/bfnrt]|\\u(?![dD][89abAB])[0-9a-fA-F]{{4}})[^{_P}\"\\]*)*)\""
    rf"|'(?P<sq>[^{_P}']*(?:''[^{_P}']*)*)'"
    rf"|\[[ ]*(?P<flow>{_FLOW_ITEM}(?:[ ]*,[ ]*{_FLOW_ITEM})*)?[ ]*\]))?[ ]*"
)
_RESOLVED_FIRST = frozenset(_Resolver.yaml_implicit_resolvers)
_STRING_KEYS: dict[str, bool] = {}


_DATED = re.compile(r"[0-9][0-9_]*-")


def _scalar(text: str) -> Any:
    """A plain scalar: text whose first character no implicit resolver claims is a string, and
    so is text that opens with digits and a dash (ids, days, ranges): no YAML 1.1 int or float
    has a dash after its leading digits."""
    if text[0] not in _RESOLVED_FIRST or _DATED.match(text):
        return text
    return _plain(text)


def load_simple_mapping(lines: list[str]) -> tuple[dict[str, Any], dict[str, int]] | None:
    """The mapping and each key's 0-based line, if every line is in the simple subset; else None."""
    meta: dict[str, Any] = {}
    key_lines: dict[str, int] = {}
    match = _LINE.fullmatch
    try:
        for index, line in enumerate(lines):
            if not line.strip(" "):
                continue
            if line[0] == "#":
                if _COMMENT.fullmatch(line) is None:
                    return None
                continue
            m = match(line)
            if m is None:
                return None
            key, plain, dq, sq, flow = m.groups()
            ok = _STRING_KEYS.get(key)
            if ok is None:  # `on:`, `yes:`, `null:` are not string keys in YAML 1.1
                ok = _STRING_KEYS[key] = _scalar(key) == key
            if not ok:
                return None
            if plain is not None:
                plain = plain.rstrip(" ")
                if plain[0] not in _RESOLVED_FIRST or _DATED.match(plain):
                    value = plain
                elif plain.isdigit() and plain.isascii() and (plain[0] != "0" or plain == "0"):
                    value = int(plain)  # plain decimal digits: YAML's int (a leading 0 is octal)
                else:
                    value = _plain(plain)
            elif dq is not None:
                value = json.loads(f'"{dq}"') if "\\" in dq else dq
            elif sq is not None:
                value = sq.replace("''", "'")
            elif flow is not None or "[" in line[m.end(1):]:
                value = [] if flow is None else [_scalar(item.strip(" ")) for item in flow.split(",")]
            else:
                value = None
            meta[key] = value
            key_lines[key] = index
    except (_Unusual, ValueError):
        return None
    return (meta, key_lines) if meta else None
