"""Webhook delivery: signed POSTs to the configured URL, in order, from one background thread.

A delivery is recorded (for `GET /app/hook/deliveries`) with GitHub's fields: a `guid` (the
`X-GitHub-Delivery` header, kept by redeliveries), `status`/`status_code`/`duration` of the
attempt, `redelivery`, `event`/`action`, the installation and repository. The request that caused
an event never waits for its delivery. Headers are GitHub's: `X-GitHub-Event`,
`X-GitHub-Delivery`, `X-Hub-Signature-256` (`sha256=` HMAC of the raw body; and the legacy
SHA-1 `X-Hub-Signature`), `X-GitHub-Hook-ID`, `X-GitHub-Hook-Installation-Target-Type`/`-ID`
(`integration` + the App id for an App's hook, else `repository` + its id), and
`User-Agent: GitHub-Hookshot/…`.

Misbehaving on purpose (`mode`): `drop_next=n` records the next n attempts as failed without
sending them (`status_code` 502, status "failed to connect to host (dropped by the sandbox)"; a
refused connection is recorded the same way), `duplicate_next=n` sends each of the next n
deliveries twice (two records with the same guid, neither a redelivery). `redeliver(id)` sends a
recorded delivery again, as `POST /app/hook/deliveries/{id}/attempts` does.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import http.client
import itertools
import json
import queue
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

HOOKSHOT = "GitHub-Hookshot/8e03811"
TIMEOUT = 10.0  # seconds; GitHub gives up on a webhook after 10 s
DROPPED = "failed to connect to host (dropped by the sandbox)"
UNREACHABLE = "failed to connect to host"
RESPONSE_CAP = 65536


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


@dataclass
class Delivery:
    id: int
    guid: str
    event: str
    action: str | None
    body: bytes
    installation_id: int | None
    repository_id: int | None
    redelivery: bool = False
    delivered_at: str = ""
    status: str = "pending"
    status_code: int = 0
    duration: float = 0.0
    request_headers: dict[str, str] = field(default_factory=dict)
    response_headers: dict[str, str] = field(default_factory=dict)
    response_body: str | None = None
    unchecked: bool = False  # a new payload its schema has not yet seen

    def item(self) -> dict[str, Any]:
        """The `hook-delivery-item` GitHub lists."""
        return {"id": self.id, "guid": self.guid, "delivered_at": self.delivered_at, "redelivery": self.redelivery,
                "duration": round(self.duration, 3), "status": self.status, "status_code": self.status_code,
                "event": self.event, "action": self.action, "installation_id": self.installation_id,
                "repository_id": self.repository_id, "throttled_at": None}


class Deliveries:
    """The hook: where to send, the secret, the record of every attempt, the sending thread."""

    def __init__(self, url: str, secret: str, hook_id: int, target_type: str, target_id: int,
                 check: Callable[[str, dict[str, Any]], None] | None = None) -> None:
        self.url = url
        self._check = check  # validates a payload (by its schema name) in the sending thread
        self._secret = secret
        self.hook_id = hook_id
        self.target = (target_type, target_id)
        self._ids = itertools.count(12_000_000_001)
        self._lock = threading.Condition()
        self._records: dict[int, Delivery] = {}
        self._queue: queue.Queue[Delivery | None] = queue.Queue()
        self._pending = 0
        self.drop_next = 0
        self.duplicate_next = 0
        self._thread = threading.Thread(target=self._run, name="sandbox-webhooks", daemon=True)
        self._thread.start()

    # what the sandbox does --------------------------------------------------------------

    def send(self, event: str, action: str | None, payload: dict[str, Any], installation_id: int | None,
             repository_id: int | None) -> Delivery:
        """Queue one new delivery; returns its record at once. The payload is checked against its
        schema by the sending thread, before it is sent, so the request that caused it does not wait."""
        body = json.dumps(payload, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        record = self._new(str(uuid.uuid4()), event, action, body, installation_id, repository_id, False)
        record.unchecked = True
        self._enqueue(record)
        return record

    def redeliver(self, delivery_id: int) -> Delivery | None:
        with self._lock:
            original = self._records.get(delivery_id)
        if original is None:
            return None
        record = self._new(original.guid, original.event, original.action, original.body,
                           original.installation_id, original.repository_id, True)
        self._enqueue(record)
        return record

    def mode(self, drop_next: int | None = None, duplicate_next: int | None = None) -> dict[str, int]:
        with self._lock:
            if drop_next is not None:
                self.drop_next = max(0, drop_next)
            if duplicate_next is not None:
                self.duplicate_next = max(0, duplicate_next)
            return {"drop_next": self.drop_next, "duplicate_next": self.duplicate_next}

    def wait_idle(self, timeout: float = 30.0) -> bool:
        """Block until every queued delivery was attempted (True) or `timeout` passed (False)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while self._pending:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._lock.wait(left)
        return True

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=TIMEOUT + 5)

    # what GitHub's deliveries API shows ----------------------------------------------------

    def listing(self) -> list[dict[str, Any]]:
        """Every attempted delivery, newest first."""
        with self._lock:
            done = [r for r in self._records.values() if r.delivered_at]
        return [r.item() for r in sorted(done, key=lambda r: -r.id)]

    def record(self, delivery_id: int) -> dict[str, Any] | None:
        """The full `hook-delivery`: the item plus the request and response."""
        with self._lock:
            r = self._records.get(delivery_id)
        if r is None or not r.delivered_at:
            return None
        return {**r.item(), "url": self.url,
                "request": {"headers": dict(r.request_headers), "payload": json.loads(r.body)},
                "response": {"headers": dict(r.response_headers) or None, "payload": r.response_body}}

    # the thread ----------------------------------------------------------------------------

    def _new(self, guid: str, event: str, action: str | None, body: bytes, installation_id: int | None,
             repository_id: int | None, redelivery: bool) -> Delivery:
        record = Delivery(next(self._ids), guid, event, action, body, installation_id, repository_id, redelivery)
        with self._lock:
            self._records[record.id] = record
        return record

    def _enqueue(self, record: Delivery) -> None:
        with self._lock:
            self._pending += 1
        self._queue.put(record)

    def _run(self) -> None:
        while True:
            record = self._queue.get()
            if record is None:
                return
            with self._lock:
                drop = self.drop_next > 0
                self.drop_next -= drop
                twice = not drop and not record.redelivery and self.duplicate_next > 0
                self.duplicate_next -= twice
            if record.unchecked and self._check is not None:
                name = f"{record.event}.{record.action}" if record.action else record.event
                self._check(name, json.loads(record.body))
            self._attempt(record, drop)
            if twice:
                self._attempt(self._new(record.guid, record.event, record.action, record.body,
                                        record.installation_id, record.repository_id, False), False)
            with self._lock:
                self._pending -= 1
                self._lock.notify_all()

    def headers(self, record: Delivery) -> dict[str, str]:
        return {
            "Accept": "*/*", "Content-Type": "application/json", "User-Agent": HOOKSHOT,
            "X-GitHub-Delivery": record.guid, "X-GitHub-Event": record.event,
            "X-GitHub-Hook-ID": str(self.hook_id),
            "X-GitHub-Hook-Installation-Target-Type": self.target[0],
            "X-GitHub-Hook-Installation-Target-ID": str(self.target[1]),
            "X-Hub-Signature": "sha1=" + hmac.new(self._secret.encode(), record.body, hashlib.sha1).hexdigest(),
            "X-Hub-Signature-256": signature(self._secret, record.body),
        }

    def _post(self, body: bytes, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
        """One POST through http.client, which keeps header names as GitHub spells them."""
        url = urlsplit(self.url)
        kind = http.client.HTTPSConnection if url.scheme == "https" else http.client.HTTPConnection
        connection = kind(url.netloc, timeout=TIMEOUT)
        try:
            connection.request("POST", (url.path or "/") + (f"?{url.query}" if url.query else ""), body, headers)
            answer = connection.getresponse()
            return answer.status, dict(answer.getheaders()), answer.read(RESPONSE_CAP).decode("utf-8", "replace")
        finally:
            connection.close()

    def _attempt(self, record: Delivery, drop: bool) -> None:
        headers = self.headers(record)
        started = time.monotonic()
        status, code, response_headers, response = DROPPED, 502, {}, None
        if not drop:
            try:
                code, response_headers, response = self._post(record.body, headers)
                status = "OK" if 200 <= code < 300 else f"Invalid HTTP Response: {code}"
            except (OSError, http.client.HTTPException):
                status, code = UNREACHABLE, 502
        with self._lock:
            record.duration = time.monotonic() - started
            record.status, record.status_code = status, code
            record.request_headers = {k: v for k, v in headers.items()}
            record.response_headers, record.response_body = response_headers, response
            record.delivered_at = dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
