"""GitHub's webhook signature: `X-Hub-Signature-256: sha256=<HMAC-SHA256 of the raw body>`."""

from __future__ import annotations

import hashlib
import hmac

PREFIX = "sha256="


def sign(secret: bytes, body: bytes) -> str:
    """The header value GitHub sends for `body` under `secret`."""
    return PREFIX + hmac.new(secret, body, hashlib.sha256).hexdigest()


def verify(secret: bytes, body: bytes, header: str | None) -> bool:
    """True only for the exact signature of `body`; compared in constant time."""
    if not header or not header.startswith(PREFIX):
        return False
    return hmac.compare_digest(sign(secret, body).encode("ascii"), header.strip().encode("ascii", "replace"))
