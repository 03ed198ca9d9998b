"""The core's command-line front-end: validate, render, guard, resolve, stats, badge, fix.

Each command's module is imported only when that command runs, so `--version` and `validate`
start fast. `bot.cli` adds the GitHub-side commands on top of this parser.

The front-end is where the core's results are printed: config findings go to stderr here (the
core never prints), every shelf-supplied text is escaped for the terminal (`escape.terminal`)
and masked. A closed stdout (`| head`) ends the command quietly with status 141, as a Unix tool
killed by SIGPIPE reports it; text that cannot be encoded (undecodable file-name bytes) is
written with backslash escapes instead of failing.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from . import __version__

if TYPE_CHECKING:
    from .findings import Finding
    from .shelf import Shelf

BROKEN_PIPE_EXIT = 141


def _add_validate(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("validate", help="check the shelf (or the named episodes) against every rule")
    p.add_argument("path", nargs="?", default=".", help="shelf root (default: current directory)")
    p.add_argument("--changed", action="extend", nargs="+", metavar="FILE",
                   help="validate only these episodes (PR mode); a shelf directory after them is PATH")
    p.add_argument("--format", choices=["text", "json", "github", "sarif"], default="text")
    p.add_argument("--strict", action="store_true", help="warnings fail too")
    p.add_argument("--list-rules", action="store_true", help="print the rule catalog and exit")
    p.set_defaults(handler="memshelf_render.validate_command:cli_main")


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
    p.add_argument("--changed", action="extend", nargs="+", metavar="FILE",
                   help="fix only these episodes; a shelf directory after them is PATH")
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
    """Parse and run one command. Exit 141 when stdout is closed early (`| head`)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            reconfigure(errors="backslashreplace")
    try:
        args = parser.parse_args(argv)
        handler = getattr(args, "handler", None)
        if handler is None:
            parser.print_help()
            return 2
        module, _, func = handler.partition(":")
        code = int(getattr(import_module(module), func)(args) or 0)
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        _silence_stdout()
        return BROKEN_PIPE_EXIT


def _silence_stdout() -> None:
    """After a broken pipe: point stdout at /dev/null so the interpreter's final flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (captured output): nothing is flushed at exit


def shown(text: str) -> str:
    """Shelf-supplied text as a terminal line may carry it: masked, controls made visible."""
    from .escape import terminal
    from .redact import mask

    return terminal(mask(text))


def _masked(value: Any) -> Any:
    from .redact import mask

    if isinstance(value, str):
        return mask(value)
    if isinstance(value, list | tuple):
        return [_masked(v) for v in value]
    if isinstance(value, dict):
        return {k: _masked(v) for k, v in value.items()}
    return value


def json_document(data: dict) -> str:
    """A command's `--format json` object for stdout: every string value masked, and nothing a
    terminal would act on (see `report.as_json.dumps`)."""
    from .report.as_json import dumps

    return dumps(_masked(data))


def report_config(problems: list[Finding], err: TextIO | None = None) -> None:
    """Config findings to stderr, one a line (the caller exits 2)."""
    out = err or sys.stderr
    for f in problems:
        where = f"{f.path}:{f.line}" if f.line else f.path
        out.write(f"{shown(where)}: {f.code}: {shown(f.message)}\n")


def load_for_command(root: str | Path, *, defer_schemas: bool = False) -> Shelf | None:
    """`load_shelf` for a command: None (after the config findings are printed) means exit 2."""
    from .shelf import load_shelf

    shelf, problems = load_shelf(root, defer_schemas=defer_schemas)
    report_config(problems)
    return shelf


def main(argv: list[str] | None = None) -> int:
    parser, _ = build_parser()
    return dispatch(parser, argv)
