"""Which deliveries the App acts on, and what each one asks for.

The front door decides from the typed `Event` (and, for check runs and suites, the pull
requests GitHub lists on them) without calling GitHub, so it answers in milliseconds;
everything else is the flow's business.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.events import Event, EventKind

COMMAND_PREFIX = "/shelf"
PULL_REQUEST_ACTIONS = frozenset({"opened", "synchronize", "reopened", "ready_for_review"})
CHECK_SUITE_ACTIONS = frozenset({"requested", "rerequested"})


class Flow(StrEnum):
    CHECK_PR = "check-pr"  # validate a pull request's head
    RENDER = "render"  # render the default branch
    OPEN_PR = "open-pr"  # an agent branch was pushed: open or update its pull request
    COMMAND = "command"  # a `/shelf …` comment


@dataclass(frozen=True, slots=True)
class Route:
    flow: Flow
    event: Event
    installation_id: int
    branch: str = ""
    pull_number: int | None = None

    @property
    def repository(self) -> str:
        return self.event.repository

    @property
    def sender(self) -> str:
        return self.event.sender

    @property
    def renders_whoever_pushed(self) -> bool:
        """A push to the default branch is rendered even when the App pushed it: its own merges
        (auto-merge, a `/shelf` command) need their render, and the render flow recognises the
        App's own render commits (only derived files, pushed by a bot) and skips them, so this
        never loops."""
        return self.flow is Flow.RENDER and self.event.kind is EventKind.PUSH

    @property
    def lock(self) -> str | None:
        """Renders of one branch are serialized (and coalesced); other flows run freely."""
        return f"render:{self.repository}:{self.branch}" if self.flow is Flow.RENDER else None


def _checks(name: str, payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The check suite a check_run.rerequested or check_suite.(re)requested is about."""
    action = payload.get("action")
    if name == EventKind.CHECK_RUN and action == "rerequested":
        run = payload.get("check_run")
        suite = run.get("check_suite") if isinstance(run, Mapping) else None
        if isinstance(run, Mapping) and isinstance(suite, Mapping):
            return {**suite, "pull_requests": run.get("pull_requests") or suite.get("pull_requests")}
    if name == EventKind.CHECK_SUITE and action in CHECK_SUITE_ACTIONS:
        suite = payload.get("check_suite")
        return suite if isinstance(suite, Mapping) else None
    return None


def _first_pull(checks: Mapping[str, Any]) -> int | None:
    pulls = checks.get("pull_requests")
    if isinstance(pulls, list) and pulls and isinstance(pulls[0], Mapping):
        number = pulls[0].get("number")
        return number if isinstance(number, int) and number > 0 else None
    return None


def _decide(name: str, payload: Mapping[str, Any], event: Event) -> tuple[Flow, str, int | None] | None:
    if event.kind is EventKind.PULL_REQUEST and event.action in PULL_REQUEST_ACTIONS and event.pr_number:
        return Flow.CHECK_PR, event.head_ref, event.pr_number
    if event.kind is EventKind.PUSH:
        if event.deleted or event.branch is None:
            return None
        return (Flow.RENDER if event.branch == event.default_branch else Flow.OPEN_PR), event.branch, None
    if event.kind is EventKind.ISSUE_COMMENT:
        if (event.action != "created" or not event.on_pull_request or not event.pr_number
                or not event.comment_body.lstrip().startswith(COMMAND_PREFIX)):
            return None
        return Flow.COMMAND, "", event.pr_number
    checks = _checks(name, payload)
    if checks is None:
        return None
    number = _first_pull(checks)
    if number is not None:
        return Flow.CHECK_PR, "", number
    branch = checks.get("head_branch")
    if isinstance(branch, str) and branch and branch == event.default_branch:
        return Flow.RENDER, branch, None
    return None


def route(name: str, payload: Mapping[str, Any]) -> Route | None:
    """What to run for a delivery, or None when the App does not act on it."""
    event = Event.from_payload(name, payload)
    if not event.repository or event.installation_id is None:
        return None
    decided = _decide(name, payload, event)
    if decided is None:
        return None
    flow, branch, number = decided
    return Route(flow, event, event.installation_id, branch, number)


def encode_route(name: str, payload: Mapping[str, Any]) -> str:
    """A routed delivery as a task argument."""
    return json.dumps([name, payload], separators=(",", ":"))


def decode_route(text: str) -> Route:
    name, payload = json.loads(text)
    routed = route(name, payload)
    if routed is None:
        raise ValueError("a task holds a delivery that routes nowhere")
    return routed
