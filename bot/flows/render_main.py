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

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from github import GithubException

from memshelf_render.check import Outcome, repo_path, shelf_relative
from memshelf_render.derived import is_derived
from memshelf_render.findings import Finding
from memshelf_render.render import render_shelf
from memshelf_render.shelf import Shelf
from memshelf_render.stats import shelf_stats
from memshelf_render.validate import Report, validate_shelf

from .. import pulls
from ..context import ActionContext
from ..feedback import annotations
from ..feedback import markdown as md
from ..feedback.summary import cut_lines, findings_table, headline, plural, waits_lines
from ..github import GitHub, is_read_only_refusal
from ..gitlocal import BOT_EMAIL
from .publish import config_error, log_findings, publish_check, set_outputs

MAX_ATTEMPTS = 10
BOT_BRANCH_PREFIX = "memshelf-bot/"  # the bot's own branches: never an agent's, never force-pushed over a human
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


class BranchTaken(RuntimeError):
    """The render branch holds commits by someone other than the bot: it is never moved over them."""


def commit_message(configured: str) -> str:
    """The configured message, made to end with `[skip ci]` unless it already skips CI."""
    lowered = configured.lower()
    return configured if any(tag in lowered for tag in SKIP_CI) else f"{configured.rstrip()} [skip ci]"


def own_render_push(event: dict[str, Any], shelf: Shelf, prefix: str) -> bool:
    """A push by a bot whose commits touch only derived paths: the bot's own render (or a merged
    render PR), which must never trigger another render."""
    pusher = str((event.get("pusher") or {}).get("name", ""))
    commits = event.get("commits") or []
    if not pusher.endswith("[bot]") or not commits:
        return False
    for c in commits:
        for path in [*c.get("added", []), *c.get("modified", []), *c.get("removed", [])]:
            rel = shelf_relative(path, prefix)
            if rel.startswith("../") or not is_derived(rel, shelf):
                return False
    return True


def render_tree(ctx: ActionContext, tree: Path, main_sha: str) -> Rendered | list[Finding]:
    """Render the checkout at `tree`; the config problems instead when the shelf cannot load."""
    shelf, problems = ctx.load(tree)
    if shelf is None:
        return problems
    result = render_shelf(shelf)
    again, _ = ctx.load(tree)
    assert again is not None
    drift = render_shelf(again, check=True).drifted
    report = Report(again.root, validate_shelf(again), strict=again.settings.strict,
                    episodes=len(again.layout.episodes))
    files: dict[str, bytes | None] = {repo_path(p, ctx.prefix): result.files[p] for p in result.written}
    files.update({repo_path(p, ctx.prefix): None for p in result.deleted})
    standing = shelf_stats(again, again.settings.context_window).claimed.standing_cost
    warnings = result.warnings + [f"{path}: skipped ({why})" for path, why in result.skipped]
    return Rendered(main_sha, files, drift, report, standing, result.episodes, again.settings.commit_message,
                    warnings)


def _refusal(exc: GithubException) -> str:
    message = (exc.data.get("message", "") if isinstance(exc.data, dict) else "").lower()
    if exc.status == 422 and "fast forward" in message:
        return "race"
    if exc.status in (409, 422) and ("protected branch" in message or "rule violation" in message
                                     or "required status check" in message):
        return "protected"
    if is_read_only_refusal(exc):
        return "read-only"
    return "other"


def _render_pr_body(rendered: Rendered, branch: str) -> str:
    listed = "\n".join(f"- {md.code(p)} ({'deleted' if data is None else 'written'})"
                       for p, data in sorted(rendered.files.items()))
    return (f"`{branch}` is protected, so memshelf-bot could not commit the derived files to it directly.\n\n"
            f"This pull request carries them, rendered from `{branch}` at `{rendered.main_sha[:12]}`:\n\n{listed}\n\n"
            "Merge it to bring the derived files up to date; the bot keeps it current on every push to "
            f"`{branch}`. To let the bot commit directly, allow it to bypass the branch rule.\n")


def others_commits(client: GitHub, base: str, bot_branch: str) -> list[str]:
    """Commits on `bot_branch` (and not on `base`) that someone other than the bot made."""
    comparison = client.call(f"compare {base}...{bot_branch}", client.repo.compare, base, bot_branch)
    return [c.sha for c in comparison.commits
            if (c.commit.author.email, c.commit.committer.email) != (BOT_EMAIL, BOT_EMAIL)]


def open_render_pr(ctx: ActionContext, client: GitHub, branch: str, sha: str, rendered: Rendered) -> tuple[Any, str]:
    """Point `memshelf-bot/render` at the render commit and open (or update) its pull request.
    The branch is moved (a force) only while every commit on it is the bot's own."""
    repo = client.repo
    try:
        ref, _ = client.ref_sha(RENDER_BRANCH)
    except GithubException as exc:
        if exc.status != 404:
            raise
        client.call("create the render branch", repo.create_git_ref, f"refs/heads/{RENDER_BRANCH}", sha)
    else:
        if others_commits(client, branch, RENDER_BRANCH):
            raise BranchTaken(f"{RENDER_BRANCH} holds commits by someone other than the bot, so it was left as it is "
                              "(never force-pushed): merge or close its pull request, or delete the branch, and the "
                              "next render opens a fresh one")
        client.call("move the render branch", ref.edit, sha, force=True)
    owner = ctx.full_name.split("/", 1)[0]
    body = _render_pr_body(rendered, branch)
    open_pulls = client.call("find the render pull request", lambda: list(
        repo.get_pulls(state="open", head=f"{owner}:{RENDER_BRANCH}", base=branch)))
    if open_pulls:
        pull = open_pulls[0]
        if pull.title != RENDER_PR_TITLE or (pull.body or "") != body:
            client.call("update the render pull request", pull.edit, title=RENDER_PR_TITLE, body=body)
        return pull, "updated"
    pull = client.call("open the render pull request", repo.create_pull, title=RENDER_PR_TITLE, body=body,
                       base=branch, head=RENDER_BRANCH)
    return pull, "opened"


def close_stale_render_pulls(ctx: ActionContext, client: GitHub, branch: str, why: str) -> list[str]:
    """`branch` is rendered without the render PR: close it and delete its branch (unless someone
    else committed to it). What was done, for the summary."""
    done = []
    for pull in pulls.open_pulls(client, RENDER_BRANCH):
        if pull.base.ref != branch:
            continue
        if others_commits(client, branch, RENDER_BRANCH):
            done.append(f"Left render pull request #{pull.number} open: someone else committed to {RENDER_BRANCH}")
            continue
        note = (f"`{branch}` is rendered without this pull request ({why}), so memshelf-bot closes it and deletes "
                f"`{RENDER_BRANCH}`.")
        if client.write(f"comment on #{pull.number}", pull.create_issue_comment, note) is None:
            done.append(f"Could not close the stale render pull request #{pull.number} (read-only token)")
            continue
        client.call(f"close #{pull.number}", pull.edit, state="closed")
        try:
            ref, _ = client.ref_sha(RENDER_BRANCH)
            client.call(f"delete {RENDER_BRANCH}", ref.delete)
        except GithubException as exc:
            if exc.status not in (404, 422):  # already gone
                raise
        done.append(f"Closed the stale render pull request #{pull.number} and deleted {RENDER_BRANCH}")
    return done


def run(ctx: ActionContext, *, branch: str | None = None) -> int:
    """Render `branch` (default: the repository's default branch) and land the result."""
    branch = branch or ctx.default_branch
    client = ctx.github
    lost = 0
    for _attempt in range(MAX_ATTEMPTS):
        ref, main_sha = client.ref_sha(branch)
        ctx.local.fetch(main_sha)
        with ctx.local.worktree(main_sha) as tree:
            rendered = render_tree(ctx, tree, main_sha)
        if isinstance(rendered, list):
            return publish_check(ctx, config_error(rendered, ctx), None, title=f"render on {branch}", head_sha=main_sha)
        if rendered.drifted:
            return _finish(ctx, branch, Landing(rendered, lost_races=lost),
                           failure=f"rendering is not a fixed point: `render --check` still finds "
                                   f"{', '.join(rendered.drifted)} drifted after rendering; nothing was committed")
        if not rendered.files:
            stale = close_stale_render_pulls(ctx, client, branch, "its derived files are already current")
            return _finish(ctx, branch, Landing(rendered, lost_races=lost, stale=stale))
        try:
            sha = client.commit_files(main_sha, rendered.files, commit_message(rendered.message))
            client.call(f"move {branch} to the render commit", ref.edit, sha, force=False)
        except GithubException as exc:
            kind = _refusal(exc)
            if kind == "race":
                lost += 1
                ctx.runner.log(f"memshelf-bot: {branch} moved while rendering (lost race {lost}); "
                               "re-reading it and rendering again")
                client.sleep(client.rng.uniform(0.05, 0.2 * 2 ** min(lost, 4)))
                continue
            if kind == "protected":
                try:
                    pull, action = open_render_pr(ctx, client, branch, sha, rendered)
                except BranchTaken as taken:
                    return _finish(ctx, branch, Landing(rendered, lost_races=lost), failure=str(taken))
                return _finish(ctx, branch, Landing(rendered, sha, pull.number, action, lost))
            if kind == "read-only":
                return _finish(ctx, branch, Landing(rendered, lost_races=lost),
                               failure=f"the token may not push to {branch}: give the job `contents: write` "
                                       "(and `pull-requests: write` for the protected-branch fallback)")
            raise
        stale = close_stale_render_pulls(ctx, client, branch, f"the bot committed {sha[:12]} to it")
        return _finish(ctx, branch, Landing(rendered, sha, lost_races=lost, stale=stale))
    return _finish(ctx, branch, Landing(rendered, lost_races=lost),
                   failure=f"{branch} kept moving: gave up after {MAX_ATTEMPTS} attempts")


def _landing_lines(branch: str, landing: Landing, failure: str | None) -> list[str]:
    r = landing.rendered
    files = [f"- {md.code(p)} ({'deleted' if data is None else 'written'})" for p, data in sorted(r.files.items())]
    if failure:
        lines = [f"**❌ render failed**: {md.text(failure)}."]
    elif landing.pr_number is not None:
        lines = [f"**⚠️ `{md.text(branch)}` is protected**: the bot may not push to it, so it pushed "
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


def _finish(ctx: ActionContext, branch: str, landing: Landing, failure: str | None = None) -> int:
    runner, r = ctx.runner, landing.rendered
    outcome = Outcome(report=r.report, checked=r.episodes)
    log_findings(ctx, r.report.findings)
    if failure:
        runner.annotate("error", None, None, "memshelf-bot: render failed", failure)
    elif landing.pr_number is not None:
        runner.annotate("warning", None, None, f"memshelf-bot: {branch} is protected",
                        f"The derived files went to {RENDER_BRANCH} and pull request #{landing.pr_number}.")
    annotations.emit(runner, r.report.findings, ctx.prefix)
    status = ("failed" if failure else f"opened/updated PR #{landing.pr_number}" if landing.pr_number is not None
              else f"committed {landing.commit_sha}" if landing.commit_sha else "nothing to render")
    runner.log(f"memshelf-bot: render on {branch}: {status}"
               + (f" after {landing.lost_races} lost race(s)" if landing.lost_races else ""))
    lines = [f"## memshelf-bot · render on {md.code(branch)}", "", *_landing_lines(branch, landing, failure),
             "### Validation of the rendered shelf", "", headline(outcome), "",
             *findings_table(r.report.findings, ctx.prefix), *cut_lines(runner.cut), *waits_lines(ctx.waits)]
    runner.add_summary("\n".join(lines))
    counts = r.report.counts
    set_outputs(ctx.runner, verdict=r.report.verdict, errors=counts["error"], warnings=counts["warning"],
                episodes=r.episodes, changed=len(r.files), commit_sha=landing.commit_sha,
                pr_number=landing.pr_number or "", standing_tokens=r.standing)
    return 1 if failure else r.report.exit_code
