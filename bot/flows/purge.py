"""`/shelf purge`: a pull request that removes exactly the episodes past their `retain_until`.

Write access only (the command registry asks the API). The episodes come from the default branch's
latest commit, docs and archive alike, selected by `memshelf_render.retention` (the same selection
the dashboard lists). The pull request deletes their files and nothing else — the derived files
follow from the render after the merge — from the bot's own branch `memshelf-bot/purge`, so running
the command again moves that branch (while only the bot has committed to it) and updates the same
pull request instead of opening a second. The bot never merges it; it checks its head in the same
run, as for any commit its token makes (which starts no workflow). Given on the shelf dashboard
issue or on any pull request; the answer goes where the command was given.
"""

from __future__ import annotations

from memshelf_render.check import repo_path
from memshelf_render.retention import expired

from ..port import FilesCommit, PullEdit, PullRequest
from ..report import markdown as md
from ..report import purge as described
from ..report.summary import plural
from . import open_pr
from .commands import DONE, FAILED, Request
from .dashboard import today
from .registry import BOT_BRANCH_PREFIX, command
from .render_main import _branch_sha, others_commits
from .result import FlowOutcome, FlowResult

PURGE_BRANCH = f"{BOT_BRANCH_PREFIX}purge"


@command("purge", needs_write=True, on_dashboard=True, help=(
    "opens a pull request that removes the episodes past their `retain_until` (docs and archive) and nothing "
    "else, for a person to review and merge (the bot never merges it); again, it updates that pull request"))
def purge(request: Request, pull: PullRequest | None) -> FlowResult:
    job = request.job
    port, local = job.port, job.workspace.local
    base = job.default_branch()
    main_sha = port.branch_sha(base)
    day = today()
    local.fetch(main_sha)
    with local.worktree(main_sha) as tree:
        shelf, _ = job.load(tree)
        gone = [] if shelf is None else expired(shelf.episodes, day)
    where = f"{md.code(base)} ({md.code(main_sha[:12])})"
    if shelf is None:
        request.reply(f"😕 `/shelf purge` found no loadable shelf on {where}: its configuration has errors (the "
                      "render's check run or job summary lists them). Nothing was changed.")
        request.react(FAILED)
        return request.answered(f"/shelf purge on #{request.number}: the shelf on {base} does not load",
                                FlowOutcome.FAILED)
    if not gone:
        request.reply(f"🚀 Nothing to purge: no episode on {where} is past its `retain_until` as of "
                      f"{day.isoformat()}. Nothing was changed.")
        request.react(DONE)
        return request.answered(f"/shelf purge on #{request.number}: nothing past retain_until")
    if _branch_sha(port, PURGE_BRANCH) is not None and others_commits(port, base, PURGE_BRANCH):
        request.reply(f"😕 {md.code(PURGE_BRANCH)} holds commits by someone other than the bot, so it was left as "
                      "it is (never force-pushed over a person's work): merge or close its pull request, or delete "
                      "the branch, and comment `/shelf purge` again. Nothing was changed.")
        request.react(FAILED)
        return request.answered(f"/shelf purge on #{request.number}: {PURGE_BRANCH} holds others' commits",
                                FlowOutcome.FAILED)
    files: dict[str, bytes | None] = {repo_path(e.path, job.prefix): None for e in gone}
    sha = port.create_commit(FilesCommit(main_sha, described.title(gone), files))
    if _branch_sha(port, PURGE_BRANCH) is None:
        port.create_branch(PURGE_BRANCH, sha)
    else:
        port.reset_bot_branch(PURGE_BRANCH, sha)
    title = described.title(gone)
    text = described.body(gone, branch=base, main_sha=main_sha, day=day, asked_by=request.login,
                          asked_on=request.number, prefix=job.prefix, clean=job.reporter.clean)
    found = port.open_pulls(PURGE_BRANCH, base=base)
    if found:
        opened, action = found[0], "Updated"
        if opened.title != title or opened.body != text:
            port.update_pull(opened.number, PullEdit(title=title, body=text))
    else:
        opened, action = port.open_pull(title=title, body=text, head=PURGE_BRANCH, base=base), "Opened"
    request.reply(f"🚀 {action} pull request #{opened.number}: it removes {plural(len(gone), 'episode')} past "
                  f"`retain_until` from {where} and nothing else. Its description lists what memory goes; a person "
                  "reviews and merges it (memshelf-bot never does), and the render after the merge updates the "
                  "derived files.")
    request.react(DONE)
    detail = f"/shelf purge on #{request.number}: {action.lower()} #{opened.number} removing {len(gone)} episode(s)"
    return request.checked(open_pr.validate_pull(job, port.pull(opened.number), sha), sha, detail)
