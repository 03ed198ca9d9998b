"""Episodes are independent, so a big shelf is worked on every core.

The workers are forked: they inherit the loaded shelf, so nothing is pickled on the way in and
only small results (rows, findings) travel back. `MEMSHELF_BOT_JOBS` caps the process count (1
turns it off); small shelves and platforms without fork stay in one process.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

PARALLEL_FROM = 400  # below this many episodes a pool costs more than it saves
T = TypeVar("T")
R = TypeVar("R")
_STATE: Any = None


def cores() -> int:
    wanted = os.environ.get("MEMSHELF_BOT_JOBS", "")
    return int(wanted) if wanted.isdigit() else (os.cpu_count() or 1)


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def jobs_for(count: int, limit: int | None = None) -> int:
    """How many processes to use for `count` episodes (at most `limit`)."""
    jobs = cores() if limit is None else min(limit, cores())
    return jobs if count >= PARALLEL_FROM and jobs > 1 and can_fork() else 1


def _run(job: tuple[Callable[[Any, Sequence[T]], list[R]], Sequence[T]]) -> list[R]:
    fn, chunk = job
    return fn(_STATE, chunk)


class Pending:
    """Chunks being worked on by a pool; `result()` waits for them, `cancel()` drops them."""

    def __init__(self, fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], state: Any, jobs: int):
        global _STATE
        size = -(-len(items) // (jobs * 4))
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        _STATE = state
        self._pool = multiprocessing.get_context("fork").Pool(jobs)
        self._async = self._pool.map_async(_run, [(fn, chunk) for chunk in chunks])

    def result(self) -> list[R]:
        try:
            return [r for part in self._async.get() for r in part]
        finally:
            self._finish(self._pool.close)

    def cancel(self) -> None:
        self._finish(self._pool.terminate)

    def _finish(self, stop: Callable[[], None]) -> None:
        global _STATE
        stop()
        self._pool.join()
        _STATE = None


def start(fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], *, state: Any, jobs: int) -> Pending:
    """Begin `fn(state, chunk)` over `items` on `jobs` forked workers (jobs >= 2)."""
    return Pending(fn, items, state, jobs)


def map_chunks(fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], *, state: Any, jobs: int) -> list[R]:
    """`fn(state, items)`, split over `jobs` forked workers; results in the order of `items`.
    `fn` must be a module-level function (it is sent to the workers by name)."""
    if jobs <= 1:
        return fn(state, items)
    return start(fn, items, state=state, jobs=jobs).result()
