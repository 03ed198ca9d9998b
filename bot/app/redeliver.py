"""The periodic redelivery of the App's failed webhook deliveries (GitHub never retries one).

It lists the recent deliveries (`GET /app/hook/deliveries`), picks the GUIDs that have no
successful attempt, and asks for ONE redelivery of each (`POST …/{id}/attempts`): a GUID is
redelivered at most once, across every process, whatever the number of schedulers running this.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import requests
from github import GithubException

from .auth import InstallationTokens
from .logs import log
from .store import Store

PAGES = 3  # pages of 100 deliveries looked at per run (the most recent ones)
MAX_PER_RUN = 20  # redeliveries asked for per run
REDELIVERED = "redelivered"


@dataclass(frozen=True, slots=True)
class HookDelivery:
    id: int
    guid: str
    status_code: int

    @property
    def ok(self) -> bool:
        return 200 <= self.status_code < 300


def failed_guids(deliveries: Sequence[HookDelivery]) -> list[HookDelivery]:
    """The latest attempt of each GUID none of whose attempts succeeded, newest first."""
    succeeded = {d.guid for d in deliveries if d.ok}
    latest: dict[str, HookDelivery] = {}
    for delivery in deliveries:
        if delivery.guid not in succeeded and delivery.guid not in latest:
            latest[delivery.guid] = delivery
    return list(latest.values())


def _list(tokens: InstallationTokens) -> list[HookDelivery]:
    requester = tokens.integration.requester
    found: list[HookDelivery] = []
    cursor = ""
    for _ in range(PAGES):
        params: dict[str, Any] = {"per_page": 100}
        if cursor:
            params["cursor"] = cursor
        headers, data = requester.requestJsonAndCheck("GET", "/app/hook/deliveries", parameters=params)
        tokens.calls += 1
        found += [HookDelivery(int(d["id"]), str(d["guid"]), int(d.get("status_code") or 0))
                  for d in data if isinstance(d, dict)]
        cursor = _next_cursor(headers.get("link", ""))
        if not cursor:
            break
    return found


def _next_cursor(link: str) -> str:
    for part in link.split(","):
        if 'rel="next"' in part and "cursor=" in part:
            return part.split("cursor=", 1)[1].split("&", 1)[0].split(">", 1)[0]
    return ""


def redeliver_failed(tokens: InstallationTokens, store: Store) -> int:
    """Ask GitHub to redeliver each failed delivery once; how many were asked for."""
    try:
        deliveries = _list(tokens)
    except GithubException as exc:
        log("redeliver.list-failed", logging.WARNING, status=exc.status)
        return 0
    except requests.RequestException as exc:
        log("redeliver.list-failed", logging.WARNING, error=type(exc).__name__)
        return 0
    asked = 0
    requester = tokens.integration.requester
    for delivery in failed_guids(deliveries):
        if asked >= MAX_PER_RUN:
            break
        if not store.first_time(REDELIVERED, delivery.guid):
            continue
        try:
            requester.requestJsonAndCheck("POST", f"/app/hook/deliveries/{delivery.id}/attempts")
        except GithubException as exc:
            log("redeliver.failed", logging.WARNING, guid=delivery.guid, status=exc.status)
            continue
        finally:
            tokens.calls += 1
        asked += 1
        log("redeliver.asked", guid=delivery.guid)
    return asked
