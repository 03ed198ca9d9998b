"""Keeping the shelf dashboard issue, after each render of the default branch (either door).

One issue, `Shelf dashboard` with the label `shelf:dashboard`, opened by the bot itself (an issue
anyone else opened with that label is never touched): created when missing, edited only when its
text changes, reopened when it was closed, closed when `.memshelf-bot.yml` says `dashboard: false`
(duplicates a race left are closed too). The facts come from the rendered commit of the default
branch; the Markdown from `report/dashboard.py`. A token that may not write issues (the Action's
`GITHUB_TOKEN` without `issues: write`), or a repository with issues turned off, is not a failure:
the run says so once, in a notice and a summary line, and the render's result stands.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum

from memshelf_render.glance import glance
from memshelf_render.validate import Report

from ..job import Job
from ..port import Issue, IssueEdit, IssueState, PortError, Reason
from ..report import Level, Note
from ..report.dashboard import LABEL, TITLE, Dashboard, Facts, Where, facts, last_render

NO_PERMISSION = (Reason.READ_ONLY, Reason.FORBIDDEN)
TRANSIENT = (Reason.UNAVAILABLE, Reason.RATE_LIMITED)  # raised: the job layer (the App) retries


class DashboardAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    REOPENED = "reopened"
    CLOSED = "closed"
    OFF = "off"  # `dashboard: false` and no open dashboard
    READ_ONLY = "read-only"
    REFUSED = "refused"  # another refusal, e.g. issues turned off for the repository


SAID = {
    DashboardAction.CREATED: "opened the Shelf dashboard issue #{n}",
    DashboardAction.UPDATED: "updated the Shelf dashboard issue #{n}",
    DashboardAction.UNCHANGED: "left the Shelf dashboard issue #{n} as it was (same text)",
    DashboardAction.REOPENED: "reopened and updated the Shelf dashboard issue #{n}",
    DashboardAction.CLOSED: "closed the Shelf dashboard issue #{n} (`dashboard: false`)",
    DashboardAction.OFF: "keeps no Shelf dashboard (`dashboard: false`)",
    DashboardAction.READ_ONLY: "could not keep the Shelf dashboard issue: the token may not write issues (give the "
                               "render job `issues: write`, or set `dashboard: false`)",
    DashboardAction.REFUSED: "could not keep the Shelf dashboard issue: GitHub refused it (are issues turned "
                             "off for the repository? `dashboard: false` stops asking)",
}


def today() -> dt.date:
    return dt.datetime.now(dt.UTC).date()


def web_page(job: Job) -> str:
    """The repository's web page (`https://github.com/octo/shelf`): its git remote without `.git`."""
    return job.workspace.remote_url.removesuffix(".git")


def own_dashboards(job: Job) -> list[Issue]:
    """The bot's own dashboard issues, oldest first (more than one only after a race)."""
    return list(job.port.labeled_issues(LABEL.name, job.port.identity().login))


def is_dashboard(job: Job, number: int) -> bool:
    """Whether issue `number` is one of the bot's own dashboards (asked of GitHub: a label alone
    is anyone's to set)."""
    return any(issue.number == number for issue in own_dashboards(job))


def keep(job: Job, branch: str, *, main_sha: str, report: Report, standing: int, render_sha: str,
         render_pr: int | None) -> DashboardAction | None:
    """After a render of `branch` at `main_sha` (`render_sha`: the commit it made, '' for none;
    `render_pr`: where it waits when the branch is protected): bring the dashboard up to date.
    What was done, or None when `branch` is not the default branch (no dashboard for it)."""
    if branch != job.default_branch():
        return None
    day = today()
    local = job.workspace.local
    local.fetch(main_sha)
    with local.worktree(main_sha) as tree:
        shelf, _ = job.load(tree)
        if shelf is None:  # the render loaded it a moment ago: only a race with a deleted tree gets here
            return None
        wanted = shelf.settings.dashboard
        found = facts(glance(shelf, day), report, standing) if wanted else None
    try:
        action, number = _update(job, branch, found, day, render_sha, render_pr)
    except PortError as exc:
        if exc.reason in TRANSIENT:
            raise
        action = DashboardAction.READ_ONLY if exc.reason in NO_PERMISSION else DashboardAction.REFUSED
        number = 0
        job.reporter.annotate(Note(Level.NOTICE, None, None, "memshelf-bot: no shelf dashboard",
                                   SAID[action] + f" ({exc.message})."))
    said = SAID[action].format(n=number)
    job.reporter.log(f"memshelf-bot: {said}")
    job.reporter.add_summary(f"Shelf dashboard: memshelf-bot {said}.\n")
    return action


def _update(job: Job, branch: str, found: Facts | None, day: dt.date, render_sha: str,
            render_pr: int | None) -> tuple[DashboardAction, int]:
    port = job.port
    mine = own_dashboards(job)
    kept = next((i for i in mine if i.state is IssueState.OPEN), mine[0] if mine else None)
    for extra in mine:  # a race's duplicates: one dashboard stays
        if extra is not kept and extra.state is IssueState.OPEN:
            port.update_issue(extra.number, IssueEdit(state=IssueState.CLOSED))
    if found is None:
        if kept is None or kept.state is IssueState.CLOSED:
            return DashboardAction.OFF, 0
        port.update_issue(kept.number, IssueEdit(state=IssueState.CLOSED))
        return DashboardAction.CLOSED, kept.number
    sha = render_sha or (last_render(kept.body) if kept is not None else None)
    body = Dashboard(found, Where(web_page(job), branch, job.prefix), day, job.reporter.clean).body(sha, render_pr)
    if kept is None:
        port.ensure_label(LABEL)
        return DashboardAction.CREATED, port.create_issue(TITLE, body, [LABEL.name]).number
    if kept.state is IssueState.CLOSED:
        port.update_issue(kept.number, IssueEdit(title=TITLE, body=body, state=IssueState.OPEN))
        return DashboardAction.REOPENED, kept.number
    if kept.body == body and kept.title == TITLE:
        return DashboardAction.UNCHANGED, kept.number
    port.update_issue(kept.number, IssueEdit(title=TITLE, body=body))
    return DashboardAction.UPDATED, kept.number
