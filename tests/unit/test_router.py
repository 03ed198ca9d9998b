"""The one router both doors ask: every event the Action or the App acts on → its flow, decided
from the typed event alone (GitHub's own example payloads, edited where a case needs it), the
routed event carried as JSON and back exactly, and `/shelf help` generated from the commands that
exist."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bot.events import Event, EventKind
from bot.flows import commands
from bot.flows.registry import COMMANDS, RefKind, command, ref_kind
from bot.router import FLOWS, ROUTES, FlowName, Route, route
from tests.sandbox_fixtures import webhook_fixture

APP = "shelf-app[bot]"


def event(name: str, example: str | None = None, **edits: Any) -> Event:
    """GitHub's example `example` (default: `name`) as a typed event, with top-level `edits`."""
    payload = webhook_fixture(example or name)
    for key, value in edits.items():
        if isinstance(value, dict) and isinstance(payload.get(key), dict):
            payload[key] = {**payload[key], **value}
        else:
            payload[key] = value
    return Event.from_payload(name, payload)


def routed(e: Event) -> FlowName | None:
    found = route(e)
    return None if found is None else found.flow


@pytest.mark.parametrize("action, flow", [("opened", FlowName.CHECK_PR), ("synchronize", FlowName.CHECK_PR),
                                          ("reopened", FlowName.CHECK_PR), ("ready_for_review", FlowName.CHECK_PR),
                                          ("closed", None), ("labeled", None), ("edited", None)])
def test_pull_requests_are_checked_on_the_actions_that_change_their_head(action: str, flow: FlowName | None) -> None:
    assert routed(event("pull_request", "pull_request.opened", action=action)) is flow
    assert routed(event("pull_request_target", "pull_request.opened", action=action)) is flow


def test_pushes_route_by_what_the_branch_is_to_the_bot() -> None:
    main = event("push")  # the example pushes to master, the default branch
    assert ref_kind(main) is RefKind.DEFAULT_BRANCH and routed(main) is FlowName.RENDER
    agent = event("push", ref="refs/heads/night-shift/one")
    assert ref_kind(agent) is RefKind.OTHER_BRANCH and routed(agent) is FlowName.OPEN_PR
    bots = event("push", ref="refs/heads/memshelf-bot/render")
    assert ref_kind(bots) is RefKind.BOT_BRANCH and routed(bots) is None
    tag = event("push", ref="refs/tags/v1.0")
    assert ref_kind(tag) is RefKind.NOT_A_BRANCH and routed(tag) is None
    assert routed(event("push", ref="refs/heads/night-shift/one", deleted=True)) is None
    assert routed(event("push", deleted=True)) is None


def test_a_render_is_locked_per_repository_and_branch_and_nothing_else_is() -> None:
    render = route(event("push"))
    assert render is not None and render.lock == f"render:{render.repository}:master" and render.branch == "master"
    opened = route(event("push", ref="refs/heads/night-shift/one"))
    assert opened is not None and opened.lock is None and opened.branch == ""
    check = route(event("pull_request", "pull_request.opened"))
    assert check is not None and check.lock is None


def test_the_apps_own_pushes_render_the_default_branch_but_open_no_pull_request() -> None:
    """A push the App made itself (a merge, a command's commit) still needs its render (the render
    flow skips the App's own render commits); its own push to another branch is left alone."""
    own_main = route(event("push", sender={"login": APP, "type": "Bot"}))
    assert own_main is not None and own_main.sender == APP and own_main.renders_whoever_pushed
    own_branch = route(event("push", ref="refs/heads/night-shift/one", sender={"login": APP, "type": "Bot"}))
    assert own_branch is not None and own_branch.flow is FlowName.OPEN_PR and not own_branch.renders_whoever_pushed
    suite = route(event("check_suite", "check_suite.requested"))  # the example lists no pull request
    assert suite is not None and suite.flow is FlowName.RENDER and not suite.renders_whoever_pushed


def test_shelf_comments_route_to_the_commands_and_other_comments_nowhere() -> None:
    pr = {"number": 7, "pull_request": {"url": "https://api.github.com/repos/o/r/pulls/7"}}
    command = event("issue_comment", "issue_comment.created", issue=pr, comment={"body": "/shelf resolve\nplease"})
    assert routed(command) is FlowName.COMMAND and command.pr_number == 7
    assert routed(event("issue_comment", "issue_comment.created", issue=pr, comment={"body": "  /SHELF"})) \
        is FlowName.COMMAND
    assert routed(event("issue_comment", "issue_comment.created", issue=pr, comment={"body": "LGTM /shelf"})) is None
    on_issue = event("issue_comment", "issue_comment.created", comment={"body": "/shelf resolve"})
    assert not on_issue.on_pull_request and routed(on_issue) is None
    edited = event("issue_comment", "issue_comment.created", action="edited", issue=pr,
                   comment={"body": "/shelf resolve"})
    assert routed(edited) is None


def test_check_re_requests_name_their_pull_request_or_render_the_default_branch() -> None:
    head = {"number": 12, "head": {"ref": "night-shift/one", "sha": "a" * 40}, "base": {"ref": "master", "sha": "b" * 40}}
    for action in ("requested", "rerequested"):
        payload = webhook_fixture(f"check_suite.{action}")
        payload["check_suite"]["pull_requests"], payload["check_suite"]["head_branch"] = [], "master"
        bare = Event.from_payload("check_suite", payload)
        assert bare.pr_number is None and bare.head_ref == "master" and routed(bare) is FlowName.RENDER
        payload["check_suite"]["pull_requests"] = [head]
        with_pull = Event.from_payload("check_suite", payload)
        assert (with_pull.pr_number, routed(with_pull)) == (12, FlowName.CHECK_PR)
        assert with_pull.head_sha == payload["check_suite"]["head_sha"]
        payload["check_suite"]["pull_requests"], payload["check_suite"]["head_branch"] = [], "night-shift/one"
        assert routed(Event.from_payload("check_suite", payload)) is None  # no pull request yet: nothing to run
    run = webhook_fixture("check_run.rerequested")
    run["check_run"]["pull_requests"] = run["check_run"]["check_suite"]["pull_requests"] = []
    assert routed(Event.from_payload("check_run", run)) is FlowName.RENDER  # on the default branch, no pull request
    run["check_run"]["pull_requests"] = [head]
    assert routed(Event.from_payload("check_run", run)) is FlowName.CHECK_PR
    run["action"] = "completed"
    assert routed(Event.from_payload("check_run", run)) is None


def merge_group_payload() -> dict[str, Any]:
    """A `merge_group.checks_requested` delivery as GitHub documents it."""
    repo = webhook_fixture("push")["repository"]
    return {"action": "checks_requested", "repository": repo, "installation": {"id": 42},
            "sender": {"login": "octocat", "type": "User"},
            "merge_group": {"head_sha": "c" * 40, "head_ref": "refs/heads/gh-readonly-queue/master/pr-12-" + "b" * 40,
                            "base_sha": "b" * 40, "base_ref": "refs/heads/master",
                            "head_commit": {"id": "c" * 40, "message": "Merge pull request #12"}}}


def test_a_merge_group_is_checked_on_its_head_against_its_base() -> None:
    group = Event.from_payload("merge_group", merge_group_payload())
    assert group.kind is EventKind.MERGE_GROUP
    assert (group.head_sha, group.base_sha, group.base_ref) == ("c" * 40, "b" * 40, "refs/heads/master")
    found = route(group)
    assert found is not None and found.flow is FlowName.CHECK_MERGE_GROUP and found.lock is None
    assert found.installation_id == 42
    assert routed(Event.from_payload("merge_group", {**merge_group_payload(), "action": "destroyed"})) is None


def test_dispatches_and_schedules_render_and_other_events_route_nowhere() -> None:
    assert routed(Event(EventKind.WORKFLOW_DISPATCH, "workflow_dispatch", ref="refs/heads/main")) is FlowName.RENDER
    assert routed(Event(EventKind.SCHEDULE, "schedule")) is FlowName.RENDER
    assert routed(Event.from_payload("star", {"action": "created"})) is None


def test_every_flow_is_registered_once_and_reached_by_a_rule() -> None:
    assert set(FLOWS) == set(FlowName) == {rule.flow for rule in ROUTES}


ROUTED = [event("push"), event("push", ref="refs/heads/night-shift/ü", sender={"login": APP, "type": "Bot"}),
          event("pull_request", "pull_request.opened"), event("check_suite", "check_suite.requested"),
          event("issue_comment", "issue_comment.created", issue={"number": 3, "pull_request": {"url": "u"}},
                comment={"body": "/shelf fix\n\u2028 ünï"}),
          Event.from_payload("merge_group", merge_group_payload())]


@pytest.mark.parametrize("e", ROUTED, ids=lambda e: e.name)
def test_a_route_travels_as_json_and_comes_back_exactly(e: Event) -> None:
    found = route(e)
    assert found is not None
    text = found.to_json()
    assert Route.from_json(text) == found and Event.from_dict(e.to_dict()) == e
    again = Route.from_json(text)
    assert (again.lock, again.repository, again.installation_id, again.sender, again.renders_whoever_pushed) == (
        found.lock, found.repository, found.installation_id, found.sender, found.renders_whoever_pushed)


def help_commands() -> list[tuple[str, str]]:
    return re.findall(r"^\| `/shelf (\w+)` \| .* \| (write access|anyone) \|$", commands.help_text(), re.M)


def test_shelf_help_lists_exactly_the_registered_commands() -> None:
    listed = help_commands()
    assert [name for name, _ in listed] == list(COMMANDS) == ["resolve", "fix", "render", "help", "purge"]
    assert dict(listed) == {c.name: "write access" if c.needs_write else "anyone" for c in COMMANDS.values()}


def test_a_newly_registered_command_appears_in_help_at_once() -> None:
    @command("tidy", needs_write=True, help="a command made up for this test")
    def tidy(request: object, pull: object) -> None:
        raise AssertionError("never run")

    try:
        assert ("tidy", "write access") in help_commands()
        with pytest.raises(ValueError, match="registered twice"):
            command("tidy", needs_write=False, help="again")(tidy)
    finally:
        del COMMANDS["tidy"]
    assert "tidy" not in commands.help_text()
