"""What the screens read of a text or an episode, computed once on first use and shared by them.

The episode stays what the parser read; the screens keep their own view of it: the text
lowercased (for offsets) and, where it holds a letter `re.IGNORECASE` takes for another, folded
(`casing`), the prose outside code blocks, the class codes, the runs of lines.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import lines
from .casing import fold, holds_misses, screen_lower
from .classcodes import codes

if TYPE_CHECKING:
    from ..episode import Episode


class Screened:
    """One text for the screens: its `screen_lower` (lowercased, folded where `casing` says), its
    class codes and its runs of lines, each computed on the first screen that asks."""

    __slots__ = ("_codes", "_lower", "_runs", "text")

    def __init__(self, text: str, lower: str | None = None) -> None:
        self.text = text
        self._lower = lower  # when given: `screen_lower(text)`, computed by the caller
        self._codes: bytes | None = None
        self._runs: list[tuple[int, int, int]] | None = None

    @property
    def lower(self) -> str:
        if self._lower is None:
            self._lower = screen_lower(self.text)
        return self._lower

    @property
    def codes(self) -> bytes:
        if self._codes is None:
            self._codes = codes(self.text)
        return self._codes

    @property
    def runs(self) -> list[tuple[int, int, int]]:
        if self._runs is None:
            self._runs = lines.runs(self.text)
        return self._runs


class EpisodeView:
    """One episode for the screens of the content, digest and secret rules, which all start from
    its text lowercased: lowercased once here."""

    __slots__ = ("_lower", "_prose", "_screened", "episode", "misses")

    def __init__(self, episode: Episode) -> None:
        self.episode = episode
        self._lower: str | None = None
        self.misses = holds_misses(self.lower)  # a letter IGNORECASE takes for another (`casing`)
        self._prose: str | None = None
        self._screened: Screened | None = None

    @property
    def lower(self) -> str:
        """The text lowercased (not folded: a slice of it is a slice of the text when the lengths agree)."""
        if self._lower is None:
            self._lower = self.episode.text.lower()
        return self._lower

    @property
    def screened(self) -> Screened:
        """The whole text, frontmatter included, for the secret screens."""
        if self._screened is None:
            self._screened = Screened(self.episode.text, fold(self.lower) if self.misses else self.lower)
        return self._screened

    @property
    def prose(self) -> str:
        """The text outside fenced code blocks, lowercased and folded, for the keyword gates."""
        if self._prose is None:
            prose = self._prose_lower()
            self._prose = fold(prose) if self.misses else prose
        return self._prose

    def _prose_lower(self) -> str:
        """Cut from the lowercased text when lowercasing kept every offset (no second lowercasing)."""
        ep, lower = self.episode, self.lower
        if not ep.code_blocks:
            return lower
        lines_ = ep.lines
        if len(lower) != len(ep.text):
            parts, at = [], 0
            for start, end in ep.code_blocks:
                parts.extend(lines_[at:start])
                at = end
            parts.extend(lines_[at:])
            return "\n".join(parts).lower()
        pieces, at, offset = [], 0, 0
        for start, end in (*ep.code_blocks, (len(lines_), len(lines_))):
            code_at = offset + sum(map(len, lines_[at:start])) + start - at  # where line `start` begins
            if start > at:
                pieces.append(lower[offset : code_at - 1])  # lines at..start-1, without the last newline
            offset = code_at + sum(map(len, lines_[start:end])) + end - start
            at = end
        return "\n".join(pieces)


_last: tuple[Episode, EpisodeView] | None = None


def viewed(text: str) -> EpisodeView | None:
    """The view of the last episode viewed, when `text` is its text (lowercased there once)."""
    last = _last
    return last[1] if last is not None and last[0].text is text else None


def of_episode(episode: Episode) -> EpisodeView:
    """The view of `episode`, shared by the checks that run on it one after another (the last
    episode's view is kept: the checks of one episode run together)."""
    global _last
    last = _last
    if last is not None and last[0] is episode:
        return last[1]
    view = EpisodeView(episode)
    _last = (episode, view)
    return view
