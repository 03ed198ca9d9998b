"""What `serve` and `worker` share: the configuration check, the job runtime, huey's consumer
(process workers that die with it) and the lease sweep."""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from huey import Huey
from huey.consumer import Consumer, ProcessEnvironment

from memshelf_render.parallel import die_with

from ..router import Route
from . import jobs
from .auth import InstallationTokens
from .config import AppConfig, ConfigError, load_config
from .jobs import open_backend
from .logs import log
from .options import DEFAULT_DATA_DIR, DEFAULT_GRACE


def configure(args: argparse.Namespace, command: str, min_workers: int) -> AppConfig | None:
    """The configuration, or None after printing one line (the caller exits 2); a worker needs
    no webhook secret."""
    if args.workers < min_workers:
        print(f"memshelf-bot {command}: --workers must be {min_workers} or more", file=sys.stderr)
        return None
    if not args.grace >= 0:
        print(f"memshelf-bot {command}: --grace must be 0 seconds or more", file=sys.stderr)
        return None
    try:
        return load_config(os.environ, args.github_url, needs_webhook_secret=command == "serve",
                           data_dir=data_dir_of(args))
    except ConfigError as exc:
        print(f"memshelf-bot {command}: {exc}", file=sys.stderr)
        return None


def data_dir_of(args: argparse.Namespace) -> Path:
    return args.data_dir or Path(DEFAULT_DATA_DIR)


def runtime_for(config: AppConfig, args: argparse.Namespace) -> jobs.Runtime:
    """The job runtime on the queue `args` name, its tasks registered and installed; its handler
    runs the routed flow through the App's door with the job's key, so a re-run job finds its own
    check run. Checkouts come from the repositories' object stores kept in the data directory
    (per machine), which fetch only what is new."""
    tokens = InstallationTokens(config)
    data_dir = data_dir_of(args)

    def handler(key: str, route: Route, login: str) -> str:
        from ..flows.result import FlowOutcome
        from .door import run_route  # the adapter and git: loaded by the worker at its first job

        result = run_route(route, key=key, config=config, tokens=tokens, login=login, data_dir=data_dir)
        detail = f"{route.flow}: {result.outcome}" + (f": {result.detail}" if result.detail else "")
        if result.outcome is FlowOutcome.FAILED:
            raise jobs.FlowFailed(detail)
        return detail

    runtime = jobs.Runtime(open_backend(data_dir, args.redis), tokens, handler)
    jobs.register(runtime)
    jobs.install(runtime)
    return runtime


class QuietQueue:
    """huey's reads of the queue, logged once per outage (not a traceback a second) and backed
    off, so a worker waits out a Redis restart quietly."""

    def __init__(self, huey: Huey, stop: Callable[[float], bool] = lambda s: bool(time.sleep(s))) -> None:
        self.down, self.delay, self.stop = False, 0.5, stop
        self._dequeue, self._read_schedule = huey.dequeue, huey.read_schedule
        huey.dequeue = self.dequeue  # type: ignore[method-assign]
        huey.read_schedule = self.read_schedule  # type: ignore[method-assign]

    def _guard(self, read: Callable[[], Any], empty: Any) -> Any:
        try:
            found = read()
        except Exception as exc:  # the queue's own error type (sqlite3, redis)
            if not self.down:
                log("queue.unreachable", logging.WARNING, error=type(exc).__name__)
                self.down = True
            self.stop(self.delay)
            self.delay = min(self.delay * 2, 10.0)
            return empty
        if self.down:
            log("queue.reachable")
            self.down, self.delay = False, 0.5
        return found

    def dequeue(self) -> Any:
        return self._guard(self._dequeue, None)

    def read_schedule(self, timestamp: Any = None) -> Any:
        return self._guard(lambda: self._read_schedule(timestamp), [])


class _Workers(ProcessEnvironment):
    """huey's forked worker processes, tied to the worker's life — at once on Linux (the core's
    `die_with`: the kernel's parent-death signal), else within a second (a watch on the parent) —
    so no orphan keeps taking jobs; and not daemonic: a job may fork helpers of its own (the core
    checks a big shelf on every core)."""

    def create_process(self, runnable: Callable[[], None], name: str) -> Any:
        parent = os.getpid()

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(1.0)
            os._exit(1)

        def run() -> None:
            die_with(parent)
            threading.Thread(target=watch, name="memshelf-bot-parent-watch", daemon=True).start()
            runnable()

        process = super().create_process(run, name)
        process.daemon = False
        return process


class _Consumer(Consumer):
    def get_environment(self, worker_type: str) -> ProcessEnvironment:
        return _Workers(self._graceful_sig, self._interrupt_sig)


def start_consumer(runtime: jobs.Runtime, workers: int, grace: float = DEFAULT_GRACE) -> Consumer:
    """huey's consumer with `workers` forked processes (the core forks its own helpers, so no
    threads); started before any thread of ours exists. On stop, running jobs get `grace` seconds."""
    huey = runtime.backend.huey
    QuietQueue(huey)
    consumer = _Consumer(huey, workers=workers, worker_type="process", periodic=True, graceful_signal="TERM",
                         shutdown_timeout=grace, initial_delay=0.05, max_delay=1.0, check_worker_health=True)
    consumer.start()
    return consumer


def stop_consumer(consumer: Consumer | None) -> None:
    """Stop taking jobs; let running ones finish within the grace, then interrupt them (their
    leases lapse and they run again after restart)."""
    if consumer is not None:
        consumer.stop(graceful=True)


@contextmanager
def requeueing(runtime: jobs.Runtime) -> Iterator[None]:
    """Put lapsed leases' tasks back on the queue now and every half lease, in a thread."""
    stop = threading.Event()

    def loop() -> None:
        down = False
        while True:
            try:
                jobs.requeue(runtime)
                down = False
            except Exception as exc:  # the store is down: once per outage, then again next round
                if not down:
                    log("job.requeue-failed", logging.WARNING, error=type(exc).__name__)
                down = True
            if stop.wait(runtime.lease / 2):
                return

    thread = threading.Thread(target=loop, name="memshelf-bot-requeue", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
