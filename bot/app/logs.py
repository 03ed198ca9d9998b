"""Structured one-line JSON logs on stderr: one object per line, never a payload or a secret."""

from __future__ import annotations

import json
import logging
import sys
from typing import Any


class JsonFormatter(logging.Formatter):
    """Library log records (waitress, huey) as the same one-line JSON objects."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {"ts": round(record.created, 3), "level": record.levelname.lower(),
                                "logger": record.name, "msg": record.getMessage()}
        line.update(getattr(record, "fields", {}))
        if record.exc_info and record.exc_info[0] is not None:
            line["error"] = record.exc_info[0].__name__
        return json.dumps(line, ensure_ascii=True, default=str)


HEADER_CAP = 80  # characters of a header-derived value (a delivery id, an event name) in a log line


def cap(value: str, limit: int = HEADER_CAP) -> str:
    """A request-derived value fit for a log field: control characters escaped, at most `limit`
    characters (a 10 KiB X-GitHub-Delivery is not copied into every line)."""
    escaped = value[: limit + 1].encode("unicode_escape").decode("ascii")
    return escaped[:limit] + "…" if len(escaped) > limit or len(value) > limit else escaped


def setup() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


def log(event: str, level: int = logging.INFO, **fields: Any) -> None:
    logging.getLogger("memshelf_bot.app").log(level, event, extra={"fields": {"event": event, **fields}})
