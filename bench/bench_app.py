"""Benchmark the App's queue machinery (a script, not a timed test).

    python bench/bench_app.py [--deliveries 1000] [--concurrency 50] [--jobs 120] [--workers 1 2 4]
                              [--backends sqlite redis] [--episodes 200]

1. Webhook acknowledgement latency: the real WSGI app under waitress on loopback, backed by the
   real queue and store, `--concurrency` clients posting signed `pull_request` deliveries at once
   (every one claimed, enqueued and answered 202); p50 / p99 / max of the request round trip.
   The server runs in a process of its own, the clients in this one.
2. Jobs per minute with 1, 2 and 4 process workers (huey's consumer, forked, as `serve` runs
   them): `--jobs` deliveries enqueued, each job running the core's validation of a generated
   shelf of `--episodes` episodes (the CPU part of a pull-request check, without GitHub), timed
   from the consumer's start to the last finished record in the store.

Redis runs only when `redis-server` is on PATH (started on loopback on a free port, stopped after).
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from huey.consumer import Consumer  # noqa: E402
from waitress.server import create_server  # noqa: E402

from bot.app import jobs  # noqa: E402
from bot.app.jobs import Backend, open_backend  # noqa: E402
from bot.app.store import State  # noqa: E402
from bot.app.wsgi import WebhookApp, sign  # noqa: E402
from memshelf_render.validate import run as validate  # noqa: E402
from tests.app_redis import free_port  # noqa: E402
from tests.shelfgen import generate_shelf  # noqa: E402

SECRET = b"bench-secret"


class NoGitHub:
    """The tokens side of the runtime: the App's slug, no GitHub."""

    calls = 0
    rate_remaining = None

    def app_slug(self) -> str:
        return "memshelf-bench"


def payload(number: int, repo: str) -> bytes:
    return json.dumps({
        "action": "synchronize", "number": number,
        "pull_request": {"number": number, "head": {"sha": "b" * 40, "ref": "shelve/x"},
                         "base": {"sha": "c" * 40, "ref": "main"}},
        "repository": {"full_name": repo, "default_branch": "main"},
        "installation": {"id": 1}, "sender": {"login": "agent", "type": "User"},
    }).encode()


def post(url: str, body: bytes) -> float:
    headers = {"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4()), "X-GitHub-Hook-ID": "1",
               "X-Hub-Signature-256": sign(SECRET, body), "Content-Type": "application/json"}
    started = time.perf_counter()
    with urllib.request.urlopen(urllib.request.Request(url, body, headers, method="POST"), timeout=30) as r:
        r.read()
        assert r.status == 202, r.status
    return time.perf_counter() - started


def _serve(data_dir: Path, redis_url: str | None, threads: int, ports: Any) -> None:
    """The front door in its own process (as `serve` runs it), so the clients' threads do not
    share its interpreter; reports its port, then serves until terminated."""
    backend = open_backend(data_dir, redis_url)
    runtime = jobs.Runtime(backend, NoGitHub(), lambda key, route, login: "")  # type: ignore[arg-type]
    jobs.register(runtime)
    app = WebhookApp(SECRET, backend.store, runtime.enqueue, backend.healthy)
    server = create_server(app, host="127.0.0.1", port=0, threads=threads)
    ports.put(server.effective_port)
    server.run()


def ack_latency(data_dir: Path, redis_url: str | None, deliveries: int, concurrency: int) -> dict[str, float]:
    context = multiprocessing.get_context("fork")
    ports = context.Queue()
    server = context.Process(target=_serve, args=(data_dir, redis_url, 16, ports), daemon=True)
    server.start()
    url = f"http://127.0.0.1:{ports.get(timeout=60)}/webhook"
    try:
        with ThreadPoolExecutor(concurrency) as pool:
            times = sorted(pool.map(lambda i: post(url, payload(i + 1, f"bench/r{i % 10}")), range(deliveries)))
    finally:
        server.kill()  # not terminate: a handler in the server process may catch SIGTERM
        server.join(10)
    q = statistics.quantiles(times, n=100)
    return {"p50_ms": q[49] * 1000, "p99_ms": q[98] * 1000, "max_ms": times[-1] * 1000}


def throughput(backend: Backend, shelf: Path, count: int, workers: int) -> float:
    """Jobs per minute: `count` deliveries, each validating `shelf`, on `workers` processes."""
    def handler(key: str, route: Any, login: str) -> str:
        return f"{len(validate(shelf).findings)} finding(s)"

    runtime = jobs.Runtime(backend, NoGitHub(), handler)  # type: ignore[arg-type]
    jobs.register(runtime)
    jobs.install(runtime)
    app = WebhookApp(SECRET, backend.store, runtime.enqueue, backend.healthy)
    keys = []
    for i in range(count):
        body = payload(i + 1, f"bench/r{i % 10}")
        headers = {"HTTP_X_GITHUB_EVENT": "pull_request", "HTTP_X_GITHUB_DELIVERY": str(uuid.uuid4()),
                   "HTTP_X_GITHUB_HOOK_ID": "1", "HTTP_X_HUB_SIGNATURE_256": sign(SECRET, body)}
        environ: dict[str, Any] = {"REQUEST_METHOD": "POST", "PATH_INFO": "/webhook", "CONTENT_LENGTH": str(len(body)),
                                   "wsgi.input": io.BytesIO(body), **headers}
        app(environ, lambda *_: None)
        keys.append(f"1:{headers['HTTP_X_GITHUB_DELIVERY']}")
    consumer = Consumer(backend.huey, workers=workers, worker_type="process", periodic=False,
                        initial_delay=0.01, max_delay=0.2, check_worker_health=False)
    started = time.perf_counter()
    consumer.start()
    try:
        while True:
            records = [backend.store.get(k) for k in keys]
            if any(r is not None and r.state is State.FAILED for r in records):
                raise RuntimeError(next(r.detail for r in records if r and r.state is State.FAILED))
            if all(r is not None and r.state is State.SUCCEEDED for r in records):
                break
            if time.perf_counter() - started > 600:
                raise RuntimeError("the jobs did not finish in 10 minutes")
            time.sleep(0.05)
    finally:
        elapsed = time.perf_counter() - started
        consumer.stop(graceful=True)
    return count / elapsed * 60


def redis_server() -> tuple[subprocess.Popen[bytes], str] | None:
    binary = shutil.which("redis-server")
    if binary is None:
        return None
    port = free_port()
    proc = subprocess.Popen([binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no"],
                            stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    return proc, f"redis://127.0.0.1:{port}/0"


def fresh_backend(data_dir: Path, redis_url: str | None) -> Backend:
    """An empty queue and store: a new SQLite directory, or the Redis database flushed."""
    if redis_url is not None:
        import redis

        redis.Redis.from_url(redis_url).flushdb()
    return open_backend(data_dir, redis_url)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=50)
    parser.add_argument("--jobs", type=int, default=120)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--backends", nargs="+", default=["sqlite", "redis"], choices=["sqlite", "redis"])
    parser.add_argument("--episodes", type=int, default=200)
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="memshelf-bench-app-"))
    redis = redis_server() if "redis" in args.backends else None
    try:
        shelf = tmp / "shelf"
        generate_shelf(shelf, seed=3, episodes=args.episodes, archive=args.episodes // 20, derived=False)
        started = time.perf_counter()
        validate(shelf)
        print(f"one job (validate {args.episodes} episodes): {time.perf_counter() - started:.3f} s")
        rows = []
        for name in args.backends:
            if name == "redis" and redis is None:
                print("redis: skipped (no redis-server on PATH)")
                continue
            url = redis[1] if name == "redis" and redis is not None else None
            fresh_backend(tmp / f"{name}-ack", url)
            ack = ack_latency(tmp / f"{name}-ack", url, args.deliveries, args.concurrency)
            per_minute = {w: throughput(fresh_backend(tmp / f"{name}-{w}", url), shelf, args.jobs, w)
                          for w in args.workers}
            rows.append((name, ack, per_minute))
        print("\n| queue | ack p50 | ack p99 | ack max | " + " | ".join(f"jobs/min, {w} worker(s)" for w in args.workers) + " |")
        print("|---|---:|---:|---:|" + "---:|" * len(args.workers))
        for name, ack, per_minute in rows:
            print(f"| {name} | {ack['p50_ms']:.1f} ms | {ack['p99_ms']:.1f} ms | {ack['max_ms']:.1f} ms | "
                  + " | ".join(f"{per_minute[w]:.0f}" for w in args.workers) + " |")
    finally:
        if redis is not None:
            redis[0].terminate()
            redis[0].wait(10)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
