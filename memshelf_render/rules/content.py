"""Text that must not sit in an episode: conflict markers and instruction-shaped text.

Instruction-shaped text (prompt injection aimed at a future reader) is a warning in the body,
where it may be quoted data, and an error in display_title/description, which INDEX shows to
every future session. Fenced code blocks are data and are not scanned.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..casing import fold, holds_misses
from ..episode import Episode
from ..findings import Finding
from .context import Context
from .lines import LineTable
from .wordstart import at_word_start

_MARKER = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: |$)", re.MULTILINE)
_SEPARATOR = re.compile(r"^=======[ \t]*$", re.MULTILINE)

# (gate, pattern): the gate is a tuple of keyword groups; the pattern can only match when, for
# every group, one of its lowercase keywords occurs in the text. A later group's keywords are
# looked for only when the first group passes (`keywords_in`), so the first group is the cheapest:
# the `<` of `<|` (one character, a memchr), the `now` three patterns need before `you`/`from`.
# The gates read a text lowercased and, where it holds a letter IGNORECASE takes for another
# (`İ`, `ſ`: `casing`), folded too, so a gate passes wherever its pattern matches.
# A pattern whose first word starts with a rarer letter starts at it (`wordstart`: the leading
# `\b` after the first letter), since a gate that passes runs it over the whole text; with
# common first letters (`ignore|…|override`, `new|…|real`) the `\b` first is the faster.
_GATED: tuple[tuple[tuple[tuple[str, ...], ...], str], ...] = (
    ((("ignore", "disregard", "forget", "override", "bypass"),),
     r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+|of\s+)*"
     r"(?:previous|prior|above|earlier|preceding|existing|system|original)\s+"
     r"(?:instructions?|prompts?|rules|directions|guidelines|context|messages?)"),
    ((("now",), ("you",)), at_word_start(("you",)) + r"\s+(?:must|should|will)\s+now\b"),
    ((("now",), ("from",)), at_word_start(("from",)) + r"\s+now\s+on,?\s+(?:you|the\s+assistant|the\s+agent)\b"),
    ((("now",), ("you",)), at_word_start(("you",)) + r"\s+are\s+now\s+(?:a|an|the|in|my)\b"),
    ((("instructions",),), r"\b(?:new|updated|real)\s+(?:system\s+)?instructions\s*:"),
    ((("prompt",),), r"\b(?:reveal|print|show|repeat)\s+(?:your|the)\s+system\s+prompt\b"),
    ((("user",), ("tell", "inform", "alert")), at_word_start(("do",)) + r"\s+not\s+(?:tell|inform|alert)\s+the\s+user\b"),
    ((("<",),), r"</?\s*(?:system|assistant|user|tool|tool_call|tool_result|function_calls?|invoke|instructions?)\s*>"),
    ((("<",), ("<|",)), r"<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>"),
    ((("inst]", "<<"),), r"\[/?INST\]|<<\s*/?SYS\s*>>"),
    ((("игнор", "забуд", "отброс"),),
     r"(?:игнорируй|игнорируйте|забудь|забудьте|отбрось|отбросьте)\s+(?:все\s+)?"
     r"(?:предыдущие|прежние|прошлые|системные)\s+(?:инструкции|указания|правила)"),
    ((("теперь",),), at_word_start(("теперь",)) + r"\s+ты\s+(?:должен|должна|обязан)\b"),
)
_PATTERNS = tuple((tuple(frozenset(group) for group in gate), re.compile(rx, re.IGNORECASE)) for gate, rx in _GATED)
_FIRST = {k for gate, _ in _GATED for k in gate[0]}  # looked for in every text
# a first group's keyword -> the later groups' keywords of its gates, looked for only when it occurs
_UNLOCKS = {k: frozenset(x for g, _ in _GATED if k in g[0] for group in g[1:] for x in group) for k in _FIRST}
_UNLOCKS = {k: later for k, later in _UNLOCKS.items() if later}
_ASCII_FIRST = tuple(sorted(k for k in _FIRST if k.isascii()))
_OTHER_FIRST = tuple(sorted(k for k in _FIRST if not k.isascii()))


def keywords_in(lower: str) -> set[str]:
    """The gate keywords in `lower` that decide the gates: every keyword of a gate's first group,
    the later groups' only when the first group passed (substring checks; the non-ASCII keywords
    only when the text is not ASCII). A gate passes on this set exactly when it passes on all the
    keywords the text holds, for a few checks fewer."""
    present = {k for k in _ASCII_FIRST if k in lower}
    if not lower.isascii():
        present.update(k for k in _OTHER_FIRST if k in lower)
    for key in present & _UNLOCKS.keys():
        present.update(k for k in _UNLOCKS[key] if k in lower)
    return present


def find_instructions(text: str, gate_text: str | None = None) -> list[re.Match[str]]:
    """Instruction-shaped matches in `text`, in order. A pattern runs only when its keyword gate
    passes on `gate_text` (default: `text` lowercased; callers that ignore code blocks pass the
    lowercased prose, folded where `casing` says so), so clean text costs a few substring checks."""
    if gate_text is None:
        gate_text = fold(text.lower()) if holds_misses(text) else text.lower()
    present = keywords_in(gate_text)
    found: list[re.Match[str]] = []
    if not present:
        return found
    for gate, regex in _PATTERNS:
        if all(group & present for group in gate):
            found.extend(regex.finditer(text))
    found.sort(key=lambda m: m.start())
    return found


TITLE_FIELDS = ("display_title", "description")


def check(ep: Episode, ctx: Context) -> Iterator[Finding]:
    if not ep.readable:
        return
    line_of = LineTable(ep.lines).line_of
    yield from _conflict_markers(ep, line_of)
    yield from _instructions(ep, line_of)


def _conflict_markers(ep: Episode, line_of: Callable[[int], int]) -> Iterator[Finding]:
    text = ep.text
    if ("<<<<<<<" not in text and ">>>>>>>" not in text and "|||||||" not in text) or not _MARKER.search(text):
        return
    starts = sorted(m.start() for rx in (_MARKER, _SEPARATOR) for m in rx.finditer(text))
    for offset in starts:
        yield Finding("conflict-marker", ep.path, line_of(offset), f"git conflict marker '{text[offset:offset + 7]}'")


def _prose_lower(ep: Episode) -> str:
    """The lowercased prose (the text outside fenced code blocks), cut from the episode's
    lowercased text when lowercasing kept every offset (no second lowercasing)."""
    lower = ep.lower
    if not ep.code_blocks:
        return lower
    if len(lower) != len(ep.text):
        return ep.prose_lower
    lines = ep.lines
    pieces, at, offset = [], 0, 0
    for start, end in (*ep.code_blocks, (len(lines), len(lines))):
        code_at = offset + sum(map(len, lines[at:start])) + start - at  # where line `start` begins
        if start > at:
            pieces.append(lower[offset : code_at - 1])  # lines at..start-1, without the last newline
        offset = code_at + sum(map(len, lines[start:end])) + end - start
        at = end
    return "\n".join(pieces)


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
    prose = _prose_lower(ep)
    matches = find_instructions(ep.text, fold(prose) if ep.case_misses else prose)
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
