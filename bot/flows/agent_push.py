"""A push to an agent branch (`branch_patterns`): check the pushed episodes right away.

This version validates only: the guard and the rules over what the branch changes against the
default branch (from their merge base), with annotations and the job summary. Opening or
updating the branch's pull request is not part of it, and the summary says so.
"""

from __future__ import annotations

from memshelf_render.guard import Change

from ..context import ActionContext
from .checks import add_rows, changes_from_files, check, repo_path
from .publish import config_error, publish_check, set_outputs
from .pull_request import base_episode_ids

ZERO = "0" * 40
COMPARE_FILES_CAP = 300  # GitHub's compare lists at most 300 files


def run(ctx: ActionContext, branch: str) -> int:
    after = str(ctx.event.get("after") or "")
    if ctx.event.get("deleted") or not after or after == ZERO:
        ctx.runner.log(f"memshelf-bot: {branch} was deleted; nothing to check")
        set_outputs(ctx.runner)
        return 0
    client = ctx.github
    default = ctx.default_branch
    comparison = client.call(f"compare {default}...{branch}", client.repo.compare, default, after)
    files = list(comparison.files)
    notes = []
    if len(files) >= COMPARE_FILES_CAP:
        notes.append(f"GitHub's compare lists at most {COMPARE_FILES_CAP} files, so this push may change files "
                     "that were not checked; the pull request check lists up to 3,000.")
    merge_base = comparison.merge_base_commit.sha
    title = f"push to {branch} (validate only)"
    actions = [f"Validated what `{branch}` changes against `{default}`; this version opens no pull request for "
               "agent branches: open one to get the sticky comment and the merge check."]
    with ctx.local.checkout_of(after) as (tree, commit):
        shelf, problems = ctx.load(tree)
        if shelf is None:
            return publish_check(ctx, config_error(problems, ctx), None, title=title, head_sha=after,
                                 files=len(files), actions=actions)
        modes = ctx.local.modes(commit, [f.filename for f in files if f.status != "removed"])
        changes: list[Change] = changes_from_files([(f.status, f.filename, f.previous_filename) for f in files],
                                                   ctx.prefix, modes)
        outcome = check(shelf, changes, base_ids=base_episode_ids(client, shelf, merge_base, ctx.prefix),
                        strict=shelf.settings.strict)
        add_rows(outcome, shelf, client.text_at(merge_base, repo_path(shelf.index_path, ctx.prefix)),
                 client.text_at(merge_base, repo_path(shelf.ledger_path, ctx.prefix)))
        outcome.notes += notes
        return publish_check(ctx, outcome, shelf, title=title, head_sha=after, files=len(files), actions=actions)
