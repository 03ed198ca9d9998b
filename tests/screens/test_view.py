"""The screens' view of an episode (`screens.view`): the prose cut from the lowercased text is the
prose lowercased, and one view serves the checks of one episode."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from memshelf_render.episode import parse
from memshelf_render.screens.casing import fold
from memshelf_render.screens.view import EpisodeView, of_episode
from tests.screens.instruction_texts import TEXT

HEAD = "---\nid: x\nkind: topic\nspan: 2026-01-01\ntags: []\napprox_tokens: 1\n---\n"


def _plain_prose(ep) -> str:
    in_code = {i for start, end in ep.code_blocks for i in range(start, end)}
    return "\n".join(line for i, line in enumerate(ep.lines) if i not in in_code).lower()


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(TEXT, TEXT)
def test_prose_cut_from_the_lowercased_text_equals_the_prose_lowercased(before, body):
    ep = parse((HEAD + before + "\n## Digest\n" + body + "\n").encode(), "docs/topics/x.md")
    view = EpisodeView(ep)
    assert view.prose == (fold(_plain_prose(ep)) if view.misses else _plain_prose(ep))
    assert view.screened.lower == (fold(ep.text.lower()) if view.misses else ep.text.lower())


def test_one_view_per_episode():
    first = parse(b"---\nid: x\n---\n", "docs/topics/x.md")
    second = parse(b"---\nid: x\n---\n", "docs/topics/x.md")
    assert of_episode(first) is of_episode(first)
    assert of_episode(second) is not of_episode(first) and of_episode(second).episode is second
