"""The sandbox package's commands, registered with `memshelf-bot` through the entry point
`memshelf_bot.commands` (see pyproject.toml): `demo` and `sandbox`. `bot` never imports this
package; where it is not installed those two commands say how to install it."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:
    """Add `demo` and `sandbox`, unless the extra's dependencies are missing (then `bot` adds
    the commands that say how to install them)."""
    try:
        import openapi_schema_validator  # noqa: F401 - what the sandbox extra installs
    except ImportError:
        return
    p = sub.add_parser("demo", help="the whole loop, locally, against the embedded GitHub sandbox")
    p.add_argument("--keep", action="store_true", help="keep the temporary directory and print it")
    p.set_defaults(handler="memshelf_sandbox.demo:cli_main")

    p = sub.add_parser("sandbox", help="run the embedded GitHub sandbox on a bare repository")
    p.add_argument("--repo", required=True, metavar="BARE", help="bare git repository to serve")
    p.add_argument("--port", type=int, default=0, help="0 picks a free port")
    p.add_argument("--name", default="octo/shelf", metavar="OWNER/REPO")
    p.add_argument("--token", default=None, help="accept only this token (default: any)")
    p.set_defaults(handler="memshelf_sandbox.server:cli_main")
