"""`memshelf-bot action`: the container entrypoint. Reads `GITHUB_*` and `INPUT_*`, picks the flow
for the event (`mode: auto`) or the one the `mode` input names, and leaves its outputs in
$GITHUB_OUTPUT and its report in $GITHUB_STEP_SUMMARY whatever happens.

`mode: auto`:
- `pull_request` / `pull_request_target` → the pull-request flow (guard, rules, feedback);
- `push` to the default branch → render on main (skipped for the bot's own render commits);
- `push` to an agent branch (`branch_patterns`, never the bot's own `memshelf-bot/…`) → open or
  update its pull request, validated in the same run (`open-pr`);
- `issue_comment` → the `/shelf` commands of a pull request's conversation (`resolve`);
- `workflow_dispatch` and `schedule` → render on the default branch (a no-op when it is fresh);
- anything else → a notice, exit 0.
Exit status: the flow's (0 clean, 1 violations or a failed render, 2 configuration error).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from . import context
from . import inputs as action_inputs
from .context import ContextError
from .events import EventKind
from .flows import commands, fork_comment, local, open_pr, pull_request, push, render_main
from .flows.publish import set_outputs
from .flows.push import not_handled
from .gitlocal import GitFailed
from .job import Job
from .port import PortError, Reason
from .report import Level, Note, Sink
from .report.check_run import CheckRunSink
from .report.review import ReviewSink
from .report.sarif import SarifSink
from .report.workflow import WorkflowReporter

Flow = Callable[[Job], int]


def on_pull_request(job: Job) -> int:
    if job.event.action == "closed" or job.event.pr_state == "closed":
        return not_handled(job, "a closed pull request")
    if job.event.fork:  # the checkout is the fork's: nothing it planted is uploaded as the bot's comment
        fork_comment.clear(job.workspace.root)
    return pull_request.run(job)


def on_dispatch(job: Job) -> int:
    return render_main.run(job)


# The events `mode: auto` acts on.
EVENT_FLOWS: dict[EventKind, Flow] = {
    EventKind.PULL_REQUEST: on_pull_request,
    EventKind.PULL_REQUEST_TARGET: on_pull_request,
    EventKind.PUSH: push.run,
    EventKind.ISSUE_COMMENT: commands.run,
    EventKind.WORKFLOW_DISPATCH: on_dispatch,
    EventKind.SCHEDULE: on_dispatch,  # the scheduled render catches merges that started no workflow
}


def guard_mode(job: Job) -> int:
    if not job.event.kind.is_pull_request:
        raise ContextError(f"mode guard needs a pull_request event, not {job.event.name}")
    return pull_request.run(job, rules=False)


def open_pr_mode(job: Job) -> int:
    """The branch's pull request, whatever `branch_patterns` say: a push to it, or a manual run on it."""
    event = job.event
    branch = event.branch
    if event.kind not in (EventKind.PUSH, EventKind.WORKFLOW_DISPATCH) or branch is None:
        raise ContextError(f"mode open-pr needs a push to a branch or a workflow_dispatch on one, not "
                           f"{event.name} {event.ref}".rstrip())
    default = job.default_branch()
    if branch == default or branch.startswith(render_main.BOT_BRANCH_PREFIX):
        raise ContextError(f"mode open-pr opens pull requests for agent branches; {branch} is "
                           + ("the default branch" if branch == default else "the bot's own branch"))
    if event.kind is EventKind.PUSH:
        return open_pr.run(job, branch)
    return open_pr.run(job, branch, head_sha=job.port.branch_sha(branch))


def resolve_mode(job: Job) -> int:
    if job.event.kind is not EventKind.ISSUE_COMMENT:
        raise ContextError(f"mode resolve answers `/shelf` comments: it needs an issue_comment event, not "
                           f"{job.event.name}")
    return commands.run(job)


def auto_mode(job: Job) -> int:
    flow = EVENT_FLOWS.get(job.event.kind)
    if flow is None:
        return not_handled(job, f"{job.event.name} events")
    return flow(job)


MODE_FLOWS: dict[str, Flow] = {
    "auto": auto_mode,
    "validate": local.validate,
    "render": render_main.run,
    "guard": guard_mode,
    "open-pr": open_pr_mode,
    "resolve": resolve_mode,
    "badge": local.badge,
}


LOCAL_MODES = ("validate", "badge")  # the modes that need no GitHub API


def writes(mode: str, job: Job) -> bool:
    """Whether this run's flow writes to GitHub (and so needs a token)."""
    if mode == "auto":
        return job.event.kind in EVENT_FLOWS
    return mode not in LOCAL_MODES


def sinks(mode: str, job: Job) -> list[Sink]:
    """Where the Action's check goes besides the log, the summary and the sticky comment. A run
    that writes to GitHub also tries the check run (`checks: write`) and the review comments
    holding the suggestions (`pull-requests: write`): a fork's read-only token makes no request,
    a refusal (403) is said in the summary, which keeps every suggestion either way. A pull
    request's check also leaves its findings as a SARIF file (the `sarif_file` output)."""
    found: list[Sink] = []
    if writes(mode, job):
        clean = job.reporter.clean
        found += [CheckRunSink(job.port, clean), ReviewSink(job.port, clean)]
    if mode in ("auto", "guard") and job.event.kind.is_pull_request:
        found.append(SarifSink(job.workspace.root, job.reporter.clean))
    return found


def run(env: Mapping[str, str], reporter: WorkflowReporter) -> int:
    """One Action step; every failure ends as an annotation and an exit status, never a traceback.
    Outputs (all of them, empty when not applicable) and the summary are written whatever happens."""
    try:
        return _run(env, reporter)
    finally:
        if not reporter.outputs:
            set_outputs(reporter)
        reporter.write_outputs()
        reporter.write_summary()


def _error(reporter: WorkflowReporter, message: str, title: str = "memshelf-bot") -> None:
    reporter.annotate(Note(Level.ERROR, None, None, title, message))


def _run(env: Mapping[str, str], reporter: WorkflowReporter) -> int:
    try:
        given = action_inputs.read(env)
    except action_inputs.InputError as exc:
        _error(reporter, str(exc), "memshelf-bot: invalid input")
        set_outputs(reporter, verdict="config-error")
        return 2
    reporter.add_secret(given.token or env.get("GITHUB_TOKEN", ""))
    try:
        job = context.build(env, given, reporter)
    except ContextError as exc:
        _error(reporter, str(exc))
        return 2
    if not job.workspace.token and writes(given.mode, job):
        _error(reporter, "this run must write to GitHub, but input 'token' is empty and GITHUB_TOKEN is not set: "
                         "pass `token: ${{ github.token }}` (or a token with the job's permissions)")
        set_outputs(reporter, verdict="config-error")
        return 2
    context.trust_workspace(job.workspace.root, reporter)
    job.sinks += sinks(given.mode, job)
    try:
        return MODE_FLOWS[given.mode](job)
    except ContextError as exc:
        _error(reporter, str(exc))
        return 2
    except GitFailed as exc:
        _error(reporter, str(exc))
        return 1
    except PortError as exc:
        if exc.reason in (Reason.UNAVAILABLE, Reason.RATE_LIMITED):
            _error(reporter, exc.message)
        else:
            _error(reporter, f"GitHub answered {exc.status}: {exc.detail}", "memshelf-bot: GitHub refused a request")
        return 1
    finally:
        job.workspace.close()


def cli_main(args: object) -> int:
    return run(os.environ, WorkflowReporter.from_env(os.environ))
