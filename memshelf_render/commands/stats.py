"""`memshelf-bot stats [PATH] [--format text|json] [--png FILE] [--context-window N]`: the claimed
and realized token economy (`memshelf_render.stats`). Exit 0; 1 when the PNG cannot be written,
2 on a config or usage error."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .console import load_for_command

if TYPE_CHECKING:
    import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help="claimed and realized token economy")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--png", metavar="FILE", help="also rasterize the stats chart to this PNG")
    p.add_argument("--context-window", type=int, default=None, metavar="N")
    p.set_defaults(handler=f"{__name__}:run")


def run(args: argparse.Namespace) -> int:
    import json
    import os

    from ..stats import chart_png, context_window, format_text, shelf_stats

    shelf = load_for_command(args.path)
    if shelf is None:
        return 2
    if args.context_window is not None and args.context_window <= 0:
        print(f"memshelf-bot stats: --context-window must be positive, got {args.context_window}", file=sys.stderr)
        return 2
    window, note = context_window(args.context_window, os.environ, shelf.settings.context_window)
    if note:
        print(f"memshelf-bot stats: {note}", file=sys.stderr)
    stats = shelf_stats(shelf, window)
    if args.png:
        try:
            with open(args.png, "wb") as fh:
                fh.write(chart_png(shelf, window))
        except OSError as exc:
            print(f"memshelf-bot stats: cannot write {args.png}: {exc.strerror}", file=sys.stderr)
            return 1
    if args.format == "json":
        sys.stdout.write(json.dumps(stats.as_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(format_text(stats))
    return 0
