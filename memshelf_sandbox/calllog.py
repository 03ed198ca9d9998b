"""`--log FILE`: every request the sandbox answers, one JSON line each, with secrets masked.

A line is `{"method", "path", "status", "login", "body"}` (the request's JSON body, or null); a git
smart-HTTP line adds `"bytes"`, the size of the body served, so a test can sum what a job fetched.
Tokens (`ghs_…`, `ghp_…`, …), JWTs, PEM keys, `x-access-token:…@` URL credentials, and the
values of keys that name a secret are replaced by `***`, so the log can be read and kept.
"""

from __future__ import annotations

import json
import re
import threading
from pathlib import Path
from typing import Any

MASK = "***"
SECRETS = re.compile(
    r"-----BEGIN [A-Z ]+-----.*?-----END [A-Z ]+-----"  # PEM blocks
    r"|\beyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*"  # JWTs
    r"|\bgh[pousr]_[A-Za-z0-9_]{8,}"  # GitHub tokens
    r"|\bgithub_pat_[A-Za-z0-9_]{8,}",
    re.DOTALL)
URL_CREDENTIALS = re.compile(r"(://[^/@\s:]*:)[^@/\s]+@")
SECRET_KEYS = re.compile(r"token|secret|password|private_key|authorization", re.IGNORECASE)


def mask(value: Any) -> Any:
    """`value` with every secret it carries replaced by `***`."""
    if isinstance(value, str):
        return URL_CREDENTIALS.sub(rf"\g<1>{MASK}@", SECRETS.sub(MASK, value))
    if isinstance(value, list):
        return [mask(item) for item in value]
    if isinstance(value, dict):
        return {key: MASK if SECRET_KEYS.search(str(key)) and isinstance(item, str) else mask(item)
                for key, item in value.items()}
    return value


class CallLog:
    """Appends to one file; thread-safe; each line flushed at once so a test can read it live."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("a", encoding="utf-8")
        self._lock = threading.Lock()

    def write(self, method: str, path: str, status: int, login: str | None, body: Any,
              sent: int | None = None) -> None:
        record = {"method": method, "path": mask(path), "status": status, "login": login, "body": mask(body)}
        if sent is not None:
            record["bytes"] = sent
        line = json.dumps(record, ensure_ascii=False)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        with self._lock:
            self._file.close()
