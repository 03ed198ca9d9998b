"""The GitHub App as GitHub knows it: its identity, its installations, JWTs and installation tokens.

GitHub holds an App's public key; the App proves itself with an RS256 JWT signed by its private
key (`iss` = the App id, `exp` at most 10 minutes ahead, `iat` not in the future beyond a minute
of clock skew) and trades it for an installation access token that lasts an hour and may be
narrowed to some repositories and permissions. The sandbox plays that side: `--app-private-key`
gives it the key pair (it keeps only the public half), tokens it mints are `ghs_…` strings whose
identity is the App's bot user `<slug>[bot]`.
"""

from __future__ import annotations

import datetime as dt
import secrets
import string
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization

from .state import Grant, Principal, User

TOKEN_LIFETIME = 3600  # seconds, as GitHub's installation tokens
MAX_JWT_AHEAD = 600  # GitHub refuses a JWT whose `exp` is more than 10 minutes ahead
CLOCK_SKEW = 60
LEVELS = ("read", "write", "admin")
# What a memshelf App asks for (the manifest's permissions); metadata is implied, as on GitHub.
DEFAULT_PERMISSIONS = {"checks": "write", "contents": "write", "issues": "write", "merge_queues": "read",
                       "metadata": "read", "pull_requests": "write", "statuses": "write"}
DEFAULT_EVENTS = ["check_run", "check_suite", "issue_comment", "merge_group", "pull_request", "push"]


class JwtRefused(Exception):
    """Why a JWT is not the App's: GitHub answers 401 with this message."""


def level_at_least(have: str | None, want: str) -> bool:
    return have is not None and LEVELS.index(have) >= LEVELS.index(want)


@dataclass
class Installation:
    id: int
    account: str  # the owner login whose repositories it covers
    account_id: int
    account_type: str
    created_at: str


@dataclass
class App:
    """A registered GitHub App: identity, public key, installations and the tokens it was given."""

    id: int
    slug: str
    public_key: Any
    name: str = ""
    owner: str = "octo"
    client_id: str = ""
    description: str = "The memory shelf bot"
    permissions: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_PERMISSIONS))
    events: list[str] = field(default_factory=lambda: list(DEFAULT_EVENTS))
    installations: dict[int, Installation] = field(default_factory=dict)
    _tokens: dict[str, Principal] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def from_private_key(cls, app_id: int, pem: bytes, slug: str = "memshelf-bot", **kwargs: Any) -> App:
        """The App whose private key is `pem` (GitHub keeps only the public key; so does this)."""
        key = serialization.load_pem_private_key(pem, password=None)
        return cls(app_id, slug, key.public_key(), **kwargs)

    @classmethod
    def from_key_file(cls, app_id: int, path: Path, **kwargs: Any) -> App:
        return cls.from_private_key(app_id, path.read_bytes(), **kwargs)

    def __post_init__(self) -> None:
        self.name = self.name or self.slug
        self.client_id = self.client_id or f"Iv23.sandbox{self.id}"

    @property
    def bot(self) -> User:
        """The App's bot account: what its installation tokens act as."""
        return User(f"{self.slug}[bot]", 10_000_000 + self.id, "Bot")

    def install(self, account: str, account_id: int, account_type: str = "Organization") -> Installation:
        """The App installed on `account` (all its repositories in the sandbox); idempotent."""
        with self._lock:
            for existing in self.installations.values():
                if existing.account.lower() == account.lower():
                    return existing
            inst = Installation(40_000_000 + len(self.installations) + 1, account, account_id, account_type,
                                dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
            self.installations[inst.id] = inst
            return inst

    def installation_for(self, owner: str) -> Installation | None:
        return next((i for i in self.installations.values() if i.account.lower() == owner.lower()), None)

    # JWT --------------------------------------------------------------------------------

    def verify_jwt(self, token: str, at: float | None = None) -> None:
        """Accept only an unexpired RS256 JWT this App signed; raise `JwtRefused` otherwise."""
        now = time.time() if at is None else at
        try:
            claims = jwt.decode(token, self.public_key, algorithms=["RS256"],
                                options={"verify_exp": False, "verify_iat": False, "verify_nbf": False,
                                         "verify_iss": False, "verify_aud": False})
        except jwt.PyJWTError as exc:
            raise JwtRefused("A JSON web token could not be decoded") from exc
        exp, iat = claims.get("exp"), claims.get("iat")
        if not isinstance(iat, int | float) or iat > now + CLOCK_SKEW:
            raise JwtRefused("'Issued at' claim ('iat') must be an Integer representing the time that the "
                             "assertion was issued")
        if not isinstance(exp, int | float) or exp <= now:
            raise JwtRefused("'Expiration time' claim ('exp') must be a numeric value representing the future "
                             "time at which the assertion expires")
        if exp > now + MAX_JWT_AHEAD + CLOCK_SKEW:
            raise JwtRefused("'Expiration time' claim ('exp') is too far in the future")
        if str(claims.get("iss")) != str(self.id):
            raise JwtRefused("'Issuer' claim ('iss') must be the App's id")

    # installation tokens ------------------------------------------------------------------

    def mint(self, inst: Installation, permissions: dict[str, str], repositories: frozenset[str]) -> tuple[
            str, Principal]:
        """A new installation token and who it is; the caller checked the request's scope."""
        token = "ghs_" + "".join(secrets.choice(string.ascii_letters + string.digits) for _ in range(36))
        grant = Grant(self.id, inst.id, tuple(sorted(permissions.items())), repositories,
                      time.time() + TOKEN_LIFETIME)
        principal = Principal(self.bot, "write" if permissions.get("contents") in ("write", "admin") else "read",
                              integration=True, grant=grant)
        with self._lock:
            self._tokens[token] = principal
        return token, principal

    def principal(self, token: str | None) -> Principal | bool | None:
        """The token's principal; False for one of ours that expired; None when it is not ours."""
        with self._lock:
            principal = self._tokens.get(token or "")
        if principal is None:
            return None
        assert principal.grant is not None
        return principal if principal.grant.expires > time.time() else False

    def expire(self, token: str) -> None:
        """Let a token run out now (tests of a client's refresh)."""
        with self._lock:
            principal = self._tokens[token]
            assert principal.grant is not None
            self._tokens[token] = replace(principal, grant=replace(principal.grant, expires=time.time() - 1))


def looks_like_jwt(token: str | None) -> bool:
    return bool(token) and token.count(".") == 2 and token.startswith("eyJ")  # type: ignore[union-attr]


def categories(op_key: str) -> tuple[str, ...]:
    """The App permissions any one of which lets a token use this repository operation
    (GitHub's "permissions required for GitHub Apps" table, for the operations served)."""
    method, _, path = op_key.partition(" ")
    rest = path.removeprefix("/repos/{owner}/{repo}")
    if method == "PUT" and rest.endswith("/merge"):
        return ("contents",)
    if "/check-runs" in rest or "/check-suites" in rest:
        return ("checks",)
    if rest.startswith("/statuses") or rest.endswith("/status") or rest.endswith("/statuses"):
        return ("statuses",)
    if rest.startswith("/pulls"):
        return ("pull_requests",)
    if rest == "/issues" or (method == "PATCH" and rest == "/issues/{issue_number}"):
        return ("issues",)  # listing, opening and editing issues as issues
    if rest.startswith(("/issues", "/labels")):
        return ("issues", "pull_requests")  # a pull request's conversation and labels
    if rest.startswith(("/contents", "/commits", "/compare", "/git/")):
        return ("contents",)
    return ("metadata",)


def refusal(grant: Grant, op_key: str, full_name: str) -> tuple[int, str] | None:
    """Why an installation token may not make this request, as GitHub answers; None when it may."""
    if not grant.covers(full_name):
        return 404, "Not Found"
    want = "read" if op_key.startswith("GET ") else "write"
    options = categories(op_key)
    if options == ("metadata",) and want == "read":
        return None  # every installation token reads metadata
    if any(level_at_least(grant.level(category), want) for category in options):
        return None
    return 403, "Resource not accessible by integration"
