"""The pull-request flow: the guard over the PR's files, the rules over its changed episodes,
and the feedback (annotations, sticky comment with suggestions, job summary). Exit = verdict.

The PR is data. Its files come from the API (paged; GitHub lists at most 3,000 and a larger PR
is said to be unchecked, not passed), their git modes from the head tree, the base's episode ids
from the base tree. In the App the head is checked out without its files and the check writes
only those it reads (`head_files`), reading the base through git from the repository's store
(`base_files`). What governs the check comes from the **base** branch, so a PR cannot weaken
its own check: the bot's settings (`allow_paths` above all; inputs still override them) and the
policy (`POLICY.md`, `POLICY.patterns`: a PR cannot delete the patterns that mask its secrets,
nor add a pattern that hangs the check). A changed policy is validated, and applies after merge.
"""

from __future__ import annotations

from memshelf_render.check import Outcome, Verdict, add_rows, changes_from_files, check, repo_path
from memshelf_render.guard import stem
from memshelf_render.shelf import SETTINGS, Settings, Shelf
from memshelf_render.validate import Report

from ..basepolicy import BasePolicy
from ..events import Event, EventKind
from ..job import Job, settings_from_bytes
from ..port import PR_FILES_CAP, GitHubPort, PullState
from .base_files import BaseFiles
from .head_files import fill, head_rows
from .publish import config_error, publish_check
from .registry import FlowName, On, flow
from .result import FlowOutcome, FlowResult, nothing_to_do

PULL_REQUEST_ACTIONS = ("opened", "synchronize", "reopened", "ready_for_review")


def names_a_pull(event: Event) -> bool:
    """A check run or suite re-request GitHub lists a pull request on."""
    return event.pr_number is not None


def base_episode_ids(port: GitHubPort, shelf: Shelf, base_sha: str, prefix: str) -> set[str]:
    """Ids (file stems) of every episode on the base, docs and archive, from its git tree."""
    return {stem(path) for path in BaseFiles(port, base_sha, prefix).episodes(shelf)}


def base_settings(job: Job, base_sha: str, base: str) -> Settings:
    """The base branch's `.memshelf-bot.yml` (the defaults when it is invalid, said in the log)."""
    settings, _ = settings_from_bytes(job.port.file_at(base_sha, repo_path(SETTINGS, job.prefix)))
    if settings is None:
        job.reporter.log(f"memshelf-bot: {base}'s {SETTINGS} is invalid; the default settings apply")
        return Settings()
    return settings


@flow(FlowName.CHECK_PR,
      On(EventKind.PULL_REQUEST, PULL_REQUEST_ACTIONS),
      On(EventKind.PULL_REQUEST_TARGET, PULL_REQUEST_ACTIONS),
      On(EventKind.CHECK_RUN, ("rerequested",), when=names_a_pull),
      On(EventKind.CHECK_SUITE, ("requested", "rerequested"), when=names_a_pull))
def check_pr(job: Job) -> FlowResult:
    """The event's pull request: its own event, or a check re-request naming it (read afresh: a
    re-request carries no base, and the head may have moved since)."""
    event = job.event
    if event.kind.is_pull_request:
        return run(job)
    assert event.pr_number is not None
    pull = job.port.pull(event.pr_number)
    if pull.state is not PullState.OPEN:
        job.reporter.log(f"memshelf-bot: pull request #{pull.number} is closed; nothing to check")
        return nothing_to_do(f"pull request #{pull.number} is closed: nothing to check", pr_number=pull.number)
    return run(job, pull_number=pull.number, head_sha=pull.head_sha, base_sha=pull.base_sha)


def run(job: Job, *, rules: bool = True, pull_number: int | None = None, head_sha: str = "",
        base_sha: str = "") -> FlowResult:
    """The PR flow for the event's pull request (or the one named); `rules=False` runs the guard
    alone (mode guard)."""
    event = job.event
    number = pull_number or event.pr_number
    head_sha, base_sha = head_sha or event.head_sha, base_sha or event.base_sha
    if not number or not head_sha or not base_sha:
        job.reporter.log("memshelf-bot: the event carries no pull request (number, head and base sha)")
        return FlowResult(FlowOutcome.FAILED, Verdict.CONFIG_ERROR,
                          detail="the event carries no pull request (number, head and base sha)")
    port = job.port
    listed = port.pull_files(number)
    notes = []
    if listed.unlisted:
        notes.append(f"GitHub lists only the first {PR_FILES_CAP:,} files of a pull request; this one changes "
                     f"{listed.total:,}, so {listed.unlisted:,} were not checked. Split the pull request.")
    settings = base_settings(job, base_sha, "the base branch")
    title = f"pull request #{number}"
    files = listed.files
    with job.workspace.local.checkout_of(head_sha) as (tree, commit):
        local = job.workspace.local
        stand_ins = (fill(local, tree / job.workspace.shelf_path, commit, job.prefix, {f.path for f in files})
                     if tree == local.path and local.unfilled() else None)
        policy = BasePolicy.read(port, base_sha, job.prefix)
        shelf, problems = job.load(tree, settings=settings, policy_text=policy.patterns)
        if shelf is None:
            return publish_check(job, config_error(problems, job), None, title=title, head_sha=head_sha,
                                 pr_number=number, files=len(files), changed=files)
        modes = job.workspace.local.modes(commit, [f.path for f in files if f.status != "removed"])
        changes = changes_from_files([(f.status, f.path, f.previous_path) for f in files], job.prefix, modes)
        base_files = BaseFiles(port, base_sha, job.prefix, local if stand_ins is not None else None)
        base = base_files.episodes(shelf)
        outcome = check(policy.governed(shelf), changes, base_ids={stem(path) for path in base},
                        strict=shelf.settings.strict, head=shelf)
        if not rules:
            guard = outcome.guard
            outcome = Outcome(report=Report(shelf.root, findings=list(guard.findings) if guard else []),
                              guard=guard)
            title += " (guard)"
        else:
            base_ledger = base_files.text(shelf.ledger_path) or ""
            rows = None if stand_ins is None else head_rows(job, shelf, stand_ins, base_files, base, base_ledger)
            add_rows(outcome, shelf, base_files.text(shelf.index_path) or "", base_ledger, rows)
        outcome.notes += notes
        return publish_check(job, outcome, shelf, title=title, head_sha=head_sha, pr_number=number,
                             files=len(files), changed=files)


def text_at(port: GitHubPort, commit: str, path: str) -> str:
    """A text file at `commit` ('' when absent), undecodable bytes replaced."""
    data = port.file_at(commit, path)
    return "" if data is None else data.decode("utf-8", errors="replace")
