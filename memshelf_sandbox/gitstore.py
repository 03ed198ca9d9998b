"""Real git objects and refs for the sandbox, through the `git` CLI on a bare repository.

GitHub's Git Data API is a thin layer over git itself, so the sandbox keeps no object model of
its own: blobs, trees, commits and refs live in the bare repository, and every answer is read
back from it. Ref updates are compare-and-swap (`git update-ref NEW OLD`), which is what makes
a lost race visible exactly as on GitHub.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TypeVar

ZERO = "0" * 40
SHA_RE = re.compile(r"^[0-9a-f]{40}$")
T = TypeVar("T")


class GitError(RuntimeError):
    """A git command failed; `stderr` says why."""

    def __init__(self, args: list[str], code: int, stderr: str) -> None:
        super().__init__(f"git {' '.join(args)} exited {code}: {stderr.strip()}")
        self.code = code
        self.stderr = stderr


@dataclass(frozen=True)
class Person:
    name: str
    email: str
    date: str  # ISO 8601, UTC, e.g. 2026-01-02T03:04:05Z


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    tree: str
    parents: tuple[str, ...]
    author: Person
    committer: Person
    message: str


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    type: str
    sha: str
    size: int | None
    path: str


@dataclass(frozen=True)
class FileChange:
    """One file of a diff, in the shape GitHub's diff-entry needs."""

    status: str  # added, removed, modified, renamed, copied, changed
    filename: str
    previous_filename: str | None
    sha: str  # blob sha on the new side (old side when removed)
    additions: int
    deletions: int
    patch: str | None


def _iso(epoch: str) -> str:
    return dt.datetime.fromtimestamp(int(epoch), dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _person(line: str) -> Person:
    m = re.match(r"^(.*) <(.*)> (\d+) [+-]\d{4}$", line)
    if not m:
        raise ValueError(f"malformed ident: {line!r}")
    return Person(m.group(1), m.group(2), _iso(m.group(3)))


class GitStore:
    """The bare repository behind one sandboxed GitHub repository."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path).resolve()
        if not (self.path / "HEAD").is_file():
            raise ValueError(f"not a bare git repository: {self.path}")
        self._cached_diff = lru_cache(maxsize=64)(self._diff)
        self._cached_merge = lru_cache(maxsize=256)(self._merge_tree)
        # objects are content-addressed, so what a sha names never changes: read each once (`_by_sha`;
        # every API answer reads the same few commits and histories again, one git process each)
        self._types: dict[str, str] = {}
        self._cached_blob = lru_cache(maxsize=1024)(self._read_blob)
        self._cached_commit = lru_cache(maxsize=1024)(self._read_commit)
        self._cached_is_ancestor = lru_cache(maxsize=1024)(self._is_ancestor)
        self._cached_merge_base = lru_cache(maxsize=1024)(self._merge_base)
        self._cached_between = lru_cache(maxsize=1024)(self._between)

    def git(self, *args: str, input: bytes | None = None, env: dict[str, str] | None = None,
            ok: tuple[int, ...] = (0,)) -> subprocess.CompletedProcess[bytes]:
        full = {**os.environ, "GIT_DIR": str(self.path), "GIT_TERMINAL_PROMPT": "0", **(env or {})}
        proc = subprocess.run(["git", *args], input=input, capture_output=True, env=full, check=False)
        if proc.returncode not in ok:
            raise GitError(list(args), proc.returncode, proc.stderr.decode("utf-8", "replace"))
        return proc

    def out(self, *args: str, input: bytes | None = None, env: dict[str, str] | None = None) -> str:
        return self.git(*args, input=input, env=env).stdout.decode("utf-8", "surrogateescape").strip()

    # objects -----------------------------------------------------------------

    def object_type(self, sha: str) -> str | None:
        """The object's type; None while no such object exists (that one is asked again: it may be written)."""
        if not SHA_RE.match(sha):
            return None
        if sha not in self._types:
            proc = self.git("cat-file", "-t", sha, ok=(0, 1, 128))
            if proc.returncode != 0:
                return None
            self._types[sha] = proc.stdout.decode().strip()
        return self._types[sha]

    def read_blob(self, sha: str) -> bytes:
        return self._by_sha(self._cached_blob, self._read_blob, sha)

    def _read_blob(self, sha: str) -> bytes:
        return self.git("cat-file", "blob", sha).stdout

    def write_blob(self, data: bytes) -> str:
        return self.out("hash-object", "-w", "--stdin", input=data)

    def commit(self, sha: str) -> CommitInfo:
        return self._by_sha(self._cached_commit, self._read_commit, sha)

    def _read_commit(self, sha: str) -> CommitInfo:
        raw = self.git("cat-file", "commit", sha).stdout.decode("utf-8", "replace")
        head, _, message = raw.partition("\n\n")
        tree, parents, author, committer = "", [], None, None
        for line in head.splitlines():
            key, _, value = line.partition(" ")
            if key == "tree":
                tree = value
            elif key == "parent":
                parents.append(value)
            elif key == "author":
                author = _person(value)
            elif key == "committer":
                committer = _person(value)
        assert author and committer, sha
        return CommitInfo(sha, tree, tuple(parents), author, committer, message)

    def write_commit(self, tree: str, parents: list[str], message: str, author: Person,
                     committer: Person) -> str:
        env = {"GIT_AUTHOR_NAME": author.name, "GIT_AUTHOR_EMAIL": author.email,
               "GIT_AUTHOR_DATE": author.date, "GIT_COMMITTER_NAME": committer.name,
               "GIT_COMMITTER_EMAIL": committer.email, "GIT_COMMITTER_DATE": committer.date}
        args = ["commit-tree", tree]
        for parent in parents:
            args += ["-p", parent]
        return self.out(*args, input=message.encode("utf-8"), env=env)

    def tree(self, sha: str, recursive: bool = False) -> list[TreeEntry]:
        args = ["ls-tree", "-l", "-z", "--full-tree"]
        if recursive:
            args += ["-r", "-t"]
        entries = []
        for record in self.git(*args, sha).stdout.decode("utf-8", "surrogateescape").split("\0"):
            if not record:
                continue
            meta, _, path = record.partition("\t")
            mode, kind, obj, size = meta.split()
            entries.append(TreeEntry(mode, kind, obj, None if size == "-" else int(size), path))
        return entries

    def write_tree(self, base_tree: str | None, changes: list[tuple[str, str, str | None]]) -> str:
        """Apply (path, mode, sha-or-None-to-delete) on top of `base_tree` in a scratch index.

        A path replaces whatever was at or under it, as in GitHub's create-tree; one
        `update-index --index-info` batch keeps a tree of thousands of entries fast.
        """
        with tempfile.TemporaryDirectory() as tmp:
            env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
            self.git("read-tree", *([base_tree] if base_tree else ["--empty"]), env=env)
            present = [p for p in self.out("ls-files", "-z", env=env).split("\0") if p]
            lines, subtrees = [], []
            for path, mode, sha in changes:
                lines += [f"0 {ZERO}\t{p}" for p in present if p == path or p.startswith(path + "/")]
                if sha is not None and mode == "040000":
                    subtrees.append((path, sha))
                elif sha is not None:
                    lines.append(f"{mode} {sha}\t{path}")
            if lines:
                self.git("update-index", "--add", "--index-info", input="\n".join(lines).encode() + b"\n", env=env)
            for path, sha in subtrees:
                self.git("read-tree", f"--prefix={path}/", sha, env=env)
            return self.out("write-tree", env=env)

    # refs --------------------------------------------------------------------

    def refs(self, prefix: str = "refs/") -> dict[str, str]:
        listing = self.out("for-each-ref", "--format=%(refname) %(objectname)", prefix)
        return dict(line.split(" ", 1) for line in listing.splitlines() if line)

    def ref(self, name: str) -> str | None:
        return self.refs(name).get(name)

    def resolve_commit(self, rev: str) -> str | None:
        """A sha, a branch name, a tag or a full ref name, resolved to a commit, as GitHub does."""
        for candidate in (rev, f"refs/heads/{rev}", f"refs/tags/{rev}"):
            proc = self.git("rev-parse", "--verify", "--quiet", "--end-of-options",
                            f"{candidate}^{{commit}}", ok=(0, 1, 128))
            if proc.returncode == 0:
                return proc.stdout.decode().strip()
        return None

    def update_ref(self, name: str, new: str, old: str | None) -> bool:
        """Compare-and-swap; `old=None` skips the check, `ZERO` means "must not exist"."""
        args = ["update-ref", name, new] + ([old] if old is not None else [])
        return self.git(*args, ok=(0, 1, 128)).returncode == 0

    def delete_ref(self, name: str, old: str) -> bool:
        return self.git("update-ref", "-d", name, old, ok=(0, 1, 128)).returncode == 0

    # history and diffs -------------------------------------------------------

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return self._by_sha(self._cached_is_ancestor, self._is_ancestor, ancestor, descendant)

    def _is_ancestor(self, ancestor: str, descendant: str) -> bool:
        return self.git("merge-base", "--is-ancestor", ancestor, descendant, ok=(0, 1)).returncode == 0

    def merge_base(self, a: str, b: str) -> str | None:
        return self._by_sha(self._cached_merge_base, self._merge_base, a, b)

    def _merge_base(self, a: str, b: str) -> str | None:
        proc = self.git("merge-base", a, b, ok=(0, 1))
        return proc.stdout.decode().strip() or None

    def commits_between(self, base: str, head: str) -> list[str]:
        """Commits reachable from head and not from base, oldest first (GitHub's order)."""
        return list(self._by_sha(self._cached_between, self._between, base, head))

    def _between(self, base: str, head: str) -> tuple[str, ...]:
        return tuple(self.out("rev-list", "--reverse", f"{base}..{head}").split())

    @staticmethod
    def _by_sha(cached: Callable[..., T], plain: Callable[..., T], *revs: str) -> T:
        """What `plain` answers: from `cached` when every rev is a sha (an object, and so a commit's
        history, never changes), afresh when one is a name (a name can move)."""
        return cached(*revs) if all(SHA_RE.match(rev) for rev in revs) else plain(*revs)

    def merge_tree(self, ours: str, theirs: str) -> str | None:
        """The tree of a clean three-way merge (real `git merge-tree`), or None on conflict."""
        return self._cached_merge(ours, theirs)

    def _merge_tree(self, ours: str, theirs: str) -> str | None:
        proc = self.git("merge-tree", "--write-tree", "--no-messages", ours, theirs, ok=(0, 1))
        return proc.stdout.decode().split()[0] if proc.returncode == 0 else None

    def diff(self, base: str, head: str) -> tuple[FileChange, ...]:
        """Files changed from base to head (both commits or trees); immutable, so cached."""
        return self._cached_diff(base, head)

    def _diff(self, base: str, head: str) -> tuple[FileChange, ...]:
        raw = self.git("diff", "--raw", "-z", "-M", "--no-abbrev", base, head).stdout
        numstat = self.git("diff", "--numstat", "-z", "-M", base, head).stdout
        patch_text = self.git("diff", "-M", "--no-color", "--no-ext-diff", base, head).stdout
        patches = _split_patches(patch_text.decode("utf-8", "replace"))
        counts = _parse_numstat(numstat)
        changes = []
        fields = raw.decode("utf-8", "surrogateescape").split("\0")
        i = 0
        while i < len(fields) - 1:
            meta = fields[i].lstrip(":").split()
            letter = meta[4][0]
            if letter in "RC":
                old, new = fields[i + 1], fields[i + 2]
                i += 3
            else:
                old = new = fields[i + 1]
                i += 2
            status = {"A": "added", "D": "deleted", "M": "modified", "R": "renamed", "C": "copied",
                      "T": "changed"}.get(letter, "modified")
            status = "removed" if status == "deleted" else status
            sha = meta[2] if letter == "D" else meta[3]
            adds, dels = counts.get(new, (0, 0))
            changes.append(FileChange(status, new, old if letter in "RC" else None, sha, adds, dels,
                                      patches[len(changes)] if len(changes) < len(patches) else None))
        return tuple(changes)


def _parse_numstat(data: bytes) -> dict[str, tuple[int, int]]:
    counts: dict[str, tuple[int, int]] = {}
    fields = data.decode("utf-8", "surrogateescape").split("\0")
    i = 0
    while i < len(fields):
        if not fields[i]:
            i += 1
            continue
        adds, dels, path = fields[i].split("\t", 2)
        if path == "":  # rename: the two paths follow as separate fields
            path = fields[i + 2]
            i += 3
        else:
            i += 1
        counts[path] = (0 if adds == "-" else int(adds), 0 if dels == "-" else int(dels))
    return counts


def _split_patches(text: str) -> list[str | None]:
    """One entry per file in `git diff` order: the hunks GitHub shows as `patch`, None for binary."""
    patches: list[str | None] = []
    for chunk in re.split(r"^diff --git ", text, flags=re.M)[1:]:
        at = chunk.find("\n@@")
        patches.append(chunk[at + 1:].rstrip("\n") if at >= 0 else None)
    return patches


def init_bare(path: Path, default_branch: str = "main") -> GitStore:
    """An empty bare repository whose HEAD names `default_branch`."""
    subprocess.run(["git", "init", "--bare", "--quiet", f"--initial-branch={default_branch}", str(path)],
                   check=True, capture_output=True)
    return GitStore(path)


def seed_bare_repo(source: Path, bare: Path, branch: str = "main", message: str = "Initial commit",
                   author: Person | None = None) -> str:
    """A new bare repository whose `branch` holds one commit of every file under `source`."""
    store = init_bare(bare, branch)
    who = author or Person("Shelf Seeder", "seeder@example.com", "2026-01-01T00:00:00Z")
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index"), "GIT_WORK_TREE": str(Path(source).resolve())}
        store.git("add", "--all", "--force", ".", env=env)
        tree = store.out("write-tree", env=env)
    sha = store.write_commit(tree, [], message + "\n", who, who)
    store.update_ref(f"refs/heads/{branch}", sha, ZERO)
    return sha
