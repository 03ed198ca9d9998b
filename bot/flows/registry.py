"""The routing table and the `/shelf` commands, filled by registrations placed beside each flow
(python/bedevere's style): `@flow(FlowName.RENDER, On(EventKind.PUSH, ref=RefKind.DEFAULT_BRANCH))`
above the function that does the work, `@command("resolve", …)` above a command's handler.

This module holds only the tables and the words they are keyed by; `bot.router` imports every
flow module (which fills them) and decides an event's route. Nothing here calls GitHub: a route
is decided from the typed event alone, so the App decides when the delivery arrives.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypeVar

from ..events import Event, EventKind

if TYPE_CHECKING:
    from ..job import Job
    from .result import FlowResult

BOT_BRANCH_PREFIX = "memshelf-bot/"  # the bot's own branches: never an agent's, never force-pushed over a human


class FlowName(StrEnum):
    CHECK_PR = "check-pr"  # a pull request's head: guard, rules, feedback
    CHECK_MERGE_GROUP = "check-merge-group"  # a merge queue's group head, checked like a pull request
    RENDER = "render"  # render a branch (the default one) and commit the derived files
    OPEN_PR = "open-pr"  # a pushed branch: open or update its pull request, validated in the same run
    COMMAND = "command"  # a `/shelf …` comment


class RefKind(StrEnum):
    """What the branch an event is about is to the bot."""

    DEFAULT_BRANCH = "default-branch"
    BOT_BRANCH = "bot-branch"  # memshelf-bot/…
    OTHER_BRANCH = "other-branch"
    NOT_A_BRANCH = "not-a-branch"  # a tag, or no ref at all


def ref_of(event: Event) -> str | None:
    """The branch the event is about: a push's or a dispatch's ref, a check suite's head branch."""
    if event.kind in (EventKind.CHECK_RUN, EventKind.CHECK_SUITE):
        return event.head_ref or None
    return event.branch


def ref_kind(event: Event) -> RefKind:
    branch = ref_of(event)
    if branch is None:
        return RefKind.NOT_A_BRANCH
    if branch == event.default_branch:
        return RefKind.DEFAULT_BRANCH
    return RefKind.BOT_BRANCH if branch.startswith(BOT_BRANCH_PREFIX) else RefKind.OTHER_BRANCH


@dataclass(frozen=True, slots=True)
class On:
    """One row of the table: events of `kind`, with one of `actions` (any when empty), on a ref of
    one of `refs` (any when empty), for which `when` holds."""

    kind: EventKind
    actions: frozenset[str] = frozenset()
    refs: frozenset[RefKind] = frozenset()
    when: Callable[[Event], bool] | None = None

    def __init__(self, kind: EventKind, actions: Iterable[str] = (), ref: RefKind | Iterable[RefKind] = (),
                 when: Callable[[Event], bool] | None = None) -> None:
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "actions", frozenset(actions))
        object.__setattr__(self, "refs", frozenset((ref,) if isinstance(ref, RefKind) else ref))
        object.__setattr__(self, "when", when)

    def matches(self, event: Event, ref: RefKind) -> bool:
        return (event.kind is self.kind and (not self.actions or event.action in self.actions)
                and (not self.refs or ref in self.refs) and (self.when is None or self.when(event)))


FlowRun = Callable[["Job"], "FlowResult"]


@dataclass(frozen=True, slots=True)
class Rule:
    on: On
    flow: FlowName


ROUTES: list[Rule] = []
FLOWS: dict[FlowName, FlowRun] = {}
F = TypeVar("F", bound=Callable[..., Any])


def flow(name: FlowName, *rules: On) -> Callable[[FlowRun], FlowRun]:
    """Register the function as the flow `name`, run for the events `rules` describe."""
    def register(run: FlowRun) -> FlowRun:
        if name in FLOWS:
            raise ValueError(f"flow {name} is registered twice")
        FLOWS[name] = run
        ROUTES.extend(Rule(rule, name) for rule in rules)
        return run
    return register


def lookup(event: Event) -> FlowName | None:
    """The flow the table gives `event`, or None when the bot does not act on it."""
    ref = ref_kind(event)
    return next((rule.flow for rule in ROUTES if rule.on.matches(event, ref)), None)


@dataclass(frozen=True, slots=True)
class Command:
    """One `/shelf` command: its name, whether it needs write access (asked of the API), the
    help line `/shelf help` shows, and its handler (`(request, pull) -> FlowResult`; `pull` is
    None for a command given on the shelf dashboard issue, which only `on_dashboard` ones take)."""

    name: str
    needs_write: bool
    help: str
    handler: Callable[..., FlowResult] = field(repr=False)
    on_dashboard: bool = False


COMMANDS: dict[str, Command] = {}


def command(name: str, *, needs_write: bool, help: str, on_dashboard: bool = False) -> Callable[[F], F]:
    """Register the function as the handler of `/shelf <name>` (also on the dashboard issue when
    `on_dashboard`)."""
    def register(handler: F) -> F:
        if name in COMMANDS:
            raise ValueError(f"/shelf {name} is registered twice")
        COMMANDS[name] = Command(name, needs_write, help, handler, on_dashboard)
        return handler
    return register
