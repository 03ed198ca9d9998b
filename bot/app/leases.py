"""What huey lacks, kept here and nowhere else: leases (at-least-once after a crash) and render
coalescing with true outcomes.

huey removes a task from the queue when a worker takes it, so a worker killed mid-job would lose
it. A job therefore holds a lease in the store — its worker's random id, a deadline its heartbeat
pushes forward, and the task's own arguments — and the store's `lapsed` hands the task of every
lease that ran out back, for the queue. A worker is judged by its lease alone, never by a host
name or a pid: another worker takes its jobs only when the lease lapses.

Renders of one repository+branch are serialized by a lock and coalesced: each render delivery
joins the lock's pending set (at the front door and again when its job starts), and the lock
holder renders once for every pending delivery and records THAT render's outcome on each of them
— a failed render fails them all, and each stays redeliverable.

huey's own locks (`lock_task`) do not fit either: they expire only on Redis 7.4+ (SQLite has no
TTL), so a worker killed while holding one would hold it for good; these locks lapse with the
lease of the job that holds them.
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from .logs import log
from .store import State, Store

LEASE_SECONDS = "MEMSHELF_BOT_LEASE_SECONDS"
LEASE = float(os.environ.get(LEASE_SECONDS, "30"))  # a lease's life without a heartbeat
PERSIST_FOR = 900.0  # seconds a worker keeps trying to record an outcome while the store is away
_worker: tuple[int, str] | None = None


def worker_id() -> str:
    """This process's random id (a fresh one after a fork)."""
    global _worker
    if _worker is None or _worker[0] != os.getpid():
        _worker = (os.getpid(), uuid.uuid4().hex)
    return _worker[1]


def persist(write: Callable[[], None], give_up_after: float = PERSIST_FOR) -> None:
    """Run a store write until it succeeds (bounded backoff, one log line per outage): the work it
    records is done, and recording it is what keeps a lapsed lease from running it again."""
    delay, deadline, logged = 0.5, time.monotonic() + give_up_after, False
    while True:
        try:
            write()
        except Exception as exc:  # the store's own error type (sqlite3, redis)
            if time.monotonic() + delay > deadline:
                raise
            if not logged:
                log("store.unreachable", logging.WARNING, error=type(exc).__name__, retrying_for=give_up_after)
                logged = True
            time.sleep(delay)
            delay = min(delay * 2, 10.0)
            continue
        if logged:
            log("store.reachable")
        return


class Lease:
    """A running job's lease, and the render lock it may hold, renewed by a heartbeat thread
    until the job ends. A heartbeat that cannot reach the store tries again at the next beat."""

    def __init__(self, store: Store, key: str, lease: float = LEASE) -> None:
        self.store, self.key, self.lease, self.worker = store, key, lease, worker_id()
        self.locks: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="memshelf-bot-heartbeat", daemon=True)

    def _beat(self) -> None:
        while not self._stop.wait(self.lease / 3):
            try:
                self.store.renew(self.key, self.worker, time.time() + self.lease)
                for lock in list(self.locks):
                    self.store.acquire(lock, self.worker, self.lease)
            except Exception:  # the store is down: the job goes on, its outcome waits for the store
                continue

    def __enter__(self) -> Lease:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass(frozen=True, slots=True)
class Settled:
    """One run's outcome and the deliveries it stands for."""

    keys: tuple[str, ...]
    state: State
    detail: str


def coalesce(store: Store, lock: str, lease: Lease, render: Callable[[], str],
             failed: Callable[[Exception], str | None]) -> list[Settled]:
    """Render under `lock` once for every pending delivery and record each render's outcome on
    them; leave them to the holder when it is taken. `failed(exc)` is the detail of a render that
    failed for good, or None when the job should be retried (the exception then propagates and the
    deliveries stay pending)."""
    done: list[Settled] = []
    while store.acquire(lock, lease.worker, lease.lease):
        lease.locks.add(lock)
        try:
            while keys := tuple(store.pending(lock)):
                try:
                    outcome = Settled(keys, State.SUCCEEDED, render())
                except Exception as exc:
                    if (detail := failed(exc)) is None:
                        raise
                    outcome = Settled(keys, State.FAILED, detail)
                persist(lambda o=outcome: store.finish(o.keys, o.state, o.detail, time.time()))
                persist(lambda k=keys: store.drop_pending(lock, k))
                done.append(outcome)
        finally:
            lease.locks.discard(lock)
            store.release(lock, lease.worker)
        if not store.pending(lock):  # joined after our last look, by a job that found the lock held
            break
    return done
