"""Event → flow for the App: the SAME flows as the Action, through the same port.

Per job: an installation token for the one repository with only the permissions its flow
needs, the PyGithub port as the App's bot, the App reporter, a fresh clone of exactly the
event's commit, and the check run `memshelf-bot` as a sink (in progress before the work,
completed with the verdict and the annotations after). A render's result, a ruleset refusal
(GH013) included, is a completed check run on the pushed commit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

from ..adapters.pygithub import PyGithubPort
from ..events import Event, EventKind
from ..flows import commands, pull_request, push, render_main
from ..job import Job, Workspace
from ..port import CheckOutput, CheckStatus, Conclusion, PortError, PullState
from ..report.check_run import CHECK_NAME, CheckRunSink, fit
from .auth import InstallationTokens
from .config import AppConfig
from .reporter import AppReporter
from .routing import Flow, Route
from .workspace import clone_of, remote_url

READ, WRITE = "read", "write"
PERMISSIONS: Mapping[Flow, Mapping[str, str]] = {
    Flow.CHECK_PR: {"metadata": READ, "contents": READ, "pull_requests": WRITE, "issues": WRITE,
                    "checks": WRITE, "statuses": WRITE},
    Flow.RENDER: {"metadata": READ, "contents": WRITE, "pull_requests": WRITE, "checks": WRITE},
    Flow.OPEN_PR: {"metadata": READ, "contents": WRITE, "pull_requests": WRITE, "issues": WRITE,
                   "checks": WRITE, "statuses": WRITE},
    Flow.COMMAND: {"metadata": READ, "contents": WRITE, "pull_requests": WRITE, "issues": WRITE,
                   "checks": WRITE, "statuses": WRITE},
}


def pull_event(port: PyGithubPort, event: Event, number: int) -> Event | None:
    """`event` (a check run or suite re-request) as the pull request event it re-runs; None when
    the pull request is closed."""
    pull = port.pull(number)
    if pull.state is not PullState.OPEN:
        return None
    return dataclasses.replace(event, kind=EventKind.PULL_REQUEST, name="pull_request", action="synchronize",
                               pr_number=number, pr_state=pull.state.value, head_sha=pull.head_sha,
                               head_ref=pull.head_ref, head_repo=pull.head_repo, base_sha=pull.base_sha,
                               base_ref=pull.base_ref, fork=pull.is_fork_of(port.full_name))


def commit_of(route: Route, event: Event) -> str | None:
    """The commit the workspace holds: the pull request's head, the pushed commit, or none
    (a comment: its flow fetches what it needs)."""
    if event.kind is EventKind.PULL_REQUEST:
        return event.head_sha or None
    if event.kind is EventKind.PUSH:
        return event.after or None
    return None


def _render(job: Job, route: Route) -> int:
    if job.event.kind is EventKind.PUSH:
        return push.run(job)  # the Action's push dispatch: default branch → render, agent branch → its PR
    return render_main.run(job, branch=route.branch)


FLOWS: Mapping[Flow, Callable[[Job, Route], int]] = {
    Flow.CHECK_PR: lambda job, _route: pull_request.run(job),
    Flow.RENDER: _render,
    Flow.OPEN_PR: _render,
    Flow.COMMAND: lambda job, _route: commands.run(job),
}


def _summary_check(port: PyGithubPort, sha: str, code: int, reporter: AppReporter) -> None:
    """What a flow without a check of its own did (a render), as a completed check run."""
    text = reporter.clean("\n".join(reporter.summary).strip()) or "memshelf-bot had nothing to say."
    title = "memshelf-bot: done" if code == 0 else "memshelf-bot: needs attention"
    run = port.create_check_run(CHECK_NAME, sha, CheckStatus.IN_PROGRESS)
    port.update_check_run(run.id, CheckStatus.COMPLETED, Conclusion.SUCCESS if code == 0 else Conclusion.FAILURE,
                          CheckOutput(title=title, summary=fit(text)))


class RequestCounter:
    """Counts the HTTP requests one PyGithub requester makes (it announces each one through its
    debug-frame hook, which does nothing unless debugging is on)."""

    def __init__(self, requester: Any) -> None:
        self.count = 0
        self.requester = requester
        announce = requester.NEW_DEBUG_FRAME

        def counted(headers: Any) -> None:
            self.count += 1
            announce(headers)

        requester.NEW_DEBUG_FRAME = counted

    @property
    def remaining(self) -> int | None:
        remaining = self.requester.rate_limiting[0]
        return remaining if remaining >= 0 else None


class FlowHandler:
    def __init__(self, config: AppConfig, tokens: InstallationTokens) -> None:
        self.config = config
        self.tokens = tokens

    def __call__(self, key: str, route: Route, login: str) -> str:
        token = self.tokens.token(route.installation_id, route.repository, PERMISSIONS[route.flow]).token
        reporter = AppReporter(key)
        reporter.add_secret(token)
        port = PyGithubPort(token, self.config.github_url, route.repository, identity_login=login,
                            notify=reporter.log)
        requests = RequestCounter(port.requester)
        try:
            return self._run(route, port, reporter, token)
        finally:
            self.tokens.record(requests.count, requests.remaining)

    def _run(self, route: Route, port: PyGithubPort, reporter: AppReporter, token: str) -> str:
        event = route.event
        if route.flow is Flow.CHECK_PR and event.kind is not EventKind.PULL_REQUEST:
            assert route.pull_number is not None
            rerun = pull_event(port, event, route.pull_number)
            if rerun is None:
                return f"pull request #{route.pull_number} is closed: nothing to check"
            event = rerun
        remote = remote_url(self.config.github_url, route.repository)
        sha = commit_of(route, event)
        with clone_of(remote, token, sha) as root:
            workspace = Workspace(root=root, remote_url=remote, token=token)
            check = CheckRunSink(port, reporter.clean)
            job = Job(event, port, reporter, workspace, sinks=[check])
            if route.flow is Flow.CHECK_PR:
                check.start(event.head_sha)
            try:
                code = FLOWS[route.flow](job, route)
            except PortError as exc:
                if check.run_id is not None:
                    port.update_check_run(check.run_id, CheckStatus.COMPLETED, Conclusion.FAILURE, CheckOutput(
                        title="memshelf-bot could not finish", summary=reporter.clean(exc.message)))
                raise
            finally:
                workspace.close()
            if route.flow is Flow.RENDER and check.run_id is None and sha:
                _summary_check(port, sha, code, reporter)
        return f"{route.flow}: exit {code}"
