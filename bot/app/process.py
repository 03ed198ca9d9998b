"""What `serve` and `worker` share: the command-line options, the configuration check, the
job runtime, the huey consumer (process workers), and a graceful stop on SIGTERM."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from huey.consumer import Consumer, ProcessEnvironment

from . import jobs
from .auth import InstallationTokens
from .config import AppConfig, ConfigError, load_config
from .logs import log
from .options import DEFAULT_DATA_DIR, DEFAULT_GRACE
from .queue import Backend, open_backend


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
                           data_dir=args.data_dir or Path(DEFAULT_DATA_DIR))
    except ConfigError as exc:
        print(f"memshelf-bot {command}: {exc}", file=sys.stderr)
        return None


def backend_for(args: argparse.Namespace) -> Backend:
    return open_backend(args.data_dir or Path(DEFAULT_DATA_DIR), args.redis)


class Flows:
    """The flow handler, imported at the first job (in the worker that runs it): the flows pull in
    the core and git, which the webhook server itself never needs."""

    def __init__(self, config: AppConfig, tokens: InstallationTokens) -> None:
        self.config, self.tokens = config, tokens
        self._handler: jobs.Handler | None = None

    def __call__(self, job: jobs.Job) -> str:
        if self._handler is None:
            from .flows import FlowHandler

            self._handler = FlowHandler(self.config, self.tokens)
        return self._handler(job)


def runtime_for(config: AppConfig, backend: Backend) -> jobs.Runtime:
    tokens = InstallationTokens(config)
    runtime = jobs.Runtime(backend, tokens, Flows(config, tokens))
    runtime.run = jobs.register(backend.huey)
    jobs.install(runtime)
    return runtime


class _Workers(ProcessEnvironment):
    """huey's forked worker processes, but not daemonic: a job may fork helpers of its own (the
    core checks and renders a big shelf on every core), which a daemonic process may not."""

    def create_process(self, runnable: Callable[[], None], name: str) -> Any:
        process = super().create_process(runnable, name)
        process.daemon = False
        return process


class _Consumer(Consumer):
    def get_environment(self, worker_type: str) -> ProcessEnvironment:
        return _Workers(self._graceful_sig, self._interrupt_sig)


def start_consumer(runtime: jobs.Runtime, workers: int, grace: float = DEFAULT_GRACE) -> Consumer:
    """huey's consumer with `workers` forked processes (the core forks its own helpers, so no
    threads); started before any thread of ours exists. On stop, running jobs get `grace` seconds."""
    consumer = _Consumer(runtime.backend.huey, workers=workers, worker_type="process", periodic=True,
                        graceful_signal="TERM", shutdown_timeout=grace, initial_delay=0.05, max_delay=1.0,
                        check_worker_health=True)
    consumer.start()
    return consumer


@contextmanager
def until_signalled() -> Iterator[threading.Event]:
    """An event set by SIGTERM or SIGINT (installed after the consumer's own handlers)."""
    stop = threading.Event()

    def handle(signum: int, _frame: object) -> None:
        log("stopping", signal=signal.Signals(signum).name)
        stop.set()

    previous = {s: signal.signal(s, handle) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield stop
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def supervise(stop: threading.Event, consumer: Consumer | None) -> None:
    """Wait for the stop signal, restarting dead worker processes meanwhile."""
    while not stop.wait(2.0):
        if consumer is not None:
            consumer.check_worker_health()


def stop_consumer(consumer: Consumer | None) -> None:
    """Stop taking jobs; let running ones finish within the grace, then interrupt them (they run
    again after restart: their records stay 'running' and their lease lapses)."""
    if consumer is not None:
        consumer.stop(graceful=True)
