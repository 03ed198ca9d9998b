"""The render-on-main flow: derived files follow the episodes, committed as the bot.

Always from the **latest** main (read through the API and fetched, never the event's SHA).
Nothing changed → no commit, and the summary says so. Otherwise one commit through the Git Data
API (tree on main's tree → commit → `PATCH refs/heads/<main>` with `force: false`). A
non-fast-forward answer means someone merged meanwhile: re-read main, re-render, retry (bounded,
jittered). A protected-branch refusal is permanent: the commit goes to `memshelf-bot/render` and a
pull request is opened or updated instead. Before anything is committed, `render --check` on the
result must be clean (a fixed point), or the job fails.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from memshelf_render.check import Outcome, Verdict, repo_path, shelf_relative
from memshelf_render.derived import is_derived
from memshelf_render.findings import Finding
from memshelf_render.render import render_shelf
from memshelf_render.shelf import Shelf
from memshelf_render.stats import shelf_stats
from memshelf_render.validate import Report, validate_shelf

from ..events import Event, EventKind
from ..job import Job
from ..port import (
    FilesCommit,
    GitHubPort,
    Identity,
    PortError,
    PullEdit,
    PullRequest,
    PullState,
    Reason,
    RefUpdate,
)
from ..report import Level, Note, notes
from ..report import markdown as md
from ..report.summary import cut_lines, findings_table, headline, plural, waits_lines
from . import dashboard
from .publish import config_error, log_findings, publish_check
from .registry import BOT_BRANCH_PREFIX, FlowName, On, RefKind, flow, ref_of
from .result import FlowOutcome, FlowResult, nothing_to_do

MAX_ATTEMPTS = 10
RENDER_BRANCH = f"{BOT_BRANCH_PREFIX}render"
RENDER_PR_TITLE = "memshelf-bot: render derived files"
SKIP_CI = ("[skip ci]", "[ci skip]", "[no ci]", "[skip actions]", "[actions skip]")


@dataclass
class Rendered:
    """One render of one main commit."""

    main_sha: str
    files: dict[str, bytes | None]  # repo-relative path -> new bytes, None = delete
    drifted: list[str]
    report: Report
    standing: int
    episodes: int
    message: str
    warnings: list[str] = field(default_factory=list)


@dataclass
class Landing:
    """How the run ended: where the render went and what it took."""

    rendered: Rendered
    commit_sha: str = ""
    pr_number: int | None = None
    pr_action: str = ""  # opened | updated
    lost_races: int = 0
    stale: list[str] = field(default_factory=list)  # what became of render PRs this render made stale
    ruleset: bool = False  # the refusal was a repository ruleset's (GH013), not a branch protection's


class BranchTaken(RuntimeError):
    """The render branch holds commits by someone other than the bot: it is never moved over them."""


def commit_message(configured: str) -> str:
    """The configured message, made to end with `[skip ci]` unless it already skips CI."""
    lowered = configured.lower()
    return configured if any(tag in lowered for tag in SKIP_CI) else f"{configured.rstrip()} [skip ci]"


def own_render_push(event: Event, shelf: Shelf, prefix: str) -> bool:
    """A push by a bot whose commits touch only derived paths: the bot's own render (or a merged
    render PR), which must never trigger another render."""
    if not event.pusher.endswith("[bot]") or not event.commits:
        return False
    for c in event.commits:
        for path in c.paths:
            rel = shelf_relative(path, prefix)
            if rel.startswith("../") or not is_derived(rel, shelf):
                return False
    return True


def render_tree(job: Job, tree: Path, main_sha: str) -> Rendered | list[Finding]:
    """Render the checkout at `tree`; the config problems instead when the shelf cannot load."""
    shelf, problems = job.load(tree)
    if shelf is None:
        return problems
    result = render_shelf(shelf, cache=job.cache)
    again, _ = job.load(tree)
    assert again is not None
    drift = render_shelf(again, check=True, cache=job.cache).drifted
    report = Report(again.root, validate_shelf(again, cache=job.cache), strict=again.settings.strict,
                    episodes=len(again.layout.episodes))
    files: dict[str, bytes | None] = {repo_path(p, job.prefix): result.files[p] for p in result.written}
    files.update({repo_path(p, job.prefix): None for p in result.deleted})
    standing = shelf_stats(again, again.settings.context_window).claimed.standing_cost
    warnings = result.warnings + [f"{path}: skipped ({why})" for path, why in result.skipped]
    if job.cache is not None and job.cache.warning:
        warnings.append(job.cache.warning)
    return Rendered(main_sha, files, drift, report, standing, result.episodes, again.settings.commit_message,
                    warnings)


def _render_pr_body(rendered: Rendered, branch: str) -> str:
    listed = "\n".join(f"- {md.code(p)} ({'deleted' if data is None else 'written'})"
                       for p, data in sorted(rendered.files.items()))
    return (f"`{branch}` is protected, so memshelf-bot could not commit the derived files to it directly.\n\n"
            f"This pull request carries them, rendered from `{branch}` at `{rendered.main_sha[:12]}`:\n\n{listed}\n\n"
            "Merge it to bring the derived files up to date; the bot keeps it current on every push to "
            f"`{branch}`. To let the bot commit directly, allow it to bypass the branch rule.\n")


def others_commits(port: GitHubPort, base: str, bot_branch: str) -> list[str]:
    """Commits on `bot_branch` (and not on `base`) that someone other than the bot made."""
    me: Identity = port.identity()
    return [c.sha for c in port.compare(base, bot_branch).commits if not c.by(me)]


def _branch_sha(port: GitHubPort, branch: str) -> str | None:
    try:
        return port.branch_sha(branch)
    except PortError as exc:
        if exc.reason is Reason.NOT_FOUND:
            return None
        raise


def open_render_pr(job: Job, branch: str, sha: str, rendered: Rendered) -> tuple[PullRequest, str]:
    """Point `memshelf-bot/render` at the render commit and open (or update) its pull request.
    The branch is moved (a force) only while every commit on it is the bot's own."""
    port = job.port
    if _branch_sha(port, RENDER_BRANCH) is None:
        port.create_branch(RENDER_BRANCH, sha)
    else:
        if others_commits(port, branch, RENDER_BRANCH):
            raise BranchTaken(f"{RENDER_BRANCH} holds commits by someone other than the bot, so it was left as it is "
                              "(never force-pushed): merge or close its pull request, or delete the branch, and the "
                              "next render opens a fresh one")
        port.reset_bot_branch(RENDER_BRANCH, sha)
    body = _render_pr_body(rendered, branch)
    found = port.open_pulls(RENDER_BRANCH, base=branch)
    if found:
        pull = found[0]
        if pull.title != RENDER_PR_TITLE or pull.body != body:
            port.update_pull(pull.number, PullEdit(title=RENDER_PR_TITLE, body=body))
        return pull, "updated"
    return port.open_pull(title=RENDER_PR_TITLE, body=body, base=branch, head=RENDER_BRANCH), "opened"


def close_stale_render_pulls(job: Job, branch: str, why: str) -> list[str]:
    """`branch` is rendered without the render PR: close it and delete its branch (unless someone
    else committed to it). What was done, for the summary."""
    port = job.port
    done = []
    for pull in port.open_pulls(RENDER_BRANCH):
        if pull.base_ref != branch:
            continue
        if others_commits(port, branch, RENDER_BRANCH):
            done.append(f"Left render pull request #{pull.number} open: someone else committed to {RENDER_BRANCH}")
            continue
        note = (f"`{branch}` is rendered without this pull request ({why}), so memshelf-bot closes it and deletes "
                f"`{RENDER_BRANCH}`.")
        try:
            port.create_comment(pull.number, note)
        except PortError as exc:
            if exc.reason is not Reason.READ_ONLY:
                raise
            done.append(f"Could not close the stale render pull request #{pull.number} (read-only token)")
            continue
        port.update_pull(pull.number, PullEdit(state=PullState.CLOSED))
        port.delete_branch(RENDER_BRANCH)
        done.append(f"Closed the stale render pull request #{pull.number} and deleted {RENDER_BRANCH}")
    return done


def _pushed(event: Event) -> bool:
    return not event.deleted


def _names_no_pull(event: Event) -> bool:
    return event.pr_number is None


@flow(FlowName.RENDER,
      On(EventKind.PUSH, ref=RefKind.DEFAULT_BRANCH, when=_pushed),
      On(EventKind.WORKFLOW_DISPATCH),
      On(EventKind.SCHEDULE),  # the scheduled render catches merges that started no workflow
      On(EventKind.CHECK_RUN, ("rerequested",), ref=RefKind.DEFAULT_BRANCH, when=_names_no_pull),
      On(EventKind.CHECK_SUITE, ("requested", "rerequested"), ref=RefKind.DEFAULT_BRANCH, when=_names_no_pull))
def render(job: Job) -> FlowResult:
    """Render the branch the event is about (a dispatch or a schedule: the default branch); a push
    that is the bot's own render (only derived files, pushed by a bot) asks for nothing."""
    event = job.event
    if event.kind is EventKind.PUSH:
        shelf, _ = job.load(job.workspace.root)
        if shelf is not None and own_render_push(event, shelf, job.prefix):
            branch = event.branch or ""
            job.reporter.log("memshelf-bot: this push is the bot's own render (only derived files, pushed by a bot); "
                             "nothing to render")
            job.reporter.add_summary(f"## memshelf-bot · push to `{branch}`\n\nThis push holds only derived files "
                                     "and was made by a bot (the bot's own render): nothing to render.\n")
            return nothing_to_do(f"the push to {branch} is the bot's own render")
    branch = ref_of(event) if event.kind in (EventKind.PUSH, EventKind.CHECK_RUN, EventKind.CHECK_SUITE) else None
    return run(job, branch=branch)


def run(job: Job, *, branch: str | None = None, sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None) -> FlowResult:
    """Render `branch` (default: the repository's default branch) and land the result."""
    branch = branch or job.default_branch()
    port, local = job.port, job.workspace.local
    rng = rng or random.Random()
    lost = 0
    for _attempt in range(MAX_ATTEMPTS):
        main_sha = port.branch_sha(branch)
        local.fetch(main_sha)
        with local.worktree(main_sha) as tree:
            rendered = render_tree(job, tree, main_sha)
        if isinstance(rendered, list):
            checked = publish_check(job, config_error(rendered, job), None, title=f"render on {branch}",
                                    head_sha=main_sha)
            return checked.failed(f"render on {branch}: the shelf does not load")
        if rendered.drifted:
            return _finish(job, branch, Landing(rendered, lost_races=lost),
                           failure=f"rendering is not a fixed point: `render --check` still finds "
                                   f"{', '.join(rendered.drifted)} drifted after rendering; nothing was committed")
        if not rendered.files:
            stale = close_stale_render_pulls(job, branch, "its derived files are already current")
            return _finish(job, branch, Landing(rendered, lost_races=lost, stale=stale))
        try:
            sha = port.create_commit(FilesCommit(main_sha, commit_message(rendered.message), rendered.files))
            moved = port.move_branch(branch, sha)
        except PortError as exc:
            if exc.reason is not Reason.READ_ONLY:
                raise
            moved = RefUpdate.READ_ONLY
        if moved is RefUpdate.NON_FAST_FORWARD:
            lost += 1
            job.reporter.log(f"memshelf-bot: {branch} moved while rendering (lost race {lost}); "
                             "re-reading it and rendering again")
            sleep(rng.uniform(0.05, 0.2 * 2 ** min(lost, 4)))
            continue
        if moved in (RefUpdate.PROTECTED, RefUpdate.RULESET):
            try:
                pull, action = open_render_pr(job, branch, sha, rendered)
            except BranchTaken as taken:
                return _finish(job, branch, Landing(rendered, lost_races=lost), failure=str(taken))
            return _finish(job, branch, Landing(rendered, sha, pull.number, action, lost,
                                                ruleset=moved is RefUpdate.RULESET))
        if moved is RefUpdate.READ_ONLY:
            return _finish(job, branch, Landing(rendered, lost_races=lost),
                           failure=f"the token may not push to {branch}: give the job `contents: write` "
                                   "(and `pull-requests: write` for the protected-branch fallback)")
        stale = close_stale_render_pulls(job, branch, f"the bot committed {sha[:12]} to it")
        return _finish(job, branch, Landing(rendered, sha, lost_races=lost, stale=stale))
    return _finish(job, branch, Landing(rendered, lost_races=lost),
                   failure=f"{branch} kept moving: gave up after {MAX_ATTEMPTS} attempts")


def _landing_lines(branch: str, landing: Landing, failure: str | None) -> list[str]:
    r = landing.rendered
    files = [f"- {md.code(p)} ({'deleted' if data is None else 'written'})" for p, data in sorted(r.files.items())]
    if failure:
        lines = [f"**❌ render failed**: {md.text(failure)}."]
    elif landing.pr_number is not None:
        rule = "a repository ruleset protects it (GH013)" if landing.ruleset else "it is protected"
        lines = [f"**⚠️ `{md.text(branch)}` is protected** ({rule}): the bot may not push to it, so it pushed "
                 f"{md.code(RENDER_BRANCH)} ({md.code(landing.commit_sha[:12])}) and {landing.pr_action} pull request "
                 f"#{landing.pr_number} with {plural(len(r.files), 'derived file')}. Merge it to update the derived "
                 "files, or let the bot bypass the branch rule.", "", *files]
    elif landing.commit_sha:
        lines = [f"**✅ committed** {md.code(landing.commit_sha[:12])} to {md.code(branch)}: "
                 f"{plural(len(r.files), 'derived file')} rendered from {plural(r.episodes, 'episode')} "
                 f"on {md.code(r.main_sha[:12])}.", "", *files]
    else:
        lines = [f"**✅ nothing to render**: the derived files on {md.code(branch)} ({md.code(r.main_sha[:12])}) "
                 f"already match its {plural(r.episodes, 'episode')}. No commit."]
    if landing.lost_races:
        lines += ["", f"Lost the race for {md.code(branch)} {plural(landing.lost_races, 'time')} (it moved between "
                      "the bot's read and its write); re-rendered on the latest commit each time: "
                      f"{plural(landing.lost_races + 1, 'attempt')} in all."]
    lines += ["", *(f"{md.text(note)}." for note in landing.stale)] if landing.stale else []
    check = "❌ drift after rendering" if r.drifted else "✅ fixed point (`render --check` finds no drift)"
    lines += ["", f"Render check: {check}. Standing cost: {r.standing:,} tokens."]
    lines += [f"- warning: {md.text(w)}" for w in r.warnings]
    return [*lines, ""]


def _finish(job: Job, branch: str, landing: Landing, failure: str | None = None) -> FlowResult:
    runner, r = job.reporter, landing.rendered
    outcome = Outcome(report=r.report, checked=r.episodes)
    log_findings(job, r.report.findings)
    if failure:
        runner.annotate(Note(Level.ERROR, None, None, "memshelf-bot: render failed", failure))
    elif landing.pr_number is not None:
        runner.annotate(Note(Level.WARNING, None, None, f"memshelf-bot: {branch} is protected",
                             f"The derived files went to {RENDER_BRANCH} and pull request #{landing.pr_number}."))
    notes.emit(runner, r.report.findings, job.prefix)
    status = ("failed" if failure else f"opened/updated PR #{landing.pr_number}" if landing.pr_number is not None
              else f"committed {landing.commit_sha}" if landing.commit_sha else "nothing to render")
    runner.log(f"memshelf-bot: render on {branch}: {status}"
               + (f" after {landing.lost_races} lost race(s)" if landing.lost_races else ""))
    lines = [f"## memshelf-bot · render on {md.code(branch)}", "", *_landing_lines(branch, landing, failure),
             "### Validation of the rendered shelf", "", headline(outcome), "",
             *findings_table(r.report.findings, job.prefix), *cut_lines(list(runner.cut)),
             *waits_lines(list(job.port.waits))]
    runner.add_summary("\n".join(lines))
    if not failure:
        dashboard.keep(job, branch, main_sha=r.main_sha, report=r.report, standing=r.standing,
                       render_sha=landing.commit_sha, render_pr=landing.pr_number)
    counts = r.report.counts
    return FlowResult(FlowOutcome.FAILED if failure else FlowOutcome.DONE, Verdict(r.report.verdict), counts["error"],
                      counts["warning"], r.episodes, len(r.files), landing.commit_sha, landing.pr_number,
                      r.standing, head_sha=r.main_sha,
                      detail=runner.clean(f"render on {branch}: {failure or status}"))
