"""`memshelf-bot action`: the container entrypoint. Reads `GITHUB_*` and `INPUT_*`, picks the flow
for the event (`mode: auto`) or the one the `mode` input names, and leaves its outputs in
$GITHUB_OUTPUT and its report in $GITHUB_STEP_SUMMARY whatever happens.

`mode: auto`:
- `pull_request` / `pull_request_target` → the pull-request flow (guard, rules, feedback);
- `push` to the default branch → render on main (skipped for the bot's own render commits);
- `push` to an agent branch (`branch_patterns`, never the bot's own `memshelf-bot/…`) → open or
  update its pull request, validated in the same run (`open-pr`);
- `issue_comment` → the `/shelf` commands of a pull request's conversation (`resolve`);
- `workflow_dispatch` → render on the default branch;
- anything else → a notice, exit 0.
Exit status: the flow's (0 clean, 1 violations or a failed render, 2 configuration error).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping

from github import GithubException

from memshelf_render.shelf import Settings

from . import inputs as action_inputs
from .context import ActionContext, ContextError
from .flows import commands, local, open_pr, pull_request, render_main
from .flows.publish import set_outputs
from .github import ApiUnavailable
from .gitlocal import GitFailed
from .runner import Runner

Flow = Callable[[ActionContext], int]


def on_push(ctx: ActionContext) -> int:
    ref = str(ctx.event.get("ref", ""))
    branch = ref.removeprefix("refs/heads/")
    if not ref.startswith("refs/heads/"):
        return not_handled(ctx, f"a push to {ref or 'an unnamed ref'} (not a branch)")
    if branch == ctx.default_branch:
        shelf, _ = ctx.load(ctx.workspace)
        if shelf is not None and render_main.own_render_push(ctx.event, shelf, ctx.prefix):
            ctx.runner.log("memshelf-bot: this push is the bot's own render (only derived files, pushed by a bot); "
                           "nothing to render")
            ctx.runner.add_summary(f"## memshelf-bot · push to `{branch}`\n\nThis push holds only derived files "
                                   "and was made by a bot (the bot's own render): nothing to render.\n")
            set_outputs(ctx.runner)
            return 0
        return render_main.run(ctx, branch=branch)
    if branch.startswith(render_main.BOT_BRANCH_PREFIX):
        return not_handled(ctx, f"a push to {branch} (the bot's own branch)")
    shelf, _ = ctx.load(ctx.workspace)
    settings = shelf.settings if shelf else ctx.inputs.apply(Settings())
    if open_pr.is_agent_branch(branch, settings):
        return open_pr.run(ctx, branch)
    return not_handled(ctx, f"a push to {branch} (neither the default branch nor an agent branch)")


def not_handled(ctx: ActionContext, what: str) -> int:
    ctx.runner.annotate("notice", None, None, "memshelf-bot", f"memshelf-bot does not act on {what}; nothing to do")
    ctx.runner.add_summary(f"## memshelf-bot\n\nNothing to do: memshelf-bot does not act on {what}.\n")
    set_outputs(ctx.runner)
    return 0


def on_pull_request(ctx: ActionContext) -> int:
    if ctx.event.get("action") == "closed" or (ctx.event.get("pull_request") or {}).get("state") == "closed":
        return not_handled(ctx, "a closed pull request")
    return pull_request.run(ctx)


def on_dispatch(ctx: ActionContext) -> int:
    return render_main.run(ctx)


# The events `mode: auto` acts on.
EVENT_FLOWS: dict[str, Flow] = {
    "pull_request": on_pull_request,
    "pull_request_target": on_pull_request,
    "push": on_push,
    "issue_comment": commands.run,
    "workflow_dispatch": on_dispatch,
}


def guard_mode(ctx: ActionContext) -> int:
    if ctx.event_name not in local.PR_EVENTS:
        raise ContextError(f"mode guard needs a pull_request event, not {ctx.event_name}")
    return pull_request.run(ctx, rules=False)


def open_pr_mode(ctx: ActionContext) -> int:
    """The branch's pull request, whatever `branch_patterns` say: a push to it, or a manual run on it."""
    ref = str(ctx.event.get("ref", ""))
    if ctx.event_name not in ("push", "workflow_dispatch") or not ref.startswith("refs/heads/"):
        raise ContextError(f"mode open-pr needs a push to a branch or a workflow_dispatch on one, not "
                           f"{ctx.event_name} {ref}".rstrip())
    branch = ref.removeprefix("refs/heads/")
    if branch == ctx.default_branch or branch.startswith(render_main.BOT_BRANCH_PREFIX):
        raise ContextError(f"mode open-pr opens pull requests for agent branches; {branch} is "
                           + ("the default branch" if branch == ctx.default_branch else "the bot's own branch"))
    if ctx.event_name == "push":
        return open_pr.run(ctx, branch)
    _, head = ctx.github.ref_sha(branch)
    return open_pr.run(ctx, branch, head_sha=head)


def resolve_mode(ctx: ActionContext) -> int:
    if ctx.event_name != "issue_comment":
        raise ContextError(f"mode resolve answers `/shelf` comments: it needs an issue_comment event, not "
                           f"{ctx.event_name}")
    return commands.run(ctx)


def auto_mode(ctx: ActionContext) -> int:
    flow = EVENT_FLOWS.get(ctx.event_name)
    if flow is None:
        return not_handled(ctx, f"{ctx.event_name} events")
    return flow(ctx)


MODE_FLOWS: dict[str, Flow] = {
    "auto": auto_mode,
    "validate": local.validate,
    "render": render_main.run,
    "guard": guard_mode,
    "open-pr": open_pr_mode,
    "resolve": resolve_mode,
    "badge": local.badge,
}


def run(env: Mapping[str, str], runner: Runner) -> int:
    """One Action step; every failure ends as an annotation and an exit status, never a traceback.
    Outputs (all of them, empty when not applicable) and the summary are written whatever happens."""
    try:
        return _run(env, runner)
    finally:
        if not runner.outputs:
            set_outputs(runner)
        runner.write_outputs()
        runner.write_summary()


def _run(env: Mapping[str, str], runner: Runner) -> int:
    try:
        given = action_inputs.read(env)
    except action_inputs.InputError as exc:
        runner.annotate("error", None, None, "memshelf-bot: invalid input", str(exc))
        set_outputs(runner, verdict="config-error")
        return 2
    runner.add_secret(given.token or env.get("GITHUB_TOKEN", ""))
    try:
        ctx = ActionContext.from_env(env, given, runner)
    except ContextError as exc:
        runner.annotate("error", None, None, "memshelf-bot", str(exc))
        return 2
    runner.trust_workspace(str(ctx.workspace))
    try:
        return MODE_FLOWS[given.mode](ctx)
    except ContextError as exc:
        runner.annotate("error", None, None, "memshelf-bot", str(exc))
        return 2
    except (ApiUnavailable, GitFailed) as exc:
        runner.annotate("error", None, None, "memshelf-bot", str(exc))
        return 1
    except GithubException as exc:
        message = exc.data.get("message") if isinstance(exc.data, dict) else None
        runner.annotate("error", None, None, "memshelf-bot: GitHub refused a request",
                        f"GitHub answered {exc.status}: {message or exc}")
        return 1
    finally:
        ctx.close()


def cli_main(args: object) -> int:
    return run(os.environ, Runner(os.environ))
