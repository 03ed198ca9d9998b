"""`memshelf-bot setup` as a person runs it: a real headless Chromium opens the page the command
printed, the page posts the manifest to the sandbox (playing GitHub), the person clicks "Create
GitHub App", the sandbox sends the browser back with a code, and the command stores the new App's
credentials (mode 0600) without printing a secret. Then `serve` starts from those files alone and
takes the sandbox's deliveries, signed with the stored secret."""

from __future__ import annotations

import json
import os
import socket
import stat
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest

from bot.app import credentials
from memshelf_sandbox import Sandbox, seed_bare_repo
from tests import app_procs
from tests.app_helpers import delivery_headers, push_payload
from tests.browser import CHROMIUM, Browser
from tests.e2e.test_sandbox_manifest_flow import web
from tests.sandbox_fixtures import raw_request, seed_tree

pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed (./dev test installs it)"),
              pytest.mark.slow]


@dataclass
class Setup:
    """A running `memshelf-bot setup`: the page it printed, its process."""

    popen: subprocess.Popen[str]
    url: str

    def finish(self, timeout: float = 60.0) -> tuple[int, str, str]:
        out, err = self.popen.communicate(timeout=timeout)
        return self.popen.returncode, self.url + "\n" + out, err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith(("MEMSHELF_BOT_", "GITHUB_"))}


def start_setup(sb: Sandbox, data_dir: Path, webhook_url: str, *extra: str) -> Setup:
    popen = subprocess.Popen([sys.executable, "-m", "bot.cli", "setup", "--github-url", sb.api_url,
                              "--webhook-url", webhook_url, "--data-dir", str(data_dir), *extra],
                             env=clean_env(), cwd=data_dir.parent, text=True, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    assert popen.stdout is not None
    first = popen.stdout.readline().strip()
    assert first.startswith("open http://127.0.0.1:"), first + (popen.stderr.read() if popen.stderr else "")
    return Setup(popen, first.removeprefix("open "))


def form_state(setup: Setup) -> str:
    """The state this run sends GitHub, read from its page as the browser would."""
    with urllib.request.urlopen(setup.url, timeout=30) as page:
        text = page.read().decode()
    action = text.split('action="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    return parse_qs(urlsplit(action).query)["state"][0]


def callback(setup: Setup, **query: str) -> int:
    try:
        with urllib.request.urlopen(f"{setup.url}callback?{urlencode(query)}", timeout=30) as answer:
            return answer.status
    except urllib.error.HTTPError as exc:
        return exc.code


@pytest.fixture
def sb(tmp_path: Path) -> Iterator[Sandbox]:
    bare = tmp_path / "shelf.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    with Sandbox.start(bare, "octo/shelf") as sandbox:
        yield sandbox
        assert sandbox.validation_errors == []


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    chromium = Browser(tmp_path / "profile")
    try:
        yield chromium
    finally:
        chromium.close()


def click_through(browser: Browser, sb: Sandbox, setup: Setup, shots: Path) -> None:
    """Open the printed page; it posts the manifest; click "Create GitHub App"; wait to be back."""
    browser.open(setup.url)
    browser.wait_for(f"location.href.startsWith({json.dumps(sb.api_url + '/settings/apps/new')})"
                     " && !!document.getElementById('create')")
    browser.screenshot(shots / "github-page.png")
    browser.click("#create")
    browser.wait_for("document.title === 'Registered'")
    browser.screenshot(shots / "registered.png")


def test_one_click_registers_the_app_and_serve_runs_on_it_alone(sb: Sandbox, browser: Browser,
                                                                tmp_path: Path) -> None:
    port = free_port()
    data_dir = tmp_path / "bot-data"
    setup = start_setup(sb, data_dir, f"http://127.0.0.1:{port}/webhook")
    click_through(browser, sb, setup, tmp_path)
    code, out, err = setup.finish()
    assert code == 0, err
    # what was stored: three files, 0600, in a 0700 directory; the App the sandbox now plays
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    for name in (credentials.APP_FILE, credentials.KEY_FILE, credentials.SECRET_FILE):
        assert stat.S_IMODE((data_dir / name).stat().st_mode) == 0o600, name
    stored = credentials.load(data_dir)
    assert stored is not None and sb.app is not None
    assert (stored.app_id, stored.slug, stored.github_url) == (sb.app.id, "memshelf-bot", sb.api_url)
    assert stored.private_key.startswith("-----BEGIN RSA PRIVATE KEY-----")
    assert f"{stored.slug} (id {stored.app_id})" in out and str(data_dir) in out
    secret_lines = [line for line in stored.private_key.splitlines() if "-----" not in line]
    for text in (out, err):
        assert stored.webhook_secret not in text
        assert not any(line in text for line in secret_lines)
    # the manifest went through: the sandbox's App has its permissions, events and hook URL
    assert sb.app.permissions["merge_queues"] == "read" and "merge_group" in sb.app.events
    assert sb.deliveries.url == f"http://127.0.0.1:{port}/webhook"

    # serve from the stored credentials alone (no MEMSHELF_BOT_* in its environment)
    serve = app_procs.start(["serve", "--data-dir", str(data_dir), "--port", str(port), "--workers", "0",
                             "--github-url", sb.api_url], clean_env(), tmp_path)
    try:
        sb.add_token("ghp_agent", "agent", "write", integration=False)
        main = sb.store.ref("refs/heads/main")
        status, _, _ = raw_request(sb, "POST", "/repos/octo/shelf/git/refs",
                                   json.dumps({"ref": "refs/heads/shelve/x", "sha": main}).encode(), token="ghp_agent")
        assert status == 201
        assert sb.deliveries.wait_idle(30)
        answered = {(d["event"], d["status_code"]) for d in sb.deliveries.listing()}
        assert answered == {("push", 202), ("check_suite", 202)}  # signed by the sandbox, with the stored secret
        body = push_payload(repo="octo/shelf", branch="shelve/y")
        status, _ = app_procs.post(f"{serve.url}/webhook", body,
                                   delivery_headers("push", body, secret=b"not-the-stored-secret"))
        assert status == 401
        status, _ = app_procs.post(f"{serve.url}/webhook", body,
                                   delivery_headers("push", body, secret=stored.webhook_secret.encode()))
        assert status == 202
    finally:
        assert serve.stop() == 0
    logged = "\n".join(serve.lines)
    assert stored.webhook_secret not in logged and not any(line in logged for line in secret_lines)


def test_a_callback_with_another_state_is_refused_and_the_code_left_alone(sb: Sandbox, browser: Browser,
                                                                          tmp_path: Path) -> None:
    data_dir = tmp_path / "bot-data"
    setup = start_setup(sb, data_dir, "http://127.0.0.1:9/webhook")
    manifest = json.dumps({"name": "planted", "url": "https://e.org", "hook_attributes": {"url": "http://127.0.0.1:9/w"},
                           "redirect_url": f"{setup.url}callback"})
    planted = register_code(sb, manifest)
    assert callback(setup, code=planted, state="not-this-run") == 400
    assert callback(setup, code=planted) == 400  # no state at all
    assert not credentials.stored(data_dir)
    assert raw_request(sb, "POST", f"/app-manifests/{planted}/conversions", b"", token=None)[0] == 201  # unspent
    # the run goes on, and the real click still registers
    click_through(browser, sb, setup, tmp_path)
    code, _, err = setup.finish()
    assert code == 0, err
    stored = credentials.load(data_dir)
    assert stored is not None and stored.slug == "memshelf-bot"


def register_code(sb: Sandbox, manifest: str) -> str:
    """A code from the sandbox's own registration page, without a browser (another's run)."""
    status, page, _ = web(sb, "POST", "/settings/apps/new?state=theirs", {"manifest": manifest})
    assert status == 200
    token = page.split('name="token" value="', 1)[1].split('"', 1)[0]
    status, _, headers = web(sb, "POST", "/settings/apps/new/confirm", {"token": token})
    assert status == 302
    return parse_qs(urlsplit(headers["Location"]).query)["code"][0]


def test_a_replayed_code_is_refused_and_nothing_is_stored(sb: Sandbox, tmp_path: Path) -> None:
    data_dir = tmp_path / "bot-data"
    setup = start_setup(sb, data_dir, "http://127.0.0.1:9/webhook")
    state = form_state(setup)
    spent = register_code(sb, json.dumps({"name": "first", "url": "https://e.org",
                                          "hook_attributes": {"url": "http://127.0.0.1:9/w"},
                                          "redirect_url": f"{setup.url}callback"}))
    assert raw_request(sb, "POST", f"/app-manifests/{spent}/conversions", b"", token=None)[0] == 201
    assert callback(setup, code=spent, state=state) == 502  # GitHub (the sandbox) says 404: used once already
    code, _, err = setup.finish()
    assert code == 1 and "GitHub refused the code: HTTP 404" in err and "nothing was stored" in err
    assert not data_dir.exists() or not credentials.stored(data_dir)


def test_setup_refuses_a_data_dir_that_already_holds_an_app(sb: Sandbox, tmp_path: Path) -> None:
    data_dir = tmp_path / "bot-data"
    credentials.store(data_dir, credentials.StoredApp(7, "old", "old", sb.api_url, "key", "secret"))
    done = subprocess.run([sys.executable, "-m", "bot.cli", "setup", "--github-url", sb.api_url,
                           "--webhook-url", "https://e.org/webhook", "--data-dir", str(data_dir)],
                          env=clean_env(), capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "already holds a registered App" in done.stderr
    assert (data_dir / credentials.KEY_FILE).read_text() == "key"


def test_a_request_for_another_host_name_is_refused(sb: Sandbox, tmp_path: Path) -> None:
    """A hostile page whose name resolves to 127.0.0.1 (DNS rebinding) cannot read the form."""
    setup = start_setup(sb, tmp_path / "bot-data", "http://127.0.0.1:9/webhook")
    try:
        request = urllib.request.Request(setup.url, headers={"Host": "attacker.example"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 421
    finally:
        setup.popen.terminate()
        setup.popen.communicate(timeout=30)
