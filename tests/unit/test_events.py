"""`Event.from_payload`: one function makes GitHub's official webhook examples typed events, and a
hostile or broken payload an empty field, never an exception."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.events import Event, EventKind, SenderType
from tests.sandbox_fixtures import webhook_fixture


def test_a_pull_request_event() -> None:
    payload = webhook_fixture("pull_request.opened")
    event = Event.from_payload("pull_request", payload)
    pr = payload["pull_request"]
    assert event.kind is EventKind.PULL_REQUEST and event.kind.is_pull_request and event.action == "opened"
    assert event.repository == payload["repository"]["full_name"]
    assert event.default_branch == payload["repository"]["default_branch"]
    assert (event.pr_number, event.head_sha, event.head_ref) == (payload["number"], pr["head"]["sha"],
                                                                 pr["head"]["ref"])
    assert (event.base_sha, event.base_ref) == (pr["base"]["sha"], pr["base"]["ref"])
    assert event.fork is (pr["head"]["repo"]["full_name"] != pr["base"]["repo"]["full_name"])
    assert event.sender == payload["sender"]["login"] and event.sender_type is SenderType.USER


def test_a_fork_pull_request_and_a_deleted_head_repository_are_forks() -> None:
    payload = webhook_fixture("pull_request.opened")
    payload["pull_request"]["head"]["repo"]["full_name"] = "mallory/shelf"
    assert Event.from_payload("pull_request_target", payload).fork
    payload["pull_request"]["head"]["repo"] = None
    event = Event.from_payload("pull_request", payload)
    assert event.fork and event.head_repo is None


def test_a_push_event() -> None:
    payload = webhook_fixture("push")
    event = Event.from_payload("push", payload)
    assert event.kind is EventKind.PUSH and event.ref == payload["ref"] and event.after == payload["after"]
    assert event.branch == payload["ref"].removeprefix("refs/heads/")
    assert event.pusher == payload["pusher"]["name"]
    assert [c.sha for c in event.commits] == [c["id"] for c in payload["commits"]]
    tag = Event.from_payload("push", {**payload, "ref": "refs/tags/v1"})
    assert tag.branch is None


def test_an_issue_comment_event() -> None:
    payload = webhook_fixture("issue_comment.created")
    event = Event.from_payload("issue_comment", payload)
    assert event.kind is EventKind.ISSUE_COMMENT and event.comment_id == payload["comment"]["id"]
    assert event.comment_body == payload["comment"]["body"]
    assert event.comment_author == payload["comment"]["user"]["login"]
    assert event.pr_number == payload["issue"]["number"]
    assert event.on_pull_request is bool(payload["issue"].get("pull_request"))
    bot = {**payload, "comment": {**payload["comment"], "user": {"login": "renovate[bot]", "type": "Bot"}}}
    assert Event.from_payload("issue_comment", bot).comment_author_is_bot


def test_the_installation_and_other_events() -> None:
    event = Event.from_payload("check_suite", {"action": "rerequested", "installation": {"id": 42}})
    assert event.kind is EventKind.CHECK_SUITE and event.installation_id == 42
    other = Event.from_payload("star", {"action": "created"})
    assert other.kind is EventKind.OTHER and other.name == "star"


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                                         max_size=3), max_leaves=12)
keys = st.sampled_from(["repository", "pull_request", "issue", "comment", "sender", "installation", "number",
                        "commits", "pusher", "ref", "deleted", "action", "head", "base"])


@settings(max_examples=300, deadline=None)
@given(name=st.sampled_from([k.value for k in EventKind] + ["star"]),
       payload=st.dictionaries(keys, json_values, max_size=8))
def test_any_payload_shape_gives_an_event_and_never_raises(name: str, payload: dict[str, Any]) -> None:
    event = Event.from_payload(name, payload)
    assert isinstance(event.repository, str) and isinstance(event.comment_body, str)
    assert event.pr_number is None or (isinstance(event.pr_number, int) and event.pr_number > 0)
