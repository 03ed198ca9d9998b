"""What every command shows on the terminal: shelf-supplied text masked and escaped, `--format
json` documents, config findings on stderr, and the shelf loading that reports them.

Text is masked with the built-in credential shapes, and with the shelf's POLICY.patterns once a
command has the shelf (`policy`): a file name the policy calls secret is printed masked too."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from ..findings import Finding
    from ..redact import PolicyPack
    from ..shelf import Shelf


def policy(shelf: Shelf | None) -> PolicyPack | None:
    """The shelf's POLICY.patterns, to mask what a command prints about the shelf."""
    from ..redact import PolicyPack

    return None if shelf is None else PolicyPack.parse(shelf.read_text(shelf.patterns_path))


def shown(text: str, pack: PolicyPack | None = None) -> str:
    """Shelf-supplied text as a terminal line may carry it: masked, controls made visible."""
    from ..escape import terminal
    from ..redact import mask

    return terminal(mask(text, pack))


def _masked(value: Any, pack: PolicyPack | None) -> Any:
    from ..redact import mask

    if isinstance(value, str):
        return mask(value, pack)
    if isinstance(value, list | tuple):
        return [_masked(v, pack) for v in value]
    if isinstance(value, dict):
        return {k: _masked(v, pack) for k, v in value.items()}
    return value


def json_document(data: dict, pack: PolicyPack | None = None) -> str:
    """A command's `--format json` object for stdout: every string value masked, and nothing a
    terminal would act on (see `report.as_json.dumps`)."""
    from ..report.as_json import dumps

    return dumps(_masked(data, pack))


def report_config(problems: list[Finding], err: TextIO | None = None) -> None:
    """Config findings to stderr, one a line (the caller exits 2)."""
    out = err or sys.stderr
    for f in problems:
        where = f"{f.path}:{f.line}" if f.line else f.path
        out.write(f"{shown(where)}: {f.code}: {shown(f.message)}\n")


def load_for_command(root: str | Path, *, defer_schemas: bool = False) -> Shelf | None:
    """`load_shelf` for a command: None (after the config findings are printed) means exit 2."""
    from ..shelf import load_shelf

    shelf, problems = load_shelf(root, defer_schemas=defer_schemas)
    report_config(problems)
    return shelf
