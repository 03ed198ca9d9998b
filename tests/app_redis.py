"""A real Redis for the App's tests: Debian's redis-server on loopback, on a free port, started
by a fixture and stopped after (nothing persisted)."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REDIS_SERVER = shutil.which("redis-server")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if REDIS_SERVER is None:
        pytest.skip("Debian's redis-server is not installed (./dev test installs it)")
    where: Path = tmp_path_factory.mktemp("redis")
    port = free_port()
    proc = subprocess.Popen([REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                             "--appendonly", "no", "--dir", str(where), "--protected-mode", "yes"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as conn:
                conn.sendall(b"PING\r\n")
                if conn.recv(16).startswith(b"+PONG"):
                    break
        except OSError:
            pass
        if time.monotonic() > deadline or proc.poll() is not None:
            proc.kill()
            raise RuntimeError("redis-server did not start")
        time.sleep(0.05)
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def flush(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()
