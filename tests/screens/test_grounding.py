"""The quick grounding share (`screens.grounding`) against the plain definition
`rules.digest.grounding`: the same None-ness, the same warn decision, and the same share whenever
it warns, whatever the search budget."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memshelf_render.episode import parse
from memshelf_render.rules import digest
from memshelf_render.screens import grounding, switch
from memshelf_render.screens.view import of_episode

# grounding draws bodies of 60-200 words: hypothesis spends ~0.1 s generating each one
GROUNDING = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
HEAD = "---\nid: x\nkind: topic\nspan: 2026-01-01\ntags: []\napprox_tokens: 1\n---\n"


def _episode(text: str):
    return parse(text.encode("utf-8"), "docs/topics/x.md", category="topics")


# --- grounding ------------------------------------------------------------------------------------

_STEMS = ["cache", "queue", "route", "kafka", "delta", "класт", "деплo", "İstan", "décis", "shard", "about",
          "ab12", "1234", "nats", "this", "tt", "vault", "proxy", "ingre", "metri", "sampl", "логир"]
_VOCAB = [stem + end for stem in _STEMS for end in ("", "s", "ing", "ed", "ами", "1", "x")]
_ONLY_IN_DIGESTS = [f"{stem}{end}" for stem in ("zebra", "yacht", "ксило", "quart", "nimbu") for end in ("", "er", "ов")]
_sep = st.sampled_from([" ", " ", ", ", ". ", "\n", "-", "  ", "\t", "'", "(", ")"])


def _prose(vocab: list[str], min_size: int, max_size: int) -> st.SearchStrategy[str]:
    pairs = st.tuples(st.sampled_from(vocab), _sep)
    return st.lists(pairs, min_size=min_size, max_size=max_size).map(lambda ws: "".join(w + s for w, s in ws))


def _plain_grounding(ep) -> float | None:
    return digest.grounding(ep, ep.section("digest"))


def _screened(ep, sec) -> float | None:
    """The screen's share (`screens.grounding.share`), as the digest rule asks it."""
    return grounding.share(of_episode(ep), sec, digest.content_words(ep.section_text(sec)), digest.CONTENT_WORD,
                           digest.STOP, digest.GROUNDING_MIN)


_DIGESTS = st.one_of(_prose(_VOCAB + _ONLY_IN_DIGESTS * 3, 10, 40), _prose(_ONLY_IN_DIGESTS + _VOCAB[:3], 10, 40))


@GROUNDING
@given(_prose(_VOCAB, 0, 30), _DIGESTS, _prose(_VOCAB, 60, 200), st.booleans())
def test_grounding_equals_the_plain_definition(before, digest_text, after, fence):
    """Same None-ness and the same warn decision; the same value whenever it warns."""
    fenced = "\n```\n" + after[: len(after) // 2] + "\n```\n" if fence else ""
    ep = _episode(HEAD + before + "\n## Digest\n" + digest_text + "\n## Decisions\n" + fenced + after + "\n")
    sec = ep.section("digest")
    expected = _plain_grounding(ep)
    got = _screened(ep, sec)
    assert (got is None) == (expected is None)
    if expected is not None:
        assert (got < digest.GROUNDING_MIN) == (expected < digest.GROUNDING_MIN)
        if expected < digest.GROUNDING_MIN:
            assert got == expected


# Words that tempt a search for a digest's stem to count what the plain definition does not: a stem
# inside a longer word (`xcache`, `ткэша`), joined by an underscore (`cache_x`), a stop word or a
# number of the stem (`about`, `12345`), a 4-letter word and its longer kin (`nats`, `natsx`),
# Cyrillic; the separators glue words with `_` and digits too.
_EDGY = ["xcache", "cache_", "_cache", "cache_queue", "abouts", "about", "their", "theirs", "12345", "123456",
         "12345x", "x12345x", "nats", "natsx", "xnats", "nats_", "kafka", "kafk", "кэша", "ткэша", "кэш",
         "кэшировать", "этот", "этому", "shard9", "9shard", "ab12", "ab12x", "tt", "vault"]
_edgy_sep = st.sampled_from([" ", " ", "\n", ", ", "_", "7", "-", "(", "\n\n"])
_FILLER = [f"fill{i:03d}er" for i in range(80)]


def _edgy_prose(vocab: list[str], min_size: int, max_size: int) -> st.SearchStrategy[str]:
    pairs = st.tuples(st.sampled_from(vocab), _edgy_sep)
    return st.lists(pairs, min_size=min_size, max_size=max_size).map(lambda ws: "".join(w + s for w, s in ws))


@GROUNDING
@given(_edgy_prose(_EDGY + _VOCAB, 0, 20), _edgy_prose(_EDGY + _ONLY_IN_DIGESTS, 16, 40),
       st.integers(30, 80), _edgy_prose(_EDGY + _VOCAB, 0, 200), st.sampled_from([0, 1, 40, 10**9, 10**9]),
       st.booleans(), st.booleans())
def test_grounding_by_search_equals_the_plain_definition(before, digest_text, fill, after, budget, unicode_case,
                                                         edges):
    """The stems searched for in the body's text (after the first 40 distinct content words, which
    `fill` puts anywhere from near the body.s start to past its end), with any search budget (0: every
    search gives up and the words are read instead), give the plain definition's answer. The
    digest's own words only in the Digest ground nothing; `edges` puts digest words at the very
    edges of the body's spans (the lines next to the Digest section and the file's last line)."""
    filler = " ".join(_FILLER[:fill])
    tail = after + ("\nİSTANBUL" if unicode_case else "")
    near = digest_text.split()[:2] if edges else []
    first, last = (near[0], near[-1]) if near else ("", "")
    text = (HEAD + before + "\n" + first + "\n## Digest\n" + digest_text + "\n## Decisions\n" + last + " "
            + filler + "\n" + tail + "\n" + first)
    ep = _episode(text)
    sec = ep.section("digest")
    saved = grounding._SEARCH_BUDGET
    grounding._SEARCH_BUDGET = budget
    try:
        got = _screened(ep, sec)
    finally:
        grounding._SEARCH_BUDGET = saved
    expected = _plain_grounding(ep)
    assert (got is None) == (expected is None)
    if expected is not None:
        assert (got < digest.GROUNDING_MIN) == (expected < digest.GROUNDING_MIN)
        if expected < digest.GROUNDING_MIN:
            assert got == expected


def test_grounding_searches_and_gives_up_searching():
    """Not vacuous: the search decides a late-grounded digest, and a budget of 0 hands an
    ungrounded one back to reading words, with the same answers."""
    digest_text = "Decided: alpha bravo charlie delta echoes foxtrot golfer hotel indigo juliet."
    body = " ".join(_FILLER) + " xalpha x_alpha 12alpha " + " ".join(_FILLER[:5])
    for late, share in (("", 0.0), (" bravo hotels", 2 / 11)):
        ep = _episode(HEAD + "## Digest\n" + digest_text + "\n## Decisions\n" + body + late + "\n")
        sec = ep.section("digest")
        for budget in (10**9, 0):
            saved, grounding._SEARCH_BUDGET = grounding._SEARCH_BUDGET, budget
            try:
                assert _screened(ep, sec) == _plain_grounding(ep) == share
            finally:
                grounding._SEARCH_BUDGET = saved


def test_grounding_is_judged_on_a_body_of_many_words():
    """Not vacuous: a body with 40+ distinct content words gets a value, grounded or not."""
    body = " ".join(f"word{i:03d}x" for i in range(60))
    digest_text = "Decided: alpha bravo charlie delta echoes foxtrot golfer hotel indigo."
    ep = _episode(HEAD + "## Digest\n" + digest_text + "\n## Decisions\n" + body + "\n")
    sec = ep.section("digest")
    assert _screened(ep, sec) == 0.0
    ep = _episode(HEAD + "## Digest\n" + digest_text + "\n## Decisions\n" + body + " " + digest_text.lower() + "\n")
    assert _screened(ep, sec) >= digest.GROUNDING_MIN


def test_a_stop_word_or_a_number_grounds_no_digest_word_of_its_stem():
    """`about`, `their`, `other` are stop words and `123456` a number: no content word of the
    body, so the digest's `abouts`, `theirs`, `otherwise`, `12345x` stay ungrounded, and a
    content word of the same stem later in the body grounds them after all (a grounded share is
    only known to be at least the minimum: the work stops there)."""
    digest_text = "Decided: abouts theirs otherwise 12345x zebra yacht quartz nimbus kilo."
    body = " ".join(f"word{i:03d}x" for i in range(60)) + " about their other 123456"
    for extra, share in (("", 0.0), (" " + "filler " * 400 + "aboutness theirself otherness 12345y", 0.4)):
        ep = _episode(HEAD + "## Digest\n" + digest_text + "\n## Decisions\n" + body + extra + "\n")
        sec = ep.section("digest")
        assert _plain_grounding(ep) == share
        got = _screened(ep, sec)
        assert got == share if share < digest.GROUNDING_MIN else got >= digest.GROUNDING_MIN


def test_the_plain_definition_decides_under_maybe_only():
    body = " ".join(f"word{i:03d}x" for i in range(60))
    ep = _episode(HEAD + "## Digest\nDecided: alpha bravo charlie delta echoes foxtrot golfer hotel.\n## Decisions\n"
                  + body + "\n")
    sec = ep.section("digest")
    calls = []

    def plain(episode, section):
        calls.append(episode)
        return digest.grounding(episode, section)

    args = (of_episode(ep), sec, digest.content_words(ep.section_text(sec)), digest.CONTENT_WORD, digest.STOP,
            digest.GROUNDING_MIN, plain)
    assert grounding.quick_share(*args) == 0.0 and calls == []
    with switch.maybe_only():
        assert grounding.quick_share(*args) == 0.0 and calls == [ep]
