"""The job queue: huey on SQLite in --data-dir (one machine, nothing to install) or on Redis
(`--redis URL`: any number of serve replicas and workers share it), with the store beside it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from huey import Huey, RedisHuey, SqliteHuey

from .store import Store
from .store_sqlite import SqliteStore

NAME = "memshelf-bot"


@dataclass
class Backend:
    huey: Huey
    store: Store

    def depth(self) -> int:
        return int(self.huey.pending_count())

    def healthy(self) -> bool:
        """Both the queue and the store answer."""
        try:
            self.huey.pending_count()
        except Exception:  # a backend down raises its own error type (sqlite3, redis)
            return False
        return self.store.ping()


def open_backend(data_dir: Path | None, redis_url: str | None) -> Backend:
    if redis_url:
        from .store_redis import RedisStore

        return Backend(RedisHuey(NAME, url=redis_url, results=False), RedisStore(redis_url))
    if data_dir is None:
        raise ValueError("a data directory or a Redis URL is required")
    data_dir.mkdir(parents=True, exist_ok=True)
    return Backend(SqliteHuey(NAME, filename=str(data_dir / "queue.db"), results=False),
                   SqliteStore(data_dir / "state.db"))
