"""The bot's GitHub client: PyGithub with GitHub's etiquette for rate limits and flaky answers.

Every request goes through `GitHub.call`, which waits out a rate limit as GitHub asks
(`Retry-After`, else the reset time; 429, or 403 with rate-limit wording), retries a 5xx or a
dropped connection with jittered exponential backoff, and records each wait so a flow can account
for it. PyGithub's own retry is off: one policy, in one place, that tests can see. A 403
"Resource not accessible by integration" marks the client read-only (a fork's token) instead of
failing the flow that asked.
"""

from __future__ import annotations

import base64
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import requests
from github import Auth, Github, GithubException, InputGitAuthor, InputGitTreeElement
from github.Repository import Repository

from .gitlocal import BOT_EMAIL, BOT_NAME

T = TypeVar("T")
MAX_RETRIES = 4  # per request, for 5xx and dropped connections
MAX_RATE_LIMIT_WAIT = 300  # seconds; a longer wait fails the job with a clear message
WRITE_SPACING = 0.25  # seconds between mutating requests (GitHub's secondary-limit advice)
PAGE_SIZE = 100
PR_FILES_CAP = 3000  # GitHub lists at most 3,000 files of a pull request
BOT = InputGitAuthor(BOT_NAME, BOT_EMAIL)
READ_ONLY_MESSAGES = ("Resource not accessible by integration", "Resource not accessible by personal access token")


class ApiUnavailable(RuntimeError):
    """GitHub kept failing (5xx, connection, or a rate limit longer than we wait)."""


@dataclass(frozen=True, slots=True)
class Wait:
    what: str
    reason: str  # "rate limit 429", "server error 502", "connection"
    seconds: float


@dataclass(frozen=True, slots=True)
class TreeItem:
    path: str
    mode: str
    type: str
    sha: str


def is_read_only_refusal(exc: GithubException) -> bool:
    message = exc.data.get("message", "") if isinstance(exc.data, dict) else ""
    return exc.status == 403 and message in READ_ONLY_MESSAGES


def _header(exc: GithubException, name: str) -> str | None:
    headers = {k.lower(): v for k, v in (exc.headers or {}).items()}
    return headers.get(name)


def rate_limit_wait(exc: GithubException, now: float) -> float | None:
    """Seconds GitHub asks us to wait, or None when `exc` is not a rate limit."""
    message = exc.data.get("message", "") if isinstance(exc.data, dict) else ""
    limited = exc.status == 429 or (exc.status == 403 and (
        "rate limit" in message.lower() or _header(exc, "retry-after") is not None
        or _header(exc, "x-ratelimit-remaining") == "0"))
    if not limited:
        return None
    retry_after = _header(exc, "retry-after")
    if retry_after is not None and retry_after.strip().isdigit():
        return float(retry_after)
    reset = _header(exc, "x-ratelimit-reset")
    if reset is not None and reset.strip().isdigit() and _header(exc, "x-ratelimit-remaining") == "0":
        return max(float(reset) - now, 1.0)
    return 60.0  # GitHub: "wait at least one minute" when it names no time


@dataclass
class GitHub:
    """One repository through the REST API; `waits` records every pause and retry."""

    token: str
    api_url: str
    full_name: str
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)
    waits: list[Wait] = field(default_factory=list)
    read_only: bool = False
    write_spacing: float | None = WRITE_SPACING
    notify: Callable[[str], None] | None = None  # told about every wait, for the log

    def __post_init__(self) -> None:
        self.gh = Github(auth=Auth.Token(self.token) if self.token else None, base_url=self.api_url.rstrip("/"),
                         retry=None, per_page=PAGE_SIZE, timeout=30, seconds_between_requests=None,
                         seconds_between_writes=self.write_spacing)
        # not fetched until an attribute is read; what it creates is fetched at once, inside `call`
        self.repo = Repository(self.gh.requester, url=f"/repos/{self.full_name}", completed=False)
        self._trees: dict[tuple[str, bool], list[TreeItem]] = {}

    # the one request policy ---------------------------------------------------------------

    def call(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)`, waiting out rate limits and retrying transient failures."""
        failures = 0
        while True:
            try:
                return fn(*args, **kwargs)
            except GithubException as exc:
                wait = rate_limit_wait(exc, time.time())
                if wait is not None:
                    if wait > MAX_RATE_LIMIT_WAIT:
                        raise ApiUnavailable(f"{what}: GitHub's rate limit asks for a {wait:.0f} s wait, "
                                             f"longer than the {MAX_RATE_LIMIT_WAIT} s this job waits") from exc
                    self._pause(what, f"rate limit {exc.status}", wait)
                    continue
                if exc.status < 500:
                    raise
                failures += 1
                if failures > MAX_RETRIES:
                    raise ApiUnavailable(f"{what}: GitHub answered {exc.status} {MAX_RETRIES + 1} times") from exc
                self._pause(what, f"server error {exc.status}", self._backoff(failures))
            except requests.exceptions.RequestException as exc:
                failures += 1
                if failures > MAX_RETRIES:
                    raise ApiUnavailable(f"{what}: cannot reach GitHub at {self.api_url} ({type(exc).__name__})") \
                        from exc
                self._pause(what, "connection", self._backoff(failures))

    def _backoff(self, failures: int) -> float:
        return self.rng.uniform(0.5, 1.0) * min(2 ** (failures - 1), 8)

    def _pause(self, what: str, reason: str, seconds: float) -> None:
        self.waits.append(Wait(what, reason, seconds))
        if self.notify is not None:
            self.notify(f"memshelf-bot: {what}: {reason}; waiting {seconds:.1f} s before trying again")
        self.sleep(seconds)

    def write(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T | None:
        """A write the flow can live without: None (and `read_only` set) when the token may not write."""
        try:
            return self.call(what, fn, *args, **kwargs)
        except GithubException as exc:
            if is_read_only_refusal(exc):
                self.read_only = True
                return None
            raise

    # reads ------------------------------------------------------------------------------

    def pull(self, number: int) -> Any:
        return self.call(f"read pull request #{number}", self.repo.get_pull, number)

    def pull_files(self, pull: Any) -> list[Any]:
        """Every file GitHub lists for the pull request (at most PR_FILES_CAP), all pages."""
        return self.call(f"list the files of #{pull.number}", lambda: list(pull.get_files()))

    def ref_sha(self, branch: str) -> tuple[Any, str]:
        """The branch's ref (read now: PyGithub's lazy ref would PATCH a URL GitHub does not serve)
        and the commit it points at."""
        ref = self.call(f"read refs/heads/{branch}", lambda: self._read_ref(branch))
        return ref, ref.object.sha

    def _read_ref(self, branch: str) -> Any:
        ref = self.repo.get_git_ref(f"heads/{branch}")
        ref.object  # noqa: B018 - completes the lazy object: one GET, errors raised here
        return ref

    def _tree(self, sha: str, recursive: bool) -> list[TreeItem]:
        """One tree's entries; a tree (or commit) sha names immutable content, so it is cached."""
        key = (sha, recursive)
        if key not in self._trees:
            tree = self.call("read a git tree", self.repo.get_git_tree, sha, recursive=recursive)
            if tree.raw_data.get("truncated"):
                raise ApiUnavailable(f"git tree {sha[:12]} is too large for one API answer")
            self._trees[key] = [TreeItem(e.path, e.mode, e.type, e.sha) for e in tree.tree]
        return self._trees[key]

    def listing(self, commit_or_tree: str, directory: str = "", recursive: bool = False) -> list[TreeItem] | None:
        """Entries of `directory` (repo-relative, '' = root) at a commit or tree; None when absent."""
        tree_sha = commit_or_tree
        for part in [p for p in directory.split("/") if p and p != "."]:
            found = next((i for i in self._tree(tree_sha, False) if i.path == part and i.type == "tree"), None)
            if found is None:
                return None
            tree_sha = found.sha
        return self._tree(tree_sha, recursive)

    def blob(self, sha: str) -> bytes:
        blob = self.call("read a git blob", self.repo.get_git_blob, sha)
        return base64.b64decode(blob.content) if blob.encoding == "base64" else blob.content.encode("utf-8")

    def file_at(self, commit: str, path: str) -> bytes | None:
        """A file's bytes at `commit` (repo-relative path), None when it is not a file there."""
        directory, _, name = path.rpartition("/")
        items = self.listing(commit, directory)
        entry = next((i for i in items or () if i.path == name and i.type == "blob"), None)
        return None if entry is None else self.blob(entry.sha)

    def text_at(self, commit: str, path: str) -> str:
        """A text file at `commit` ('' when absent), undecodable bytes replaced."""
        data = self.file_at(commit, path)
        return "" if data is None else data.decode("utf-8", errors="replace")

    # writes -------------------------------------------------------------------------------

    def commit_files(self, parent: str, files: dict[str, bytes | None], message: str) -> str:
        """A commit on `parent` that writes (bytes) or deletes (None) repo-relative paths."""
        parent_commit = self.call("read the parent commit", self.repo.get_git_commit, parent)
        base_tree = self.call("read the parent tree", self.repo.get_git_tree, parent_commit.tree.sha)
        elements = []
        for path, data in files.items():
            if data is None:
                elements.append(InputGitTreeElement(path, "100644", "blob", sha=None))
                continue
            try:
                elements.append(InputGitTreeElement(path, "100644", "blob", content=data.decode("utf-8")))
            except UnicodeDecodeError:
                blob = self.call(f"write {path}", self.repo.create_git_blob,
                                 base64.b64encode(data).decode("ascii"), "base64")
                elements.append(InputGitTreeElement(path, "100644", "blob", sha=blob.sha))
        tree = self.call("write the tree", self.repo.create_git_tree, elements, base_tree)
        commit = self.call("write the commit", self.repo.create_git_commit, message, tree, [parent_commit],
                           author=BOT, committer=BOT)
        return commit.sha
