"""GitHub's side of the App manifest flow: the registration page, the one-time code, the new App.

A person's browser posts a form field `manifest` (the App's JSON) to `/settings/apps/new?state=…`
(an organization's: `/organizations/ORG/settings/apps/new`). GitHub shows what the App asks for
and a "Create GitHub App" button; the click creates the App and sends the browser to the
manifest's `redirect_url` with `?code=…&state=…`. The code is good once, for an hour:
`POST /app-manifests/{code}/conversions` (no authentication) answers the App's id, slug, private
key (`pem`), webhook secret and OAuth client credentials.

The sandbox serves these pages on its own origin (GitHub's web and API hosts are one here), and
from the conversion on plays the new App (`SandboxServer.play`): installed on every served
repository's owner (GitHub asks for an installation step; the sandbox skips it).
"""

from __future__ import annotations

import html
import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from .app import LEVELS, App

CODE_LIFETIME = 3600  # seconds: GitHub's manifest codes expire after an hour
MAX_NAME = 34  # GitHub refuses longer App names
USER_FORM = "/settings/apps/new"
ORG_FORM = re.compile(r"^/organizations/(?P<org>[A-Za-z0-9-]{1,39})/settings/apps/new$")
CONFIRM = "/settings/apps/new/confirm"
# No form-action: the click's answer redirects to the manifest's redirect_url, another origin.
CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"


class ManifestError(ValueError):
    """Why GitHub refuses a manifest: shown on the page, nothing is created."""


@dataclass(frozen=True)
class Manifest:
    """What a manifest asks for (the fields the sandbox acts on)."""

    name: str
    url: str
    hook_url: str | None
    redirect_url: str
    description: str
    permissions: dict[str, str]
    events: list[str]
    owner: str  # the account the App belongs to: the organization, or the signed-in user


@dataclass
class Page:
    """A web answer: an HTML page, or a redirect (`location`)."""

    status: int
    body: str = ""
    location: str | None = None

    def headers(self) -> list[tuple[str, str]]:
        if self.location is not None:
            return [("Location", self.location), ("Cache-Control", "no-store")]
        return [("Content-Type", "text/html; charset=utf-8"), ("Content-Security-Policy", CSP),
                ("X-Frame-Options", "DENY"), ("Cache-Control", "no-store")]


@dataclass(frozen=True)
class Credentials:
    """What the conversion gives the App's owner once: its key and secrets."""

    pem: str = field(repr=False)
    webhook_secret: str | None = field(repr=False)
    client_id: str
    client_secret: str = field(repr=False)


def _http_url(value: Any, what: str) -> str:
    if not isinstance(value, str) or urlsplit(value).scheme not in ("http", "https") or not urlsplit(value).netloc:
        raise ManifestError(f"{what} must be an http(s) URL")
    return value


def _permissions(value: Any) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(k, str) and v in LEVELS for k, v in value.items()):
        raise ManifestError(f"default_permissions must map permissions to one of {', '.join(LEVELS)}")
    return dict(value)


def _events(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ManifestError("default_events must be a list of event names")
    return list(value)


def parse_manifest(text: str, owner: str) -> Manifest:
    """The manifest a form posted, checked as GitHub checks it (`url` and `hook_attributes.url`
    required, the redirect an http(s) URL); `ManifestError` says what is wrong."""
    try:
        data = json.loads(text)
    except ValueError:
        raise ManifestError("the manifest is not JSON") from None
    if not isinstance(data, dict):
        raise ManifestError("the manifest is not a JSON object")
    name = data.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > MAX_NAME:
        raise ManifestError(f"name must be 1 to {MAX_NAME} characters")
    hook = data.get("hook_attributes") or {}
    if not isinstance(hook, dict):
        raise ManifestError("hook_attributes is malformed")
    hook_url = _http_url(hook.get("url"), "hook_attributes.url") if hook.get("active", True) else None
    description = data.get("description") or ""
    return Manifest(name.strip(), _http_url(data.get("url"), "url"), hook_url,
                    _http_url(data.get("redirect_url"), "redirect_url"),
                    description if isinstance(description, str) else "",
                    _permissions(data.get("default_permissions") or {}), _events(data.get("default_events") or []),
                    owner)


def slug(name: str) -> str:
    """GitHub's slug of an App name: lower case, every other run of characters one `-`."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "app"


def with_query(url: str, **params: str) -> str:
    """`url` with `params` added to its query (the redirect keeps the query it had)."""
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query, keep_blank_values=True), *params.items()]
    return urlunsplit(parts._replace(query=urlencode(query)))


class Registrations:
    """Manifests shown on a page (awaiting the click) and codes handed out (awaiting conversion)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._shown: dict[str, tuple[Manifest, str]] = {}  # page token -> (manifest, state)
        self._codes: dict[str, tuple[Manifest, float]] = {}  # code -> (manifest, expiry)
        self._next_id = 900_001

    # the browser's side -------------------------------------------------------------------

    def new(self, form: dict[str, str], state: str, owner: str) -> Page:
        """The registration page for a posted manifest (or GitHub's refusal of it)."""
        try:
            manifest = parse_manifest(form.get("manifest", ""), owner)
        except ManifestError as exc:
            return Page(422, _page("The manifest was refused", f"<p>{html.escape(str(exc))}</p>"))
        token = secrets.token_urlsafe(24)
        with self._lock:
            self._shown[token] = (manifest, state)
        rows = "".join(f"<li>{html.escape(k)}: {html.escape(v)}</li>" for k, v in sorted(manifest.permissions.items()))
        events = ", ".join(html.escape(e) for e in manifest.events) or "none"
        body = (f"<p>Owner: <strong>{html.escape(owner)}</strong></p>"
                f"<form method=\"post\" action=\"{CONFIRM}\">"
                f"<label>GitHub App name <input name=\"name\" value=\"{html.escape(manifest.name)}\" "
                f"maxlength=\"{MAX_NAME}\" required></label>"
                f"<p>Homepage: {html.escape(manifest.url)}</p>"
                f"<p>Webhook: {html.escape(manifest.hook_url or 'inactive')}</p>"
                f"<p>Permissions</p><ul>{rows}</ul><p>Events: {events}</p>"
                f"<input type=\"hidden\" name=\"token\" value=\"{token}\">"
                f"<button id=\"create\" type=\"submit\">Create GitHub App</button></form>")
        return Page(200, _page(f"Create GitHub App for {owner}", body))

    def confirm(self, form: dict[str, str]) -> Page:
        """The click: the App is registered, the browser goes to the redirect with a one-time code."""
        with self._lock:
            shown = self._shown.pop(form.get("token", ""), None)
        if shown is None:
            return Page(422, _page("This registration expired", "<p>Post the manifest again.</p>"))
        manifest, state = shown
        name = form.get("name", "").strip() or manifest.name
        if len(name) > MAX_NAME:
            return Page(422, _page("The manifest was refused", f"<p>name must be at most {MAX_NAME} characters</p>"))
        code = secrets.token_hex(20)
        with self._lock:
            self._codes[code] = (replace(manifest, name=name), time.time() + CODE_LIFETIME)
        return Page(302, location=with_query(manifest.redirect_url, code=code, state=state))

    # the conversion ---------------------------------------------------------------------

    def redeem(self, code: str) -> Manifest | None:
        """The manifest a code stands for, once; None for an unknown, used or expired code."""
        with self._lock:
            found = self._codes.pop(code, None)
        if found is None or found[1] < time.time():
            return None
        return found[0]

    def create(self, manifest: Manifest) -> tuple[App, Credentials]:
        """The new App (GitHub keeps the public key) and the credentials its owner gets once."""
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode("ascii")
        with self._lock:
            app_id, self._next_id = self._next_id, self._next_id + 1
        client_id = "Iv23li" + secrets.token_hex(7)
        app = App(app_id, slug(manifest.name), key.public_key(), name=manifest.name, owner=manifest.owner,
                  permissions={**manifest.permissions, "metadata": manifest.permissions.get("metadata", "read")},
                  events=list(manifest.events), client_id=client_id,
                  description=manifest.description)
        secret = secrets.token_hex(20) if manifest.hook_url else None
        return app, Credentials(pem, secret, client_id, secrets.token_hex(20))


def _page(title: str, body: str) -> str:
    return (f"<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title>"
            f"</head><body><h1>{html.escape(title)}</h1>{body}</body></html>")


def form_fields(raw: bytes, query: str) -> dict[str, str]:
    """A form's fields (the body, url-encoded) over the query's; the last value of a name wins."""
    fields = dict(parse_qsl(query, keep_blank_values=True))
    fields.update(parse_qsl(raw.decode("utf-8", "replace"), keep_blank_values=True))
    return fields
