"""Secrets: the built-in credential shapes, the shelf's POLICY.patterns, and masking (docs/format.md §4).

A secret is never echoed. Anything the bot prints about a file passes through `mask`, which
replaces each match with `«redacted:<kind>»` (keeping the line count, so line numbers stay true).
Already-masked text is not a match, which makes masking idempotent.

Every built-in shape is linear in the text: each starts at a literal, and its runs are bounded or
end the match. POLICY.patterns are the shelf's own (hostile in a PR): a pattern whose
backtracking can blow up (`backtracking.py`: nested or overlapping repeats) is refused when the
pack is parsed, and the rest run one line at a time, long lines in windows, under a time budget
per text.

The shapes, the rules and how they are applied are the definitions; the screens that skip a shape
or a line where nothing can match (a literal, class codes, a search over many lines at once) are
in `screens/` (`screens.patterns`, `screens.secrets`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .backtracking import backtracking_risk
from .masks import MASK_OPEN, mask_of
from .screens.patterns import PatternScreen
from .screens.secrets import may_hold_secret
from .screens.view import Screened

_ENV_KEYWORDS = r"(?:TOKEN|SECRET|PASSWORD|PASSWD|PWD|API[_-]?KEY|ACCESS[_-]?KEY)"


def _whole(kind: str) -> Callable[[re.Match[str]], str]:
    return lambda m: mask_of(kind) + "\n" * m.group(0).count("\n")


def _env(m: re.Match[str]) -> str:
    return f"{m.group(1)}={mask_of('env-secret')}" + "\n" * m.group(0).count("\n")


def line_numbers(text: str, offsets: Iterable[int]) -> Iterator[int]:
    """The 1-based line of each offset (ascending) in one pass over `text`: counting newlines from
    offset 0 for every match would be quadratic in the number of matches."""
    line, at = 1, 0
    for offset in offsets:
        line += text.count("\n", at, offset)
        at = offset
        yield line


@dataclass(frozen=True, slots=True)
class Rule:
    kind: str
    regex: re.Pattern[str]
    replace: Callable[[re.Match[str]], str]


# A PEM private key, masked whole: the BEGIN line, the key material (base64, `Proc-Type:` style
# headers, real or JSON-escaped line breaks), the END line. A block without its END is masked as
# far as it still looks like key material. One character class each way keeps it linear.
_PEM_BODY = r"[A-Za-z0-9+/=:,\t \r\n\\-]"
_PRIVATE_KEY = re.compile(
    rf"-----BEGIN[A-Z0-9 ]{{0,40}}PRIVATE KEY-----(?:{_PEM_BODY}*?-----END[A-Z0-9 ]{{0,40}}PRIVATE KEY-----"
    rf"|{_PEM_BODY}*)"
)
# `KEY=value`, `KEY = "two words"`: an identifier holding a keyword, `=`, a value (a quoted one is
# masked whole). The look-ahead first checks, once per identifier and without backtracking, that
# an `=` follows it at all, which keeps a long identifier (or one long word) linear.
_ENV_SECRET = re.compile(
    rf"(?<![A-Za-z0-9_])(?=[A-Za-z0-9_]++\s*+=)([A-Za-z0-9_]*?{_ENV_KEYWORDS}[A-Za-z0-9_]*+)\s*=\s*"
    rf"(?![\"']?{MASK_OPEN})(?:\"[^\"\n]*\"|'[^'\n]*'|\S+)",
    re.IGNORECASE,
)


def _builtin(kind: str, regex: re.Pattern[str], replace: Callable[[re.Match[str]], str] | None = None) -> Rule:
    return Rule(kind, regex, replace or _whole(kind))


# Applied in this order, each on the previous one's output (docs/reference.md §5 keeps the order
# of the five from aws-access-key to env-secret). A private key goes first, so its block is one
# mask rather than pieces of others; the later shapes come after the five.
BUILTIN: tuple[Rule, ...] = (
    _builtin("private-key", _PRIVATE_KEY),
    _builtin("aws-access-key", re.compile(r"AKIA[0-9A-Z]{16}(?![0-9A-Za-z])")),
    _builtin("sonar-token", re.compile(r"squ_[0-9a-f]{40}(?![0-9A-Za-z])")),
    _builtin("github-token", re.compile(r"gh[pousr]_[A-Za-z0-9]{36,255}(?![A-Za-z0-9])")),
    _builtin("bearer", re.compile(r"\bBearer\s+[A-Za-z0-9._\-]{16,}", re.IGNORECASE)),
    _builtin("env-secret", _ENV_SECRET, _env),
    _builtin("github-token", re.compile(r"github_pat_[A-Za-z0-9_]{22,255}")),
    _builtin("slack-token", re.compile(r"xox[abposr]-(?=[A-Za-z-]{0,16}[0-9])[A-Za-z0-9-]{10,}")),
    _builtin("jwt", re.compile(r"eyJ(?<![A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),
)
BUILTIN_KINDS: tuple[str, ...] = tuple(dict.fromkeys(rule.kind for rule in BUILTIN))

_BUILTIN_SCREENS = tuple(PatternScreen.literal(rule.regex) for rule in BUILTIN)  # the literal each shape holds


# --- POLICY.patterns ------------------------------------------------------------------------

POLICY_BUDGET_SECONDS = 2.0  # per text scanned or masked, all policy rules together
WINDOW = 4096  # a policy rule searches a long line this many characters at a time...
WINDOW_OVERLAP = 512  # ...with this much overlap, so no match up to this length is missed


@dataclass(slots=True)
class PolicyPack:
    """POLICY.patterns: `<kind> <regex>` per line; bad lines are kept as (line, problem).

    Its rules match within one line of text (never across a line break)."""

    rules: list[Rule] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)
    budget_seconds: float = field(default_factory=lambda: POLICY_BUDGET_SECONDS)
    screens: list[PatternScreen] = field(default_factory=list)  # one per rule: where it cannot match

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
            risk = backtracking_risk(regex)
            if risk is not None:
                pack.problems.append((number, f"regex refused, it could take exponential time: {risk}"))
                continue
            pack.rules.append(Rule(kind, regex, _whole(kind)))
            pack.screens.append(PatternScreen.line_rule(regex))
        return pack

    def matches(self, text: str, screened: Screened | None = None) -> Iterator[tuple[Rule, int, re.Match[str] | None]]:
        """(rule, 1-based line, match) for every policy match in `text`: each rule searched line by
        line, a long line in overlapping windows (so one search call stays small). When the budget
        runs out, one (rule, line, None) names the line where checking stopped.

        The rule's screen (`screens.patterns`) names the lines the search reads: it leaves out
        only lines where the rule cannot match."""
        deadline = time.monotonic() + self.budget_seconds
        view = Screened(text) if screened is None else screened
        for rule, screen in zip(self.rules, self.screens, strict=True):
            if screen.rules_out(view):
                continue
            for number, line in screen.lines(view, deadline):
                for m, over in _line_matches(rule.regex, line, deadline):
                    if over:
                        yield rule, number, None
                        return
                    yield rule, number, m


def _line_matches(regex: re.Pattern[str], line: str, deadline: float) -> Iterator[tuple[re.Match[str] | None, bool]]:
    """The non-empty matches in one line, searched in windows of WINDOW characters that overlap
    by WINDOW_OVERLAP; (None, True) when the deadline passed first."""
    covered = 0
    for start in range(0, max(len(line) - WINDOW_OVERLAP, 1), WINDOW - WINDOW_OVERLAP):
        if time.monotonic() > deadline:
            yield None, True
            return
        for m in regex.finditer(line, start, start + WINDOW):
            if m.end() > m.start() and m.start() >= covered:  # empty matches name nothing
                covered = m.end()
                yield m, False


# --- scanning and masking -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Hit:
    kind: str
    line: int
    policy: bool
    over_budget: bool = False  # the policy budget ran out here: the rest of the text is unchecked


_MAX_PASSES = 4  # a mask can complete an earlier shape's boundary (`squ_…` + `xoxb-…`): pass again


def _mask_builtins(text: str, hits: list[Hit] | None = None) -> str:
    """The built-ins applied in order, each on the previous one's output, and the whole sequence
    again while it still changes something, so the result holds no built-in match (idempotence).
    With `hits`, each match is recorded with its line."""
    for _ in range(_MAX_PASSES):
        before = text
        for rule, screen in zip(BUILTIN, _BUILTIN_SCREENS, strict=True):
            if screen.absent(text):  # no match: `sub` would change nothing
                continue
            if hits is None:
                text = rule.regex.sub(rule.replace, text)
                continue
            starts: list[int] = []

            def replace(m: re.Match[str], rule: Rule = rule, starts: list[int] = starts) -> str:
                starts.append(m.start())
                return rule.replace(m)

            masked = rule.regex.sub(replace, text)
            hits.extend(Hit(rule.kind, line, False) for line in line_numbers(text, starts))
            text = masked
        if text == before:
            break
    return text


def scan(text: str, pack: PolicyPack | None = None, screened: Screened | None = None) -> list[Hit]:
    """Every secret in `text`: built-ins applied in order (each sees the previous ones' masks),
    then each policy rule independently on the original text, line by line. Lines are 1-based.
    `screened`, when given, is the screens' view of `text` (shared with other checks)."""
    hits: list[Hit] = []
    view = Screened(text) if screened is None else screened
    if may_hold_secret(view):
        _mask_builtins(text, hits)
    if pack is not None:
        for rule, line, m in pack.matches(text, view):
            hits.append(Hit(rule.kind, line, True, over_budget=m is None))
    return hits


def mask(text: str, pack: PolicyPack | None = None) -> str:
    """`text` with every built-in and policy match replaced by its mask (line count kept). Lines a
    policy rule could not check within the budget are masked whole."""
    if may_hold_secret(Screened(text)):
        text = _mask_builtins(text)
    if pack is None or not pack.rules:
        return text
    lines = text.split("\n")
    spans: dict[int, list[tuple[int, int, str]]] = {}
    for rule, line, m in pack.matches(text):
        if m is None:
            for number in range(line, len(lines) + 1):
                spans[number] = [(0, len(lines[number - 1]), mask_of(rule.kind))]
            break
        spans.setdefault(line, []).append((m.start(), m.end(), mask_of(rule.kind)))
    for number, found in spans.items():
        lines[number - 1] = _apply(lines[number - 1], found)
    return "\n".join(lines)


def _apply(line: str, spans: list[tuple[int, int, str]]) -> str:
    """`line` with each (start, end) span replaced; a span overlapping an earlier one joins it."""
    out, at = [], 0
    for start, end, masked in sorted(spans):
        if start < at:
            at = max(at, end)
            continue
        out += [line[at:start], masked]
        at = end
    return "".join(out) + line[at:]
