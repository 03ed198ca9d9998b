"""The one executor: work on forked processes, so a big shelf uses every core.

Workers are forked with their function, state and share of the items in hand: with `fork`
nothing is pickled on the way in, and only small results (rows, findings) travel back through a
pipe. No module-level state: each `Pending` and `Helper` owns its processes.
`MEMSHELF_BOT_JOBS` caps the process count (1 turns it off); small shelves and platforms without
fork stay in one process.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
from collections.abc import Callable, Sequence
from typing import Any, BinaryIO, TypeVar

PARALLEL_FROM = 400  # below this many episodes a pool costs more than it saves
T = TypeVar("T")
R = TypeVar("R")


def cores() -> int:
    wanted = os.environ.get("MEMSHELF_BOT_JOBS", "")
    return int(wanted) if wanted.isdigit() else (os.cpu_count() or 1)


def can_fork() -> bool:
    """`fork` is there (POSIX; not on Windows)."""
    return hasattr(os, "fork")


def jobs_for(count: int, limit: int | None = None) -> int:
    """How many processes to use for `count` episodes (at most `limit`)."""
    jobs = cores() if limit is None else min(limit, cores())
    return jobs if count >= PARALLEL_FROM and jobs > 1 and can_fork() else 1


class Pending:
    """`fn(state, share)` over `items` in `jobs` shares, share i being every jobs-th item from i
    (neighbouring episodes cost alike, so the shares do too). Shares 1.. run on forked workers at
    once; share 0 runs here, in `result()`, after whatever the caller does meanwhile: one process
    fewer to fork, and half the results never cross a pipe. A caller with such work of its own
    hands the `handed` fraction of share 0 (its last items) to the first worker, so both end
    together. A bare `os.fork` and a pipe per worker, like `Helper`: no multiprocessing to import,
    no threads."""

    def __init__(self, fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], state: Any, jobs: int,
                 handed: float = 0.0):
        self._fn, self._state, self._count = fn, state, len(items)
        shares = [list(range(i, len(items), jobs)) for i in range(jobs)]
        keep = len(shares[0]) - int(len(shares[0]) * handed)
        shares[1] += shares[0][keep:]
        del shares[0][keep:]
        self._shares = shares
        self._here = [items[j] for j in shares[0]]
        self._workers: list[tuple[int, BinaryIO]] = []
        try:
            for share in shares[1:]:
                self._workers.append(_fork_worker(fn, state, [items[j] for j in share]))
        except BaseException:
            self.cancel()
            raise

    def result(self) -> list[R]:
        """Every item's result, in the order of the items."""
        out: list[Any] = [None] * self._count
        try:
            results = [self._fn(self._state, self._here)]
            for _, source in self._workers:
                ok, value = pickle.load(source)
                if not ok:
                    raise value
                results.append(value)
        except EOFError:
            self.cancel()
            raise ChildProcessError("an episode worker died before it sent its results") from None
        except BaseException:
            self.cancel()
            raise
        self._stop(kill=False)
        for share, values in zip(self._shares, results, strict=True):
            for index, value in zip(share, values, strict=True):
                out[index] = value
        return out

    def cancel(self) -> None:
        self._stop(kill=True)

    def _stop(self, kill: bool) -> None:
        for pid, source in self._workers:
            source.close()
            if kill:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        self._workers = []


def _fork_worker(fn: Callable[[Any, Sequence[T]], list[R]], state: Any, share: Sequence[T]) -> tuple[int, BinaryIO]:
    """Fork one worker for `fn(state, share)`; it sends (True, results) or (False, exception)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the worker: never returns into the caller's code
        code = 0
        try:
            os.close(read_end)
            with open(write_end, "wb") as sink:
                try:
                    outcome = (True, fn(state, share))
                except Exception as exc:  # handed to the parent, which raises it
                    outcome = (False, exc)
                try:
                    pickle.dump(outcome, sink, pickle.HIGHEST_PROTOCOL)
                except Exception as exc:  # an exception that does not pickle: say what it was
                    pickle.dump((False, RuntimeError(f"{type(exc).__name__}: {exc}")), sink)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_end)
    return pid, open(read_end, "rb")


def start(fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], *, state: Any, jobs: int,
          handed: float = 0.0) -> Pending:
    """Begin `fn(state, share)` over `items` in `jobs` shares (jobs >= 2): jobs - 1 forked
    workers now, share 0 (less its `handed` fraction) in this process when `result()` is asked
    for. `fn` returns one result per item of its share."""
    return Pending(fn, items, state, jobs, handed)


def map_items(fn: Callable[[Any, Sequence[T]], list[R]], items: Sequence[T], *, state: Any, jobs: int) -> list[R]:
    """`fn(state, items)`, split over `jobs` forked workers; results in the order of `items`."""
    if jobs <= 1:
        return fn(state, items)
    return start(fn, items, state=state, jobs=jobs).result()


def _serve(prepare: Callable[[], None], fn: Callable[..., Any], args_in: BinaryIO, result_out: BinaryIO) -> None:
    """A helper process: prepare (e.g. import what `fn` needs), then run `fn` once."""
    with contextlib.suppress(ImportError):  # `fn` raises it again, and the parent reports it
        prepare()
    try:
        args = pickle.load(args_in)
    except EOFError:
        return
    try:
        outcome = (True, fn(*args))
    except Exception as exc:
        outcome = (False, exc)
    pickle.dump(outcome, result_out, pickle.HIGHEST_PROTOCOL)
    result_out.flush()


PR_SET_PDEATHSIG = 1  # prctl(2): the signal this process gets when its parent dies


def die_with(parent: int) -> None:
    """Where the kernel offers it (Linux), the helper is killed when its parent dies, even by
    SIGKILL and even while paused (SIGKILL ends a stopped process too): a paused helper must never
    outlive the command. Elsewhere the parent's `close` is the only way out."""
    try:
        import ctypes  # already loaded by the parent, so this takes microseconds after the fork

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (ImportError, OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(1)


class Helper:
    """One forked process that runs `prepare` at once and `fn` later, once, on arguments sent
    through a pipe. A bare `os.fork` and two pipes, no threads and no multiprocessing: the
    helper is forked as early as a command can (before the shelf and the renderers are loaded),
    so it carries only the interpreter's pages, and workers forked later inherit no thread.
    `call` returns a function that gives the result (computed here instead when the helper is
    gone)."""

    def __init__(self, prepare: Callable[[], None], fn: Callable[..., R]) -> None:
        self._fn = fn
        args_r, args_w = os.pipe()
        result_r, result_w = os.pipe()
        with contextlib.suppress(ImportError):
            import ctypes  # noqa: F401 (for the helper's die_with, before anything can pause it)
        parent = os.getpid()
        self._pid: int | None = os.fork()
        if self._pid == 0:  # the helper: never returns into the caller's code
            code = 0
            try:
                die_with(parent)
                os.close(args_w)
                os.close(result_r)
                with open(args_r, "rb") as args_in, open(result_w, "wb") as result_out:
                    _serve(prepare, fn, args_in, result_out)
            except BaseException:
                code = 1
            finally:
                os._exit(code)
        os.close(args_r)
        os.close(result_w)
        self._args: BinaryIO | None = open(args_w, "wb")  # noqa: SIM115 (closed in close())
        self._result: BinaryIO | None = open(result_r, "rb")  # noqa: SIM115
        self._done = False  # its result was read: it exits by itself
        self._paused = False

    def pause(self) -> None:
        """Stop the helper (SIGSTOP) while other processes need every core; `resume` or `call`
        lets it go on where it was."""
        if self._pid is not None and not self._paused:
            os.kill(self._pid, signal.SIGSTOP)
            self._paused = True

    def resume(self) -> None:
        if self._pid is not None and self._paused:
            os.kill(self._pid, signal.SIGCONT)
            self._paused = False

    def call(self, *args: Any) -> Callable[[], Any]:
        fn, sink, source = self._fn, self._args, self._result
        if sink is None or source is None:
            return lambda: fn(*args)
        self.resume()
        try:
            pickle.dump(args, sink, pickle.HIGHEST_PROTOCOL)
            sink.flush()
        except OSError:
            self.close()
            return lambda: fn(*args)

        def result() -> Any:
            try:
                ok, value = pickle.load(source)
            except (EOFError, OSError, pickle.UnpicklingError):  # the helper died: run here instead
                self.close()
                return fn(*args)
            self._done = True
            if not ok:
                raise value
            return value

        return result

    def close(self) -> None:
        for stream in (self._args, self._result):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
        self._args = self._result = None
        if self._pid is not None:
            if not self._done:  # never called, or its result is not wanted: do not wait for it
                with contextlib.suppress(ProcessLookupError):
                    os.kill(self._pid, signal.SIGKILL)
            os.waitpid(self._pid, 0)
            self._pid = None
