"""`memshelf-bot render [PATH] [--check] [--format text|json] [--badge/--no-badge] [--no-cache]`: load,
print. Exit 1 on drift with --check, 2 when shelf.yml (or .memshelf-bot.yml) is missing or invalid.

The chart helper is forked first, before this process loads the shelf or imports the
renderers, so the helper is small (it carries only the interpreter and the command line) and
matplotlib's import starts at once on another core. The episodes are being parsed while this
process checks the schemas.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .console import json_document, load_for_command, policy, report_config, shown

if TYPE_CHECKING:
    import argparse

    from ..chartjob import ChartJob
    from ..redact import PolicyPack
    from ..render import RenderResult


def register(sub: argparse._SubParsersAction) -> None:
    from argparse import BooleanOptionalAction

    p = sub.add_parser("render", help="write every derived file from the episodes")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--check", action="store_true", help="write nothing; list drifted files, exit 1 on drift")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--badge", action=BooleanOptionalAction, default=None,
                   help="render badge.svg/badge.json (default: .memshelf-bot.yml)")
    p.add_argument("--no-cache", action="store_true",
                   help="neither read nor write the episode cache (MEMSHELF_BOT_CACHE_DIR)")
    p.set_defaults(handler=f"{__name__}:run")


def _print_text(result: RenderResult, pack: PolicyPack | None) -> None:
    """One line per path and warning; each starts with our own word, the rest is `shown`."""
    for path in result.written:
        print(f"wrote    {shown(path, pack)}")
    for path in result.deleted:
        print(f"deleted  {shown(path, pack)}")
    for path in result.drifted:
        print(f"drifted  {shown(path, pack)}")
    for path, reason in result.skipped:
        print(f"skipped  {shown(path, pack)}: {shown(reason, pack)}")
    for text in result.warnings:
        print(f"warning: {shown(text, pack)}")
    for path, reason in result.neutralised:
        print(f"neutralised  {shown(path, pack)}: {shown(reason, pack)}")
    if result.check:
        verdict = f"{len(result.drifted)} drifted" if result.drifted else "no drift"
        print(f"render --check: {result.episodes} episodes, {len(result.files)} derived files, {verdict}")
    else:
        print(f"render: {result.episodes} episodes, {len(result.written)} written, {len(result.deleted)} deleted, "
              f"{len(result.unchanged)} unchanged")


def run(args: argparse.Namespace) -> int:
    import gc

    from ..chartjob import ChartJob

    # The command's objects (the rows, the cache files' entries, the rendered pieces) live until it
    # ends and hold no cycles worth collecting: the collector's passes over them cost ~12 % of a
    # warm render's CPU at 10k episodes. Turned back on for a caller that runs commands in-process.
    collecting = gc.isenabled()
    gc.disable()
    try:
        with ChartJob(fork=not args.check) as chart:  # --check judges the chart by its input hash alone
            return _render(args, chart)
    finally:
        if collecting:
            gc.enable()


def _render(args: argparse.Namespace, chart: ChartJob) -> int:
    from ..cache import EpisodeCache
    from ..render import gather_rows, render_shelf
    from ..shelf import schema_problems
    from .validate import warn_cache

    shelf = load_for_command(args.path, defer_schemas=True)
    if shelf is None:
        return 2
    cache = None if args.no_cache else EpisodeCache.from_env()
    rows = gather_rows(shelf, chart, cache)
    try:
        problems = schema_problems(shelf)
    except BaseException:  # the row workers are stopped and reaped, whatever went wrong
        rows.cancel()
        raise
    if problems:
        rows.cancel()
        report_config(problems)
        return 2
    result = render_shelf(shelf, check=args.check, badge=args.badge, chart=chart, rows=rows, cache=cache)
    pack = policy(shelf)
    if args.format == "json":
        print(json_document(result.as_dict(), pack))
    else:
        _print_text(result, pack)
    warn_cache(cache)
    if result.drifted:
        print("derived files are out of date: run `memshelf-bot render` and commit the result", file=sys.stderr)
        return 1
    return 0
