"""The digest contract (docs/format.md §3): what every future session reads first must stand alone."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from ..episode import Episode, Section
from ..findings import Finding
from ..screens.grounding import quick_share
from ..screens.view import of_episode
from ..screens.wordstart import quick, quick_search
from .context import Context

# --- the definitions ------------------------------------------------------------------------------

MAX_WORDS = 120
# Each pattern reads the lowercased digest.
WE = re.compile(r"\b(we['’]re|we['’]ve|we['’]d|we|ours|our|us|мы|нам|нас|нашего|нашему|нашими|наших|нашем|нашею"
                r"|нашей|нашим|наша|наше|наши|нашу|наш)(?!\w)")
BARE = re.compile(r"(?:^|(?<=[.!?])\s+)(it|this|that|they|these|those|это|эти|они)\b")
CUE = re.compile(r"\b(?:decid|reject|chose|open|todo|verdict|реш|отклон|выбра|открыт|итог)")
CONTENT_WORD = re.compile(r"\w{4,}")
STOP = frozenset(
    "about after again also because been before both could each from have into just like many more "
    "most much only other over same should some such than that their them then there these they this "
    "those under very were what when where which while will with would your yours "
    "без был была были быть все для его если есть или как которая которые который над нее нет них "
    "она они оно под при про так того тот уже чем что чтобы эта эти это этом этот".split()
)
GROUNDING_MIN = 0.20


def content_words(text: str) -> set[str]:
    words = set(CONTENT_WORD.findall(text.lower())) - STOP
    return {w for w in words if not w.isdigit()}


def grounding(ep: Episode, sec: Section) -> float | None:
    """docs/reference.md §6.4: the share of the digest's content words whose 5-letter stem occurs
    among the body's content-word stems (the body: every line outside the Digest section); None
    when the digest has fewer than 8 content words or the body fewer than 40."""
    digest_words = content_words(ep.section_text(sec))
    body_words = content_words("\n".join(ep.lines[ep.body_start : sec.line - 1] + ep.lines[sec.end :]))
    if len(digest_words) < 8 or len(body_words) < 40:
        return None
    stems = {w[:5] for w in body_words}
    return sum(1 for w in digest_words if w[:5] in stems) / len(digest_words)


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
    found = sorted({m.group(1).replace("’", "'") for m in quick(WE).finditer(low)})
    if found:
        yield Finding("digest-referent-we", ep.path, _line_of(ep, sec, quick(WE).search),
                      f"first person plural in the digest: {', '.join(found)}")
    bare_search = quick_search(BARE)
    bare = bare_search(low)
    if bare:
        word = text[bare.start(1):bare.end(1)] if len(low) == len(text) else bare.group(1)
        yield Finding("digest-referent-bare", ep.path, _line_of(ep, sec, bare_search),
                      f"a sentence opens with a bare '{word}'")
    if not quick(CUE).search(low):
        yield Finding("digest-thin", ep.path, line, "no decided/rejected/chosen/open/todo/verdict cue in the digest")
    share = quick_share(of_episode(ep), sec, content_words(text), CONTENT_WORD, STOP, GROUNDING_MIN, grounding)
    if share is not None and share < GROUNDING_MIN:
        yield Finding("digest-ungrounded", ep.path, line,
                      f"only {round(share * 100)}% of the digest's content words occur in the body (minimum 20%)")


def _line_of(ep: Episode, sec: Section, search: Callable[[str], re.Match[str] | None]) -> int:
    for idx in range(sec.start, sec.end):
        if search(ep.lines[idx].lower()):
            return idx + 1
    return sec.line
