"""What GitHub keeps beside git: pull requests, comments, statuses, check runs, labels, people.

Everything lives in memory behind one re-entrant lock. Branch heads are never copied here: an
open pull request names its branches and reads their commits from the bare repository, so a push
(over smart HTTP or the Git Data API) is seen at once, exactly as on GitHub.
"""

from __future__ import annotations

import base64
import datetime as dt
import itertools
import threading
from dataclasses import dataclass, field
from typing import Any

PERMISSIONS = ("none", "read", "triage", "write", "maintain", "admin")


def now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def node_id(kind: str, number: int) -> str:
    """An opaque global id in GitHub's style (`PR_kw…`); the GraphQL endpoint looks objects up by it."""
    return f"{kind}_kwDO" + base64.b64encode(f"{kind}:{number}".encode()).decode().rstrip("=")


@dataclass(frozen=True)
class User:
    login: str
    id: int
    type: str = "User"  # "User" or "Bot"


@dataclass(frozen=True)
class Principal:
    """Who a token speaks for, and with what right on the repository.

    `integration` tokens (GITHUB_TOKEN, App installations) are refused with "Resource not
    accessible by integration"; personal tokens with "Resource not accessible by personal access
    token" — the two messages GitHub sends.
    """

    user: User
    permission: str = "write"
    integration: bool = True
    grant: Grant | None = None  # an App installation token's scope; None: the role alone decides

    def allows(self, needed: str) -> bool:
        return PERMISSIONS.index(self.permission) >= PERMISSIONS.index(needed)

    @property
    def app_id(self) -> int | None:
        return self.grant.app_id if self.grant else None


@dataclass(frozen=True)
class Grant:
    """What an installation access token may do: on which repositories, with which permissions
    (`{"contents": "write", "checks": "read", ...}`), until when (epoch seconds)."""

    app_id: int
    installation_id: int
    permissions: tuple[tuple[str, str], ...]
    repositories: frozenset[str]  # lower-case full names (all of the installation's, unless narrowed)
    expires: float

    def level(self, category: str) -> str | None:
        return dict(self.permissions).get(category)

    def covers(self, full_name: str) -> bool:
        return full_name.lower() in self.repositories


@dataclass
class RepoSettings:
    owner: str
    name: str
    id: int = 1296269
    owner_id: int = 583231
    owner_type: str = "Organization"
    default_branch: str = "main"
    private: bool = False
    fork: bool = False
    description: str | None = "A memory shelf"
    allow_auto_merge: bool = False
    allow_squash_merge: bool = True
    allow_merge_commit: bool = True
    allow_rebase_merge: bool = True
    delete_branch_on_merge: bool = False
    created_at: str = field(default_factory=now)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"


@dataclass
class Protection:
    """A branch protection rule: required status contexts (statuses or check-run names)."""

    required_contexts: list[str] = field(default_factory=list)


@dataclass
class Label:
    id: int
    name: str
    color: str = "ededed"
    description: str | None = None
    default: bool = False


@dataclass
class PullRequest:
    number: int
    id: int
    title: str
    body: str | None
    user: User
    head_ref: str
    base_ref: str
    draft: bool = False
    maintainer_can_modify: bool = False
    state: str = "open"
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    closed_at: str | None = None
    merged_at: str | None = None
    merged_by: User | None = None
    merge_commit_sha: str | None = None
    head_sha_frozen: str | None = None  # head commit when merged/closed (branch may move on)
    base_sha_frozen: str | None = None
    labels: list[Label] = field(default_factory=list)
    auto_merge: dict[str, Any] | None = None
    locked: bool = False
    head_repo: str | None = None  # "owner/name" of the fork holding the head branch; None: this repository

    @property
    def head_owner(self) -> str | None:
        """The fork's owner, or None when the head branch lives in this repository."""
        return self.head_repo.partition("/")[0] if self.head_repo else None

    @property
    def node_id(self) -> str:
        return node_id("PR", self.id)


@dataclass
class Issue:
    """A plain issue (not a pull request), e.g. the bot's shelf dashboard; numbered with the pulls."""

    number: int
    id: int
    title: str
    body: str | None
    user: User
    state: str = "open"
    state_reason: str | None = None
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    closed_at: str | None = None
    labels: list[Label] = field(default_factory=list)
    locked: bool = False
    via_app: bool = False
    app_id: int | None = None  # the App whose installation token opened it (None: GitHub Actions)

    @property
    def node_id(self) -> str:
        return node_id("I", self.id)


@dataclass
class Reaction:
    id: int
    content: str
    user: User
    created_at: str = field(default_factory=now)


@dataclass
class Comment:
    id: int
    issue_number: int
    body: str
    user: User
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    reactions: list[Reaction] = field(default_factory=list)
    via_app: bool = False
    app_id: int | None = None  # the App whose installation token wrote it (None: GitHub Actions)


@dataclass
class Review:
    """A submitted pull-request review (`state` in GitHub's words: COMMENTED, APPROVED…)."""

    id: int
    pull_number: int
    user: User
    body: str
    state: str
    commit_id: str
    submitted_at: str = field(default_factory=now)


@dataclass
class ReviewComment:
    """One line comment of a review, placed on the pull request's diff."""

    id: int
    review_id: int
    pull_number: int
    user: User
    path: str
    side: str
    line: int
    position: int
    diff_hunk: str
    body: str
    commit_id: str
    created_at: str = field(default_factory=now)


@dataclass
class Status:
    id: int
    sha: str
    state: str
    context: str
    description: str | None
    target_url: str | None
    creator: User
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)


@dataclass
class CheckRun:
    id: int
    head_sha: str
    name: str
    status: str = "queued"
    conclusion: str | None = None
    started_at: str | None = field(default_factory=now)
    completed_at: str | None = None
    details_url: str | None = None
    external_id: str = ""  # GitHub sends "" when the App set none
    output: dict[str, Any] = field(default_factory=dict)
    annotations: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    suite_id: int = 0
    app_id: int | None = None  # the App that created it (None: GitHub Actions)


@dataclass
class CheckSuite:
    """One App's suite of check runs for one head commit, as GitHub keeps it."""

    id: int
    head_sha: str
    head_branch: str | None
    app_id: int | None
    before: str | None = None
    after: str | None = None
    created_at: str = field(default_factory=now)
    updated_at: str = field(default_factory=now)
    rerequested: bool = False


@dataclass(frozen=True)
class Call:
    """One request as the sandbox saw it, for tests to assert on."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any
    status: int
    login: str | None
    sent: int | None = None  # bytes a git smart-HTTP answer served


ACTIONS_BOT = User("github-actions[bot]", 41898282, "Bot")


class State:
    """All non-git state of one sandboxed repository; hold `lock` across read-modify-write."""

    def __init__(self, settings: RepoSettings, first_id: int = 1001) -> None:
        self.lock = threading.RLock()
        self.repo = settings
        self._ids = itertools.count(first_id)  # repositories of one sandbox draw from disjoint ranges
        self.pulls: dict[int, PullRequest] = {}
        self.issues: dict[int, Issue] = {}  # plain issues only: a pull request is in `pulls`
        self.comments: dict[int, Comment] = {}
        self.reviews: dict[int, Review] = {}
        self.review_comments: dict[int, ReviewComment] = {}
        self.statuses: list[Status] = []
        self.check_runs: dict[int, CheckRun] = {}
        self.check_suites: dict[int, CheckSuite] = {}
        self.labels: dict[str, Label] = {}
        self.protection: dict[str, Protection] = {}
        self.signed_only: set[str] = set()  # branches whose ruleset requires verified signatures
        self.users: dict[str, User] = {ACTIONS_BOT.login: ACTIONS_BOT}
        self.collaborators: dict[str, str] = {settings.owner: "admin", ACTIONS_BOT.login: "write"}
        self.tokens: dict[str, Principal] = {}
        self.default_principal: Principal | None = Principal(ACTIONS_BOT)
        self.calls: list[Call] = []
        self._issue_numbers = itertools.count(1)

    def next_id(self) -> int:
        return next(self._ids)

    def next_number(self) -> int:
        return next(self._issue_numbers)

    # people --------------------------------------------------------------------

    def user(self, login: str, type: str = "User") -> User:
        with self.lock:
            if login not in self.users:
                self.users[login] = User(login, 100000 + len(self.users), type)
            return self.users[login]

    def add_token(self, token: str, login: str, permission: str = "write", integration: bool = True) -> Principal:
        """Map a token to a user and permission; the user becomes a collaborator at that level."""
        if permission not in PERMISSIONS:
            raise ValueError(f"unknown permission {permission!r}")
        with self.lock:
            kind = "Bot" if login.endswith("[bot]") else "User"
            principal = Principal(self.user(login, kind), permission, integration)
            self.tokens[token] = principal
            self.collaborators[login] = permission
            return principal

    def pin_token(self, token: str) -> None:
        """Accept only `token` (and any added later) — `memshelf-bot sandbox --token`."""
        with self.lock:
            self.default_principal = None
            self.tokens[token] = Principal(ACTIONS_BOT)

    def principal(self, token: str | None) -> Principal | None:
        with self.lock:
            if token in self.tokens:
                return self.tokens[token]
            return self.default_principal if token else None

    def permission_of(self, login: str) -> str:
        with self.lock:
            if login in self.collaborators:
                return self.collaborators[login]
            return "none" if self.repo.private else "read"

    # issues and pulls -----------------------------------------------------------

    def pull(self, number: int) -> PullRequest | None:
        return self.pulls.get(number)

    def issue(self, number: int) -> PullRequest | Issue | None:
        """Issue `number` as the Issues API sees it: a pull request or a plain issue."""
        return self.pulls.get(number) or self.issues.get(number)

    def label(self, name: str) -> Label | None:
        return self.labels.get(name.lower())

    def ensure_label(self, name: str) -> Label:
        """Adding an unknown label to an issue creates it, as GitHub does."""
        with self.lock:
            found = self.label(name)
            if found is None:
                found = Label(self.next_id(), name)
                self.labels[name.lower()] = found
            return found

    def latest_statuses(self, sha: str) -> list[Status]:
        """Newest status per context, newest first (what the combined status shows)."""
        with self.lock:
            seen: dict[str, Status] = {}
            for status in reversed(self.statuses):
                if status.sha == sha and status.context not in seen:
                    seen[status.context] = status
            return list(seen.values())

    def check_runs_for(self, sha: str) -> list[CheckRun]:
        with self.lock:
            return [run for run in self.check_runs.values() if run.head_sha == sha]

    def suite_for(self, sha: str, app_id: int | None, branch: str | None) -> CheckSuite:
        """The App's suite for this commit, created on first use (GitHub makes one per App and commit)."""
        with self.lock:
            for suite in self.check_suites.values():
                if suite.head_sha == sha and suite.app_id == app_id:
                    return suite
            suite = CheckSuite(self.next_id(), sha, branch, app_id)
            self.check_suites[suite.id] = suite
            return suite
