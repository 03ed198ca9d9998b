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
    """Parse to a node tree (raises yaml.YAMLError, AliasError)."""
    loader = ShelfLoader(text)
    try:
        node = loader.get_single_node()
    finally:
        loader.dispose()
    if node is not None:
        _check_tree(node)
    return node


def construct(node: yaml.Node) -> Any:
    loader = ShelfLoader("")
    try:
        return loader.construct_document(node)
    finally:
        loader.dispose()


def load(text: str) -> Any:
    """Safe-load one document with the shelf's rules (raises yaml.YAMLError, AliasError)."""
    node = compose(text)
    return None if node is None else construct(node)
