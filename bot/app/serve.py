"""`memshelf-bot serve`: the webhook listener and the admin listener (waitress) and, unless
`--workers 0`, job workers.

It prints `ready <webhook url>` then `admin <admin url>` once both listen (a port of 0 picks a
free one) and calls nothing on GitHub before its first job, so it may start before the GitHub it
points at. SIGTERM: stop accepting, let running jobs finish within the grace period, exit 0.
"""

from __future__ import annotations

import argparse
import threading
from contextlib import nullcontext
from typing import Any

from waitress.server import create_server

from . import logs
from .logs import log
from .process import (
    backend_for,
    configure,
    data_dir_of,
    requeueing,
    runtime_for,
    start_consumer,
    stop_consumer,
    supervise,
    until_signalled,
)
from .wsgi import AdminApp, WebhookApp

SERVER_THREADS = 8
ADMIN_THREADS = 2


def _url(host: str, server: Any) -> str:
    return f"http://{host if ':' not in host else f'[{host}]'}:{server.effective_port}"


def cli_main(args: argparse.Namespace) -> int:
    config = configure(args, "serve", min_workers=0)
    if config is None:
        return 2
    logs.setup()
    backend = backend_for(args)
    runtime = runtime_for(config, backend, data_dir_of(args))
    consumer = start_consumer(runtime, args.workers, args.grace) if args.workers else None
    webhook = create_server(WebhookApp(config.webhook_secret, backend.store, runtime.enqueue, backend.healthy),
                            host=args.host, port=args.port, threads=SERVER_THREADS, ident="memshelf-bot",
                            clear_untrusted_proxy_headers=True)
    admin = create_server(AdminApp(backend.store, backend.depth), host=args.admin_host, port=args.admin_port,
                          threads=ADMIN_THREADS, ident="memshelf-bot", clear_untrusted_proxy_headers=True)
    servers = (webhook, admin)
    with until_signalled() as stop:
        threads = [threading.Thread(target=s.run, name="memshelf-bot-http", daemon=True) for s in servers]
        for thread in threads:
            thread.start()
        url, admin_url = _url(args.host, webhook), _url(args.admin_host, admin)
        log("listening", url=url, admin=admin_url, workers=args.workers, queue="redis" if args.redis else "sqlite")
        print(f"ready {url}", flush=True)
        print(f"admin {admin_url}", flush=True)
        with requeueing(runtime) if consumer is not None else nullcontext():
            supervise(stop, consumer)
            for server in servers:
                server.close()  # stop accepting; requests in flight finish
            for server, thread in zip(servers, threads, strict=True):
                thread.join(10)
                server.task_dispatcher.shutdown(timeout=10)
            stop_consumer(consumer)
    log("stopped")
    return 0
