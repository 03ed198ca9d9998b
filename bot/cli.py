"""The `memshelf-bot` console script: the core's commands plus the GitHub-side ones.

Commands from other installed packages (the sandbox package's `demo` and `sandbox`) join through
the entry-point group `memshelf_bot.commands`; `bot` itself never imports them. Where they are
not installed, those commands still parse and say in one line how to get them.

`memshelf-bot --version` alone is answered before anything else is imported (argparse and the
parser's modules are most of its start-up): it is what a user or a CI step runs to see that
the tool is there.
"""

from __future__ import annotations

import sys

from memshelf_render import __version__

TYPE_CHECKING = False  # typing's import alone would double what `--version` loads
if TYPE_CHECKING:
    import argparse

PLUGIN_GROUP = "memshelf_bot.commands"
SANDBOX_EXTRA = "memshelf-bot[sandbox]"
SANDBOX_COMMANDS = {
    "demo": "the whole loop, locally, against the embedded GitHub sandbox",
    "sandbox": "run the embedded GitHub sandbox on a bare repository",
}


def _add_bot_commands(sub: argparse._SubParsersAction) -> None:
    from .app import options as app_options

    p = sub.add_parser("action", help="the container entrypoint: dispatch on the GitHub event")
    p.set_defaults(handler="bot.action:cli_main")
    app_options.add_serve(sub)
    app_options.add_setup(sub)
    app_options.add_worker(sub)


def _add_plugins(sub: argparse._SubParsersAction) -> None:
    from importlib.metadata import entry_points  # only here: its import is most of what `--version` costs

    for ep in entry_points(group=PLUGIN_GROUP):
        try:
            register = ep.load()
        except ImportError:  # declared by the distribution, but its package is not in this install (the image)
            continue
        register(sub)
    for name, help_text in SANDBOX_COMMANDS.items():
        if name not in sub.choices:
            p = sub.add_parser(name, help=f"{help_text} (needs {SANDBOX_EXTRA})", add_help=False,
                               prefix_chars="\0")  # every argument is taken as given
            p.add_argument("rest", nargs="*")
            p.set_defaults(handler="bot.cli:missing_sandbox")


def missing_sandbox(args: argparse.Namespace) -> int:
    print(f"memshelf-bot {args.command}: the sandbox package is not installed; "
          f"install it with: pip install '{SANDBOX_EXTRA}'", file=sys.stderr)
    return 2


def build(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser: core commands, the bot's, and the installed plugins'. The plugins (an
    entry-point scan) are left out when `argv` names a command already known, or only asks for
    `--version`: those need none of them, and every command starts faster."""
    from memshelf_render.cli import build_parser

    parser, sub = build_parser()
    _add_bot_commands(sub)
    first = argv[0] if argv else None
    if first is None or not (first in sub.choices or first == "--version"):
        _add_plugins(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv == ["--version"]:  # as argparse's version action prints it
        print(f"memshelf-bot {__version__}")
        return 0
    from memshelf_render.cli import dispatch

    return dispatch(build(argv), argv)


if __name__ == "__main__":
    sys.exit(main())
