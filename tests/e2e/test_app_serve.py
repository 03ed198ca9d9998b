"""`memshelf-bot serve` and `worker` as real processes: exit 2 with one line on a bad
configuration (before listening), `ready <url>` and `admin <url>` with ports 0, the webhook's
endpoints and the admin ones each on their own listener, JSON log
lines that never hold the key or the secret, and SIGTERM → exit 0."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bot.app.config import APP_ID
from tests.app_helpers import SECRET, delivery_headers, pull_payload, write_key
from tests.app_procs import app_env, get, post, start


@pytest.mark.parametrize("command", ["serve", "worker"])
def test_the_cli_exits_2_with_one_line_before_listening(command: str, tmp_path: Path) -> None:
    env = app_env(write_key(tmp_path))
    env[APP_ID] = "x"
    args = [sys.executable, "-m", "bot.cli", command, "--data-dir", str(tmp_path / "data")]
    done = subprocess.run(args + (["--port", "0"] if command == "serve" else []), env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2
    assert done.stdout == "" and len(done.stderr.strip().splitlines()) == 1 and APP_ID in done.stderr
    assert "BEGIN" not in done.stderr and not (tmp_path / "data").exists()


def test_serve_answers_and_stops_on_sigterm(tmp_path: Path) -> None:
    key = write_key(tmp_path)
    serve = start(["serve", "--port", "0", "--data-dir", str(tmp_path / "data"), "--workers", "1",
                   "--github-url", "http://127.0.0.1:9/"], app_env(key), tmp_path)
    try:
        assert serve.url.startswith("http://127.0.0.1:") and not serve.url.endswith(":0")
        assert get(serve.url + "/healthz")[0] == 200
        ping = b'{"zen": "Design for failure."}'
        assert post(serve.url + "/webhook", ping, delivery_headers("ping", ping))[0] == 200
        body = pull_payload(action="labeled")
        assert post(serve.url + "/webhook", body, delivery_headers("pull_request", body))[0] == 202
        forged = pull_payload()
        assert post(serve.url + "/webhook", forged, delivery_headers("pull_request", forged, secret=b"x"))[0] == 401
        assert serve.admin.startswith("http://127.0.0.1:") and serve.admin != serve.url
        status, metrics = get(serve.admin + "/metrics")
        assert status == 200
        assert b'memshelf_bot_deliveries_total{event="pull_request",outcome="unauthorized"} 1.0' in metrics
        assert get(serve.admin + "/")[0] == 200
        assert get(serve.url + "/")[0] == 404 and get(serve.url + "/metrics")[0] == 404  # not on the internet's side
    finally:
        code = serve.stop()
    assert code == 0
    logged = serve.log_objects()
    assert any(line.get("event") == "listening" for line in logged)
    assert any(line.get("event") == "stopped" for line in logged)
    text = "\n".join(serve.lines)
    assert "PRIVATE KEY" not in text and SECRET.decode() not in text and key.read_text()[40:80] not in text
    for line in serve.lines:
        json.loads(line)  # every line one JSON object


def test_worker_starts_and_stops_on_sigterm(tmp_path: Path) -> None:
    env = app_env(write_key(tmp_path))
    del env["MEMSHELF_BOT_WEBHOOK_SECRET"]  # a worker never sees a request
    worker = start(["worker", "--data-dir", str(tmp_path / "data"), "--workers", "1",
                    "--github-url", "http://127.0.0.1:9/"], env, tmp_path)
    assert worker.stop() == 0
    assert [line["event"] for line in worker.log_objects() if line.get("event") in ("working", "stopped")] == [
        "working", "stopped"]
