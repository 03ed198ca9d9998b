"""Secrets: the built-in credential shapes, the shelf's POLICY.patterns, and masking (SPEC §4).

A secret is never echoed. Anything the bot prints about a file passes through `mask`, which
replaces each match with `«redacted:<kind>»` (keeping the line count, so line numbers stay true).
Already-masked text is not a match, which makes masking idempotent.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field

_ENV_KEYWORDS = r"(?:TOKEN|SECRET|PASSWORD|PASSWD|PWD|API[_-]?KEY|ACCESS[_-]?KEY)"


def mask_of(kind: str) -> str:
    return f"«redacted:{kind}»"


def _whole(kind: str) -> Callable[[re.Match[str]], str]:
    return lambda m: mask_of(kind) + "\n" * m.group(0).count("\n")


def _env(m: re.Match[str]) -> str:
    return f"{m.group(1)}={mask_of('env-secret')}" + "\n" * m.group(0).count("\n")


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    regex: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]


BUILTIN: tuple[Rule, ...] = (
    Rule("aws-access-key", re.compile(r"\bAKIA[0-9A-Z]{16}\b"), _whole("aws-access-key")),
    Rule("sonar-token", re.compile(r"\bsqu_[0-9a-f]{40}\b"), _whole("sonar-token")),
    Rule("github-token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{36,255}\b"), _whole("github-token")),
    Rule("bearer", re.compile(r"\bBearer\s+[A-Za-z0-9._\-]{16,}", re.IGNORECASE), _whole("bearer")),
    Rule(
        "env-secret",
        re.compile(rf"\b([A-Za-z0-9_]*{_ENV_KEYWORDS}[A-Za-z0-9_]*)\s*=\s*(?!«redacted:)\S+", re.IGNORECASE),
        _env,
    ),
)

# Cheap pre-screen: text without any of these cannot match a built-in rule.
_SCREEN = re.compile(rf"AKIA|squ_|gh[pousr]_|bearer|{_ENV_KEYWORDS}[A-Za-z0-9_]*\s*=", re.IGNORECASE)


@dataclass(slots=True)
class PolicyPack:
    """POLICY.patterns: `<kind> <regex>` per line; bad lines are kept as (line, problem)."""

    rules: list[Rule] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)

    @classmethod
    def parse(cls, text: str | None) -> PolicyPack:
        pack = cls()
        if not text:
            return pack
        for number, raw in enumerate(text.split("\n"), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = line.split(None, 1)
            if len(parts) != 2:
                pack.problems.append((number, "expected '<kind> <regex>'"))
                continue
            kind, pattern = parts
            try:
                regex = re.compile(pattern)
            except (re.error, RecursionError, OverflowError) as exc:
                pack.problems.append((number, f"regex does not compile: {exc}"))
                continue
            pack.rules.append(Rule(kind, regex, _whole(kind)))
        return pack


@dataclass(frozen=True, slots=True)
class Hit:
    kind: str
    line: int
    policy: bool


def _line_index(text: str) -> list[int]:
    return [i for i, ch in enumerate(text) if ch == "\n"]


def scan(text: str, pack: PolicyPack | None = None) -> list[Hit]:
    """Every secret in `text`: built-ins applied in order (each sees the previous ones' masks),
    then each policy rule independently on the original text. Lines are 1-based."""
    hits: list[Hit] = []
    breaks: list[int] | None = None
    if _SCREEN.search(text):
        current = text
        for rule in BUILTIN:
            matches = list(rule.regex.finditer(current))
            if not matches:
                continue
            breaks = _line_index(current)
            hits.extend(Hit(rule.kind, bisect_right(breaks, m.start()) + 1, False) for m in matches)
            current = rule.regex.sub(rule.replace, current)
    if pack is not None and pack.rules:
        breaks = _line_index(text)
        for rule in pack.rules:
            hits.extend(Hit(rule.kind, bisect_right(breaks, m.start()) + 1, True) for m in rule.regex.finditer(text))
    return hits


def mask(text: str, pack: PolicyPack | None = None) -> str:
    """`text` with every built-in and policy match replaced by its mask (line count kept)."""
    if _SCREEN.search(text):
        for rule in BUILTIN:
            text = rule.regex.sub(rule.replace, text)
    if pack is not None:
        for rule in pack.rules:
            text = rule.regex.sub(rule.replace, text)
    return text
