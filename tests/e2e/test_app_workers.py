"""huey's process workers as serve and worker run them: a job may fork helpers of its own (the
core checks a big shelf on every core, which a daemonic process could not), and a graceful stop
lets a running job finish."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from bot.app import jobs
from bot.app.jobs import open_backend
from bot.app.process import start_consumer, stop_consumer
from bot.app.store import Record, State
from bot.events import Event
from bot.router import route
from memshelf_render import parallel
from tests.app_helpers import pull_payload


class NoGitHub:
    calls = 0
    rate_remaining = None

    def app_slug(self) -> str:
        return "memshelf-test"


def _squares(_state: object, share: list[int]) -> list[int]:
    return [n * n for n in share]


def forking_flow(key: str, route: object, login: str) -> str:
    """The core's own executor, as a big shelf's check runs it: two forked workers."""
    return f"pool says {sum(parallel.map_items(_squares, list(range(4)), state=None, jobs=2))}"


def run_forking_job(data_dir: Path) -> None:
    """One job through a one-process consumer, as `serve` runs it (in a fresh interpreter: a fork
    from the test runner's process, with whatever threads earlier tests left, proves nothing)."""
    backend = open_backend(data_dir, None)
    runtime = jobs.Runtime(backend, NoGitHub(), forking_flow)  # type: ignore[arg-type]
    jobs.register(runtime)
    jobs.install(runtime)
    key = "1:fork"
    assert backend.store.claim(Record(key, "pull_request", "opened", "shelf/one", State.RECEIVED, time.time()))
    routed = route(Event.from_payload("pull_request", json.loads(pull_payload())))
    assert routed is not None
    runtime.enqueue(key, routed.to_json())
    consumer = start_consumer(runtime, 1)
    try:
        deadline = time.monotonic() + 60
        while (record := backend.store.get(key)) is None or record.state not in (
                State.SUCCEEDED, State.FAILED):
            assert time.monotonic() < deadline, "the job did not finish"
            time.sleep(0.05)
    finally:
        stop_consumer(consumer)
    assert (record.state, record.detail) == (State.SUCCEEDED, "pool says 14"), record.detail


def test_a_job_forks_its_own_helpers_in_a_process_worker(tmp_path: Path) -> None:
    code = f"from pathlib import Path; from tests.e2e.test_app_workers import run_forking_job; " \
           f"run_forking_job(Path({str(tmp_path / 'data')!r}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2], check=False)
    assert done.returncode == 0, done.stderr[-3000:]
