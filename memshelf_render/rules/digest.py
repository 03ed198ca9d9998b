"""The digest contract (docs/format.md §3): what every future session reads first must stand alone."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import filterfalse
from operator import itemgetter

from ..episode import Episode
from ..findings import Finding
from .context import Context
from .wordstart import at_word_start

MAX_WORDS = 120
# The patterns run on the lowercased digest (cheaper than IGNORECASE), each starting at a
# literal character (`wordstart`).
_WE_WORDS = ("we['’]re", "we['’]ve", "we['’]d", "we", "ours", "our", "us", "мы", "нам", "нас", "нашего", "нашему",
             "нашими", "наших", "нашем", "нашею", "нашей", "нашим", "наша", "наше", "наши", "нашу", "наш")
_WE = re.compile(f"({at_word_start(_WE_WORDS)})(?!\\w)")  # = (?<!\w)(we['’]re|…|наш)(?!\w)
_BARE_WORD = r"(it|this|that|they|these|those|это|эти|они)\b"
_BARE_FIRST = re.compile(_BARE_WORD)  # at the digest's start (`match`)...
_BARE_AFTER = re.compile(r"[.!?]\s+" + _BARE_WORD)  # ...or after a sentence's end
_CUE = re.compile(at_word_start(("decid", "reject", "chose", "open", "todo", "verdict", "реш", "отклон", "выбра",
                                  "открыт", "итог")))  # = \b(?:decid|…|итог)
_CONTENT_WORD = re.compile(r"\w{4,}")
_WORD_RUN = re.compile(r"\w+")
_NON_WORD = re.compile(r"\W")
_STOP = frozenset(
    "about after again also because been before both could each from have into just like many more "
    "most much only other over same should some such than that their them then there these they this "
    "those under very were what when where which while will with would your yours "
    "без был была были быть все для его если есть или как которая которые который над нее нет них "
    "она они оно под при про так того тот уже чем что чтобы эта эти это этом этот".split()
)
GROUNDING_MIN = 0.20
_FIRST_PIECE = 500
_STEM = itemgetter(slice(None, 5))  # a content word's 5-letter stem


def content_words(text: str) -> set[str]:
    words = set(_CONTENT_WORD.findall(text.lower())) - _STOP
    return {w for w in words if not w.isdigit()}


def check(ep: Episode, ctx: Context) -> Iterator[Finding]:
    if not ctx.memory:
        return
    sec = ep.section("digest")
    if sec is None:
        return
    text = ep.section_text(sec)
    line = sec.line
    if not text:
        yield Finding("digest-empty", ep.path, line, "the Digest section has no text")
        return
    words = len(text.split()) if len(text) > 2 * MAX_WORDS else 0  # a shorter text has at most MAX_WORDS
    if words > MAX_WORDS:
        yield Finding("digest-too-long", ep.path, line, f"the digest has {words} words; the limit is {MAX_WORDS}")
    low = text.lower()
    found = sorted({m.group(1).replace("’", "'") for m in _WE.finditer(low)})
    if found:
        yield Finding("digest-referent-we", ep.path, _line_of(ep, sec, _WE.search),
                      f"first person plural in the digest: {', '.join(found)}")
    bare = _bare(low)
    if bare:
        word = text[bare.start(1):bare.end(1)] if len(low) == len(text) else bare.group(1)
        yield Finding("digest-referent-bare", ep.path, _line_of(ep, sec, _bare),
                      f"a sentence opens with a bare '{word}'")
    if not _CUE.search(low):
        yield Finding("digest-thin", ep.path, line, "no decided/rejected/chosen/open/todo/verdict cue in the digest")
    grounding = _grounding(ep, sec, text)
    if grounding is not None and grounding < GROUNDING_MIN:
        yield Finding("digest-ungrounded", ep.path, line,
                      f"only {round(grounding * 100)}% of the digest's content words occur in the body (minimum 20%)")


def _bare(low: str) -> re.Match[str] | None:
    """The first sentence of `low` that opens with a bare pronoun: the definition's
    `(?:^|(?<=[.!?])\\s+)(it|…)\\b`, its group 1 at the same place."""
    return _BARE_FIRST.match(low) or _BARE_AFTER.search(low)


def _line_of(ep: Episode, sec, search: Callable[[str], re.Match[str] | None]) -> int:
    for idx in range(sec.start, sec.end):
        if search(ep.lines[idx].lower()):
            return idx + 1
    return sec.line


def _grounding(ep: Episode, sec, digest_text: str) -> float | None:
    """docs/reference.md §6.4: the share of the digest's content words whose 5-letter stem occurs among the
    body's content-word stems; None when too few words to judge.

    The body's words are read, in pieces of growing size, only until the "too few words" guard
    is passed (40 distinct content words); each stem still wanted is then searched for in the
    body's text (`str.find`, some 40 times faster than reading words when the digest's words come
    late or never). Either way each stem is matched once, and the work stops as soon as the
    digest is known to be grounded (the share only grows)."""
    digest_words = content_words(digest_text)
    if len(digest_words) < 8:
        return None
    wanted = Counter(map(_STEM, digest_words))  # stem -> digest words that have it
    enough = GROUNDING_MIN * len(digest_words)
    low, spans = _body_spans(ep, sec)
    matched = body_words = 0
    seen: set[str] = set()
    searched = False
    for piece in _pieces(low, spans):
        words = set(_CONTENT_WORD.findall(piece))
        words -= seen
        if not words:
            continue
        seen |= words
        words -= _STOP
        content = set(filterfalse(str.isdigit, words))
        body_words += len(content)
        if wanted:
            for stem in wanted.keys() & set(map(_STEM, content)):
                matched += wanted.pop(stem)
        if body_words >= 40:
            if matched >= enough:
                return matched / len(digest_words)
            if not searched:
                searched = True
                found, judged = _search(low, spans, wanted, enough - matched)
                matched += found
                if judged:
                    return matched / len(digest_words)
    if body_words < 40:
        return None
    return matched / len(digest_words)


# What one search may cost before reading the rest of the body's words is the cheaper way, in
# characters of `str.find` (~0.6 ns each against ~25 ns a character for `\w{4,}` findall): a
# budget per character of the body (about what reading its words costs, so a search that gives
# up at most doubles the work), and the charge for a hit that is no content word (~0.3 µs).
_SEARCH_BUDGET = 40
_MISS_CHARGE = 512


def _search(low: str, spans: list[tuple[int, int]], wanted: Counter[str], enough: float) -> tuple[int, bool]:
    """How many of the digest's words have a stem in `wanted` that starts a body content word in
    `low`'s spans (stopping once `enough` is reached; the stems found leave `wanted`), and whether
    every stem was judged: not when the budget ran out first."""
    budget = _SEARCH_BUDGET * sum(end - start for start, end in spans)
    matched = 0
    for stem in list(wanted):
        short = len(stem) < 5  # the stem of a 4-letter word: only that very word has it
        for start, end in spans:
            pos = start
            while (at := low.find(stem, pos, end)) != -1:
                budget -= at - pos + _MISS_CHARGE
                word = _WORD_RUN.match(low, at, end)[0]  # the stem is word characters
                before = low[at - 1] if at > start else " "
                if not (before.isalnum() or before == "_") and (
                        len(word) == 4 if short else word not in _STOP and not word.isdigit()):
                    break
                if budget < 0:
                    return matched, False
                pos = at + len(word)
            else:
                budget -= end - pos
                continue
            matched += wanted.pop(stem)
            if matched >= enough:
                return matched, True
            break
        if budget < 0:
            return matched, False
    return matched, True


def _body_spans(ep: Episode, sec) -> tuple[str, list[tuple[int, int]]]:
    """The lowercased body and the spans of it outside the Digest section, each from a line's
    start to a line's end (a slice of the episode's lowercased text when lowercasing kept every
    offset)."""
    lines = ep.lines
    low = ep.lower
    if len(low) == len(ep.text):
        head = sum(map(len, lines[: ep.body_start])) + ep.body_start
        digest_at = head + sum(map(len, lines[ep.body_start : sec.line - 1])) + sec.line - 1 - ep.body_start
        after = digest_at + sum(map(len, lines[sec.line - 1 : sec.end])) + sec.end - sec.line + 1
        return low, [(min(head, len(low)), min(digest_at, len(low))), (min(after, len(low)), len(low))]
    low = ("\n".join(lines[ep.body_start : sec.line - 1]) + "\n" + "\n".join(lines[sec.end :])).lower()
    return low, [(0, len(low))]


def _pieces(low: str, spans: list[tuple[int, int]]) -> Iterator[str]:
    """The spans of `low` in pieces that double in size from _FIRST_PIECE (a span's end does
    not count as a piece), each cut at a non-word character (so no word is split; a line can be
    long: a paragraph of prose)."""
    size = _FIRST_PIECE
    for start, end in spans:
        while start < end:
            cut = _NON_WORD.search(low, min(start + size, end), end)
            if cut is None:
                yield low[start:end]
                break
            yield low[start : cut.start()]
            start = cut.start() + 1
            size *= 2
