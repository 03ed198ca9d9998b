"""The sandbox plays GitHub's side of the App manifest flow: the registration page, the click that
redirects with a one-time code, `POST /app-manifests/{code}/conversions` (validated against
GitHub's OpenAPI description), and from then on the new App: its JWTs, its installation tokens,
its webhooks signed with the secret the conversion gave."""

from __future__ import annotations

import hashlib
import hmac
import http.client
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import jwt
import pytest

from memshelf_sandbox import Sandbox, seed_bare_repo, webhooks
from tests import sandbox_app_fixtures
from tests.sandbox_app_fixtures import Receiver
from tests.sandbox_fixtures import raw_request, seed_tree

receiver = sandbox_app_fixtures.receiver
ROOT = Path(__file__).resolve().parents[2]
REDIRECT = "http://127.0.0.1:9/callback?keep=1"


def manifest(hook_url: str, **changes: Any) -> str:
    data = json.loads((ROOT / "bot" / "app" / "app-manifest.json").read_text(encoding="utf-8"))
    data["hook_attributes"]["url"] = hook_url
    data["redirect_url"] = REDIRECT
    data.update(changes)
    return json.dumps(data)


@pytest.fixture
def sb(tmp_path: Path) -> Iterator[Sandbox]:
    bare = tmp_path / "shelf.git"
    seed_bare_repo(seed_tree(tmp_path / "seed"), bare)
    with Sandbox.start(bare, "octo/shelf") as sandbox:
        yield sandbox
        assert sandbox.validation_errors == [], "a response or webhook broke GitHub's descriptions"


def web(sb: Sandbox, method: str, path: str, form: dict[str, str] | None = None) -> tuple[int, str, dict[str, str]]:
    """One browser request, redirects not followed: status, body, headers."""
    host = urlsplit(sb.api_url).netloc
    connection = http.client.HTTPConnection(host, timeout=30)
    body = urlencode(form).encode() if form is not None else None
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
    try:
        connection.request(method, path, body, headers)
        answer = connection.getresponse()
        return answer.status, answer.read().decode("utf-8"), dict(answer.getheaders())
    finally:
        connection.close()


def register(sb: Sandbox, text: str, state: str = "s-123", path: str = "/settings/apps/new") -> dict[str, list[str]]:
    """Post the manifest, click "Create GitHub App": the query the browser is sent back with."""
    status, page, _ = web(sb, "POST", f"{path}?state={state}", {"manifest": text})
    assert status == 200, page
    token = re.search(r'name="token" value="([^"]+)"', page)
    assert token is not None and 'id="create"' in page
    status, _, headers = web(sb, "POST", "/settings/apps/new/confirm", {"token": token[1]})
    assert status == 302
    location = headers["Location"]
    assert location.startswith("http://127.0.0.1:9/callback?")
    return parse_qs(urlsplit(location).query)


def convert(sb: Sandbox, code: str) -> tuple[int, Any]:
    status, body, _ = raw_request(sb, "POST", f"/app-manifests/{code}/conversions", b"", token=None)
    return status, body


def test_registration_then_conversion_gives_a_working_app(sb: Sandbox, receiver: tuple[Receiver, str]) -> None:
    box, hook_url = receiver
    back = register(sb, manifest(hook_url))
    assert back["state"] == ["s-123"] and back["keep"] == ["1"]  # the redirect keeps its own query
    status, app = convert(sb, back["code"][0])
    assert status == 201
    assert app["slug"] == "memshelf-bot" and app["name"] == "memshelf-bot" and isinstance(app["id"], int)
    assert app["pem"].startswith("-----BEGIN RSA PRIVATE KEY-----")
    assert app["webhook_secret"] and app["client_secret"] and app["client_id"]
    assert app["events"] == json.loads(manifest(hook_url))["default_events"]
    assert app["permissions"]["merge_queues"] == "read"
    # The sandbox now plays that App: a JWT signed with the returned key opens /app ...
    now = int(time.time())
    token = jwt.encode({"iat": now - 30, "exp": now + 300, "iss": str(app["id"])}, app["pem"], algorithm="RS256")
    status, me, _ = raw_request(sb, "GET", "/app", token=token)
    assert status == 200 and me["id"] == app["id"] and me["client_id"] == app["client_id"]
    status, installs, _ = raw_request(sb, "GET", "/app/installations", token=token)
    assert status == 200 and [i["account"]["login"] for i in installs] == ["octo"]
    status, minted, _ = raw_request(sb, "POST", f"/app/installations/{installs[0]['id']}/access_tokens", b"{}",
                                    token=token)
    assert status == 201 and minted["token"].startswith("ghs_")
    # ... and webhooks go to the manifest's hook URL, signed with the returned secret.
    assert raw_request(sb, "POST", "/_sandbox/webhooks/ping", b"{}", token=None)[0] == 202
    got = box.wait_for(1)[0]
    expected = "sha256=" + hmac.new(app["webhook_secret"].encode(), got.raw, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(got.headers["X-Hub-Signature-256"], expected)
    assert got.payload["hook"]["app_id"] == app["id"] and webhooks.errors("ping", got.payload) == []
    assert sb.deliveries.wait_idle(30)


def test_a_code_converts_once(sb: Sandbox, receiver: tuple[Receiver, str]) -> None:
    code = register(sb, manifest(receiver[1]))["code"][0]
    assert convert(sb, code)[0] == 201
    status, body = convert(sb, code)
    assert status == 404 and body["message"] == "Not Found"
    assert convert(sb, "0" * 40)[0] == 404


def test_a_confirmation_is_single_use_too(sb: Sandbox, receiver: tuple[Receiver, str]) -> None:
    status, page, _ = web(sb, "POST", "/settings/apps/new?state=x", {"manifest": manifest(receiver[1])})
    token = re.search(r'name="token" value="([^"]+)"', page)
    assert status == 200 and token is not None
    assert web(sb, "POST", "/settings/apps/new/confirm", {"token": token[1]})[0] == 302
    assert web(sb, "POST", "/settings/apps/new/confirm", {"token": token[1]})[0] == 422


def test_an_organization_registers_its_own_app(sb: Sandbox, receiver: tuple[Receiver, str]) -> None:
    code = register(sb, manifest(receiver[1]), path="/organizations/octo/settings/apps/new")["code"][0]
    status, app = convert(sb, code)
    assert status == 201 and app["owner"]["login"] == "octo"
    status, _, _ = web(sb, "POST", "/organizations/nobody/settings/apps/new", {"manifest": manifest(receiver[1])})
    assert status == 404


@pytest.mark.parametrize("text", [
    "not json", "[]", json.dumps({"name": "x", "url": "https://example.org"}),  # no hook URL, no redirect
    json.dumps({"name": "x" * 35, "url": "https://e.org", "hook_attributes": {"url": "https://e.org/w"},
                "redirect_url": "https://e.org/r"}),
    json.dumps({"name": "x", "url": "https://e.org", "hook_attributes": {"url": "javascript:alert(1)"},
                "redirect_url": "https://e.org/r"}),
    json.dumps({"name": "x", "url": "https://e.org", "hook_attributes": {"url": "https://e.org/w"},
                "redirect_url": "https://e.org/r", "default_permissions": {"contents": "everything"}}),
])
def test_a_malformed_manifest_is_refused_on_the_page(sb: Sandbox, text: str) -> None:
    status, page, headers = web(sb, "POST", "/settings/apps/new", {"manifest": text})
    assert status == 422 and "refused" in page and 'id="create"' not in page
    assert "default-src 'none'" in headers["Content-Security-Policy"]


def test_the_page_escapes_what_the_manifest_says(sb: Sandbox, receiver: tuple[Receiver, str]) -> None:
    status, page, _ = web(sb, "POST", "/settings/apps/new?state=%22%3E%3Cscript%3E",
                          {"manifest": manifest(receiver[1], name='<img src=x onerror="alert(1)">')})
    assert status == 200
    assert "<img" not in page and "<script" not in page and "&lt;img src=x" in page
