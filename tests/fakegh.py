"""A small recording fake of the GitHub port (python/bedevere's FakeGH style): canned answers in,
recorded calls out, so flow decisions are tested in-process, in milliseconds.

Git data (trees, files, commits, branches) comes from a real local git repository, the same one
the job's workspace is: what the port says about a commit is what git says. Everything else is
plain state a test sets up (`pulls`, `comments`, `permissions`, …) or scripts (`refuse` makes an
operation raise a `PortError`; `ref_answers` and `auto_merge_answers` queue typed outcomes).
`calls` records every operation with its arguments, in order.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bot.port import (
    ACTIONS_BOT,
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
    Issue,
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

STATUS = {"A": FileStatus.ADDED, "D": FileStatus.REMOVED, "M": FileStatus.MODIFIED, "R": FileStatus.RENAMED,
          "C": FileStatus.COPIED, "T": FileStatus.CHANGED}


def git(repo: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "Agent", "GIT_AUTHOR_EMAIL": "agent@example.com", "GIT_COMMITTER_NAME": "Agent",
           "GIT_COMMITTER_EMAIL": "agent@example.com", "HOME": str(repo), "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/bin:/bin:/usr/local/bin"}
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, env=env, check=False)
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)}: {proc.stderr.decode()}")
    return proc.stdout.decode("utf-8", "surrogateescape")


CHECK_WRITES = ("create_check_run", "update_check_run")


@dataclass
class FakeGH:
    repo: Path  # the local git repository the git data comes from
    full_name: str = "octo/shelf"
    login: str = ACTIONS_BOT
    default: str = "main"
    read_only: bool = False
    waits: list[Wait] = field(default_factory=list)
    calls: list[tuple[str, tuple[Any, ...]]] = field(default_factory=list)
    pulls: dict[int, PullRequest] = field(default_factory=dict)
    comments_on: dict[int, list[Comment]] = field(default_factory=dict)
    permissions: dict[str, Permission] = field(default_factory=dict)
    labels: dict[str, Label] = field(default_factory=dict)
    statuses: list[tuple[str, CommitStatus]] = field(default_factory=list)
    check_runs_on: dict[int, tuple[CheckRun, list[CheckOutput]]] = field(default_factory=dict)  # id → run, outputs
    reviews: list[tuple[int, str, tuple[ReviewComment, ...]]] = field(default_factory=list)
    others_review_comments: dict[int, list[PostedReviewComment]] = field(default_factory=dict)  # not the bot's
    reactions: list[tuple[int, Reaction]] = field(default_factory=list)
    refusals: dict[str, list[PortError]] = field(default_factory=dict)
    ref_answers: list[RefUpdate] = field(default_factory=list)
    auto_merge_answers: list[AutoMergeResult] = field(default_factory=list)
    pull_file_total: dict[int, int] = field(default_factory=dict)  # what GitHub counts, when it lists fewer
    issues: dict[int, Issue] = field(default_factory=dict)  # plain issues (the dashboard); numbered with the pulls
    _ids: int = 1000

    # scripting -------------------------------------------------------------------------------

    def refuse(self, op: str, reason: Reason, message: str = "refused", times: int = 1) -> None:
        """The next `times` calls of `op` raise PortError(reason)."""
        status = {Reason.NOT_FOUND: 404, Reason.READ_ONLY: 403, Reason.FORBIDDEN: 403}.get(reason, 422)
        self.refusals.setdefault(op, []).extend(PortError(reason, f"{op}: {message}", status, message)
                                                for _ in range(times))

    def _record(self, op: str, *args: Any) -> None:
        self.calls.append((op, args))
        queued = self.refusals.get(op)
        if queued:
            error = queued.pop(0)
            if error.reason is Reason.READ_ONLY and op not in CHECK_WRITES:  # like the adapter: `checks: write`
                self.read_only = True                                         # is a permission of its own
            raise error

    def _write(self, op: str, *args: Any) -> None:
        if self.read_only:
            self.calls.append((op, args))
            raise PortError(Reason.READ_ONLY, f"{op}: the token may not write here", 403)
        self._record(op, *args)

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def ops(self, *names: str) -> list[tuple[str, tuple[Any, ...]]]:
        """The recorded calls of these operations (all of them when none is named)."""
        return [c for c in self.calls if not names or c[0] in names]

    def add_pull(self, head_ref: str, base_ref: str = "main", *, title: str = "Shelve", body: str = "",
                 head_repo: str | None = None, **kw: Any) -> PullRequest:
        number = max([*self.pulls, *self.issues], default=0) + 1
        pull = PullRequest(number, PullState.OPEN, title, body, head_ref, self.branch_sha(head_ref),
                           head_repo or self.full_name, f"{(head_repo or self.full_name).split('/')[0]}:{head_ref}",
                           base_ref, self.branch_sha(base_ref), **kw)
        self.pulls[number] = pull
        return pull

    # who and where ---------------------------------------------------------------------------

    def identity(self) -> Identity:
        return Identity(self.login)

    def mark_read_only(self) -> None:
        self.calls.append(("mark_read_only", ()))
        self.read_only = True

    def default_branch(self) -> str:
        self._record("default_branch")
        return self.default

    # pull requests ---------------------------------------------------------------------------

    def pull(self, number: int) -> PullRequest:
        self._record("pull", number)
        if number not in self.pulls:
            raise PortError(Reason.NOT_FOUND, f"read pull request #{number}: Not Found", 404)
        pull = self.pulls[number]
        if pull.state is PullState.OPEN and pull.head_repo == self.full_name:  # GitHub follows the branch
            pull = self.pulls[number] = replace(pull, head_sha=self.branch_sha(pull.head_ref))
        return pull

    def pull_files(self, number: int) -> PullFiles:
        self._record("pull_files", number)
        pull = self.pulls[number]
        base = git(self.repo, "merge-base", pull.base_sha, pull.head_sha).strip()
        text = git(self.repo, "diff", "-M", "--no-color", "--no-ext-diff", base, pull.head_sha)
        hunks = [chunk[chunk.find("\n@@") + 1:].rstrip("\n") if "\n@@" in chunk else None
                 for chunk in re.split(r"^diff --git ", text, flags=re.M)[1:]]  # in the order --name-status lists
        files = tuple(replace(f, patch=patch) for f, patch in zip(self._diff(base, pull.head_sha), hunks, strict=True))
        return PullFiles(files, self.pull_file_total.get(number, len(files)))

    def open_pulls(self, head_branch: str, base: str | None = None) -> tuple[PullRequest, ...]:
        self._record("open_pulls", head_branch, base)
        return tuple(p for n, p in sorted(self.pulls.items()) if p.state is PullState.OPEN
                     and p.head_ref == head_branch and p.head_repo == self.full_name
                     and (base is None or p.base_ref == base))

    def open_pull(self, *, title: str, body: str, head: str, base: str) -> PullRequest:
        self._write("open_pull", title, body, head, base)
        return self.add_pull(head, base, title=title, body=body)

    def update_pull(self, number: int, edit: PullEdit) -> None:
        self._write("update_pull", number, edit)
        pull = self.pulls[number]
        self.pulls[number] = replace(pull, title=edit.title if edit.title is not None else pull.title,
                                     body=edit.body if edit.body is not None else pull.body,
                                     state=edit.state or pull.state)

    # the conversation ------------------------------------------------------------------------

    def comments(self, number: int) -> tuple[Comment, ...]:
        self._record("comments", number)
        return tuple(self.comments_on.get(number, ()))

    def add_comment(self, number: int, body: str, author: str) -> Comment:
        """A comment someone (not necessarily the bot) posted, without recording a call."""
        comment = Comment(self._next_id(), body, author, author.endswith("[bot]"))
        self.comments_on.setdefault(number, []).append(comment)
        return comment

    def create_comment(self, number: int, body: str) -> Comment:
        self._write("create_comment", number, body)
        return self.add_comment(number, body, self.login)

    def _find(self, comment_id: int) -> tuple[list[Comment], int]:
        for listed in self.comments_on.values():
            for i, c in enumerate(listed):
                if c.id == comment_id:
                    return listed, i
        raise PortError(Reason.NOT_FOUND, "comment: Not Found", 404)

    def edit_comment(self, comment_id: int, body: str) -> None:
        self._write("edit_comment", comment_id, body)
        listed, i = self._find(comment_id)
        listed[i] = replace(listed[i], body=body)

    def delete_comment(self, comment_id: int) -> None:
        self._write("delete_comment", comment_id)
        listed, i = self._find(comment_id)
        del listed[i]

    def react(self, comment_id: int, reaction: Reaction) -> None:
        self._write("react", comment_id, reaction)
        self._find(comment_id)
        self.reactions.append((comment_id, reaction))

    def permission(self, login: str) -> Permission:
        self._record("permission", login)
        return self.permissions.get(login, Permission.NONE)

    def ensure_label(self, label: Label) -> None:
        self._write("ensure_label", label)
        self.labels.setdefault(label.name, label)

    def add_labels(self, number: int, names: Sequence[str]) -> None:
        self._write("add_labels", number, tuple(names))
        pull = self.pulls[number]
        self.pulls[number] = replace(pull, labels=(*pull.labels, *[n for n in names if n not in pull.labels]))

    def remove_label(self, number: int, name: str) -> None:
        self._write("remove_label", number, name)
        pull = self.pulls[number]
        self.pulls[number] = replace(pull, labels=tuple(n for n in pull.labels if n != name))

    def review(self, number: int, commit_sha: str, comments: Sequence[ReviewComment], body: str = "") -> None:
        self._write("review", number, commit_sha, tuple(comments))
        self.reviews.append((number, commit_sha, tuple(comments)))

    def review_comments(self, number: int) -> tuple[PostedReviewComment, ...]:
        self._record("review_comments", number)
        return (*(PostedReviewComment(c, self.login) for n, _, posted in self.reviews if n == number for c in posted),
                *self.others_review_comments.get(number, ()))

    # verdicts --------------------------------------------------------------------------------

    def set_status(self, sha: str, status: CommitStatus) -> None:
        self._write("set_status", sha, status)
        self.statuses.append((sha, status))

    def check_runs(self, head_sha: str, name: str) -> tuple[CheckRun, ...]:
        self._record("check_runs", head_sha, name)
        return tuple(run for run, _ in sorted(self.check_runs_on.values(), key=lambda r: -r[0].id)
                     if run.head_sha == head_sha and run.name == name)

    def create_check_run(self, name: str, head_sha: str, status: CheckStatus, output: CheckOutput | None = None,
                         conclusion: Conclusion | None = None, external_id: str = "") -> CheckRun:
        self._write("create_check_run", name, head_sha, status)
        run = CheckRun(self._next_id(), name, head_sha, status, conclusion, external_id)
        self.check_runs_on[run.id] = (run, [output] if output else [])
        return run

    def update_check_run(self, run_id: int, status: CheckStatus, conclusion: Conclusion | None = None,
                         output: CheckOutput | None = None) -> CheckRun:
        self._write("update_check_run", run_id, status, conclusion)
        old, outputs = self.check_runs_on[run_id]
        run = replace(old, status=status, conclusion=conclusion)
        self.check_runs_on[run_id] = (run, [*outputs, *([output] if output else [])])
        return run

    # git data --------------------------------------------------------------------------------

    def branch_sha(self, branch: str) -> str:
        try:
            return git(self.repo, "rev-parse", "--verify", "--end-of-options", f"refs/heads/{branch}^{{commit}}").strip()
        except AssertionError:
            raise PortError(Reason.NOT_FOUND, f"read refs/heads/{branch}: Not Found", 404) from None

    def _diff(self, old: str, new: str) -> tuple[ChangedFile, ...]:
        out = []
        for line in git(self.repo, "diff", "--name-status", "-M", old, new).splitlines():
            parts = line.split("\t")
            status = STATUS[parts[0][0]]
            out.append(ChangedFile(status, parts[-1], parts[1] if status is FileStatus.RENAMED else None))
        return tuple(out)

    def compare(self, base: str, head: str) -> Comparison:
        self._record("compare", base, head)
        merge_base = git(self.repo, "merge-base", base, head).strip()
        base_sha = git(self.repo, "rev-parse", f"{base}^{{commit}}").strip()
        shas = git(self.repo, "rev-list", "--reverse", f"{base}..{head}").split()
        behind = len(git(self.repo, "rev-list", f"{head}..{base}").split())
        commits = []
        for sha in shas:
            author, committer = git(self.repo, "log", "-1", "--format=%ae%n%ce", sha).split("\n")[:2]
            logins = {f"{41898282}+{ACTIONS_BOT}@users.noreply.github.com": ACTIONS_BOT}
            commits.append(CommitInfo(sha, author, committer, logins.get(author), logins.get(committer)))
        return Comparison(base_sha, merge_base, len(shas), behind, self._diff(merge_base, head), tuple(commits))

    def tree(self, commit: str, directory: str = "", recursive: bool = False) -> tuple[TreeEntry, ...] | None:
        self._record("tree", commit, directory, recursive)
        spec = f"{commit}:{directory}" if directory else f"{commit}^{{tree}}"
        try:
            listing = git(self.repo, "ls-tree", "-z", *(["-r", "-t"] if recursive else []), spec)
        except AssertionError:
            return None
        entries = []
        for record in listing.split("\0"):
            if record:
                meta, _, path = record.partition("\t")
                mode, kind, sha = meta.split()
                entries.append(TreeEntry(path, mode, EntryType(kind), sha))
        return tuple(entries)

    def file_at(self, commit: str, path: str) -> bytes | None:
        self._record("file_at", commit, path)
        proc = subprocess.run(["git", "cat-file", "blob", f"{commit}:{path}"], cwd=self.repo, capture_output=True,
                              check=False)
        return proc.stdout if proc.returncode == 0 else None

    def create_commit(self, commit: FilesCommit) -> str:
        self._write("create_commit", commit.parent, commit.message, tuple(sorted(commit.files)))
        index = self.repo / ".git" / "fake-index"
        env_git = ["git", "-c", "user.name=github-actions[bot]",
                   "-c", f"user.email=41898282+{ACTIONS_BOT}@users.noreply.github.com"]
        run = {"cwd": self.repo, "capture_output": True, "check": True,
               "env": {"GIT_INDEX_FILE": str(index), "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(self.repo)}}
        subprocess.run(["git", "read-tree", commit.parent], **run)
        for path, data in commit.files.items():
            if data is None:
                subprocess.run(["git", "rm", "--cached", "--quiet", "--", path], **run)
                continue
            blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], input=data, cwd=self.repo,
                                  capture_output=True, check=True).stdout.decode().strip()
            subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"{commit.mode(path)},{blob},{path}"],
                           **run)
        tree = subprocess.run(["git", "write-tree"], **run).stdout.decode().strip()
        parents = [arg for sha in commit.parents for arg in ("-p", sha)]
        return subprocess.run([*env_git, "commit-tree", tree, *parents, "-m", commit.message],
                              **run).stdout.decode().strip()

    def move_branch(self, branch: str, sha: str) -> RefUpdate:
        self._write("move_branch", branch, sha)
        if self.ref_answers:
            answer = self.ref_answers.pop(0)
            if answer is not RefUpdate.MOVED:
                return answer
        current = self.branch_sha(branch)
        if git(self.repo, "merge-base", current, sha).strip() != current:
            return RefUpdate.NON_FAST_FORWARD
        git(self.repo, "update-ref", f"refs/heads/{branch}", sha, current)
        return RefUpdate.MOVED

    def create_branch(self, branch: str, sha: str) -> None:
        self._write("create_branch", branch, sha)
        git(self.repo, "update-ref", f"refs/heads/{branch}", sha, "0" * 40)

    def reset_bot_branch(self, branch: str, sha: str) -> None:
        self._write("reset_bot_branch", branch, sha)
        git(self.repo, "update-ref", f"refs/heads/{branch}", sha)

    def delete_branch(self, branch: str) -> None:
        self._write("delete_branch", branch)
        subprocess.run(["git", "update-ref", "-d", f"refs/heads/{branch}"], cwd=self.repo, capture_output=True,
                       check=False)

    # merging ---------------------------------------------------------------------------------

    def enable_auto_merge(self, pull: PullRequest, head_sha: str, method: MergeMethod) -> AutoMergeResult:
        self._write("enable_auto_merge", pull.number, head_sha, method)
        answer = self.auto_merge_answers.pop(0) if self.auto_merge_answers else AutoMergeResult(
            AutoMergeAnswer.ENABLED)
        if answer.answer is AutoMergeAnswer.ENABLED:
            self.pulls[pull.number] = replace(self.pulls[pull.number], auto_merge=True)
        return answer

    def disable_auto_merge(self, pull: PullRequest) -> None:
        self._write("disable_auto_merge", pull.number)
        self.pulls[pull.number] = replace(self.pulls[pull.number], auto_merge=False)

    def merge(self, number: int, head_sha: str, method: MergeMethod) -> str:
        self._write("merge", number, head_sha, method)
        pull = self.pulls[number]
        tree = git(self.repo, "rev-parse", f"{head_sha}^{{tree}}").strip()
        sha = git(self.repo, "commit-tree", tree, "-p", self.branch_sha(pull.base_ref), "-m",
                  f"{pull.title} (#{number})").strip()
        git(self.repo, "update-ref", f"refs/heads/{pull.base_ref}", sha)
        self.pulls[number] = replace(pull, state=PullState.CLOSED, merged=True)
        return sha

    # issues (the shelf dashboard) ------------------------------------------------------------

    def labeled_issues(self, label: str, creator: str | None = None) -> tuple[Issue, ...]:
        self._record("labeled_issues", label, creator)
        return tuple(i for n, i in sorted(self.issues.items()) if label in i.labels
                     and (creator is None or i.author.lower() == creator.lower()))

    def add_issue(self, title: str, body: str, author: str, labels: Sequence[str] = (),
                  state: IssueState = IssueState.OPEN) -> Issue:
        """An issue someone (not necessarily the bot) opened, without recording a call."""
        number = max([*self.pulls, *self.issues], default=0) + 1
        issue = self.issues[number] = Issue(number, state, title, body, author, tuple(labels))
        return issue

    def create_issue(self, title: str, body: str, labels: Sequence[str]) -> Issue:
        self._write("create_issue", title, body, tuple(labels))
        return self.add_issue(title, body, self.login, labels)

    def update_issue(self, number: int, edit: IssueEdit) -> None:
        self._write("update_issue", number, edit)
        issue = self.issues[number]
        self.issues[number] = replace(issue, title=edit.title if edit.title is not None else issue.title,
                                      body=edit.body if edit.body is not None else issue.body,
                                      state=edit.state or issue.state)


# a world to run flows in: the example shelf in a local git repository, the fake, a reporter -----

def ran(flow: Any, job: Any, *args: Any, **kwargs: Any) -> int:
    """Run `flow` on `job` and hand its result to the Action's door, as `memshelf-bot action` does:
    the step's outputs on the job's reporter, the exit status returned."""
    from bot import action

    return action.conclude(job.reporter, flow(job, *args, **kwargs))


EXAMPLE = Path(__file__).resolve().parent.parent / "memshelf_sandbox" / "data" / "example-shelf"


@dataclass
class World:
    """The example shelf, rendered, on `main` of a local repository (HEAD detached, so every
    branch can move), a FakeGH over it, and a workflow reporter writing into `out`."""

    repo: Path
    gh: FakeGH
    out: Any = None

    @classmethod
    def make(cls, tmp: Path, files: dict[str, str] | None = None) -> World:
        import io
        import shutil

        from memshelf_render.render import render_shelf
        from memshelf_render.shelf import load_shelf

        repo = tmp / "repo"
        shutil.copytree(EXAMPLE, repo)
        for path, text in (files or {}).items():
            (repo / path).parent.mkdir(parents=True, exist_ok=True)
            (repo / path).write_text(text, encoding="utf-8")
        shelf, problems = load_shelf(repo)
        assert shelf is not None, problems
        render_shelf(shelf)
        git(repo, "init", "--quiet", "--initial-branch=main")
        git(repo, "add", "-A")
        git(repo, "commit", "--quiet", "-m", "Example shelf")
        git(repo, "checkout", "--quiet", "--detach")
        return cls(repo, FakeGH(repo), io.StringIO())

    def commit(self, branch: str, files: dict[str, str | None], base: str | None = None,
               message: str = "change", author: str = "agent@example.com") -> str:
        """A commit of `files` (None deletes) on top of `base` (default: `branch` itself, else main)."""
        found = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"refs/heads/{base or branch}"],
                               cwd=self.repo, capture_output=True, text=True, check=False).stdout.strip()
        parent = found or git(self.repo, "rev-parse", "refs/heads/main").strip()
        index = self.repo / ".git" / "world-index"
        env = {"GIT_INDEX_FILE": str(index), "PATH": "/usr/bin:/bin:/usr/local/bin", "HOME": str(self.repo),
               "GIT_AUTHOR_NAME": "Agent", "GIT_AUTHOR_EMAIL": author, "GIT_COMMITTER_NAME": "Agent",
               "GIT_COMMITTER_EMAIL": author}
        run = {"cwd": self.repo, "capture_output": True, "check": True, "env": env}
        subprocess.run(["git", "read-tree", parent], **run)
        for path, text in files.items():
            if text is None:
                subprocess.run(["git", "rm", "--cached", "--quiet", "--", path], **run)
                continue
            blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], input=text.encode(), cwd=self.repo,
                                  capture_output=True, check=True).stdout.decode().strip()
            subprocess.run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"], **run)
        tree = subprocess.run(["git", "write-tree"], **run).stdout.decode().strip()
        sha = subprocess.run(["git", "commit-tree", tree, "-p", parent, "-m", message], **run).stdout.decode().strip()
        git(self.repo, "update-ref", f"refs/heads/{branch}", sha)
        return sha

    def job(self, event: Any, shelf_path: str = ".", secrets: Sequence[str] = (), mode: str | None = "auto",
            **overrides: Any) -> Any:
        """A job as the Action's door makes it for `mode` (its sinks, a fork's token read-only);
        `mode=None`: a bare job with no sink, for a test that picks its own."""
        from bot import action
        from bot.job import Job, Workspace
        from bot.report.workflow import WorkflowReporter

        reporter = WorkflowReporter(out=self.out)
        for secret in secrets:
            reporter.add_secret(secret)
        workspace = Workspace(self.repo, str(self.repo), shelf_path=shelf_path, overrides=overrides,
                              run_url="https://github.com/octo/shelf/actions/runs/7")
        job = Job(event, self.gh, reporter, workspace)
        return job if mode is None else action.prepare(mode, job)

    def pr_event(self, pull: PullRequest, action: str = "opened", fork: bool = False) -> Any:
        from bot.events import Event, EventKind, SenderType

        return Event(EventKind.PULL_REQUEST, "pull_request", action=action, repository=self.gh.full_name,
                     default_branch="main", pr_number=pull.number, pr_state=pull.state.value,
                     head_sha=pull.head_sha, head_ref=pull.head_ref, head_repo=pull.head_repo,
                     base_sha=pull.base_sha, base_ref=pull.base_ref, fork=fork, sender="agent",
                     sender_type=SenderType.USER)

    def push_event(self, branch: str, before: str, after: str, pusher: str = "agent",
                   commits: Sequence[tuple[str, tuple[str, ...]]] = ()) -> Any:
        from bot.events import Event, EventKind, PushedCommit

        return Event(EventKind.PUSH, "push", repository=self.gh.full_name, default_branch="main",
                     ref=f"refs/heads/{branch}", before=before, after=after, pusher=pusher, sender=pusher,
                     commits=tuple(PushedCommit(sha, paths) for sha, paths in commits))

    def comment_event(self, pull: PullRequest, body: str, author: str = "octo-maintainer",
                      comment_id: int | None = None) -> Any:
        from bot.events import Event, EventKind, SenderType

        comment = comment_id or self.gh.add_comment(pull.number, body, author).id
        kind = SenderType.BOT if author.endswith("[bot]") else SenderType.USER
        return Event(EventKind.ISSUE_COMMENT, "issue_comment", action="created", repository=self.gh.full_name,
                     default_branch="main", pr_number=pull.number, comment_id=comment, comment_body=body,
                     comment_author=author, comment_author_type=kind, on_pull_request=True, sender=author,
                     sender_type=kind)

    def show(self, rev: str, path: str) -> str:
        return git(self.repo, "show", f"{rev}:{path}")
