"""The modes that need no GitHub API: `validate` and `badge`, on the workspace checkout.

`validate` on a pull-request event limits itself to the PR's episodes and runs the guard when
the checkout holds the base commit (`fetch-depth: 0`); otherwise it checks every episode with
the PR-mode rules (derived files lag on a branch by design) and says why. On any other event it
validates the whole shelf. `badge` writes badge.svg and badge.json into the shelf for a later
step to publish.
"""

from __future__ import annotations

import subprocess

from memshelf_render.badge import badge_files
from memshelf_render.check import Outcome, add_rows, check, repo_path
from memshelf_render.guard import base_episode_ids, git_changes
from memshelf_render.records import collect
from memshelf_render.stats import shelf_stats
from memshelf_render.validate import Report, validate_shelf

from ..context import ActionContext
from ..gitlocal import GitFailed
from .publish import config_error, publish_check, set_outputs

PR_EVENTS = ("pull_request", "pull_request_target")


def validate(ctx: ActionContext) -> int:
    shelf, problems = ctx.load(ctx.workspace)
    head = ctx.local.head() or ""
    if shelf is None:
        return publish_check(ctx, config_error(problems, ctx), None, title="validate", head_sha=head)
    pr = ctx.event.get("pull_request") if ctx.event_name in PR_EVENTS else None
    if not pr:
        report = Report(shelf.root, validate_shelf(shelf), strict=shelf.settings.strict,
                        episodes=len(shelf.layout.episodes))
        return publish_check(ctx, Outcome(report=report, checked=report.episodes), shelf, title="validate",
                             head_sha=head)
    base = pr["base"]["sha"]
    title = f"validate pull request #{pr.get('number', ctx.event.get('number', ''))}"
    try:
        changes = git_changes(shelf, base, "HEAD")
        outcome = check(shelf, changes, base_ids=base_episode_ids(shelf, base), strict=shelf.settings.strict)
        add_rows(outcome, shelf, _show(ctx, base, shelf.index_path), _show(ctx, base, shelf.ledger_path))
        actions = []
    except (subprocess.CalledProcessError, OSError, GitFailed):
        every = [str(shelf.root / ref.path) for ref in shelf.layout.episodes]
        report = Report(shelf.root, validate_shelf(shelf, changed=every), strict=shelf.settings.strict,
                        episodes=len(every))
        outcome = Outcome(report=report, checked=len(every))
        actions = ["The base commit is not in the checkout, so every episode was checked with the pull-request "
                   "rules and the guard did not run (check out with `fetch-depth: 0` to limit the check to the "
                   "PR's episodes)."]
    return publish_check(ctx, outcome, shelf, title=title, head_sha=head, actions=actions)


def _show(ctx: ActionContext, commit: str, shelf_rel: str) -> str:
    try:
        return ctx.local.git("show", f"{commit}:{repo_path(shelf_rel, ctx.prefix)}")
    except GitFailed:
        return ""


def badge(ctx: ActionContext) -> int:
    shelf, problems = ctx.load(ctx.workspace)
    if shelf is None:
        return publish_check(ctx, config_error(problems, ctx), None, title="badge", head_sha="")
    records, _ = collect(shelf.episodes)
    files = badge_files(shelf, records, shelf.read_text(shelf.index_path) or "")
    for name, data in files.items():
        (shelf.root / name).write_bytes(data)
    standing = shelf_stats(shelf, shelf.settings.context_window).claimed.standing_cost
    written = ", ".join(f"`{repo_path(name, ctx.prefix)}`" for name in files)
    ctx.runner.log(f"memshelf-bot: wrote {written.replace('`', '')}")
    ctx.runner.add_summary(f"## memshelf-bot · badge\n\nWrote {written} for {len(records)} episode(s); "
                           f"standing cost {standing:,} tokens.\n")
    set_outputs(ctx.runner, episodes=len(records), changed=len(files), standing_tokens=standing)
    return 0
