"""The store in one SQLite file (the embedded default: one machine, nothing to install).

Each thread of each process opens its own connection (a forked worker never reuses its
parent's); every read-modify-write runs inside `BEGIN IMMEDIATE`, so concurrent writers take turns.
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

from .store import RECENT, Labels, MetricKind, Record, Sample, State, may_claim

SCHEMA = """
CREATE TABLE IF NOT EXISTS deliveries (
    key TEXT PRIMARY KEY, event TEXT NOT NULL, action TEXT NOT NULL, repository TEXT NOT NULL,
    state TEXT NOT NULL, received_at REAL NOT NULL, started_at REAL, finished_at REAL,
    runs INTEGER NOT NULL DEFAULT 0, detail TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS deliveries_received ON deliveries (received_at);
CREATE TABLE IF NOT EXISTS leases (key TEXT PRIMARY KEY, worker TEXT NOT NULL, until REAL NOT NULL,
    task TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS samples (kind TEXT NOT NULL, name TEXT NOT NULL, labels TEXT NOT NULL,
    value REAL NOT NULL, PRIMARY KEY (name, labels));
CREATE TABLE IF NOT EXISTS locks (name TEXT PRIMARY KEY, owner TEXT NOT NULL, until REAL NOT NULL);
CREATE TABLE IF NOT EXISTS pending (lock TEXT NOT NULL, key TEXT NOT NULL, PRIMARY KEY (lock, key));
CREATE TABLE IF NOT EXISTS seen (grp TEXT NOT NULL, member TEXT NOT NULL, PRIMARY KEY (grp, member));
CREATE TABLE IF NOT EXISTS kv (name TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
COLUMNS = ("key", "event", "action", "repository", "state", "received_at", "started_at", "finished_at", "runs",
           "detail")
SELECT = f"SELECT {', '.join(COLUMNS)} FROM deliveries"
UNFINISHED = tuple(s.value for s in State if not s.final)


def _record(row: tuple) -> Record:
    values = dict(zip(COLUMNS, row, strict=True))
    values["state"] = State(values["state"])
    return Record(**values)


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

    def claim(self, record: Record) -> bool:
        with self._tx() as conn:
            if not may_claim(self.get(record.key), record.received_at):
                return False
            conn.execute("INSERT OR REPLACE INTO deliveries (key, event, action, repository, state, received_at) "
                         "VALUES (?, ?, ?, ?, ?, ?)", (record.key, record.event, record.action, record.repository,
                                                       State.RECEIVED, record.received_at))
        return True

    def set_queued(self, key: str) -> None:
        self.conn.execute("UPDATE deliveries SET state = ? WHERE key = ? AND state = ?",
                          (State.QUEUED, key, State.RECEIVED))

    def release_claim(self, key: str) -> None:
        self.conn.execute("DELETE FROM deliveries WHERE key = ? AND state = ?", (key, State.RECEIVED))

    def start(self, key: str, worker: str, until: float, task: str, now: float) -> bool:
        with self._tx() as conn:
            if conn.execute("UPDATE deliveries SET state = ?, started_at = ?, finished_at = NULL, "
                            "runs = runs + 1 WHERE key = ? AND state IN (?, ?)",
                            (State.RUNNING, now, key, State.RECEIVED, State.QUEUED)).rowcount != 1:
                return False
            conn.execute("INSERT OR REPLACE INTO leases VALUES (?, ?, ?, ?)", (key, worker, until, task))
        return True

    def renew(self, key: str, worker: str, until: float) -> None:
        self.conn.execute("UPDATE leases SET until = ? WHERE key = ? AND worker = ?", (until, key, worker))

    def park(self, key: str, state: State, detail: str, worker: str, hold: float = 0.0) -> None:
        with self._tx() as conn:
            conn.execute("UPDATE deliveries SET state = ?, detail = ? WHERE key = ? AND state = ?",
                         (state, detail, key, State.RUNNING))
            if hold:
                conn.execute("UPDATE leases SET until = ? WHERE key = ? AND worker = ?", (hold, key, worker))
            else:
                conn.execute("DELETE FROM leases WHERE key = ? AND worker = ?", (key, worker))

    def finish(self, keys: Sequence[str], state: State, detail: str, now: float) -> None:
        with self._tx() as conn:
            marks = ",".join("?" * len(UNFINISHED))
            conn.executemany(f"UPDATE deliveries SET state = ?, detail = ?, finished_at = ? "
                             f"WHERE key = ? AND state IN ({marks})",
                             [(state, detail, now, key, *UNFINISHED) for key in keys])

    def lapsed(self, now: float) -> Sequence[tuple[str, str]]:
        with self._tx() as conn:
            found = conn.execute("SELECT key, task FROM leases WHERE until < ?", (now,)).fetchall()
            conn.executemany("DELETE FROM leases WHERE key = ?", [(key,) for key, _ in found])
            conn.executemany("UPDATE deliveries SET state = ? WHERE key = ? AND state = ?",
                             [(State.QUEUED, key, State.RUNNING) for key, _ in found])
        return [(str(key), str(task)) for key, task in found]

    def get(self, key: str) -> Record | None:
        row = self.conn.execute(f"{SELECT} WHERE key = ?", (key,)).fetchone()
        return _record(row) if row else None

    def recent(self, limit: int) -> Sequence[Record]:
        rows = self.conn.execute(f"{SELECT} ORDER BY received_at DESC LIMIT ?", (min(limit, RECENT),)).fetchall()
        return [_record(row) for row in rows]

    def acquire(self, lock: str, owner: str, ttl: float) -> bool:
        now = time.time()
        with self._tx() as conn:
            row = conn.execute("SELECT owner, until FROM locks WHERE name = ?", (lock,)).fetchone()
            if row and row[0] != owner and row[1] > now:
                return False
            conn.execute("INSERT OR REPLACE INTO locks VALUES (?, ?, ?)", (lock, owner, now + ttl))
        return True

    def release(self, lock: str, owner: str) -> None:
        self.conn.execute("DELETE FROM locks WHERE name = ? AND owner = ?", (lock, owner))

    def add_pending(self, lock: str, key: str) -> None:
        self.conn.execute("INSERT OR IGNORE INTO pending VALUES (?, ?)", (lock, key))

    def pending(self, lock: str) -> Sequence[str]:
        return [str(r[0]) for r in self.conn.execute("SELECT key FROM pending WHERE lock = ? ORDER BY key", (lock,))]

    def drop_pending(self, lock: str, keys: Sequence[str]) -> None:
        self.conn.executemany("DELETE FROM pending WHERE lock = ? AND key = ?", [(lock, key) for key in keys])

    def add(self, counts: Sequence[tuple[str, Labels, float]]) -> None:
        with self._tx() as conn:
            conn.executemany("INSERT INTO samples VALUES (?, ?, ?, ?) ON CONFLICT (name, labels) "
                             "DO UPDATE SET value = value + excluded.value",
                             [(MetricKind.COUNTER, name, _labels(labels), amount) for name, labels, amount in counts])

    def set_gauge(self, name: str, labels: Labels, value: float) -> None:
        self.conn.execute("INSERT INTO samples VALUES (?, ?, ?, ?) ON CONFLICT (name, labels) "
                          "DO UPDATE SET value = excluded.value", (MetricKind.GAUGE, name, _labels(labels), value))

    def samples(self) -> Sequence[Sample]:
        rows = self.conn.execute("SELECT kind, name, labels, value FROM samples ORDER BY name, labels").fetchall()
        return [Sample(MetricKind(kind), name, tuple(tuple(pair) for pair in json.loads(labels)), value)
                for kind, name, labels, value in rows]

    def first_time(self, group: str, member: str) -> bool:
        return self.conn.execute("INSERT OR IGNORE INTO seen VALUES (?, ?)", (group, member)).rowcount == 1

    def get_value(self, name: str) -> str | None:
        row = self.conn.execute("SELECT value FROM kv WHERE name = ?", (name,)).fetchone()
        return str(row[0]) if row else None

    def set_value(self, name: str, value: str) -> None:
        self.conn.execute("INSERT OR REPLACE INTO kv VALUES (?, ?)", (name, value))
