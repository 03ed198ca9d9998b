"""`/shelf` commands in a pull request's conversation, or on the shelf dashboard issue (the
`issue_comment` event; there only the commands registered `on_dashboard`, e.g. `purge`).

A comment is a command only when its first line starts with `/shelf`; any other comment is
ignored without a word, and so is every comment by a bot (the bot never answers itself or
another bot). The bot reacts 👀 when it takes a command up, then 🚀 or 😕. `resolve`, `fix` and
`render` change branches, so they need the commenter to have write access, asked of the API (the
collaborator permission), never inferred from the event's `author_association`. `help` and any
unknown command get the list of commands. A command whose comment was deleted before the bot
could react is withdrawn: nothing happens.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, replace

from memshelf_render.check import repo_path

from ..events import Event, EventKind
from ..job import Job
from ..port import PortError, PullRequest, PullState, Reaction, Reason
from ..report import markdown as md
from ..report.dashboard import LABEL as DASHBOARD_LABEL
from ..report.summary import VERDICT, plural
from . import dashboard, fix_pr, open_pr, render_main
from .fix_pr import FixOutcome
from .registry import COMMANDS, FlowName, On, command, flow
from .resolve_pr import Settlement, SettlementOutcome, settle
from .result import FlowOutcome, FlowResult, nothing_to_do

SEEN, DONE, FAILED = Reaction.SEEN, Reaction.DONE, Reaction.FAILED
COMMAND_PREFIX = "/shelf"


def help_text() -> str:
    """The list `/shelf help` answers with: every registered command, so it never drifts."""
    rows = [f"| {md.code(f'{COMMAND_PREFIX} {c.name}')} | {c.help}{' (also on the Shelf dashboard issue)' if c.on_dashboard else ''}"
            f" | {'write access' if c.needs_write else 'anyone'} |" for c in COMMANDS.values()]
    return "\n".join(["memshelf-bot answers these commands, as the first line of a pull request comment:", "",
                      "| command | what it does | who |", "|---|---|---|", *rows])


def parse(body: str) -> str | None:
    """The command a comment's first line gives (`help` for a bare `/shelf`), or None."""
    words = body.lstrip().split("\n", 1)[0].split()
    if not words or words[0].lower() != COMMAND_PREFIX:
        return None
    return words[1].lower() if len(words) > 1 else "help"


@dataclass
class Request:
    """One command: who asked, on which pull request, in which comment."""

    job: Job
    number: int
    comment_id: int
    login: str
    command: str

    @property
    def label(self) -> str:
        return md.code(f"/shelf {self.command}")

    def react(self, content: Reaction) -> bool:
        """React to the command's comment; False when the comment is gone."""
        try:
            self.job.port.react(self.comment_id, content)
        except PortError as exc:
            if exc.reason is Reason.NOT_FOUND:
                return False
            if exc.reason is not Reason.READ_ONLY:
                raise
        return True

    def reply(self, text: str) -> None:
        """Answer in the conversation (masked; a read-only token just cannot)."""
        reporter = self.job.reporter
        body = reporter.clean(text)
        try:
            self.job.port.create_comment(self.number, body)
            reporter.log(f"memshelf-bot: replied on #{self.number}")
        except PortError as exc:
            if exc.reason is not Reason.READ_ONLY:
                raise
            reporter.log("memshelf-bot: could not reply (read-only token)")
        reporter.add_summary(f"## memshelf-bot · {self.label} on #{self.number}\n\n"
                             f"Requested by {md.text(self.login)}. The reply:\n\n{body}\n")

    def answered(self, detail: str, outcome: FlowOutcome = FlowOutcome.DONE) -> FlowResult:
        """The command's result when it changed no branch: the answer was its work."""
        return FlowResult(outcome, pr_number=self.number, detail=self.job.reporter.clean(detail))

    def checked(self, validated: FlowResult, commit: str, detail: str) -> FlowResult:
        """The command committed `commit` and checked the new head in the same run: its result is
        that check's, as information (the command itself succeeded), with the commit."""
        return replace(validated, outcome=FlowOutcome.DONE, judged=False, commit_sha=commit,
                       detail=self.job.reporter.clean(detail))


def ignore(job: Job, why: str) -> FlowResult:
    """Not a command for the bot: a log line and a summary line, nothing on the pull request."""
    job.reporter.log(f"memshelf-bot: ignoring {why}")
    job.reporter.add_summary(f"## memshelf-bot\n\nNothing to do: {md.text(why)}.\n")
    return nothing_to_do(job.reporter.clean(f"ignoring {why}"))


def is_command(event: Event) -> bool:
    """A new comment on a pull request, or on an issue labeled as the shelf dashboard (the flow asks
    GitHub whether it is the bot's own), whose first line is a `/shelf` command."""
    return ((event.on_pull_request or DASHBOARD_LABEL.name in event.issue_labels)
            and parse(event.comment_body) is not None)


@flow(FlowName.COMMAND, On(EventKind.ISSUE_COMMENT, ("created",), when=is_command))
def run(job: Job) -> FlowResult:
    """The issue_comment event: act on a `/shelf` command in a pull request."""
    event = job.event
    if (event.action or "created") != "created":
        return ignore(job, f"a comment that was {event.action}, not created")
    name = parse(event.comment_body)
    if name is None:
        return ignore(job, "a comment that is not a /shelf command")
    if event.comment_author_is_bot:
        return ignore(job, f"a /shelf command from a bot ({event.comment_author})")
    if event.pr_number is None or event.comment_id is None or not (
            event.on_pull_request or dashboard.is_dashboard(job, event.pr_number)):
        return ignore(job, "a /shelf command on an issue that is not the shelf dashboard (the commands work in "
                           "pull requests)")
    request = Request(job, event.pr_number, event.comment_id, event.comment_author, name)
    if not request.react(SEEN):
        return ignore(job, f"/shelf {name}: its comment was deleted before the bot could act")
    pull = job.port.pull(request.number) if event.on_pull_request else None
    known = COMMANDS.get(name)
    if known is None or (pull is None and not known.on_dashboard):
        where = "" if known is None else " on the Shelf dashboard issue (it works in pull requests)"
        request.reply(f"😕 I don't know {md.code(f'{COMMAND_PREFIX} {name}')}{where}.\n\n{help_text()}")
        request.react(FAILED)
        return request.answered(f"answered an unknown command, /shelf {name}")
    if known.needs_write and not _writer(request):
        return request.answered(f"refused /shelf {name} from {request.login} (no write access)")
    return known.handler(request, pull)


def _writer(request: Request) -> bool:
    """Whether the commenter may change branches; if not, say so (😕) and return False."""
    permission = request.job.port.permission(request.login)
    if permission.may_write:
        return True
    request.reply(f"😕 {request.label} changes branches, so it needs write access to the repository; "
                  f"{md.text(request.login)} has {md.code(permission.value)}. Nothing was changed.")
    request.react(FAILED)
    request.job.reporter.log(f"memshelf-bot: refused {request.label} from {request.login} "
                             f"(permission {permission.value})")
    return False


@command("resolve", needs_write=True, help=(
    "merges the base branch into this pull request's branch, regenerates the derived files from the merged "
    "episodes, unions `recall-log.tsv`, and adds the merge as one commit GitHub signs (a fast-forward, never a "
    "force); an episode that conflicts is left to you, with instructions"))
def _resolve(request: Request, pull: PullRequest) -> FlowResult:
    job = request.job
    settled = settle(job, pull, request.login)
    settled.reason = job.reporter.clean(settled.reason)  # masked before Markdown escaping can hide a secret's shape
    job.reporter.log(f"memshelf-bot: /shelf resolve on #{request.number}: {settled.outcome}")
    request.reply(resolve_reply(settled, pull, job.prefix))
    committed = settled.outcome is SettlementOutcome.COMMITTED
    request.react(DONE if committed or settled.outcome is SettlementOutcome.UP_TO_DATE else FAILED)
    detail = f"/shelf resolve on #{request.number}: {settled.outcome}"
    if committed:
        # a commit made with the job's token starts no workflow: validate the new head here; its
        # verdict goes to the pull request (status, comment), the command itself succeeded
        return request.checked(open_pr.validate_pull(job, pull, settled.commit), settled.commit, detail)
    failed = settled.outcome is SettlementOutcome.FAILED
    return request.answered(detail + (f" ({settled.reason})" if failed else ""),
                            FlowOutcome.FAILED if failed else FlowOutcome.DONE)


@command("fix", needs_write=True, help=(
    "applies the mechanical fixes (`memshelf-bot fix`: ids, tags lists, quoting, control characters, a BOM, "
    "secrets masked) to the episodes this pull request changes and commits them to its branch (never a force); "
    "not for forks"))
def _fix(request: Request, pull: PullRequest) -> FlowResult:
    job = request.job
    fixing = fix_pr.fix_pull(job, pull)
    job.reporter.log(f"memshelf-bot: /shelf fix on #{request.number}: {fixing.outcome}")
    request.reply(fix_pr.reply(fixing, pull, job.prefix))
    request.react(FAILED if fixing.outcome in (FixOutcome.REFUSED, FixOutcome.FAILED, FixOutcome.MOVED) else DONE)
    detail = f"/shelf fix on #{request.number}: {fixing.outcome}"
    if fixing.outcome is FixOutcome.COMMITTED:  # a push with the job's token starts no workflow: check it here
        return request.checked(open_pr.validate_pull(job, pull, fixing.head), fixing.head, detail)
    failed = fixing.outcome is FixOutcome.FAILED
    return request.answered(detail + (f" ({fixing.reason})" if failed else ""),
                            FlowOutcome.FAILED if failed else FlowOutcome.DONE)


@command("render", needs_write=True, help="re-renders the bot's own branch (`memshelf-bot/…`) from the latest base")
def _render(request: Request, pull: PullRequest) -> FlowResult:
    job = request.job
    branch = pull.head_ref
    if not branch.startswith(render_main.BOT_BRANCH_PREFIX) or pull.state is not PullState.OPEN:
        why = ("this pull request is closed" if pull.state is not PullState.OPEN else
               f"this pull request's branch is {md.code(branch)}; for conflicts in derived files use `/shelf resolve`")
        request.reply(f"😕 `/shelf render` re-renders the bot's own open pull requests (branches "
                            f"`{render_main.BOT_BRANCH_PREFIX}…`), and {why}. Nothing was changed.")
        request.react(FAILED)
        return request.answered(f"refused /shelf render on #{request.number} (not the bot's open pull request)")
    rendered = render_main.run(job, branch=pull.base_ref)
    base = md.code(pull.base_ref)
    if rendered.exit_code:
        text = f"😕 `/shelf render` failed: the render of {base} did not land; the job summary says why."
    elif rendered.pr_number is not None:
        text = (f"🚀 Re-rendered {base} on its latest commit: {md.code(branch)} now holds "
                f"{md.code(rendered.commit_sha[:12])}.")
    elif rendered.commit_sha:
        text = (f"🚀 Re-rendered {base}: the bot could commit {md.code(rendered.commit_sha[:12])} to it directly, "
                "so this pull request is no longer needed and was closed.")
    else:
        text = f"🚀 {base} is already rendered: this pull request is no longer needed and was closed."
    request.reply(text)
    request.react(FAILED if rendered.exit_code else DONE)
    return rendered


def resolve_reply(settled: Settlement, pull: PullRequest, prefix: str) -> str:
    """The answer to `/shelf resolve`, in Markdown."""
    head, base = md.code(pull.head_ref), md.code(pull.base_ref)
    result = settled.result
    if settled.outcome is SettlementOutcome.REFUSED:
        return (f"😕 `/shelf resolve` cannot work on this pull request: {md.text(settled.reason)}. Nothing was "
                f"pushed. Its author can merge {base} into the branch locally, run `memshelf-bot resolve "
                "--commit` (it regenerates the derived files and unions `recall-log.tsv`) and push.")
    if settled.outcome is SettlementOutcome.FAILED:
        return f"😕 `/shelf resolve` failed: {md.text(settled.reason)}. Nothing was pushed."
    if settled.outcome is SettlementOutcome.UP_TO_DATE:
        return (f"🚀 Nothing to resolve: {head} already contains {base} ({md.code(settled.base[:12])}) and its "
                "derived files are current. Nothing was pushed.")
    assert result is not None
    if settled.outcome is SettlementOutcome.NEEDS_HUMAN:
        listed = "\n".join(f"- {md.code(repo_path(u.path, prefix))}: {md.text(u.reason)}" for u in result.unresolved)
        return (f"😕 `/shelf resolve` merged {base} ({md.code(settled.base[:12])}) into {head} in a scratch clone, "
                "but these files conflict and only a human can say what they should hold. **Nothing was pushed.**"
                f"\n\n{listed}\n\nThe derived files and `recall-log.tsv` need no hand: the bot settles them. To "
                "settle the rest, in a clone of the repository:\n\n"
                + md.fenced(f"git fetch origin\ngit switch {shlex.quote(pull.head_ref)}\n"
                            f"git merge {shlex.quote('origin/' + pull.base_ref)}\n"
                            "# edit the files listed above: keep what both sides meant\n"
                            "# (two different episodes that collided on one name: give one of them a new id)\n"
                            "memshelf-bot resolve --commit   # regenerates the derived files, unions "
                            "recall-log.tsv, commits\ngit push", "sh")
                + "\n\nor fix the episodes on the branch so they no longer collide, and comment `/shelf resolve` "
                  "again.")
    redone = f"put its derived files back to {base}'s version" if settled.restored else "regenerated its derived files"
    done = (f"Merged {base} ({md.code(settled.base[:12])}) into {head}" if settled.merged else
            f"{head} already contains {base} ({md.code(settled.base[:12])}); {redone}")
    lines = [f"🚀 {done} in one commit, {md.code(settled.commit[:12])}, on top of {md.code(settled.head[:12])}: "
             "made by GitHub (signed), the branch fast-forwarded to it, never forced.", ""]
    if not settled.keeps_base_derived and result.regenerated:
        lines.append("- regenerated from the merged episodes: "
                     + ", ".join(md.code(repo_path(p, prefix)) for p in result.regenerated))
    why = ("this branch regenerated them and `restore_derived` is on" if settled.carries_derived else
           f"this branch leaves them to {base}")
    if settled.restored:
        lines.append(f"- derived files: left at {base}'s version, since {why} (the bot renders them there after "
                     f"the merge): {plural(len(settled.restored), 'file')}")
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


@command("help", needs_write=False, help="this list", on_dashboard=True)
def _help(request: Request, pull: PullRequest) -> FlowResult:
    request.reply(help_text())
    request.react(DONE)
    return request.answered(f"answered /shelf help on #{request.number}")
