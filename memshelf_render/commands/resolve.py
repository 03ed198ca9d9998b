"""`memshelf-bot resolve [PATH] [--commit] [--format text|json]`: settle a shelf merge
(`memshelf_render.resolve`) and say what was settled. Exit 0 settled, 1 a human must act, 2
config error (shelf.yml missing or invalid without being conflicted) or git failure."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .console import json_document, policy, report_config, shown

if TYPE_CHECKING:
    import argparse

    from ..redact import PolicyPack
    from ..resolve import ResolveResult


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("resolve", help="inside a merge: regenerate derived files, union recall-log.tsv")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--commit", action="store_true", help="complete the merge when everything resolved")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(handler=f"{__name__}:run")


def run(args: argparse.Namespace) -> int:
    from ..resolve import GitError, ShelfConfigError, resolve
    from ..shelf import load_shelf

    try:
        result = resolve(args.path, commit=args.commit)
    except ShelfConfigError as exc:
        report_config(exc.problems)
        return 2
    except GitError as exc:
        print(f"git failed: {shown(str(exc))}", file=sys.stderr)
        return 2
    pack = policy(load_shelf(args.path, defer_schemas=True)[0])  # the merged shelf's
    if args.format == "json":
        print(json_document(result.as_dict(), pack))
    else:
        _print_text(result, pack)
    return result.exit_code


def _print_text(result: ResolveResult, pack: PolicyPack | None) -> None:
    """One line per path and note; each starts with our own word, the rest is `shown`."""
    for path in result.resolved:
        print(f"unioned      {shown(path, pack)}")
    for path in result.regenerated:
        print(f"regenerated  {shown(path, pack)}")
    for item in result.unresolved:
        print(f"unresolved   {shown(item.path, pack)}: {shown(item.reason, pack)}")
    for note in result.notes:
        print(f"note: {shown(note, pack)}")
    counts = result.validation.get("counts", {})
    print(f"validate: {result.validation.get('verdict')} ({counts.get('error', 0)} errors, "
          f"{counts.get('warning', 0)} warnings)")
    if result.commit_error:
        print(f"commit: {result.commit_error}")
    elif result.committed:
        print(f"committed {result.commit}")
    print(f"resolve: {_verdict(result)}")


def _verdict(result: ResolveResult) -> str:
    """The last line, truthful about what happened: outside a merge nothing was resolved."""
    if result.status == "needs-human":
        return "needs a human"
    errors = "" if result.status == "resolved" else ", but validate reports errors"
    if result.in_merge:
        return f"resolved{errors}"
    where = "not in a merge" if result.git else "not a git repository"
    if result.resolved:
        return f"{where}: {', '.join(result.resolved)} unioned, derived files regenerated{errors}"
    return f"{where}: derived files regenerated only{errors}"
