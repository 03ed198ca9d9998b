"""`memshelf-bot serve` (the webhook listener and the admin listener, on waitress, and unless
`--workers 0` job workers) and `memshelf-bot worker` (job workers only, for machines sharing the
serve replicas' Redis queue, or a second process group on the SQLite one).

`serve` prints `ready <webhook url>` then `admin <admin url>` once both listen (a port of 0 picks a
free one) and calls nothing on GitHub before its first job, so it may start before the GitHub it
points at; `worker` prints `ready`. SIGTERM or SIGINT: stop accepting, let running jobs finish
within the grace period, exit 0.
"""

from __future__ import annotations

import argparse
import signal
import threading
from contextlib import nullcontext
from typing import Any

from waitress.server import create_server

from . import logs
from .logs import log
from .process import configure, requeueing, runtime_for, start_consumer, stop_consumer
from .wsgi import AdminApp, WebhookApp

SERVER_THREADS = 8
ADMIN_THREADS = 2


def _url(host: str, server: Any) -> str:
    return f"http://{host if ':' not in host else f'[{host}]'}:{server.effective_port}"


def cli_main(args: argparse.Namespace) -> int:
    return _run(args, "serve")


def worker_main(args: argparse.Namespace) -> int:
    return _run(args, "worker")


def _run(args: argparse.Namespace, command: str) -> int:
    serving = command == "serve"
    config = configure(args, command, min_workers=0 if serving else 1)
    if config is None:
        return 2
    logs.setup()
    runtime = runtime_for(config, args)
    backend = runtime.backend
    consumer = start_consumer(runtime, args.workers, args.grace) if args.workers else None
    servers = [
        create_server(WebhookApp(config.webhook_secret, backend.store, runtime.enqueue, backend.healthy),
                      host=args.host, port=args.port, threads=SERVER_THREADS, ident="memshelf-bot",
                      clear_untrusted_proxy_headers=True),
        create_server(AdminApp(backend.store, backend.depth), host=args.admin_host, port=args.admin_port,
                      threads=ADMIN_THREADS, ident="memshelf-bot", clear_untrusted_proxy_headers=True),
    ] if serving else []
    stop = threading.Event()

    def handle(signum: int, _frame: object) -> None:
        log("stopping", signal=signal.Signals(signum).name)
        stop.set()

    # installed after the consumer's own handlers
    previous = {s: signal.signal(s, handle) for s in (signal.SIGTERM, signal.SIGINT)}
    threads = [threading.Thread(target=s.run, name="memshelf-bot-http", daemon=True) for s in servers]
    for thread in threads:
        thread.start()
    queue = "redis" if args.redis else "sqlite"
    if serving:
        url, admin_url = _url(args.host, servers[0]), _url(args.admin_host, servers[1])
        log("listening", url=url, admin=admin_url, workers=args.workers, queue=queue)
        print(f"ready {url}\nadmin {admin_url}", flush=True)
    else:
        log("working", workers=args.workers, queue=queue)
        print("ready", flush=True)
    with requeueing(runtime) if consumer is not None else nullcontext():
        while not stop.wait(2.0):  # restarting dead worker processes meanwhile
            if consumer is not None:
                consumer.check_worker_health()
        for server in servers:
            server.close()  # stop accepting; requests in flight finish
        for server, thread in zip(servers, threads, strict=True):
            thread.join(10)
            server.task_dispatcher.shutdown(timeout=10)
        stop_consumer(consumer)
    for s, handler in previous.items():
        signal.signal(s, handler)
    log("stopped")
    return 0
