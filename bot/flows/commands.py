"""`/shelf` commands in a pull request's conversation (the `issue_comment` event).

A comment is a command only when its first line starts with `/shelf`; any other comment is
ignored without a word, and so is every comment by a bot (the bot never answers itself or
another bot). The bot reacts 👀 when it takes a command up, then 🚀 or 😕. `resolve` and `render`
change branches, so they need the commenter to have write access, asked of the API (the
collaborator permission), never inferred from the event's `author_association`. `help` and any
unknown command get the list of commands. A command whose comment was deleted before the bot
could react is withdrawn: nothing happens.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from github import GithubException
from github.IssueComment import IssueComment

from memshelf_render.check import repo_path

from ..context import ActionContext
from ..feedback import markdown as md
from ..feedback.summary import VERDICT, plural
from . import open_pr, render_main
from .publish import set_outputs
from .resolve_pr import Settlement, settle

WRITERS = ("admin", "write")  # the collaborator-permission API folds maintain into write
SEEN, DONE, FAILED = "eyes", "rocket", "confused"
HELP = """memshelf-bot answers these commands, as the first line of a pull request comment:

| command | what it does | who |
|---|---|---|
| `/shelf resolve` | merges the base branch into this pull request's branch, regenerates the derived files from the merged episodes, unions `recall-log.tsv`, and pushes the merge (a plain push, never a force); an episode that conflicts is left to you, with instructions | write access |
| `/shelf render` | re-renders the bot's own branch (`memshelf-bot/…`) from the latest base | write access |
| `/shelf help` | this list | anyone |"""


def parse(body: str) -> str | None:
    """The command a comment's first line gives (`help` for a bare `/shelf`), or None."""
    words = body.lstrip().split("\n", 1)[0].split()
    if not words or words[0].lower() != "/shelf":
        return None
    return words[1].lower() if len(words) > 1 else "help"


def is_bot(user: dict[str, Any]) -> bool:
    return user.get("type") == "Bot" or str(user.get("login", "")).endswith("[bot]")


@dataclass
class Request:
    """One command: who asked, on which pull request, in which comment."""

    ctx: ActionContext
    number: int
    comment_id: int
    login: str
    command: str

    @property
    def label(self) -> str:
        return md.code(f"/shelf {self.command}")

    def react(self, content: str) -> bool:
        """React to the command's comment; False when the comment is gone."""
        client = self.ctx.github
        target = IssueComment(client.gh.requester, url=f"{client.repo.url}/issues/comments/{self.comment_id}",
                              completed=False)
        try:
            client.write(f"react {content} to the command", target.create_reaction, content)
        except GithubException as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def reply(self, pull: Any, text: str) -> None:
        """Answer in the conversation (masked; a read-only token just cannot)."""
        body = self.ctx.runner.clean(text)
        posted = self.ctx.github.write(f"reply to {self.label} on #{self.number}", pull.create_issue_comment, body)
        self.ctx.runner.log("memshelf-bot: replied on the pull request" if posted is not None
                            else "memshelf-bot: could not reply (read-only token)")
        self.ctx.runner.add_summary(f"## memshelf-bot · {self.label} on pull request #{self.number}\n\n"
                                    f"Requested by {md.text(self.login)}. The reply:\n\n{body}\n")


def _ignore(ctx: ActionContext, why: str) -> int:
    """Not a command for the bot: a log line and a summary line, nothing on the pull request."""
    ctx.runner.log(f"memshelf-bot: ignoring {why}")
    ctx.runner.add_summary(f"## memshelf-bot\n\nNothing to do: {md.text(why)}.\n")
    set_outputs(ctx.runner)
    return 0


def run(ctx: ActionContext) -> int:
    """The issue_comment event: act on a `/shelf` command in a pull request."""
    event = ctx.event
    comment = event.get("comment") or {}
    issue = event.get("issue") or {}
    if event.get("action", "created") != "created":
        return _ignore(ctx, f"a comment that was {event.get('action')}, not created")
    command = parse(str(comment.get("body") or ""))
    if command is None:
        return _ignore(ctx, "a comment that is not a /shelf command")
    user = comment.get("user") or {}
    if is_bot(user):
        return _ignore(ctx, f"a /shelf command from a bot ({user.get('login')})")
    if not issue.get("pull_request"):
        return _ignore(ctx, "a /shelf command on an issue (the commands work in pull requests)")
    request = Request(ctx, int(issue["number"]), int(comment["id"]), str(user.get("login", "")), command)
    if not request.react(SEEN):
        return _ignore(ctx, f"/shelf {command}: its comment was deleted before the bot could act")
    pull = ctx.github.pull(request.number)
    handler = HANDLERS.get(command)
    if handler is None:
        request.reply(pull, f"😕 I don't know {md.code('/shelf ' + command)}.\n\n{HELP}")
        request.react(FAILED)
        set_outputs(ctx.runner, pr_number=request.number)
        return 0
    return handler(request, pull)


def _help(request: Request, pull: Any) -> int:
    request.reply(pull, HELP)
    request.react(DONE)
    set_outputs(request.ctx.runner, pr_number=request.number)
    return 0


def _writer(request: Request, pull: Any) -> bool:
    """Whether the commenter may change branches; if not, say so (😕) and return False."""
    client = request.ctx.github
    try:
        permission = client.call(f"read {request.login}'s permission", client.repo.get_collaborator_permission,
                                 request.login)
    except GithubException as exc:
        if exc.status != 404:
            raise
        permission = "none"
    if permission in WRITERS:
        return True
    request.reply(pull, f"😕 {request.label} changes this pull request's branch, so it needs write access to the "
                        f"repository; {md.text(request.login)} has {md.code(permission)}. Nothing was changed.")
    request.react(FAILED)
    request.ctx.runner.log(f"memshelf-bot: refused {request.label} from {request.login} (permission {permission})")
    set_outputs(request.ctx.runner, pr_number=request.number)
    return False


def _resolve(request: Request, pull: Any) -> int:
    ctx = request.ctx
    if not _writer(request, pull):
        return 0
    settled = settle(ctx, pull, request.login)
    settled.reason = ctx.runner.clean(settled.reason)  # masked before Markdown escaping can hide a secret's shape
    ctx.runner.log(f"memshelf-bot: /shelf resolve on #{request.number}: {settled.outcome}")
    request.reply(pull, resolve_reply(settled, pull, ctx.prefix))
    request.react(DONE if settled.outcome in ("pushed", "up-to-date") else FAILED)
    if settled.outcome == "pushed":
        # a push with the job's token starts no workflow: validate the new head here; its verdict
        # goes to the pull request (status, comment), the command itself succeeded
        open_pr.validate_pull(ctx, pull, settled.commit)
        ctx.runner.set_output("commit_sha", settled.commit)
    else:
        set_outputs(ctx.runner, pr_number=request.number)
    return 1 if settled.outcome == "failed" else 0


def _render(request: Request, pull: Any) -> int:
    ctx = request.ctx
    if not _writer(request, pull):
        return 0
    branch = pull.head.ref
    if not branch.startswith(render_main.BOT_BRANCH_PREFIX) or pull.state != "open":
        why = ("this pull request is closed" if pull.state != "open" else
               f"this pull request's branch is {md.code(branch)}; for conflicts in derived files use `/shelf resolve`")
        request.reply(pull, f"😕 `/shelf render` re-renders the bot's own open pull requests (branches "
                            f"`{render_main.BOT_BRANCH_PREFIX}…`), and {why}. Nothing was changed.")
        request.react(FAILED)
        set_outputs(ctx.runner, pr_number=request.number)
        return 0
    code = render_main.run(ctx, branch=pull.base.ref)
    outputs = ctx.runner.outputs
    base = md.code(pull.base.ref)
    if code:
        text = f"😕 `/shelf render` failed: the render of {base} did not land; the job summary says why."
    elif outputs.get("pr_number"):
        text = (f"🚀 Re-rendered {base} on its latest commit: {md.code(branch)} now holds "
                f"{md.code(outputs.get('commit_sha', '')[:12])}.")
    elif outputs.get("commit_sha"):
        text = (f"🚀 Re-rendered {base}: the bot could commit {md.code(outputs['commit_sha'][:12])} to it directly, "
                "so this pull request is no longer needed and was closed.")
    else:
        text = f"🚀 {base} is already rendered: this pull request is no longer needed and was closed."
    request.reply(pull, text)
    request.react(FAILED if code else DONE)
    return code


def resolve_reply(settled: Settlement, pull: Any, prefix: str) -> str:
    """The answer to `/shelf resolve`, in Markdown."""
    head, base = md.code(pull.head.ref), md.code(pull.base.ref)
    result = settled.result
    if settled.outcome == "refused":
        return (f"😕 `/shelf resolve` cannot work on this pull request: {md.text(settled.reason)}. Nothing was "
                f"pushed. Its author can merge {base} into the branch locally, run `memshelf-bot resolve "
                "--commit` (it regenerates the derived files and unions `recall-log.tsv`) and push.")
    if settled.outcome == "failed":
        return f"😕 `/shelf resolve` failed: {md.text(settled.reason)}. Nothing was pushed."
    if settled.outcome == "up-to-date":
        return (f"🚀 Nothing to resolve: {head} already contains {base} ({md.code(settled.base[:12])}) and its "
                "derived files are current. Nothing was pushed.")
    assert result is not None
    if settled.outcome == "needs-human":
        listed = "\n".join(f"- {md.code(repo_path(u.path, prefix))}: {md.text(u.reason)}" for u in result.unresolved)
        return (f"😕 `/shelf resolve` merged {base} ({md.code(settled.base[:12])}) into {head} in a scratch clone, "
                "but these files conflict and only a human can say what they should hold. **Nothing was pushed.**"
                f"\n\n{listed}\n\nThe derived files and `recall-log.tsv` need no hand: the bot settles them. To "
                "settle the rest, in a clone of the repository:\n\n"
                + md.fenced(f"git fetch origin\ngit switch {pull.head.ref}\ngit merge origin/{pull.base.ref}\n"
                            "# edit the files listed above: keep what both sides meant\n"
                            "# (two different episodes that collided on one name: give one of them a new id)\n"
                            "memshelf-bot resolve --commit   # regenerates the derived files, unions "
                            "recall-log.tsv, commits\ngit push", "sh")
                + "\n\nor fix the episodes on the branch so they no longer collide, and comment `/shelf resolve` "
                  "again.")
    done = (f"Merged {base} ({md.code(settled.base[:12])}) into {head}" if settled.merged else
            f"{head} already contains {base} ({md.code(settled.base[:12])}); regenerated its derived files")
    lines = [f"🚀 {done} and pushed {md.code(settled.commit[:12])}: a plain push on top of "
             f"{md.code(settled.head[:12])}.", ""]
    if settled.carries_derived and result.regenerated:
        lines.append("- regenerated from the merged episodes: "
                     + ", ".join(md.code(repo_path(p, prefix)) for p in result.regenerated))
    if settled.restored:
        lines.append(f"- derived files: left at {base}'s version, since this branch leaves them to {base} "
                     f"(the bot renders them there after the merge): {plural(len(settled.restored), 'file')}")
    if result.resolved:
        lines.append("- unioned, every row from both sides kept: "
                     + ", ".join(md.code(repo_path(p, prefix)) for p in result.resolved))
    verdict = result.validation.get("verdict", "valid")
    counts = result.validation.get("counts", {})
    lines.append(f"- the merged shelf validates: {VERDICT.get(verdict, verdict)} "
                 f"({plural(counts.get('error', 0), 'error')}, {plural(counts.get('warning', 0), 'warning')}); the "
                 "pull request's own check on the new head is the `memshelf-bot/validate` status")
    if settled.attempts > 1:
        lines.append(f"- the branch moved while the bot worked: {plural(settled.attempts, 'attempt')} in all, "
                     "each on its newest head")
    return "\n".join(lines)


HANDLERS: dict[str, Callable[[Request, Any], int]] = {"resolve": _resolve, "render": _render, "help": _help}
