"""The App scaled out and crashed, with real processes: 2 `serve` + 3 `worker` on a real Redis,
300 deliveries over 10 repositories (duplicates, redeliveries, bad signatures) → every valid
delivery handled exactly once, every bad one 401, each main = render(all its episodes), no
duplicate render commit; and a worker killed with SIGKILL mid-job → the job runs again after
restart and main is still right."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from github import Auth, GithubIntegration

from bot.app.store import State, Store, delivery_key
from memshelf_sandbox import Sandbox
from memshelf_sandbox.app import App
from tests.app_helpers import delivery_headers, rsa_pem
from tests.app_procs import Proc, app_env, post, start
from tests.app_redis import flush, redis_url  # noqa: F401  (the fixture)
from tests.app_shelves import land, main_is_rendered, push_payload, render_commits, seed_repos, wait_handled

APP_ID, SLUG = 4646, "shelf-app"


@dataclass
class Stage:
    sb: Sandbox
    repos: list[tuple[Path, str]]
    installation: int
    env: dict[str, str]


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    pem = rsa_pem()
    key = tmp_path / "app.pem"
    key.write_text(pem, encoding="ascii")
    names = [f"homelab/shelf{i}" for i in range(10)]
    repos = seed_repos(tmp_path, names)
    app = App.from_private_key(APP_ID, pem.encode(), slug=SLUG)
    with Sandbox.start(repos[0][0], repos[0][1], app=app, more=repos[1:]) as sb:
        gi = GithubIntegration(auth=Auth.AppAuth(APP_ID, pem), base_url=sb.api_url, retry=None)
        installation = gi.get_repo_installation("homelab", "shelf0").id
        yield Stage(sb, repos, installation, app_env(key, APP_ID, MEMSHELF_BOT_WRITE_SPACING="0"))


def test_two_servers_three_workers_on_redis(stage: Stage, redis_url: str, tmp_path: Path) -> None:  # noqa: F811
    flush(redis_url)
    common = ["--redis", redis_url, "--github-url", stage.sb.api_url]
    procs: list[Proc] = []
    try:
        commands = [["serve", "--port", "0", "--workers", "0", *common]] * 2 + [["worker", "--workers", "1", *common]] * 3
        with ThreadPoolExecutor(5) as starting:  # the five start at once, as replicas would
            procs += list(starting.map(lambda command: start(command, stage.env, tmp_path), commands))
        serves = procs[:2]
        rng = random.Random(10)
        sent: list[tuple[str, bytes, dict[str, str]]] = []  # (serve url, body, headers) of valid deliveries
        stems: dict[str, list[str]] = {name: [] for _, name in stage.repos}
        statuses: dict[str, list[int]] = {"valid": [], "duplicate": [], "bad": []}
        with ThreadPoolExecutor(16) as pool:
            for round_no in range(3):
                batch = []
                for _, name in stage.repos:
                    stem = f"2026-10-0{round_no + 1}-{name.split('/')[1]}"
                    stems[name].append(stem)
                    after = land(stage.sb, name, stem)
                    body = push_payload(stage.sb, name, after, stage.installation)
                    for _ in range(7):
                        batch.append((rng.choice(serves).url, body, delivery_headers("push", body)))
                sent += batch
                answers = pool.map(lambda d: post(d[0] + "/webhook", d[1], d[2])[0], batch)
                statuses["valid"] += list(answers)
                duplicates = rng.sample(batch, 13 if round_no < 2 else 14)
                statuses["duplicate"] += list(pool.map(
                    lambda d: post(serves[(serves.index(next(s for s in serves if s.url == d[0])) + 1) % 2].url
                                   + "/webhook", d[1], d[2])[0], duplicates))
                bad = [(rng.choice(serves).url, body, delivery_headers("push", body, secret=b"forged"))
                       for body in rng.sample([d[1] for d in batch], 10)]
                statuses["bad"] += list(pool.map(lambda d: post(d[0] + "/webhook", d[1], d[2])[0], bad))
        store = Store.redis(redis_url)
        keys = {delivery_key(h["X-GitHub-Delivery"], h["X-GitHub-Hook-ID"]) for _, _, h in sent}
        wait_handled(store, keys)
        redelivered = rng.sample(sent, 20)  # GitHub's redelivery of a delivery that succeeded: nothing runs
        statuses["duplicate"] += [post(url + "/webhook", body, headers)[0] for url, body, headers in redelivered]
        total = len(sent) + len(statuses["duplicate"]) + len(statuses["bad"])
        assert total == 300 and len(keys) == 210
        assert set(statuses["valid"]) == {202} and set(statuses["duplicate"]) == {202}
        assert statuses["bad"] == [401] * 30
        records = {k: store.get(k) for k in keys}
        assert {r.state for r in records.values() if r} == {State.SUCCEEDED}, \
            {k: r.detail for k, r in records.items() if r and r.state is not State.SUCCEEDED}
        # a push settled by a render already running never starts a job of its own (runs 0)
        assert all(r is not None and r.runs <= 1 for r in records.values()), "a delivery ran twice"
    finally:
        for proc in reversed(procs):
            code = proc.stop()
            assert code == 0, "\n".join(proc.lines[-20:])
    for bare, name in stage.repos:
        assert main_is_rendered(bare, stems[name]) == [], name
        renders = render_commits(bare)
        assert renders, name
        assert all(tree != parent_tree for _, tree, parent_tree in renders), f"{name}: an empty render commit"
    assert stage.sb.validation_errors == []


def test_a_worker_killed_mid_job_runs_it_again_after_restart(stage: Stage, tmp_path: Path) -> None:
    data = tmp_path / "data"
    common = ["--data-dir", str(data), "--github-url", stage.sb.api_url]
    serve = start(["serve", "--port", "0", "--workers", "0", *common], stage.env, tmp_path)
    worker = start(["worker", "--workers", "1", *common], stage.env, tmp_path)
    restarted: Proc | None = None
    try:
        bare, name = stage.repos[0]
        after = land(stage.sb, name, "2026-10-09-crash")
        body = push_payload(stage.sb, name, after, stage.installation)
        headers = delivery_headers("push", body, guid=str(uuid.uuid4()))
        assert post(serve.url + "/webhook", body, headers)[0] == 202
        store = Store.sqlite(data / "state.db")
        key = delivery_key(headers["X-GitHub-Delivery"], "1")
        deadline = time.monotonic() + 60
        while (record := store.get(key)) is None or record.state is not State.RUNNING:
            assert time.monotonic() < deadline, "the job never started"
            assert record is None or record.state is not State.SUCCEEDED, "the job finished before the kill"
            time.sleep(0.01)
        worker.kill()  # SIGKILL to the worker's whole process group, mid-job
        assert store.get(key).state is State.RUNNING
        restarted = start(["worker", "--workers", "1", *common], stage.env, tmp_path)
        wait_handled(store, {key}, timeout=90)
        record = store.get(key)
        assert record is not None and (record.state, record.runs) == (State.SUCCEEDED, 2), record
    finally:
        for proc in (restarted, serve):
            if proc is not None:
                assert proc.stop() == 0, "\n".join(proc.lines[-20:])
    assert main_is_rendered(bare, ["2026-10-09-crash"]) == []
    renders = render_commits(bare)
    assert len(renders) == 1 and renders[0][1] != renders[0][2]
