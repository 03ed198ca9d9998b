"""The store on Redis (scale-out: serve replicas and workers on many machines share it).

Decisions that read and then write run as Lua scripts, which Redis executes atomically.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .store import (
    RECENT,
    STALE_CLAIM,
    Delivery,
    DeliveryState,
    Labels,
    MetricKind,
    NewDelivery,
    Sample,
    owner_alive,
)

PREFIX = "memshelf-bot:"
RECENT_KEY = PREFIX + "recent"
RUNNING_KEY = PREFIX + "running"
SAMPLES_KEY = {MetricKind.COUNTER: PREFIX + "counters", MetricKind.GAUGE: PREFIX + "gauges"}
FLOATS = ("received_at", "started_at", "finished_at", "lease_until")
INTS = ("runs", "attempts")

# KEYS: record, payload; ARGV: now, stale, event, action, repository, payload, running-or-lost flag
CLAIM = """
local state = redis.call('HGET', KEYS[1], 'state')
if state then
  if state == 'succeeded' then return 0 end
  if state == 'running' and ARGV[7] ~= '1' then return 0 end
  if (state == 'received' or state == 'queued') and
     tonumber(ARGV[1]) - tonumber(redis.call('HGET', KEYS[1], 'received_at')) <= tonumber(ARGV[2]) then
    return 0
  end
end
local runs = redis.call('HGET', KEYS[1], 'runs') or 0
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'event', ARGV[3], 'action', ARGV[4], 'repository', ARGV[5],
           'state', 'received', 'received_at', ARGV[1], 'runs', runs)
redis.call('SET', KEYS[2], ARGV[6])
return 1
"""
# KEYS: record; ARGV: owner, lease_until, now
START = """
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'received' and state ~= 'queued' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'running', 'owner', ARGV[1], 'lease_until', ARGV[2], 'started_at', ARGV[3])
redis.call('HDEL', KEYS[1], 'finished_at')
redis.call('HINCRBY', KEYS[1], 'runs', 1)
return 1
"""
# KEYS: record; ARGV: the state expected, then field/value pairs to set when it is in that state
IF_STATE = """
if redis.call('HGET', KEYS[1], 'state') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
return 1
"""
# KEYS: record, payload
RELEASE_CLAIM = """
if redis.call('HGET', KEYS[1], 'state') ~= 'received' then return 0 end
redis.call('DEL', KEYS[1], KEYS[2])
return 1
"""
# KEYS: lock; ARGV: owner, ttl ms, force (the holder is dead)
ACQUIRE = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] and ARGV[3] ~= '1' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _delivery(key: str, raw: dict[bytes, bytes]) -> Delivery:
    values: dict[str, Any] = {_text(k): _text(v) for k, v in raw.items()}
    return Delivery(
        key=key, event=values.get("event", ""), action=values.get("action", ""),
        repository=values.get("repository", ""), state=DeliveryState(values["state"]),
        received_at=float(values.get("received_at", 0)),
        started_at=float(values["started_at"]) if values.get("started_at") else None,
        finished_at=float(values["finished_at"]) if values.get("finished_at") else None,
        runs=int(values.get("runs", 0)), attempts=int(values.get("attempts", 0)),
        owner=values.get("owner", ""), lease_until=float(values.get("lease_until") or 0),
        detail=values.get("detail", ""),
    )


class RedisStore:
    def __init__(self, url: str) -> None:
        import redis

        self.url = url
        self.client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
        self._claim = self.client.register_script(CLAIM)
        self._start = self.client.register_script(START)
        self._if_state = self.client.register_script(IF_STATE)
        self._acquire = self.client.register_script(ACQUIRE)
        self._release = self.client.register_script(RELEASE)
        self._release_claim = self.client.register_script(RELEASE_CLAIM)

    @staticmethod
    def _record(key: str) -> str:
        return f"{PREFIX}delivery:{key}"

    @staticmethod
    def _payload(key: str) -> str:
        return f"{PREFIX}payload:{key}"

    def ping(self) -> bool:
        import redis

        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def claim(self, new: NewDelivery, now: float) -> bool:
        current = self.get(new.key)
        lost = current is not None and current.state is DeliveryState.RUNNING and (
            current.lease_until < now or not owner_alive(current.owner))
        claimed = self._claim(keys=[self._record(new.key), self._payload(new.key)],
                              args=[repr(now), STALE_CLAIM, new.event, new.action, new.repository,
                                    new.payload, "1" if lost else "0"])
        if claimed:
            pipe = self.client.pipeline()
            pipe.zadd(RECENT_KEY, {new.key: now})
            pipe.zremrangebyrank(RECENT_KEY, 0, -RECENT - 1)
            pipe.execute()
        return bool(claimed)

    def set_queued(self, key: str) -> None:
        self._if_state(keys=[self._record(key)], args=[DeliveryState.RECEIVED, "state", DeliveryState.QUEUED])

    def release_claim(self, key: str) -> None:
        if self._release_claim(keys=[self._record(key), self._payload(key)]):
            self.client.zrem(RECENT_KEY, key)

    def start(self, key: str, owner: str, lease_until: float, now: float) -> bool:
        if not self._start(keys=[self._record(key)], args=[owner, repr(lease_until), repr(now)]):
            return False
        self.client.sadd(RUNNING_KEY, key)
        return True

    def renew(self, key: str, owner: str, lease_until: float) -> None:
        if _text(self.client.hget(self._record(key), "owner") or b"") == owner:
            self._if_state(keys=[self._record(key)], args=[DeliveryState.RUNNING, "lease_until", repr(lease_until)])

    def finish(self, key: str, state: DeliveryState, detail: str, now: float) -> None:
        if self._if_state(keys=[self._record(key)],
                            args=[DeliveryState.RUNNING, "state", state, "detail", detail, "finished_at", repr(now), "lease_until", 0]):
            self.client.delete(self._payload(key))
            self.client.srem(RUNNING_KEY, key)

    def retry(self, key: str, detail: str) -> int:
        if self._if_state(keys=[self._record(key)],
                            args=[DeliveryState.RUNNING, "state", DeliveryState.QUEUED, "detail", detail, "lease_until", 0]):
            self.client.srem(RUNNING_KEY, key)
            return int(self.client.hincrby(self._record(key), "attempts", 1))
        return int(self.client.hget(self._record(key), "attempts") or 0)

    def get(self, key: str) -> Delivery | None:
        raw = self.client.hgetall(self._record(key))
        return _delivery(key, raw) if raw else None

    def payload(self, key: str) -> bytes | None:
        value = self.client.get(self._payload(key))
        return bytes(value) if value is not None else None

    def recover_lost(self, now: float) -> Sequence[str]:
        lost = []
        for raw_key in self.client.smembers(RUNNING_KEY):
            key = _text(raw_key)
            current = self.get(key)
            if current is None or current.state is not DeliveryState.RUNNING:
                self.client.srem(RUNNING_KEY, key)
                continue
            if current.lease_until >= now and owner_alive(current.owner):
                continue
            if self.client.srem(RUNNING_KEY, key) and self._if_state(
                    keys=[self._record(key)], args=[DeliveryState.RUNNING, "state", DeliveryState.QUEUED, "lease_until", 0]):
                lost.append(key)
        return lost

    def recent(self, limit: int) -> Sequence[Delivery]:
        keys = [_text(k) for k in self.client.zrevrange(RECENT_KEY, 0, min(limit, RECENT) - 1)]
        pipe = self.client.pipeline()
        for key in keys:
            pipe.hgetall(self._record(key))
        return [_delivery(key, raw) for key, raw in zip(keys, pipe.execute(), strict=True) if raw]

    def add(self, name: str, labels: Labels, amount: float = 1.0) -> None:
        self.client.hincrbyfloat(SAMPLES_KEY[MetricKind.COUNTER], json.dumps([name, sorted(labels)]), amount)

    def set_gauge(self, name: str, labels: Labels, value: float) -> None:
        self.client.hset(SAMPLES_KEY[MetricKind.GAUGE], json.dumps([name, sorted(labels)]), repr(value))

    def samples(self) -> Sequence[Sample]:
        out = []
        for kind, key in SAMPLES_KEY.items():
            for field, value in self.client.hgetall(key).items():
                name, labels = json.loads(field)
                out.append(Sample(kind, name, tuple(tuple(pair) for pair in labels), float(value)))
        return sorted(out, key=lambda s: (s.name, s.labels))

    def acquire(self, lock: str, owner: str, ttl: float) -> bool:
        key = PREFIX + "lock:" + lock
        holder = self.client.get(key)
        dead = holder is not None and not owner_alive(_text(holder))
        return bool(self._acquire(keys=[key], args=[owner, int(ttl * 1000), "1" if dead else "0"]))

    def release(self, lock: str, owner: str) -> None:
        self._release(keys=[PREFIX + "lock:" + lock], args=[owner])

    def mark(self, name: str) -> None:
        self.client.set(PREFIX + "mark:" + name, 1)

    def take_mark(self, name: str) -> bool:
        return self.client.delete(PREFIX + "mark:" + name) == 1

    def has_mark(self, name: str) -> bool:
        return bool(self.client.exists(PREFIX + "mark:" + name))

    def first_time(self, group: str, member: str) -> bool:
        return self.client.sadd(PREFIX + "seen:" + group, member) == 1

    def get_value(self, name: str) -> str | None:
        value = self.client.get(PREFIX + "kv:" + name)
        return _text(value) if value is not None else None

    def set_value(self, name: str, value: str) -> None:
        self.client.set(PREFIX + "kv:" + name, value)
