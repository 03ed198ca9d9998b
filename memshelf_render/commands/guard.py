"""`memshelf-bot guard --base REV [--head REV] [PATH]`: the diff base...head through the PR guard
(`memshelf_render.guard`). Exit 1 when the change touches a derived or a disallowed path, 2 when
the shelf does not load or git fails."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

from .console import json_document, load_for_command, policy, shown

if TYPE_CHECKING:
    import argparse

    from ..guard import GuardResult
    from ..redact import PolicyPack


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("guard", help="classify the diff base...head of a PR")
    p.add_argument("path", nargs="?", default=".")
    p.add_argument("--base", required=True, metavar="REV")
    p.add_argument("--head", default="HEAD", metavar="REV")
    p.add_argument("--allow", action="append", default=None, metavar="GLOB",
                   help="extra non-episode paths the change may touch (repeatable)")
    p.add_argument("--format", choices=["text", "json", "github"], default="text")
    p.set_defaults(handler=f"{__name__}:run")


def run(args: argparse.Namespace) -> int:
    import subprocess

    from ..guard import base_episode_ids, classify, git_changes

    shelf = load_for_command(args.path)
    if shelf is None:
        return 2
    try:
        changes = git_changes(shelf, args.base, args.head)
        base_ids = base_episode_ids(shelf, args.base)
    except subprocess.CalledProcessError as exc:
        print(f"git failed: {shown(exc.stderr.decode(errors='replace').strip())}", file=sys.stderr)
        return 2
    allow = list(shelf.settings.allow_paths) + list(args.allow or [])
    result = classify(shelf, changes, base_ids=base_ids, allow=allow)
    pack = policy(shelf)
    if args.format == "json":
        print(json_document(result.as_dict(), pack))
    elif args.format == "github":
        _print_annotations(result, pack)
    else:
        _print_text(result, pack)
    return 0 if result.ok else 1


def _print_annotations(result: GuardResult, pack: PolicyPack | None) -> None:
    from ..redact import mask
    from ..report.as_github import annotation

    for f in result.findings:
        print(annotation({"error": "error", "warning": "warning"}.get(f.severity.value, "notice"),
                         mask(f.path, pack), None, f"memshelf-bot: {f.code}",
                         f"{mask(f.message, pack)}\nfix: {f.rule.fix}"))


def _print_text(result: GuardResult, pack: PolicyPack | None) -> None:
    from ..escape import log_line
    from ..redact import mask

    for label, paths in (("added", result.added), ("modified", result.modified), ("removed", result.removed),
                         ("derived", result.derived), ("other", result.other), ("allowed", result.allowed)):
        for p in paths:
            print(f"{label:9} {shown(p, pack)}")
    for f in result.findings:
        print(f"{log_line(mask(f.path, pack))}: {f.severity.value} [{f.code}] {shown(f.message, pack)}")
    print("guard: " + ("ok" if result.ok else "blocked"))
