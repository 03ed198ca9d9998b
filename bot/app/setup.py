"""`memshelf-bot setup`: register the GitHub App from the committed manifest in one click.

GitHub's manifest flow: a page on this machine (loopback, a free port, printed as `open <url>`)
posts the manifest — the committed `app-manifest.json` with `hook_attributes.url` set to
`--webhook-url` and `redirect_url` to this page's `/callback` — to GitHub's "new App" page (the
organization's with `--org`), with a random `state`. There the person clicks "Create GitHub App";
GitHub sends the browser back with `?code=…&state=…`; the code is traded once, within the hour,
through `POST /app-manifests/{code}/conversions` for the App's id, slug, private key and webhook
secret, which `credentials.store` keeps in `--data-dir` (mode 0600), where `serve` and `worker`
find them. The command prints the App's id and slug and where they went, never a secret.

A callback whose `state` is not this run's is refused and changes nothing (another page, or a
replay, cannot plant an App); so is any request whose Host is not this page's own address (a
hostile web page resolving its name to 127.0.0.1 cannot reach it). The run ends after the one
callback that stored an App, or after `WAIT` seconds.

`--github-url` is the REST API; GitHub's web pages are derived from it as GitHub lays them out:
`https://api.github.com` → `https://github.com`, GitHub Enterprise Server's `https://HOST/api/v3`
→ `https://HOST`, `https://api.SUBDOMAIN.ghe.com` → `https://SUBDOMAIN.ghe.com`; any other URL
(the sandbox) serves its web pages on the same origin as its API.
"""

from __future__ import annotations

import argparse
import hmac
import html
import json
import os
import re
import secrets
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit, urlunsplit

from memshelf_render import __version__

from . import credentials
from .options import DEFAULT_DATA_DIR, DEFAULT_GITHUB_URL

MANIFEST = Path(__file__).with_name("app-manifest.json")
CALLBACK = "/callback"
WAIT = 15 * 60  # seconds the browser gets to come back (GitHub's code itself lasts an hour)
TIMEOUT = 30.0  # seconds for the conversion request
ORG = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")  # a GitHub login
CODE = re.compile(r"^[A-Za-z0-9_-]{1,128}$")


class SetupError(Exception):
    """Why the App could not be registered: one line for the person running the command."""


def web_url(api_url: str) -> str:
    """GitHub's web origin for its REST API at `api_url` (see the module docstring)."""
    parts = urlsplit(api_url.rstrip("/"))
    if parts.path.endswith("/api/v3"):
        return urlunsplit((parts.scheme, parts.netloc, parts.path[: -len("/api/v3")], "", ""))
    if parts.path in ("", "/") and parts.netloc.startswith("api."):
        return urlunsplit((parts.scheme, parts.netloc[len("api."):], "", "", ""))
    return urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


def install_url(api_url: str, slug: str) -> str:
    """Where a person installs the App on their repositories."""
    return f"{web_url(api_url)}/apps/{quote(slug, safe='')}/installations/new"


def manifest(webhook_url: str, redirect_url: str) -> dict[str, Any]:
    """The committed manifest, pointed at this server's webhook and this run's callback."""
    data = json.loads(MANIFEST.read_text(encoding="utf-8"))
    data["hook_attributes"] = {**data["hook_attributes"], "url": webhook_url, "active": True}
    data["redirect_url"] = redirect_url
    return data


@dataclass(frozen=True)
class Registration:
    """One run of the flow: where the form goes, what it carries, the state to expect back."""

    api_url: str
    form_action: str
    manifest: str
    state: str


def _http_url(url: str, option: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SetupError(f"{option} must be an http(s) URL, got {url!r}")
    return url.rstrip("/")


def convert(api_url: str, code: str) -> credentials.StoredApp:
    """Trade the one-time code for the App (`POST /app-manifests/{code}/conversions`)."""
    request = urllib.request.Request(
        f"{api_url}/app-manifests/{quote(code, safe='')}/conversions", data=b"", method="POST",
        headers={"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28",
                 "User-Agent": f"memshelf-bot/{__version__}"})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            data = json.loads(response.read())
    except urllib.error.HTTPError as exc:  # its body is GitHub's error: no secret in it
        raise SetupError(f"GitHub refused the code: HTTP {exc.code}") from None
    except (OSError, ValueError) as exc:
        raise SetupError(f"the conversion failed ({type(exc).__name__})") from None
    fields = {key: data.get(key) for key in ("id", "slug", "name", "pem", "webhook_secret")} \
        if isinstance(data, dict) else {}
    if type(fields.get("id")) is not int or not all(isinstance(fields.get(k), str) and fields[k]
                                                    for k in ("slug", "name", "pem", "webhook_secret")):
        raise SetupError("GitHub's answer lacks the App's id, slug, name, key or webhook secret")
    return credentials.StoredApp(fields["id"], fields["slug"], fields["name"], api_url, fields["pem"],
                                 fields["webhook_secret"])


class _Handler(BaseHTTPRequestHandler):
    server: SetupServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a request line may carry the one-time code."""

    def do_GET(self) -> None:
        server = self.server
        url = urlsplit(self.path)
        if self.headers.get("Host") != server.host:
            self._page(421, "Wrong address", "<p>Open the address <code>memshelf-bot setup</code> printed.</p>")
        elif url.path == "/":
            self._form()
        elif url.path == CALLBACK:
            self._callback(parse_qs(url.query))
        else:
            self._page(404, "Not found", "")

    def _form(self) -> None:
        reg = self.server.registration
        nonce = secrets.token_urlsafe(16)
        body = (f'<form id="register" method="post" action="{html.escape(reg.form_action)}">'
                f'<input type="hidden" name="manifest" value="{html.escape(reg.manifest)}">'
                '<button type="submit">Register the App on GitHub</button></form>'
                f'<script nonce="{nonce}">document.getElementById("register").submit()</script>')
        self._page(200, "Register memshelf-bot", body, nonce)

    def _callback(self, query: dict[str, list[str]]) -> None:
        server = self.server
        state = (query.get("state") or [""])[-1]
        code = (query.get("code") or [""])[-1]
        if server.stored is not None:
            self._page(409, "Already registered", "<p>This run has stored its App; nothing was changed.</p>")
        elif not hmac.compare_digest(state.encode(), server.registration.state.encode()):
            self._page(400, "Refused", "<p>This answer does not belong to the registration this command started "
                                       "(its <code>state</code> does not match). Nothing was stored.</p>")
        elif not CODE.match(code):
            self._page(400, "Refused", "<p>GitHub's answer carries no usable code. Nothing was stored.</p>")
        else:
            try:
                app = convert(server.registration.api_url, code)
            except SetupError as exc:
                server.failure = str(exc)
                self._page(502, "Not registered", f"<p>{html.escape(server.failure)}</p>")
                return
            try:
                credentials.store(server.data_dir, app)
            except OSError as exc:
                server.failure = (f"the App {app.slug} (id {app.app_id}) was registered, but its credentials could "
                                  f"not be stored in {server.data_dir} ({type(exc).__name__}): delete the App in its "
                                  "settings on GitHub and run setup again")
                self._page(500, "Not stored", f"<p>{html.escape(server.failure)}</p>")
                return
            server.stored = app
            install = install_url(server.registration.api_url, app.slug)
            self._page(200, "Registered", f"<p>The App <strong>{html.escape(app.slug)}</strong> (id {app.app_id}) "
                                          "is registered; its key and webhook secret are stored. Next, "
                                          f'<a href="{html.escape(install)}">install it</a> on the shelf '
                                          "repositories. You can close this page.</p>")

    def _page(self, status: int, title: str, body: str, nonce: str | None = None) -> None:
        scripts = f"'nonce-{nonce}'" if nonce else "'none'"
        action = self.server.registration.form_action
        origin = urlunsplit((*urlsplit(action)[:2], "", "", ""))
        data = (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
                f"</head><body><h1>{html.escape(title)}</h1>{body}</body></html>").encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Security-Policy", f"default-src 'none'; script-src {scripts}; "
                                                    f"form-action {origin}; base-uri 'none'; frame-ancestors 'none'")
        self.send_header("Referrer-Policy", "no-referrer")  # the callback's URL holds the code
        self.send_header("Cache-Control", "no-store")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


class SetupServer(HTTPServer):
    """The loopback page and its callback; `stored` is the App once registered."""

    def __init__(self, data_dir: Path, api_url: str, webhook_url: str, org: str | None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.data_dir = data_dir
        self.host = f"127.0.0.1:{self.server_address[1]}"
        self.url = f"http://{self.host}/"
        self.stored: credentials.StoredApp | None = None
        self.failure: str | None = None
        state = secrets.token_urlsafe(32)
        page = f"/organizations/{quote(org, safe='')}/settings/apps/new" if org else "/settings/apps/new"
        text = json.dumps(manifest(webhook_url, f"http://{self.host}{CALLBACK}"))
        self.registration = Registration(api_url, f"{web_url(api_url)}{page}?state={state}", text, state)

    def wait(self, seconds: float) -> None:
        """Answer requests until an App is stored, the conversion failed, or `seconds` passed."""
        deadline = time.monotonic() + seconds
        while self.stored is None and self.failure is None and time.monotonic() < deadline:
            self.timeout = min(1.0, max(deadline - time.monotonic(), 0.01))
            self.handle_request()


def cli_main(args: argparse.Namespace) -> int:
    data_dir: Path = args.data_dir or Path(DEFAULT_DATA_DIR)
    try:
        api_url = _http_url(args.github_url, "--github-url")
        webhook_url = _http_url(args.webhook_url, "--webhook-url")
        if args.org is not None and not ORG.match(args.org):
            raise SetupError(f"--org must be an organization's login, got {args.org!r}")
        if credentials.stored(data_dir):
            raise SetupError(f"{data_dir} already holds a registered App; give another --data-dir "
                             "(or remove its app.json, app-private-key.pem and app-webhook-secret)")
        try:  # find out now, not after GitHub made an App whose key would have nowhere to go
            data_dir.mkdir(mode=credentials.DIR_MODE, parents=True, exist_ok=True)
        except OSError as exc:
            raise SetupError(f"cannot create --data-dir {data_dir} ({type(exc).__name__})") from None
        if not os.access(data_dir, os.W_OK | os.X_OK):
            raise SetupError(f"cannot write into --data-dir {data_dir}")
    except SetupError as exc:
        print(f"memshelf-bot setup: {exc}", file=sys.stderr)
        return 2
    server = SetupServer(data_dir, api_url, webhook_url, args.org)
    try:
        print(f"open {server.url}", flush=True)
        print("  (it posts the App's manifest to GitHub; click \"Create GitHub App\" there)", file=sys.stderr, flush=True)
        server.wait(WAIT)
    except KeyboardInterrupt:
        print("memshelf-bot setup: interrupted; nothing was stored", file=sys.stderr)
        return 1
    finally:
        server.server_close()
    if server.stored is None:
        why = server.failure or f"no answer from GitHub within {WAIT // 60} minutes"
        print(f"memshelf-bot setup: {why}; nothing was stored", file=sys.stderr)
        return 1
    app = server.stored
    print(f"registered the App {app.slug} (id {app.app_id}) on {web_url(api_url)}; "
          f"its id, private key and webhook secret are in {data_dir} (mode 0600)")
    print(f"next: install it on the shelf repositories ({install_url(api_url, app.slug)}), then run "
          f"memshelf-bot serve --data-dir {data_dir}" + (f" --github-url {api_url}" if api_url != DEFAULT_GITHUB_URL
                                                         else ""))
    return 0
