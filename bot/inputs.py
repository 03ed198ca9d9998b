"""The Action's inputs (`INPUT_*`), checked, and laid over the shelf's `.memshelf-bot.yml`.

The runner hands a Docker action every input as `INPUT_<NAME>` (upper case). An input that is
empty counts as not given, so the shelf's own settings file applies; a given input overrides it.
An `INPUT_*` variable this action does not declare is an error (a typo such as `shelf-path`
would otherwise be ignored silently), and so is a value of the wrong shape.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MODES = ("auto", "validate", "render", "guard", "open-pr", "resolve", "badge")
COMMENT_POLICIES = ("auto", "always", "never")
TRUE = ("true", "True", "TRUE")
FALSE = ("false", "False", "FALSE")
# input name -> Settings field it overrides (None: an input of the Action itself)
INPUTS: dict[str, str | None] = {
    "mode": None,
    "token": None,
    "shelf_path": None,
    "comment": "comment",
    "strict": "strict",
    "branch_patterns": "branch_patterns",
    "auto_merge": "auto_merge",
    "allow_paths": "allow_paths",
    "badge": "badge",
    "commit_message": "commit_message",
}
BOOLEANS = ("strict", "auto_merge", "badge")
LISTS = ("branch_patterns", "allow_paths")


class InputError(ValueError):
    """An input the Action cannot run with (exit 2, like any configuration error)."""


@dataclass(frozen=True)
class Inputs:
    mode: str = "auto"
    token: str = ""
    shelf_path: str = "."
    overrides: dict[str, Any] = field(default_factory=dict)


def _boolean(name: str, raw: str) -> bool:
    if raw in TRUE:
        return True
    if raw in FALSE:
        return False
    raise InputError(f"input '{name}' must be true or false, got {raw!r}")


def _list(raw: str) -> tuple[str, ...]:
    """Comma- or newline-separated items, trimmed, empty items dropped."""
    return tuple(item.strip() for line in raw.splitlines() for item in line.split(",") if item.strip())


def _shelf_path(raw: str) -> str:
    path = posixpath.normpath(raw.replace("\\", "/"))
    if path.startswith("/") or path == ".." or path.startswith("../"):
        raise InputError(f"input 'shelf_path' must be a path inside the workspace, got {raw!r}")
    return path


def read(env: Mapping[str, str]) -> Inputs:
    """The inputs found in `env`; raises InputError on an unknown input or a malformed value."""
    given: dict[str, str] = {}
    unknown = []
    for key, value in env.items():
        if not key.startswith("INPUT_"):
            continue
        name = key[len("INPUT_"):].lower()
        if name not in INPUTS:
            unknown.append(key[len("INPUT_"):].lower())
            continue
        if value.strip():
            given[name] = value.strip()
    if unknown:
        raise InputError(f"unknown input(s): {', '.join(sorted(unknown))}; "
                         f"this action accepts: {', '.join(INPUTS)}")
    mode = given.get("mode", "auto")
    if mode not in MODES:
        raise InputError(f"input 'mode' must be one of {', '.join(MODES)}, got {mode!r}")
    overrides: dict[str, Any] = {}
    for name, setting in INPUTS.items():
        if setting is None or name not in given:
            continue
        raw = given[name]
        if name in BOOLEANS:
            overrides[setting] = _boolean(name, raw)
        elif name in LISTS:
            overrides[setting] = _list(raw)
        elif name == "comment":
            if raw not in COMMENT_POLICIES:
                raise InputError(f"input 'comment' must be one of {', '.join(COMMENT_POLICIES)}, got {raw!r}")
            overrides[setting] = raw
        else:
            overrides[setting] = raw
    return Inputs(mode=mode, token=given.get("token", ""),
                  shelf_path=_shelf_path(given.get("shelf_path", ".")), overrides=overrides)
