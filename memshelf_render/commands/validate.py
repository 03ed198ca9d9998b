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
from typing import TYPE_CHECKING

from .console import shown

if TYPE_CHECKING:
    import argparse

    from ..cache import EpisodeCache


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check the shelf (or the named episodes) against every rule")
    p.add_argument("path", nargs="?", default=".", help="shelf root (default: current directory)")
    p.add_argument("--changed", action="extend", nargs="+", metavar="FILE",
                   help="validate only these episodes (PR mode); a shelf directory after them is PATH")
    p.add_argument("--format", choices=["text", "json", "github", "sarif"], default="text")
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    p.add_argument("--list-rules", action="store_true", help="print the rule catalog and exit")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the episode cache (MEMSHELF_BOT_CACHE_DIR)")
    p.set_defaults(handler=f"{__name__}:run")


def take_path_operand(args: argparse.Namespace) -> str | None:
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
    from .. import paths
    from ..guard import is_episode_path
    from ..shelf import load_shelf

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


def warn_cache(cache: EpisodeCache | None) -> None:
    """The cache's one warning line, if it had a problem (the run's output is the same)."""
    if cache is not None and cache.warning:
        print(f"memshelf-bot: warning: {shown(cache.warning)}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    if args.changed and not args.list_rules:
        why = take_path_operand(args) or changed_problem(args.path, args.changed)
        if why is not None:
            print(f"memshelf-bot validate: {shown(why)}", file=sys.stderr)
            return 2
    from ..report import emit, list_rules

    if args.list_rules:
        list_rules(args.format, sys.stdout)
        return 0
    from ..cache import EpisodeCache
    from ..validate import run as validate

    cache = None if args.no_cache else EpisodeCache.from_env()
    report = validate(args.path, changed=args.changed, strict=args.strict, cache=cache)
    emit(report, args.format, sys.stdout)
    warn_cache(cache)
    return report.exit_code
