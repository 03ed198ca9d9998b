"""The jobs: one per delivery, on huey, recorded in the store from start to finish.

huey does not promise at-least-once delivery (a worker killed mid-job loses its message), so a
job's start and finish are recorded with a lease its worker renews; `recover` puts every job
whose worker died or whose lease ran out back on the queue. Transient failures (5xx, rate
limits, a dropped connection) are retried a bounded number of times with backoff. Renders of
one repository+branch are serialized by a lock and coalesced by a dirty mark: the lock holder
renders again while the mark is set, so a burst of merges gives one or two renders, never a lost one.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import requests
from huey import Huey, crontab
from huey.api import TaskWrapper

from memshelf_render.redact import mask

from . import metrics
from .auth import InstallationTokens, TokenError
from .identity import app_login, caused_by_app
from .logs import log
from .queue import Backend
from .redeliver import redeliver_failed
from .routing import Route, route
from .store import DeliveryState, Store, worker_id

LEASE = 30.0  # seconds a running job's record stays claimed without its worker's heartbeat
MAX_ATTEMPTS = 4
BACKOFF = (5.0, 30.0, 120.0)  # seconds before the 2nd, 3rd and 4th attempt (jittered)
TRANSIENT_REASONS = frozenset({"rate-limited", "unavailable"})
RUN_TASK = "memshelf_bot.run_delivery"
REDELIVER_TASK = "memshelf_bot.redeliver_failed"


@dataclass(frozen=True, slots=True)
class Job:
    """What a flow handler gets: the route, the payload, the App's login and a token minter."""

    key: str
    route: Route
    event: str
    payload: dict[str, Any] = field(repr=False)
    login: str
    token: Callable[[Mapping[str, str]], str] = field(repr=False)


Handler = Callable[[Job], str]  # runs the flow; returns a short detail for the status page


@dataclass
class Runtime:
    backend: Backend
    tokens: InstallationTokens
    handler: Handler
    run: TaskWrapper | None = None


_runtime: Runtime | None = None


def install(runtime: Runtime) -> None:
    """Make `runtime` the one the tasks use in this process (and its forked workers)."""
    global _runtime
    _runtime = runtime


def current() -> Runtime:
    if _runtime is None:
        raise RuntimeError("the App's job runtime is not installed in this process")
    return _runtime


def register(huey: Huey) -> TaskWrapper:
    """Declare the tasks on `huey` (the same names in serve and worker); the run task."""
    def redeliver() -> None:
        runtime = current()
        redeliver_failed(runtime.tokens, runtime.backend.store)

    huey.periodic_task(crontab(minute="*/5"), name=REDELIVER_TASK)(redeliver)
    return huey.task(name=RUN_TASK)(run_delivery)


def is_transient(exc: BaseException) -> bool:
    if isinstance(exc, TokenError):
        return exc.status is None or exc.status >= 500 or exc.status == 429
    if isinstance(exc, requests.ConnectionError | requests.Timeout):
        return True
    return str(getattr(exc, "reason", "")) in TRANSIENT_REASONS


class Heartbeat:
    """Renews the job's lease (and any render lock it holds) while the job runs."""

    def __init__(self, store: Store, key: str, owner: str) -> None:
        self.store, self.key, self.owner = store, key, owner
        self.locks: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="memshelf-bot-heartbeat", daemon=True)

    def _beat(self) -> None:
        while not self._stop.wait(LEASE / 3):
            self.store.renew(self.key, self.owner, time.time() + LEASE)
            for lock in list(self.locks):
                self.store.acquire(lock, self.owner, LEASE)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def coalesced(store: Store, lock: str, beat: Heartbeat, work: Callable[[], str], rerun: bool) -> str:
    """Run `work` under `lock` once per dirty mark taken; leave it to the holder when taken.

    The front door marks on enqueue; a job that runs again (recovered after a crash, retried)
    marks once more, since the run that took the mark may have died before rendering."""
    if rerun:
        store.mark(lock)
    details: list[str] = []
    while True:
        if not store.acquire(lock, beat.owner, LEASE):
            return "; ".join(details) or "coalesced into a render already running"
        beat.locks.add(lock)
        try:
            while store.take_mark(lock):
                details.append(work())
        finally:
            beat.locks.discard(lock)
            store.release(lock, beat.owner)
        if not store.has_mark(lock):  # marked after our last take, by a job that found the lock held
            return "; ".join(details) or "coalesced into a render already running"


def _execute(runtime: Runtime, key: str, event: str, beat: Heartbeat, rerun: bool) -> tuple[str, int]:
    """The flow's detail and the installation it ran for (0 when it did not run)."""
    store = runtime.backend.store
    body = store.payload(key)
    if body is None:
        raise LookupError("the delivery's payload is gone")
    payload = json.loads(body)
    routed = route(event, payload)
    if routed is None:
        return "ignored", 0
    login = app_login(store, runtime.tokens.app_slug)
    if caused_by_app(routed.sender, login) and not routed.renders_whoever_pushed:
        return "ignored: caused by the App itself", routed.installation_id

    def token(permissions: Mapping[str, str]) -> str:
        return runtime.tokens.token(routed.installation_id, routed.repository, permissions).token

    job = Job(key, routed, event, payload, login, token)
    if routed.lock is not None:
        return coalesced(store, routed.lock, beat, lambda: runtime.handler(job), rerun), routed.installation_id
    return runtime.handler(job), routed.installation_id


def _describe(exc: BaseException) -> str:
    """What failed, for the store (the status page) and the log: an exception's text may quote a
    token or a pushed value, so it is masked here, once, for both."""
    return mask(f"{type(exc).__name__}: {str(exc)[:300]}")


def run_delivery(key: str) -> None:
    """The task: run one delivery's flow (a no-op when it already ran or is running elsewhere)."""
    runtime = current()
    store = runtime.backend.store
    owner, started = worker_id(), time.time()
    if not store.start(key, owner, started + LEASE, started):
        log("job.skipped", delivery=key)
        return
    record = store.get(key)
    event = record.event if record else ""
    calls_before = runtime.tokens.calls
    log("job.started", delivery=key, gh_event=event, repository=record.repository if record else "")
    state, detail, installation = DeliveryState.SUCCEEDED, "", 0
    try:
        with Heartbeat(store, key, owner) as beat:
            detail, installation = _execute(runtime, key, event, beat, rerun=record is None or record.runs > 1)
    except Exception as exc:
        attempts = record.attempts + 1 if record else MAX_ATTEMPTS
        if is_transient(exc) and attempts < MAX_ATTEMPTS and runtime.run is not None:
            delay = BACKOFF[attempts - 1] * random.uniform(0.8, 1.2)
            store.retry(key, f"attempt {attempts} failed ({type(exc).__name__}); retrying")
            runtime.run.schedule(args=(key,), delay=delay)
            log("job.retry", logging.WARNING, delivery=key, attempt=attempts, delay=round(delay, 1),
                error=type(exc).__name__)
            return
        state, detail = DeliveryState.FAILED, _describe(exc)
        log("job.failed", logging.ERROR, delivery=key, gh_event=event, error=type(exc).__name__)
    finished = time.time()
    store.finish(key, state, detail, finished)
    metrics.observe_job(store, event, state, finished - started)
    metrics.count_api_calls(store, installation, runtime.tokens.calls - calls_before, runtime.tokens.rate_remaining)
    log("job.finished", delivery=key, gh_event=event, outcome=state, detail=detail[:200],
        seconds=round(finished - started, 3))


def recover(runtime: Runtime) -> list[str]:
    """Enqueue again every job whose worker died or whose lease ran out."""
    if runtime.run is None:
        return []
    lost = list(runtime.backend.store.recover_lost(time.time()))
    for key in lost:
        runtime.run(key)
        log("job.recovered", logging.WARNING, delivery=key)
    return lost


@contextmanager
def recovering(runtime: Runtime, every: float = LEASE / 2) -> Iterator[None]:
    """Run `recover` now and then every `every` seconds in a background thread."""
    stop = threading.Event()

    def loop() -> None:
        while True:
            try:
                recover(runtime)
            except Exception as exc:  # the store may be briefly down; try again next round
                log("job.recover-failed", logging.WARNING, error=type(exc).__name__)
            if stop.wait(every):
                return

    thread = threading.Thread(target=loop, name="memshelf-bot-recover", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
