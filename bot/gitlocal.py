"""The bot's one git seam: fetch an exact commit over HTTP with the job's token, look at it in a
scratch worktree, read file modes, merge in a throwaway clone (commits are made by GitHub, through
the port, never pushed from here). The token travels in an
HTTP header set through git's environment (never in a URL or on a command line), as
actions/checkout does. Every git call runs without the caller's `GIT_*` variables (they could
point git at another repository or config), and every revision that came from outside follows
`--end-of-options`, so a branch named like an option is never read as one. One error type:
`GitFailed`.

A kept store (`LocalRepo.kept`: the App's per-repository objects under `--data-dir`) is a blobless
partial clone: a fetch brings commits and trees only, and a checkout then fetches, in one batch,
just the blobs it lacks; every call on such a repository carries the token, since any of them may
fetch a missing blob. Jobs share a store, each in a worktree of it, and all of them fetch into the
store's one `shallow` file: so every fetch that deepens (the job's commit, the latest main a render
fetches from inside its worktree), the store's configuration and its repacking take the store's
lock (`LocalRepo.locked`, an flock on `memshelf-bot-fetch.lock` in the store), from whichever
worktree they run. The blobs a checkout or a read fetches lazily need no lock: such a fetch never
writes the shallow file, and git adds packs atomically.
"""

from __future__ import annotations

import base64
import fcntl
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

BOT_NAME, BOT_EMAIL = "github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com"
EOO = "--end-of-options"
SHA = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
FETCH_LOCK = "memshelf-bot-fetch.lock"  # in a kept store's git directory


class GitFailed(RuntimeError):
    """A git command failed; the message never holds the token."""


@dataclass
class LocalRepo:
    """A git repository on disk (the workspace checkout, or a scratch one) and its remote."""

    path: Path
    remote_url: str  # e.g. https://github.com/octo/shelf.git
    token: str = ""
    scratch: bool = False
    lazy: bool = False  # a partial clone: any call may fetch a missing blob, so each carries the token
    common: Path | None = None  # the git directory worktrees share (the store), once known
    _held: int = field(default=0, init=False, repr=False)  # how deep this object holds the lock

    @classmethod
    def open(cls, workspace: Path, url: str, token: str) -> LocalRepo:
        """The workspace's repository, or a new scratch one when the workspace is not a checkout."""
        probe = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=workspace, capture_output=True,
                               text=True, check=False, env=_env())
        if probe.returncode == 0 and Path(probe.stdout.strip()).resolve() == workspace.resolve():
            partial = subprocess.run(["git", "config", "--get", "extensions.partialclone"], cwd=workspace,
                                     capture_output=True, check=False, env=_env())
            return cls(workspace, url, token, lazy=partial.returncode == 0)
        return cls._scratch("memshelf-bot-git-", url, token)

    @classmethod
    def _scratch(cls, prefix: str, url: str, token: str) -> LocalRepo:
        scratch = Path(tempfile.mkdtemp(prefix=prefix))
        subprocess.run(["git", "init", "--quiet", str(scratch)], capture_output=True, check=True, env=_env())
        return cls(scratch, url, token, scratch=True)

    @classmethod
    def throwaway(cls, url: str, token: str) -> LocalRepo:
        """An empty scratch repository for work that must never touch the workspace (a merge):
        the bot's identity for its commits, no hooks, no signing. `close()` removes it."""
        repo = cls._scratch("memshelf-bot-clone-", url, token)
        hooks = repo.path / ".git" / "no-hooks"
        hooks.mkdir()
        for key, value in (("user.name", BOT_NAME), ("user.email", BOT_EMAIL), ("commit.gpgsign", "false"),
                           ("core.hooksPath", str(hooks)), ("merge.conflictStyle", "merge")):
            repo.git("config", key, value)
        return repo

    @classmethod
    def kept(cls, path: Path, url: str, token: str) -> LocalRepo:
        """The bare store at `path` (made on first use) whose remote `origin` is `url`, promising
        the blobs it lacks; worktrees of a crashed job are forgotten. Made and configured under
        the store's lock (two jobs' `git config` at once would fail on git's own config lock)."""
        path.mkdir(parents=True, exist_ok=True)
        repo = cls(path, url, token, lazy=True, common=path)
        with repo.locked():
            if not (path / "HEAD").is_file():
                subprocess.run(["git", "init", "--quiet", "--bare", str(path)], capture_output=True, check=True,
                               env=_env())
            settings = (("core.repositoryformatversion", "1"), ("extensions.partialClone", "origin"),
                        ("remote.origin.url", url), ("remote.origin.promisor", "true"),
                        ("remote.origin.partialCloneFilter", "blob:none"), ("gc.auto", "0"))
            for key, value in settings:
                repo.git("config", key, value)
            repo.git("worktree", "prune")
        return repo

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the store's lock (a repository that is no partial clone needs none: it is the
        job's own). Re-entrant within this object; another object, or another process, waits."""
        if not self.lazy or self._held:
            self._held += 1
            try:
                yield
            finally:
                self._held -= 1
            return
        fd = os.open(self.common_dir() / FETCH_LOCK, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self._held = 1
            try:
                yield
            finally:
                self._held = 0
        finally:
            os.close(fd)  # closing drops the lock

    def common_dir(self) -> Path:
        """The git directory this repository's worktrees share (for a kept store, the store)."""
        if self.common is None:
            found = self.git("rev-parse", "--path-format=absolute", "--git-common-dir").strip()
            self.common = Path(found)
        return self.common

    def fetch_blobless(self, sha: str, keep: int = 16) -> None:
        """Commit `sha` and its trees, no blob, from `origin` (a kept store). The last `keep`
        commits fetched stay named (`refs/kept/<sha>`): git offers only named commits as what it
        has, so only then does the remote send just the new objects, trees as deltas."""
        if not SHA.fullmatch(sha):  # it names a ref too: never a refspec of the event's making
            raise GitFailed(f"not a commit id: {sha[:80]!r}")
        with self.locked():
            self.git("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--depth=1", "--filter=blob:none",
                     EOO, "origin", f"+{sha}:refs/kept/{sha}", remote=True)
            kept = self.git("for-each-ref", "--sort=-committerdate", "--format=%(refname)", "refs/kept/").split()
            for ref in [r for r in kept if r != f"refs/kept/{sha}"][keep - 1:]:
                self.git("update-ref", "-d", EOO, ref)

    def tidy(self, packs: int = 32) -> None:
        """Repack a kept store into one pack once its fetches have left more than `packs` (each
        fetch leaves one); what no kept commit or worktree reaches any more goes."""
        with self.locked():
            if sum(1 for _ in (self.common_dir() / "objects" / "pack").glob("*.pack")) > packs:
                self.git("repack", "-a", "-d", "-q")

    def run(self, *args: str, remote: bool = False, cwd: Path | None = None,
            stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        """git with this repository's environment (the token only for `remote` commands); never raises."""
        env = _env(self._auth() if remote or self.lazy else {})
        return subprocess.run(["git", *args], cwd=cwd or self.path, capture_output=True, env=env, check=False,
                              input=stdin)

    def git(self, *args: str, remote: bool = False, cwd: Path | None = None, stdin: bytes | None = None) -> str:
        proc = self.run(*args, remote=remote, cwd=cwd, stdin=stdin)
        if proc.returncode != 0:
            raise GitFailed(f"git {args[0]} failed: {self.error_text(proc)}")
        return proc.stdout.decode("utf-8", "surrogateescape")

    def error_text(self, proc: subprocess.CompletedProcess[bytes]) -> str:
        err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        detail = err[-1] if err else f"exit {proc.returncode}"
        return detail.replace(self.token, "***") if self.token else detail

    def _auth(self) -> dict[str, str]:
        if not self.token:
            return {}
        key = f"http.{self.remote_url.rsplit('/', 2)[0]}/.extraheader"
        basic = base64.b64encode(f"x-access-token:{self.token}".encode()).decode("ascii")
        # the empty value first drops any header a checkout step persisted for the same URL
        return {"GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": key, "GIT_CONFIG_VALUE_0": "",
                "GIT_CONFIG_KEY_1": key, "GIT_CONFIG_VALUE_1": f"AUTHORIZATION: basic {basic}"}

    def head(self) -> str | None:
        try:
            return self.git("rev-parse", "--verify", "--quiet", EOO, "HEAD^{commit}").strip() or None
        except GitFailed:
            return None

    def has(self, sha: str) -> bool:
        try:
            self.git("cat-file", "-e", EOO, f"{sha}^{{commit}}")
            return True
        except GitFailed:
            return False

    def parents(self, sha: str) -> list[str]:
        """The parents a commit names (read from the object, so a shallow checkout's too)."""
        header = self.git("cat-file", "commit", EOO, sha).split("\n\n", 1)[0]
        return [line.split()[1] for line in header.splitlines() if line.startswith("parent ")]

    @contextmanager
    def checkout_of(self, sha: str) -> Iterator[tuple[Path, str]]:
        """A tree holding commit `sha`'s files and the commit it is: the workspace itself when it
        is checked out at `sha` or at a merge of it (a pull request's merge ref), else a scratch
        worktree of `sha` fetched for the purpose."""
        current = None if self.scratch else self.head()
        if current is not None and (current == sha or sha in self.parents(current)):
            yield self.path, current
            return
        self.fetch(sha)
        with self.worktree(sha) as tree:
            yield tree, sha

    def fetch(self, sha: str) -> None:
        """Make commit `sha` present locally (from the remote, with the token), unless it is. A
        kept store fetches it blobless (asking it whether it holds a commit would make it fetch
        the commit's whole history of trees)."""
        if self.lazy:
            self.fetch_blobless(sha)
            return
        if self.has(sha):
            return
        shallow = self.git("rev-parse", "--is-shallow-repository").strip() == "true" or self.scratch
        depth = ["--depth=1"] if shallow else []
        self.git("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", *depth, EOO, self.remote_url, sha,
                 remote=True)

    def fetch_branches(self, *branches: str) -> dict[str, str]:
        """The remote's `branches` with their whole history; branch -> the commit it points at."""
        specs = [f"+refs/heads/{b}:refs/remotes/origin/{b}" for b in branches]
        self.git("fetch", "--quiet", "--no-tags", "--no-write-fetch-head", EOO, self.remote_url, *specs, remote=True)
        return {b: self.git("rev-parse", "--verify", EOO, f"refs/remotes/origin/{b}^{{commit}}").strip()
                for b in branches}

    @contextmanager
    def worktree(self, sha: str) -> Iterator[Path]:
        """A detached scratch checkout of `sha`, removed afterwards (each under the store's lock in
        a kept store's worktree, as the door's own checkout is)."""
        where = Path(tempfile.mkdtemp(prefix="memshelf-bot-tree-")) / "tree"
        try:
            with self.locked():
                self.git("worktree", "add", "--quiet", "--detach", EOO, str(where), sha)
            try:
                yield where
            finally:
                with self.locked():
                    self.git("worktree", "remove", "--force", str(where))
        finally:
            shutil.rmtree(where.parent, ignore_errors=True)

    def modes(self, sha: str, paths: list[str]) -> dict[str, str]:
        """Git file modes of repo-relative `paths` in commit `sha` (absent paths are left out)."""
        if not paths:
            return {}
        listing = self.git("ls-tree", "-z", EOO, sha, "--", *paths)
        modes = {}
        for record in listing.split("\0"):
            if record:
                meta, _, path = record.partition("\t")
                modes[path] = meta.split()[0]
        return modes

    def unfilled(self) -> bool:
        """Whether this is a checkout made without its files (the door's worktree for a pull
        request's check, `--no-checkout`): a commit checked out, nothing in the index yet."""
        return not self.scratch and self.head() is not None and not self.git("ls-files", "-z")

    def files(self, sha: str, under: str = "") -> dict[str, tuple[str, str]]:
        """Every entry of commit `sha` but its trees (files, links, submodules), below `under`
        (a repository path; '' = all): repository path -> (git mode, object id). Read from the
        trees alone, so no blob is fetched."""
        listing = self.git("ls-tree", "-r", "-z", "--full-tree", EOO, sha, *(["--", under] if under else []))
        found = {}
        for record in listing.split("\0"):
            if record:
                meta, _, path = record.partition("\t")
                mode, _kind, oid = meta.split()
                found[path] = (mode, oid)
        return found

    def read_blob(self, oid: str) -> bytes:
        """A blob's bytes by its id (a partial clone fetches it when it lacks it)."""
        if not SHA.fullmatch(oid):
            raise GitFailed(f"not an object id: {oid[:80]!r}")
        proc = self.run("cat-file", "blob", oid)
        if proc.returncode != 0:
            raise GitFailed(f"git cat-file failed: {self.error_text(proc)}")
        return proc.stdout

    def check_out(self, sha: str, paths: list[str]) -> None:
        """Write repository `paths` of commit `sha` into this checkout (a partial clone fetches
        the blobs it lacks in one batch). The paths travel on stdin, each taken literally."""
        if not SHA.fullmatch(sha):  # checkout takes no --end-of-options beside a pathspec file
            raise GitFailed(f"not a commit id: {sha[:80]!r}")
        if paths:
            self.git("checkout", "--quiet", "--pathspec-from-file=-", "--pathspec-file-nul", sha,
                     stdin=b"".join(b":(literal)" + p.encode("utf-8", "surrogateescape") + b"\0" for p in paths))

    def close(self) -> None:
        if self.scratch:
            shutil.rmtree(self.path, ignore_errors=True)


def _env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_TERMINAL_PROMPT="0", **(extra or {}))
    return env
