"""One router for both front doors: an event → the flow that acts on it, decided once.

The table is filled by the registrations beside each flow (`bot/flows/registry.py`); importing
the flow modules here fills it. `route` decides from the typed `Event` alone — no GitHub call —
so the App decides when a delivery arrives and hands the worker a `Route` (as JSON, in the task's
arguments): the worker never parses a payload nor routes again. The Action's `mode: auto` asks
the same question of the same table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from .events import Event, EventKind
from .flows import commands, merge_group, open_pr, pull_request, purge, render_main  # noqa: F401  (they fill the table)
from .flows.registry import COMMANDS, FLOWS, ROUTES, FlowName, FlowRun, RefKind, lookup, ref_of

__all__ = ["COMMANDS", "FLOWS", "ROUTES", "FlowName", "RefKind", "Route", "route", "runner"]


@dataclass(frozen=True, slots=True)
class Route:
    """What to run for an event: the flow and the event it runs on."""

    flow: FlowName
    event: Event

    @property
    def repository(self) -> str:
        return self.event.repository

    @property
    def installation_id(self) -> int | None:
        return self.event.installation_id

    @property
    def sender(self) -> str:
        return self.event.sender

    @property
    def branch(self) -> str:
        """The branch a render renders ('' for other flows: their branch comes with the pull request)."""
        if self.flow is not FlowName.RENDER:
            return ""
        return ref_of(self.event) or self.event.default_branch

    @property
    def lock(self) -> str | None:
        """Renders of one repository and branch are serialized (and coalesced); other flows run freely."""
        return f"render:{self.repository}:{self.branch}" if self.flow is FlowName.RENDER else None

    @property
    def renders_whoever_pushed(self) -> bool:
        """A push to the default branch is rendered even when the App pushed it: its own merges
        (auto-merge, a `/shelf` command) need their render, and the render flow recognises the
        App's own render commits (only derived files, pushed by a bot) and skips them, so this
        never loops."""
        return self.flow is FlowName.RENDER and self.event.kind is EventKind.PUSH

    def to_json(self) -> str:
        return json.dumps({"flow": self.flow.value, "event": self.event.to_dict()}, ensure_ascii=False,
                          separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Route:
        data = json.loads(text)
        return cls(FlowName(data["flow"]), Event.from_dict(data["event"]))


def route(event: Event) -> Route | None:
    """The flow for `event`, or None when the bot does not act on it."""
    name = lookup(event)
    return None if name is None else Route(name, event)


def runner(name: FlowName) -> FlowRun:
    """The function that runs the flow `name`."""
    return FLOWS[name]

