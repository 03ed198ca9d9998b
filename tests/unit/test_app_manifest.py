"""The committed App manifest asks for exactly what the flows use: the permissions of every
flow's installation token, and the events the front door acts on."""

from __future__ import annotations

import json
from pathlib import Path

from bot.app.door import PERMISSIONS
from bot.router import FlowName as Flow

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_PERMISSIONS = {"contents", "pull_requests", "issues", "checks", "statuses", "metadata", "merge_queues"}
# Asked only to receive an event, never by a flow's token: GitHub sends `merge_group` only to an
# App with read access to "Merge queues".
EVENT_PERMISSIONS = {"merge_queues": "read"}


def test_the_manifest_covers_every_flows_token_and_nothing_more() -> None:
    manifest = json.loads((ROOT / "bot" / "app" / "app-manifest.json").read_text(encoding="utf-8"))
    granted = manifest["default_permissions"]
    assert set(granted) == PRODUCT_PERMISSIONS
    rank = {"read": 1, "write": 2}
    for flow in Flow:
        for name, level in PERMISSIONS[flow].items():
            assert rank[granted[name]] >= rank[level], (flow, name)
    asked = {name for flow in Flow for name in PERMISSIONS[flow]}
    assert asked | set(EVENT_PERMISSIONS) == set(granted)
    assert all(granted[name] == level for name, level in EVENT_PERMISSIONS.items())
    assert set(manifest["default_events"]) == {"push", "pull_request", "issue_comment", "check_run", "check_suite",
                                               "merge_group"}
    assert manifest["hook_attributes"]["url"].endswith("/webhook")
