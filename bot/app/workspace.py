"""A job's workspace: a checkout of exactly the event's commit, deleted after the job.

Without a data directory it is a fresh shallow clone of that one commit. With one, the App keeps a
per-repository object store under `<data-dir>/git/<owner>/<name>.git` (`ObjectStores`): a job
fetches the commit and its trees into it (`--filter=blob:none`), and its checkout — a worktree of
the store — fetches only the blobs the store lacks, so a pull request or a render after a merge
downloads what is new, not the shelf. The store's lock (`LocalRepo.locked`, in the store) is
taken by every fetch into it, the door's and those a job makes from inside its worktree (a render
fetches the latest main), so no two write its shallow file at once; jobs share the store
(`<name>.use.lock` beside it, held shared during a job); the stores are bounded in size together,
the least recently used evicted first (a store in use is never evicted). The episode cache lives
beside the stores (`<data-dir>/cache`).

The token travels in git's `http.<url>.extraheader` through the environment (LocalRepo's
remote calls), never in a URL or an argument.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

from memshelf_render.cache import EpisodeCache

from ..gitlocal import EOO, LocalRepo

DEFAULT_BOUND = 4 * 1024**3  # bytes, all the stores of one data directory together
REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


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


@contextmanager
def _locked(path: Path, how: int) -> Iterator[int]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, how)
        yield fd
    finally:
        os.close(fd)  # closing drops the lock


def _bytes_under(root: Path) -> int:
    """The size of the regular files under `root` that are still there when looked at."""
    total = 0
    for folder, _dirs, names in os.walk(root):
        for name in names:
            with contextlib.suppress(FileNotFoundError):
                st = os.lstat(os.path.join(folder, name))
                total += st.st_size if stat.S_ISREG(st.st_mode) else 0
    return total


class ObjectStores:
    """The kept object stores of one data directory (`root`), `bound` bytes together."""

    def __init__(self, root: Path, bound: int = DEFAULT_BOUND) -> None:
        self.root, self.bound = root, bound

    def episode_cache(self) -> EpisodeCache:
        """The episode cache of the jobs that use these stores: beside them, in the data directory."""
        return EpisodeCache(self.root.parent / "cache")

    def store_of(self, repository: str) -> Path:
        if not REPOSITORY.fullmatch(repository) or ".." in repository:
            raise ValueError(f"not a repository name: {repository!r}")
        return self.root / f"{repository}.git"

    @contextmanager
    def checkout(self, repository: str, remote: str, token: str, sha: str | None, *,
                 files: bool = True) -> Iterator[Path]:
        """A worktree of `sha` from `repository`'s store (an empty directory when there is no
        commit); the stores are brought within the bound afterwards. Without `files` the
        worktree is made without them (`--no-checkout`): a pull request's check writes the
        files it reads itself, so the store fetches no other blob."""
        if not sha:
            with clone_of(remote, token, None) as root:
                yield root
            return
        store = self.store_of(repository)
        store.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix="memshelf-bot-job-"))
        tree = scratch / "tree"
        try:
            with _locked(store.with_suffix(".use.lock"), fcntl.LOCK_SH):
                repo = LocalRepo.kept(store, remote, token)
                with repo.locked():
                    repo.fetch_blobless(sha)
                    repo.tidy()
                    repo.git("worktree", "add", "--quiet", "--detach", *([] if files else ["--no-checkout"]), EOO,
                             str(tree), sha)
                try:
                    yield tree
                finally:
                    with repo.locked():
                        repo.run("worktree", "remove", "--force", str(tree))
                os.utime(store.with_suffix(".use.lock"))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        self.evict()

    def sizes(self) -> list[tuple[float, int, Path]]:
        """(last use, bytes, store) of every store, least recently used first. Other jobs add and
        remove files meanwhile (worktrees, packs, a store evicted): what vanishes is not counted."""
        out = []
        for lock in self.root.glob("*/*.use.lock"):
            store = lock.with_name(lock.name.removesuffix(".use.lock") + ".git")
            with contextlib.suppress(FileNotFoundError):
                out.append((lock.stat().st_mtime, _bytes_under(store), store))
        return sorted(out)

    def evict(self) -> list[Path]:
        """Delete the least recently used stores not in use until all fit the bound; the evicted.
        A store no job uses has no fetch under way either: every fetch into it runs in a job."""
        stores = self.sizes()
        total = sum(size for _, size, _ in stores)
        evicted = []
        for _, size, store in stores:
            if total <= self.bound:
                break
            try:
                with _locked(store.with_suffix(".use.lock"), fcntl.LOCK_EX | fcntl.LOCK_NB):
                    shutil.rmtree(store, ignore_errors=True)
            except BlockingIOError:
                continue  # in use: kept this time
            total -= size
            evicted.append(store)
        return evicted
