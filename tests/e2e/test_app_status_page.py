"""The status page in a real headless Chromium: the page a person opens, screenshotted by the test
(into its tmp dir) and its DOM checked — recent deliveries escaped, the queue depth, no payload."""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from waitress.server import create_server

from bot.app.jobs import open_backend
from bot.app.store import Record, State
from bot.app.wsgi import AdminApp

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (./dev test installs it)")
HOSTILE_REPO = 'shelf/<img src=x onerror="alert(1)">'
SECRET_IN_PAYLOAD = "ghs_thisIsAPayloadTokenThatMustNeverShow"


def _chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp / 'profile'}", *args],
                          capture_output=True, text=True, timeout=90, check=False)


@pytest.fixture
def page_url(tmp_path: Path) -> Iterator[str]:
    backend = open_backend(tmp_path / "data", None)
    store = backend.store
    rows = [("pull_request", "opened", "shelf/notes", State.SUCCEEDED),
            ("push", "", HOSTILE_REPO, State.FAILED),
            ("issue_comment", "created", "shelf/notes", State.QUEUED)]
    for i, (event, action, repo, state) in enumerate(rows):
        key = f"1:guid-{i}"
        store.claim(Record(key, event, action, repo, State.RECEIVED, 1000.0 + i))
        if state is not State.QUEUED:
            task = f'{{"token": "{SECRET_IN_PAYLOAD}"}}'  # a task's arguments never reach the page
            store.start(key, "worker", 2000.0, task, 1000.0 + i)
            store.finish([key], state, "boom <b>bold</b>" if state is State.FAILED else "ran", 1001.5 + i)
        else:
            store.set_queued(key)
    app = AdminApp(store, lambda: 3, clock=lambda: 1060.0)
    server = create_server(app, host="127.0.0.1", port=0, threads=2)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}/"
    finally:
        server.close()
        thread.join(10)
        server.task_dispatcher.shutdown()


def test_the_status_page_in_a_real_browser(page_url: str, tmp_path: Path) -> None:
    shot = tmp_path / "status.png"
    taken = _chromium(tmp_path, "--window-size=1100,500", f"--screenshot={shot}", page_url)
    assert shot.exists() and shot.stat().st_size > 5000, taken.stderr[-2000:]
    assert shot.read_bytes().startswith(b"\x89PNG")
    dom = _chromium(tmp_path, "--dump-dom", page_url).stdout
    assert '<strong id="queue-depth">3</strong>' in dom
    assert dom.count("<tr class=") == 3
    assert "shelf/&lt;img src=x onerror=\"alert(1)\"&gt;" in dom or "shelf/&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in dom
    assert "<img" not in dom and "<b>bold</b>" not in dom
    assert SECRET_IN_PAYLOAD not in dom
    assert "pull_request.opened" in dom and "1.50 s" in dom and "succeeded" in dom and "failed" in dom
