"""A push to an agent branch (`branch_patterns`): open or update its pull request, validated in
the same run.

A pull request opened with the job's own token starts no other workflow, so nothing else would
ever check it: this run does. Derived files the branch regenerated are first put back to the
base's version by one bot commit (`restore_derived`, see restore.py). It checks what the branch
changes against the default branch (the guard and the rules, with the default branch's settings
so a branch cannot widen its own allowances), opens the branch's one pull request or updates it (title from the episodes, body
with each digest, kind and the verdict, between markers that keep a human's text), publishes the
verdict as the commit status `memshelf-bot/validate` on the pushed commit, sets the labels, and
posts the sticky comment of the pull-request flow. With `auto_merge` it arms GitHub's
auto-merge when the verdict is valid. When that merges right away (a token's merge starts no
workflow), the same run renders the default branch, so the derived files never lag.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from dataclasses import replace

from memshelf_render.check import Outcome, Verdict, add_rows, changes_from_files, check, repo_path
from memshelf_render.guard import Change
from memshelf_render.shelf import Settings, Shelf

from .. import pulls
from ..basepolicy import BasePolicy
from ..events import Event, EventKind
from ..job import Job
from ..port import COMPARE_FILES_CAP, Comparison, PullEdit, PullRequest
from ..report import Level, Note, pr_body
from ..report.summary import headline
from . import render_main, restore, stale
from .publish import config_error, not_acted_on, publish_check
from .pull_request import base_episode_ids, base_settings, text_at
from .registry import FlowName, On, RefKind, flow
from .result import FlowResult, nothing_to_do

ZERO = "0" * 40


def entries(outcome: Outcome, shelf: Shelf | None, prefix: str,
            clean: Callable[[str], str]) -> list[pr_body.EpisodeEntry]:
    """The branch's added and modified episodes, in the guard's order, as the PR body lists them;
    their text passed through `clean` (the runner's masker) before any Markdown escaping, which
    would otherwise hide a secret's shape from it."""
    if shelf is None or outcome.guard is None:
        return []
    episodes = {ep.path: ep for ep in shelf.episodes}
    rows = {row.path: row for row in outcome.rows}
    out = []
    for path in outcome.guard.changed_episodes:
        ep = episodes.get(path)
        if ep is None:
            continue
        named = next((v for v in (ep.get("display_title"), ep.get("id")) if isinstance(v, str) and v.strip()),
                     ep.stem)
        kind = ep.get("kind")
        row = rows.get(path)
        out.append(pr_body.EpisodeEntry(repo_path(path, prefix), clean(named), clean(kind) if isinstance(kind, str)
                                        else "", clean(ep.digest) if ep.digest else None,
                                        row.verdict if row else "valid", row.errors if row else 0,
                                        row.warnings if row else 0))
    return out


def check_branch(job: Job, head_sha: str, base: str) -> tuple[Outcome, Shelf | None, Comparison, int]:
    """Guard and rules over what `head_sha` changes against `base`: (outcome, shelf, the
    comparison, files listed). Settings and policy are the base branch's, under the inputs."""
    port = job.port
    comparison = port.compare(base, head_sha)
    files = comparison.files
    base_sha = comparison.base_sha
    settings = base_settings(job, base_sha, base)
    local = job.workspace.local
    with local.checkout_of(head_sha) as (tree, commit):
        policy = BasePolicy.read(port, base_sha, job.prefix)
        shelf, problems = job.load(tree, settings=settings, policy_text=policy.patterns)
        if shelf is None:
            return config_error(problems, job), None, comparison, len(files)
        modes = local.modes(commit, [f.path for f in files if f.status != "removed"])
        changes: list[Change] = changes_from_files([(f.status, f.path, f.previous_path) for f in files],
                                                   job.prefix, modes)
        outcome = check(policy.governed(shelf), changes, base_ids=base_episode_ids(port, shelf, base_sha, job.prefix),
                        strict=shelf.settings.strict, head=shelf)
        add_rows(outcome, shelf, text_at(port, base_sha, repo_path(shelf.index_path, job.prefix)),
                 text_at(port, base_sha, repo_path(shelf.ledger_path, job.prefix)))
    if len(files) >= COMPARE_FILES_CAP:
        outcome.notes.append(f"GitHub's compare lists at most {COMPARE_FILES_CAP} files, so this branch may "
                             "change files that were not checked. Split the branch.")
    return outcome, shelf, comparison, len(files)


def _description(job: Job, outcome: Outcome, shelf: Shelf | None, branch: str, base: str,
                 head_sha: str) -> tuple[str, str, str]:
    """The PR's title, its body block, and the compact block for a body with little room left;
    masked like everything the bot writes (a digest may hold a secret the check just found)."""
    clean = job.reporter.clean
    listed = entries(outcome, shelf, job.prefix, clean)
    title = clean(pr_body.title(listed, branch))
    full, compact = (clean(pr_body.block(listed, shelf_path=job.workspace.shelf_path, branch=branch,
                                                    base=base, title_set=title, headline=headline(outcome),
                                                    head_sha=head_sha, context=pulls.STATUS_CONTEXT, compact=compact))
                     for compact in (False, True))
    return title, full, compact


def _update(job: Job, pull: PullRequest, title: str, new_block: str, compact: str) -> list[str]:
    """Bring an existing PR's title and body up to date; what changed, for the summary."""
    shelf_path = job.workspace.shelf_path
    body = pr_body.merged(pull.body, new_block, compact, shelf_path)
    edit = PullEdit(title=title if pull.title != title and pr_body.title_is_the_bots(pull.body, pull.title,
                                                                                   shelf_path) else None,
                    body=body if body != pull.body else None)
    changed = sorted(name for name, value in (("body", edit.body), ("title", edit.title)) if value is not None)
    if changed:
        job.port.update_pull(pull.number, edit)
    return changed


def _pushed(event: Event) -> bool:
    return not event.deleted


@flow(FlowName.OPEN_PR, On(EventKind.PUSH, ref=RefKind.OTHER_BRANCH, when=_pushed))
def pushed_branch(job: Job) -> FlowResult:
    """A push to a branch that is neither the default one nor the bot's: its pull request when it
    is an agent's (`branch_patterns`, from the pushed shelf's settings under the overrides)."""
    branch = job.event.branch or ""
    shelf, _ = job.load(job.workspace.root)
    settings = shelf.settings if shelf else job.workspace.apply(Settings())
    if is_agent_branch(branch, settings):
        return run(job, branch)
    return not_acted_on(job.reporter, f"a push to {branch} (neither the default branch nor an agent branch)")


def run(job: Job, branch: str, head_sha: str | None = None) -> FlowResult:
    """Open or update `branch`'s pull request for the pushed commit and validate it."""
    event = job.event
    after = head_sha or event.after
    if event.deleted or not after or after == ZERO:
        job.reporter.log(f"memshelf-bot: {branch} was deleted; nothing to check")
        return nothing_to_do(f"{branch} was deleted: nothing to check")
    base = job.default_branch()
    restored = restore.restore(job, branch, after, base)
    after = restored.head
    outcome, shelf, comparison, files = check_branch(job, after, base)
    heading = f"push to {branch}"
    if comparison.ahead_by == 0:
        return publish_check(job, outcome, shelf, title=heading, head_sha=after, files=files, actions=[
            f"`{branch}` has no commit that `{base}` lacks, so there is nothing to propose: no pull request."])
    title, full, compact = _description(job, outcome, shelf, branch, base, after)
    actions = [line for line in (restored.action(branch, base),) if line]
    try:
        pull, opened = pulls.find_or_open(job.port, branch, base, title,
                                          pr_body.merged(None, full, compact, job.workspace.shelf_path))
    except pulls.CannotOpen as exc:
        return _cannot_open(job, outcome, shelf, branch, after, files, str(exc))
    if opened:
        actions.append(f"Opened pull request #{pull.number} for `{branch}`.")
    else:
        changed = _update(job, pull, title, full, compact)
        actions.append(f"Updated pull request #{pull.number} ({' and '.join(changed)})." if changed
                       else f"Pull request #{pull.number} was already up to date.")
    wanted = shelf.settings.auto_merge if shelf is not None else bool(job.workspace.overrides.get("auto_merge"))
    return _decorate(job, pull, outcome, shelf, after, files, f"{heading}: pull request #{pull.number}", actions,
                     auto_merge=wanted)


def validate_pull(job: Job, pull: PullRequest, head_sha: str) -> FlowResult:
    """Check a pull request's new head in this run, as for a push (a push made with the job's
    token starts no workflow): commit status, labels, sticky comment. Auto-merge as for a push
    when the branch is an agent's; an armed auto-merge is disarmed when the head stops passing."""
    outcome, shelf, _, files = check_branch(job, head_sha, pull.base_ref)
    actions: list[str] = []
    if pr_body.has_block(pull.body, job.workspace.shelf_path):  # the bot's own pull request: its description too
        changed = _update(job, pull, *_description(job, outcome, shelf, pull.head_ref, pull.base_ref, head_sha))
        actions += [f"Updated pull request #{pull.number} ({' and '.join(changed)})."] if changed else []
    wanted = shelf is not None and shelf.settings.auto_merge and is_agent_branch(pull.head_ref, shelf.settings)
    return _decorate(job, pull, outcome, shelf, head_sha, files, f"pull request #{pull.number}, new head", actions,
                     auto_merge=wanted)


def is_agent_branch(branch: str, settings: Settings) -> bool:
    """A branch the bot opens pull requests for: it matches `branch_patterns` and is not the bot's."""
    return not branch.startswith(render_main.BOT_BRANCH_PREFIX) and any(
        fnmatch.fnmatchcase(branch, p) for p in settings.branch_patterns)


def _decorate(job: Job, pull: PullRequest, outcome: Outcome, shelf: Shelf | None, head_sha: str, files: int,
              heading: str, actions: list[str], *, auto_merge: bool) -> FlowResult:
    """Labels, the commit status, auto-merge, then the sticky comment, summary and outputs."""
    port = job.port
    if stale.newer_head(job, pull.number, head_sha) is not None:  # a newer run labels and publishes
        return publish_check(job, outcome, shelf, title=heading, head_sha=head_sha, pr_number=pull.number,
                             files=files, actions=actions)
    invalid = outcome.verdict is not Verdict.VALID
    added, removed = pulls.sync_labels(port, pull, invalid)
    if added or removed:
        actions.append("Labels: " + ", ".join([f"+`{n}`" for n in added] + [f"−`{n}`" for n in removed]) + ".")
    posted = pulls.publish_status(port, head_sha, outcome.verdict,
                                  pulls.status_description(outcome.verdict, outcome.counts, outcome.checked),
                                  job.workspace.run_url)
    actions.append(f"Commit status `{pulls.STATUS_CONTEXT}` on `{head_sha[:12]}`: "
                   + (f"{pulls.STATUS_STATES[outcome.verdict]}." if posted else "not published (read-only token)."))
    auto = pulls.settle_auto_merge(port, pull, head_sha, wanted=auto_merge, valid=not invalid)
    remark = auto.remark(pull.base_ref)
    checked = publish_check(job, outcome, shelf, title=heading, head_sha=head_sha, pr_number=pull.number,
                            files=files, actions=actions, remarks=[remark] if remark else [])
    if auto.action is pulls.AutoMergeAction.MERGED:
        return _render_after_merge(job, pull.base_ref, checked)
    return checked


def _cannot_open(job: Job, outcome: Outcome, shelf: Shelf | None, branch: str, after: str, files: int,
                 why: str) -> FlowResult:
    """GitHub would not open the pull request: say how to let it, still publish the verdict."""
    message = (f"GitHub refused to open a pull request for {branch} ({why}). If it says Actions may not create "
               "pull requests, tick Settings → Actions → General → \"Allow GitHub Actions to create and approve "
               "pull requests\", and give the job `pull-requests: write`.")
    job.reporter.annotate(Note(Level.ERROR, None, None, "memshelf-bot: no pull request", message))
    pulls.publish_status(job.port, after, outcome.verdict,
                         pulls.status_description(outcome.verdict, outcome.counts, outcome.checked),
                         job.workspace.run_url)
    checked = publish_check(job, outcome, shelf, title=f"push to {branch}", head_sha=after, files=files,
                            actions=[message])
    return checked.failed(job.reporter.clean(f"push to {branch}: GitHub refused to open its pull request"))


def _render_after_merge(job: Job, base: str, checked: FlowResult) -> FlowResult:
    """The bot merged: a merge with the job's token starts no workflow, so render here. The
    result stays the check's, with the render's commit (and its failure, if it did not land)."""
    rendered = render_main.run(job, branch=base)
    merged = replace(checked, commit_sha=rendered.commit_sha,
                     detail=f"{checked.detail}; merged, then {rendered.detail}")
    return merged.failed(merged.detail) if rendered.exit_code and not checked.exit_code else merged
