"""Failures on demand: the answers GitHub gives when things go wrong, injected per request.

A fault matches a method and a path regex (the request path without the query string, e.g.
`/repos/octo/shelf/git/refs/heads/main`) and answers instead of the real handler, `times` times
(None: until removed). The named helpers send the bodies and headers GitHub sends; a body without
`documentation_url` gets the operation's documentation link, as GitHub's do. A delay holds a
matching request for some seconds and then lets it through to the real handler (a slow GitHub,
or a job kept running while a test stops its process).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

SECONDARY_LIMIT = ("You have exceeded a secondary rate limit. Please wait a few minutes before you try "
                   "again. If you reach out to GitHub Support for help, please include the request ID "
                   "0000:0000:0000000:0000000:00000000.")
RATE_LIMIT_DOCS = ("https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api"
                   "#about-secondary-rate-limits")
SERVER_ERRORS = {500: "Server Error", 502: "Server Error", 503: "Service Unavailable",
                 504: "We couldn't respond to your request in time. Sorry about that. Please try resubmitting "
                      "your request and contact us if the problem persists."}


@dataclass
class Fault:
    method: str  # an HTTP method, or "*" for any
    path: re.Pattern[str]
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)
    times: int | None = 1
    hits: int = 0

    def matches(self, method: str, path: str) -> bool:
        return self.method in ("*", method) and bool(self.path.fullmatch(path))

    def body_for(self, documentation_url: str) -> Any:
        """The body to answer, with the operation's documentation link unless it names one."""
        if not isinstance(self.body, dict):
            return self.body
        return {"documentation_url": documentation_url, **self.body}


@dataclass
class Delay:
    """Hold matching requests `seconds` (or until `release`), then answer them as usual."""

    method: str
    path: re.Pattern[str]
    seconds: float
    times: int | None = 1
    hits: int = 0
    reached: threading.Event = field(default_factory=threading.Event)  # a request is being held
    released: threading.Event = field(default_factory=threading.Event)

    def release(self) -> None:
        self.released.set()


class Faults:
    """The fault book of one sandbox; thread-safe."""

    def __init__(self, repo_path: str, on_delete_comment: Callable[[int], bool]) -> None:
        self._repo = repo_path  # e.g. /repos/octo/shelf
        self._lock = threading.Lock()
        self._faults: list[Fault] = []
        self._delays: list[Delay] = []
        self._delete_comment = on_delete_comment

    def add(self, method: str, path_regex: str, status: int, body: Any = None,
            headers: dict[str, str] | None = None, times: int | None = 1) -> Fault:
        fault = Fault(method.upper(), re.compile(path_regex), status, body, dict(headers or {}), times)
        with self._lock:
            self._faults.append(fault)
        return fault

    def take(self, method: str, path: str) -> Fault | None:
        """The first live fault for this request, consuming one of its uses."""
        with self._lock:
            for fault in self._faults:
                if fault.matches(method, path):
                    fault.hits += 1
                    if fault.times is not None and fault.hits >= fault.times:
                        self._faults.remove(fault)
                    return fault
        return None

    def delay(self, method: str, path_regex: str, seconds: float, times: int | None = 1) -> Delay:
        held = Delay(method.upper(), re.compile(path_regex), seconds, times)
        with self._lock:
            self._delays.append(held)
        return held

    def hold(self, method: str, path: str) -> None:
        """Wait out the first live delay for this request (outside the lock), consuming one use."""
        with self._lock:
            held = next((d for d in self._delays if d.method in ("*", method) and d.path.fullmatch(path)), None)
            if held is not None:
                held.hits += 1
                if held.times is not None and held.hits >= held.times:
                    self._delays.remove(held)
        if held is not None:
            held.reached.set()
            held.released.wait(held.seconds)

    def clear(self) -> None:
        with self._lock:
            self._faults.clear()
            delays, self._delays = self._delays, []
        for held in delays:
            held.release()

    @property
    def pending(self) -> list[Fault]:
        with self._lock:
            return list(self._faults)

    @property
    def holding(self) -> list[Delay]:
        """The delays still to be used."""
        with self._lock:
            return list(self._delays)

    # named faults -----------------------------------------------------------------

    def _ref_path(self, branch: str | None) -> str:
        return re.escape(f"{self._repo}/git/refs/heads/") + (re.escape(branch) if branch else ".+")

    def non_fast_forward(self, branch: str | None = None, times: int | None = 1) -> Fault:
        """`PATCH /git/refs/heads/…` answers 422 "Update is not a fast forward" (a lost race)."""
        return self.add("PATCH", self._ref_path(branch), 422,
                        {"message": "Update is not a fast forward", "status": "422"}, times=times)

    def forbidden_integration(self, method: str = "*", path_regex: str = ".*", times: int | None = 1) -> Fault:
        """403 "Resource not accessible by integration": a fork's read-only GITHUB_TOKEN writing."""
        return self.add(method, path_regex, 403,
                        {"message": "Resource not accessible by integration", "status": "403"}, times=times)

    def protected_branch(self, branch: str, times: int | None = None) -> Fault:
        """Direct ref updates of `branch` refused by branch protection (permanent by default)."""
        return self.add("PATCH", self._ref_path(branch), 422,
                        {"message": f"Protected branch update failed for refs/heads/{branch}.", "status": "422"},
                        times=times)

    def rate_limited(self, retry_after: int = 60, status: int = 403, method: str = "*",
                     path_regex: str = ".*", times: int | None = 1) -> Fault:
        """A secondary rate limit: 403 (or 429) with `Retry-After`, as GitHub sends it."""
        if status not in (403, 429):
            raise ValueError("GitHub answers a rate limit with 403 or 429")
        return self.add(method, path_regex, status,
                        {"message": SECONDARY_LIMIT, "documentation_url": RATE_LIMIT_DOCS, "status": str(status)},
                        headers={"Retry-After": str(retry_after), "x-ratelimit-resource": "core"},
                        times=times)

    def server_error(self, status: int = 502, method: str = "*", path_regex: str = ".*",
                     times: int | None = 1) -> Fault:
        """A 5xx from GitHub's front end."""
        if status not in SERVER_ERRORS:
            raise ValueError(f"GitHub's 5xx answers are {sorted(SERVER_ERRORS)}")
        return self.add(method, path_regex, status, {"message": SERVER_ERRORS[status], "status": str(status)},
                        times=times)

    def delete_comment(self, comment_id: int) -> None:
        """Someone deleted this comment behind the bot's back: it is gone, and answers 404."""
        if not self._delete_comment(comment_id):
            raise KeyError(f"no comment {comment_id}")
