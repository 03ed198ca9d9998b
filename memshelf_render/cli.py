"""The core's command-line front-end: validate, render, guard, resolve, stats, badge, fix.

Each command's module is imported only when that command runs, so `--version` and `validate`
start fast. `bot.cli` adds the GitHub-side commands on top of this parser.
"""

from __future__ import annotations

import argparse
from importlib import import_module

from . import __version__


def _add_validate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check the shelf (or the named episodes) against every rule")
    p.add_argument("path", nargs="?", default=".", help="shelf root (default: current directory)")
    p.add_argument("--changed", nargs="+", metavar="FILE", help="validate only these episodes (PR mode)")
    p.add_argument("--format", choices=["text", "json", "github", "sarif"], default="text")
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    p.add_argument("--list-rules", action="store_true", help="print the rule catalog and exit")
    p.set_defaults(handler="memshelf_render.validate:cli_main")


def _add_render(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("render", help="write every derived file from the episodes")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--check", action="store_true", help="write nothing; list drifted files, exit 1 on drift")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--badge", action=argparse.BooleanOptionalAction, default=None,
                   help="render badge.svg/badge.json (default: .memshelf-bot.yml)")
    p.set_defaults(handler="memshelf_render.render_command:cli_main")


def _add_guard(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("guard", help="classify the diff base...head of a PR")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--base", required=True, metavar="REV")
    p.add_argument("--head", default="HEAD", metavar="REV")
    p.add_argument("--allow", action="append", default=None, metavar="GLOB",
                   help="extra non-episode paths the change may touch (repeatable)")
    p.add_argument("--format", choices=["text", "json", "github"], default="text")
    p.set_defaults(handler="memshelf_render.guard:cli_main")


def _add_resolve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("resolve", help="inside a merge: regenerate derived files, union recall-log.tsv")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--commit", action="store_true", help="complete the merge when everything resolved")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(handler="memshelf_render.resolve:cli_main")


def _add_stats(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stats", help="claimed and realized token economy")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--png", metavar="FILE", help="also rasterize the stats chart to this PNG")
    p.add_argument("--context-window", type=int, default=None, metavar="N")
    p.set_defaults(handler="memshelf_render.stats:cli_main")


def _add_badge(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("badge", help="the shelf's badge: SVG, or shields.io endpoint JSON")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--out", metavar="FILE", help="write here instead of stdout")
    p.add_argument("--format", choices=["svg", "json"], default="svg")
    p.set_defaults(handler="memshelf_render.badge:cli_main")


def _add_fix(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fix", help="apply the mechanical fixes (ids, tags, quoting, control characters, "
                                   "BOM, secrets masked) in place")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--changed", nargs="+", metavar="FILE", help="fix only these episodes")
    p.set_defaults(handler="memshelf_render.fix:cli_main")


CORE_COMMANDS = (_add_validate, _add_render, _add_guard, _add_resolve, _add_stats, _add_badge, _add_fix)


def build_parser(prog: str = "memshelf-bot") -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(prog=prog, description="Keeps AI agents' memory shelves honest.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in CORE_COMMANDS:
        add(sub)
    return parser, sub


def dispatch(parser: argparse.ArgumentParser, argv: list[str] | None) -> int:
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    module, _, func = handler.partition(":")
    return int(getattr(import_module(module), func)(args) or 0)


def main(argv: list[str] | None = None) -> int:
    parser, _ = build_parser()
    return dispatch(parser, argv)
