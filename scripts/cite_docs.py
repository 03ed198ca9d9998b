#!/usr/bin/env python3
"""Point the code's section citations at the repository's own documents.

Comments and docstrings used to cite "SPEC §N" and "REFERENCE-BEHAVIOR §N.M", two documents that
live outside the repository. Their content is now `docs/format.md` and `docs/reference.md`, with
the same section numbers, so the rewrite is mechanical: in the comments and string literals of
every .py file, `SPEC §` → `docs/format.md §` and every `REFERENCE-BEHAVIOR` (with or without a
directory or `.md`) → `docs/reference.md`. Code is never touched, and a second run changes nothing,
so it is safe to run again after merging branches written before the rewrite.
tests/unit/test_docs.py checks the result: every citation must name a heading that exists.

Usage: python scripts/cite_docs.py [--check] [PATH ...]   (default: the whole repository)
"""

from __future__ import annotations

import argparse
import io
import os
import re
import sys
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SKIP_DIRS = {"__pycache__", "build", "dist", "node_modules"}
FORMAT_DOC = "docs/format.md"
REFERENCE_DOC = "docs/reference.md"
_SECTION = "\N{SECTION SIGN}"
_SPEC = re.compile(rf"\bSPEC(?:\.md)?(?=\s*{_SECTION})|\bSPEC\.md\b")
_REFERENCE = re.compile(r"(?:[\w.-]+/)*REFERENCE-BEHAVIOR(?:\.md)?")


def rewrite_text(text: str) -> str:
    """One comment's or literal's text with the old document names replaced."""
    return _REFERENCE.sub(REFERENCE_DOC, _SPEC.sub(FORMAT_DOC, text))


def rewrite_source(source: str) -> str:
    """`source` with the citations in its comments and string literals rewritten."""
    line_starts = [0]
    for line in io.StringIO(source, newline="").readlines():  # the lines tokenize counts
        line_starts.append(line_starts[-1] + len(line))
    edits = []
    text_tokens = {tokenize.COMMENT, tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)}
    for tok in tokenize.generate_tokens(io.StringIO(source, newline="").readline):
        if tok.type not in text_tokens:
            continue
        new = rewrite_text(tok.string)
        if new != tok.string:
            start = line_starts[tok.start[0] - 1] + tok.start[1]
            end = line_starts[tok.end[0] - 1] + tok.end[1]
            edits.append((start, end, new))
    for start, end, new in reversed(edits):
        source = source[:start] + new + source[end:]
    return source


def python_files(paths: list[Path]) -> list[Path]:
    """The .py files under `paths`, hidden and build directories (`.venv`, `.git`, …) not entered."""
    found = []
    for base in paths:
        if base.is_file():
            found.append(base)
            continue
        for folder, dirs, files in os.walk(base):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in SKIP_DIRS]
            found += [Path(folder, f) for f in files if f.endswith(".py")]
    return sorted(found)


def rewrite_targets(paths: list[Path]) -> list[Path]:
    """The files the rewrite applies to: every .py file but this script, whose patterns spell the
    old names."""
    me = Path(__file__).resolve()
    return [p for p in python_files(paths) if p.resolve() != me]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    parser.add_argument("paths", nargs="*", type=Path, help="files or directories (default: the repository)")
    args = parser.parse_args(argv)
    changed = []
    for path in rewrite_targets(args.paths or [ROOT]):
        source = path.read_bytes().decode("utf-8")
        new = rewrite_source(source)
        if new != source:
            changed.append(path)
            if not args.check:
                path.write_bytes(new.encode("utf-8"))
    verb = "would rewrite" if args.check else "rewrote"
    for path in changed:
        shown = path.resolve().relative_to(ROOT) if path.resolve().is_relative_to(ROOT) else path
        print(f"{verb} {shown}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())
