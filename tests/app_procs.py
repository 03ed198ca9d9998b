"""Real `serve` / `worker` processes for the App's tests: started with a configuration in the
environment, their `ready` line awaited, stopped with SIGTERM (and reaped) afterwards."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from bot.app.config import APP_ID, PRIVATE_KEY_FILE, WEBHOOK_SECRET
from bot.app.leases import LEASE_SECONDS
from tests.app_helpers import SECRET

READY_TIMEOUT = 60.0


def app_env(key_file: Path, app_id: int = 42, secret: bytes = SECRET, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMSHELF_BOT_", "GITHUB_"))}
    env.update({APP_ID: str(app_id), PRIVATE_KEY_FILE: str(key_file), WEBHOOK_SECRET: secret.decode(),
                LEASE_SECONDS: "6"}, **extra)  # a dead worker's job comes back within seconds
    return env


@dataclass
class Proc:
    popen: subprocess.Popen[str]
    url: str = ""
    admin: str = ""  # serve's admin listener (status page, /metrics)
    lines: list[str] = field(default_factory=list)

    def stop(self, timeout: float = 60.0) -> int:
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGTERM)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
            raise

    def kill(self) -> None:
        if self.popen.poll() is None:
            os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait()

    def log_objects(self) -> list[dict]:
        return [json.loads(line) for line in self.lines if line.startswith("{")]


def start(command: list[str], env: dict[str, str], cwd: Path) -> Proc:
    """`memshelf-bot COMMAND …`, waiting for its `ready` line (and serve's `admin` line, on a free
    port unless one is given); stderr collected into `lines`."""
    if command[0] == "serve" and "--admin-port" not in command:
        command = [*command, "--admin-port", "0"]
    popen = subprocess.Popen([sys.executable, "-m", "bot.cli", *command], env=env, cwd=cwd, text=True,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    proc = Proc(popen)

    def drain() -> None:
        assert popen.stderr is not None
        for line in popen.stderr:
            proc.lines.append(line.rstrip("\n"))

    threading.Thread(target=drain, daemon=True).start()
    assert popen.stdout is not None
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        line = popen.stdout.readline()
        if not line:
            break
        if line.startswith("ready"):
            proc.url = line.split(" ", 1)[1].strip() if " " in line else ""
            if command[0] == "serve":
                proc.admin = popen.stdout.readline().removeprefix("admin ").strip()
            threading.Thread(target=popen.stdout.read, daemon=True).start()
            return proc
    proc.kill()
    raise RuntimeError(f"{command[0]} did not get ready: " + "\n".join(proc.lines[-20:]))


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()
