"""Redis lost, with a real Redis stopped and started again: deliveries meanwhile are refused with
503 and Retry-After (never a 500), /healthz says 503 and /metrics still answers with
`memshelf_bot_queue_up 0`; a job whose store went away mid-job records its outcome once the store
is back, does not run a second time and makes one check run (in-process, and on real processes
against the sandbox); workers wait out the outage with one log line."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from github import Auth, GithubIntegration

from bot.app import jobs
from bot.app.jobs import open_backend
from bot.app.leases import LEASE_SECONDS
from bot.app.process import QuietQueue, requeueing
from bot.app.store import State, Store, delivery_key
from bot.app.wsgi import WebhookApp
from memshelf_sandbox import Sandbox
from memshelf_sandbox.app import App
from tests.app_helpers import SECRET, call, delivery_headers, pull_payload, rsa_pem, write_key
from tests.app_procs import app_env, get, start
from tests.app_redis import Outage, outage  # noqa: F401  (the fixture)
from tests.app_shelves import land, main_is_rendered, seed_repos, wait_handled
from tests.app_shelves import push_payload as main_push


class FakeTokens:
    calls = 0
    rate_remaining = None

    def app_slug(self) -> str:
        return "memshelf-test"


class FakeTask:
    retries = jobs.RETRIES


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers)


def test_deliveries_while_redis_is_down_are_503_with_retry_after_and_metrics_say_so(
        outage: Outage, tmp_path: Path) -> None:  # noqa: F811
    serve = start(["serve", "--port", "0", "--workers", "0", "--redis", outage.url,
                   "--github-url", "http://127.0.0.1:9/"], app_env(write_key(tmp_path)), tmp_path)
    try:
        body = pull_payload()
        assert post(serve.url + "/webhook", body, delivery_headers("pull_request", body))[0] == 202
        outage.stop()
        refused = delivery_headers("pull_request", body)
        status, headers = post(serve.url + "/webhook", body, refused)
        assert status == 503 and headers["Retry-After"].isdigit()
        assert get(serve.url + "/healthz")[0] == 503
        status, metrics = get(serve.admin + "/metrics")
        assert status == 200 and b"memshelf_bot_queue_up 0.0" in metrics
        assert b'memshelf_bot_deliveries_total{event="pull_request",outcome="unqueued"} 1.0' in metrics
        outage.start()
        assert post(serve.url + "/webhook", body, refused)[0] == 202  # the redelivery the sweep asks for
        assert get(serve.url + "/healthz")[0] == 200
        assert b"memshelf_bot_queue_up 1.0" in get(serve.admin + "/metrics")[1]
    finally:
        assert serve.stop() == 0, "\n".join(serve.lines[-20:])
    assert not any(line.get("level") == "error" and line.get("logger") == "waitress" for line in serve.log_objects())


def test_a_job_that_loses_redis_mid_job_records_its_outcome_when_it_returns_and_runs_once(
        outage: Outage) -> None:  # noqa: F811
    backend = open_backend(None, outage.url)
    ran: list[str] = []
    restarts: list[threading.Timer] = []

    def handler(key: str, route: object, login: str) -> str:
        ran.append(key)
        outage.stop()  # the job's GitHub work is done; Redis goes away before its outcome is written
        restarts.append(threading.Timer(3.0, outage.start))
        restarts[0].start()
        return "checked"

    runtime = jobs.Runtime(backend, FakeTokens(), handler, lease=6.0)  # type: ignore[arg-type]
    queue: list[tuple[str, str]] = []
    runtime.enqueue = lambda key, routed: queue.append((key, routed))  # type: ignore[method-assign]
    jobs.install(runtime)
    app = WebhookApp(SECRET, backend.store, runtime.enqueue, backend.healthy)
    body = pull_payload()
    headers = delivery_headers("pull_request", body)
    assert call(app, "POST", "/webhook", body, headers).json() == {"status": "queued"}
    key = delivery_key(headers["X-GitHub-Delivery"], "1")
    (queued, routed), = queue
    with requeueing(runtime):
        jobs.run_job(queued, routed, FakeTask())  # type: ignore[arg-type]
        time.sleep(runtime.lease)  # the lease sweep's rounds after the outage find nothing lapsed
    restarts[0].join()
    record = backend.store.get(key)
    assert record is not None and (record.state, record.runs, record.detail) == (State.SUCCEEDED, 1, "checked")
    assert ran == [key] and len(queue) == 1  # never requeued, never run again


def test_workers_wait_out_an_outage_with_one_log_line(outage: Outage, caplog: pytest.LogCaptureFixture) -> None:  # noqa: F811
    backend = open_backend(None, outage.url)
    waits: list[float] = []
    QuietQueue(backend.huey, stop=lambda seconds: bool(waits.append(seconds)))
    outage.stop()
    with caplog.at_level(logging.INFO, logger="memshelf_bot.app"):
        for _ in range(8):
            assert backend.huey.dequeue() is None
        outage.start()
        assert backend.huey.dequeue() is None  # back, and empty
    events = [json.loads(json.dumps(r.fields))["event"] for r in caplog.records if hasattr(r, "fields")]  # type: ignore[attr-defined]
    assert events == ["queue.unreachable", "queue.reachable"]
    assert waits == sorted(waits) and waits[-1] <= 10.0  # backed off, bounded


@pytest.mark.e2e
def test_redis_stopped_mid_render_gives_one_check_run_and_the_outcome_once_it_returns(
        outage: Outage, tmp_path: Path) -> None:  # noqa: F811
    pem = rsa_pem()
    key_file = tmp_path / "app.pem"
    key_file.write_text(pem, encoding="ascii")
    [(bare, name)] = seed_repos(tmp_path, ["homelab/shelf"])
    app = App.from_private_key(4949, pem.encode(), slug="shelf-app")
    with Sandbox.start(bare, name, app=app) as sb:
        installation = GithubIntegration(auth=Auth.AppAuth(4949, pem), base_url=sb.api_url,
                                         retry=None).get_repo_installation("homelab", "shelf").id
        env = app_env(key_file, 4949, MEMSHELF_BOT_WRITE_SPACING="0")
        env[LEASE_SECONDS] = "30"  # longer than the outage: the job's own outcome write must win
        serve = start(["serve", "--port", "0", "--workers", "1", "--redis", outage.url, "--github-url", sb.api_url],
                      env, tmp_path)
        held = sb.faults.delay("POST", r".*/repos/homelab/shelf/git/commits", 60.0)
        try:
            after = land(sb, name, "2026-10-13-outage")
            body = main_push(sb, name, after, installation)
            headers = delivery_headers("push", body)
            assert post(serve.url + "/webhook", body, headers)[0] == 202
            assert held.reached.wait(60), "the render never reached its commit"
            outage.stop()  # mid-job: the render's GitHub work goes on without Redis
            held.release()
            deadline = time.monotonic() + 60
            while not [c for c in sb.calls_to("POST", "/check-runs") if c.status == 201]:
                assert time.monotonic() < deadline, "the render's check run was never written"
                time.sleep(0.1)
            time.sleep(1.0)  # the job now retries its outcome write
            outage.start()
            store = Store.redis(outage.url)
            key = delivery_key(headers["X-GitHub-Delivery"], "1")
            wait_handled(store, {key}, timeout=90)
            record = store.get(key)
            assert record is not None and (record.state, record.runs) == (State.SUCCEEDED, 1), record
        finally:
            held.release()
            outage.start()
            assert serve.stop() == 0, "\n".join(serve.lines[-20:])
        created = [c for c in sb.calls_to("POST", "/check-runs") if c.status == 201]
        assert len(created) == 1, "a second check run"
        assert main_is_rendered(bare, ["2026-10-13-outage"]) == []
        assert sb.validation_errors == []
    events = [line.get("event") for line in serve.log_objects()]
    assert events.count("store.unreachable") == 1 and "store.reachable" in events
