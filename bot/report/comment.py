"""The one sticky PR comment: found by a hidden marker written by the bot itself (a reader's
comment that starts with the marker is never touched), created once, edited only when its text
changes, deduplicated when a race made two, recreated when someone deleted it.

Policy (`comment` setting): `always` keeps a comment on every PR; `auto` creates one only when
there is something to say, but keeps an existing one up to date (so a fixed PR turns green);
`never` leaves comments alone. A token that may not write (a fork's) is not an error: the
annotations and the job summary carry the same content.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from memshelf_render import __version__
from memshelf_render.check import Outcome, repo_path
from memshelf_render.findings import Finding

from ..port import COMMENT_LIMIT, Comment, GitHubPort, Identity, PortError, Reason
from . import Posted, Publication, SinkName, SinkResult, Suggestion
from . import markdown as md
from .summary import VERDICT, episode_table, guard_lines, headline, plural, signed

MAX_BODY = COMMENT_LIMIT
ICON = {"error": "❌", "warning": "⚠️", "info": "ℹ️"}


def marker(shelf_path: str) -> str:
    return f"<!-- memshelf-bot:sticky shelf={shelf_path} -->"


def _finding_block(f: Finding, prefix: str, suggestion: Suggestion | None) -> list[str]:
    where = f"line {f.line}" if f.line else "file"
    lines = [f"- {ICON[f.severity.value]} **{where}** {md.code(f.code)} — {md.text(f.message)}",
             f"  <br>Fix: {md.text(f.rule.fix)}"]
    if suggestion is not None:
        block = md.fenced(suggestion.replacement, "suggestion")
        lines += [f"  <br>Suggested change for line {suggestion.line} ({md.text(suggestion.why)}):", "",
                  *("  " + line if line else "" for line in block.split("\n")), ""]
    return lines


def _findings_section(findings: list[Finding], suggestions: list[Suggestion], prefix: str,
                      room: int) -> list[str]:
    """Findings grouped by file, each with its fix and, where mechanical, a suggestion; cut to
    `room` characters with a note saying how many were left out."""
    pending = list(suggestions)
    out: list[str] = []
    size = 0
    current = None
    for n, f in enumerate(findings):
        block = []
        if f.path != current:
            current = f.path
            block += ["", f"#### {md.code(repo_path(f.path, prefix) if f.path else '(shelf)')}", ""]
        suggestion = next((s for s in pending if s.path == f.path and s.code == f.code
                           and (s.line == f.line or s.code == "field-missing")), None)
        if suggestion is not None:
            pending.remove(suggestion)
        block += _finding_block(f, prefix, suggestion)
        text = "\n".join(block)
        if size + len(text) > room:
            out += ["", f"… and {plural(len(findings) - n, 'more finding')}: the job summary lists every one."]
            break
        out += block
        size += len(text) + 1
    return out


def body(outcome: Outcome, suggestions: list[Suggestion], *, shelf_path: str, head_sha: str,
         summary_url: str | None, remarks: list[str] | None = None) -> str:
    """The comment's Markdown (deterministic: the same outcome gives the same bytes); `remarks`
    are lines about what the bot did (e.g. auto-merge), shown under the verdict."""
    prefix = "" if shelf_path == "." else shelf_path
    head = [marker(shelf_path), f"### memshelf-bot: {VERDICT[outcome.verdict]}", "", headline(outcome), ""]
    if outcome.standing is not None:
        s = outcome.standing
        head += [f"Standing cost: {s.base:,} → {s.head:,} tokens ({signed(s.delta)}).", ""]
    head += episode_table(outcome, prefix)
    head += [f"❌ {md.text(note)}" for note in outcome.notes] + ([""] if outcome.notes else [])
    head += guard_lines(outcome, prefix)
    head += [*remarks, ""] if remarks else []
    where = f"[job summary]({summary_url})" if summary_url else "job summary"
    tail = ["", "---", f"<sub>memshelf-bot {__version__} · head {md.code(head_sha[:12])} · every finding is also an "
                       f"annotation on its line and in the {where}.</sub>"]
    room = MAX_BODY - len("\n".join(head + tail)) - 200
    section = _findings_section(outcome.report.findings, suggestions, prefix, room)
    return "\n".join(head + section + tail).replace("\n\n\n", "\n\n")


class CommentAction(StrEnum):
    CREATED = "created"
    UPDATED = "updated"
    UNCHANGED = "unchanged"
    RECREATED = "recreated"
    SKIPPED = "skipped"
    READ_ONLY = "read-only"
    FAILED = "failed"


class CommentPolicy(StrEnum):
    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


@dataclass(frozen=True, slots=True)
class CommentResult:
    action: CommentAction
    comment_id: int | None = None
    removed_duplicates: int = 0
    reason: str = ""

    def describe(self) -> str:
        text = {
            CommentAction.CREATED: "posted the sticky comment",
            CommentAction.UPDATED: "updated the sticky comment",
            CommentAction.UNCHANGED: "left the sticky comment as it was (same text)",
            CommentAction.RECREATED: "re-posted the sticky comment (the previous one was deleted)",
            CommentAction.SKIPPED: f"posted no comment ({self.reason})",
            CommentAction.READ_ONLY: "could not comment: the token may not write here (a fork's pull request?); "
                                     "the annotations and this summary carry everything",
            CommentAction.FAILED: f"could not update the sticky comment ({self.reason}); the annotations and this "
                                  "summary carry everything",
        }[self.action]
        if self.removed_duplicates:
            text += f"; removed {plural(self.removed_duplicates, 'duplicate')} a concurrent run left"
        return text


def _mine(port: GitHubPort, number: int, mark: str, me: Identity) -> list[Comment]:
    """The bot's own sticky comments: the marker AND the bot's login, oldest first."""
    return sorted((c for c in port.comments(number) if c.body.startswith(mark) and me.wrote(c)),
                  key=lambda c: c.id)


def _delete(port: GitHubPort, comment: Comment) -> bool:
    try:
        port.delete_comment(comment.id)
    except PortError as exc:
        if exc.reason is not Reason.NOT_FOUND:
            raise
    return True


def upsert(port: GitHubPort, number: int, text: str, *, shelf_path: str, policy: CommentPolicy,
           has_news: bool) -> CommentResult:
    """Make the PR's sticky comment say `text`, per `policy` (see the module docstring)."""
    if policy is CommentPolicy.NEVER:
        return CommentResult(CommentAction.SKIPPED, reason="comment: never")
    if port.read_only:
        return CommentResult(CommentAction.READ_ONLY)
    mark = marker(shelf_path)
    me = port.identity()
    try:
        mine = _mine(port, number, mark, me)
        if not mine:
            if policy is CommentPolicy.AUTO and not has_news:
                return CommentResult(CommentAction.SKIPPED, reason="nothing to report, and comment: auto")
            return _create(port, number, text, mark, me, CommentAction.CREATED)
        keep, extra = mine[0], mine[1:]
        removed = sum(_delete(port, c) for c in extra)
        if keep.body == text:
            return CommentResult(CommentAction.UNCHANGED, keep.id, removed)
        try:
            port.edit_comment(keep.id, text)
        except PortError as exc:
            if exc.reason is not Reason.NOT_FOUND:
                raise
            return _create(port, number, text, mark, me, CommentAction.RECREATED, removed)
        return CommentResult(CommentAction.UPDATED, keep.id, removed)
    except PortError as exc:
        if exc.reason is Reason.READ_ONLY:
            return CommentResult(CommentAction.READ_ONLY)
        raise


def _create(port: GitHubPort, number: int, text: str, mark: str, me: Identity, action: CommentAction,
            removed: int = 0) -> CommentResult:
    created = port.create_comment(number, text)
    # a concurrent run may have posted too: the oldest stays, the others go (ours included)
    mine = _mine(port, number, mark, me)
    for extra in mine[1:]:
        removed += _delete(port, extra)
    keep = mine[0] if mine else created
    if keep.id != created.id and keep.body != text:
        port.edit_comment(keep.id, text)
    return CommentResult(action, keep.id, removed)


POSTED = {CommentAction.CREATED: Posted.DONE, CommentAction.UPDATED: Posted.DONE, CommentAction.UNCHANGED: Posted.DONE,
          CommentAction.RECREATED: Posted.DONE, CommentAction.SKIPPED: Posted.SKIPPED,
          CommentAction.READ_ONLY: Posted.READ_ONLY, CommentAction.FAILED: Posted.FAILED}
Unposted = Callable[[Publication, str, CommentPolicy, bool], None]


def has_news(publication: Publication) -> bool:
    """Whether the check has anything to tell (`comment: auto` posts a new comment only then)."""
    outcome = publication.outcome
    c = outcome.counts
    return bool(c["error"] or c["warning"] or c["info"] or outcome.notes or publication.remarks)


@dataclass
class StickySink:
    """The sticky comment of the publication's pull request. `unposted` gets the comment a
    read-only token could not post (the Action's fork run keeps it for its `workflow_run`
    workflow); a failure of GitHub's leaves the verdict standing without the comment."""

    port: GitHubPort
    clean: Callable[[str], str]  # the reporter's masker
    unposted: Unposted | None = None

    def publish(self, publication: Publication) -> SinkResult:
        number = publication.pr_number
        if number is None:
            return SinkResult(SinkName.COMMENT, Posted.SKIPPED, "")
        text = self.clean(body(publication.outcome, list(publication.suggestions), shelf_path=publication.shelf_path,
                               head_sha=publication.head_sha, summary_url=publication.summary_url,
                               remarks=list(publication.remarks)))
        policy, news = CommentPolicy(publication.comment_policy), has_news(publication)
        try:
            result = upsert(self.port, number, text, shelf_path=publication.shelf_path, policy=policy, has_news=news)
        except PortError as exc:
            result = CommentResult(CommentAction.FAILED, reason=exc.message if exc.reason in (
                Reason.UNAVAILABLE, Reason.RATE_LIMITED) else f"GitHub answered {exc.status}")
        if result.action is CommentAction.READ_ONLY and self.unposted is not None:
            self.unposted(publication, text, policy, news)
        return SinkResult(SinkName.COMMENT, POSTED[result.action], f"Sticky comment: {result.describe()}.")
