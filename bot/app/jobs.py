"""The jobs, on huey as huey means them: one task per delivery whose arguments carry the routed
event (the worker never parses or routes again), huey's retries (with our jitter) for transient
failures, and one periodic sweep per cluster that asks GitHub to redeliver what it failed to
deliver. What huey lacks — leases and render coalescing — is in `leases.py`.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import requests
from huey import Huey, RedisHuey, SqliteHuey, crontab
from huey.api import Task, TaskWrapper
from huey.exceptions import RetryTask

from memshelf_render.redact import mask

from ..router import Route
from . import metrics
from .auth import InstallationTokens, TokenError
from .leases import LEASE, Lease, Settled, coalesce, persist, worker_id
from .logs import cap, log
from .store import State, Store

NAME = "memshelf-bot"
RETRIES = 3  # huey's retries after the first attempt, for transient failures
RETRY_DELAY = 5.0  # seconds before the first retry; ×4 for each next one, jittered ±20 %
TRANSIENT_REASONS = frozenset({"rate-limited", "unavailable"})
SWEEP_MINUTES = 5
SWEEP_LOCK = "redelivery-sweep"
SLUG_KEY = "app-slug"


@dataclass
class Backend:
    """huey's queue and the store beside it, on the same SQLite directory or Redis."""

    huey: Huey
    store: Store

    def depth(self) -> int:
        return int(self.huey.pending_count())

    def healthy(self) -> bool:
        """Both the queue and the store answer."""
        try:
            self.huey.pending_count()
        except Exception:  # a backend down raises its own error type (sqlite3, redis)
            return False
        return self.store.ping()


def open_backend(data_dir: Path | None, redis_url: str | None) -> Backend:
    """huey on SQLite in `data_dir` (one machine) or on Redis (any number of machines)."""
    if redis_url:
        return Backend(RedisHuey(NAME, url=redis_url, results=False), Store.redis(redis_url))
    if data_dir is None:
        raise ValueError("a data directory or a Redis URL is required")
    data_dir.mkdir(parents=True, exist_ok=True)
    return Backend(SqliteHuey(NAME, filename=str(data_dir / "queue.db"), results=False),
                   Store.sqlite(data_dir / "state.db"))


# runs the routed flow for one delivery (key, route, the App's login); returns a short detail, raises on failure
Handler = Callable[[str, Route, str], str]


class FlowFailed(RuntimeError):
    """The flow ran and failed (a permanent outcome, not retried); its text is the detail."""


@dataclass
class Runtime:
    backend: Backend
    tokens: InstallationTokens
    handler: Handler
    run: TaskWrapper | None = None
    lease: float = LEASE

    def enqueue(self, key: str, routed: str) -> None:
        assert self.run is not None, "register the tasks first"
        self.run(key, routed)


_runtime: Runtime | None = None


def install(runtime: Runtime) -> None:
    """Make `runtime` the one the tasks use in this process (and its forked workers)."""
    global _runtime
    _runtime = runtime


def current() -> Runtime:
    if _runtime is None:
        raise RuntimeError("the App's job runtime is not installed in this process")
    return _runtime


def register(runtime: Runtime) -> None:
    """Declare the tasks on the runtime's huey (the same names in serve and worker)."""
    huey = runtime.backend.huey
    huey.periodic_task(crontab(minute=f"*/{SWEEP_MINUTES}"), name="memshelf_bot.sweep")(sweep)
    runtime.run = huey.task(retries=RETRIES, retry_delay=RETRY_DELAY, context=True, name="memshelf_bot.run_job")(
        run_job)


def sweep() -> None:
    """Ask GitHub to redeliver the App's failed deliveries: once per window for the whole cluster
    (every consumer's scheduler enqueues this task; the first to take the window's lock runs it)."""
    from .redeliver import redeliver_failed

    runtime = current()
    if runtime.backend.store.acquire(SWEEP_LOCK, worker_id(), SWEEP_MINUTES * 60 - 30):
        redeliver_failed(runtime.tokens, runtime.backend.store)


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, TokenError):
        return exc.status is None or exc.status >= 500 or exc.status == 429
    if isinstance(exc, requests.ConnectionError | requests.Timeout):
        return True
    return str(getattr(exc, "reason", "")) in TRANSIENT_REASONS


def describe(exc: BaseException) -> str:
    """What failed, for the status page and the log: masked once, for both (an exception's text
    may quote a token or a pushed value)."""
    if isinstance(exc, FlowFailed):
        return mask(str(exc)[:300])
    return mask(f"{type(exc).__name__}: {str(exc)[:300]}")


def bot_login(slug: str) -> str:
    return f"{slug}[bot]"


def app_login(store: Store, tokens: InstallationTokens) -> str:
    """The App's `<slug>[bot]`, learned from GET /app on the first job, kept for every process."""
    slug = store.get_value(SLUG_KEY)
    if slug is None:
        slug = tokens.app_slug()
        store.set_value(SLUG_KEY, slug)
    return bot_login(slug)


def _execute(runtime: Runtime, key: str, route: Route, lease: Lease, may_retry: bool) -> list[Settled]:
    """The outcomes this job settled (its own among them, unless a render in progress elsewhere
    will settle it)."""
    store = runtime.backend.store
    login = app_login(store, runtime.tokens)

    def failed(exc: Exception) -> str | None:
        return None if may_retry and is_transient(exc) else describe(exc)

    def flow() -> str:
        return runtime.handler(key, route, login)

    if route.sender.lower() == login.lower() and not route.renders_whoever_pushed:
        settled = Settled((key,), State.SUCCEEDED, "ignored: caused by the App itself")
    elif route.lock is not None:
        store.add_pending(route.lock, key)  # again: a redelivery or a rerun after a crash
        return coalesce(store, route.lock, lease, flow, failed)
    else:
        try:
            settled = Settled((key,), State.SUCCEEDED, flow())
        except Exception as exc:
            if (detail := failed(exc)) is None:
                raise
            settled = Settled((key,), State.FAILED, detail)
    persist(lambda: store.finish(settled.keys, settled.state, settled.detail, time.time()))
    return [settled]


def run_job(key: str, routed: str, task: Task | None = None) -> None:
    """The task: run one routed delivery (a no-op when it already ran or is running elsewhere)."""
    runtime = current()
    store = runtime.backend.store
    route = Route.from_json(routed)
    worker, started = worker_id(), time.time()
    if not store.start(key, worker, started + runtime.lease, json.dumps([key, routed]), started):
        log("job.skipped", delivery=cap(key))
        return
    retries_left = task.retries if task is not None else 0
    attempt = RETRIES - retries_left + 1
    log("job.started", delivery=cap(key), gh_event=route.event.name, flow=route.flow, attempt=attempt)
    calls_before = runtime.tokens.calls
    try:
        with Lease(store, key, runtime.lease) as lease:
            settled = _execute(runtime, key, route, lease, may_retry=retries_left > 0)
    except Exception as exc:  # transient (or the store): huey runs it again after the delay, while it may
        if task is None or task.retries <= 0:
            settled = [Settled((key,), State.FAILED, describe(exc))]
            persist(lambda: store.finish([key], State.FAILED, settled[0].detail, time.time()))
        else:
            delay = RETRY_DELAY * 4 ** (attempt - 1) * random.uniform(0.8, 1.2)
            detail = f"attempt {attempt} failed ({type(exc).__name__}); retrying"
            # the lease stays until just after the retry is due, so a retry lost with the queue runs anyway
            persist(lambda: store.park(key, State.QUEUED, detail, worker, hold=time.time() + delay + runtime.lease))
            log("job.retry", logging.WARNING, delivery=cap(key), attempt=attempt, delay=round(delay, 1),
                error=type(exc).__name__)
            task.retries -= 1  # huey's RetryTask gives the retry back; this attempt used one
            raise RetryTask(delay=delay) from None
    own = next((s for s in settled if key in s.keys), None)
    persist(lambda: store.park(key, State.COALESCED, "folded into the render in progress", worker))
    finished = time.time()
    outcome = own.state.value if own is not None else State.COALESCED.value
    metrics.observe_job(store, str(route.flow), route.event.name, outcome, finished - started)
    metrics.count_api_calls(store, route.installation_id or 0, runtime.tokens.calls - calls_before,
                            runtime.tokens.rate_remaining)
    for s in settled:
        log("job.finished", delivery=cap(key), settled=len(s.keys), outcome=s.state, detail=s.detail[:200],
            seconds=round(finished - started, 3))
    if own is None:
        log("job.coalesced", delivery=cap(key), lock=cap(route.lock or ""))


def requeue(runtime: Runtime) -> list[str]:
    """Put the task of every lapsed lease back on the queue; the keys requeued."""
    keys = []
    for key, task in runtime.backend.store.lapsed(time.time()):
        runtime.enqueue(*json.loads(task))
        log("job.requeued", logging.WARNING, delivery=cap(key))
        keys.append(key)
    return keys
