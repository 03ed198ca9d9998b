"""The committed App manifest asks for exactly what the flows use: the permissions of every
flow's installation token, and the events the front door acts on."""

from __future__ import annotations

import json
from pathlib import Path

from bot.app.flows import PERMISSIONS
from bot.app.routing import Flow

ROOT = Path(__file__).resolve().parents[2]
PRODUCT_PERMISSIONS = {"contents", "pull_requests", "issues", "checks", "statuses", "metadata"}


def test_the_manifest_covers_every_flows_token_and_nothing_more() -> None:
    manifest = json.loads((ROOT / "app-manifest.json").read_text(encoding="utf-8"))
    granted = manifest["default_permissions"]
    assert set(granted) == PRODUCT_PERMISSIONS
    rank = {"read": 1, "write": 2}
    for flow in Flow:
        for name, level in PERMISSIONS[flow].items():
            assert rank[granted[name]] >= rank[level], (flow, name)
    asked = {name for flow in Flow for name in PERMISSIONS[flow]}
    assert asked == set(granted)
    assert set(manifest["default_events"]) == {"push", "pull_request", "issue_comment", "check_run", "check_suite"}
    assert manifest["hook_attributes"]["url"].endswith("/webhook")
