"""The `memshelf-bot` console script: the core's commands plus the GitHub-side ones."""

from __future__ import annotations

import argparse
import sys

from memshelf_render.cli import build_parser, dispatch


def _add_bot_commands(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("action", help="the container entrypoint: dispatch on the GitHub event")
    p.set_defaults(handler="bot.action:cli_main")

    p = sub.add_parser("serve", help="App mode: the webhook server")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.set_defaults(handler="bot.app:cli_main")

    p = sub.add_parser("demo", help="the whole loop, locally, against the embedded GitHub sandbox")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory and print it")
    p.set_defaults(handler="bot.demo:cli_main")

    p = sub.add_parser("sandbox", help="run the embedded GitHub sandbox on a bare repository")
    p.add_argument("--repo", required=True, metavar="BARE", help="bare git repository to serve")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port")
    p.add_argument("--name", default="octo/shelf", metavar="OWNER/REPO")
    p.add_argument("--token", default=None, help="accept only this token (default: any)")
    p.set_defaults(handler="bot.sandbox.server:cli_main")


def main(argv: list[str] | None = None) -> int:
    parser, sub = build_parser()
    _add_bot_commands(sub)
    return dispatch(parser, argv)


if __name__ == "__main__":
    sys.exit(main())
