"""The digest contract (docs/format.md §3): what every future session reads first must stand alone."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from itertools import filterfalse
from operator import itemgetter

from ..episode import Episode
from ..findings import Finding
from .context import Context

MAX_WORDS = 120
# The patterns run on the lowercased digest (cheaper than IGNORECASE).
_WE = re.compile(
    r"(?<!\w)(we['’]re|we['’]ve|we['’]d|we|ours|our|us|мы|нам|нас|нашего|нашему|нашими|наших"
    r"|нашем|нашею|нашей|нашим|наша|наше|наши|нашу|наш)(?![\w])",
)
_BARE = re.compile(r"(?:^|(?<=[.!?])\s+)(it|this|that|they|these|those|это|эти|они)\b")
_CUE = re.compile(r"\b(?:decid|reject|chose|open|todo|verdict|реш|отклон|выбра|открыт|итог)")
_CONTENT_WORD = re.compile(r"\w{4,}")
_STOP = frozenset(
    "about after again also because been before both could each from have into just like many more "
    "most much only other over same should some such than that their them then there these they this "
    "those under very were what when where which while will with would your yours "
    "без был была были быть все для его если есть или как которая которые который над нее нет них "
    "она они оно под при про так того тот уже чем что чтобы эта эти это этом этот".split()
)
GROUNDING_MIN = 0.20
_FIRST_PIECE = 1000
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
    words = len(text.split())
    if words > MAX_WORDS:
        yield Finding("digest-too-long", ep.path, line, f"the digest has {words} words; the limit is {MAX_WORDS}")
    low = text.lower()
    found = sorted({m.group(1).replace("’", "'") for m in _WE.finditer(low)})
    if found:
        yield Finding("digest-referent-we", ep.path, _line_of(ep, sec, _WE),
                      f"first person plural in the digest: {', '.join(found)}")
    bare = _BARE.search(low)
    if bare:
        word = text[bare.start(1):bare.end(1)] if len(low) == len(text) else bare.group(1)
        yield Finding("digest-referent-bare", ep.path, _line_of(ep, sec, _BARE),
                      f"a sentence opens with a bare '{word}'")
    if not _CUE.search(low):
        yield Finding("digest-thin", ep.path, line, "no decided/rejected/chosen/open/todo/verdict cue in the digest")
    grounding = _grounding(ep, sec, text)
    if grounding is not None and grounding < GROUNDING_MIN:
        yield Finding("digest-ungrounded", ep.path, line,
                      f"only {round(grounding * 100)}% of the digest's content words occur in the body (minimum 20%)")


def _line_of(ep: Episode, sec, regex: re.Pattern[str]) -> int:
    for idx in range(sec.start, sec.end):
        if regex.search(ep.lines[idx].lower()):
            return idx + 1
    return sec.line


def _grounding(ep: Episode, sec, digest_text: str) -> float | None:
    """docs/reference.md §6.4: the share of the digest's content words whose 5-letter stem occurs among the
    body's content-word stems; None when too few words to judge.

    One pass over the body's words, in pieces of growing size: each distinct word is matched
    against the digest's stems once, and reading stops as soon as the digest is known to be
    grounded (the share only grows)."""
    digest_words = content_words(digest_text)
    if len(digest_words) < 8:
        return None
    wanted = Counter(w[:5] for w in digest_words)  # stem -> digest words that have it
    enough = GROUNDING_MIN * len(digest_words)
    matched = body_words = 0
    seen: set[str] = set()
    for piece in _body_pieces(ep, sec):
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
        if body_words >= 40 and matched >= enough:
            return matched / len(digest_words)
    if body_words < 40:
        return None
    return matched / len(digest_words)


def _body_pieces(ep: Episode, sec) -> Iterator[str]:
    """The lowercased body without the Digest section, in pieces cut at line ends that double in
    size from _FIRST_PIECE (slices of the episode's lowercased text when lowercasing kept every
    offset)."""
    lines = ep.lines
    low = ep.lower
    if len(low) == len(ep.text):
        head = sum(map(len, lines[: ep.body_start])) + ep.body_start
        digest_at = head + sum(map(len, lines[ep.body_start : sec.line - 1])) + sec.line - 1 - ep.body_start
        after = digest_at + sum(map(len, lines[sec.line - 1 : sec.end])) + sec.end - sec.line + 1
        spans = [(min(head, len(low)), min(digest_at, len(low))), (min(after, len(low)), len(low))]
    else:
        low = ("\n".join(lines[ep.body_start : sec.line - 1]) + "\n" + "\n".join(lines[sec.end :])).lower()
        spans = [(0, len(low))]
    size = _FIRST_PIECE
    for start, end in spans:
        while start < end:
            cut = low.find("\n", min(start + size, end))
            cut = end if cut == -1 or cut > end else cut
            yield low[start:cut]
            start = cut + 1
            size *= 2
