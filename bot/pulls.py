"""The pull request of an agent branch on GitHub: found or opened (one per branch, also when two
runs race), labelled, given the verdict as a commit status, and optionally set to auto-merge.

Opening is list-by-head, then create; GitHub answers a create that lost a race with 422 "A pull
request already exists for owner:branch", after which the other run's PR is listed again and
used. Labels are created (with a colour and a description) before they are first applied.
Auto-merge is GitHub's own (GraphQL `enablePullRequestAutoMerge`, squash, pinned to the head
commit that was validated); a repository that does not allow it is reported, never an error.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from memshelf_render.check import Verdict

from .port import (
    AutoMergeAnswer,
    CommitStatus,
    GitHubPort,
    Label,
    MergeMethod,
    PortError,
    PullRequest,
    Reason,
    StatusState,
)

STATUS_CONTEXT = "memshelf-bot/validate"
EPISODE_LABEL = "shelf:episode"
INVALID_LABEL = "shelf:invalid"
LABELS = {
    EPISODE_LABEL: Label(EPISODE_LABEL, "5319e7", "Episodes for the memory shelf (memshelf-bot)"),
    INVALID_LABEL: Label(INVALID_LABEL, "d73a4a", "memshelf-bot found errors in these episodes"),
}
OPEN_ATTEMPTS = 4
STATUS_STATES = {Verdict.VALID: StatusState.SUCCESS, Verdict.VIOLATIONS: StatusState.FAILURE,
                 Verdict.CONFIG_ERROR: StatusState.ERROR}
MAX_STATUS_DESCRIPTION = 140  # GitHub cuts a status description there


class CannotOpen(RuntimeError):
    """GitHub refuses to open the pull request (e.g. Actions may not create pull requests)."""


def pick(pulls: tuple[PullRequest, ...], base: str) -> PullRequest:
    """The one to keep up to date: the oldest against `base`, else the oldest."""
    return next((p for p in pulls if p.base_ref == base), pulls[0])


def find_or_open(port: GitHubPort, branch: str, base: str, title: str, body: str,
                 sleep: Callable[[float], None] = time.sleep,
                 rng: random.Random | None = None) -> tuple[PullRequest, bool]:
    """The branch's open pull request and whether this call opened it."""
    rng = rng or random.Random()
    for attempt in range(OPEN_ATTEMPTS):
        found = port.open_pulls(branch)
        if found:
            return pick(found, base), False
        try:
            return port.open_pull(title=title, body=body, head=branch, base=base), True
        except PortError as exc:
            if exc.reason is Reason.ALREADY_EXISTS:
                sleep(rng.uniform(0.05, 0.25) * (attempt + 1))  # the other run's PR: list again
                continue
            if exc.reason in (Reason.READ_ONLY, Reason.FORBIDDEN, Reason.INVALID):
                raise CannotOpen(exc.detail) from exc
            raise
    raise CannotOpen(f"GitHub keeps saying a pull request for {branch} exists, but does not list it")


def sync_labels(port: GitHubPort, pull: PullRequest, invalid: bool) -> tuple[list[str], list[str]]:
    """`shelf:episode` always, `shelf:invalid` exactly while the verdict fails; (added, removed)."""
    have = set(pull.labels)
    wanted = [EPISODE_LABEL] + ([INVALID_LABEL] if invalid else [])
    added = [name for name in wanted if name not in have]
    removed = [INVALID_LABEL] if not invalid and INVALID_LABEL in have else []
    try:
        for name in added:
            port.ensure_label(LABELS[name])
        if added:
            port.add_labels(pull.number, added)
        for name in removed:
            port.remove_label(pull.number, name)
    except PortError as exc:
        if exc.reason is not Reason.READ_ONLY:
            raise
        return [], []
    return added, removed


# the commit status ---------------------------------------------------------------------------


def status_description(verdict: Verdict, counts: dict[str, int], episodes: int) -> str:
    if verdict is Verdict.CONFIG_ERROR:
        text = "configuration error: shelf.yml or .memshelf-bot.yml is missing or invalid"
    else:
        text = (f"{verdict}: {counts['error']} error(s), {counts['warning']} warning(s) in {episodes} "
                f"episode(s)")
    return text[:MAX_STATUS_DESCRIPTION]


def publish_status(port: GitHubPort, sha: str, verdict: Verdict, description: str, target_url: str | None) -> bool:
    """The verdict as the `memshelf-bot/validate` status of `sha`; False when the token may not."""
    try:
        port.set_status(sha, CommitStatus(STATUS_STATES[verdict], STATUS_CONTEXT, description, target_url))
    except PortError as exc:
        if exc.reason is Reason.READ_ONLY:
            return False
        raise
    return True


# auto-merge ----------------------------------------------------------------------------------


class AutoMergeAction(StrEnum):
    OFF = "off"
    ENABLED = "enabled"
    MERGED = "merged"
    NOT_ALLOWED = "not-allowed"
    CONFLICT = "conflict"
    MOVED = "moved"
    REFUSED = "refused"
    DISABLED = "disabled"


ANSWERS = {AutoMergeAnswer.NOT_ALLOWED: AutoMergeAction.NOT_ALLOWED, AutoMergeAnswer.HEAD_MOVED: AutoMergeAction.MOVED,
           AutoMergeAnswer.CONFLICT: AutoMergeAction.CONFLICT, AutoMergeAnswer.REFUSED: AutoMergeAction.REFUSED}


@dataclass(frozen=True, slots=True)
class AutoMerge:
    """What became of the pull request's auto-merge in this run."""

    action: AutoMergeAction
    detail: str = ""
    merge_sha: str = ""

    def remark(self, base: str) -> str | None:
        """The line the sticky comment carries about it (None: nothing worth saying)."""
        return {
            AutoMergeAction.ENABLED: f"🔀 Auto-merge is on: GitHub squash-merges this pull request into `{base}` "
                                     "once its required checks pass.",
            AutoMergeAction.MERGED: "🔀 Auto-merge: nothing else was required, so the bot squash-merged this pull "
                                    f"request into `{base}`.",
            AutoMergeAction.NOT_ALLOWED: "⚠️ `auto_merge` is on, but this repository does not allow auto-merge: "
                                         "enable *Allow auto-merge* in Settings → General, or turn `auto_merge` "
                                         "off. The pull request waits for a human.",
            AutoMergeAction.CONFLICT: f"⚠️ Auto-merge waits: this branch conflicts with `{base}`. Someone with write "
                                      "access can comment `/shelf resolve` to settle it.",
            AutoMergeAction.MOVED: "Auto-merge was not enabled: the branch moved after it was validated; the run for "
                                   "the new push decides.",
            AutoMergeAction.REFUSED: f"⚠️ GitHub refused to enable auto-merge: {self.detail}",
            AutoMergeAction.DISABLED: "Auto-merge was turned off: the episodes no longer pass.",
        }.get(self.action)


def settle_auto_merge(port: GitHubPort, pull: PullRequest, head_sha: str, *, wanted: bool,
                      valid: bool) -> AutoMerge:
    """Arm GitHub's auto-merge (squash, for `head_sha` only) when `wanted` and `valid`. When
    GitHub says nothing required is left to wait for (a "clean" or "unstable" pull request), merge
    now instead, as `gh pr merge --auto` does. An armed auto-merge is disarmed when the episodes
    stop passing."""
    if not valid:
        if pull.auto_merge:
            port.disable_auto_merge(pull)
            return AutoMerge(AutoMergeAction.DISABLED)
        return AutoMerge(AutoMergeAction.OFF)
    if not wanted:
        return AutoMerge(AutoMergeAction.OFF)
    if pull.auto_merge:
        return AutoMerge(AutoMergeAction.ENABLED)
    answer = port.enable_auto_merge(pull, head_sha, MergeMethod.SQUASH)
    if answer.answer is AutoMergeAnswer.ENABLED:
        return AutoMerge(AutoMergeAction.ENABLED)
    if answer.answer is AutoMergeAnswer.CLEAN:
        try:
            merged = port.merge(pull.number, head_sha, MergeMethod.SQUASH)
        except PortError as exc:
            return AutoMerge(AutoMergeAction.REFUSED, exc.detail)
        return AutoMerge(AutoMergeAction.MERGED, merge_sha=merged)
    return AutoMerge(ANSWERS[answer.answer], answer.detail)
