"""The store in one SQLite file (the embedded default: one machine, nothing to install).

Each thread of each process opens its own connection (a forked worker never reuses its
parent's, the server's request threads never share one); every read-modify-write runs inside
`BEGIN IMMEDIATE`, so concurrent writers take turns.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .store import (
    RECENT,
    Delivery,
    DeliveryState,
    Labels,
    MetricKind,
    NewDelivery,
    Sample,
    may_claim,
    owner_alive,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    key TEXT PRIMARY KEY, event TEXT NOT NULL, action TEXT NOT NULL, repository TEXT NOT NULL,
    state TEXT NOT NULL, received_at REAL NOT NULL, started_at REAL, finished_at REAL,
    runs INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0, owner TEXT NOT NULL DEFAULT '',
    lease_until REAL NOT NULL DEFAULT 0, detail TEXT NOT NULL DEFAULT '', payload BLOB
);
CREATE INDEX IF NOT EXISTS deliveries_received ON deliveries (received_at);
CREATE INDEX IF NOT EXISTS deliveries_state ON deliveries (state);
CREATE TABLE IF NOT EXISTS samples (kind TEXT NOT NULL, name TEXT NOT NULL, labels TEXT NOT NULL,
    value REAL NOT NULL, PRIMARY KEY (name, labels));
CREATE TABLE IF NOT EXISTS locks (name TEXT PRIMARY KEY, owner TEXT NOT NULL, until REAL NOT NULL);
CREATE TABLE IF NOT EXISTS marks (name TEXT PRIMARY KEY);
CREATE TABLE IF NOT EXISTS seen (grp TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (grp, member));
CREATE TABLE IF NOT EXISTS kv (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
COLUMNS = ("key", "event", "action", "repository", "state", "received_at", "started_at", "finished_at",
           "runs", "attempts", "owner", "lease_until", "detail")
SELECT = f"SELECT {', '.join(COLUMNS)} FROM deliveries"


def _delivery(row: tuple) -> Delivery:
    values = dict(zip(COLUMNS, row, strict=True))
    values["state"] = DeliveryState(values["state"])
    return Delivery(**values)


def _labels(labels: Labels) -> str:
    return json.dumps(sorted(labels), separators=(",", ":"))


class SqliteStore:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._local = threading.local()

    @property
    def conn(self) -> sqlite3.Connection:
        local = self._local
        if getattr(local, "pid", None) != os.getpid():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA busy_timeout=30000")
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            conn.executescript(SCHEMA)
            local.conn, local.pid = conn, os.getpid()
        return local.conn

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield conn
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def ping(self) -> bool:
        try:
            self.conn.execute("SELECT 1").fetchone()
        except sqlite3.Error:
            return False
        return True

    def _get(self, conn: sqlite3.Connection, key: str) -> Delivery | None:
        row = conn.execute(f"{SELECT} WHERE key = ?", (key,)).fetchone()
        return _delivery(row) if row else None

    def claim(self, new: NewDelivery, now: float) -> bool:
        with self._tx() as conn:
            if not may_claim(self._get(conn, new.key), now):
                return False
            conn.execute(
                "INSERT INTO deliveries (key, event, action, repository, state, received_at, payload) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (key) DO UPDATE SET state = excluded.state, "
                "received_at = excluded.received_at, payload = excluded.payload, started_at = NULL, "
                "finished_at = NULL, attempts = 0, owner = '', lease_until = 0, detail = ''",
                (new.key, new.event, new.action, new.repository, DeliveryState.RECEIVED, now, new.payload))
        return True

    def set_queued(self, key: str) -> None:
        self.conn.execute("UPDATE deliveries SET state = ? WHERE key = ? AND state = ?",
                          (DeliveryState.QUEUED, key, DeliveryState.RECEIVED))

    def release_claim(self, key: str) -> None:
        self.conn.execute("DELETE FROM deliveries WHERE key = ? AND state = ?", (key, DeliveryState.RECEIVED))

    def start(self, key: str, owner: str, lease_until: float, now: float) -> bool:
        cur = self.conn.execute(
            "UPDATE deliveries SET state = ?, owner = ?, lease_until = ?, started_at = ?, finished_at = NULL, "
            "runs = runs + 1 WHERE key = ? AND state IN (?, ?)",
            (DeliveryState.RUNNING, owner, lease_until, now, key, DeliveryState.RECEIVED, DeliveryState.QUEUED))
        return cur.rowcount == 1

    def renew(self, key: str, owner: str, lease_until: float) -> None:
        self.conn.execute("UPDATE deliveries SET lease_until = ? WHERE key = ? AND owner = ? AND state = ?",
                          (lease_until, key, owner, DeliveryState.RUNNING))

    def finish(self, key: str, state: DeliveryState, detail: str, now: float) -> None:
        self.conn.execute(
            "UPDATE deliveries SET state = ?, detail = ?, finished_at = ?, payload = NULL, lease_until = 0 "
            "WHERE key = ? AND state = ?", (state, detail, now, key, DeliveryState.RUNNING))

    def retry(self, key: str, detail: str) -> int:
        with self._tx() as conn:
            conn.execute("UPDATE deliveries SET state = ?, detail = ?, attempts = attempts + 1, lease_until = 0 "
                         "WHERE key = ? AND state = ?", (DeliveryState.QUEUED, detail, key, DeliveryState.RUNNING))
            row = conn.execute("SELECT attempts FROM deliveries WHERE key = ?", (key,)).fetchone()
        return int(row[0]) if row else 0

    def get(self, key: str) -> Delivery | None:
        return self._get(self.conn, key)

    def payload(self, key: str) -> bytes | None:
        row = self.conn.execute("SELECT payload FROM deliveries WHERE key = ?", (key,)).fetchone()
        return bytes(row[0]) if row and row[0] is not None else None

    def recover_lost(self, now: float) -> Sequence[str]:
        with self._tx() as conn:
            rows = conn.execute(f"{SELECT} WHERE state = ?", (DeliveryState.RUNNING,)).fetchall()
            lost = [d.key for d in map(_delivery, rows) if d.lease_until < now or not owner_alive(d.owner)]
            conn.executemany("UPDATE deliveries SET state = ?, lease_until = 0 WHERE key = ?",
                             [(DeliveryState.QUEUED, key) for key in lost])
        return lost

    def recent(self, limit: int) -> Sequence[Delivery]:
        rows = self.conn.execute(f"{SELECT} ORDER BY received_at DESC LIMIT ?", (min(limit, RECENT),)).fetchall()
        return [_delivery(row) for row in rows]

    def add(self, name: str, labels: Labels, amount: float = 1.0) -> None:
        self.conn.execute("INSERT INTO samples VALUES (?, ?, ?, ?) ON CONFLICT (name, labels) "
                          "DO UPDATE SET value = value + excluded.value",
                          (MetricKind.COUNTER, name, _labels(labels), amount))

    def set_gauge(self, name: str, labels: Labels, value: float) -> None:
        self.conn.execute("INSERT INTO samples VALUES (?, ?, ?, ?) ON CONFLICT (name, labels) "
                          "DO UPDATE SET value = excluded.value", (MetricKind.GAUGE, name, _labels(labels), value))

    def samples(self) -> Sequence[Sample]:
        rows = self.conn.execute("SELECT kind, name, labels, value FROM samples ORDER BY name, labels").fetchall()
        return [Sample(MetricKind(kind), name, tuple(tuple(pair) for pair in json.loads(labels)), value)
                for kind, name, labels, value in rows]

    def acquire(self, lock: str, owner: str, ttl: float) -> bool:
        now = time.time()
        with self._tx() as conn:
            row = conn.execute("SELECT owner, until FROM locks WHERE name = ?", (lock,)).fetchone()
            if row and row[0] != owner and row[1] > now and owner_alive(row[0]):
                return False
            conn.execute("INSERT OR REPLACE INTO locks VALUES (?, ?, ?)", (lock, owner, now + ttl))
        return True

    def release(self, lock: str, owner: str) -> None:
        self.conn.execute("DELETE FROM locks WHERE name = ? AND owner = ?", (lock, owner))

    def mark(self, name: str) -> None:
        self.conn.execute("INSERT OR IGNORE INTO marks VALUES (?)", (name,))

    def take_mark(self, name: str) -> bool:
        return self.conn.execute("DELETE FROM marks WHERE name = ?", (name,)).rowcount == 1

    def has_mark(self, name: str) -> bool:
        return self.conn.execute("SELECT 1 FROM marks WHERE name = ?", (name,)).fetchone() is not None

    def first_time(self, group: str, member: str) -> bool:
        return self.conn.execute("INSERT OR IGNORE INTO seen VALUES (?, ?)", (group, member)).rowcount == 1

    def get_value(self, name: str) -> str | None:
        row = self.conn.execute("SELECT value FROM kv WHERE name = ?", (name,)).fetchone()
        return str(row[0]) if row else None

    def set_value(self, name: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (name, value))
