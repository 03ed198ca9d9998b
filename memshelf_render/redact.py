"""Secrets: the built-in credential shapes, the shelf's POLICY.patterns, and masking (docs/format.md §4).

A secret is never echoed. Anything the bot prints about a file passes through `mask`, which
replaces each match with `«redacted:<kind>»` (keeping the line count, so line numbers stay true).
Already-masked text is not a match, which makes masking idempotent.

Every built-in shape is linear in the text: each starts at a literal, and its runs are bounded or
end the match. POLICY.patterns are the shelf's own (hostile in a PR): a pattern whose
backtracking can blow up (`backtracking.py`: nested or overlapping repeats) is refused when the
pack is parsed, and the rest run one line at a time, long lines in windows, under a time budget
per text.
"""

from __future__ import annotations

import re
import string
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from .backtracking import backtracking_risk, top_level
from .casing import VOUCHED, lowered_forms, screen_lower
from .classcodes import class_run, codes

_ENV_KEYWORDS = r"(?:TOKEN|SECRET|PASSWORD|PASSWD|PWD|API[_-]?KEY|ACCESS[_-]?KEY)"
MASK_OPEN = "«redacted:"


def mask_of(kind: str) -> str:
    return f"{MASK_OPEN}{kind}»"


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
    needle: str | None = None  # a literal every match contains: absent from the text, no match
    screen: re.Pattern[str] | None = None  # searched over many lines at once: no match, none in any
    folded_needle: str | None = None  # the same for a case-insensitive literal, in `screen_lower(text)`
    shape: bytes | None = None  # class codes every match shows (`classcodes`): absent from the text's, no match


def required_literal(regex: re.Pattern[str]) -> str | None:
    """The longest run of literal characters that every match of `regex` must contain, taken
    from the top level of its parse (None when unsure: flags, no literal run)."""
    if regex.flags & (re.IGNORECASE | re.VERBOSE):
        return None
    items = top_level(regex)
    return None if items is None else _longest_literal(items)


def folded_literal(regex: re.Pattern[str]) -> str | None:
    """For a pattern matched case-insensitively as a whole (IGNORECASE, or one `(?i:...)` group
    around it all, as `(?i:project\\s+nightingale)`): its longest top-level literal run,
    lowercased, which every match shows in the text's `casing.screen_lower`. Only for runs of
    characters `casing` vouches for (None otherwise, and when unsure)."""
    if regex.flags & re.VERBOSE:
        return None
    items = top_level(regex)
    if items is None:
        return None
    if not regex.flags & re.IGNORECASE:
        from re import _parser  # type: ignore[attr-defined]

        if len(items) != 1 or items[0][0] is not _parser.SUBPATTERN:
            return None
        _, add_flags, del_flags, body = items[0][1]
        if not add_flags & re.IGNORECASE or del_flags:
            return None
        items = list(body)
    run = _longest_literal(items)
    if run is None or not set(run) <= VOUCHED:
        return None
    return run.lower()


def _longest_literal(items: list) -> str | None:
    from re import _parser  # type: ignore[attr-defined]

    best, run = "", []
    for op, arg in [*items, (None, None)]:
        if op is _parser.LITERAL:
            run.append(chr(arg))
            continue
        if len(run) > len(best):
            best = "".join(run)
        run = []
    return best or None


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
    """A built-in shape, with the literal every match of it holds as its needle."""
    return Rule(kind, regex, replace or _whole(kind), required_literal(regex))


# Applied in this order, each on the previous one's output (docs/reference.md §5 keeps the order
# of the five from aws-access-key to env-secret). A private key goes first, so its block is one
# mask rather than pieces of others; the later shapes come after the five. Each carries the
# literal every match of it holds (`required_literal`; none for the two IGNORECASE shapes), so a
# text that passed the pre-screen is searched only for the shapes whose literal it holds.
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

_ENV_HINTS = ("token", "secret", "passw", "pwd", "apikey", "api_key", "api-key", "accesskey", "access_key", "access-key")
# The screen's literals, each looked for as cheaply as `str` and `re` allow (a scan of the text for
# a literal of several letters costs ~1.5 ns a character; `re` skips to one literal character in
# C, `in` with a rare character is a memchr): the sonar and GitHub tokens at their `_`, slack's
# `xox` at its `x`, `bearer` at its `b`, and an env assignment from its `=`, backwards, in the
# reversed text (so the search starts at the one literal character every match holds). What a
# rule never matches is left out where it is cheap to tell: `bearer` not followed by white space
# (the rule's `\s+`), and an `=` right before a mask, `KEY=«redacted:env-secret»` (the rule's
# look-ahead), the way a shelf holds the secrets it had masked.
_UNDERSCORED = re.compile(r"_(?:(?<=squ_)|(?<=gh[pousr]_)|(?<=github_pat_))")
_XOX = re.compile(r"x(?=ox)")
_BEARER = re.compile(r"b(?=earer\s)")


def _reversed_lowered(word: str) -> str:
    """A pattern for `word` in the reversed lowercased text, wherever IGNORECASE matched it in the
    text: each letter as any of its lowered forms (`casing.lowered_forms`), these reversed too."""
    def letter(forms: tuple[str, ...]) -> str:
        return re.escape(forms[0]) if len(forms) == 1 else "(?:" + "|".join(re.escape(f[::-1]) for f in forms) + ")"

    return "".join(letter(lowered_forms(char)) for char in reversed(word))


# the env rule's identifier characters ([A-Za-z0-9_] under IGNORECASE) once lowercased, and `-`
_IDENTIFIER_LOWERED = "a-z0-9_\\-" + "".join(sorted({c for x in string.ascii_lowercase
                                                      for form in lowered_forms(x)[1:] for c in form}))
# `=`, then (looking back from after it, so the search still skips from one `=` to the next) no mask
_NOT_MASKED = "".join(rf"(?<!{re.escape((quote + MASK_OPEN.lower())[::-1])}=)" for quote in ("", '"', "'"))
_ENV_REVERSED = re.compile(rf"={_NOT_MASKED}\s*[{_IDENTIFIER_LOWERED}]*?(?:"
                           + "|".join(map(_reversed_lowered, _ENV_HINTS)) + ")")


def _env_assignment(lower: str) -> bool:
    """Some env-secret keyword, then identifier characters, then '=' with no mask right after it
    (a superset of the rule, whose IGNORECASE also takes `ſ` for `s` and `ı`/`İ` for `i`)."""
    return "=" in lower and _ENV_REVERSED.search(lower[::-1]) is not None


def _may_hold_secret(text: str, lower: str | None = None) -> bool:
    """Cheap pre-screen: text that fails it cannot match any built-in rule. It passes exactly the
    texts that hold `AKIA`, `squ_`, `PRIVATE KEY`, `github_pat_`, `xox`, `eyJ`, `gh[pousr]_`,
    `bearer` and white space in any case, or an env assignment's keyword (`_env_assignment`)."""
    if (("K" in text and ("AKIA" in text or "PRIVATE KEY" in text)) or ("J" in text and "eyJ" in text)
            or _UNDERSCORED.search(text) or _XOX.search(text)):
        return True
    lower = text.lower() if lower is None else lower
    return _BEARER.search(lower) is not None or _env_assignment(lower)


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
            pack.rules.append(Rule(kind, regex, _whole(kind), required_literal(regex), screen_of(regex),
                                   folded_literal(regex), class_run(regex)))
        return pack

    def matches(self, text: str, lower: str | None = None) -> Iterator[tuple[Rule, int, re.Match[str] | None]]:
        """(rule, 1-based line, match) for every policy match in `text`, line by line (a long line
        in overlapping windows, so one search call stays small). When the budget runs out, one
        (rule, line, None) names the line where checking stopped.

        A rule is skipped in a text without its needle, its lowercase needle or its class codes.
        Lines are searched in runs of up to WINDOW characters: one search over a run that finds
        nothing (a superset of the per-line search, `screen_of`) clears all its lines at once;
        a run with a hit, and every line of a rule that cannot be screened, is searched line by
        line as before."""
        deadline = time.monotonic() + self.budget_seconds
        runs: list[tuple[int, int, int]] | None = None
        text_codes: bytes | None = None
        for rule in self.rules:
            needle = rule.needle
            if needle is not None and needle not in text:
                continue
            if rule.folded_needle is not None:
                if lower is None:
                    lower = screen_lower(text)
                if rule.folded_needle not in lower:
                    continue
            if rule.shape is not None:
                if text_codes is None:
                    text_codes = codes(text)
                if rule.shape not in text_codes:
                    continue
            if runs is None:
                runs = _runs(text)
            for start, end, first in runs:
                if needle is not None and text.find(needle, start, end) == -1:
                    continue
                if rule.screen is not None and end - start <= WINDOW:
                    if time.monotonic() > deadline:
                        yield rule, first + _first_checked(text[start:end], needle), None
                        return
                    if rule.screen.search(text, start, end) is None:
                        continue
                for number, line in enumerate(text[start:end].split("\n"), start=first):
                    if needle is not None and needle not in line:
                        continue
                    for m, over in _line_matches(rule.regex, line, deadline):
                        if over:
                            yield rule, number, None
                            return
                        yield rule, number, m


def _runs(text: str) -> list[tuple[int, int, int]]:
    """`text` cut at line ends into runs of at most WINDOW characters (a longer line is a run of
    its own): (start offset, end offset, 1-based number of the run's first line)."""
    runs: list[tuple[int, int, int]] = []
    start, number, size = 0, 1, len(text)
    while size - start > WINDOW:
        cut = text.rfind("\n", start, start + WINDOW + 1)
        if cut == -1:  # a line longer than WINDOW
            cut = text.find("\n", start)
            if cut == -1:
                break
        runs.append((start, cut, number))
        number += text.count("\n", start, cut) + 1
        start = cut + 1
    runs.append((start, size, number))
    return runs


def _first_checked(run: str, needle: str | None) -> int:
    """How many lines into `run` the line-by-line search would have checked first."""
    for index, line in enumerate(run.split("\n")):
        if needle is None or needle in line:
            return index
    return 0


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


# `^`, `$` (MULTILINE once compiled for the screen), `\b`, `\B`; not `\A`, `\Z`
_LINE_EDGE_AT = frozenset({"AT_BEGINNING", "AT_END", "AT_BEGINNING_LINE", "AT_END_LINE", "AT_BOUNDARY",
                           "AT_NON_BOUNDARY"})


def screen_of(regex: re.Pattern[str]) -> re.Pattern[str] | None:
    """`regex` with MULTILINE, when a search of it over lines joined by newlines must find a match
    wherever the line-by-line search finds one (None when that is not sure).

    A match in a line is a path of the regex through that line alone; over the joined lines the
    same path still succeeds (the search backtracks until some path does) as long as nothing
    looks past its own characters differently at a line's edge: no look-around, no `\\A`/`\\Z`,
    nothing that keeps what it took (atomic groups, possessive repeats); `^`/`$` hold at every
    line edge once MULTILINE is set, and a newline counts as a non-word character for
    `\\b`/`\\B`, as the string's edge does.

    The screen may match more than that (it only clears text), so its start is made cheap to
    find: it starts at the pattern's first top-level literal when it has one (`-[0-9]{2}-…` for
    `\\b[0-9]{3}-[0-9]{2}-…`: every match holds a match of that rest, and `re` skips from one
    `-` to the next in C), unless a back-reference needs the part left out; else a leading `\\b`
    is left out, and a leading repeat of one character class, `[0-9]{3}`, is spelled
    `[0-9][0-9]{2}`, which lets `re` skip to the places where a match can start."""
    if not isinstance(regex.pattern, str):
        return None
    try:
        from re import _compiler, _parser  # type: ignore[attr-defined]

        tree = _parser.parse(regex.pattern, regex.flags | re.MULTILINE)
        screen = re.compile(regex.pattern, regex.flags | re.MULTILINE)
    except Exception:  # it compiled without MULTILINE; refuse to screen what cannot be analysed
        return None
    if not _line_local(_parser, list(tree)):
        return None
    try:
        head = _quick_start(_parser, list(tree))
        return _compiler.compile(_parser.SubPattern(tree.state, head), regex.flags | re.MULTILINE)
    except Exception:  # `re`'s private parse tree changed shape: the pattern itself screens
        return screen


def _quick_start(p, items: list) -> list:
    """The items from the first top-level literal on (when nothing refers back to a group); else
    without a leading `\\b`, a leading single-class repeat split in two."""
    first = next((i for i, (op, _) in enumerate(items) if op is p.LITERAL), 0)
    if first and not _refers_back(p, items):
        return items[first:]
    if items and items[0] == (p.AT, p.AT_BOUNDARY):
        items = items[1:]
    if items and items[0][0] in (p.MAX_REPEAT, p.MIN_REPEAT):
        low, high, body = items[0][1]
        if low >= 1 and len(body) == 1 and body[0][0] in (p.IN, p.LITERAL):
            rest = (low - 1, high if high == p.MAXREPEAT else high - 1, body)
            items = [body[0], (items[0][0], rest), *items[1:]]
    return items


def _refers_back(p, items: list) -> bool:
    """Whether a back-reference or a conditional on a group occurs at any depth."""
    for op, av in items:
        if op in (p.GROUPREF, p.GROUPREF_EXISTS):
            return True
        if op in (p.MAX_REPEAT, p.MIN_REPEAT) and _refers_back(p, list(av[2])):
            return True
        if op is p.SUBPATTERN and _refers_back(p, list(av[3])):
            return True
        if op is p.BRANCH and any(_refers_back(p, list(sub)) for sub in av[1]):
            return True
    return False


def _line_local(p, items: list) -> bool:
    """Only parse-tree items `screen_of` may screen, at any depth (unknown ones refuse)."""
    for op, av in items:
        if op in (p.LITERAL, p.NOT_LITERAL, p.IN, p.ANY, p.GROUPREF):
            continue
        if op is p.AT:
            if av.name not in _LINE_EDGE_AT:
                return False
            continue
        if op in (p.MAX_REPEAT, p.MIN_REPEAT):
            subs = [av[2]]
        elif op is p.SUBPATTERN:
            if av[2] & re.MULTILINE:  # `(?-m:...)`: its `^` and `$` would not see line edges
                return False
            subs = [av[3]]
        elif op is p.BRANCH:
            subs = list(av[1])
        elif op is p.GROUPREF_EXISTS:
            subs = [av[1], av[2]] if av[2] is not None else [av[1]]
        else:  # look-arounds, atomic groups, possessive repeats, anything newer
            return False
        if not all(_line_local(p, list(sub)) for sub in subs):
            return False
    return True


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
        for rule in BUILTIN:
            if rule.needle is not None and rule.needle not in text:  # no match: `sub` would change nothing
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


def scan(text: str, pack: PolicyPack | None = None, lower: str | None = None) -> list[Hit]:
    """Every secret in `text`: built-ins applied in order (each sees the previous ones' masks),
    then each policy rule independently on the original text, line by line. Lines are 1-based.
    `lower`, when given, is `casing.screen_lower(text)`."""
    hits: list[Hit] = []
    if _may_hold_secret(text, lower):
        _mask_builtins(text, hits)
    if pack is not None:
        for rule, line, m in pack.matches(text, lower):
            hits.append(Hit(rule.kind, line, True, over_budget=m is None))
    return hits


def mask(text: str, pack: PolicyPack | None = None) -> str:
    """`text` with every built-in and policy match replaced by its mask (line count kept). Lines a
    policy rule could not check within the budget are masked whole."""
    if _may_hold_secret(text):
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
