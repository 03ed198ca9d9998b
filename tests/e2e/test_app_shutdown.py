"""SIGTERM and SIGKILL with a job running, on real processes against the sandbox (which holds the
job's commit request, so the job is surely mid-run): within the grace period the job finishes, its
render lands on main, and the process exits 0; a job longer than the grace is interrupted, left
recorded as running, and runs again at the next start; a worker killed outright takes its job
processes with it, and its job runs again exactly once."""

from __future__ import annotations

import os
import signal
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from github import Auth, GithubIntegration

from bot.app.store import State, Store, delivery_key
from memshelf_sandbox import Sandbox
from memshelf_sandbox.app import App
from memshelf_sandbox.faults import Delay
from tests.app_helpers import delivery_headers, rsa_pem
from tests.app_procs import Proc, app_env, post, start
from tests.app_shelves import land, main_is_rendered, push_payload, render_commits, seed_repos, wait_handled

APP_ID, SLUG = 4848, "shelf-app"
COMMITS = r".*/repos/homelab/shelf/git/commits"  # the render's commit request


@dataclass
class Stage:
    sb: Sandbox
    bare: Path
    installation: int
    env: dict[str, str]
    data: Path

    def common(self) -> list[str]:
        return ["--data-dir", str(self.data), "--github-url", self.sb.api_url]

    def deliver_a_merge(self, url: str, stem: str) -> str:
        """An episode lands on main and its push is delivered to `url`: the delivery's key."""
        after = land(self.sb, "homelab/shelf", stem)
        body = push_payload(self.sb, "homelab/shelf", after, self.installation)
        headers = delivery_headers("push", body, guid=str(uuid.uuid4()))
        assert post(url + "/webhook", body, headers)[0] == 202
        return delivery_key(headers["X-GitHub-Delivery"], "1")


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    pem = rsa_pem()
    key = tmp_path / "app.pem"
    key.write_text(pem, encoding="ascii")
    [(bare, name)] = seed_repos(tmp_path, ["homelab/shelf"])
    app = App.from_private_key(APP_ID, pem.encode(), slug=SLUG)
    with Sandbox.start(bare, name, app=app) as sb:
        gi = GithubIntegration(auth=Auth.AppAuth(APP_ID, pem), base_url=sb.api_url, retry=None)
        installation = gi.get_repo_installation("homelab", "shelf").id
        yield Stage(sb, bare, installation, app_env(key, APP_ID, MEMSHELF_BOT_WRITE_SPACING="0"), tmp_path / "data")
        assert sb.validation_errors == []


def held_mid_job(held: Delay) -> None:
    assert held.reached.wait(60), "the job never reached its commit request"


def sigterm(proc: Proc, timeout: float = 60.0) -> int:
    proc.popen.send_signal(signal.SIGTERM)
    return proc.popen.wait(timeout)


def logged(proc: Proc, event: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not any(line.get("event") == event for line in proc.log_objects()):
        assert time.monotonic() < deadline, f"no {event} in the log: " + "\n".join(proc.lines[-20:])
        time.sleep(0.05)


def test_serve_lets_a_running_job_finish_within_the_grace_then_exits_0(stage: Stage) -> None:
    serve = start(["serve", "--port", "0", "--workers", "1", *stage.common()], stage.env, stage.data.parent)
    held = stage.sb.faults.delay("POST", COMMITS, 60.0)  # until the process is told to stop
    try:
        key = stage.deliver_a_merge(serve.url, "2026-10-10-grace")
        held_mid_job(held)
        serve.popen.send_signal(signal.SIGTERM)
        logged(serve, "stopping")
        held.release()  # the job goes on after the signal, well within the grace
        assert serve.popen.wait(60) == 0, "\n".join(serve.lines[-20:])
    finally:
        held.release()
        serve.kill()
    record = Store.sqlite(stage.data / "state.db").get(key)
    assert record is not None and (record.state, record.runs) == (State.SUCCEEDED, 1), record
    events = [line.get("event") for line in serve.log_objects()]
    assert events.index("stopping") < events.index("job.finished") < events.index("stopped")
    assert main_is_rendered(stage.bare, ["2026-10-10-grace"]) == []
    assert len(render_commits(stage.bare)) == 1


def test_a_job_longer_than_the_grace_is_left_unfinished_and_runs_again_at_the_next_start(stage: Stage) -> None:
    serve = start(["serve", "--port", "0", "--workers", "0", *stage.common()], stage.env, stage.data.parent)
    worker = start(["worker", "--workers", "1", "--grace", "1", *stage.common()], stage.env, stage.data.parent)
    held = stage.sb.faults.delay("POST", COMMITS, 120.0)  # far past the grace; released at the end
    restarted: Proc | None = None
    store = Store.sqlite(stage.data / "state.db")
    try:
        key = stage.deliver_a_merge(serve.url, "2026-10-11-late")
        held_mid_job(held)
        assert sigterm(worker) == 0, "\n".join(worker.lines[-20:])
        record = store.get(key)
        assert record is not None and record.state is State.RUNNING, record  # recorded unfinished
        assert render_commits(stage.bare) == []
        restarted = start(["worker", "--workers", "1", *stage.common()], stage.env, stage.data.parent)
        _ran_once_more(store, key)
    finally:
        _stop(held, worker, restarted, serve)
    assert any(line.get("event") == "job.requeued" for line in restarted.log_objects())
    assert main_is_rendered(stage.bare, ["2026-10-11-late"]) == []
    assert len(render_commits(stage.bare)) == 1


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        found += [int(c) for c in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state not in ("Z", "X")


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="reads the process tree from /proc")
def test_a_worker_killed_by_sigkill_takes_its_job_processes_along_and_the_job_runs_once_more(stage: Stage) -> None:
    serve = start(["serve", "--port", "0", "--workers", "0", *stage.common()], stage.env, stage.data.parent)
    worker = start(["worker", "--workers", "1", *stage.common()], stage.env, stage.data.parent)
    held = stage.sb.faults.delay("POST", COMMITS, 120.0)
    restarted: Proc | None = None
    store = Store.sqlite(stage.data / "state.db")
    try:
        key = stage.deliver_a_merge(serve.url, "2026-10-12-killed")
        held_mid_job(held)
        jobs = children(worker.popen.pid)
        assert jobs and all(alive(pid) for pid in jobs)
        os.kill(worker.popen.pid, signal.SIGKILL)  # the worker's main process alone, not its group
        worker.popen.wait(30)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in jobs):
            assert time.monotonic() < deadline, "a job process outlived its worker"
            time.sleep(0.05)
        held.release()  # the dead job's request may go on; nothing waits for its answer
        record = store.get(key)
        assert record is not None and record.state is State.RUNNING, record
        restarted = start(["worker", "--workers", "1", *stage.common()], stage.env, stage.data.parent)
        _ran_once_more(store, key)
    finally:
        _stop(held, worker, restarted, serve)
    assert main_is_rendered(stage.bare, ["2026-10-12-killed"]) == []
    assert len(render_commits(stage.bare)) == 1


def _ran_once_more(store, key: str) -> None:
    """The restarted worker took the unfinished job and ran it to success, a second run."""
    wait_handled(store, {key}, timeout=90)
    record = store.get(key)
    assert record is not None and (record.state, record.runs) == (State.SUCCEEDED, 2), record


def _stop(held, worker, *procs) -> None:
    """Let the held request go, stop the App's processes cleanly, then the killed/stopped worker."""
    held.release()
    for proc in procs:
        if proc is not None:
            assert proc.stop() == 0, "\n".join(proc.lines[-20:])
    worker.kill()
