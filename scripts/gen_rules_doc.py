#!/usr/bin/env python3
"""Write `docs/rules.md`, the rule catalog as a document, from `memshelf_render/catalog.py`.

The catalog is the one source of every check's code, severity, scope, fix and shelf-spec rule;
this page is generated from it so the two cannot drift (tests/unit/test_docs.py fails when the
committed page differs from a fresh rendering). Run it after adding or changing a catalog code.

Usage: python scripts/gen_rules_doc.py [--out FILE]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from memshelf_render.catalog import RULES, Rule  # noqa: E402

DEFAULT_OUT = ROOT / "docs" / "rules.md"
COMMAND = "python scripts/gen_rules_doc.py"

# What each scope means for the user, in the order the page lists them.
SCOPES = {
    "config": "Configuration errors: `shelf.yml` or `.memshelf-bot.yml` cannot be used. They stop "
              "everything else and make the exit code 2.",
    "shelf": "The shelf as a whole: its layout, its configuration files, ids across files. Reported "
             "on pull requests and on main.",
    "episode": "One episode file: its bytes, frontmatter, sections, digest and text (docs/format.md "
               "§2, §3, §4). Reported on pull requests and on main.",
    "derived": "The derived files judged against the episodes on a rendered main (docs/format.md §7). "
               "Left out on pull requests (`--changed`), where the derived files lag by design.",
    "guard": "The change a pull request makes (docs/format.md §8), from its diff.",
}


def _value(x: object) -> str:
    """An enum member's value, or the plain string itself."""
    return str(getattr(x, "value", x))


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell: no HTML, no column breaks."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def _row(rule: Rule) -> str:
    spec = f"`{rule.spec_rule}`" if rule.spec_rule else "—"
    return f"| `{rule.code}` | {_value(rule.severity)} | {_cell(rule.summary)} | {_cell(rule.fix)} | {spec} |"


def render(rules: dict[str, Rule] = RULES) -> str:
    """The whole page, deterministic: scopes in SCOPES order, codes in catalog order."""
    by_scope: dict[str, list[Rule]] = {}
    for rule in rules.values():
        by_scope.setdefault(_value(rule.scope), []).append(rule)
    unknown = sorted(set(by_scope) - set(SCOPES))
    if unknown:
        raise ValueError(f"scope(s) {', '.join(unknown)} have no description in scripts/gen_rules_doc.py SCOPES")
    lines = [
        "# The rule catalog",
        "",
        f"<!-- Generated from memshelf_render/catalog.py by `{COMMAND}`; do not edit by hand. -->",
        "",
        f"Every finding memshelf-bot reports has one of these {len(rules)} codes. A code's severity "
        "belongs to the code, so every front end (the CLI, the Action, the App) reports it the same "
        "way; where the reference tools disagree on a severity, the stricter one is taken. The last "
        "column names the `shelf-spec validate` rule a code corresponds to, which is also the "
        "`spec_rule` of a finding in `validate --format json`. `memshelf-bot validate --list-rules` "
        "prints the same catalog.",
        "",
        "An `error` fails validation (exit 1), a `warning` only with `--strict`, an `info` never.",
    ]
    for scope, description in SCOPES.items():
        if scope not in by_scope:
            continue
        lines += [
            "",
            f"## `{scope}`",
            "",
            description,
            "",
            "| code | severity | what it means | fix | shelf-spec rule |",
            "|---|---|---|---|---|",
            *(_row(rule) for rule in by_scope[scope]),
        ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where to write (default: docs/rules.md)")
    args = parser.parse_args(argv)
    args.out.write_text(render(), encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
