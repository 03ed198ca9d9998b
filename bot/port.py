"""The GitHub port: the few GitHub operations the flows need, and nothing else.

Flows talk to GitHub only through `GitHubPort`, so the Action and the App run the same flows over
different front doors, and tests run them against a recording fake. Everything that crosses the
port is a small frozen dataclass or a StrEnum: no dicts, no PyGithub objects. A refusal a flow
must decide on is either a typed outcome (`RefUpdate`, `AutoMergeAnswer`) or a `PortError` whose
`reason` says what GitHub meant.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Protocol, runtime_checkable

PR_FILES_CAP = 3000  # GitHub lists at most 3,000 files of a pull request
COMPARE_FILES_CAP = 300  # GitHub's compare lists at most 300 files
ANNOTATIONS_PER_REQUEST = 50  # GitHub takes at most 50 check-run annotations per request
CHECK_TEXT_LIMIT = 65535  # characters of a check run's output summary, and of its text
COMMENT_LIMIT = 65536  # characters of an issue comment body
ACTIONS_BOT = "github-actions[bot]"  # who GITHUB_TOKEN writes as when the token cannot say
WRITE_SPACING = 0.25  # seconds between mutating requests (GitHub's secondary-limit advice)


class Reason(StrEnum):
    """Why GitHub refused a request, as far as a flow needs to know."""

    READ_ONLY = "read-only"  # the token may not write here (a fork's token, missing permission)
    NOT_FOUND = "not-found"
    NON_FAST_FORWARD = "non-fast-forward"
    PROTECTED = "protected"  # a branch protection rule
    RULESET = "ruleset"  # a repository ruleset (GH013)
    ALREADY_EXISTS = "already-exists"
    INVALID = "invalid"  # 422 for another reason
    FORBIDDEN = "forbidden"  # 401/403 for another reason (a bad token, a missing permission)
    RATE_LIMITED = "rate-limited"  # a rate limit longer than the adapter waits
    UNAVAILABLE = "unavailable"  # 5xx or no connection, after the adapter's retries


class PortError(RuntimeError):
    """A request GitHub refused or could not answer: `message` says what was asked and why,
    `detail` is GitHub's own words (both never hold a token)."""

    def __init__(self, reason: Reason, message: str, status: int | None = None, detail: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.status = status
        self.detail = detail or message


# pull requests ---------------------------------------------------------------------------


class FileStatus(StrEnum):
    ADDED = "added"
    REMOVED = "removed"
    MODIFIED = "modified"
    RENAMED = "renamed"
    COPIED = "copied"
    CHANGED = "changed"
    UNCHANGED = "unchanged"


@dataclass(frozen=True, slots=True)
class ChangedFile:
    """One file of a pull request or a comparison, as GitHub lists it."""

    status: FileStatus
    path: str
    previous_path: str | None = None
    patch: str | None = None  # the diff's hunks as GitHub lists them (None: binary, too large, or a pure rename)


@dataclass(frozen=True, slots=True)
class PullFiles:
    """A pull request's files (every page); `total` is what GitHub counts, which exceeds
    `len(files)` when the pull request changes more than GitHub lists."""

    files: tuple[ChangedFile, ...]
    total: int

    @property
    def unlisted(self) -> int:
        return max(self.total - len(self.files), 0)


class PullState(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class PullRequest:
    number: int
    state: PullState
    title: str
    body: str
    head_ref: str
    head_sha: str
    head_repo: str | None  # full name; None when the head repository was deleted
    head_label: str  # owner:branch
    base_ref: str
    base_sha: str
    merged: bool = False
    auto_merge: bool = False
    changed_files: int = 0
    labels: tuple[str, ...] = ()
    node_id: str = ""

    def is_fork_of(self, full_name: str) -> bool:
        return self.head_repo is None or self.head_repo.lower() != full_name.lower()


@dataclass(frozen=True, slots=True)
class PullEdit:
    """What to change on a pull request; None leaves a field as it is."""

    title: str | None = None
    body: str | None = None
    state: PullState | None = None


# conversation ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Comment:
    """An issue (conversation) comment with its author, so the bot can tell its own."""

    id: int
    body: str
    author: str  # login
    author_is_bot: bool = False


class Reaction(StrEnum):
    SEEN = "eyes"
    DONE = "rocket"
    FAILED = "confused"


class Permission(StrEnum):
    """A collaborator's permission (GitHub's answer folds maintain into write, triage into read)."""

    ADMIN = "admin"
    WRITE = "write"
    READ = "read"
    NONE = "none"

    @property
    def may_write(self) -> bool:
        return self in (Permission.ADMIN, Permission.WRITE)


@dataclass(frozen=True, slots=True)
class Label:
    name: str
    color: str
    description: str


@dataclass(frozen=True, slots=True)
class ReviewComment:
    """A comment on one line of a pull request's diff (e.g. a ```suggestion block)."""

    path: str
    line: int
    body: str


@dataclass(frozen=True, slots=True)
class PostedReviewComment:
    """A review comment already on a pull request, with its author (so the bot can tell its own)."""

    comment: ReviewComment
    author: str  # login


# statuses and check runs -----------------------------------------------------------------


class StatusState(StrEnum):
    PENDING = "pending"
    SUCCESS = "success"
    FAILURE = "failure"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class CommitStatus:
    state: StatusState
    context: str
    description: str  # GitHub keeps at most 140 characters
    target_url: str | None = None


class AnnotationLevel(StrEnum):
    NOTICE = "notice"
    WARNING = "warning"
    FAILURE = "failure"


@dataclass(frozen=True, slots=True)
class Annotation:
    path: str
    start_line: int
    end_line: int
    level: AnnotationLevel
    message: str
    title: str = ""


@dataclass(frozen=True, slots=True)
class CheckOutput:
    """A check run's output: title, summary and text each within CHECK_TEXT_LIMIT characters;
    the adapter sends the annotations ANNOTATIONS_PER_REQUEST at a time."""

    title: str
    summary: str
    text: str = ""
    annotations: tuple[Annotation, ...] = ()


class CheckStatus(StrEnum):
    QUEUED = "queued"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"


class Conclusion(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"
    NEUTRAL = "neutral"
    ACTION_REQUIRED = "action_required"
    CANCELLED = "cancelled"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class CheckRun:
    id: int
    name: str
    head_sha: str
    status: CheckStatus
    conclusion: Conclusion | None = None
    external_id: str = ""  # the App's job key, so a job run again finds its own check run


# git data ------------------------------------------------------------------------------


class EntryType(StrEnum):
    BLOB = "blob"
    TREE = "tree"
    COMMIT = "commit"  # a submodule


@dataclass(frozen=True, slots=True)
class TreeEntry:
    path: str  # relative to the directory listed
    mode: str
    type: EntryType
    sha: str


@dataclass(frozen=True, slots=True)
class CommitInfo:
    sha: str
    author_email: str
    committer_email: str
    author_login: str | None = None  # the GitHub account, when GitHub links one
    committer_login: str | None = None

    def by(self, identity: Identity) -> bool:
        """Authored and committed by `identity`."""
        return all(login is not None and login.lower() == identity.login.lower()
                   for login in (self.author_login, self.committer_login))


@dataclass(frozen=True, slots=True)
class Comparison:
    """`base...head`: what head adds (files at most COMPARE_FILES_CAP) and its commits."""

    base_sha: str
    merge_base_sha: str
    ahead_by: int
    behind_by: int
    files: tuple[ChangedFile, ...] = ()
    commits: tuple[CommitInfo, ...] = ()


class RefUpdate(StrEnum):
    """How a fast-forward-only branch update ended (the refusals a flow decides on)."""

    MOVED = "moved"
    NON_FAST_FORWARD = "non-fast-forward"  # the branch moved meanwhile: re-read and retry
    PROTECTED = "protected"
    RULESET = "ruleset"
    READ_ONLY = "read-only"


class MergeMethod(StrEnum):
    MERGE = "merge"
    SQUASH = "squash"
    REBASE = "rebase"


class AutoMergeAnswer(StrEnum):
    """What GitHub said to enabling auto-merge."""

    ENABLED = "enabled"
    NOT_ALLOWED = "not-allowed"  # the repository does not allow auto-merge
    HEAD_MOVED = "head-moved"  # the head is no longer the validated commit
    CONFLICT = "conflict"
    CLEAN = "clean"  # nothing left to wait for: merge now instead
    REFUSED = "refused"


@dataclass(frozen=True, slots=True)
class AutoMergeResult:
    answer: AutoMergeAnswer
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Wait:
    """One pause the adapter made because GitHub asked (rate limit) or failed (retry)."""

    what: str
    reason: str
    seconds: float


@dataclass(frozen=True, slots=True)
class Identity:
    """Who the bot is on GitHub: its comments, commits and events are recognised by this login."""

    login: str

    def wrote(self, comment: Comment | PostedReviewComment) -> bool:
        return comment.author.lower() == self.login.lower()


class FileMode(StrEnum):
    """The modes a file written through the port may have (a submodule, 160000, is never written)."""

    FILE = "100644"
    EXECUTABLE = "100755"
    SYMLINK = "120000"  # the file's bytes are the link's target


@dataclass(frozen=True, slots=True)
class FilesCommit:
    """Files to write (bytes) or delete (None), repo-relative, on the tree of `parent`; a path
    missing from `modes` is a plain file. `merged` are further parents after `parent`: a merge
    commit whose tree is `parent`'s with `files` applied."""

    parent: str
    message: str
    files: Mapping[str, bytes | None] = field(default_factory=dict)
    modes: Mapping[str, FileMode] = field(default_factory=dict)
    merged: tuple[str, ...] = ()

    @property
    def parents(self) -> tuple[str, ...]:
        return (self.parent, *self.merged)

    def mode(self, path: str) -> FileMode:
        return self.modes.get(path, FileMode.FILE)


# issues (the shelf dashboard) -------------------------------------------------------------


class IssueState(StrEnum):
    OPEN = "open"
    CLOSED = "closed"


@dataclass(frozen=True, slots=True)
class Issue:
    """An issue (never a pull request), with its author so the bot can tell its own."""

    number: int
    state: IssueState
    title: str
    body: str
    author: str  # login
    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class IssueEdit:
    """What to change on an issue; None leaves a field as it is."""

    title: str | None = None
    body: str | None = None
    state: IssueState | None = None


@runtime_checkable
class GitHubPort(Protocol):
    """One repository on GitHub, as the flows see it. Writes the token may not make raise
    `PortError(Reason.READ_ONLY)` and set `read_only`; the adapter owns retries and pacing."""

    @property
    def full_name(self) -> str: ...

    @property
    def read_only(self) -> bool: ...

    @property
    def waits(self) -> Sequence[Wait]: ...

    def identity(self) -> Identity: ...

    def mark_read_only(self) -> None:
        """From now on treat the token as read-only (a fork's pull_request run)."""

    def default_branch(self) -> str: ...

    # pull requests
    def pull(self, number: int) -> PullRequest: ...

    def pull_files(self, number: int) -> PullFiles: ...

    def open_pulls(self, head_branch: str, base: str | None = None) -> tuple[PullRequest, ...]:
        """Open pull requests whose head is `head_branch` of this repository, oldest first."""

    def open_pull(self, *, title: str, body: str, head: str, base: str) -> PullRequest: ...

    def update_pull(self, number: int, edit: PullEdit) -> None: ...

    # the conversation
    def comments(self, number: int) -> tuple[Comment, ...]: ...

    def create_comment(self, number: int, body: str) -> Comment: ...

    def edit_comment(self, comment_id: int, body: str) -> None: ...

    def delete_comment(self, comment_id: int) -> None: ...

    def react(self, comment_id: int, reaction: Reaction) -> None: ...

    def permission(self, login: str) -> Permission: ...

    def ensure_label(self, label: Label) -> None: ...

    def add_labels(self, number: int, names: Sequence[str]) -> None: ...

    def remove_label(self, number: int, name: str) -> None: ...

    def review(self, number: int, commit_sha: str, comments: Sequence[ReviewComment], body: str = "") -> None: ...

    def review_comments(self, number: int) -> tuple[PostedReviewComment, ...]:
        """The pull request's review comments that sit on a line of its current diff (outdated ones,
        whose line GitHub no longer shows, are left out), oldest first."""

    # verdicts
    def set_status(self, sha: str, status: CommitStatus) -> None: ...

    def check_runs(self, head_sha: str, name: str) -> tuple[CheckRun, ...]:
        """Every check run named `name` on `head_sha` (not only the latest), newest first."""

    def create_check_run(self, name: str, head_sha: str, status: CheckStatus, output: CheckOutput | None = None,
                         conclusion: Conclusion | None = None, external_id: str = "") -> CheckRun: ...

    def update_check_run(self, run_id: int, status: CheckStatus, conclusion: Conclusion | None = None,
                         output: CheckOutput | None = None) -> CheckRun: ...

    # git data
    def branch_sha(self, branch: str) -> str: ...

    def compare(self, base: str, head: str) -> Comparison: ...

    def tree(self, commit: str, directory: str = "", recursive: bool = False) -> tuple[TreeEntry, ...] | None:
        """Entries of `directory` (repo-relative, '' = root) at a commit; None when absent."""

    def file_at(self, commit: str, path: str) -> bytes | None:
        """A file's bytes at `commit`; None when it is not a file there."""

    def create_commit(self, commit: FilesCommit) -> str:
        """Blobs, a tree on the first parent's and a commit of every parent with no explicit author
        or committer (so GitHub signs it); the new commit's sha. No ref moves."""

    def move_branch(self, branch: str, sha: str) -> RefUpdate:
        """Fast-forward `branch` to `sha` (never a force)."""

    def create_branch(self, branch: str, sha: str) -> None: ...

    def reset_bot_branch(self, branch: str, sha: str) -> None:
        """Point one of the bot's own branches at `sha`, forced (only for branches the bot owns)."""

    def delete_branch(self, branch: str) -> None: ...

    # merging
    def enable_auto_merge(self, pull: PullRequest, head_sha: str, method: MergeMethod) -> AutoMergeResult: ...

    def disable_auto_merge(self, pull: PullRequest) -> None: ...

    def merge(self, number: int, head_sha: str, method: MergeMethod) -> str:
        """Merge now; the merge commit's sha."""

    # issues (the shelf dashboard)
    def labeled_issues(self, label: str, creator: str | None = None) -> tuple[Issue, ...]:
        """The issues (no pull requests), open and closed, that carry `label` (and that `creator`
        opened, when given), oldest first."""

    def create_issue(self, title: str, body: str, labels: Sequence[str]) -> Issue: ...

    def update_issue(self, number: int, edit: IssueEdit) -> None: ...
