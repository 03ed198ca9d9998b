"""The one executor: work on forked processes, so a big shelf uses every core.

Workers are forked with their function, state and share of the items as process arguments:
with `fork` nothing is pickled on the way in, and only small results (rows, findings) travel
back through a pipe. No module-level state: each `Pending` and `Helper` owns its processes.
`MEMSHELF_BOT_JOBS` caps the process count (1 turns it off); small shelves and platforms without
fork stay in one process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
from collections.abc import Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any, TypeVar

PARALLEL_FROM = 400  # below this many episodes a pool costs more than it saves
T = TypeVar("T")
R = TypeVar("R")


def cores() -> int:
    wanted = os.environ.get("MEMSHELF_BOT_JOBS", "")
    return int(wanted) if wanted.isdigit() else (os.cpu_count() or 1)


def can_fork() -> bool:
    return "fork" in multiprocessing.get_all_start_methods()


def jobs_for(count: int, limit: int | None = None) -> int:
    """How many processes to use for `count` episodes (at most `limit`)."""
    jobs = cores() if limit is None else min(limit, cores())
    return jobs if count >= PARALLEL_FROM and jobs > 1 and can_fork() else 1


def _work(fn: Callable[[Any, Sequence[T]], list[R]], state: Any, items: Sequence[T], conn: Connection) -> None:
    try:
        conn.send((True, fn(state, items)))
    except Exception as exc:  # handed to the parent, which raises it
        conn.send((False, exc))
    finally:
        conn.close()


class Pending:
    """`fn(state, share)` running on `jobs` forked workers, worker i taking every jobs-th item
    from i (neighbouring episodes cost alike, so the shares do too)."""

    def __init__(self, fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], state: Any, jobs: int):
        ctx = multiprocessing.get_context("fork")
        self._count = len(items)
        self._workers: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        for i in range(jobs):
            parent, child = ctx.Pipe(duplex=False)
            proc = ctx.Process(target=_work, args=(fn, state, items[i::jobs], child), daemon=True)
            proc.start()
            child.close()
            self._workers.append((proc, parent))

    def result(self) -> list[R]:
        """Every item's result, in the order of the items."""
        out: list[Any] = [None] * self._count
        jobs = len(self._workers)
        try:
            for i, (_, conn) in enumerate(self._workers):
                ok, value = conn.recv()
                if not ok:
                    raise value
                out[i::jobs] = value
        except BaseException:
            self.cancel()
            raise
        self._stop(kill=False)
        return out

    def cancel(self) -> None:
        self._stop(kill=True)

    def _stop(self, kill: bool) -> None:
        for proc, conn in self._workers:
            conn.close()
            if kill:
                proc.kill()
            proc.join()
        self._workers = []


def start(fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], *, state: Any, jobs: int) -> Pending:
    """Begin `fn(state, share)` over `items` on `jobs` forked workers (jobs >= 2). `fn` returns
    one result per item of its share."""
    return Pending(fn, items, state, jobs)


def map_items(fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], *, state: Any, jobs: int) -> list[R]:
    """`fn(state, items)`, split over `jobs` forked workers; results in the order of `items`."""
    if jobs <= 1:
        return fn(state, items)
    return start(fn, items, state=state, jobs=jobs).result()


def _serve(prepare: Callable[[], None], fn: Callable[..., Any], conn: Connection) -> None:
    """A helper process: prepare (e.g. import what `fn` needs), then run `fn` once."""
    with contextlib.suppress(ImportError):  # `fn` raises it again, and the parent reports it
        prepare()
    try:
        args = conn.recv()
    except EOFError:
        return
    try:
        conn.send((True, fn(*args)))
    except Exception as exc:
        conn.send((False, exc))


class Helper:
    """One forked process that runs `prepare` at once and `fn` later, once, on arguments sent
    through a pipe; a plain process and a pipe, no threads, so workers forked later inherit
    none. `call` returns a function that gives the result (computed here instead when the
    helper is gone)."""

    def __init__(self, prepare: Callable[[], None], fn: Callable[..., R]) -> None:
        ctx = multiprocessing.get_context("fork")
        self._fn = fn
        self._conn: Connection | None
        self._conn, child = ctx.Pipe()
        self._proc: multiprocessing.process.BaseProcess | None = ctx.Process(
            target=_serve, args=(prepare, fn, child), daemon=True)
        self._proc.start()
        child.close()
        self._used = False

    def call(self, *args: Any) -> Callable[[], Any]:
        fn, conn = self._fn, self._conn
        if conn is None:
            return lambda: fn(*args)
        self._used = True
        try:
            conn.send(args)
        except OSError:
            self.close()
            return lambda: fn(*args)

        def result() -> Any:
            try:
                ok, value = conn.recv()
            except (EOFError, OSError):  # the helper died: run here instead
                self.close()
                return fn(*args)
            if not ok:
                raise value
            return value

        return result

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if self._proc is not None:
            if not self._used:  # never called: do not wait for its preparation to finish
                self._proc.kill()
            self._proc.join(timeout=5)
            if self._proc.is_alive():
                self._proc.kill()
                self._proc.join()
            self._proc = None
