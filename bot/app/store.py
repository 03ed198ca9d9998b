"""The App's shared state beside huey's queue: one outcome record per delivery (the
de-duplication and the status page — never the payload, never a copy of the queue), the leases
of running jobs, render locks and their pending deliveries, the metrics.

`serve` replicas and workers are separate processes (on Redis, separate machines), so every
decision is one transaction — read, decide, write — written once here over a few Redis commands
(strings and sorted sets). On Redis, `RedisKV` reads, lets the store decide, and sends the writes
with what was read to one small script that applies them only if those keys still hold it (else
it reads again): one round trip for a decision's writes. In the embedded default, `SqliteKV` plays
the same commands on one SQLite file (in --data-dir, next to the SQLite queue) inside
`BEGIN IMMEDIATE`.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from itertools import chain
from pathlib import Path
from typing import Any, TypeVar

PREFIX = "memshelf-bot:2:"  # the layout's version: keys of an earlier layout are left alone, never misread
RECENT = 200  # records kept for the status page
UNQUEUED_AFTER = 60.0  # seconds after which a record whose enqueue never confirmed may be claimed again
RECENT_KEY, LEASES_KEY, SAMPLES_KEY = PREFIX + "recent", PREFIX + "leases", PREFIX + "samples"
Labels = tuple[tuple[str, str], ...]
T = TypeVar("T")


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


FIELDS = tuple(f.name for f in fields(Record) if f.name != "key")


def delivery_key(guid: str, hook_id: str) -> str:
    """GitHub's delivery GUID, qualified by the hook (one App may have one hook, a test several)."""
    return f"{hook_id or '-'}:{guid}"


def _record_at(key: str) -> str:
    return f"{PREFIX}delivery:{key}"


def _lease_at(key: str) -> str:
    return f"{PREFIX}lease:{key}"


def _load(key: str, text: str | None) -> Record | None:
    if text is None:
        return None
    values = json.loads(text)
    return Record(key=key, **{**values, "state": State(values["state"])})


def _dump(record: Record) -> str:
    return json.dumps({name: getattr(record, name) for name in FIELDS}, separators=(",", ":"))


class Store:
    """The store's decisions over `kv`: a `RedisKV` or a `SqliteKV`."""

    def __init__(self, kv: RedisKV | SqliteKV) -> None:
        self.kv = kv

    @classmethod
    def sqlite(cls, path: Path) -> Store:
        return cls(SqliteKV(path))

    @classmethod
    def redis(cls, url: str) -> Store:
        return cls(RedisKV(url))

    def _on(self, key: str, decide: Callable[[Any, Record | None, list[Any] | None], T],
            assume: Record | None = None) -> T:
        """`decide(tx, record, lease)` for one delivery, in one transaction; `tx.set`… write. The
        lease is [worker, until, task]. `assume`: the record most likely stored (then no lease),
        tried before reading them (a wrong guess costs one read)."""
        at, lease_at = _record_at(key), _lease_at(key)
        guess = {at: _dump(assume), lease_at: None} if assume is not None else None
        return self.kv.atomic(lambda tx: decide(tx, _load(key, tx.get(at)), json.loads(tx.get(lease_at) or "null")),
                              at, lease_at, assume=guess)

    @staticmethod
    def _put(tx: Any, key: str, record: Record | None, lease: list[Any] | bool | None = False) -> None:
        """Write `key`'s record unless None, and its lease (None: drop it; False: leave it) with its
        place in the index."""
        if record is not None:
            tx.set(_record_at(key), _dump(record))
        if lease is None:
            tx.delete(_lease_at(key))
            tx.zrem(LEASES_KEY, key)
        elif lease:
            tx.set(_lease_at(key), json.dumps(lease))
            tx.zadd(LEASES_KEY, {key: lease[1]})

    def ping(self) -> bool:
        """True when the backend answers."""
        try:
            return bool(self.kv.ping())
        except Exception:  # the backend's own error type (sqlite3, redis)
            return False

    def claim(self, record: Record) -> bool:
        """Record a delivery as received (at `record.received_at`) unless it is a duplicate — a
        delivery runs when it is new, failed, or its enqueue was never confirmed; a succeeded or live
        one (queued, running, coalesced: the lease sweep brings a lost one back) is not; atomic."""
        now = record.received_at

        def decide(tx: Any, current: Record | None, _lease: object) -> bool:
            if current is not None and current.state is not State.FAILED and not (
                    current.state is State.RECEIVED and now - current.received_at > UNQUEUED_AFTER):
                return False
            self._put(tx, record.key, Record(record.key, record.event, record.action, record.repository,
                                             State.RECEIVED, now))
            tx.zadd(RECENT_KEY, {record.key: now})
            tx.zremrangebyrank(RECENT_KEY, 0, -RECENT - 1)
            return True

        return self.kv.atomic(lambda tx: decide(tx, _load(record.key, tx.get(_record_at(record.key))), None),
                              _record_at(record.key), assume={_record_at(record.key): None})

    def set_queued(self, key: str, claimed: Record | None = None) -> None:
        """received → queued (`claimed`: the record as the caller claimed it, so the usual case needs
        no read)."""
        def decide(tx: Any, current: Record | None, _lease: object) -> None:
            if current is not None and current.state is State.RECEIVED:
                self._put(tx, key, replace(current, state=State.QUEUED))

        self._on(key, decide, claimed)

    def release_claim(self, key: str) -> None:
        """Forget a delivery that was received but could not be enqueued (its redelivery is new)."""
        def decide(tx: Any, current: Record | None, _lease: object) -> None:
            if current is not None and current.state is State.RECEIVED:
                tx.delete(_record_at(key))
                tx.zrem(RECENT_KEY, key)

        self._on(key, decide)

    def start(self, key: str, worker: str, until: float, task: str, now: float) -> bool:
        """received|queued → running, with a lease for `worker` holding `task` (the huey task's
        arguments) until `until`; False when the delivery is not (or no longer) due."""
        def decide(tx: Any, current: Record | None, _lease: object) -> bool:
            if current is None or current.state not in (State.RECEIVED, State.QUEUED):
                return False
            self._put(tx, key, replace(current, state=State.RUNNING, started_at=now, finished_at=None,
                                       runs=current.runs + 1), [worker, until, task])
            return True

        return self._on(key, decide)

    def renew(self, key: str, worker: str, until: float) -> None:
        def decide(tx: Any, _current: object, lease: list[Any] | None) -> None:
            if lease is not None and lease[0] == worker:
                self._put(tx, key, None, [worker, until, lease[2]])

        self._on(key, decide)

    def park(self, key: str, state: State, detail: str, worker: str, hold: float = 0.0) -> None:
        """running → `state` (queued for a retry, coalesced; a finished record keeps its
        outcome); `worker`'s lease on it dropped (the end of a job), or held until `hold`."""
        def decide(tx: Any, current: Record | None, lease: list[Any] | None) -> None:
            running = current is not None and current.state is State.RUNNING
            self._put(tx, key, replace(current, state=state, detail=detail) if current and running else None,
                      ([worker, hold, lease[2]] if hold else None) if lease is not None and lease[0] == worker
                      else False)

        self._on(key, decide)

    def finish(self, keys: Sequence[str], state: State, detail: str, now: float) -> None:
        """Each unfinished of `keys` → `state` (their jobs' leases are theirs to drop)."""
        def decide(tx: Any, current: Record | None, _lease: object) -> None:
            if current is not None and not current.state.final:
                self._put(tx, current.key, replace(current, state=state, detail=detail, finished_at=now))

        for key in keys:
            self._on(key, decide)

    def lapsed(self, now: float) -> Sequence[tuple[str, str]]:
        """(key, task) of each lease that ran out, taken (each by exactly one caller) and its
        record put back to queued, so the caller enqueues the task again."""
        def take(key: str) -> str | None:
            def decide(tx: Any, current: Record | None, lease: list[Any] | None) -> str | None:
                if lease is None or lease[1] >= now:
                    return None  # renewed or dropped since
                running = current is not None and current.state is State.RUNNING
                self._put(tx, key, replace(current, state=State.QUEUED) if current and running else None, None)
                return str(lease[2])

            return self._on(key, decide)

        taken = [(key, take(key)) for key in map(str, self.kv.zrangebyscore(LEASES_KEY, float("-inf"), now))]
        return [(key, task) for key, task in taken if task is not None]

    def get(self, key: str) -> Record | None:
        return _load(key, self.kv.get(_record_at(key)))

    def recent(self, limit: int) -> Sequence[Record]:
        keys = [str(k) for k in self.kv.zrange(RECENT_KEY, 0, min(limit, RECENT) - 1, desc=True)]
        found = [_load(key, text) for key, text in zip(keys, self.kv.mget([_record_at(k) for k in keys]) if keys
                                                       else [], strict=True)]
        return [record for record in found if record is not None]

    def acquire(self, lock: str, owner: str, ttl: float) -> bool:
        """Take (or renew) `lock` for `owner` for `ttl` seconds; False while another holds it."""
        at, now = f"{PREFIX}lock:{lock}", time.time()

        def decide(tx: Any) -> bool:
            held = tx.get(at)
            if held is not None and (holder := json.loads(held))[0] != owner and holder[1] > now:
                return False
            tx.set(at, json.dumps([owner, now + ttl]))
            return True

        return self.kv.atomic(decide, at)

    def release(self, lock: str, owner: str) -> None:
        at = f"{PREFIX}lock:{lock}"

        def decide(tx: Any) -> None:
            held = tx.get(at)
            if held is not None and json.loads(held)[0] == owner:
                tx.delete(at)

        self.kv.atomic(decide, at)

    def add_pending(self, lock: str, key: str) -> None:
        self.kv.zadd(f"{PREFIX}pending:{lock}", {key: 0})

    def pending(self, lock: str) -> Sequence[str]:
        return [str(k) for k in self.kv.zrange(f"{PREFIX}pending:{lock}", 0, -1)]

    def drop_pending(self, lock: str, keys: Sequence[str]) -> None:
        if keys:
            self.kv.zrem(f"{PREFIX}pending:{lock}", *keys)

    def add(self, counts: Sequence[tuple[str, Labels, float]]) -> None:
        """Add to counters (name, labels, amount), in one write."""
        def decide(tx: Any) -> None:
            for name, labels, amount in counts:
                tx.zincrby(SAMPLES_KEY, amount, json.dumps([name, sorted(labels)]))

        self.kv.atomic(decide)

    def set_gauge(self, name: str, labels: Labels, value: float) -> None:
        self.kv.zadd(SAMPLES_KEY, {json.dumps([name, sorted(labels)]): value})

    def samples(self) -> list[tuple[str, Labels, float]]:
        """Every counter and gauge: (name, labels, value)."""
        decoded = ((json.loads(field), value) for field, value in self.kv.zrange(SAMPLES_KEY, 0, -1, withscores=True))
        return sorted((name, tuple(tuple(pair) for pair in labels), float(value)) for (name, labels), value in decoded)

    def first_time(self, group: str, member: str) -> bool:
        """True exactly once per (group, member), across every process."""
        return bool(self.kv.set(f"{PREFIX}seen:{group}:{member}", "1", nx=True))

    def get_value(self, name: str) -> str | None:
        value = self.kv.get(f"{PREFIX}kv:{name}")
        return None if value is None else str(value)

    def set_value(self, name: str, value: str) -> None:
        self.kv.set(f"{PREFIX}kv:{name}", value)


SCHEMA = """
CREATE TABLE IF NOT EXISTS strings (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS zsets (key TEXT NOT NULL, member TEXT NOT NULL, score REAL NOT NULL,
    PRIMARY KEY (key, member)) WITHOUT ROWID;
"""  # a sorted set holds at most a few hundred members (recent deliveries, leases): no index by score


class SqliteKV:
    """The Redis commands the store uses (strings and sorted sets, redis-py's signatures) on one
    SQLite file. Each thread of each process opens its own connection (a forked worker never
    reuses its parent's); a transaction is `BEGIN IMMEDIATE`, so concurrent writers take turns."""

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

    def atomic(self, decide: Callable[[SqliteKV], T], *_read: str,
               assume: Mapping[str, str | None] | None = None) -> T:
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            value = decide(self)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return value

    def ping(self) -> bool:
        return self.conn.execute("SELECT 1").fetchone() == (1,)

    def get(self, key: str) -> str | None:
        row = self.conn.execute("SELECT value FROM strings WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def mget(self, keys: Sequence[str]) -> list[str | None]:
        return [self.get(key) for key in keys]

    def set(self, key: str, value: str, nx: bool = False) -> bool:
        verb = "INSERT OR IGNORE" if nx else "INSERT OR REPLACE"
        return self.conn.execute(f"{verb} INTO strings VALUES (?, ?)", (key, value)).rowcount == 1

    def delete(self, *keys: str) -> None:
        self.conn.executemany("DELETE FROM strings WHERE key = ?", [(key,) for key in keys])

    def zadd(self, key: str, mapping: Mapping[str, float]) -> None:
        self.conn.executemany("INSERT OR REPLACE INTO zsets VALUES (?, ?, ?)",
                              [(key, member, score) for member, score in mapping.items()])

    def zincrby(self, key: str, amount: float, member: str) -> None:
        self.conn.execute("INSERT INTO zsets VALUES (?, ?, ?) ON CONFLICT (key, member) "
                          "DO UPDATE SET score = score + excluded.score", (key, member, amount))

    def zrem(self, key: str, *members: str) -> None:
        self.conn.executemany("DELETE FROM zsets WHERE key = ? AND member = ?", [(key, m) for m in members])

    def zrange(self, key: str, start: int, end: int, desc: bool = False, withscores: bool = False) -> list[Any]:
        order = "DESC" if desc else "ASC"
        rows = self.conn.execute(f"SELECT member, score FROM zsets WHERE key = ? ORDER BY score {order}, "
                                 f"member {order} LIMIT ? OFFSET ?",
                                 (key, -1 if end < 0 else end - start + 1, start)).fetchall()
        return [(m, s) for m, s in rows] if withscores else [m for m, _ in rows]

    def zrangebyscore(self, key: str, low: float, high: float) -> list[str]:
        rows = self.conn.execute("SELECT member FROM zsets WHERE key = ? AND score BETWEEN ? AND ? ORDER BY score",
                                 (key, low, high))
        return [m for m, in rows]

    def zremrangebyrank(self, key: str, start: int, end: int) -> None:
        """Only as the store calls it, (0, -n - 1): keep the n highest — at one call in n, at random,
        so that the sort is paid once per n calls, not at each (no reader asks for more than n)."""
        keep = -end - 1
        if random.random() * keep < 1:
            self.conn.execute("DELETE FROM zsets WHERE key = ? AND score < (SELECT score FROM zsets WHERE key = ? "
                              "ORDER BY score DESC LIMIT 1 OFFSET ?)", (key, key, keep - 1))


# KEYS: the keys a decision read; ARGV: what each held ('' for none: nothing stored is empty), then
# the decision's writes as a JSON list of commands
APPLY = """
for i, key in ipairs(KEYS) do
  if (redis.call('GET', key) or '') ~= ARGV[i] then return 0 end
end
for _, write in ipairs(cjson.decode(ARGV[#KEYS + 1])) do redis.call(unpack(write)) end
return 1
"""


class RedisKV:
    """A Redis client whose transactions are optimistic: the decision reads, its writes go to
    `APPLY` with what it read, and it runs again when another process changed a key meanwhile."""

    def __init__(self, url: str) -> None:
        import redis

        self.client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5, decode_responses=True)
        self._apply = self.client.register_script(APPLY)

    def __getattr__(self, command: str) -> Any:
        """Outside a transaction, the client's own commands."""
        return getattr(self.client, command)

    def atomic(self, decide: Callable[[_Decision], T], *read: str, assume: Mapping[str, str | None] | None = None) -> T:
        while True:
            decision = _Decision(self.client, dict(assume) if assume else {})
            if not assume:
                decision.read_now(*read)
            assume = None
            value = decide(decision)
            if not decision.writes:
                return value
            keys = list(decision.read)
            if self._apply(keys=keys, args=[*(decision.read[k] or "" for k in keys), json.dumps(decision.writes)]):
                return value


class _Decision:
    """One decision's view of Redis: the values it read, and the writes it makes (kept for `APPLY`)."""

    def __init__(self, client: Any, read: dict[str, str | None]) -> None:
        self.client, self.read, self.writes = client, read, []

    def read_now(self, *keys: str) -> None:
        if keys:
            self.read.update(zip(keys, self.client.mget(keys), strict=True))

    def get(self, key: str) -> str | None:
        return self.read[key]

    def set(self, key: str, value: str) -> None:
        self.writes.append(["SET", key, value])

    def delete(self, *keys: str) -> None:
        self.writes.append(["DEL", *keys])

    def zadd(self, key: str, mapping: Mapping[str, float]) -> None:
        self.writes.append(["ZADD", key, *chain.from_iterable((repr(float(s)), m) for m, s in mapping.items())])

    def zincrby(self, key: str, amount: float, member: str) -> None:
        self.writes.append(["ZINCRBY", key, repr(float(amount)), member])

    def zrem(self, key: str, *members: str) -> None:
        self.writes.append(["ZREM", key, *members])

    def zremrangebyrank(self, key: str, start: int, end: int) -> None:
        self.writes.append(["ZREMRANGEBYRANK", key, str(start), str(end)])
