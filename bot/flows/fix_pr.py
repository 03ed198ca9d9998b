"""`/shelf fix`: apply the core's mechanical fixes (`memshelf-bot fix`) to a pull request's changed
episodes and commit them to its branch through the port.

The fixes are computed from the PR head's files in a scratch tree (the core's `plan` is pure: new
bytes per file, nothing written), with the base branch's settings and policy (so a PR cannot
narrow which secrets get masked). The result is one commit with no explicit author on top of the
head the fixes were computed on, moved fast-forward only: a branch that moved meanwhile is never
overwritten. A fork's branch is refused (the job's token can only write to this repository).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from memshelf_render.check import repo_path, shelf_relative
from memshelf_render.fix import FileFix, plan
from memshelf_render.guard import is_episode_path

from ..basepolicy import BasePolicy
from ..job import Job
from ..port import FilesCommit, FileStatus, PortError, PullRequest, PullState, Reason, RefUpdate
from ..report import markdown as md
from .pull_request import base_settings

MESSAGE = "memshelf-bot fix"


class FixOutcome(StrEnum):
    COMMITTED = "committed"
    NOTHING = "nothing-to-fix"
    REFUSED = "refused"
    MOVED = "branch-moved"
    FAILED = "failed"


@dataclass
class Fixing:
    """How `/shelf fix` ended; `head` is the branch's head afterwards (the one to check)."""

    outcome: FixOutcome
    head: str
    fixes: list[FileFix] = field(default_factory=list)
    reason: str = ""


def refusal(job: Job, pull: PullRequest) -> str | None:
    """Why `/shelf fix` cannot work on this pull request, or None."""
    if pull.state is not PullState.OPEN:
        return "the pull request is closed"
    if pull.is_fork_of(job.full_name):
        return (f"its branch lives in a fork ({pull.head_label}), and this job's token can only push to "
                f"{job.full_name}")
    return None


def commit_message(fixes: list[FileFix], prefix: str) -> str:
    listed = "\n".join(f"- {repo_path(f.path, prefix)}: {', '.join(dict.fromkeys(f.codes))}" for f in fixes)
    return f"{MESSAGE}\n\nThe mechanical fixes of /shelf fix, one right answer each:\n\n{listed}\n"


def planned(job: Job, pull: PullRequest, head: str) -> list[FileFix] | str:
    """The fixes of the PR's changed episodes at `head`, or why the shelf does not load."""
    port, prefix = job.port, job.prefix
    changed = [f.path for f in port.pull_files(pull.number).files if f.status is not FileStatus.REMOVED]
    settings = base_settings(job, pull.base_sha, pull.base_ref)
    with job.workspace.local.checkout_of(head) as (tree, _):
        policy = BasePolicy.read(port, pull.base_sha, prefix)
        shelf, problems = job.load(tree, settings=settings, policy_text=policy.patterns)
        if shelf is None:
            return "the shelf does not load: " + "; ".join(p.message for p in problems[:3])
        rels = [rel for rel in (shelf_relative(p, prefix) for p in changed)
                if not rel.startswith("../") and is_episode_path(shelf, rel)]
        if not rels:
            return []
        return plan(policy.governed(shelf), [str(shelf.abs(rel)) for rel in rels])


def fix_pull(job: Job, pull: PullRequest) -> Fixing:
    """Fix the pull request's changed episodes and commit the result to its branch."""
    why = refusal(job, pull)
    if why is not None:
        return Fixing(FixOutcome.REFUSED, pull.head_sha, reason=why)
    head = pull.head_sha
    fixes = planned(job, pull, head)
    if isinstance(fixes, str):
        return Fixing(FixOutcome.FAILED, head, reason=fixes)
    if not fixes:
        return Fixing(FixOutcome.NOTHING, head)
    files: dict[str, bytes | None] = {repo_path(f.path, job.prefix): f.data for f in fixes}
    try:
        sha = job.port.create_commit(FilesCommit(head, job.reporter.clean(commit_message(fixes, job.prefix)), files))
        moved = job.port.move_branch(pull.head_ref, sha)
    except PortError as exc:
        if exc.reason not in (Reason.READ_ONLY, Reason.FORBIDDEN):
            raise
        return Fixing(FixOutcome.FAILED, head, fixes, f"the token may not write to {pull.head_ref}")
    if moved is RefUpdate.NON_FAST_FORWARD:
        return Fixing(FixOutcome.MOVED, head, fixes, f"{pull.head_ref} moved while the bot worked; it is never "
                                                     "forced: comment `/shelf fix` again")
    if moved is not RefUpdate.MOVED:
        return Fixing(FixOutcome.FAILED, head, fixes, f"GitHub refused to update {pull.head_ref} ({moved})")
    return Fixing(FixOutcome.COMMITTED, sha, fixes)


def reply(fixing: Fixing, pull: PullRequest, prefix: str) -> str:
    """The answer to `/shelf fix`, in Markdown (the caller masks it)."""
    if fixing.outcome is FixOutcome.REFUSED:
        return (f"😕 `/shelf fix` cannot work on this pull request: {md.text(fixing.reason)}. Nothing was pushed. "
                "Its author can run `memshelf-bot fix --changed FILE…` locally and push.")
    if fixing.outcome in (FixOutcome.FAILED, FixOutcome.MOVED):
        return f"😕 `/shelf fix` failed: {md.text(fixing.reason)}. Nothing was pushed."
    if fixing.outcome is FixOutcome.NOTHING:
        return (f"🚀 Nothing to fix: the episodes {md.code(pull.head_ref)} changes have no finding with a "
                "mechanical fix. Nothing was pushed.")
    lines = [f"🚀 Fixed {len(fixing.fixes)} episode(s) and pushed {md.code(fixing.head[:12])} "
             f"(`{MESSAGE}`) on top of {md.code(pull.head_sha[:12])}:", ""]
    lines += [f"- {md.code(repo_path(f.path, prefix))}: {', '.join(md.code(c) for c in dict.fromkeys(f.codes))}"
              for f in fixing.fixes]
    lines += ["", "What is left for a human is in the pull request's own check (the `memshelf-bot/validate` "
                  "status) on the new head."]
    return "\n".join(lines)
