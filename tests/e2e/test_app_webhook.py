"""The webhook front door in-process: signature, size cap, ping, ignored events, de-duplication
and the state of each delivery through its job (received → queued → running → succeeded|failed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.app import jobs
from bot.app.auth import TokenError
from bot.app.identity import SLUG_KEY
from bot.app.queue import open_backend
from bot.app.signature import sign, verify
from bot.app.store import DeliveryState, delivery_key
from bot.app.wsgi import MAX_BODY, WebhookApp
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


class World:
    def __init__(self, tmp: Path, redis: str | None) -> None:
        self.backend = open_backend(tmp / "data", redis)
        self.queue: list[str] = []
        self.handler = Recorder()
        self.runtime = jobs.Runtime(self.backend, FakeTokens(), self.handler)  # type: ignore[arg-type]
        self.runtime.run = self  # type: ignore[assignment]
        self.scheduled: list[tuple[str, float]] = []
        jobs.install(self.runtime)
        self.app = WebhookApp(SECRET, self.backend.store, self.queue.append, lambda: len(self.queue),
                              self.backend.healthy)

    # the runtime's task: enqueue and schedule
    def __call__(self, key: str) -> None:
        self.queue.append(key)

    def schedule(self, args: tuple[str], delay: float) -> None:
        self.scheduled.append((args[0], delay))

    def post(self, event: str, body: bytes, **kw: str) -> tuple[int, str]:
        headers = delivery_headers(event, body, **kw)
        response = call(self.app, "POST", "/webhook", body, headers)
        return response.status, delivery_key(headers["X-GitHub-Delivery"], headers["X-GitHub-Hook-ID"])

    def drain(self) -> None:
        while self.queue:
            jobs.run_delivery(self.queue.pop(0))

    def state(self, key: str) -> DeliveryState:
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
    assert world.state(key) is DeliveryState.QUEUED
    again = call(world.app, "POST", "/webhook", body, headers)  # a duplicate while queued
    assert again.json() == {"status": "duplicate"}
    world.drain()
    assert world.state(key) is DeliveryState.SUCCEEDED and world.handler.ran == [key]
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
    assert record is not None and record.state is DeliveryState.FAILED
    assert record.detail.startswith("ValueError")
    assert world.post("pull_request", body, guid="g-fail")[0] == 202
    world.drain()
    assert world.state(key) is DeliveryState.SUCCEEDED and world.handler.ran == [key, key]


def test_a_lost_delivery_runs_again_and_a_live_one_does_not(world: World) -> None:
    store = world.backend.store
    body = pull_payload()
    _, key = world.post("pull_request", body, guid="g-lost")
    world.queue.clear()
    assert store.start(key, "elsewhere:1", lease_until=1e12, now=1.0)  # a live worker on another host
    assert world.post("pull_request", body, guid="g-lost")[0] == 202 and world.queue == []
    assert jobs.recover(world.runtime) == []
    store.renew(key, "elsewhere:1", lease_until=0.0)  # its lease ran out: the worker is gone
    assert jobs.recover(world.runtime) == [key] and world.queue == [key]
    world.drain()
    assert world.state(key) is DeliveryState.SUCCEEDED


def test_transient_failures_retry_with_backoff_then_fail(world: World) -> None:
    world.handler.fail.extend([TokenError("GitHub is down", 502)] * 4)
    _, key = world.post("pull_request", pull_payload(), guid="g-retry")
    for attempt in range(jobs.MAX_ATTEMPTS - 1):
        world.drain()
        assert world.state(key) is DeliveryState.QUEUED
        (scheduled, delay), = world.scheduled
        assert scheduled == key and delay >= jobs.BACKOFF[attempt] * 0.8
        world.scheduled.clear()
        world.queue.append(key)
    world.drain()
    assert world.state(key) is DeliveryState.FAILED and world.scheduled == []
    assert len(world.handler.ran) == jobs.MAX_ATTEMPTS


def test_the_apps_own_events_are_ignored_and_other_bots_are_users(world: World) -> None:
    world.backend.store.set_value(SLUG_KEY, "memshelf-test")
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
    assert len(world.handler.ran) == 1  # the five marks were one
    assert all(world.state(k) is DeliveryState.SUCCEEDED for k in keys)
    # a job that finds the lock held leaves its mark for the holder, who renders again
    lock = "render:shelf/one:main"
    assert store.acquire(lock, "holder:1", 60)
    world.post("push", push_payload())
    world.drain()
    assert len(world.handler.ran) == 1 and store.has_mark(lock)
    store.release(lock, "holder:1")
    world.post("push", push_payload())
    world.drain()
    assert len(world.handler.ran) == 2 and not store.has_mark(lock)


def test_healthz_metrics_and_the_status_page(world: World) -> None:
    assert call(world.app, "GET", "/healthz").status == 200
    world.post("pull_request", pull_payload(repo="shelf/<script>"))
    world.post("push", push_payload(), secret=b"forged")
    world.drain()
    text = call(world.app, "GET", "/metrics").body.decode()
    assert 'memshelf_bot_deliveries_total{event="pull_request",outcome="queued"} 1.0' in text
    assert 'memshelf_bot_deliveries_total{event="push",outcome="unauthorized"} 1.0' in text
    assert 'memshelf_bot_jobs_total{flow="pull_request",outcome="succeeded"} 1.0' in text
    assert "memshelf_bot_job_duration_seconds_count" in text and "memshelf_bot_queue_depth 0.0" in text
    page = call(world.app, "GET", "/").body.decode()
    assert "shelf/&lt;script&gt;" in page and "<script>" not in page and "succeeded" in page


def test_healthz_is_503_when_the_queue_is_unreachable(world: World) -> None:
    world.app.healthy = lambda: False
    assert call(world.app, "GET", "/healthz").status == 503


def test_a_delivery_the_queue_cannot_take_is_503_and_its_redelivery_runs(world: World) -> None:
    def down(key: str) -> None:
        raise ConnectionError("queue down")

    body = pull_payload()
    headers = delivery_headers("pull_request", body, guid="g-down")
    world.app.enqueue = down
    assert call(world.app, "POST", "/webhook", body, headers).status == 503
    assert world.backend.store.get(delivery_key("g-down", "1")) is None
    world.app.enqueue = world.queue.append
    assert call(world.app, "POST", "/webhook", body, headers).json() == {"status": "queued"}
    world.drain()
    assert world.state(delivery_key("g-down", "1")) is DeliveryState.SUCCEEDED
