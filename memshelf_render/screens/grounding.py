"""The quick form of the digest's grounding share (`rules.digest.grounding`), docs/reference.md §6.4.

The plain definition reads every content word of the body. Here the body's words are read in
pieces of growing size only until the "too few words" guard is passed (40 distinct content
words); each digest stem still wanted is then searched for in the body's text (`str.find`, some
40 times faster than reading words when the digest's words come late or never). Either way each
stem is matched once, and the work stops as soon as the digest is known to be grounded (the share
only grows). Its answer is used as it is, like a quick regular expression (not a screen whose
"maybe" hands over to the plain definition: an ungrounded digest, a finding, would then be
read twice), so `tests/screens/test_grounding.py` holds it to the plain definition: the same
None-ness, the same warn decision, the same share whenever it warns, whatever the search budget.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from itertools import filterfalse
from operator import itemgetter
from typing import TYPE_CHECKING

from . import switch
from .view import EpisodeView

if TYPE_CHECKING:
    from ..episode import Episode, Section

_WORD_RUN = re.compile(r"\w+")
_NON_WORD = re.compile(r"\W")
_FIRST_PIECE = 500
_STEM = itemgetter(slice(None, 5))  # a content word's 5-letter stem


def quick_share(view: EpisodeView, sec: Section, digest_words: set[str], word: re.Pattern[str],
                stop: frozenset[str], minimum: float,
                plain: Callable[[Episode, Section], float | None]) -> float | None:
    """`share`, or the plain definition `plain(episode, sec)` under `switch.maybe_only`."""
    if switch.MAYBE_ONLY:
        return plain(view.episode, sec)
    return share(view, sec, digest_words, word, stop, minimum)


def share(view: EpisodeView, sec: Section, digest_words: set[str], word: re.Pattern[str],
          stop: frozenset[str], minimum: float) -> float | None:
    """The share `rules.digest.grounding` gives, exactly when it is below `minimum`; else some
    share of at least `minimum` (the work stops there); None exactly when it gives None (`word`,
    `stop`: the rule's content word and stop words)."""
    if len(digest_words) < 8:
        return None
    wanted = Counter(map(_STEM, digest_words))  # stem -> digest words that have it
    enough = minimum * len(digest_words)
    low, spans = _body_spans(view, sec)
    matched = body_words = 0
    seen: set[str] = set()
    searched = False
    for piece in _pieces(low, spans):
        words = set(word.findall(piece))
        words -= seen
        if not words:
            continue
        seen |= words
        words -= stop
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
                found, judged = _search(low, spans, wanted, enough - matched, stop)
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


def _search(low: str, spans: list[tuple[int, int]], wanted: Counter[str], enough: float,
            stop: frozenset[str]) -> tuple[int, bool]:
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
                        len(word) == 4 if short else word not in stop and not word.isdigit()):
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


def _body_spans(view: EpisodeView, sec: Section) -> tuple[str, list[tuple[int, int]]]:
    """The lowercased body and the spans of it outside the Digest section, each from a line's
    start to a line's end (a slice of the episode's lowercased text when lowercasing kept every
    offset)."""
    ep = view.episode
    lines = ep.lines
    low = view.lower
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
