"""Human-readable output for a terminal: every shelf-supplied text with its controls made visible
(`escape.terminal`), so a file name or value can never move the cursor or retitle the window."""

from __future__ import annotations

from typing import TextIO

from ..catalog import RULES
from ..escape import log_line, terminal


def write(report, out: TextIO) -> None:
    for f in report.findings:
        where = terminal(f.path) + (f":{f.line}" if f.line else "")
        # defused as a whole line: a path of ":" becomes "::" only with the separator after it
        out.write(log_line(f"{where}: {f.severity.value} [{f.code}] ") + terminal(f.message) + "\n")
        out.write(f"    fix: {f.rule.fix}\n")
    c = report.counts
    out.write(
        f"verdict: {report.verdict} — {c['error']} error(s), {c['warning']} warning(s), {c['info']} info"
        f" ({report.episodes} episode(s) checked)\n"
    )


def write_rules(out: TextIO) -> None:
    width = max(len(code) for code in RULES)
    for rule in RULES.values():
        spec = f"  [shelf-spec: {rule.spec_rule}]" if rule.spec_rule else ""
        out.write(f"{rule.code:<{width}}  {rule.severity.value:<7}  {rule.scope:<7}  {rule.summary}{spec}\n")
        out.write(f"{'':<{width}}  fix: {rule.fix}\n")
