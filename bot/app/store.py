"""The App's shared state: one record per delivery, metrics, render locks and marks.

`serve` replicas and workers are separate processes (and, on Redis, separate machines), so
everything they must agree on lives here and every decision is one atomic step in the backend:
claiming a delivery, starting its job, taking a render lock, taking a render's dirty mark.
Two backends: `SqliteStore` (in --data-dir, next to the SQLite queue) and `RedisStore`.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

RECENT = 200  # deliveries kept for the status page
STALE_CLAIM = 3600.0  # seconds after which a received/queued delivery that never started counts as lost
Labels = tuple[tuple[str, str], ...]


class DeliveryState(StrEnum):
    RECEIVED = "received"
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"


class MetricKind(StrEnum):
    COUNTER = "counter"
    GAUGE = "gauge"


@dataclass(frozen=True, slots=True)
class Delivery:
    """What the store knows about one delivery (never its payload, which is read separately)."""

    key: str
    event: str
    action: str
    repository: str
    state: DeliveryState
    received_at: float
    started_at: float | None = None
    finished_at: float | None = None
    runs: int = 0
    attempts: int = 0
    owner: str = ""
    lease_until: float = 0.0
    detail: str = ""

    @property
    def duration(self) -> float | None:
        if self.started_at is None or self.finished_at is None:
            return None
        return max(self.finished_at - self.started_at, 0.0)


@dataclass(frozen=True, slots=True)
class NewDelivery:
    key: str
    event: str
    action: str
    repository: str
    payload: bytes


@dataclass(frozen=True, slots=True)
class Sample:
    kind: MetricKind
    name: str
    labels: Labels
    value: float


def delivery_key(guid: str, hook_id: str) -> str:
    """GitHub's delivery GUID, qualified by the hook (one App may have one hook, a test several)."""
    return f"{hook_id or '-'}:{guid}"


def worker_id() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(owner: str) -> bool:
    """False only when `owner` is a process on this host that no longer exists; a process on
    another host is judged by its lease alone."""
    host, _, pid = owner.rpartition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def may_claim(current: Delivery | None, now: float) -> bool:
    """A delivery runs when it is new, failed, or lost (its worker's lease ran out, or it never
    started within STALE_CLAIM); a succeeded or live one is a duplicate."""
    if current is None or current.state is DeliveryState.FAILED:
        return True
    if current.state is DeliveryState.SUCCEEDED:
        return False
    if current.state is DeliveryState.RUNNING:
        return current.lease_until < now or not owner_alive(current.owner)
    return now - current.received_at > STALE_CLAIM


class Store(Protocol):
    def ping(self) -> bool:
        """True when the backend answers (GET /healthz)."""

    def claim(self, new: NewDelivery, now: float) -> bool:
        """Record a delivery as received, unless it is a duplicate (see `may_claim`); atomic."""

    def set_queued(self, key: str) -> None: ...

    def release_claim(self, key: str) -> None:
        """Forget a delivery that was received but could not be enqueued (its redelivery is new)."""

    def start(self, key: str, owner: str, lease_until: float, now: float) -> bool:
        """received|queued → running for `owner`; False when the job is not (or no longer) due."""

    def renew(self, key: str, owner: str, lease_until: float) -> None: ...

    def finish(self, key: str, state: DeliveryState, detail: str, now: float) -> None:
        """running → succeeded|failed; the payload is dropped."""

    def retry(self, key: str, detail: str) -> int:
        """running → queued for another attempt; the number of attempts so far."""

    def get(self, key: str) -> Delivery | None: ...

    def payload(self, key: str) -> bytes | None: ...

    def recover_lost(self, now: float) -> Sequence[str]:
        """Running deliveries whose worker died or whose lease ran out, moved back to queued
        (each by exactly one caller) so the caller can enqueue them again."""

    def recent(self, limit: int) -> Sequence[Delivery]: ...

    def add(self, name: str, labels: Labels, amount: float = 1.0) -> None: ...

    def set_gauge(self, name: str, labels: Labels, value: float) -> None: ...

    def samples(self) -> Sequence[Sample]: ...

    def acquire(self, lock: str, owner: str, ttl: float) -> bool: ...

    def release(self, lock: str, owner: str) -> None: ...

    def mark(self, name: str) -> None:
        """Set a dirty mark (idempotent)."""

    def take_mark(self, name: str) -> bool:
        """Clear a dirty mark; True when it was set."""

    def has_mark(self, name: str) -> bool: ...

    def first_time(self, group: str, member: str) -> bool:
        """True exactly once per (group, member), across every process."""

    def get_value(self, name: str) -> str | None: ...

    def set_value(self, name: str, value: str) -> None: ...
