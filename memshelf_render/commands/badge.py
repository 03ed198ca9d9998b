"""`memshelf-bot badge [PATH] [--out FILE] [--format svg|json]`: the shelf's badge
(`memshelf_render.badge`) to stdout or a file. Exit 0; 1 when the file cannot be written, 2 on a
config error."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from .console import load_for_command

if TYPE_CHECKING:
    import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("badge", help="the shelf's badge: SVG, or shields.io endpoint JSON")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    p.add_argument("--format", choices=["svg", "json"], default="svg")
    p.set_defaults(handler=f"{__name__}:run")


def run(args: argparse.Namespace) -> int:
    from ..badge import badge_files
    from ..records import collect

    shelf = load_for_command(args.path)
    if shelf is None:
        return 2
    records, _ = collect(shelf.episodes)
    files = badge_files(shelf, records, shelf.read_text(shelf.index_path) or "")
    data = files["badge.json" if args.format == "json" else "badge.svg"]
    if args.out is None:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return 0
    try:
        Path(args.out).write_bytes(data)
    except OSError as exc:
        print(f"memshelf-bot badge: cannot write {args.out}: {exc.strerror}", file=sys.stderr)
        return 1
    return 0
