"""`memshelf-bot serve`: the webhook server (waitress) and, unless `--workers 0`, job workers.

It prints `ready <base url>` once it listens (`--port 0` picks a free port) and calls nothing on
GitHub before its first job, so it may start before the GitHub it points at. SIGTERM: stop
accepting, let running jobs finish within the grace period, exit 0.
"""

from __future__ import annotations

import argparse
import threading
from contextlib import nullcontext

from waitress.server import create_server

from . import jobs, logs
from .logs import log
from .process import (
    backend_for,
    configure,
    runtime_for,
    start_consumer,
    stop_consumer,
    supervise,
    until_signalled,
)
from .wsgi import WebhookApp

SERVER_THREADS = 8


def cli_main(args: argparse.Namespace) -> int:
    config = configure(args, "serve", min_workers=0)
    if config is None:
        return 2
    logs.setup()
    backend = backend_for(args)
    runtime = runtime_for(config, backend)
    assert runtime.run is not None
    consumer = start_consumer(runtime, args.workers, args.grace) if args.workers else None
    app = WebhookApp(config.webhook_secret, backend.store, runtime.run, backend.depth, backend.healthy)
    server = create_server(app, host=args.host, port=args.port, threads=SERVER_THREADS, ident="memshelf-bot",
                           clear_untrusted_proxy_headers=True)
    host = args.host if ":" not in args.host else f"[{args.host}]"
    url = f"http://{host}:{server.effective_port}"
    with until_signalled() as stop:
        listener = threading.Thread(target=server.run, name="memshelf-bot-http", daemon=True)
        listener.start()
        log("listening", url=url, workers=args.workers, queue="redis" if args.redis else "sqlite")
        print(f"ready {url}", flush=True)
        with jobs.recovering(runtime) if consumer is not None else nullcontext():
            supervise(stop, consumer)
            server.close()  # stop accepting; requests in flight finish
            listener.join(10)
            server.task_dispatcher.shutdown(timeout=10)
            stop_consumer(consumer)
    log("stopped")
    return 0
