"""A push to an agent branch (`branch_patterns`): open or update its pull request, validated in
the same run.

A pull request opened with the job's own token starts no other workflow, so nothing else would
ever check it: this run does. It checks what the branch changes against the default branch (the
guard and the rules, with the default branch's settings so a branch cannot widen its own
allowances), opens the branch's one pull request or updates it (title from the episodes, body
with each digest, kind and the verdict, between markers that keep a human's text), publishes the
verdict as the commit status `memshelf-bot/validate` on the pushed commit, sets the labels, and
posts the sticky comment of the pull-request flow. With `auto_merge` it arms GitHub's
auto-merge when the verdict is valid. When that merges right away (a token's merge starts no
workflow), the same run renders the default branch, so the derived files never lag.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable
from typing import Any

from memshelf_render.check import Outcome, add_rows, changes_from_files, check, repo_path
from memshelf_render.guard import Change
from memshelf_render.shelf import SETTINGS, Settings, Shelf

from .. import pulls
from ..context import ActionContext, settings_from_bytes
from ..feedback import comment, pr_body
from ..feedback.summary import headline
from . import render_main
from .publish import config_error, publish_check, set_outputs
from .pull_request import base_episode_ids

ZERO = "0" * 40
COMPARE_FILES_CAP = 300  # GitHub's compare lists at most 300 files


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


def check_branch(ctx: ActionContext, head_sha: str, base: str) -> tuple[Outcome, Shelf | None, Any, int]:
    """Guard and rules over what `head_sha` changes against `base`: (outcome, shelf, the
    comparison, files listed). The settings are the base branch's, under the inputs."""
    client = ctx.github
    comparison = client.call(f"compare {base}...{head_sha[:12]}", client.repo.compare, base, head_sha)
    files = list(comparison.files)
    base_sha = comparison.base_commit.sha
    base_settings, _ = settings_from_bytes(client.file_at(base_sha, repo_path(SETTINGS, ctx.prefix)))
    if base_settings is None:
        ctx.runner.log(f"memshelf-bot: {base}'s {SETTINGS} is invalid; the default settings apply")
        base_settings = Settings()
    with ctx.local.checkout_of(head_sha) as (tree, commit):
        shelf, problems = ctx.load(tree, settings=base_settings)
        if shelf is None:
            return config_error(problems, ctx), None, comparison, len(files)
        modes = ctx.local.modes(commit, [f.filename for f in files if f.status != "removed"])
        changes: list[Change] = changes_from_files([(f.status, f.filename, f.previous_filename) for f in files],
                                                   ctx.prefix, modes)
        outcome = check(shelf, changes, base_ids=base_episode_ids(client, shelf, base_sha, ctx.prefix),
                        strict=shelf.settings.strict)
        add_rows(outcome, shelf, client.text_at(base_sha, repo_path(shelf.index_path, ctx.prefix)),
                 client.text_at(base_sha, repo_path(shelf.ledger_path, ctx.prefix)))
    if len(files) >= COMPARE_FILES_CAP:
        outcome.notes.append(f"GitHub's compare lists at most {COMPARE_FILES_CAP} files, so this branch may "
                             "change files that were not checked. Split the branch.")
    return outcome, shelf, comparison, len(files)


def _description(ctx: ActionContext, outcome: Outcome, shelf: Shelf | None, branch: str, base: str,
                 head_sha: str) -> tuple[str, str, str]:
    """The PR's title, its body block, and the compact block for a body with little room left;
    masked like everything the bot writes (a digest may hold a secret the check just found)."""
    listed = entries(outcome, shelf, ctx.prefix, ctx.runner.clean)
    title = ctx.runner.clean(pr_body.title(listed, branch))
    full, compact = (ctx.runner.clean(pr_body.block(listed, shelf_path=ctx.inputs.shelf_path, branch=branch,
                                                    base=base, title_set=title, headline=headline(outcome),
                                                    head_sha=head_sha, context=pulls.STATUS_CONTEXT, compact=compact))
                     for compact in (False, True))
    return title, full, compact


def _update(ctx: ActionContext, pull: Any, title: str, new_block: str, compact: str) -> list[str]:
    """Bring an existing PR's title and body up to date; what changed, for the summary."""
    shelf_path = ctx.inputs.shelf_path
    body = pr_body.merged(pull.body, new_block, compact, shelf_path)
    changes: dict[str, str] = {}
    if body != (pull.body or ""):
        changes["body"] = body
    if pull.title != title and pr_body.title_is_the_bots(pull.body, pull.title, shelf_path):
        changes["title"] = title
    if changes:
        ctx.github.call(f"update pull request #{pull.number}", pull.edit, **changes)
    return sorted(changes)


def run(ctx: ActionContext, branch: str, head_sha: str | None = None) -> int:
    """Open or update `branch`'s pull request for the pushed commit and validate it."""
    after = head_sha or str(ctx.event.get("after") or "")
    if ctx.event.get("deleted") or not after or after == ZERO:
        ctx.runner.log(f"memshelf-bot: {branch} was deleted; nothing to check")
        set_outputs(ctx.runner)
        return 0
    base = ctx.default_branch
    outcome, shelf, comparison, files = check_branch(ctx, after, base)
    heading = f"push to {branch}"
    if comparison.ahead_by == 0:
        return publish_check(ctx, outcome, shelf, title=heading, head_sha=after, files=files, actions=[
            f"`{branch}` has no commit that `{base}` lacks, so there is nothing to propose: no pull request."])
    title, full, compact = _description(ctx, outcome, shelf, branch, base, after)
    actions: list[str] = []
    try:
        pull, opened = pulls.find_or_open(ctx.github, branch, base, title,
                                          pr_body.merged(None, full, compact, ctx.inputs.shelf_path))
    except pulls.CannotOpen as exc:
        return _cannot_open(ctx, outcome, shelf, branch, after, files, str(exc))
    if opened:
        actions.append(f"Opened pull request #{pull.number} for `{branch}`.")
    else:
        changed = _update(ctx, pull, title, full, compact)
        actions.append(f"Updated pull request #{pull.number} ({' and '.join(changed)})." if changed
                       else f"Pull request #{pull.number} was already up to date.")
    wanted = shelf.settings.auto_merge if shelf is not None else bool(ctx.inputs.overrides.get("auto_merge"))
    return _decorate(ctx, pull, outcome, shelf, after, files, f"{heading}: pull request #{pull.number}", actions,
                     auto_merge=wanted)


def validate_pull(ctx: ActionContext, pull: Any, head_sha: str) -> int:
    """Check a pull request's new head in this run, as for a push (a push made with the job's
    token starts no workflow): commit status, labels, sticky comment. Auto-merge as for a push
    when the branch is an agent's; an armed auto-merge is disarmed when the head stops passing."""
    outcome, shelf, _, files = check_branch(ctx, head_sha, pull.base.ref)
    actions: list[str] = []
    if pr_body.has_block(pull.body, ctx.inputs.shelf_path):  # the bot's own pull request: its description too
        changed = _update(ctx, pull, *_description(ctx, outcome, shelf, pull.head.ref, pull.base.ref, head_sha))
        actions += [f"Updated pull request #{pull.number} ({' and '.join(changed)})."] if changed else []
    wanted = shelf is not None and shelf.settings.auto_merge and is_agent_branch(pull.head.ref, shelf.settings)
    return _decorate(ctx, pull, outcome, shelf, head_sha, files, f"pull request #{pull.number}, new head", actions,
                     auto_merge=wanted)


def is_agent_branch(branch: str, settings: Settings) -> bool:
    """A branch the bot opens pull requests for: it matches `branch_patterns` and is not the bot's."""
    return not branch.startswith(render_main.BOT_BRANCH_PREFIX) and any(
        fnmatch.fnmatchcase(branch, p) for p in settings.branch_patterns)


def _decorate(ctx: ActionContext, pull: Any, outcome: Outcome, shelf: Shelf | None, head_sha: str, files: int,
              heading: str, actions: list[str], *, auto_merge: bool) -> int:
    """Labels, the commit status, auto-merge, then the sticky comment, summary and outputs."""
    client = ctx.github
    invalid = outcome.verdict != "valid"
    added, removed = pulls.sync_labels(client, pull, invalid)
    if added or removed:
        actions.append("Labels: " + ", ".join([f"+`{n}`" for n in added] + [f"−`{n}`" for n in removed]) + ".")
    run_url = comment.run_url(ctx.server_url, ctx.full_name, ctx.run_id)
    posted = pulls.publish_status(client, head_sha, outcome.verdict,
                                  pulls.status_description(outcome.verdict, outcome.counts, outcome.checked), run_url)
    actions.append(f"Commit status `{pulls.STATUS_CONTEXT}` on `{head_sha[:12]}`: "
                   + (f"{pulls.STATUS_STATES[outcome.verdict]}." if posted else "not published (read-only token)."))
    auto = pulls.settle_auto_merge(client, pull, head_sha, wanted=auto_merge, valid=not invalid)
    remark = auto.remark(pull.base.ref)
    code = publish_check(ctx, outcome, shelf, title=heading, head_sha=head_sha, pull=pull, files=files,
                         actions=actions, remarks=[remark] if remark else [])
    if auto.action == "merged":
        return _render_after_merge(ctx, pull.base.ref, code)
    return code


def _cannot_open(ctx: ActionContext, outcome: Outcome, shelf: Shelf | None, branch: str, after: str, files: int,
                 why: str) -> int:
    """GitHub would not open the pull request: say how to let it, still publish the verdict."""
    message = (f"GitHub refused to open a pull request for {branch} ({why}). If it says Actions may not create "
               "pull requests, tick Settings → Actions → General → \"Allow GitHub Actions to create and approve "
               "pull requests\", and give the job `pull-requests: write`.")
    ctx.runner.annotate("error", None, None, "memshelf-bot: no pull request", message)
    pulls.publish_status(ctx.github, after, outcome.verdict,
                         pulls.status_description(outcome.verdict, outcome.counts, outcome.checked),
                         comment.run_url(ctx.server_url, ctx.full_name, ctx.run_id))
    code = publish_check(ctx, outcome, shelf, title=f"push to {branch}", head_sha=after, files=files,
                         actions=[message])
    return max(code, 1)


def _render_after_merge(ctx: ActionContext, base: str, code: int) -> int:
    """The bot merged: a merge with the job's token starts no workflow, so render here. The
    outputs stay the check's, plus the render's commit."""
    checked = dict(ctx.runner.outputs)
    rendered = render_main.run(ctx, branch=base)
    commit_sha = ctx.runner.outputs.get("commit_sha", "")
    ctx.runner.outputs.update(checked)
    ctx.runner.set_output("commit_sha", commit_sha)
    return max(code, rendered)
