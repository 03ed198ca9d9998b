"""The in-process sandbox for tests: start it, point PyGithub and git at it, inspect what happened."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .app import App
from .core import Core
from .delivery import Deliveries
from .faults import Faults
from .gitstore import GitStore
from .repo import Repository
from .server import SandboxServer
from .state import Call, Principal, Protection, PullRequest, State

DEFAULT_TOKEN = "ghs_sandbox"


class Sandbox:
    """A running sandbox. `calls`, `state`, `faults` and `validation_errors` are live views."""

    def __init__(self, server: SandboxServer) -> None:
        self._server = server
        self.api_url = server.api_url

    @classmethod
    @contextmanager
    def start(cls, bare: Path, name: str = "octo/shelf", token: str | None = None, *, app: App | None = None,
              more: Sequence[tuple[Path, str]] = (), log: Path | None = None,
              webhook: tuple[str, str] | None = None, forks: Sequence[str] = (),
              **settings: Any) -> Iterator[Sandbox]:
        """Serve `bare` as `name` (and `more` bare repositories under their names) until the block
        ends; `settings` set RepoSettings fields of the first (e.g. `allow_auto_merge=True`);
        `token` pins the one accepted token; `app` is the GitHub App the sandbox plays GitHub for;
        `webhook` = (url, secret) makes it deliver signed webhooks; `log` is `--log FILE`; `forks`
        are `--fork OWNER/REPO` (see server.py)."""
        server = SandboxServer(Path(bare), name, token=token, more=more, app=app, log=log, webhook=webhook,
                               forks=forks)
        for key, value in settings.items():
            if not hasattr(server.core.state.repo, key):
                raise TypeError(f"unknown repository setting {key!r}")
            setattr(server.core.state.repo, key, value)
        thread = threading.Thread(target=server.serve_forever, args=(0.05,), name="sandbox", daemon=True)
        thread.start()
        try:
            yield cls(server)
        finally:
            server.shutdown()
            server.server_close()
            thread.join()

    @property
    def state(self) -> State:
        return self._server.core.state

    @property
    def app(self) -> App | None:
        return self._server.app

    @property
    def deliveries(self) -> Deliveries:
        """The webhook deliveries (only with `webhook=`): records, `mode`, `redeliver`, `wait_idle`."""
        if self._server.deliveries is None:
            raise RuntimeError("this sandbox was started without webhook=(url, secret)")
        return self._server.deliveries

    def core(self, full_name: str) -> Core:
        """Another repository of this sandbox (`more` of `start`) by its full name."""
        return self._server.cores[full_name.lower()]

    @property
    def repo(self) -> Repository:
        return self._server.core.repo

    @property
    def store(self) -> GitStore:
        return self._server.core.repo.store

    @property
    def faults(self) -> Faults:
        return self._server.core.faults

    @property
    def served(self) -> int:
        """Bytes of every answer's body served so far (REST, git smart HTTP, pages)."""
        return self._server.served

    @property
    def calls(self) -> list[Call]:
        with self.state.lock:
            return list(self.state.calls)

    @property
    def validation_errors(self) -> list[str]:
        return list(self._server.problems.items)

    @property
    def full_name(self) -> str:
        return self.state.repo.full_name

    def git_url(self, token: str | None = DEFAULT_TOKEN, full_name: str | None = None) -> str:
        """The clone URL (of this repository, or of `full_name`, a fork); with a token, in the
        `x-access-token:<token>@` form Actions uses."""
        host = self.api_url.split("://", 1)[1]
        auth = f"x-access-token:{token}@" if token else ""
        return f"http://{auth}{host}/{full_name or self.full_name}.git"

    def add_token(self, token: str, login: str, permission: str = "write", integration: bool = True) -> Principal:
        return self.state.add_token(token, login, permission, integration)

    def protect(self, branch: str, required_contexts: list[str]) -> None:
        """Branch protection requiring these status contexts / check names before merging."""
        with self.state.lock:
            self.state.protection[branch] = Protection(list(required_contexts))

    def require_signed_commits(self, branch: str) -> None:
        """A ruleset on `branch` requiring verified signatures: a ref update through the API that
        brings an unsigned commit is refused with GitHub's "Repository rule violations found"."""
        with self.state.lock:
            self.state.signed_only.add(branch)

    def open_fork_pull(self, fork: str, branch: str, sha: str, title: str, user: str,
                       base: str = "main", maintainer_can_modify: bool = False) -> int:
        """A pull request from branch `branch` of the fork `fork` ("owner/name") at commit `sha`,
        as GitHub records one: the fork (served as `forks=` serves it, made now if it is not yet)
        gets the branch, and the head commit is kept at `refs/pull/<number>/head`. No webhook is
        sent. Returns its number."""
        if self.store.object_type(sha) != "commit":
            raise ValueError(f"{sha} is not a commit of this repository")
        self._server.add_fork(fork)
        self.store.update_ref(self.repo.fork_branch(fork.partition("/")[0], branch), sha, None)
        with self.state.lock:
            number = self.state.next_number()
            pr = PullRequest(number, self.state.next_id(), title, None, self.state.user(user), branch, base,
                             maintainer_can_modify=maintainer_can_modify, head_repo=fork)
            if not self.store.update_ref(self.repo.head_ref_name(pr), sha, None):
                raise RuntimeError(f"cannot record the head of fork pull request #{number}")
            self.state.pulls[number] = pr
        return number

    def enqueue(self, number: int, by: str = "octo", full_name: str | None = None) -> tuple[str, str]:
        """Put pull request `number` in its base's merge queue, as `POST /_sandbox/merge-queue`:
        the queue branch's full ref and head sha (its `push` and `merge_group` webhooks follow)."""
        return self._server.enqueue(full_name or self.full_name, number, by)

    def github(self, token: str = DEFAULT_TOKEN, **kwargs: Any) -> Any:
        """A PyGithub client for this sandbox: no retries, no throttling, 100 per page unless given."""
        from github import Auth, Github

        options: dict[str, Any] = {"retry": None, "seconds_between_requests": None,
                                   "seconds_between_writes": None, "per_page": 100, **kwargs}
        return Github(auth=Auth.Token(token), base_url=self.api_url, **options)

    def calls_to(self, method: str, path_suffix: str) -> list[Call]:
        """Calls with this method whose path ends with `path_suffix` (e.g. "/git/refs/heads/main")."""
        return [c for c in self.calls if c.method == method and c.path.endswith(path_suffix)]
