"""The App's configuration (exit 2 with one line naming the variable, before listening) and its
installation tokens (one repository, the flow's permissions, cached until shortly before expiry)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.app.auth import REFRESH_BEFORE, InstallationTokens
from bot.app.config import APP_ID, PRIVATE_KEY, PRIVATE_KEY_FILE, WEBHOOK_SECRET, ConfigError, load_config
from tests.app_helpers import rsa_pem


@pytest.fixture(scope="module")
def pem() -> str:
    return rsa_pem()


def _env(pem: str, **over: str) -> dict[str, str]:
    env = {APP_ID: "42", PRIVATE_KEY: pem, WEBHOOK_SECRET: "s3cret"}
    env.update(over)
    return {k: v for k, v in env.items() if v != "-"}


def test_a_complete_environment_loads_and_the_key_never_shows_in_a_repr(pem: str) -> None:
    config = load_config(_env(pem), "http://127.0.0.1:1/api/")
    assert (config.app_id, config.github_url, config.webhook_secret) == (42, "http://127.0.0.1:1/api", b"s3cret")
    assert "PRIVATE" not in repr(config) and "s3cret" not in repr(config)
    one_line = pem.strip().replace("\n", "\\n")  # a PEM pasted into one env line
    assert load_config(_env(pem, **{PRIVATE_KEY: one_line})).private_key == pem.strip() + "\n"


@pytest.mark.parametrize(("over", "named"), [
    ({APP_ID: "-"}, APP_ID),
    ({APP_ID: "12a"}, APP_ID),
    ({APP_ID: "0"}, APP_ID),
    ({PRIVATE_KEY: "-"}, PRIVATE_KEY),
    ({PRIVATE_KEY: "-----BEGIN PRIVATE KEY-----\nnope\n-----END PRIVATE KEY-----"}, PRIVATE_KEY),
    ({WEBHOOK_SECRET: "-"}, WEBHOOK_SECRET),
    ({WEBHOOK_SECRET: "  "}, WEBHOOK_SECRET),
])
def test_missing_or_malformed_names_the_variable(pem: str, over: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(_env(pem, **over))
    message = str(caught.value)
    assert named in message and "\n" not in message and "BEGIN" not in message


def test_the_key_file(pem: str, tmp_path: Path) -> None:
    path = tmp_path / "key.pem"
    path.write_text(pem, encoding="ascii")
    assert load_config(_env(pem, **{PRIVATE_KEY: "-", PRIVATE_KEY_FILE: str(path)})).private_key.startswith("-----")
    with pytest.raises(ConfigError, match=PRIVATE_KEY_FILE):
        load_config(_env(pem, **{PRIVATE_KEY: "-", PRIVATE_KEY_FILE: str(tmp_path / "absent.pem")}))
    with pytest.raises(ConfigError, match="not both"):
        load_config(_env(pem, **{PRIVATE_KEY_FILE: str(path)}))
    with pytest.raises(ConfigError, match="--github-url"):
        load_config(_env(pem), "ftp://example")


class FakeRequester:
    def __init__(self) -> None:
        self.sent: list[tuple[str, str, Any]] = []
        self.rate_limiting = (-1, -1)

    def requestJsonAndCheck(self, verb: str, url: str, input: Any = None, **_: Any) -> tuple[dict, dict]:
        self.sent.append((verb, url, input))
        expires = datetime.now(UTC) + timedelta(hours=1)
        return {}, {"token": f"ghs_{len(self.sent)}", "expires_at": expires.isoformat().replace("+00:00", "Z")}


class FakeIntegration:
    def __init__(self) -> None:
        self.requester = FakeRequester()


def test_tokens_are_scoped_to_one_repository_and_the_flows_permissions_and_cached(pem: str) -> None:
    now = [1_000.0]
    tokens = InstallationTokens(load_config(_env(pem)), clock=lambda: now[0])
    fake = FakeIntegration()
    tokens.integration = fake  # type: ignore[assignment]
    now[0] = datetime.now(UTC).timestamp()
    first = tokens.token(7, "shelf/one", {"contents": "write", "checks": "write"})
    assert fake.requester.sent == [("POST", "/app/installations/7/access_tokens",
                                    {"repositories": ["one"], "permissions": {"checks": "write", "contents": "write"}})]
    assert tokens.token(7, "shelf/one", {"checks": "write", "contents": "write"}) is first  # cached
    assert tokens.token(7, "shelf/two", {"contents": "write", "checks": "write"}).token != first.token
    assert tokens.token(7, "shelf/one", {"contents": "read"}).token != first.token
    assert len(fake.requester.sent) == 3 and tokens.calls == 3
    now[0] = first.expires_at - REFRESH_BEFORE + 1  # shortly before expiry: a fresh one
    assert tokens.token(7, "shelf/one", {"contents": "write", "checks": "write"}).token != first.token
    assert "ghs_" not in repr(first)
