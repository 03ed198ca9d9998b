"""The sticky comment of a fork's pull request, kept for the `workflow_run` workflow to post.

A fork's `pull_request` run has a read-only token: the comment cannot be posted. So the run
leaves it in the workspace as `.memshelf-bot/comment.json` — `{"pr_number", "head_sha",
"body"}`, the body masked like the comment — which the PR job uploads as the artifact
`memshelf-bot-comment` and `shelf-bot-fork-comment.yml` posts with a token that may write (after
checking the pull request is open, its head is still `head_sha` and the body carries the marker).

The workspace is the fork's checkout, so whatever sits at that path came from the fork: a fork
run first removes it (a planted file would otherwise be uploaded as the bot's), and the file is
written without following a symlink the fork may have put in its place.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

from ..port import GitHubPort, PortError
from ..report import Publication, comment
from ..report.botdir import DIRECTORY

FILE = "comment.json"


def clear(root: Path) -> None:
    """Remove whatever the checkout holds at `.memshelf-bot` (a fork's own file or symlink)."""
    path = root / DIRECTORY
    if path.is_symlink() or path.is_file():
        path.unlink()
    elif path.is_dir():
        shutil.rmtree(path)


def would_post(port: GitHubPort, number: int, shelf_path: str, policy: comment.CommentPolicy,
               has_news: bool) -> bool:
    """Whether a token that may write would post or update the comment (`comment: auto` with
    nothing to report only updates a sticky comment that is already there)."""
    if policy is comment.CommentPolicy.NEVER:
        return False
    if policy is comment.CommentPolicy.ALWAYS or has_news:
        return True
    mark, me = comment.marker(shelf_path), port.identity()
    try:
        return any(c.body.startswith(mark) and me.wrote(c) for c in port.comments(number))
    except PortError:
        return True


def keep(root: Path, number: int, head_sha: str, body: str) -> Path:
    """Write the comment the run could not post where the upload step takes it from."""
    directory = root / DIRECTORY
    clear(root)
    directory.mkdir()
    data = json.dumps({"pr_number": number, "head_sha": head_sha, "body": body}, ensure_ascii=False)
    fd = os.open(directory / FILE, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(data + "\n")
    return directory / FILE


def keeper(port: GitHubPort, root: Path, log: Callable[[str], None]) -> comment.Unposted:
    """The sticky sink's `unposted` for a fork's run: keep the comment a token that may write would post."""
    def unposted(publication: Publication, text: str, policy: comment.CommentPolicy, has_news: bool) -> None:
        assert publication.pr_number is not None
        if would_post(port, publication.pr_number, publication.shelf_path, policy, has_news):
            keep(root, publication.pr_number, publication.head_sha, text)
            log(f"memshelf-bot: kept the sticky comment in {DIRECTORY}/{FILE} for the fork-comment workflow")
    return unposted
