"""The job summary: one Markdown page per run with the verdict, a table per episode, the guard,
every finding, the annotations GitHub could not show, and what the bot did on GitHub.

Every value that came from the change is escaped (`markdown.text`/`code`), so a file name or a
message renders literally; the runner masks secrets and caps the page at 1 MiB.
"""

from __future__ import annotations

from collections import Counter

from memshelf_render.check import Outcome, repo_path
from memshelf_render.findings import Finding

from ..port import Wait
from . import Note, Suggestion
from . import markdown as md
from .workflow import ANNOTATIONS_PER_TYPE

VERDICT = {"valid": "✅ valid", "violations": "❌ violations", "config-error": "⚠️ config error"}
SEVERITY = {"error": "❌ error", "warning": "⚠️ warning", "info": "ℹ️ info"}


def plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def signed(n: int) -> str:
    return f"+{n:,}" if n > 0 else f"{n:,}" if n < 0 else "±0"


def headline(outcome: Outcome) -> str:
    c = outcome.counts
    return (f"**{VERDICT[outcome.verdict]}** — {plural(c['error'], 'error')}, {plural(c['warning'], 'warning')}"
            f" · {plural(outcome.checked, 'episode')} checked")


def episode_table(outcome: Outcome, prefix: str) -> list[str]:
    if not outcome.rows:
        return []
    lines = ["| Episode | Verdict | Errors | Warnings | Digest words | Standing-cost Δ (tokens) |",
             "|---|---|---:|---:|---:|---:|"]
    for row in outcome.rows:
        words = "—" if row.digest_words is None else f"{row.digest_words:,}"
        delta = "—" if row.standing_delta is None else signed(row.standing_delta)
        lines.append(f"| {md.code(repo_path(row.path, prefix), in_table=True)} ({row.status}) | "
                     f"{VERDICT[row.verdict]} | {row.errors} | {row.warnings} | {words} | {delta} |")
    return [*lines, ""]


def standing_line(outcome: Outcome) -> list[str]:
    s = outcome.standing
    if s is None:
        return []
    return [f"Standing cost (what every session pays to read INDEX and the digests): {s.base:,} → {s.head:,} "
            f"tokens ({signed(s.delta)}).", ""]


def guard_lines(outcome: Outcome, prefix: str) -> list[str]:
    g = outcome.guard
    if g is None:
        return []
    groups = (("added episodes", g.added), ("modified episodes", g.modified), ("removed episodes", g.removed),
              ("derived paths touched", g.derived), ("other paths", g.other), ("allowed paths", g.allowed))
    shown = [(label, paths) for label, paths in groups if paths]
    if not shown:
        return ["**Guard**: the change touches no file.", ""]
    lines = [f"**Guard**: {'✅ only episodes' if g.ok else '❌ blocked'}"]
    for label, paths in shown:
        listed = ", ".join(md.code(repo_path(p, prefix)) for p in paths[:50])
        more = f" and {len(paths) - 50:,} more" if len(paths) > 50 else ""
        lines.append(f"- {label}: {listed}{more}")
    return [*lines, ""]


def findings_table(findings: list[Finding], prefix: str) -> list[str]:
    if not findings:
        return []
    lines = ["### Findings", "", "| Severity | Where | Code | Message | Fix |", "|---|---|---|---|---|"]
    for f in findings:
        where = repo_path(f.path, prefix) + (f":{f.line}" if f.line else "") if f.path else "—"
        lines.append(f"| {SEVERITY[f.severity.value]} | {md.code(where, in_table=True)} | {md.code(f.code, in_table=True)}"
                     f" | {md.text(f.message)} | {md.text(f.rule.fix)} |")
    return [*lines, ""]


def cut_lines(cut: list[Note]) -> list[str]:
    """The annotations over GitHub's per-type limit: how many, and each one."""
    if not cut:
        return []
    counts = Counter(note.level.value for note in cut)
    parts = ", ".join(plural(n, level) for level, n in sorted(counts.items()))
    lines = [f"### Not shown as annotations ({parts})", "",
             f"GitHub shows {ANNOTATIONS_PER_TYPE} annotations of each type per step; these {len(cut):,} were cut "
             "from the annotations and are listed here:", ""]
    for note in cut:
        where = (note.path or "") + (f":{note.line}" if note.line else "")
        lines.append(f"- {note.level.value} {md.code(where or '(no file)')} {md.text(note.title)}: "
                     f"{md.text(note.message)}")
    return [*lines, ""]


def suggestion_lines(suggestions: list[Suggestion], prefix: str) -> list[str]:
    """The mechanical fixes, also here: a fork's PR gets no comment, so the summary carries them."""
    if not suggestions:
        return []
    lines = ["### Suggested changes", ""]
    for s in suggestions:
        lines += [f"{md.code(repo_path(s.path, prefix))} line {s.line} ({md.code(s.code)}): {md.text(s.why)}", "",
                  md.fenced(s.replacement, "suggestion"), ""]
    return lines


def waits_lines(waits: list[Wait]) -> list[str]:
    if not waits:
        return []
    total = sum(w.seconds for w in waits)
    listed = "; ".join(f"{md.text(w.what)} ({md.text(w.reason)}, {w.seconds:.1f} s)" for w in waits)
    return [f"GitHub asked the bot to wait or retry {plural(len(waits), 'time')} ({total:.1f} s in all): {listed}.",
            ""]


def check_page(title: str, outcome: Outcome, prefix: str, *, cut: list[Note], actions: list[str],
               waits: list[Wait], suggestions: list[Suggestion]) -> str:
    """The summary of a check (pull request or pushed branch)."""
    lines = [f"## memshelf-bot · {title}", "", headline(outcome), ""]
    lines += standing_line(outcome)
    lines += episode_table(outcome, prefix)
    lines += [f"❌ {md.text(note)}" for note in outcome.notes] + ([""] if outcome.notes else [])
    lines += guard_lines(outcome, prefix)
    lines += findings_table(outcome.report.findings, prefix)
    lines += suggestion_lines(suggestions, prefix)
    lines += cut_lines(cut)
    lines += [f"- {action}" for action in actions] + ([""] if actions else [])
    lines += waits_lines(waits)
    return "\n".join(lines)
