"""A job's workspace: a fresh clone of exactly the event's commit, deleted after the job.

The token travels in git's `http.<url>.extraheader` through the environment (LocalRepo's
remote calls), never in a URL or an argument; the clone is shallow (that one commit).
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from ..gitlocal import EOO, LocalRepo


def web_url(api_url: str) -> str:
    """GitHub's web (and git) root for a REST API root: api.github.com → github.com, a GitHub
    Enterprise Server's /api/v3 → its host; any other API (the sandbox) serves git itself."""
    parts = urlsplit(api_url.rstrip("/"))
    if parts.netloc == "api.github.com":
        return f"{parts.scheme}://github.com"
    path = parts.path.removesuffix("/api/v3")
    return f"{parts.scheme}://{parts.netloc}{path}"


def remote_url(api_url: str, repository: str) -> str:
    return f"{web_url(api_url)}/{repository}.git"


@contextmanager
def clone_of(remote: str, token: str, sha: str | None) -> Iterator[Path]:
    """A directory holding a checkout of `sha` (an empty one when the event names no commit)."""
    root = Path(tempfile.mkdtemp(prefix="memshelf-bot-job-"))
    try:
        if sha:
            repo = LocalRepo(root, remote, token)
            repo.git("init", "--quiet")
            repo.git("fetch", "--quiet", "--no-tags", "--depth=1", EOO, remote, sha, remote=True)
            repo.git("checkout", "--quiet", "--detach", sha)
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)
