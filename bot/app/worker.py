"""`memshelf-bot worker`: job workers only, for machines sharing the serve replicas' Redis queue
(or a second process group on the SQLite one). SIGTERM: running jobs finish within the grace
period, then it exits 0."""

from __future__ import annotations

import argparse

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


def cli_main(args: argparse.Namespace) -> int:
    config = configure(args, "worker", min_workers=1)
    if config is None:
        return 2
    logs.setup()
    runtime = runtime_for(config, backend_for(args), data_dir_of(args))
    consumer = start_consumer(runtime, args.workers, args.grace)
    with until_signalled() as stop, requeueing(runtime):
        log("working", workers=args.workers, queue="redis" if args.redis else "sqlite")
        print("ready", flush=True)
        supervise(stop, consumer)
        stop_consumer(consumer)
    log("stopped")
    return 0
