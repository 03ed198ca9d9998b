"""`memshelf-bot fix [PATH] [--changed FILE…]`: write the mechanical fixes (`memshelf_render.fix`)
and report what is left. Exit 0 nothing left, 1 findings remain, 2 on a config or usage error.
`--changed` takes files as `validate --changed` does."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .console import load_for_command, shown
from .validate import changed_problem, take_path_operand

if TYPE_CHECKING:
    import argparse


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fix", help="apply the mechanical fixes (ids, tags, quoting, control characters, "
                                   "BOM, secrets masked) in place")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--changed", action="extend", nargs="+", metavar="FILE",
                   help="fix only these episodes; a shelf directory after them is PATH")
    p.set_defaults(handler=f"{__name__}:run")


def run(args: argparse.Namespace) -> int:
    from ..findings import Severity
    from ..fix import plan
    from ..redact import PolicyPack, mask
    from ..report.as_text import write
    from ..validate import run as validate

    if args.changed:
        why = take_path_operand(args) or changed_problem(args.path, args.changed)
        if why is not None:
            print(f"memshelf-bot fix: {shown(why)}", file=sys.stderr)
            return 2
    shelf = load_for_command(args.path)
    if shelf is None:
        return 2
    fixes = plan(shelf, args.changed)
    shelf_policy = PolicyPack.parse(shelf.read_text(shelf.patterns_path))
    for fix in fixes:
        shelf.abs(fix.path).write_bytes(fix.data)
        print(f"fixed {shown(mask(fix.path, shelf_policy))}: {', '.join(dict.fromkeys(fix.codes))}")
    checked = args.changed if args.changed is not None else [str(shelf.abs(r.path)) for r in shelf.layout.episodes]
    report = validate(args.path, changed=checked)
    report.findings = [f for f in report.findings if f.severity is not Severity.INFO]
    write(report, sys.stdout)
    print(f"fix: {len(fixes)} file(s) changed, {len(report.findings)} finding(s) left")
    return 2 if report.config_error else (1 if report.findings else 0)
