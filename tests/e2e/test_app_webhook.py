"""The webhook front door and the jobs in-process: signature, size cap, ping, ignored events,
de-duplication, the state of each delivery through its job (received → queued → running →
succeeded|failed), leases, retries, render coalescing with true outcomes, and the admin side."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path

import pytest
from huey.exceptions import RetryTask

from bot.app import jobs, metrics
from bot.app.auth import TokenError
from bot.app.jobs import open_backend
from bot.app.store import State, delivery_key
from bot.app.wsgi import MAX_BODY, AdminApp, WebhookApp, sign, verify
from tests.app_helpers import SECRET, Recorder, call, delivery_headers, pull_payload, push_payload
from tests.app_redis import flush, redis_url  # noqa: F401  (the fixture)

GITHUB_VECTOR = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"


def test_signature_matches_githubs_published_vector() -> None:
    secret, body = b"It's a Secret to Everybody", b"Hello, World!"
    assert sign(secret, body) == GITHUB_VECTOR
    assert verify(secret, body, GITHUB_VECTOR)
    assert not verify(secret, body + b" ", GITHUB_VECTOR)
    assert not verify(b"another secret", body, GITHUB_VECTOR)
    assert not verify(secret, body, GITHUB_VECTOR.removeprefix("sha256="))
    assert not verify(secret, body, None)
    assert not verify(secret, body, "sha256=é")


class FakeTokens:
    """Stands in for InstallationTokens: the App's slug, and no GitHub calls."""

    calls = 0
    rate_remaining = None

    def app_slug(self) -> str:
        return "memshelf-test"


@dataclass
class FakeTask:
    """What huey hands a task run with `context=True`: its retries left."""

    retries: int = jobs.RETRIES


class World:
    """The front door and the jobs on one backend, with a list standing for huey's queue."""

    def __init__(self, tmp: Path, redis: str | None) -> None:
        self.backend = open_backend(tmp / "data", redis)
        self.queue: list[tuple[str, str, FakeTask]] = []
        self.retried: list[tuple[str, float]] = []
        self.retried_tasks: list[tuple[str, str, FakeTask]] = []
        self.handler = Recorder()
        self.runtime = jobs.Runtime(self.backend, FakeTokens(), self.handler)  # type: ignore[arg-type]
        self.runtime.enqueue = self.enqueue  # type: ignore[method-assign]
        jobs.install(self.runtime)
        self.app = WebhookApp(SECRET, self.backend.store, self.enqueue, self.backend.healthy)
        self.admin = AdminApp(self.backend.store, lambda: len(self.queue))

    def enqueue(self, key: str, routed: str) -> None:
        self.queue.append((key, routed, FakeTask()))

    def post(self, event: str, body: bytes, **kw: str) -> tuple[int, str]:
        headers = delivery_headers(event, body, **kw)
        response = call(self.app, "POST", "/webhook", body, headers)
        return response.status, delivery_key(headers["X-GitHub-Delivery"], headers["X-GitHub-Hook-ID"])

    def drain(self) -> None:
        """Run every queued task as huey does; a retry is recorded, not waited for."""
        while self.queue:
            key, routed, task = self.queue.pop(0)
            try:
                jobs.run_job(key, routed, task)  # type: ignore[arg-type]
            except RetryTask as retry:
                self.retried.append((key, float(retry.delay or 0)))
                self.retried_tasks.append((key, routed, task))

    def state(self, key: str) -> State:
        record = self.backend.store.get(key)
        assert record is not None
        return record.state


@pytest.fixture(params=["sqlite", "redis"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> World:
    """The same front door and jobs on each store (and queue) backend."""
    redis = None
    if request.param == "redis":
        redis = request.getfixturevalue("redis_url")
        flush(redis)
    return World(tmp_path, redis)


def test_missing_or_wrong_signature_is_401_and_nothing_is_enqueued(world: World) -> None:
    body = push_payload()
    headers = delivery_headers("push", body)
    del headers["X-Hub-Signature-256"]
    assert call(world.app, "POST", "/webhook", body, headers).status == 401
    headers["X-Hub-Signature-256"] = sign(b"wrong", body)
    assert call(world.app, "POST", "/webhook", body, headers).status == 401
    assert world.queue == [] and world.backend.store.recent(10) == []


def test_over_the_cap_is_413_without_reading_the_body(world: World) -> None:
    class Unreadable:
        def read(self, *_: object) -> bytes:
            raise AssertionError("the body was read")

    captured: dict[str, int] = {}

    def start(status: str, headers: list) -> None:
        captured["status"] = int(status.split()[0])

    environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/webhook", "CONTENT_LENGTH": str(MAX_BODY + 1),
               "wsgi.input": Unreadable(), "HTTP_X_GITHUB_EVENT": "push"}
    world.app(environ, start)
    assert captured["status"] == 413
    assert call(world.app, "POST", "/webhook", b"{}", delivery_headers("push", b"{}"), content_length="").status == 411
    assert world.queue == []


def test_ping_is_200_and_unhandled_events_are_202_ignored(world: World) -> None:
    assert world.post("ping", b'{"zen": "Keep it logically awesome."}')[0] == 200
    status, _ = world.post("issues", json.dumps({"action": "opened", "installation": {"id": 1},
                                                   "repository": {"full_name": "a/b"}}).encode())
    assert status == 202
    status, _ = world.post("pull_request", pull_payload(action="labeled"))
    assert status == 202
    assert world.queue == []
    ignored = call(world.app, "POST", "/webhook", pull_payload(action="closed"),
                   delivery_headers("pull_request", pull_payload(action="closed")))
    assert ignored.json() == {"status": "ignored"}


def test_a_delivery_is_queued_run_once_and_a_redelivery_of_a_success_does_nothing(world: World) -> None:
    body = pull_payload()
    headers = delivery_headers("pull_request", body)
    first = call(world.app, "POST", "/webhook", body, headers)
    assert (first.status, first.json()) == (202, {"status": "queued"})
    key = delivery_key(headers["X-GitHub-Delivery"], "1")
    assert world.state(key) is State.QUEUED
    again = call(world.app, "POST", "/webhook", body, headers)  # a duplicate while queued
    assert again.json() == {"status": "duplicate"}
    world.drain()
    assert world.state(key) is State.SUCCEEDED and world.handler.ran == [key]
    assert call(world.app, "POST", "/webhook", body, headers).json() == {"status": "duplicate"}
    assert world.queue == [] and world.handler.ran == [key]


def test_the_same_guid_on_another_hook_is_another_delivery(world: World) -> None:
    body = pull_payload()
    assert world.post("pull_request", body, guid="g-1", hook="1")[0] == 202
    assert world.post("pull_request", body, guid="g-1", hook="2")[0] == 202
    assert len(world.queue) == 2


def test_a_redelivery_of_a_failed_delivery_runs_again(world: World) -> None:
    body = pull_payload()
    world.handler.fail.append(ValueError("a flow bug"))
    _, key = world.post("pull_request", body, guid="g-fail")
    world.drain()
    record = world.backend.store.get(key)
    assert record is not None and record.state is State.FAILED
    assert record.detail.startswith("ValueError")
    assert world.post("pull_request", body, guid="g-fail")[0] == 202
    world.drain()
    assert world.state(key) is State.SUCCEEDED and world.handler.ran == [key, key]


def test_a_lapsed_lease_runs_again_and_a_live_one_on_the_same_host_does_not(world: World) -> None:
    store = world.backend.store
    _, key = world.post("pull_request", pull_payload(), guid="g-lost")
    (_, routed, _), = world.queue
    world.queue.clear()
    # another worker (same host name, another random id) holds it with a live lease
    assert store.start(key, "worker-a", until=1e12, task=json.dumps([key, routed]), now=1.0)
    assert world.post("pull_request", pull_payload(), guid="g-lost")[0] == 202 and world.queue == []
    assert jobs.requeue(world.runtime) == [] and world.queue == []
    store.renew(key, "worker-a", until=5.0)  # its heartbeat stopped: the lease lapses
    assert jobs.requeue(world.runtime) == [key] and [q[:2] for q in world.queue] == [(key, routed)]
    assert jobs.requeue(world.runtime) == []  # taken once
    world.drain()
    assert world.state(key) is State.SUCCEEDED and world.handler.ran == [key]


def test_transient_failures_retry_on_huey_with_backoff_then_fail(world: World) -> None:
    world.handler.fail.extend([TokenError("GitHub is down", 502)] * (jobs.RETRIES + 1))
    _, key = world.post("pull_request", pull_payload(), guid="g-retry")
    for attempt in range(jobs.RETRIES):
        world.drain()
        assert world.state(key) is State.QUEUED
        (retried, delay), = world.retried
        assert retried == key and delay >= jobs.RETRY_DELAY * 4 ** attempt * 0.8
        world.retried.clear()
        (_, routed, task), = world.retried_tasks
        world.retried_tasks.clear()
        assert task.retries == jobs.RETRIES - attempt - 1
        # huey's RetryTask adds one retry back and its requeue takes one: the count stays
        world.queue.append((key, routed, task))
    world.drain()
    assert world.state(key) is State.FAILED and world.retried == []
    assert len(world.handler.ran) == jobs.RETRIES + 1


def test_a_retry_lost_with_the_queue_runs_when_its_lease_lapses(world: World) -> None:
    world.handler.fail.append(TokenError("GitHub is down", 502))
    _, key = world.post("pull_request", pull_payload(), guid="g-lost-retry")
    world.drain()
    assert world.state(key) is State.QUEUED and world.retried  # huey lost the scheduled retry: ...
    assert jobs.requeue(world.runtime) == []
    assert [k for k, _ in world.backend.store.lapsed(now=1e12)] == [key]  # ... the held lease brings it back


def test_the_apps_own_events_are_ignored_and_other_bots_are_users(world: World) -> None:
    world.backend.store.set_value(jobs.SLUG_KEY, "memshelf-test")
    _, own = world.post("pull_request", pull_payload(sender="memshelf-test[bot]"))
    _, other = world.post("pull_request", pull_payload(number=4, sender="github-actions[bot]"))
    world.post("push", push_payload(branch="shelve/x", sender="memshelf-test[bot]"))  # its own branch: ignored
    _, main = world.post("push", push_payload(sender="memshelf-test[bot]"))  # its merge: rendered all the same
    world.drain()
    assert world.handler.ran == [other, main]
    record = world.backend.store.get(own)
    assert record is not None and record.detail == "ignored: caused by the App itself"


def test_a_burst_of_renders_coalesces_and_none_is_lost(world: World) -> None:
    store = world.backend.store
    keys = [world.post("push", push_payload())[1] for _ in range(5)]
    world.drain()
    assert len(world.handler.ran) == 1  # one render stood for the five
    assert all(world.state(k) is State.SUCCEEDED for k in keys)
    # a job that finds the lock held leaves its delivery to the holder, who renders again
    lock = "render:shelf/one:main"
    assert store.acquire(lock, "holder", 60)
    _, late = world.post("push", push_payload())
    world.drain()
    assert len(world.handler.ran) == 1 and world.state(late) is State.COALESCED and store.pending(lock) == [late]
    store.release(lock, "holder")
    _, later = world.post("push", push_payload())
    world.drain()
    assert len(world.handler.ran) == 2 and store.pending(lock) == []
    assert world.state(late) is State.SUCCEEDED and world.state(later) is State.SUCCEEDED


def test_a_coalesced_delivery_takes_its_renders_failure_and_stays_redeliverable(world: World) -> None:
    """GitHub sends a push and a check_suite.requested for every push to main: both stand for one
    render, and when that render fails, both are failed — and a redelivery of either runs again."""
    world.handler.fail.append(ValueError("the render broke"))
    _, push = world.post("push", push_payload(), guid="g-push")
    suite = json.dumps({"action": "requested", "check_suite": {"head_branch": "main", "pull_requests": []},
                        "repository": {"full_name": "shelf/one", "default_branch": "main"},
                        "installation": {"id": 7}, "sender": {"login": "agent"}}).encode()
    _, requested = world.post("check_suite", suite, guid="g-suite")
    world.drain()
    assert world.handler.ran == [push]  # one render for both
    for key in (push, requested):
        record = world.backend.store.get(key)
        assert record is not None and record.state is State.FAILED and "the render broke" in record.detail
    assert world.post("check_suite", suite, guid="g-suite")[0] == 202 and len(world.queue) == 1
    world.drain()
    assert world.state(requested) is State.SUCCEEDED and world.state(push) is State.FAILED


def test_the_webhook_listener_serves_no_status_page_and_no_metrics(world: World) -> None:
    assert call(world.app, "GET", "/healthz").status == 200
    assert call(world.app, "GET", "/").status == 404
    assert call(world.app, "GET", "/metrics").status == 404


def test_metrics_and_the_status_page_on_the_admin_listener(world: World) -> None:
    world.post("pull_request", pull_payload(repo="shelf/<script>"))
    world.post("push", push_payload(), secret=b"forged")
    world.drain()
    text = call(world.admin, "GET", "/metrics").body.decode()
    assert 'memshelf_bot_deliveries_total{event="pull_request",outcome="queued"} 1.0' in text
    assert 'memshelf_bot_deliveries_total{event="push",outcome="unauthorized"} 1.0' in text
    assert 'memshelf_bot_jobs_total{event="pull_request",flow="check-pr",outcome="succeeded"} 1.0' in text
    assert "memshelf_bot_job_duration_seconds_count" in text and "memshelf_bot_queue_depth 0.0" in text
    assert "memshelf_bot_queue_up 1.0" in text
    page = call(world.admin, "GET", "/").body.decode()
    assert "shelf/&lt;script&gt;" in page and "<script>" not in page and "succeeded" in page
    assert call(world.admin, "POST", "/metrics").status == 405


def test_healthz_is_503_when_the_queue_is_unreachable(world: World) -> None:
    world.app.healthy = lambda: False
    assert call(world.app, "GET", "/healthz").status == 503


def test_a_delivery_the_queue_cannot_take_is_503_and_its_redelivery_runs(world: World) -> None:
    def down(key: str, routed: str) -> None:
        raise ConnectionError("queue down")

    body = pull_payload()
    headers = delivery_headers("pull_request", body, guid="g-down")
    world.app.enqueue = down
    answer = call(world.app, "POST", "/webhook", body, headers)
    assert answer.status == 503 and answer.headers["Retry-After"].isdigit()
    assert world.backend.store.get(delivery_key("g-down", "1")) is None
    world.app.enqueue = world.enqueue
    assert call(world.app, "POST", "/webhook", body, headers).json() == {"status": "queued"}
    world.drain()
    assert world.state(delivery_key("g-down", "1")) is State.SUCCEEDED


class DownStore:
    """A store whose backend is unreachable: every call raises its own error type."""

    def __getattr__(self, name: str) -> object:
        def unreachable(*_: object, **__: object) -> object:
            raise ConnectionError("store down")
        return unreachable


def test_a_store_down_is_503_with_retry_after_and_metrics_still_answer(world: World) -> None:
    world.app.store = DownStore()  # type: ignore[assignment]
    world.admin.store = DownStore()  # type: ignore[assignment]
    body = pull_payload()
    answer = call(world.app, "POST", "/webhook", body, delivery_headers("pull_request", body))
    assert answer.status == 503 and answer.headers["Retry-After"].isdigit()
    text = call(world.admin, "GET", "/metrics")
    assert text.status == 200 and b"memshelf_bot_queue_up 0.0" in text.body
    assert b'memshelf_bot_deliveries_total{event="pull_request",outcome="unqueued"}' in text.body
    assert call(world.admin, "GET", "/").status == 503
    metrics._local.clear()


def test_the_redelivery_sweep_runs_once_per_cluster(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.app import redeliver

    swept: list[str] = []
    monkeypatch.setattr(redeliver, "redeliver_failed", lambda tokens, store: swept.append("swept"))
    for consumer in range(4):  # four consumers' schedulers each enqueue the periodic task
        monkeypatch.setattr(jobs, "worker_id", lambda n=consumer: f"consumer-{n}")
        jobs.sweep()
    assert swept == ["swept"]


class NoSlug(FakeTokens):
    def app_slug(self) -> str:
        raise TokenError("GET /app failed (HTTP 502)", 502)


def test_a_failure_outside_the_flow_on_the_last_attempt_fails_the_delivery(world: World) -> None:
    world.runtime.tokens = NoSlug()  # type: ignore[assignment]
    _, key = world.post("pull_request", pull_payload(), guid="g-last")
    (_, routed, task), = world.queue
    world.queue.clear()
    task.retries = 0  # huey has no retry left for it
    jobs.run_job(key, routed, task)  # type: ignore[arg-type]
    record = world.backend.store.get(key)
    assert record is not None and record.state is State.FAILED and "HTTP 502" in record.detail
    assert world.handler.ran == []


def test_header_values_are_capped_and_escaped_in_logs(world: World, caplog: pytest.LogCaptureFixture) -> None:
    guid = "\x1b[31m" + "d" * 10240
    with caplog.at_level(logging.INFO, logger="memshelf_bot.app"):
        assert world.post("pull_request", pull_payload(), guid=guid)[0] == 202
        world.drain()
    fields = [r.fields for r in caplog.records if hasattr(r, "fields")]  # type: ignore[attr-defined]
    delivered = [f["delivery"] for f in fields if "delivery" in f]
    assert len(delivered) >= 3 and all(len(d) <= 81 and "\x1b" not in d for d in delivered)
    assert all(d.startswith("1:\\x1b[31m") for d in delivered)
