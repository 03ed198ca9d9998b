"""The event a flow acts on, typed, built by one function from a webhook payload.

The Action reads the payload from `GITHUB_EVENT_PATH` (named by `GITHUB_EVENT_NAME`); the App gets
it from a delivery. Both call `Event.from_payload`, and flows read only the `Event`: never an
environment variable, never a payload dict. A payload is hostile data: every field is read with
its type checked, and a missing or mistyped field is empty, not an exception.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Any


class EventKind(StrEnum):
    PULL_REQUEST = "pull_request"
    PULL_REQUEST_TARGET = "pull_request_target"
    PUSH = "push"
    ISSUE_COMMENT = "issue_comment"
    WORKFLOW_DISPATCH = "workflow_dispatch"
    SCHEDULE = "schedule"
    CHECK_RUN = "check_run"
    CHECK_SUITE = "check_suite"
    MERGE_GROUP = "merge_group"
    OTHER = "other"

    @property
    def is_pull_request(self) -> bool:
        return self in (EventKind.PULL_REQUEST, EventKind.PULL_REQUEST_TARGET)


class SenderType(StrEnum):
    USER = "User"
    BOT = "Bot"
    ORGANIZATION = "Organization"
    UNKNOWN = ""


@dataclass(frozen=True, slots=True)
class PushedCommit:
    """One commit of a push event, with the paths it touched (for the own-render check)."""

    sha: str
    paths: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Event:
    kind: EventKind
    name: str  # the event's name as GitHub sent it (kept for messages when kind is OTHER)
    action: str = ""
    repository: str = ""  # owner/name
    default_branch: str = ""
    ref: str = ""  # push / workflow_dispatch: refs/heads/…
    before: str = ""
    after: str = ""
    deleted: bool = False
    pusher: str = ""
    commits: tuple[PushedCommit, ...] = ()
    pr_number: int | None = None
    pr_state: str = ""
    head_sha: str = ""
    head_ref: str = ""
    head_repo: str | None = None
    base_sha: str = ""
    base_ref: str = ""
    fork: bool = False
    sender: str = ""
    sender_type: SenderType = SenderType.UNKNOWN
    comment_id: int | None = None
    comment_body: str = ""
    comment_author: str = ""
    comment_author_type: SenderType = SenderType.UNKNOWN
    on_pull_request: bool = False  # issue_comment: the issue is a pull request
    installation_id: int | None = None
    issue_labels: tuple[str, ...] = ()  # issue_comment: the labels of the issue (e.g. the shelf dashboard's)

    @property
    def branch(self) -> str | None:
        """The branch a push or dispatch names (None for a tag or another ref)."""
        return self.ref.removeprefix("refs/heads/") if self.ref.startswith("refs/heads/") else None

    @property
    def comment_author_is_bot(self) -> bool:
        return self.comment_author_type is SenderType.BOT or self.comment_author.endswith("[bot]")

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON values (enums as their strings, commits as lists), for `from_dict`."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "commits":
                value = [[c.sha, list(c.paths)] for c in value]
            elif isinstance(value, StrEnum):
                value = value.value
            out[f.name] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        """The event `to_dict` gave (exactly: `Event.from_dict(e.to_dict()) == e`)."""
        values = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        values["kind"] = EventKind(values["kind"])
        for key in ("sender_type", "comment_author_type"):
            if key in values:
                values[key] = SenderType(values[key])
        values["commits"] = tuple(PushedCommit(sha, tuple(paths)) for sha, paths in values.get("commits", ()))
        values["issue_labels"] = tuple(values.get("issue_labels", ()))
        return cls(**values)

    @classmethod
    def from_payload(cls, name: str, payload: Mapping[str, Any]) -> Event:
        """The event `name` as its webhook `payload` describes it. A check run or suite re-request
        carries its suite's head (`head_sha`, `head_ref`) and the first pull request GitHub lists on
        it (`pr_number`); a merge group (`merge_group.checks_requested`) its head and base."""
        kind = next((k for k in EventKind if k.value == name and k is not EventKind.OTHER), EventKind.OTHER)
        if kind in (EventKind.CHECK_RUN, EventKind.CHECK_SUITE):
            return _checks_event(cls._from_payload(kind, name, payload), payload)
        if kind is EventKind.MERGE_GROUP:
            group = _obj(payload, "merge_group")
            event = cls._from_payload(kind, name, payload)
            return replace(event, head_sha=_str(group, "head_sha"), head_ref=_str(group, "head_ref"),
                           base_sha=_str(group, "base_sha"), base_ref=_str(group, "base_ref"))
        return cls._from_payload(kind, name, payload)

    @classmethod
    def _from_payload(cls, kind: EventKind, name: str, payload: Mapping[str, Any]) -> Event:
        repo = _obj(payload, "repository")
        pr = _obj(payload, "pull_request")
        issue = _obj(payload, "issue")
        comment = _obj(payload, "comment")
        sender = _obj(payload, "sender")
        head, base = _obj(pr, "head"), _obj(pr, "base")
        head_repo = _obj(head, "repo")
        base_repo = _obj(base, "repo")
        number = _int(payload, "number") or _int(pr, "number") or _int(issue, "number")
        head_name = _str(head_repo, "full_name") or None
        return cls(
            kind=kind, name=name, action=_str(payload, "action"),
            repository=_str(repo, "full_name"), default_branch=_str(repo, "default_branch"),
            ref=_str(payload, "ref"), before=_str(payload, "before"), after=_str(payload, "after"),
            deleted=payload.get("deleted") is True, pusher=_str(_obj(payload, "pusher"), "name"),
            commits=tuple(_commit(c) for c in _list(payload, "commits") if isinstance(c, Mapping)),
            pr_number=number, pr_state=_str(pr, "state"),
            head_sha=_str(head, "sha"), head_ref=_str(head, "ref"), head_repo=head_name,
            base_sha=_str(base, "sha"), base_ref=_str(base, "ref"),
            fork=bool(pr) and (head_name is None or head_name != _str(base_repo, "full_name")),
            sender=_str(sender, "login"), sender_type=_sender_type(sender),
            comment_id=_int(comment, "id"), comment_body=_str(comment, "body"),
            comment_author=_str(_obj(comment, "user"), "login"),
            comment_author_type=_sender_type(_obj(comment, "user")),
            on_pull_request=bool(_obj(issue, "pull_request")),
            issue_labels=tuple(name for label in _list(issue, "labels")
                               if isinstance(label, Mapping) and (name := _str(label, "name"))),
            installation_id=_int(_obj(payload, "installation"), "id"),
        )


def _obj(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = data.get(key)
    return value if isinstance(value, Mapping) else {}


def _str(data: Mapping[str, Any], key: str) -> str:
    value = data.get(key)
    return value if isinstance(value, str) else ""


def _int(data: Mapping[str, Any], key: str) -> int | None:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    return value if isinstance(value, list) else []


def _sender_type(user: Mapping[str, Any]) -> SenderType:
    raw = _str(user, "type")
    return next((t for t in SenderType if t.value == raw), SenderType.UNKNOWN)


def _commit(data: Mapping[str, Any]) -> PushedCommit:
    paths = [p for key in ("added", "modified", "removed") for p in _list(data, key) if isinstance(p, str)]
    return PushedCommit(_str(data, "id"), tuple(paths))


def _checks_event(event: Event, payload: Mapping[str, Any]) -> Event:
    """A check run or suite event with its suite's head and first pull request."""
    run = _obj(payload, "check_run")
    suite = _obj(run, "check_suite") if run else _obj(payload, "check_suite")
    pulls = _list(run, "pull_requests") or _list(suite, "pull_requests")
    first = pulls[0] if pulls and isinstance(pulls[0], Mapping) else {}
    return replace(event, head_sha=_str(suite, "head_sha") or _str(run, "head_sha"),
                   head_ref=_str(suite, "head_branch"), pr_number=_int(first, "number"))
