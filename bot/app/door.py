"""The App's front door to the flows: one routed event → one flow run, as the App's bot.

Per job: an installation token for the one repository with only the permissions its flow needs,
the PyGithub port as the App's bot, the App reporter, a checkout of the event's commit (a worktree
of the repository's kept object store under the data directory, fetching only what is new; a
fresh shallow clone when the caller gives no data directory), and the
App's sinks, picked here and nowhere else: the check run `memshelf-bot` (its `external_id` is the
job's key, so a job run again finds and updates its own check run instead of making a second),
the sticky comment, and review comments with the suggestions. The App never marks its port
read-only: its token may write on a fork's pull request too. The flow's result becomes the
completed check run: a check completes it itself; a render's or a command's result is written into
one here. Transient failures (GitHub unavailable or rate-limiting, a refused token, git) raise, for
the job layer to retry; a flow that failed, or a refusal of GitHub's that a retry would meet again
(not found, forbidden, invalid), returns a failed result; either way a check run the door started
is completed as a failure first.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..adapters.pygithub import PyGithubPort
from ..events import EventKind
from ..flows.result import FlowOutcome, FlowResult
from ..job import Job, Workspace
from ..port import CheckOutput, Conclusion, GitHubPort, PortError, Reason
from ..report import Posted, SinkName
from ..report.check_run import CONCLUSION, CheckRunSink, fit
from ..report.comment import StickySink
from ..report.review import ReviewSink
from ..router import FlowName, Route, runner
from .auth import InstallationTokens
from .config import AppConfig
from .reporter import AppReporter
from .workspace import ObjectStores, clone_of, remote_url

READ, WRITE = "read", "write"
PERMISSIONS: Mapping[FlowName, Mapping[str, str]] = {
    FlowName.CHECK_PR: {"metadata": READ, "contents": READ, "pull_requests": WRITE, "issues": WRITE,
                        "checks": WRITE, "statuses": WRITE},
    FlowName.CHECK_MERGE_GROUP: {"metadata": READ, "contents": READ, "checks": WRITE, "statuses": WRITE},
    FlowName.RENDER: {"metadata": READ, "contents": WRITE, "pull_requests": WRITE, "issues": WRITE,  # the dashboard
                      "checks": WRITE},
    FlowName.OPEN_PR: {"metadata": READ, "contents": WRITE, "pull_requests": WRITE, "issues": WRITE,
                       "checks": WRITE, "statuses": WRITE},
    FlowName.COMMAND: {"metadata": READ, "contents": WRITE, "pull_requests": WRITE, "issues": WRITE,
                       "checks": WRITE, "statuses": WRITE},
}
STARTED_BY_THE_DOOR = (EventKind.PULL_REQUEST, EventKind.MERGE_GROUP)  # in progress before the work
TRANSIENT = (Reason.UNAVAILABLE, Reason.RATE_LIMITED)  # raised, for the job layer to retry


def commit_of(route: Route) -> str | None:
    """The commit the workspace holds: a pull request's or a merge group's head, the pushed
    commit, or none (a comment, a re-request: the flow fetches what it needs)."""
    event = route.event
    if event.kind in STARTED_BY_THE_DOOR:
        return event.head_sha or None
    if event.kind is EventKind.PUSH:
        return event.after or None
    return None


def check_head(route: Route) -> str | None:
    """Where the door's own check run goes when the flow publishes none: the event's head."""
    event = route.event
    if event.kind is EventKind.PUSH:
        return event.after or None
    if event.kind in (*STARTED_BY_THE_DOOR, EventKind.CHECK_RUN, EventKind.CHECK_SUITE):
        return event.head_sha or None
    return None


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


def run_route(route: Route, *, key: str, config: AppConfig, tokens: InstallationTokens, login: str,
              data_dir: Path | None = None) -> FlowResult:
    """Run the routed flow for the job `key` as the App's bot `login`; its result. With `data_dir`
    the job's checkout comes from the repository's object store kept under `<data_dir>/git`."""
    if route.installation_id is None:
        raise ValueError("a route without an installation cannot run as the App")
    token = tokens.token(route.installation_id, route.repository, PERMISSIONS[route.flow]).token
    reporter = AppReporter(key)
    reporter.add_secret(token)
    port = PyGithubPort(token, config.github_url, route.repository, identity_login=login, notify=reporter.log)
    requests = RequestCounter(port.requester)
    try:
        return run_with(route, key=key, port=port, reporter=reporter,
                        remote=remote_url(config.github_url, route.repository), token=token,
                        stores=ObjectStores(data_dir / "git") if data_dir is not None else None)
    finally:
        tokens.record(requests.count, requests.remaining)


def run_with(route: Route, *, key: str, port: GitHubPort, reporter: AppReporter, remote: str,
             token: str = "", stores: ObjectStores | None = None) -> FlowResult:
    """The flow behind the App's door, on `port` (the adapter; the recording fake in tests)."""
    check = CheckRunSink(port, reporter.clean, external_id=key)
    head = check_head(route)
    checkout = (stores.checkout(route.repository, remote, token, commit_of(route),
                                files=route.flow is not FlowName.CHECK_PR) if stores is not None
                else clone_of(remote, token, commit_of(route)))
    with checkout as root:
        workspace = Workspace(root=root, remote_url=remote, token=token)
        job = Job(route.event, port, reporter, workspace,
                  sinks=[StickySink(port, reporter.clean), check, ReviewSink(port, reporter.clean)],
                  cache=stores.episode_cache() if stores is not None else None)
        if route.event.kind in STARTED_BY_THE_DOOR and head:
            check.start(head)
        try:
            result = runner(route.flow)(job)
        except Exception as exc:
            why = reporter.clean(exc.message if isinstance(exc, PortError) else f"{type(exc).__name__}: {exc}")
            if check.run_id is not None and head:
                try:
                    check.complete(head, Conclusion.FAILURE, CheckOutput(title="memshelf-bot could not finish",
                                                                         summary=fit(why)))
                except PortError as failed:  # GitHub still failing: the job's own error is the one to raise
                    reporter.log(f"memshelf-bot: the check run was not completed ({failed.message})")
            if isinstance(exc, PortError) and exc.reason not in TRANSIENT:
                return FlowResult(FlowOutcome.FAILED, detail=f"{route.flow}: {why}")  # running again changes nothing
            raise
        finally:
            workspace.close()
    conclude(route, result, check, head, reporter)
    return result


def conclusion_of(result: FlowResult) -> Conclusion:
    if result.outcome is FlowOutcome.FAILED:
        return Conclusion.FAILURE
    if result.outcome is FlowOutcome.NOTHING_TO_DO:
        return Conclusion.NEUTRAL
    return CONCLUSION[result.verdict] if result.verdict is not None and result.judged else Conclusion.SUCCESS


TITLES = {FlowOutcome.DONE: "memshelf-bot: done", FlowOutcome.NOTHING_TO_DO: "memshelf-bot: nothing to do",
          FlowOutcome.FAILED: "memshelf-bot: needs attention"}


def conclude(route: Route, result: FlowResult, check: CheckRunSink, head: str | None, reporter: AppReporter) -> None:
    """Complete the job's check run from the result, unless the flow's check already did: one the
    door started (the check stayed off a pull request that moved on, or there was nothing to
    check), and a render's, whose summary is its check run."""
    if result.sink(SinkName.CHECK_RUN) is Posted.DONE or head is None:
        return
    if check.run_id is None and route.flow is not FlowName.RENDER:
        return
    text = reporter.clean("\n".join(reporter.summary).strip()) or result.detail or "memshelf-bot had nothing to say."
    try:
        check.complete(head, conclusion_of(result), CheckOutput(title=TITLES[result.outcome], summary=fit(text)))
    except PortError as exc:
        if exc.reason not in (Reason.READ_ONLY, Reason.FORBIDDEN):
            raise
        reporter.log(f"memshelf-bot: the check run was not written ({exc.message})")
