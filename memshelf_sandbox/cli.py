"""The sandbox package's commands, registered with `memshelf-bot` through the entry point
`memshelf_bot.commands` (see pyproject.toml): `demo` and `sandbox`. `bot` never imports this
package; where it is not installed those two commands say how to install it."""

from __future__ import annotations

import argparse
from importlib.util import find_spec


def register(sub: argparse._SubParsersAction) -> None:
    """Add `demo` and `sandbox`, unless the extra's dependencies are missing (then `bot` adds
    the commands that say how to install them)."""
    try:
        present = find_spec("openapi_schema_validator") is not None  # what the sandbox extra installs
    except ImportError:
        present = False
    if not present:
        return
    p = sub.add_parser("demo", help="the whole loop, locally, against the embedded GitHub sandbox")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory and print it")
    p.add_argument("--app", action="store_true", help="drive it as a GitHub App: webhooks into memshelf-bot serve")
    p.set_defaults(handler="memshelf_sandbox.demo:cli_main")

    p = sub.add_parser("sandbox", help="run the embedded GitHub sandbox on bare repositories")
    p.add_argument("--repo", required=True, action="append", metavar="BARE",
                   help="bare git repository to serve (repeatable: several repositories, one --name each)")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port")
    p.add_argument("--name", action="append", metavar="OWNER/REPO", help="default octo/shelf (one repository)")
    p.add_argument("--token", default=None, help="accept only this token (default: any)")
    p.add_argument("--user", action="append", metavar="LOGIN=TOKEN[:PERMISSION]",
                   help="a token and who it is: admin, write (default) or read on every repository")
    p.add_argument("--app-id", type=int, metavar="ID", help="play GitHub for this GitHub App")
    p.add_argument("--app-private-key", metavar="PEMFILE", help="the App's private key (its public half is kept)")
    p.add_argument("--app-slug", default="memshelf-bot", help="the App's slug; its bot is <slug>[bot]")
    p.add_argument("--webhook-url", metavar="URL", help="deliver signed webhooks here")
    p.add_argument("--webhook-secret", metavar="S", help="the secret webhooks are signed with")
    p.add_argument("--fork", action="append", metavar="OWNER/REPO",
                   help="serve a fork of the first repository (git only; pull requests from it: head OWNER:BRANCH)")
    p.add_argument("--log", metavar="FILE", help="append every request answered as a JSON line (secrets masked)")
    p.set_defaults(handler="memshelf_sandbox.server:cli_main")
