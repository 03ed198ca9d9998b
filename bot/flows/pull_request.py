"""The pull-request flow: the guard over the PR's files, the rules over its changed episodes,
and the feedback (annotations, sticky comment with suggestions, job summary). Exit = verdict.

The PR is data. Its files come from the API (paged; GitHub lists at most 3,000 and a larger PR
is said to be unchecked, not passed), their git modes from the head tree, the base's episode ids
from the base tree. The bot's settings (`allow_paths` above all) are read from the **base**
branch, so a PR cannot widen what it is allowed to touch; inputs still override them.
"""

from __future__ import annotations

from typing import Any

from memshelf_render.check import Outcome, add_rows, changes_from_files, check, repo_path
from memshelf_render.guard import is_episode_path
from memshelf_render.shelf import SETTINGS, Settings, Shelf
from memshelf_render.validate import Report

from ..context import ActionContext, settings_from_bytes
from ..github import PR_FILES_CAP, GitHub
from .publish import config_error, publish_check


def is_fork(pull_request: dict[str, Any]) -> bool:
    """A PR from another repository (its head repo differs, or was deleted)."""
    head_repo = (pull_request.get("head") or {}).get("repo")
    base_repo = (pull_request.get("base") or {}).get("repo") or {}
    return head_repo is None or head_repo.get("full_name") != base_repo.get("full_name")


def base_episode_ids(client: GitHub, shelf: Shelf, base_sha: str, prefix: str) -> set[str]:
    """Ids (file stems) of every episode on the base, docs and archive, from its git tree."""
    ids = set()
    for root in (shelf.docs_root, shelf.archive_docs_root):
        for item in client.listing(base_sha, repo_path(root, prefix), recursive=True) or ():
            rel = f"{root}/{item.path}"
            if item.type == "blob" and is_episode_path(shelf, rel):
                ids.add(rel.rsplit("/", 1)[-1][:-3])
    return ids


def run(ctx: ActionContext, *, rules: bool = True) -> int:
    """The PR flow for the event's pull request; `rules=False` runs the guard alone (mode guard)."""
    event_pr = ctx.event.get("pull_request") or {}
    number = int(ctx.event.get("number") or event_pr.get("number") or 0)
    head_sha = (event_pr.get("head") or {}).get("sha", "")
    base_sha = (event_pr.get("base") or {}).get("sha", "")
    if not number or not head_sha or not base_sha:
        ctx.runner.log("memshelf-bot: the event carries no pull request (number, head and base sha)")
        return 2
    client = ctx.github
    if ctx.event_name == "pull_request" and is_fork(event_pr):
        client.read_only = True  # GitHub gives a fork's pull_request run a read-only token
    pull = client.pull(number)
    files = client.pull_files(pull)
    notes = []
    if pull.changed_files > len(files):
        notes.append(f"GitHub lists only the first {PR_FILES_CAP:,} files of a pull request; this one changes "
                     f"{pull.changed_files:,}, so {pull.changed_files - len(files):,} were not checked. "
                     "Split the pull request.")
    base_settings, _ = settings_from_bytes(client.file_at(base_sha, repo_path(SETTINGS, ctx.prefix)))
    if base_settings is None:
        ctx.runner.log(f"memshelf-bot: the base branch's {SETTINGS} is invalid; the default settings apply")
        base_settings = Settings()
    title = f"pull request #{number}"
    with ctx.local.checkout_of(head_sha) as (tree, commit):
        shelf, problems = ctx.load(tree, settings=base_settings)
        if shelf is None:
            return publish_check(ctx, config_error(problems, ctx), None, title=title, head_sha=head_sha,
                                 pull=pull, files=len(files))
        triples = [(f.status, f.filename, f.previous_filename) for f in files]
        modes = ctx.local.modes(commit, [f.filename for f in files if f.status != "removed"])
        changes = changes_from_files(triples, ctx.prefix, modes)
        outcome = check(shelf, changes, base_ids=base_episode_ids(client, shelf, base_sha, ctx.prefix),
                        strict=shelf.settings.strict)
        if not rules:
            guard = outcome.guard
            outcome = Outcome(report=Report(shelf.root, findings=list(guard.findings) if guard else []),
                              guard=guard)
            title += " (guard)"
        else:
            add_rows(outcome, shelf, client.text_at(base_sha, repo_path(shelf.index_path, ctx.prefix)),
                     client.text_at(base_sha, repo_path(shelf.ledger_path, ctx.prefix)))
        outcome.notes += notes
        return publish_check(ctx, outcome, shelf, title=title, head_sha=head_sha, pull=pull, files=len(files))
