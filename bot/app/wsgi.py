"""The two WSGI applications: the webhook listener (`POST /webhook`, `GET /healthz`), which faces
the internet, and the admin listener (`GET /` the status page, `GET /metrics`), which stays private.

`POST /webhook` does only what must happen before GitHub's 10 s: check the size and the
signature, route the event once, claim the delivery in the store (the de-duplication) and
enqueue the routed event. Nothing from an unsigned body is parsed or logged. When the queue or
the store is unreachable it answers 503 with `Retry-After`; the redelivery sweep fetches the
delivery again later.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import html
import json
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from memshelf_render.redact import mask

from ..events import Event
from ..router import route
from . import metrics
from .logs import cap, log
from .store import Record, State, Store, delivery_key

MAX_BODY = 25 * 1024 * 1024  # GitHub caps payloads at 25 MB
RETRY_AFTER = "60"  # seconds, when the queue is unreachable
KNOWN_EVENTS = frozenset({"ping", "push", "pull_request", "issue_comment", "check_run", "check_suite",
                          "merge_group", "installation", "installation_repositories", "pull_request_review",
                          "pull_request_review_comment", "issues", "create", "delete", "status",
                          "workflow_run", "github_app_authorization"})
StartResponse = Callable[..., Any]
Enqueue = Callable[[str, str], None]  # (delivery key, routed event)


SIGNATURE_PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """GitHub's `X-Hub-Signature-256` for `body` under `secret` (HMAC-SHA256 of the raw body)."""
    return SIGNATURE_PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, header: str | None) -> bool:
    """True only for the exact signature of `body`; compared in constant time."""
    if not header or not header.startswith(SIGNATURE_PREFIX):
        return False
    return hmac.compare_digest(sign(secret, body).encode("ascii"), header.strip().encode("ascii", "replace"))


def _event_label(name: str) -> str:
    """Metric labels only from a known set: a forged header cannot grow the series."""
    return name if name in KNOWN_EVENTS else "other"


@dataclass
class WebhookApp:
    secret: bytes
    store: Store
    enqueue: Enqueue
    healthy: Callable[[], bool]
    clock: Callable[[], float] = time.time

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", "/")
        if path == "/webhook":
            if method != "POST":
                return _reply(start_response, 405, {"error": "POST only"}, [("Allow", "POST")])
            return self.webhook(environ, start_response)
        if path == "/healthz":
            if method not in ("GET", "HEAD"):
                return _reply(start_response, 405, {"error": "GET only"}, [("Allow", "GET, HEAD")])
            ok = self.healthy()
            return _reply(start_response, 200 if ok else 503, {"status": "ok" if ok else "queue unreachable"})
        return _reply(start_response, 404, {"error": "not found"})

    def webhook(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        event = str(environ.get("HTTP_X_GITHUB_EVENT", ""))
        label = _event_label(event)
        length = str(environ.get("CONTENT_LENGTH") or "").strip()
        if not length.isdigit():
            return _reply(start_response, 411, {"error": "Content-Length required"})
        if int(length) > MAX_BODY:
            metrics.count_delivery(self.store, label, "too-large")
            return _reply(start_response, 413, {"error": f"payload over {MAX_BODY} bytes"})
        body = environ["wsgi.input"].read(int(length))
        if not verify(self.secret, body, environ.get("HTTP_X_HUB_SIGNATURE_256")):
            metrics.count_delivery(self.store, label, "unauthorized")
            log("webhook.unauthorized", gh_event=label)
            return _reply(start_response, 401, {"error": "bad or missing X-Hub-Signature-256"})
        guid = str(environ.get("HTTP_X_GITHUB_DELIVERY", "")).strip()
        hook = str(environ.get("HTTP_X_GITHUB_HOOK_ID", "")).strip()
        if event == "ping":
            metrics.count_delivery(self.store, label, "ping")
            return _reply(start_response, 200, {"ok": True})
        if not guid or not event:
            return _reply(start_response, 400, {"error": "X-GitHub-Event and X-GitHub-Delivery are required"})
        try:
            payload = json.loads(body)
        except ValueError:
            return _reply(start_response, 400, {"error": "the body is not JSON"})
        routed = route(Event.from_payload(event, payload)) if isinstance(payload, dict) else None
        if routed is None or routed.installation_id is None:  # the App acts only on its installations' events
            metrics.count_delivery(self.store, label, "ignored")
            return _reply(start_response, 202, {"status": "ignored"})
        key = delivery_key(guid, hook)
        action = str(payload.get("action") or "")
        try:
            record = Record(key, event, action, routed.repository, State.RECEIVED, self.clock())
            if not self.store.claim(record):
                metrics.count_delivery(self.store, label, "duplicate")
                log("webhook.duplicate", delivery=cap(key), gh_event=label)
                return _reply(start_response, 202, {"status": "duplicate"})
            try:
                if routed.lock is not None:
                    self.store.add_pending(routed.lock, key)  # a render job in progress takes it along
                self.enqueue(key, routed.to_json())
            except Exception:
                with contextlib.suppress(Exception):  # the store is down too: UNQUEUED_AFTER frees the claim
                    self.store.release_claim(key)  # its redelivery is new
                raise
            self.store.set_queued(key, record)
        except Exception as exc:  # the queue or the store is down (its backend's own error type)
            metrics.count_delivery(self.store, label, "unqueued")
            log("webhook.unqueued", logging.ERROR, delivery=cap(key), error=type(exc).__name__)
            return _reply(start_response, 503, {"error": "the queue is unreachable; redeliver later"},
                          [("Retry-After", RETRY_AFTER)])
        metrics.count_delivery(self.store, label, "queued")
        log("webhook.queued", delivery=cap(key), gh_event=label, action=cap(action, 40), repository=routed.repository,
            flow=routed.flow, branch=mask(cap(routed.branch, 100)))  # a branch is the pusher's
        return _reply(start_response, 202, {"status": "queued"})


@dataclass
class AdminApp:
    """The status page and the metrics: repository names and activity are private, so this
    listens on the admin address (loopback by default), never on the webhook's."""

    store: Store
    queue_depth: Callable[[], int]
    clock: Callable[[], float] = time.time

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        method, path = environ.get("REQUEST_METHOD", "GET"), environ.get("PATH_INFO", "/")
        if method not in ("GET", "HEAD"):
            return _reply(start_response, 405, {"error": "GET only"}, [("Allow", "GET, HEAD")])
        if path == "/metrics":
            body = metrics.exposition(self.store, self.queue_depth)
            return _raw(start_response, 200, body, "text/plain; version=0.0.4; charset=utf-8")
        if path == "/":
            try:
                recent, depth = self.store.recent(50), self.queue_depth()
            except Exception:  # the store is down: say so rather than answer 500
                return _reply(start_response, 503, {"error": "the queue is unreachable"}, [("Retry-After", RETRY_AFTER)])
            page = render_status(recent, depth, self.clock())
            return _raw(start_response, 200, page.encode("utf-8"), "text/html; charset=utf-8")
        return _reply(start_response, 404, {"error": "not found"})


STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#1f2328}
h1{font-size:1.4rem}table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #d0d7de;padding:.35rem .6rem;text-align:left}
th{background:#f6f8fa}.succeeded{color:#1a7f37}.failed{color:#cf222e}.running,.queued,.received,.coalesced{color:#9a6700}
"""


def render_status(recent: Sequence[Record], queue_depth: int, now: float) -> str:
    """The status page: what the store records about each recent delivery (event, repository,
    outcome, duration), every value escaped; never a payload, a token or the App's key."""
    def when(ts: float) -> str:
        ago = max(now - ts, 0)
        return f"{ago:.0f} s ago" if ago < 120 else time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ts))

    def row(d: Record) -> str:
        cells = [d.event + (f".{d.action}" if d.action else ""), d.repository, d.state.value,
                 f"{d.duration:.2f} s" if d.duration is not None else "", when(d.received_at), d.detail[:160]]
        return f'<tr class="{html.escape(d.state.value)}">' + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>"

    rows = "\n".join(row(d) for d in recent) or '<tr><td colspan="6">no deliveries yet</td></tr>'
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>memshelf-bot</title><style>{STYLE}</style></head>
<body><h1>memshelf-bot</h1>
<p>Queue depth: <strong id="queue-depth">{int(queue_depth)}</strong></p>
<h2>Recent deliveries</h2>
<table id="deliveries"><thead><tr><th>event</th><th>repository</th><th>outcome</th><th>duration</th>
<th>received</th><th>detail</th></tr></thead>
<tbody>
{rows}
</tbody></table></body></html>
"""


def _raw(start_response: StartResponse, status: int, body: bytes, content_type: str,
         extra: list[tuple[str, str]] | None = None) -> Iterable[bytes]:
    reason = {200: "OK", 202: "Accepted", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
              405: "Method Not Allowed", 411: "Length Required", 413: "Content Too Large",
              503: "Service Unavailable"}[status]
    headers = [("Content-Type", content_type), ("Content-Length", str(len(body))),
               ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff")]
    start_response(f"{status} {reason}", headers + (extra or []))
    return [body]


def _reply(start_response: StartResponse, status: int, data: dict[str, Any],
           extra: list[tuple[str, str]] | None = None) -> Iterable[bytes]:
    return _raw(start_response, status, json.dumps(data).encode("utf-8") + b"\n", "application/json", extra)
