"""A merge queue's group (`merge_group`, `checks_requested`): its head is checked like a pull
request's — the guard and the rules over what the group changes against its base
(`base_sha...head_sha`), with the base's settings and policy — so a shelf whose default branch
requires the check never stalls its queue. The verdict goes on the group's head: the check run
where the front door gives one, and the commit status `memshelf-bot/validate`."""

from __future__ import annotations

from .. import pulls
from ..events import EventKind
from ..job import Job
from ..port import PortError, Reason
from .open_pr import check_branch
from .publish import publish_check
from .registry import FlowName, On, flow
from .result import FlowOutcome, FlowResult


@flow(FlowName.CHECK_MERGE_GROUP, On(EventKind.MERGE_GROUP, ("checks_requested",)))
def run(job: Job) -> FlowResult:
    event = job.event
    head, base = event.head_sha, event.base_sha
    if not head or not base:
        job.reporter.log("memshelf-bot: the merge group event carries no head or base sha")
        return FlowResult(FlowOutcome.FAILED, detail="the merge group event carries no head or base sha")
    queue = event.base_ref.removeprefix("refs/heads/") or "the default branch"
    outcome, shelf, _, files = check_branch(job, head, base)
    try:
        posted = pulls.publish_status(job.port, head, outcome.verdict,
                                      pulls.status_description(outcome.verdict, outcome.counts, outcome.checked),
                                      job.workspace.run_url)
    except PortError as exc:
        if exc.reason not in (Reason.READ_ONLY, Reason.FORBIDDEN):
            raise
        posted = False
    status = (f"Commit status `{pulls.STATUS_CONTEXT}` on `{head[:12]}`: "
              + (f"{pulls.STATUS_STATES[outcome.verdict]}." if posted else "not published (the token may not)."))
    return publish_check(job, outcome, shelf, title=f"merge group for {queue}", head_sha=head, files=files,
                         actions=[status])
