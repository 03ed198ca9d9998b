"""The repository's behaviour: pull request heads, mergeability, merging, auto-merge.

This is where git and GitHub's bookkeeping meet; the route modules call it and stay thin.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .gitstore import ZERO, GitStore, Person
from .state import PullRequest, State, User, now
from .views import Urls, Views

if TYPE_CHECKING:
    from .events import Events

PASSING = {"success", "neutral", "skipped"}


class MergeRefused(Exception):
    """GitHub refuses the merge: `status` and `message` are what it answers."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class Mergeability:
    mergeable: bool | None
    state: str  # clean, dirty, blocked, unstable, draft, unknown
    rebaseable: bool | None
    blocking: str | None = None  # the first required context that is not satisfied


def noreply(user: User) -> str:
    return f"{user.id}+{user.login}@users.noreply.github.com"


def signature(user: User) -> Person:
    return Person(user.login, noreply(user), now())


class Repository:
    """One sandboxed repository: git store, state, URLs and views together."""

    def __init__(self, store: GitStore, state: State, base_url: str) -> None:
        self.store = store
        self.state = state
        self.urls = Urls(base_url, state.repo)
        self.views = Views(self.urls)
        self.events: Events | None = None  # set when the sandbox delivers webhooks
        self.forks: dict[str, str] = {}  # lower-case owner -> full name of that owner's fork (`--fork`)

    # pull request heads -----------------------------------------------------------

    @staticmethod
    def head_ref_name(pr: PullRequest) -> str:
        """Where the head commit lives here: a branch of this repository, or (a fork's pull
        request) the `refs/pull/<number>/head` ref GitHub keeps in the base repository."""
        return f"refs/pull/{pr.number}/head" if pr.head_repo else f"refs/heads/{pr.head_ref}"

    @staticmethod
    def fork_namespace(fork_owner: str) -> str:
        """The git namespace a fork's refs live in (its objects are this repository's)."""
        return f"fork-{fork_owner.lower()}"

    def fork_branch(self, fork_owner: str, branch: str) -> str:
        return f"refs/namespaces/{self.fork_namespace(fork_owner)}/refs/heads/{branch}"

    def make_fork(self, full_name: str) -> None:
        """A fork named `full_name`, made now: this repository's branches and HEAD, in its namespace."""
        owner = full_name.partition("/")[0]
        space = f"refs/namespaces/{self.fork_namespace(owner)}"
        for ref, sha in self.store.refs("refs/heads/").items():
            self.store.update_ref(f"{space}/{ref}", sha, ZERO)
        self.store.git("symbolic-ref", f"{space}/HEAD", f"{space}/refs/heads/{self.state.repo.default_branch}")
        self.forks[owner.lower()] = full_name

    def fork_pushed(self, fork: str, by: User) -> None:
        """After a push to `fork`: every open pull request from it whose branch moved follows it,
        with a `pull_request` `synchronize` (GitHub updates `refs/pull/<n>/head` the same way)."""
        moved = []
        with self.state.lock:
            for pr in self.state.pulls.values():
                if pr.state != "open" or (pr.head_repo or "").lower() != fork.lower():
                    continue
                new, old = self.store.ref(self.fork_branch(pr.head_owner or "", pr.head_ref)), self.head_sha(pr)
                if new and new != old and self.store.update_ref(self.head_ref_name(pr), new, old):
                    pr.updated_at = now()
                    moved.append((pr, old, new))
        for pr, old, new in moved:
            if self.events is not None:
                self.events.pull_request(pr, "synchronize", by, old, new)

    def head_sha(self, pr: PullRequest) -> str:
        if pr.head_sha_frozen:
            return pr.head_sha_frozen
        return self.store.ref(self.head_ref_name(pr)) or ZERO

    def base_sha(self, pr: PullRequest) -> str:
        if pr.base_sha_frozen:
            return pr.base_sha_frozen
        return self.store.ref(f"refs/heads/{pr.base_ref}") or ZERO

    def pull_files(self, pr: PullRequest) -> tuple[Any, ...]:
        """The three-dot diff GitHub shows: merge base of base and head, to head."""
        head, base = self.head_sha(pr), self.base_sha(pr)
        if ZERO in (head, base):
            return ()
        return self.store.diff(self.store.merge_base(base, head) or base, head)

    def pull_commits(self, pr: PullRequest) -> list[str]:
        head, base = self.head_sha(pr), self.base_sha(pr)
        if ZERO in (head, base):
            return []
        return self.store.commits_between(base, head)

    def logins(self) -> dict[str, User]:
        """Commit e-mail → user, so REST commits name the GitHub users who made them."""
        with self.state.lock:
            return {noreply(user): user for user in self.state.users.values()}

    def comment_count(self, number: int) -> int:
        with self.state.lock:
            return sum(c.issue_number == number for c in self.state.comments.values())

    def pull_json(self, pr: PullRequest, full: bool) -> dict[str, Any]:
        head, base = self.head_sha(pr), self.base_sha(pr)
        if not full:
            return self.views.pull(pr, head, base, None)
        files = self.pull_files(pr)
        m = self.mergeability(pr)
        detail = {
            "mergeable": m.mergeable, "mergeable_state": m.state, "rebaseable": m.rebaseable,
            "commits": len(self.pull_commits(pr)), "changed_files": len(files),
            "additions": sum(f.additions for f in files), "deletions": sum(f.deletions for f in files),
        }
        return self.views.pull(pr, head, base, detail, self.comment_count(pr.number))

    # checks and mergeability ---------------------------------------------------------

    def context_states(self, sha: str) -> dict[str, str]:
        """Per context (status context or check-run name): success, pending or failure."""
        states = {s.context: ("success" if s.state == "success" else "pending" if s.state == "pending"
                              else "failure") for s in self.state.latest_statuses(sha)}
        for run in sorted(self.state.check_runs_for(sha), key=lambda r: r.id):
            if run.status != "completed":
                states[run.name] = "pending"
            else:
                states[run.name] = "success" if run.conclusion in PASSING else "failure"
        return states

    def mergeability(self, pr: PullRequest) -> Mergeability:
        if pr.state != "open":
            return Mergeability(None, "unknown", None)
        head, base = self.head_sha(pr), self.base_sha(pr)
        if ZERO in (head, base):
            return Mergeability(False, "dirty", False)
        if self.store.merge_tree(base, head) is None:
            return Mergeability(False, "dirty", False)
        rebaseable = self.store.merge_base(base, head) == base
        if pr.draft:
            return Mergeability(True, "draft", rebaseable)
        states = self.context_states(head)
        protection = self.state.protection.get(pr.base_ref)
        for context in protection.required_contexts if protection else []:
            if states.get(context) != "success":
                return Mergeability(True, "blocked", rebaseable, context)
        if any(value != "success" for value in states.values()):
            return Mergeability(True, "unstable", rebaseable)
        return Mergeability(True, "clean", rebaseable)

    # merging ---------------------------------------------------------------------------

    def merge(self, pr: PullRequest, by: User, method: str = "merge", title: str | None = None,
              message: str | None = None, expected_sha: str | None = None) -> str:
        """Merge as GitHub does (real commits, base ref moved by compare-and-swap); the new base sha."""
        with self.state.lock:
            if pr.merged_at is not None or pr.state != "open":
                raise MergeRefused(405, "Pull Request is not mergeable")
            head, base = self.head_sha(pr), self.base_sha(pr)
            if expected_sha is not None and expected_sha != head:
                raise MergeRefused(409, "Head branch was modified. Review and try the merge again.")
            allowed = {"merge": self.state.repo.allow_merge_commit, "squash": self.state.repo.allow_squash_merge,
                       "rebase": self.state.repo.allow_rebase_merge}
            if not allowed[method]:
                noun = {"merge": "Merge commits", "squash": "Squash merges", "rebase": "Rebase merges"}[method]
                raise MergeRefused(405, f"{noun} are not allowed on this repository.")
            m = self.mergeability(pr)
            if m.state == "dirty" or m.mergeable is False:
                raise MergeRefused(405, "Pull Request is not mergeable")
            if m.state == "blocked":
                raise MergeRefused(405, f"Required status check \"{m.blocking}\" is expected.")
            if m.state == "draft":
                raise MergeRefused(405, "Pull Request is still a draft")
            new = self._merge_commit(pr, by, method, head, base, title, message)
            self.views.signed.setdefault(new, now())  # GitHub signs the merges it makes
            if not self.store.update_ref(f"refs/heads/{pr.base_ref}", new, base):
                raise MergeRefused(409, "Base branch was modified. Review and try the merge again.")
            pr.state, pr.merged_at, pr.closed_at = "closed", now(), now()
            pr.updated_at, pr.merged_by, pr.merge_commit_sha = now(), by, new
            pr.head_sha_frozen, pr.base_sha_frozen = head, base
            pr.auto_merge = None
            if self.state.repo.delete_branch_on_merge and not pr.head_repo:
                self.store.delete_ref(f"refs/heads/{pr.head_ref}", head)
            if self.events is not None:
                self.events.pull_request(pr, "closed", by)
            return new

    def _merge_commit(self, pr: PullRequest, by: User, method: str, head: str, base: str,
                      title: str | None, message: str | None) -> str:
        who = signature(by)
        if method == "merge":
            tree = self.store.merge_tree(base, head)
            assert tree is not None
            source = pr.head_owner or self.state.repo.owner
            text = f"{title or f'Merge pull request #{pr.number} from {source}/{pr.head_ref}'}\n\n"
            text += (message if message is not None else pr.title) + "\n"
            return self.store.write_commit(tree, [base, head], text, who, who)
        commits = self.pull_commits(pr)
        if method == "squash":
            tree = self.store.merge_tree(base, head)
            assert tree is not None
            default = "\n\n".join(f"* {self.store.commit(c).message.strip()}" for c in commits)
            text = f"{title or f'{pr.title} (#{pr.number})'}\n\n{message if message is not None else default}\n"
            author = self.store.commit(commits[0]).author if commits else who
            return self.store.write_commit(tree, [base], text, author, who)
        # rebase: replay each commit's tree on the base; only possible when base is the merge base
        if self.store.merge_base(base, head) != base:
            raise MergeRefused(405, "This branch can't be rebased")
        parent = base
        for sha in commits:
            info = self.store.commit(sha)
            parent = self.store.write_commit(info.tree, [parent], info.message, info.author, who)
        return parent

    def enqueue(self, pr: PullRequest, by: User) -> tuple[str, str]:
        """Put `pr` in its base's merge queue as GitHub does: the merge of its head onto the base,
        on the read-only branch `gh-readonly-queue/<base>/pr-<number>-<head sha>`. Returns that
        branch's full ref and the base sha it was built on (the caller sends the events)."""
        with self.state.lock:
            if pr.state != "open" or pr.merged_at is not None:
                raise MergeRefused(422, "Pull request is not open")
            head, base = self.head_sha(pr), self.base_sha(pr)
            if ZERO in (head, base) or self.store.merge_tree(base, head) is None:
                raise MergeRefused(422, "Pull request has merge conflicts")
            group = self._merge_commit(pr, by, "merge", head, base, None, None)
            ref = f"refs/heads/gh-readonly-queue/{pr.base_ref}/pr-{pr.number}-{head}"
            if not self.store.update_ref(ref, group, ZERO):
                raise MergeRefused(422, "Pull request is already queued")
            return ref, base

    def sweep_auto_merge(self) -> list[int]:
        """Merge every open pull request whose auto-merge is on and whose checks now pass."""
        merged = []
        with self.state.lock:
            for pr in list(self.state.pulls.values()):
                if pr.auto_merge is None or pr.state != "open":
                    continue
                if self.mergeability(pr).state != "clean":
                    continue
                enabled_by = self.state.user(pr.auto_merge["enabled_by"]["login"])
                try:
                    self.merge(pr, enabled_by, pr.auto_merge["merge_method"],
                               pr.auto_merge.get("commit_title") or None, pr.auto_merge.get("commit_message") or None)
                except MergeRefused:
                    continue
                merged.append(pr.number)
        return merged
