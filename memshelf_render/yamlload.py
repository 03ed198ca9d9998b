"""Safe YAML loading for shelf files: C loader when available, dates kept as strings.

`span: 2026-09-16` must stay the string "2026-09-16" (SPEC §2), so the timestamp resolver is
removed. Anchors and aliases are refused before anything is constructed, which also defuses
"billion laughs" documents.
"""

from __future__ import annotations

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
