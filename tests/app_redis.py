"""A real Redis for the App's tests: Debian's redis-server on loopback, on a free port, started
by a fixture and stopped after (nothing persisted) — and one a test may stop and start again
(`Outage`), persisted to its directory so it comes back with its data, as a restarted Redis does."""

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


def _launch(where: Path, port: int, *persist: str) -> subprocess.Popen[bytes]:
    assert REDIS_SERVER is not None
    proc = subprocess.Popen([REDIS_SERVER, "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                             "--appendonly", "no", "--dir", str(where), "--protected-mode", "yes", *persist],
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
    return proc


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    if REDIS_SERVER is None:
        pytest.skip("Debian's redis-server is not installed (./dev test installs it)")
    proc = _launch(tmp_path_factory.mktemp("redis"), port := free_port())
    try:
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        _stop(proc)


class Outage:
    """A Redis of one test's own, which it stops (SIGTERM: it writes its data) and starts again
    on the same port with the same data."""

    PERSIST = ("--appendonly", "yes", "--appendfsync", "always")

    def __init__(self, where: Path) -> None:
        self.where, self.port = where, free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = _launch(where, self.port, *self.PERSIST)

    def stop(self) -> None:
        if self.proc is not None:
            _stop(self.proc)
            self.proc = None

    def start(self) -> None:
        if self.proc is None:
            self.proc = _launch(self.where, self.port, *self.PERSIST)


@pytest.fixture
def outage(tmp_path: Path) -> Iterator[Outage]:
    if REDIS_SERVER is None:
        pytest.skip("Debian's redis-server is not installed (./dev test installs it)")
    where = tmp_path / "redis"
    where.mkdir()
    redis = Outage(where)
    try:
        yield redis
    finally:
        redis.stop()


def flush(url: str) -> None:
    import redis

    redis.Redis.from_url(url).flushdb()
