"""The command-line options of `serve`, `worker` and `setup` (imported by bot/cli.py at every
start, so nothing heavy is imported here: the handlers load the server and the queue only when
they run)."""

from __future__ import annotations

import argparse
from pathlib import Path

DEFAULT_GITHUB_URL = "https://api.github.com"
DEFAULT_DATA_DIR = "memshelf-bot-data"
DEFAULT_WORKERS = 2
DEFAULT_ADMIN_PORT = 9090
DEFAULT_GRACE = 30.0  # seconds running jobs get to finish after SIGTERM


def _queue_options(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                       help=f"SQLite queue and state here (default: ./{DEFAULT_DATA_DIR}; one machine)")
    where.add_argument("--redis", metavar="URL", help="share the queue on Redis (serve replicas and workers anywhere)")
    p.add_argument("--workers", type=int, default=DEFAULT_WORKERS, metavar="N",
                   help=f"job worker processes (default {DEFAULT_WORKERS})")
    p.add_argument("--github-url", default=DEFAULT_GITHUB_URL, metavar="URL",
                   help="GitHub's REST API (GitHub Enterprise Server, the sandbox)")
    p.add_argument("--grace", type=float, default=DEFAULT_GRACE, metavar="SECONDS",
                   help=f"on SIGTERM, how long running jobs may finish before they are interrupted and left to run "
                        f"again at the next start (default {DEFAULT_GRACE:g}; keep it below your orchestrator's "
                        "kill timeout)")


def add_serve(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("serve", help="App mode: the webhook server (+ job workers unless --workers 0)")
    p.add_argument("--host", default="127.0.0.1", help="address of POST /webhook and GET /healthz (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    p.add_argument("--admin-host", default="127.0.0.1",
                   help="address of the status page and /metrics (default 127.0.0.1: keep them private)")
    p.add_argument("--admin-port", type=int, default=DEFAULT_ADMIN_PORT,
                   help=f"port of the status page and /metrics (default {DEFAULT_ADMIN_PORT}; 0 picks a free one)")
    _queue_options(p)
    p.set_defaults(handler="bot.app.serve:cli_main")


def add_worker(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("worker", help="App mode: job workers only (e.g. other machines on the Redis queue)")
    _queue_options(p)
    p.set_defaults(handler="bot.app.serve:worker_main")


def add_setup(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("setup", help="register the GitHub App from the committed manifest in one browser click")
    p.add_argument("--webhook-url", required=True, metavar="URL",
                   help="where GitHub delivers the App's webhooks: serve's POST /webhook as GitHub reaches it")
    p.add_argument("--github-url", default=DEFAULT_GITHUB_URL, metavar="URL",
                   help="GitHub's REST API (GitHub Enterprise Server: https://HOST/api/v3; the sandbox)")
    p.add_argument("--org", metavar="ORG", help="register the App for this organization (default: your account)")
    p.add_argument("--data-dir", type=Path, default=None, metavar="DIR",
                   help=f"store the App's id, key and webhook secret here, mode 0600 (default: ./{DEFAULT_DATA_DIR}, "
                        "where serve and worker look)")
    p.set_defaults(handler="bot.app.setup:cli_main")
