"""The periodic redelivery of the App's failed webhook deliveries (GitHub never retries one).

It lists the recent deliveries (`GET /app/hook/deliveries`, newest first), picks the GUIDs that
have no successful attempt, and asks for ONE redelivery of each (`POST …/{id}/attempts`): a GUID
is redelivered at most once, across every process, whatever the number of schedulers running this.
"""

from __future__ import annotations

import logging
from itertools import islice

import requests
from github import GithubException
from github.HookDelivery import HookDeliverySummary
from github.PaginatedList import PaginatedList

from .auth import InstallationTokens
from .logs import log
from .store import Store

PAGES = 3  # pages of 100 deliveries looked at per run (the most recent ones)
MAX_PER_RUN = 20  # redeliveries asked for per run
REDELIVERED = "redelivered"


def redeliver_failed(tokens: InstallationTokens, store: Store) -> int:
    """Ask GitHub to redeliver each failed delivery once; how many were asked for."""
    requester = tokens.integration.requester
    listed = PaginatedList(HookDeliverySummary, requester, "/app/hook/deliveries", {"per_page": 100})
    try:
        deliveries = list(islice(listed, PAGES * 100))
    except GithubException as exc:
        log("redeliver.list-failed", logging.WARNING, status=exc.status)
        return 0
    except requests.RequestException as exc:
        log("redeliver.list-failed", logging.WARNING, error=type(exc).__name__)
        return 0
    succeeded = {d.guid for d in deliveries if 200 <= (d.status_code or 0) < 300}
    looked: set[str] = set()
    asked = 0
    for delivery in deliveries:  # the latest attempt of each GUID that never succeeded
        if delivery.guid in succeeded or delivery.guid in looked:
            continue
        looked.add(delivery.guid)
        if asked >= MAX_PER_RUN:
            break
        if not store.first_time(REDELIVERED, delivery.guid):
            continue
        try:
            requester.requestJsonAndCheck("POST", f"/app/hook/deliveries/{delivery.id}/attempts")
        except GithubException as exc:
            log("redeliver.failed", logging.WARNING, guid=delivery.guid, status=exc.status)
            continue
        asked += 1
        log("redeliver.asked", guid=delivery.guid)
    return asked
