"""The core's command line: it registers the commands and runs the one asked for.

Each command is a module of `memshelf_render.commands` (validate, render, guard, resolve, stats,
badge, fix) that declares its arguments and, when it runs, loads, calls the domain and prints.
`bot.cli` adds the GitHub-side commands on top of this parser.

A closed stdout (`| head`) ends the command quietly with status 141, as a Unix tool killed by
SIGPIPE reports it; text that cannot be encoded (undecodable file-name bytes) is written with
backslash escapes instead of failing.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

from . import __version__
from .commands import badge, fix, guard, render, resolve, stats, validate

BROKEN_PIPE_EXIT = 141
CORE_COMMANDS = (validate, render, guard, resolve, stats, badge, fix)


def build_parser(prog: str = "memshelf-bot") -> tuple[argparse.ArgumentParser, argparse._SubParsersAction]:
    parser = argparse.ArgumentParser(prog=prog, description="Keeps AI agents' memory shelves honest.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in CORE_COMMANDS:
        command.register(sub)
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


def main(argv: list[str] | None = None) -> int:
    parser, _ = build_parser()
    return dispatch(parser, argv)
