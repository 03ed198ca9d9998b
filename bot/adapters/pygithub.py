"""The GitHub port over PyGithub, with GitHub's etiquette for rate limits and flaky answers.

Every request goes through `PyGithubPort.call`, which waits out a rate limit as GitHub asks
(`Retry-After`, else the reset time; 429, or 403 with rate-limit wording), retries a 5xx or a
dropped connection with jittered exponential backoff, and records each wait so a flow can account
for it. PyGithub's own retry is off: one policy, in one place, that tests can see. Writes are
spaced (GitHub's secondary-limit advice). A 403 "Resource not accessible by integration" marks the
port read-only (a fork's token). Every refusal leaves as a `PortError` with a `Reason`; nothing
from PyGithub crosses the port.
"""

from __future__ import annotations

import base64
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import quote

import requests
from github import Auth, Github, GithubException, InputGitTreeElement
from github.Issue import Issue
from github.IssueComment import IssueComment
from github.PullRequest import PullRequest as GhPull
from github.Repository import Repository

from ..port import (
    ACTIONS_BOT,
    ANNOTATIONS_PER_REQUEST,
    CHECK_TEXT_LIMIT,
    WRITE_SPACING,
    AutoMergeAnswer,
    AutoMergeResult,
    ChangedFile,
    CheckOutput,
    CheckRun,
    CheckStatus,
    Comment,
    CommitInfo,
    CommitStatus,
    Comparison,
    Conclusion,
    EntryType,
    FilesCommit,
    FileStatus,
    Identity,
    IssueEdit,
    IssueState,
    Label,
    MergeMethod,
    Permission,
    PortError,
    PostedReviewComment,
    PullEdit,
    PullFiles,
    PullRequest,
    PullState,
    Reaction,
    Reason,
    RefUpdate,
    ReviewComment,
    TreeEntry,
    Wait,
)
from ..port import Issue as IssueInfo

T = TypeVar("T")
MAX_RETRIES = 4  # per request, for 5xx and dropped connections
MAX_RATE_LIMIT_WAIT = 300  # seconds; a longer wait fails the job with a clear message
PAGE_SIZE = 100
MAX_ISSUE_PAGES = 10  # the bot's own labeled issues: one dashboard, a few at most after a race
READ_ONLY_MESSAGES = ("Resource not accessible by integration", "Resource not accessible by personal access token")
PERMISSIONS = {"admin": Permission.ADMIN, "maintain": Permission.WRITE, "write": Permission.WRITE,
               "triage": Permission.READ, "read": Permission.READ}
REF_REFUSALS = {Reason.NON_FAST_FORWARD: RefUpdate.NON_FAST_FORWARD, Reason.PROTECTED: RefUpdate.PROTECTED,
                Reason.RULESET: RefUpdate.RULESET, Reason.READ_ONLY: RefUpdate.READ_ONLY}
CUT_NOTE = "\n\n… (cut at GitHub's limit of 65,535 characters)"


def messages(exc: GithubException) -> list[str]:
    """GitHub's message and the messages of its `errors` list."""
    data = exc.data if isinstance(exc.data, dict) else {}
    found = [str(data.get("message", ""))]
    found += [str(e.get("message", "")) for e in data.get("errors") or () if isinstance(e, dict)]
    return [m for m in found if m]


def is_read_only_refusal(exc: GithubException) -> bool:
    message = exc.data.get("message", "") if isinstance(exc.data, dict) else ""
    return exc.status == 403 and message in READ_ONLY_MESSAGES


def reason_of(exc: GithubException) -> Reason:
    """What a GitHub refusal means for a flow."""
    text = " ".join(messages(exc)).lower()
    if is_read_only_refusal(exc):
        return Reason.READ_ONLY
    if exc.status == 404:
        return Reason.NOT_FOUND
    if exc.status in (409, 422) and ("gh013" in text or "rule violation" in text):
        return Reason.RULESET
    if exc.status in (409, 422) and ("protected branch" in text or "required status check" in text):
        return Reason.PROTECTED
    if exc.status == 422 and "fast forward" in text:
        return Reason.NON_FAST_FORWARD
    if exc.status == 422 and "already exists" in text:
        return Reason.ALREADY_EXISTS
    if exc.status in (401, 403):
        return Reason.FORBIDDEN
    return Reason.INVALID


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


def fit(text: str, limit: int = CHECK_TEXT_LIMIT) -> str:
    """`text` within `limit` characters, with a visible note when it was cut."""
    return text if len(text) <= limit else text[: limit - len(CUT_NOTE)] + CUT_NOTE


def _pull(data: dict[str, Any]) -> PullRequest:
    head, base = data.get("head") or {}, data.get("base") or {}
    return PullRequest(
        number=int(data["number"]), state=PullState(data.get("state", "open")), title=data.get("title") or "",
        body=data.get("body") or "", head_ref=head.get("ref", ""), head_sha=head.get("sha", ""),
        head_repo=(head.get("repo") or {}).get("full_name"), head_label=head.get("label", ""),
        base_ref=base.get("ref", ""),
        base_sha=base.get("sha", ""), merged=bool(data.get("merged")), auto_merge=data.get("auto_merge") is not None,
        changed_files=int(data.get("changed_files") or 0),
        labels=tuple(str(label.get("name", "")) for label in data.get("labels") or ()),
        node_id=data.get("node_id") or "")


def _changed(status: str, path: str, previous: str | None, patch: str | None = None) -> ChangedFile:
    known = next((s for s in FileStatus if s.value == status), FileStatus.MODIFIED)
    return ChangedFile(known, path, previous or None, patch or None)


def _check_run(data: dict[str, Any]) -> CheckRun:
    conclusion = data.get("conclusion")
    return CheckRun(int(data["id"]), data.get("name", ""), data.get("head_sha", ""), CheckStatus(data["status"]),
                    Conclusion(conclusion) if conclusion else None, data.get("external_id") or "")


def _output(output: CheckOutput, annotations: Sequence[Any]) -> dict[str, Any]:
    return {"title": fit(output.title, 255), "summary": fit(output.summary),
            **({"text": fit(output.text)} if output.text else {}),
            "annotations": [{"path": a.path, "start_line": a.start_line, "end_line": a.end_line,
                             "annotation_level": a.level.value, "message": fit(a.message, 64 * 1024),
                             **({"title": fit(a.title, 255)} if a.title else {})} for a in annotations]}


@dataclass
class PyGithubPort:
    """One repository through the REST API. `identity` is the bot's login when the front door
    knows it (the App: `<slug>[bot]`); the Action asks `GET /user`, else it is github-actions[bot]."""

    token: str
    api_url: str
    full_name: str
    identity_login: str | None = None
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = field(default_factory=random.Random)
    waits: list[Wait] = field(default_factory=list)
    read_only: bool = False
    write_spacing: float | None = WRITE_SPACING
    notify: Callable[[str], None] | None = None  # told about every wait, for the log
    auth: Auth.Auth | None = None  # instead of `token` (the App's installation auth)

    def __post_init__(self) -> None:
        auth = self.auth or (Auth.Token(self.token) if self.token else None)
        self.gh = Github(auth=auth, base_url=self.api_url.rstrip("/"), retry=None, per_page=PAGE_SIZE, timeout=30,
                         seconds_between_requests=None, seconds_between_writes=self.write_spacing)
        self.requester = self.gh.requester
        # not fetched until an attribute is read; what it creates is fetched at once, inside `call`
        self.repo = Repository(self.requester, url=f"/repos/{self.full_name}", completed=False)
        self.url = self.repo.url
        self._trees: dict[tuple[str, bool], tuple[TreeEntry, ...]] = {}
        self._identity: Identity | None = Identity(self.identity_login) if self.identity_login else None

    # the one request policy ---------------------------------------------------------------

    def call(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """`fn(*args, **kwargs)`, waiting out rate limits and retrying transient failures; a
        refusal raises PortError (and a read-only refusal marks the port read-only)."""
        failures = 0
        while True:
            try:
                return fn(*args, **kwargs)
            except GithubException as exc:
                wait = rate_limit_wait(exc, time.time())
                if wait is not None:
                    if wait > MAX_RATE_LIMIT_WAIT:
                        raise PortError(Reason.RATE_LIMITED, f"{what}: GitHub's rate limit asks for a {wait:.0f} s "
                                        f"wait, longer than the {MAX_RATE_LIMIT_WAIT} s this job waits",
                                        exc.status) from exc
                    self._pause(what, f"rate limit {exc.status}", wait)
                    continue
                if exc.status < 500:
                    reason = reason_of(exc)
                    if reason is Reason.READ_ONLY:
                        self.read_only = True
                    detail = "; ".join(messages(exc)) or f"GitHub answered {exc.status}"
                    raise PortError(reason, f"{what}: {detail}", exc.status, detail) from exc
                failures += 1
                if failures > MAX_RETRIES:
                    raise PortError(Reason.UNAVAILABLE, f"{what}: GitHub answered {exc.status} {MAX_RETRIES + 1} "
                                    "times", exc.status) from exc
                self._pause(what, f"server error {exc.status}", self._backoff(failures))
            except requests.exceptions.RequestException as exc:
                failures += 1
                if failures > MAX_RETRIES:
                    raise PortError(Reason.UNAVAILABLE, f"{what}: cannot reach GitHub at {self.api_url} "
                                    f"({type(exc).__name__})") from exc
                self._pause(what, "connection", self._backoff(failures))

    def _backoff(self, failures: int) -> float:
        return self.rng.uniform(0.5, 1.0) * min(2 ** (failures - 1), 8)

    def _pause(self, what: str, reason: str, seconds: float) -> None:
        self.waits.append(Wait(what, reason, seconds))
        if self.notify is not None:
            self.notify(f"memshelf-bot: {what}: {reason}; waiting {seconds:.1f} s before trying again")
        self.sleep(seconds)

    def _json(self, what: str, verb: str, path: str, body: dict[str, Any] | None = None) -> Any:
        """One REST request (path relative to the repository's API URL); its JSON answer."""
        _, data = self.call(what, self.requester.requestJsonAndCheck, verb, f"{self.url}{path}", input=body)
        return data

    def _write(self, what: str, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """A write: refused at once when the port is known to be read-only."""
        if self.read_only:
            raise PortError(Reason.READ_ONLY, f"{what}: the token may not write here")
        return self.call(what, fn, *args, **kwargs)

    def _checks_write(self, what: str, verb: str, path: str, body: dict[str, Any]) -> CheckRun:
        """A check-run write. `checks: write` is a permission of its own: a refusal here says
        nothing about the token's other writes, so it does not mark the port read-only."""
        was = self.read_only
        try:
            return _check_run(self._write(what, self.requester.requestJsonAndCheck, verb, f"{self.url}{path}",
                                          input=body)[1])
        except PortError:
            self.read_only = was
            raise

    # who and where ------------------------------------------------------------------------

    def identity(self) -> Identity:
        if self._identity is None:
            was = self.read_only
            try:
                _, data = self.call("read the token's user", self.requester.requestJsonAndCheck, "GET", "/user")
                login = str((data or {}).get("login") or ACTIONS_BOT)
            except PortError as exc:
                if exc.reason in (Reason.RATE_LIMITED, Reason.UNAVAILABLE):
                    raise
                self.read_only = was  # GITHUB_TOKEN may not read /user, which says nothing about its writes
                login = ACTIONS_BOT  # and it writes as github-actions[bot]
            self._identity = Identity(login)
        return self._identity

    def mark_read_only(self) -> None:
        self.read_only = True

    def default_branch(self) -> str:
        return str(self._json("read the repository", "GET", "")["default_branch"])

    # pull requests ------------------------------------------------------------------------

    def pull(self, number: int) -> PullRequest:
        return _pull(self._json(f"read pull request #{number}", "GET", f"/pulls/{number}"))

    def pull_files(self, number: int) -> PullFiles:
        """Every file GitHub lists (at most 3,000), all pages, and how many the PR changes."""
        lazy = GhPull(self.requester, url=f"{self.url}/pulls/{number}", completed=False)
        files = self.call(f"list the files of #{number}", lambda: [
            _changed(f.status, f.filename, f.previous_filename, f.patch) for f in lazy.get_files()])
        return PullFiles(tuple(files), max(self.pull(number).changed_files, len(files)))

    def open_pulls(self, head_branch: str, base: str | None = None) -> tuple[PullRequest, ...]:
        owner = self.full_name.split("/", 1)[0]
        query = {"state": "open", "head": f"{owner}:{head_branch}", "sort": "created", "direction": "asc"}
        if base is not None:
            query["base"] = base
        found = self.call(f"list the pull requests of {head_branch}", lambda: [
            _pull(p.raw_data) for p in self.repo.get_pulls(**query)])
        return tuple(sorted(found, key=lambda p: p.number))

    def open_pull(self, *, title: str, body: str, head: str, base: str) -> PullRequest:
        return _pull(self._write(f"open a pull request for {head}", self.requester.requestJsonAndCheck, "POST",
                                 f"{self.url}/pulls", input={"title": title, "body": body, "head": head,
                                                             "base": base})[1])

    def update_pull(self, number: int, edit: PullEdit) -> None:
        body = {k: v for k, v in (("title", edit.title), ("body", edit.body),
                                  ("state", edit.state.value if edit.state else None)) if v is not None}
        if body:
            self._write(f"update pull request #{number}", self.requester.requestJsonAndCheck, "PATCH",
                        f"{self.url}/pulls/{number}", input=body)

    # the conversation ---------------------------------------------------------------------

    def comments(self, number: int) -> tuple[Comment, ...]:
        issue = Issue(self.requester, url=f"{self.url}/issues/{number}", completed=False)
        return self.call(f"list the comments of #{number}", lambda: tuple(
            Comment(c.id, c.body or "", c.user.login if c.user else "", bool(c.user and c.user.type == "Bot"))
            for c in issue.get_comments()))

    def create_comment(self, number: int, body: str) -> Comment:
        data = self._write(f"comment on #{number}", self.requester.requestJsonAndCheck, "POST",
                           f"{self.url}/issues/{number}/comments", input={"body": body})[1]
        user = data.get("user") or {}
        return Comment(int(data["id"]), data.get("body") or "", user.get("login", ""), user.get("type") == "Bot")

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._write("edit a comment", self.requester.requestJsonAndCheck, "PATCH",
                    f"{self.url}/issues/comments/{comment_id}", input={"body": body})

    def delete_comment(self, comment_id: int) -> None:
        self._write("delete a comment", self.requester.requestJsonAndCheck, "DELETE",
                    f"{self.url}/issues/comments/{comment_id}")

    def react(self, comment_id: int, reaction: Reaction) -> None:
        target = IssueComment(self.requester, url=f"{self.url}/issues/comments/{comment_id}", completed=False)
        self._write(f"react {reaction.value} to a comment", target.create_reaction, reaction.value)

    def permission(self, login: str) -> Permission:
        try:
            data = self._json(f"read {login}'s permission", "GET", f"/collaborators/{quote(login, safe='')}/permission")
        except PortError as exc:
            if exc.reason is Reason.NOT_FOUND:
                return Permission.NONE
            raise
        return PERMISSIONS.get(str(data.get("permission", "")), Permission.NONE)

    def ensure_label(self, label: Label) -> None:
        try:
            self._json(f"read the label {label.name}", "GET", f"/labels/{quote(label.name, safe='')}")
            return
        except PortError as exc:
            if exc.reason is not Reason.NOT_FOUND:
                raise
        try:
            self._write(f"create the label {label.name}", self.requester.requestJsonAndCheck, "POST",
                        f"{self.url}/labels", input={"name": label.name, "color": label.color,
                                                     "description": label.description})
        except PortError as exc:
            if exc.reason not in (Reason.ALREADY_EXISTS, Reason.INVALID):  # created meanwhile by a concurrent run
                raise

    def add_labels(self, number: int, names: Sequence[str]) -> None:
        self._write(f"label #{number}", self.requester.requestJsonAndCheck, "POST",
                    f"{self.url}/issues/{number}/labels", input={"labels": list(names)})

    def remove_label(self, number: int, name: str) -> None:
        try:
            self._write(f"unlabel #{number}", self.requester.requestJsonAndCheck, "DELETE",
                        f"{self.url}/issues/{number}/labels/{quote(name, safe='')}")
        except PortError as exc:
            if exc.reason is not Reason.NOT_FOUND:  # removed meanwhile
                raise

    def review(self, number: int, commit_sha: str, comments: Sequence[ReviewComment], body: str = "") -> None:
        payload: dict[str, Any] = {"commit_id": commit_sha, "event": "COMMENT",
                                   "comments": [{"path": c.path, "line": c.line, "side": "RIGHT", "body": c.body}
                                                for c in comments]}
        if body:
            payload["body"] = body
        self._write(f"review #{number}", self.requester.requestJsonAndCheck, "POST",
                    f"{self.url}/pulls/{number}/reviews", input=payload)

    def review_comments(self, number: int) -> tuple[PostedReviewComment, ...]:
        lazy = GhPull(self.requester, url=f"{self.url}/pulls/{number}", completed=False)
        return self.call(f"list the review comments of #{number}", lambda: tuple(
            PostedReviewComment(ReviewComment(c.path, c.line, c.body or ""), c.user.login if c.user else "")
            for c in lazy.get_review_comments() if c.line is not None))

    # verdicts -----------------------------------------------------------------------------

    def set_status(self, sha: str, status: CommitStatus) -> None:
        payload: dict[str, Any] = {"state": status.state.value, "context": status.context,
                                   "description": status.description[:140]}
        if status.target_url:
            payload["target_url"] = status.target_url
        self._write(f"publish the {status.context} status", self.requester.requestJsonAndCheck, "POST",
                    f"{self.url}/statuses/{sha}", input=payload)

    def check_runs(self, head_sha: str, name: str) -> tuple[CheckRun, ...]:
        found: list[CheckRun] = []
        page = 1
        while True:
            data = self._json(f"list the check runs of {head_sha[:12]}", "GET",
                              f"/commits/{head_sha}/check-runs?check_name={quote(name)}&filter=all"
                              f"&per_page={PAGE_SIZE}&page={page}")
            runs = data.get("check_runs") or []
            found += [_check_run(run) for run in runs]
            if len(runs) < PAGE_SIZE or len(found) >= int(data.get("total_count") or 0):
                return tuple(found)
            page += 1

    def create_check_run(self, name: str, head_sha: str, status: CheckStatus, output: CheckOutput | None = None,
                         conclusion: Conclusion | None = None, external_id: str = "") -> CheckRun:
        batches = self._batches(output)
        payload: dict[str, Any] = {"name": name, "head_sha": head_sha, "status": status.value}
        if external_id:
            payload["external_id"] = external_id
        if conclusion is not None:
            payload["conclusion"] = conclusion.value
        if output is not None:
            payload["output"] = _output(output, batches[0])
        run = self._checks_write(f"create the check run {name}", "POST", "/check-runs", payload)
        return self._more_annotations(run, output, batches[1:])

    def update_check_run(self, run_id: int, status: CheckStatus, conclusion: Conclusion | None = None,
                         output: CheckOutput | None = None) -> CheckRun:
        batches = self._batches(output)
        payload: dict[str, Any] = {"status": status.value}
        if conclusion is not None:
            payload["conclusion"] = conclusion.value
        if output is not None:
            payload["output"] = _output(output, batches[0])
        run = self._checks_write("update the check run", "PATCH", f"/check-runs/{run_id}", payload)
        return self._more_annotations(run, output, batches[1:])

    @staticmethod
    def _batches(output: CheckOutput | None) -> list[Sequence[Any]]:
        found = output.annotations if output is not None else ()
        return [found[i:i + ANNOTATIONS_PER_REQUEST] for i in range(0, len(found), ANNOTATIONS_PER_REQUEST)] or [()]

    def _more_annotations(self, run: CheckRun, output: CheckOutput | None, rest: Sequence[Sequence[Any]]) -> CheckRun:
        """GitHub appends the annotations of each further update: one PATCH per 50."""
        for batch in rest:
            assert output is not None
            run = self._checks_write("annotate the check run", "PATCH", f"/check-runs/{run.id}",
                                     {"output": _output(output, batch)})
        return run

    # git data -----------------------------------------------------------------------------

    def branch_sha(self, branch: str) -> str:
        return str(self._json(f"read refs/heads/{branch}", "GET", f"/git/ref/heads/{quote(branch, safe='/')}")
                   ["object"]["sha"])

    def compare(self, base: str, head: str) -> Comparison:
        def read() -> Comparison:
            c = self.repo.compare(base, head)
            return Comparison(
                c.base_commit.sha, c.merge_base_commit.sha, c.ahead_by, c.behind_by,
                tuple(_changed(f.status, f.filename, f.previous_filename) for f in c.files),
                tuple(CommitInfo(x.sha, x.commit.author.email, x.commit.committer.email,
                                 x.author.login if x.author else None, x.committer.login if x.committer else None)
                      for x in c.commits))
        return self.call(f"compare {base[:40]}...{head[:40]}", read)

    def _tree(self, sha: str, recursive: bool) -> tuple[TreeEntry, ...]:
        """One tree's entries; a tree (or commit) sha names immutable content, so it is cached."""
        key = (sha, recursive)
        if key not in self._trees:
            data = self._json("read a git tree", "GET", f"/git/trees/{quote(sha, safe='')}"
                              + ("?recursive=1" if recursive else ""))
            if data.get("truncated"):
                raise PortError(Reason.UNAVAILABLE, f"git tree {sha[:12]} is too large for one API answer")
            self._trees[key] = tuple(TreeEntry(e["path"], e["mode"], EntryType(e["type"]), e["sha"])
                                     for e in data.get("tree") or ())
        return self._trees[key]

    def tree(self, commit: str, directory: str = "", recursive: bool = False) -> tuple[TreeEntry, ...] | None:
        tree_sha = commit
        for part in [p for p in directory.split("/") if p and p != "."]:
            found = next((e for e in self._tree(tree_sha, False) if e.path == part and e.type is EntryType.TREE),
                         None)
            if found is None:
                return None
            tree_sha = found.sha
        return self._tree(tree_sha, recursive)

    def file_at(self, commit: str, path: str) -> bytes | None:
        directory, _, name = path.rpartition("/")
        entry = next((e for e in self.tree(commit, directory) or () if e.path == name and e.type is EntryType.BLOB),
                     None)
        if entry is None:
            return None
        blob = self._json("read a git blob", "GET", f"/git/blobs/{entry.sha}")
        content = blob.get("content") or ""
        return base64.b64decode(content) if blob.get("encoding") == "base64" else content.encode("utf-8")

    def create_commit(self, commit: FilesCommit) -> str:
        parents = [self.call("read a parent commit", self.repo.get_git_commit, sha) for sha in commit.parents]
        base_tree = self.call("read the parent tree", self.repo.get_git_tree, parents[0].tree.sha)
        elements = []
        for path, data in commit.files.items():
            mode = commit.mode(path).value
            if data is None:
                elements.append(InputGitTreeElement(path, mode, "blob", sha=None))
                continue
            try:
                elements.append(InputGitTreeElement(path, mode, "blob", content=data.decode("utf-8")))
            except UnicodeDecodeError:
                blob = self._write(f"write {path}", self.repo.create_git_blob,
                                   base64.b64encode(data).decode("ascii"), "base64")
                elements.append(InputGitTreeElement(path, mode, "blob", sha=blob.sha))
        tree = self._write("write the tree", self.repo.create_git_tree, elements, base_tree)
        # no author, no committer: GitHub writes them as the token's identity and signs the commit
        return self._write("write the commit", self.repo.create_git_commit, commit.message, tree, parents).sha

    def move_branch(self, branch: str, sha: str) -> RefUpdate:
        try:
            self._write(f"move {branch}", self.requester.requestJsonAndCheck, "PATCH",
                        f"{self.url}/git/refs/heads/{quote(branch, safe='/')}", input={"sha": sha, "force": False})
        except PortError as exc:
            if exc.reason in REF_REFUSALS:
                return REF_REFUSALS[exc.reason]
            raise
        return RefUpdate.MOVED

    def create_branch(self, branch: str, sha: str) -> None:
        self._write(f"create {branch}", self.requester.requestJsonAndCheck, "POST", f"{self.url}/git/refs",
                    input={"ref": f"refs/heads/{branch}", "sha": sha})

    def reset_bot_branch(self, branch: str, sha: str) -> None:
        self._write(f"move {branch}", self.requester.requestJsonAndCheck, "PATCH",
                    f"{self.url}/git/refs/heads/{quote(branch, safe='/')}", input={"sha": sha, "force": True})

    def delete_branch(self, branch: str) -> None:
        try:
            self._write(f"delete {branch}", self.requester.requestJsonAndCheck, "DELETE",
                        f"{self.url}/git/refs/heads/{quote(branch, safe='/')}")
        except PortError as exc:
            if exc.reason not in (Reason.NOT_FOUND, Reason.INVALID):  # already gone
                raise

    # merging ------------------------------------------------------------------------------

    def enable_auto_merge(self, pull: PullRequest, head_sha: str, method: MergeMethod) -> AutoMergeResult:
        variables = {"pullRequestId": pull.node_id, "mergeMethod": method.value.upper(), "expectedHeadOid": head_sha}
        try:
            self._write("enable auto-merge", self.requester.graphql_named_mutation, "enablePullRequestAutoMerge",
                        variables, "clientMutationId")
        except PortError as exc:
            if exc.reason in (Reason.RATE_LIMITED, Reason.UNAVAILABLE):
                raise
            return AutoMergeResult(_auto_merge_answer(exc.detail), exc.detail)
        return AutoMergeResult(AutoMergeAnswer.ENABLED)

    def disable_auto_merge(self, pull: PullRequest) -> None:
        self._write("disable auto-merge", self.requester.graphql_named_mutation, "disablePullRequestAutoMerge",
                    {"pullRequestId": pull.node_id}, "clientMutationId")

    def merge(self, number: int, head_sha: str, method: MergeMethod) -> str:
        data = self._write(f"merge #{number}", self.requester.requestJsonAndCheck, "PUT",
                           f"{self.url}/pulls/{number}/merge", input={"merge_method": method.value, "sha": head_sha})[1]
        return str(data["sha"])

    # issues (the shelf dashboard) ---------------------------------------------------------

    def labeled_issues(self, label: str, creator: str | None = None) -> tuple[IssueInfo, ...]:
        query: dict[str, Any] = {"labels": label, "state": "all", "sort": "created", "direction": "asc",
                                 "per_page": PAGE_SIZE}
        if creator is not None:
            query["creator"] = creator
        found: list[IssueInfo] = []
        for page in range(1, MAX_ISSUE_PAGES + 1):
            _, data = self.call(f"list the issues labeled {label}", self.requester.requestJsonAndCheck, "GET",
                                f"{self.url}/issues", parameters={**query, "page": page})
            found += [_issue(item) for item in data if not item.get("pull_request")]  # the list holds PRs too
            if len(data) < PAGE_SIZE:
                break
        mine = [i for i in found if creator is None or i.author.lower() == creator.lower()]
        return tuple(sorted(mine, key=lambda i: i.number))

    def create_issue(self, title: str, body: str, labels: Sequence[str]) -> IssueInfo:
        return _issue(self._write("open an issue", self.requester.requestJsonAndCheck, "POST", f"{self.url}/issues",
                                  input={"title": title, "body": body, "labels": list(labels)})[1])

    def update_issue(self, number: int, edit: IssueEdit) -> None:
        body = {k: v for k, v in (("title", edit.title), ("body", edit.body),
                                  ("state", edit.state.value if edit.state else None)) if v is not None}
        if body:
            self._write(f"update issue #{number}", self.requester.requestJsonAndCheck, "PATCH",
                        f"{self.url}/issues/{number}", input=body)


def _issue(data: dict[str, Any]) -> IssueInfo:
    return IssueInfo(int(data["number"]), IssueState(data.get("state", "open")), data.get("title") or "",
                     data.get("body") or "", str((data.get("user") or {}).get("login", "")),
                     tuple(str(label.get("name", "")) for label in data.get("labels") or () if isinstance(label, dict)))


def _auto_merge_answer(text: str) -> AutoMergeAnswer:
    lowered = text.lower()
    if "not allowed" in lowered:
        return AutoMergeAnswer.NOT_ALLOWED
    if "expected head sha" in lowered:
        return AutoMergeAnswer.HEAD_MOVED
    if "dirty status" in lowered or "conflict" in lowered:
        return AutoMergeAnswer.CONFLICT
    if "clean status" in lowered or "unstable status" in lowered:
        return AutoMergeAnswer.CLEAN
    return AutoMergeAnswer.REFUSED
