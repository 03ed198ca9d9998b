"""The mask that stands for a secret in every output: `«redacted:<kind>»` (docs/format.md §4).

Its own module so that both the secret rules (`redact`) and their screens (`screens.secrets`,
which pass no value that is already masked) read the one spelling.
"""

from __future__ import annotations

MASK_OPEN = "«redacted:"


def mask_of(kind: str) -> str:
    return f"{MASK_OPEN}{kind}»"
