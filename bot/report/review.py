"""Suggestions as review comments on the pull request's diff: GitHub's "Commit suggestion" button
only works there. One review per run that has suggestions; when the token may not write (a
fork's), or GitHub refuses a line that is not in the diff, the job summary keeps every block.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from memshelf_render.check import repo_path

from ..port import GitHubPort, PortError, Reason, ReviewComment
from . import Delivered, Delivery, Publication
from . import markdown as md


def comments(publication: Publication, clean: Callable[[str], str]) -> tuple[ReviewComment, ...]:
    return tuple(ReviewComment(clean(repo_path(s.path, publication.prefix)), s.line,
                               clean(f"memshelf-bot {md.code(s.code)}: {md.text(s.why)}\n\n"
                                     + md.fenced(s.replacement, "suggestion")))
                 for s in publication.suggestions)


@dataclass
class ReviewSink:
    port: GitHubPort
    clean: Callable[[str], str]

    def publish(self, publication: Publication) -> Delivered:
        if publication.pr_number is None or not publication.suggestions:
            return Delivered(Delivery.SKIPPED, "No suggested changes to review.")
        if self.port.read_only:
            return Delivered(Delivery.READ_ONLY, "Suggested changes: in this summary (the token may not review).")
        found = comments(publication, self.clean)
        try:
            self.port.review(publication.pr_number, publication.head_sha, found)
        except PortError as exc:
            if exc.reason in (Reason.READ_ONLY, Reason.FORBIDDEN):
                return Delivered(Delivery.READ_ONLY, f"Suggested changes: in this summary (GitHub refused the "
                                                     f"review: {exc.status or exc.reason.value}; the token needs "
                                                     "`pull-requests: write`).")
            if exc.reason in (Reason.INVALID, Reason.NOT_FOUND):
                return Delivered(Delivery.FAILED, f"Suggested changes: not posted as a review ({exc.reason.value}); "
                                                  "this summary lists them.")
            raise
        return Delivered(Delivery.DONE, f"Posted {len(found)} suggested change(s) as review comments.")
