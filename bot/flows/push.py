"""A push, dispatched the same way by the Action and the App: the default branch → render on it
(skipped for the bot's own render pushes), an agent branch (`branch_patterns`, never the bot's own
`memshelf-bot/…`) → open or update its pull request; anything else is not acted on."""

from __future__ import annotations

from memshelf_render.shelf import Settings

from ..job import Job
from ..report import Level, Note
from . import open_pr, render_main
from .publish import set_outputs


def run(job: Job) -> int:
    event = job.event
    branch = event.branch
    if branch is None:
        return not_handled(job, f"a push to {event.ref or 'an unnamed ref'} (not a branch)")
    if branch == job.default_branch():
        shelf, _ = job.load(job.workspace.root)
        if shelf is not None and render_main.own_render_push(event, shelf, job.prefix):
            job.reporter.log("memshelf-bot: this push is the bot's own render (only derived files, pushed by a bot); "
                             "nothing to render")
            job.reporter.add_summary(f"## memshelf-bot · push to `{branch}`\n\nThis push holds only derived files "
                                     "and was made by a bot (the bot's own render): nothing to render.\n")
            set_outputs(job.reporter)
            return 0
        return render_main.run(job, branch=branch)
    if branch.startswith(render_main.BOT_BRANCH_PREFIX):
        return not_handled(job, f"a push to {branch} (the bot's own branch)")
    shelf, _ = job.load(job.workspace.root)
    settings = shelf.settings if shelf else job.workspace.apply(Settings())
    if open_pr.is_agent_branch(branch, settings):
        return open_pr.run(job, branch)
    return not_handled(job, f"a push to {branch} (neither the default branch nor an agent branch)")


def not_handled(job: Job, what: str) -> int:
    """Say (a notice and the summary) that the bot does not act on `what`; exit 0."""
    job.reporter.annotate(Note(Level.NOTICE, None, None, "memshelf-bot",
                               f"memshelf-bot does not act on {what}; nothing to do"))
    job.reporter.add_summary(f"## memshelf-bot\n\nNothing to do: memshelf-bot does not act on {what}.\n")
    set_outputs(job.reporter)
    return 0
