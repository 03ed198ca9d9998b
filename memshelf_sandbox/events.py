"""What happens in one repository, turned into webhook deliveries the way GitHub sends them.

Route handlers report pull requests opened/closed/reopened, comments created and checks
re-requested; pushes are found by comparing branch heads with the last ones seen (`settle`,
called around every write through REST, GraphQL or git smart HTTP), so a push over git, a ref
moved through the Git Data API and a merge all become `push` events — followed, for an App, by
`check_suite` `requested` for the new head, and by `pull_request` `synchronize` for each open pull
request whose head branch moved. Payloads are built here, from the state at the moment of the
event; the sending thread validates each against the official webhook schema before it goes out
(a payload the schema rejects is a sandbox bug: `validation_errors`). A branch written straight
into git (a test helper) is noticed at the next write through the sandbox.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from . import webhooks
from .gitstore import ZERO
from .state import CheckRun, CheckSuite, Comment, PullRequest, User, node_id

if TYPE_CHECKING:
    from .app import App
    from .delivery import Deliveries
    from .repo import Repository


class Events:
    def __init__(self, repo: Repository, deliveries: Deliveries, app: App | None) -> None:
        self.repo = repo
        self.deliveries = deliveries
        self.app = app
        self._lock = threading.Lock()
        self._heads = repo.store.refs("refs/heads/")

    def _emit(self, name: str, payload: dict[str, Any]) -> None:
        event, _, action = name.partition(".")
        if self.app is not None and event not in self.app.events:
            return
        installation = self.app.installation_for(self.repo.state.repo.owner) if self.app else None
        if installation is not None:
            payload["installation"] = {"id": installation.id,
                                       "node_id": node_id("MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u", installation.id)}
        self.deliveries.send(event, action or None, payload, installation.id if installation else None,
                             self.repo.state.repo.id)

    def pull_request(self, pr: PullRequest, action: str, sender: User, before: str | None = None,
                     after: str | None = None) -> None:
        self._emit(f"pull_request.{action}", webhooks.pull_request(self.repo, pr, action, sender, before, after))

    def issue_comment(self, comment: Comment, sender: User) -> None:
        self._emit("issue_comment.created", webhooks.issue_comment(self.repo, comment, sender))

    def _others(self, app_id: int | None) -> bool:
        """A check run or suite of another App (GitHub Actions): its events are not this hook's."""
        return self.app is not None and app_id != self.app.id

    def check_run(self, run: CheckRun, action: str, sender: User) -> None:
        if not self._others(run.app_id):
            self._emit(f"check_run.{action}", webhooks.check_run(self.repo, run, action, sender))

    def check_suite(self, suite: CheckSuite, action: str, sender: User) -> None:
        if self._others(suite.app_id):
            return
        self._emit(f"check_suite.{action}", webhooks.check_suite(self.repo, suite, action, sender))

    def merge_group(self, head_ref: str, base_ref: str, base_sha: str, sender: User) -> None:
        self._emit("merge_group.checks_requested", webhooks.merge_group(self.repo, head_ref, base_ref, base_sha, sender))

    def settle(self, sender: User) -> None:
        """Send the pushes since the last look at the branch heads, as made by `sender`."""
        with self._lock:
            heads = self.repo.store.refs("refs/heads/")
            moved = [(ref, self._heads.get(ref, ZERO), heads.get(ref, ZERO))
                     for ref in sorted(set(heads) | set(self._heads)) if heads.get(ref) != self._heads.get(ref)]
            self._heads = heads
            for ref, before, after in moved:
                self._pushed(ref, before, after, sender)

    def _pushed(self, ref: str, before: str, after: str, sender: User) -> None:
        store = self.repo.store
        forced = before != ZERO and after != ZERO and not store.is_ancestor(before, after)
        self._emit("push", webhooks.push(self.repo, ref, before, after, sender, forced))
        if after == ZERO:
            return
        branch = ref.removeprefix("refs/heads/")
        if self.app is not None:
            suite = self.repo.state.suite_for(after, self.app.id, branch)
            suite.before, suite.after = before if before != ZERO else None, after
            self.check_suite(suite, "requested", sender)
        with self.repo.state.lock:
            pulls = [pr for pr in self.repo.state.pulls.values()
                     if pr.state == "open" and not pr.head_repo and pr.head_ref == branch]
        for pr in pulls:
            self.pull_request(pr, "synchronize", sender, before, after)
