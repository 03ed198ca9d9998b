"""`memshelf-bot action`: the Action's front door, the container entrypoint. Reads `GITHUB_*` and
`INPUT_*`, runs the flow the router gives the event (`mode: auto`) or the one the `mode` input
names, with the sinks this door picks, and turns the flow's result into the step's outputs
($GITHUB_OUTPUT), its summary ($GITHUB_STEP_SUMMARY) and its exit status, whatever happens.

`mode: auto` asks `bot.router` (the same table as the App): pull requests → the check; a push to
the default branch → render (skipped for the bot's own render commits); a push to an agent branch
→ open or update its pull request; a `/shelf` comment → the command; `workflow_dispatch` and
`schedule` → render the default branch; `merge_group` → the check of the group's head; anything
else → a notice, exit 0. A fork's `pull_request` run has a read-only `GITHUB_TOKEN`: this door
says so to the port before the flow runs (the flow never knows). Exit status: the result's (0
clean, 1 violations or failed work, 2 configuration error).

This module imports one flow, `bot.flows.local` (modes `validate` and `badge`): the router (which
imports every flow to fill its table), the other flows and the sinks that write to GitHub are
imported by the mode that runs them, so a validate run — the image's start → verdict — loads none
of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from memshelf_render.check import Verdict

from . import context
from . import inputs as action_inputs
from .context import ContextError
from .events import Event, EventKind
from .flows import local
from .flows.registry import BOT_BRANCH_PREFIX, FlowName
from .flows.result import FlowOutcome, FlowResult
from .gitlocal import GitFailed
from .job import Job
from .port import PortError, Reason
from .report import Level, Note, Sink
from .report.workflow import WorkflowReporter

ModeRun = Callable[[Job], FlowResult]
OUTPUTS = ("verdict", "errors", "warnings", "episodes", "changed", "commit_sha", "pr_number", "standing_tokens",
           "sarif_file")


def outputs(result: FlowResult | None) -> dict[str, str]:
    """Every output the action declares, from the flow's result ('' where it has no value)."""
    if result is None:
        return dict.fromkeys(OUTPUTS, "")
    values: dict[str, object] = {
        "verdict": result.verdict, "errors": result.errors, "warnings": result.warnings,
        "episodes": result.episodes, "changed": result.changed, "commit_sha": result.commit_sha,
        "pr_number": result.pr_number, "standing_tokens": result.standing_tokens, "sarif_file": result.sarif_file}
    return {name: "" if values[name] is None else str(values[name]) for name in OUTPUTS}


def unrouted(event: Event) -> str:
    """What the bot does not act on, in words, for the notice."""
    if event.kind.is_pull_request:
        return "a closed pull request" if event.action == "closed" else f"a pull request that was {event.action}"
    if event.kind is EventKind.PUSH:
        branch = event.branch
        if branch is None:
            return f"a push to {event.ref or 'an unnamed ref'} (not a branch)"
        if event.deleted:
            return f"the deletion of {branch}"
        if branch.startswith(BOT_BRANCH_PREFIX):
            return f"a push to {branch} (the bot's own branch)"
    return f"{event.name} events" if not event.action else f"{event.name} ({event.action}) events"


def auto_mode(job: Job) -> FlowResult:
    from .flows import commands
    from .flows.publish import not_acted_on
    from .router import route, runner

    routed = route(job.event)
    if routed is None and job.event.kind is EventKind.ISSUE_COMMENT:  # conversation: ignored without a word
        return commands.ignore(job, "a comment that is not a /shelf command on a pull request")
    if routed is None:
        return not_acted_on(job.reporter, unrouted(job.event))
    return runner(routed.flow)(job)


def guard_mode(job: Job) -> FlowResult:
    if not job.event.kind.is_pull_request:
        raise ContextError(f"mode guard needs a pull_request event, not {job.event.name}")
    from .flows import pull_request

    return pull_request.run(job, rules=False)


def open_pr_mode(job: Job) -> FlowResult:
    """The branch's pull request, whatever `branch_patterns` say: a push to it, or a manual run on it."""
    event = job.event
    branch = event.branch
    if event.kind not in (EventKind.PUSH, EventKind.WORKFLOW_DISPATCH) or branch is None:
        raise ContextError(f"mode open-pr needs a push to a branch or a workflow_dispatch on one, not "
                           f"{event.name} {event.ref}".rstrip())
    default = job.default_branch()
    if branch == default or branch.startswith(BOT_BRANCH_PREFIX):
        raise ContextError(f"mode open-pr opens pull requests for agent branches; {branch} is "
                           + ("the default branch" if branch == default else "the bot's own branch"))
    from .flows import open_pr

    if event.kind is EventKind.PUSH:
        return open_pr.run(job, branch)
    return open_pr.run(job, branch, head_sha=job.port.branch_sha(branch))


def resolve_mode(job: Job) -> FlowResult:
    if job.event.kind is not EventKind.ISSUE_COMMENT:
        raise ContextError(f"mode resolve answers `/shelf` comments: it needs an issue_comment event, not "
                           f"{job.event.name}")
    from .router import runner

    return runner(FlowName.COMMAND)(job)


def render_mode(job: Job) -> FlowResult:
    from .flows import render_main

    return render_main.run(job)


MODE_FLOWS: dict[str, ModeRun] = {
    "auto": auto_mode,
    "validate": local.validate,
    "render": render_mode,
    "guard": guard_mode,
    "open-pr": open_pr_mode,
    "resolve": resolve_mode,
    "badge": local.badge,
}


LOCAL_MODES = ("validate", "badge")  # the modes that need no GitHub API


def writes(mode: str, job: Job) -> bool:
    """Whether this run's flow writes to GitHub (and so needs a token)."""
    if mode == "auto":
        from .router import route

        return route(job.event) is not None
    return mode not in LOCAL_MODES


def fork_run(job: Job) -> bool:
    """A fork's `pull_request` run: GitHub gives it a read-only token."""
    return job.event.kind is EventKind.PULL_REQUEST and job.event.fork


def sinks(mode: str, job: Job) -> list[Sink]:
    """The one place the Action picks where a check goes besides the log and the summary. A run
    that writes to GitHub keeps the sticky comment (a fork's run keeps it in the workspace for the
    `workflow_run` workflow instead) and tries the check run (`checks: write`) and the review
    comments holding the suggestions (`pull-requests: write`): a read-only token makes no request,
    a refusal (403) is said in the summary, which keeps every suggestion either way. A pull
    request's check also leaves its findings as a SARIF file (the `sarif_file` output)."""
    found: list[Sink] = []
    clean, port = job.reporter.clean, job.port
    if writes(mode, job):
        from .flows import fork_comment
        from .report.check_run import CheckRunSink
        from .report.comment import StickySink
        from .report.review import ReviewSink

        keeper = fork_comment.keeper(port, job.workspace.root, job.reporter.log) if fork_run(job) else None
        found += [StickySink(port, clean, keeper), CheckRunSink(port, clean), ReviewSink(port, clean)]
    if mode in ("auto", "guard") and job.event.kind.is_pull_request:
        from .report.sarif import SarifSink

        found.append(SarifSink(job.workspace.root, clean))
    return found


def prepare(mode: str, job: Job) -> Job:
    """What this door does to a job before its flow runs: a fork's checkout loses whatever it
    planted where the bot leaves files, a fork's `pull_request` token is read-only (said to the
    port, never decided by a flow), and the job gets this door's sinks."""
    if job.event.kind.is_pull_request and job.event.fork:
        from .flows import fork_comment

        fork_comment.clear(job.workspace.root)
    if fork_run(job) and writes(mode, job):
        job.port.mark_read_only()
    job.sinks += sinks(mode, job)
    return job


def conclude(reporter: WorkflowReporter, result: FlowResult | None) -> int:
    """The flow's result as this step's outputs; its exit status."""
    for name, value in outputs(result).items():
        reporter.set_output(name, value)
    return 1 if result is None else result.exit_code


def run(env: Mapping[str, str], reporter: WorkflowReporter) -> int:
    """One Action step; every failure ends as an annotation and an exit status, never a traceback.
    Outputs (all of them, empty when not applicable) and the summary are written whatever happens."""
    result: FlowResult | int = 1
    try:
        result = _run(env, reporter)
        return result if isinstance(result, int) else result.exit_code
    finally:
        conclude(reporter, result if isinstance(result, FlowResult) else None)
        reporter.write_outputs()
        reporter.write_summary()


def _error(reporter: WorkflowReporter, message: str, title: str = "memshelf-bot") -> None:
    reporter.annotate(Note(Level.ERROR, None, None, title, message))


def _config_error(detail: str) -> FlowResult:
    return FlowResult(FlowOutcome.FAILED, Verdict.CONFIG_ERROR, detail=detail)


def _run(env: Mapping[str, str], reporter: WorkflowReporter) -> FlowResult | int:
    """The flow's result, or the exit status of a run that never reached a flow (or broke in one)."""
    try:
        given = action_inputs.read(env)
    except action_inputs.InputError as exc:
        _error(reporter, str(exc), "memshelf-bot: invalid input")
        return _config_error(str(exc))
    reporter.add_secret(given.token or env.get("GITHUB_TOKEN", ""))
    try:
        job = context.build(env, given, reporter)
    except ContextError as exc:
        _error(reporter, str(exc))
        return 2
    if not job.workspace.token and writes(given.mode, job):
        _error(reporter, "this run must write to GitHub, but input 'token' is empty and GITHUB_TOKEN is not set: "
                         "pass `token: ${{ github.token }}` (or a token with the job's permissions)")
        return _config_error("no token")
    context.trust_workspace(job.workspace.root, reporter)
    prepare(given.mode, job)
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
