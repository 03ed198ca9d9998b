"""The job layer's handler: a delivery's event → the router → the App's door (`door.run_route`).

Kept for the job layer until it hands the door the `Route` it decided at the front door itself.
"""

from __future__ import annotations

from ..events import Event
from ..router import route
from .auth import InstallationTokens
from .config import AppConfig
from .door import PERMISSIONS, run_route
from .jobs import Job as Delivery

__all__ = ["PERMISSIONS", "FlowHandler"]


class FlowHandler:
    def __init__(self, config: AppConfig, tokens: InstallationTokens) -> None:
        self.config = config
        self.tokens = tokens

    def __call__(self, delivery: Delivery) -> str:
        routed = route(Event.from_payload(delivery.event, delivery.payload))
        if routed is None:
            return "ignored"
        result = run_route(routed, key=delivery.key, config=self.config, tokens=self.tokens, login=delivery.login)
        return f"{routed.flow}: {result.outcome}: {result.detail}; exit {result.exit_code}"
