"""Mechanical fixes, as GitHub ```suggestion blocks: the replacement for one line of an episode.

Only fixes with a single right answer are suggested, and they are the core's own (`fix`, which
`memshelf-bot fix` applies): the replacement a rule attached to its finding (`Finding.replacement`,
e.g. placeholders for missing required keys inserted before the closing `---`), and the line
fixes keyed by the finding's code and line — the id a renamed file needs, a scalar `tags` made a
list, a value YAML and the line readers misread quoted, a control character in a one-line field
flattened — and the masked version of a line that holds a secret. Every replacement passes
through the shelf's masker, so a suggestion can never carry a secret. Nothing here reads a
finding's message.
"""

from __future__ import annotations

from memshelf_render.episode import Episode
from memshelf_render.findings import Finding
from memshelf_render.fix import QUOTABLE, SECRET_CODES, line_fix
from memshelf_render.redact import PolicyPack, mask

from . import Suggestion

WHY = {"id-mismatch": "the id must be the file name, {stem}",
       "tags-invalid": "tags is a list: one item per tag",
       "control-character": "replace the control character with a space",
       **dict.fromkeys(QUOTABLE, "quote the value so YAML and the line readers both read it as text")}
SECRET_WHY = "drop the secret (and rotate it: git history keeps it)"


def _line(ep: Episode, number: int | None) -> str | None:
    if number is None or not 1 <= number <= len(ep.lines):
        return None
    return ep.lines[number - 1]


def _fixed(f: Finding, ep: Episode, pack: PolicyPack | None) -> Suggestion | None:
    """The suggestion for a finding fixed on its own line, if it has one."""
    raw = _line(ep, f.line)
    if raw is None or f.line is None:
        return None
    if f.code in SECRET_CODES:
        fixed, why = mask(raw, pack), SECRET_WHY
    elif f.code in WHY:
        fixed, why = line_fix(f, ep, raw), WHY[f.code].format(stem=ep.stem)
    else:
        return None
    if fixed is None or fixed == raw:
        return None
    return Suggestion(f.path, f.line, f.code, raw, fixed, why)


def _inserted(findings: list[Finding], ep: Episode) -> Suggestion | None:
    """The lines the rules would insert before one line (missing keys before the closing `---`),
    merged into one suggestion: each replacement is its inserted lines, then the line itself."""
    fixes = [f for f in findings if f.path == ep.path and f.replacement is not None]
    if not fixes:
        return None
    at = fixes[0].replacement.line  # type: ignore[union-attr]
    same = [f for f in fixes if f.replacement is not None and f.replacement.line == at]
    raw = _line(ep, at)
    if raw is None:
        return None
    added = [line for f in same if f.replacement is not None for line in f.replacement.text.split("\n")[:-1]]
    why = same[0].replacement.why if len(same) == 1 and same[0].replacement else (
        f"add the {len(same)} required keys; the values are placeholders, put in the real ones")
    return Suggestion(ep.path, at, same[0].code, raw, "\n".join([*added, raw]), why)


def suggest(findings: list[Finding], ep: Episode, pack: PolicyPack | None) -> list[Suggestion]:
    """One suggestion per fixable line of `ep`, in line order; every replacement masked."""
    found: dict[int, Suggestion] = {}
    inserted = _inserted(findings, ep)
    if inserted is not None:
        found[inserted.line] = inserted
    for f in findings:
        if f.path != ep.path or f.line is None or f.line in found or f.replacement is not None:
            continue
        s = _fixed(f, ep, pack)
        if s is not None:
            found[s.line] = s
    out = []
    for line in sorted(found):
        s = found[line]
        out.append(Suggestion(s.path, s.line, s.code, mask(s.original, pack), mask(s.replacement, pack), s.why))
    return out
