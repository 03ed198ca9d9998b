"""`memshelf-bot validate`: the usage checks of the command line, then the validate run.

`--changed FILE…` takes the files that follow it (as pre-commit passes them) and may be repeated.
A directory among them can be no episode: it is the shelf PATH (`validate --changed A B shelf/`),
so a PATH after the files is never swallowed. Each FILE must name an existing episode of the
shelf (its path relative to the shelf or to the current directory): a typo in a hook must not
pass as a green check, so anything else is a usage error (exit 2, one line on stderr).
"""

from __future__ import annotations

import os
import sys

from . import paths
from .cli import shown
from .guard import is_episode_path
from .shelf import load_shelf


def take_path_operand(args) -> str | None:
    """Move a directory given among `--changed` to `args.path`; the problem when that is ambiguous."""
    dirs = [c for c in args.changed or () if os.path.isdir(c)]
    if not dirs:
        return None
    if len(dirs) > 1 or args.path != ".":
        return f"--changed {dirs[-1]}: a directory, not an episode (give the shelf PATH once)"
    args.path = dirs[0]
    args.changed = [c for c in args.changed if c != dirs[0]]
    return None


def changed_problem(root: str, changed: list[str]) -> str | None:
    """Why one of the `--changed` files is not an episode of the shelf at `root`, or None (also
    when the shelf does not load: validate then reports the config error)."""
    shelf, _ = load_shelf(root, defer_schemas=True)
    if shelf is None:
        return None
    for raw in changed:
        rel = paths.shelf_relative(shelf.root, raw)
        if not is_episode_path(shelf, rel):
            return f"--changed {raw}: not an episode path (<docs root>/<category>/<id>.md, or under the archive)"
        if not paths.exists(shelf.root, rel):
            return f"--changed {raw}: no such episode in the shelf"
    return None


def cli_main(args) -> int:
    if args.changed and not args.list_rules:
        why = take_path_operand(args) or changed_problem(args.path, args.changed)
        if why is not None:
            print(f"memshelf-bot validate: {shown(why)}", file=sys.stderr)
            return 2
    from .validate import cli_main as run_validate

    return run_validate(args)
