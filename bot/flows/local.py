"""The modes that need no GitHub API: `validate` and `badge`, on the workspace checkout.

`validate` on a pull-request event limits itself to the PR's episodes and runs the guard when
the checkout holds the base commit (`fetch-depth: 0`); otherwise it checks every episode with
the PR-mode rules (derived files lag on a branch by design) and says why. On any other event it
validates the whole shelf. `badge` writes badge.svg and badge.json into the shelf for a later
step to publish.
"""

from __future__ import annotations

import subprocess

from memshelf_render.check import Outcome, add_rows, check, repo_path
from memshelf_render.guard import base_episode_ids, git_changes
from memshelf_render.records import collect
from memshelf_render.stats import shelf_stats
from memshelf_render.validate import Report, validate_shelf

from ..gitlocal import GitFailed
from ..job import Job
from .publish import config_error, publish_check
from .result import FlowOutcome, FlowResult


def validate(job: Job) -> FlowResult:
    workspace = job.workspace
    shelf, problems = job.load(workspace.root)
    head = workspace.local.head() or ""
    if shelf is None:
        return publish_check(job, config_error(problems, job), None, title="validate", head_sha=head)
    event = job.event
    if not event.kind.is_pull_request or not event.base_sha:
        report = Report(shelf.root, validate_shelf(shelf, cache=job.cache), strict=shelf.settings.strict,
                        episodes=len(shelf.layout.episodes))
        return publish_check(job, Outcome(report=report, checked=report.episodes), shelf, title="validate",
                             head_sha=head)
    base = event.base_sha
    title = f"validate pull request #{event.pr_number or ''}"
    try:
        changes = git_changes(shelf, base, "HEAD")
        outcome = check(shelf, changes, base_ids=base_episode_ids(shelf, base), strict=shelf.settings.strict)
        add_rows(outcome, shelf, _show(job, base, shelf.index_path), _show(job, base, shelf.ledger_path))
        actions = []
    except (subprocess.CalledProcessError, OSError, GitFailed):
        every = [str(shelf.root / ref.path) for ref in shelf.layout.episodes]
        report = Report(shelf.root, validate_shelf(shelf, changed=every), strict=shelf.settings.strict,
                        episodes=len(every))
        outcome = Outcome(report=report, checked=len(every))
        actions = ["The base commit is not in the checkout, so every episode was checked with the pull-request "
                   "rules and the guard did not run (check out with `fetch-depth: 0` to limit the check to the "
                   "PR's episodes)."]
    return publish_check(job, outcome, shelf, title=title, head_sha=head, actions=actions)


def _show(job: Job, commit: str, shelf_rel: str) -> str:
    try:
        return job.workspace.local.git("show", "--end-of-options", f"{commit}:{repo_path(shelf_rel, job.prefix)}")
    except GitFailed:
        return ""


def badge(job: Job) -> FlowResult:
    from memshelf_render.badge import badge_files  # here: its XML escaping imports urllib, http and ssl

    shelf, problems = job.load(job.workspace.root)
    if shelf is None:
        return publish_check(job, config_error(problems, job), None, title="badge", head_sha="")
    records, _ = collect(shelf.episodes)
    files = badge_files(shelf, records, shelf.read_text(shelf.index_path) or "")
    for name, data in files.items():
        (shelf.root / name).write_bytes(data)
    standing = shelf_stats(shelf, shelf.settings.context_window).claimed.standing_cost
    written = ", ".join(f"`{repo_path(name, job.prefix)}`" for name in files)
    job.reporter.log(f"memshelf-bot: wrote {written.replace('`', '')}")
    job.reporter.add_summary(f"## memshelf-bot · badge\n\nWrote {written} for {len(records)} episode(s); "
                           f"standing cost {standing:,} tokens.\n")
    return FlowResult(FlowOutcome.DONE, episodes=len(records), changed=len(files), standing_tokens=standing,
                      detail=f"badge: {len(records)} episode(s)")
