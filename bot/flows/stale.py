"""No stale writes: two runs for one pull request can finish out of order (a push while the
first still runs), and the older one must not overwrite the newer verdict. So right before a run
writes its verdict (comment, commit status, labels, check run, review), it re-reads the pull
request's head; when the head has moved past the commit this run checked, it writes nothing to
GitHub and says so in its log and summary (the run for the new head publishes). Its exit status
is still its own verdict.
"""

from __future__ import annotations

from ..job import Job
from ..port import PortError, Reason


def newer_head(job: Job, pr_number: int, checked_sha: str) -> str | None:
    """The pull request's head when it moved past `checked_sha` (this run is stale), else None.
    A head that `checked_sha` descends from is GitHub not yet showing a commit this run made
    itself (a restore, a fix, a resolve): not stale."""
    current = job.port.pull(pr_number).head_sha
    if not current or current == checked_sha:
        return None
    try:
        lagging = job.port.compare(current, checked_sha).behind_by == 0
    except PortError as exc:
        if exc.reason is not Reason.NOT_FOUND:
            raise
        lagging = False
    return None if lagging else current


def withheld(job: Job, pr_number: int, checked_sha: str, current: str) -> str:
    """Say that this run's verdict stays off the pull request; the line for the summary."""
    line = (f"Nothing was written to pull request #{pr_number}: its head moved from `{checked_sha[:12]}` (the "
            f"commit this run checked) to `{current[:12]}`, whose own run publishes the verdict.")
    job.reporter.log(f"memshelf-bot: pull request #{pr_number} moved on to {current[:12]}; this run's verdict "
                     f"on {checked_sha[:12]} is not written (no stale writes)")
    return line
