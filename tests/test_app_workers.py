"""huey's process workers as serve and worker run them: a job may fork helpers of its own (the
core checks a big shelf on every core, which a daemonic process could not), and a graceful stop
lets a running job finish."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path

from bot.app import jobs
from bot.app.process import start_consumer, stop_consumer
from bot.app.queue import open_backend
from bot.app.store import DeliveryState, NewDelivery
from tests.app_helpers import pull_payload


class NoGitHub:
    calls = 0
    rate_remaining = None

    def app_slug(self) -> str:
        return "memshelf-test"


def _square(n: int) -> int:
    return n * n


def forking_flow(job: jobs.Job) -> str:
    with multiprocessing.get_context("fork").Pool(2) as pool:
        return f"pool says {sum(pool.map(_square, range(4)))}"


def test_a_job_forks_its_own_helpers_in_a_process_worker(tmp_path: Path) -> None:
    backend = open_backend(tmp_path / "data", None)
    runtime = jobs.Runtime(backend, NoGitHub(), forking_flow)  # type: ignore[arg-type]
    runtime.run = jobs.register(backend.huey)
    jobs.install(runtime)
    key = "1:fork"
    assert backend.store.claim(NewDelivery(key, "pull_request", "opened", "shelf/one", pull_payload()), time.time())
    runtime.run(key)
    consumer = start_consumer(runtime, 1)
    try:
        deadline = time.monotonic() + 60
        while (record := backend.store.get(key)) is None or record.state not in (
                DeliveryState.SUCCEEDED, DeliveryState.FAILED):
            assert time.monotonic() < deadline, "the job did not finish"
            time.sleep(0.05)
    finally:
        stop_consumer(consumer)
    assert (record.state, record.detail) == (DeliveryState.SUCCEEDED, "pool says 14"), record.detail
