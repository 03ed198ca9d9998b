"""Secrets: the built-in credential shapes, the shelf's POLICY.patterns, and masking (docs/format.md §4).

A secret is never echoed. Anything the bot prints about a file passes through `mask`, which
replaces each match with `«redacted:<kind>»` (keeping the line count, so line numbers stay true).
Already-masked text is not a match, which makes masking idempotent.
"""

from __future__ import annotations

import re
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
    needle: str | None = None  # a literal every match contains: absent from the text, no match

    def finditer(self, text: str):
        if self.needle is not None and self.needle not in text:
            return iter(())
        return self.regex.finditer(text)


def required_literal(regex: re.Pattern[str]) -> str | None:
    """The longest run of literal characters that every match of `regex` must contain, taken
    from the top level of its parse (None when unsure: flags, no literal run)."""
    if regex.flags & (re.IGNORECASE | re.VERBOSE) or not isinstance(regex.pattern, str):
        return None
    try:
        from re import _parser  # type: ignore[attr-defined]

        items = list(_parser.parse(regex.pattern))
    except Exception:  # the pattern compiled, so this is only a parser-version difference
        return None
    best, run = "", []
    for op, arg in [*items, (None, None)]:
        if op is _parser.LITERAL:
            run.append(chr(arg))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best or None


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

_GH = re.compile(r"gh[pousr]_")
_ENV_HINTS = ("token", "secret", "passw", "pwd", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key")
_ENV_TAIL = re.compile(r"[a-z0-9_-]*\s*=")


def _env_assignment(lower: str) -> bool:
    """Some env-secret keyword, then identifier characters, then '=' (a superset of the rule)."""
    for hint in _ENV_HINTS:
        at = lower.find(hint)
        while at != -1:
            if _ENV_TAIL.match(lower, at + len(hint)):
                return True
            at = lower.find(hint, at + 1)
    return False


def _may_hold_secret(text: str, lower: str | None = None) -> bool:
    """Cheap pre-screen (literal checks, one case-sensitive regex on the lowercased text):
    text that fails it cannot match any built-in rule."""
    if "AKIA" in text or "squ_" in text or ("gh" in text and _GH.search(text)):
        return True
    lower = text.lower() if lower is None else lower
    return "bearer" in lower or ("=" in text and _env_assignment(lower))


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
            pack.rules.append(Rule(kind, regex, _whole(kind), required_literal(regex)))
        return pack


@dataclass(frozen=True, slots=True)
class Hit:
    kind: str
    line: int
    policy: bool


def scan(text: str, pack: PolicyPack | None = None, lower: str | None = None) -> list[Hit]:
    """Every secret in `text`: built-ins applied in order (each sees the previous ones' masks),
    then each policy rule independently on the original text. Lines are 1-based."""
    hits: list[Hit] = []
    if _may_hold_secret(text, lower):
        current = text
        for rule in BUILTIN:
            matches = list(rule.regex.finditer(current))
            if not matches:
                continue
            hits.extend(Hit(rule.kind, current.count("\n", 0, m.start()) + 1, False) for m in matches)
            current = rule.regex.sub(rule.replace, current)
    if pack is not None:
        for rule in pack.rules:
            hits.extend(Hit(rule.kind, text.count("\n", 0, m.start()) + 1, True) for m in rule.finditer(text))
    return hits


def mask(text: str, pack: PolicyPack | None = None) -> str:
    """`text` with every built-in and policy match replaced by its mask (line count kept)."""
    if _may_hold_secret(text):
        for rule in BUILTIN:
            text = rule.regex.sub(rule.replace, text)
    if pack is not None:
        for rule in pack.rules:
            if rule.needle is None or rule.needle in text:
                text = rule.regex.sub(rule.replace, text)
    return text
