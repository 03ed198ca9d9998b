"""Installation tokens: the App's id and key → a JWT (PyGithub `Auth.AppAuth`) → one token per
job, for the ONE repository it works on and only the permissions its flow needs.

Tokens are cached per (installation, repository, permissions) until shortly before they
expire, so a burst of deliveries for one repository asks GitHub once. Neither the key nor a
token is ever logged or put into an exception message.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from github import Auth, GithubException, GithubIntegration

from .config import AppConfig

REFRESH_BEFORE = 300.0  # seconds before expiry at which a cached token is replaced
Permissions = Mapping[str, str]


class TokenError(RuntimeError):
    """GitHub refused an installation token (no secret in the message)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class InstallationToken:
    token: str = field(repr=False)
    expires_at: float  # epoch seconds
    repository: str
    permissions: tuple[tuple[str, str], ...]


def _epoch(value: object) -> float:
    if isinstance(value, str):
        value = datetime.fromisoformat(value.replace("Z", "+00:00"))
    if isinstance(value, datetime):
        return value.timestamp()
    return time.time() + 3600.0  # GitHub's tokens live an hour when it does not say


class InstallationTokens:
    """Mints and caches installation tokens. `calls` counts this process's requests to GitHub
    (its own, and those a job's port reports through `record`), for the metrics."""

    def __init__(self, config: AppConfig, clock: Callable[[], float] = time.time) -> None:
        self.integration = GithubIntegration(auth=Auth.AppAuth(config.app_id, config.private_key),
                                             base_url=config.github_url, retry=None, seconds_between_requests=None,
                                             seconds_between_writes=None)
        self.clock = clock
        self.calls = 0
        self._remaining: int | None = None
        self._cache: dict[tuple[int, str, tuple[tuple[str, str], ...]], InstallationToken] = {}
        self._lock = threading.Lock()

    def token(self, installation_id: int, repository: str, permissions: Permissions) -> InstallationToken:
        """A token that may act on `repository` (owner/name) with exactly `permissions`."""
        scope = tuple(sorted(permissions.items()))
        key = (installation_id, repository.lower(), scope)
        with self._lock:
            cached = self._cache.get(key)
            if cached is not None and cached.expires_at - self.clock() > REFRESH_BEFORE:
                return cached
            minted = self._mint(installation_id, repository, scope)
            self._cache[key] = minted
            return minted

    def _mint(self, installation_id: int, repository: str,
              scope: tuple[tuple[str, str], ...]) -> InstallationToken:
        name = repository.split("/", 1)[-1]
        self.calls += 1
        try:
            _, data = self.integration.requester.requestJsonAndCheck(
                "POST", f"/app/installations/{installation_id}/access_tokens",
                input={"repositories": [name], "permissions": dict(scope)})
        except GithubException as exc:
            message = exc.data.get("message", "") if isinstance(exc.data, dict) else ""
            raise TokenError(f"GitHub refused an installation token for {repository} "
                             f"(HTTP {exc.status}: {message[:200]})", exc.status) from None
        return InstallationToken(str(data["token"]), _epoch(data.get("expires_at")), repository, scope)

    def app_slug(self) -> str:
        """The App's slug (GET /app), for its bot login `<slug>[bot]`."""
        self.calls += 1
        try:
            return str(self.integration.get_app().slug)
        except GithubException as exc:
            raise TokenError(f"GET /app failed (HTTP {exc.status})", exc.status) from None

    def record(self, calls: int, remaining: int | None) -> None:
        """A job's requests, and the rate-limit remaining GitHub last reported to it."""
        self.calls += calls
        if remaining is not None:
            self._remaining = remaining

    @property
    def rate_remaining(self) -> int | None:
        if self._remaining is not None:
            return self._remaining
        remaining = self.integration.requester.rate_limiting[0]
        return remaining if remaining >= 0 else None
