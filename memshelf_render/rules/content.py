"""Text that must not sit in an episode: conflict markers and instruction-shaped text.

Instruction-shaped text (prompt injection aimed at a future reader) is a warning in the body,
where it may be quoted data, and an error in display_title/description, which INDEX shows to
every future session. Fenced code blocks are data and are not scanned.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator

from ..episode import Episode
from ..findings import Finding
from ..screens import keywords, markers
from ..screens.casing import screen_lower
from ..screens.view import of_episode
from ..screens.wordstart import quick
from .context import Context
from .lines import LineTable

# --- the definitions ------------------------------------------------------------------------------

MARKER = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: |$)", re.MULTILINE)
SEPARATOR = re.compile(r"^=======[ \t]*$", re.MULTILINE)

# Instruction-shaped text, case-insensitive, each pattern named (its screen, `screens.keywords`,
# is keyed by the name).
INSTRUCTIONS: dict[str, re.Pattern[str]] = {name: re.compile(rx, re.IGNORECASE) for name, rx in {
    "ignore-previous":
        r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*"
        r"(?:previous|prior|above|earlier|preceding|existing|system|original)\s+"
        r"(?:instructions?|prompts?|rules|directions|guidelines|context|messages?)",
    "you-must-now": r"\byou\s+(?:must|should|will)\s+now\b",
    "from-now-on": r"\bfrom\s+now\s+on,?\s+(?:you|the\s+assistant|the\s+agent)\b",
    "you-are-now": r"\byou\s+are\s+now\s+(?:a|an|the|in|my)\b",
    "new-instructions": r"\b(?:new|updated|real)\s+(?:system\s+)?instructions\s*:",
    "reveal-prompt": r"\b(?:reveal|print|show|repeat)\s+(?:your|the)\s+system\s+prompt\b",
    "do-not-tell": r"\bdo\s+not\s+(?:tell|inform|alert)\s+the\s+user\b",
    "role-tag": r"</?\s*(?:system|assistant|user|tool|tool_call|tool_result|function_calls?|invoke|instructions?)\s*>",
    "chat-token": r"<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>",
    "inst-tag": r"\[/?INST\]|<<\s*/?SYS\s*>>",
    "ignore-previous-ru":
        r"(?:игнорируй|игнорируйте|забудь|забудьте|отбрось|отбросьте)\s+(?:все\s+)?"
        r"(?:предыдущие|прежние|прошлые|системные)\s+(?:инструкции|указания|правила)",
    "you-must-ru": r"\bтеперь\s+ты\s+(?:должен|должна|обязан)\b",
}.items()}
TITLE_FIELDS = ("display_title", "description")


def conflict_markers(text: str) -> list[int]:
    """The offsets of the conflict-marker lines of `text` (the `=======` separators counted only
    when a `<<<<<<<`, `>>>>>>>` or `|||||||` line is there too)."""
    if not MARKER.search(text):
        return []
    return sorted(m.start() for rx in (MARKER, SEPARATOR) for m in rx.finditer(text))


def instructions(text: str, only: Collection[str] | None = None) -> list[re.Match[str]]:
    """Every match of the INSTRUCTIONS in `text`, ordered by where it starts. `only`, when given,
    is a screen's answer: the names of the patterns that may match (the others cannot)."""
    if only is not None and not only:
        return []
    names = INSTRUCTIONS if only is None else [name for name in INSTRUCTIONS if name in only]
    found = [m for name in names for m in quick(INSTRUCTIONS[name]).finditer(text)]
    found.sort(key=lambda m: m.start())
    return found


def check(ep: Episode, ctx: Context) -> Iterator[Finding]:
    if not ep.readable:
        return
    line_of = LineTable(ep.lines).line_of
    yield from _conflict_markers(ep, line_of)
    yield from _instructions(ep, line_of)


def _conflict_markers(ep: Episode, line_of: Callable[[int], int]) -> Iterator[Finding]:
    text = ep.text
    offsets = conflict_markers(text) if markers.may_hold_marker(text) else []
    for offset in offsets:
        yield Finding("conflict-marker", ep.path, line_of(offset), f"git conflict marker '{text[offset:offset + 7]}'")


def _instructions(ep: Episode, line_of: Callable[[int], int]) -> Iterator[Finding]:
    title_lines: set[int] = set()
    if ep.meta is not None:
        for key in TITLE_FIELDS:
            value = ep.meta.get(key)
            if isinstance(value, str) and (ms := find_instructions(value)):
                m = ms[0]
                line = ep.line_of(key)
                if line is not None:
                    title_lines.add(line)
                yield Finding("instruction-in-title", ep.path, line,
                              f"{key} holds instruction-shaped text: '{m.group(0)}'")
    matches = instructions(ep.text, keywords.may_match(of_episode(ep).prose))  # the gates read only prose
    if not matches:
        return
    in_code = {i + 1 for start, end in ep.code_blocks for i in range(start, end)}
    reported: set[int] = set()
    for m in matches:
        line = line_of(m.start())
        if line in in_code or line in title_lines or line in reported:
            continue
        reported.add(line)
        yield Finding("instruction-in-body", ep.path, line, f"instruction-shaped text: '{m.group(0)}'")


# --- the screened entry for one text (render's INDEX cells use it too) -------------------------


def find_instructions(text: str) -> list[re.Match[str]]:
    """`instructions(text)`, each pattern run only where its keyword gate says it may match."""
    return instructions(text, keywords.may_match(screen_lower(text)))
