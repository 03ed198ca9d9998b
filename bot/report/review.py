"""Suggestions as review comments on the pull request's diff: GitHub's "Commit suggestion" button
only works there. One review per run that has suggestions, each comment on its line of the head
(`side: RIGHT`). GitHub refuses a whole review when one comment sits on a line its diff does not
show, so only the suggestions on the diff's lines go into it (the PR's file list carries the
hunks: the flow's, else read here). When the token may not write (a fork's), or GitHub refuses, the job summary keeps every
block; it keeps them anyway. A run again on the same head (a re-run, a second event, a push that
left the line alone) posts only the comments the bot itself has not already left on that line word
for word, so suggestions are never doubled (and nobody else's copy can silence one).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from memshelf_render.check import repo_path

from ..port import GitHubPort, PortError, Reason, ReviewComment
from . import Posted, Publication, SinkName, SinkResult, Suggestion
from . import markdown as md

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@")


def commentable(patch: str | None) -> frozenset[int]:
    """The head-side line numbers of a file's diff: its added and context lines."""
    found: set[int] = set()
    line = 0
    for text in (patch or "").split("\n"):
        m = _HUNK.match(text)
        if m:
            line = int(m.group(1))
        elif line and text[:1] in ("+", " "):
            found.add(line)
            line += 1
    return frozenset(found)


def comments(publication: Publication, suggestions: tuple[Suggestion, ...],
             clean: Callable[[str], str]) -> tuple[ReviewComment, ...]:
    return tuple(ReviewComment(clean(repo_path(s.path, publication.prefix)), s.line,
                               clean(f"memshelf-bot {md.code(s.code)}: {md.text(s.why)}\n\n"
                                     + md.fenced(s.replacement, "suggestion")))
                 for s in suggestions)


def on_the_diff(publication: Publication, lines: Mapping[str, frozenset[int]]) -> tuple[Suggestion, ...]:
    """The suggestions whose line the pull request's diff shows (`lines`: repository path → lines)."""
    return tuple(s for s in publication.suggestions if s.line in lines.get(repo_path(s.path, publication.prefix), ()))


@dataclass
class ReviewSink:
    port: GitHubPort
    clean: Callable[[str], str]

    def publish(self, publication: Publication) -> SinkResult:
        number = publication.pr_number
        if number is None or not publication.suggestions:
            return SinkResult(SinkName.REVIEW, Posted.SKIPPED, "No suggested changes to review.")
        if self.port.read_only:
            return SinkResult(SinkName.REVIEW, Posted.READ_ONLY, "Suggested changes: in this summary (the token may not review).")
        try:
            listed = publication.changed if publication.changed is not None else self.port.pull_files(number).files
            lines = {f.path: commentable(f.patch) for f in listed}
            placed = on_the_diff(publication, lines)
            if not placed:
                return SinkResult(SinkName.REVIEW, Posted.SKIPPED, "Suggested changes: in this summary (their lines are not in the "
                                                   "pull request's diff, where review comments go).")
            drafts = comments(publication, placed, self.clean)
            me = self.port.identity()
            posted = {p.comment for p in self.port.review_comments(number) if me.wrote(p)}
            fresh = tuple(c for c in drafts if c not in posted)
            if fresh:
                self.port.review(number, publication.head_sha, fresh)
        except PortError as exc:
            if exc.reason in (Reason.READ_ONLY, Reason.FORBIDDEN):
                return SinkResult(SinkName.REVIEW, Posted.READ_ONLY, f"Suggested changes: in this summary (GitHub refused the "
                                                     f"review: {exc.status or exc.reason.value}; the token needs "
                                                     "`pull-requests: write`).")
            if exc.reason in (Reason.INVALID, Reason.NOT_FOUND):
                return SinkResult(SinkName.REVIEW, Posted.FAILED, f"Suggested changes: not posted as a review ({exc.reason.value}); "
                                                  "this summary lists them.")
            raise
        left = len(publication.suggestions) - len(placed)
        outside = f"; {left} on lines outside the diff are in this summary" if left else ""
        if not fresh:
            return SinkResult(SinkName.REVIEW, Posted.DONE, f"Suggested changes: already posted as review comments{outside}.")
        again = len(drafts) - len(fresh)
        return SinkResult(SinkName.REVIEW, Posted.DONE, f"Posted {len(fresh)} suggested change(s) as review comments"
                                        + (f" ({again} already there)" if again else "") + f"{outside}.")
