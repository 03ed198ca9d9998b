"""The App's shared state beside huey's queue: one outcome record per delivery (the
de-duplication and the status page — never the payload, never a copy of the queue), the leases
of running jobs, render locks and their pending deliveries, the metrics.

`serve` replicas and workers are separate processes (on Redis, separate machines), so each
decision is one atomic step in the backend. Two backends: `SqliteStore` (in --data-dir, next to
the SQLite queue) and `RedisStore`; `jobs.open_backend` pairs each with its huey.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

RECENT = 200  # records kept for the status page
UNQUEUED_AFTER = 60.0  # seconds after which a record whose enqueue never confirmed may be claimed again
Labels = tuple[tuple[str, str], ...]


class State(StrEnum):
    RECEIVED = "received"  # claimed at the front door, not yet confirmed on the queue
    QUEUED = "queued"  # on the queue (or waiting for a retry)
    RUNNING = "running"  # a job holds its lease
    COALESCED = "coalesced"  # folded into a render another job holds; takes that render's outcome
    SUCCEEDED = "succeeded"
    FAILED = "failed"

    @property
    def final(self) -> bool:
        return self in (State.SUCCEEDED, State.FAILED)


class MetricKind(StrEnum):
    COUNTER = "counter"
    GAUGE = "gauge"


@dataclass(frozen=True, slots=True)
class Record:
    """What the store knows about one delivery: where it is, and how it ended."""

    key: str
    event: str
    action: str
    repository: str
    state: State
    received_at: float
    started_at: float | None = None
    finished_at: float | None = None
    runs: int = 0  # jobs started for it (a lapsed lease's job runs again)
    detail: str = ""

    @property
    def duration(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return max(self.finished_at - self.started_at, 0.0)


@dataclass(frozen=True, slots=True)
class Sample:
    kind: MetricKind
    name: str
    labels: Labels
    value: float


def delivery_key(guid: str, hook_id: str) -> str:
    """GitHub's delivery GUID, qualified by the hook (one App may have one hook, a test several)."""
    return f"{hook_id or '-'}:{guid}"


def may_claim(current: Record | None, now: float) -> bool:
    """A delivery runs when it is new, failed, or its enqueue was never confirmed; a succeeded or
    live one (queued, running, coalesced: the lease sweep brings a lost one back) is a duplicate."""
    if current is None or current.state is State.FAILED:
        return True
    return current.state is State.RECEIVED and now - current.received_at > UNQUEUED_AFTER


class Store(Protocol):
    def ping(self) -> bool:
        """True when the backend answers."""

    def claim(self, record: Record) -> bool:
        """Record a delivery as received (at `record.received_at`) unless it is a duplicate
        (`may_claim`); atomic."""

    def set_queued(self, key: str) -> None: ...

    def release_claim(self, key: str) -> None:
        """Forget a delivery that was received but could not be enqueued (its redelivery is new)."""

    def start(self, key: str, worker: str, until: float, task: str, now: float) -> bool:
        """received|queued → running, with a lease for `worker` holding `task` (the huey task's
        arguments) until `until`; False when the delivery is not (or no longer) due."""

    def renew(self, key: str, worker: str, until: float) -> None: ...

    def park(self, key: str, state: State, detail: str, worker: str, hold: float = 0.0) -> None:
        """running → `state` (queued for a retry, coalesced; a finished record keeps its
        outcome); `worker`'s lease on it dropped (the end of a job), or held until `hold`."""

    def finish(self, keys: Sequence[str], state: State, detail: str, now: float) -> None:
        """Any unfinished of `keys` → `state` (their jobs' leases are theirs to drop)."""

    def lapsed(self, now: float) -> Sequence[tuple[str, str]]:
        """(key, task) of each lease that ran out, taken (each by exactly one caller) and its
        record put back to queued, so the caller enqueues the task again."""

    def get(self, key: str) -> Record | None: ...

    def recent(self, limit: int) -> Sequence[Record]: ...

    def acquire(self, lock: str, owner: str, ttl: float) -> bool:
        """Take (or renew) `lock` for `owner` for `ttl` seconds; False while another holds it."""

    def release(self, lock: str, owner: str) -> None: ...

    def add_pending(self, lock: str, key: str) -> None: ...

    def pending(self, lock: str) -> Sequence[str]: ...

    def drop_pending(self, lock: str, keys: Sequence[str]) -> None: ...

    def add(self, counts: Sequence[tuple[str, Labels, float]]) -> None:
        """Add to counters (name, labels, amount), in one write."""

    def set_gauge(self, name: str, labels: Labels, value: float) -> None: ...

    def samples(self) -> Sequence[Sample]: ...

    def first_time(self, group: str, member: str) -> bool:
        """True exactly once per (group, member), across every process."""

    def get_value(self, name: str) -> str | None: ...

    def set_value(self, name: str, value: str) -> None: ...
