"""The store on Redis (scale-out: serve replicas and workers on many machines share it).

Decisions that read and then write run as Lua scripts, which Redis executes atomically.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .store import RECENT, UNQUEUED_AFTER, Labels, MetricKind, Record, Sample, State

PREFIX = "memshelf-bot:"
RECENT_KEY = PREFIX + "recent"
LEASE_UNTIL, LEASE_WORKER, LEASE_TASK = PREFIX + "lease:until", PREFIX + "lease:worker", PREFIX + "lease:task"
SAMPLES_KEY = {MetricKind.COUNTER: PREFIX + "counters", MetricKind.GAUGE: PREFIX + "gauges"}

# KEYS: record, recent; ARGV: now, unqueued-after, event, action, repository, key, recent size
CLAIM = """
local state = redis.call('HGET', KEYS[1], 'state')
if state and state ~= 'failed' and not (state == 'received' and
   tonumber(ARGV[1]) - tonumber(redis.call('HGET', KEYS[1], 'received_at')) > tonumber(ARGV[2])) then
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'event', ARGV[3], 'action', ARGV[4], 'repository', ARGV[5], 'state', 'received',
           'received_at', ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[6])
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, -tonumber(ARGV[7]) - 1)
return 1
"""
# KEYS: record, lease until, lease worker, lease task; ARGV: key, worker, until, task, now
START = """
local state = redis.call('HGET', KEYS[1], 'state')
if state ~= 'received' and state ~= 'queued' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'running', 'started_at', ARGV[5])
redis.call('HDEL', KEYS[1], 'finished_at')
redis.call('HINCRBY', KEYS[1], 'runs', 1)
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[4], ARGV[1], ARGV[4])
return 1
"""
# KEYS: lease until, lease worker; ARGV: key, worker, until
RENEW = """
if redis.call('HGET', KEYS[2], ARGV[1]) == ARGV[2] then redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[1]) end
return 0
"""
# KEYS: record, lease until, lease worker, lease task; ARGV: key, state, detail, worker, finished_at, hold
# With a worker: running → state, and that worker's lease dropped (or held until `hold`).
# Without: unfinished → state.
SETTLE = """
local state = redis.call('HGET', KEYS[1], 'state')
local worker = ARGV[4]
if (worker ~= '' and state == 'running') or
   (worker == '' and state and state ~= 'succeeded' and state ~= 'failed') then
  redis.call('HSET', KEYS[1], 'state', ARGV[2], 'detail', ARGV[3])
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'finished_at', ARGV[5]) end
end
if worker ~= '' and redis.call('HGET', KEYS[3], ARGV[1]) == worker then
  if ARGV[6] ~= '0' then redis.call('ZADD', KEYS[2], ARGV[6], ARGV[1]) return 1 end
  redis.call('ZREM', KEYS[2], ARGV[1])
  redis.call('HDEL', KEYS[3], ARGV[1])
  redis.call('HDEL', KEYS[4], ARGV[1])
end
return 1
"""
# KEYS: lease until, lease worker, lease task; ARGV: now, record prefix
LAPSED = """
local found = {}
for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1])) do
  local task = redis.call('HGET', KEYS[3], key)
  redis.call('ZREM', KEYS[1], key)
  redis.call('HDEL', KEYS[2], key)
  redis.call('HDEL', KEYS[3], key)
  local record = ARGV[2] .. key
  if redis.call('HGET', record, 'state') == 'running' then redis.call('HSET', record, 'state', 'queued') end
  if task then table.insert(found, key); table.insert(found, task) end
end
return found
"""
# KEYS: record; ARGV: from, to
IF_STATE = """
if redis.call('HGET', KEYS[1], 'state') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', ARGV[2])
return 1
"""
# KEYS: record, recent; ARGV: key
RELEASE_CLAIM = """
if redis.call('HGET', KEYS[1], 'state') ~= 'received' then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
"""
# KEYS: lock; ARGV: owner, ttl ms
ACQUIRE = """
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""
RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _record(key: str, raw: dict[bytes, bytes]) -> Record:
    values = {_text(k): _text(v) for k, v in raw.items()}
    return Record(key=key, event=values.get("event", ""), action=values.get("action", ""),
                  repository=values.get("repository", ""), state=State(values["state"]),
                  received_at=float(values.get("received_at", 0)),
                  started_at=float(values["started_at"]) if values.get("started_at") else None,
                  finished_at=float(values["finished_at"]) if values.get("finished_at") else None,
                  runs=int(values.get("runs", 0)), detail=values.get("detail", ""))


class RedisStore:
    def __init__(self, url: str) -> None:
        import redis

        self.url = url
        self.client = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
        script = self.client.register_script
        self._claim, self._start, self._renew = script(CLAIM), script(START), script(RENEW)
        self._settle, self._lapsed, self._if_state = script(SETTLE), script(LAPSED), script(IF_STATE)
        self._acquire, self._release = script(ACQUIRE), script(RELEASE)
        self._release_claim = script(RELEASE_CLAIM)

    @staticmethod
    def _key(key: str) -> str:
        return f"{PREFIX}delivery:{key}"

    def _lease_keys(self, key: str) -> list[str]:
        return [self._key(key), LEASE_UNTIL, LEASE_WORKER, LEASE_TASK]

    def ping(self) -> bool:
        import redis

        try:
            return bool(self.client.ping())
        except redis.RedisError:
            return False

    def claim(self, record: Record) -> bool:
        return bool(self._claim(keys=[self._key(record.key), RECENT_KEY],
                                args=[repr(record.received_at), UNQUEUED_AFTER, record.event, record.action,
                                      record.repository, record.key, RECENT]))

    def set_queued(self, key: str) -> None:
        self._if_state(keys=[self._key(key)], args=[State.RECEIVED, State.QUEUED])

    def release_claim(self, key: str) -> None:
        self._release_claim(keys=[self._key(key), RECENT_KEY], args=[key])

    def start(self, key: str, worker: str, until: float, task: str, now: float) -> bool:
        return bool(self._start(keys=self._lease_keys(key), args=[key, worker, repr(until), task, repr(now)]))

    def renew(self, key: str, worker: str, until: float) -> None:
        self._renew(keys=[LEASE_UNTIL, LEASE_WORKER], args=[key, worker, repr(until)])

    def park(self, key: str, state: State, detail: str, worker: str, hold: float = 0.0) -> None:
        self._settle(keys=self._lease_keys(key), args=[key, state, detail, worker, "", repr(hold) if hold else "0"])

    def finish(self, keys: Sequence[str], state: State, detail: str, now: float) -> None:
        pipe = self.client.pipeline()
        for key in keys:
            self._settle(keys=self._lease_keys(key), args=[key, state, detail, "", repr(now), "0"], client=pipe)
        pipe.execute()

    def lapsed(self, now: float) -> Sequence[tuple[str, str]]:
        flat = [_text(v) for v in self._lapsed(keys=[LEASE_UNTIL, LEASE_WORKER, LEASE_TASK],
                                               args=[repr(now), self._key("")])]
        return list(zip(flat[::2], flat[1::2], strict=True))

    def get(self, key: str) -> Record | None:
        raw = self.client.hgetall(self._key(key))
        return _record(key, raw) if raw else None

    def recent(self, limit: int) -> Sequence[Record]:
        keys = [_text(k) for k in self.client.zrevrange(RECENT_KEY, 0, min(limit, RECENT) - 1)]
        pipe = self.client.pipeline()
        for key in keys:
            pipe.hgetall(self._key(key))
        return [_record(key, raw) for key, raw in zip(keys, pipe.execute(), strict=True) if raw]

    def acquire(self, lock: str, owner: str, ttl: float) -> bool:
        return bool(self._acquire(keys=[PREFIX + "lock:" + lock], args=[owner, max(int(ttl * 1000), 1)]))

    def release(self, lock: str, owner: str) -> None:
        self._release(keys=[PREFIX + "lock:" + lock], args=[owner])

    def add_pending(self, lock: str, key: str) -> None:
        self.client.sadd(PREFIX + "pending:" + lock, key)

    def pending(self, lock: str) -> Sequence[str]:
        return sorted(_text(k) for k in self.client.smembers(PREFIX + "pending:" + lock))

    def drop_pending(self, lock: str, keys: Sequence[str]) -> None:
        if keys:
            self.client.srem(PREFIX + "pending:" + lock, *keys)

    def add(self, counts: Sequence[tuple[str, Labels, float]]) -> None:
        pipe = self.client.pipeline(transaction=False)
        for name, labels, amount in counts:
            pipe.hincrbyfloat(SAMPLES_KEY[MetricKind.COUNTER], json.dumps([name, sorted(labels)]), amount)
        pipe.execute()

    def set_gauge(self, name: str, labels: Labels, value: float) -> None:
        self.client.hset(SAMPLES_KEY[MetricKind.GAUGE], json.dumps([name, sorted(labels)]), repr(value))

    def samples(self) -> Sequence[Sample]:
        out = []
        for kind, key in SAMPLES_KEY.items():
            for field, value in self.client.hgetall(key).items():
                name, labels = json.loads(field)
                out.append(Sample(kind, name, tuple(tuple(pair) for pair in labels), float(value)))
        return sorted(out, key=lambda s: (s.name, s.labels))

    def first_time(self, group: str, member: str) -> bool:
        return self.client.sadd(PREFIX + "seen:" + group, member) == 1

    def get_value(self, name: str) -> str | None:
        value = self.client.get(PREFIX + "kv:" + name)
        return _text(value) if value is not None else None

    def set_value(self, name: str, value: str) -> None:
        self.client.set(PREFIX + "kv:" + name, value)
