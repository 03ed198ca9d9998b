"""What `setup` stores and how `serve`/`worker` read it: GitHub's web address from its API's, the
manifest it posts, the files (0600, atomic, refused when others may read them or when they are
symlinks), and the environment winning as a whole over the stored App."""

from __future__ import annotations

import json
import os
import re
import stat
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.app import credentials
from bot.app.config import APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, ConfigError, load_config
from bot.app.setup import MANIFEST, install_url, manifest, web_url

API = "https://api.github.com"


def pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption()).decode()


@pytest.fixture(scope="module")
def key() -> str:
    return pem()


def app(key: str, url: str = API) -> credentials.StoredApp:
    return credentials.StoredApp(123, "memshelf-bot", "memshelf-bot", url, key, "s3cret-webhook")


@pytest.mark.parametrize(("api", "web"), [
    ("https://api.github.com", "https://github.com"),
    ("https://api.github.com/", "https://github.com"),
    ("https://ghes.example.com/api/v3", "https://ghes.example.com"),
    ("https://ghes.example.com/api/v3/", "https://ghes.example.com"),
    ("https://api.acme.ghe.com", "https://acme.ghe.com"),
    ("http://127.0.0.1:8123", "http://127.0.0.1:8123"),  # the sandbox: one origin for both
    ("http://127.0.0.1:8123/api/v3", "http://127.0.0.1:8123"),
])
def test_the_web_pages_are_found_from_the_api(api: str, web: str) -> None:
    assert web_url(api) == web
    assert install_url(api, "memshelf-bot") == f"{web}/apps/memshelf-bot/installations/new"


def test_the_manifest_posted_is_the_committed_one_pointed_at_this_server() -> None:
    committed = json.loads(MANIFEST.read_text(encoding="utf-8"))
    posted = manifest("https://bot.example.org/webhook", "http://127.0.0.1:5555/callback")
    assert posted["hook_attributes"] == {"url": "https://bot.example.org/webhook", "active": True}
    assert posted["redirect_url"] == "http://127.0.0.1:5555/callback"
    for field in ("name", "url", "default_permissions", "default_events", "public"):
        assert posted[field] == committed[field]


def test_stored_files_are_private_and_read_back(tmp_path: Path, key: str) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o755)
    credentials.store(data_dir, app(key))
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700  # an existing directory is narrowed
    assert sorted(p.name for p in data_dir.iterdir()) == sorted(
        [credentials.APP_FILE, credentials.KEY_FILE, credentials.SECRET_FILE])  # no temporary file left
    for path in data_dir.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "s3cret" not in (data_dir / credentials.APP_FILE).read_text()
    assert credentials.load(data_dir) == app(key)
    assert "s3cret" not in repr(credentials.load(data_dir)) and "PRIVATE" not in repr(credentials.load(data_dir))
    assert credentials.load(tmp_path / "nothing-here") is None


def test_a_key_others_may_read_is_refused(tmp_path: Path, key: str) -> None:
    credentials.store(tmp_path, app(key))
    os.chmod(tmp_path / credentials.KEY_FILE, 0o644)
    with pytest.raises(credentials.CredentialsError, match="read or written by others"):
        credentials.load(tmp_path)


def test_a_symlinked_credential_is_refused(tmp_path: Path, key: str) -> None:
    credentials.store(tmp_path / "real", app(key))
    planted = tmp_path / "planted"
    planted.mkdir(mode=0o700)
    for name in (credentials.APP_FILE, credentials.KEY_FILE, credentials.SECRET_FILE):
        (planted / name).symlink_to(tmp_path / "real" / name)
    with pytest.raises(credentials.CredentialsError, match="cannot be read"):
        credentials.load(planted)


def test_a_malformed_record_is_refused(tmp_path: Path, key: str) -> None:
    credentials.store(tmp_path, app(key))
    (tmp_path / credentials.APP_FILE).write_text('{"id": "123"}')
    with pytest.raises(credentials.CredentialsError, match="lacks the App's id"):
        credentials.load(tmp_path)


def test_serve_uses_the_stored_app_when_the_environment_names_none(tmp_path: Path, key: str) -> None:
    credentials.store(tmp_path, app(key))
    config = load_config({}, API, data_dir=tmp_path)
    assert (config.app_id, config.webhook_secret, config.private_key.strip()) == (123, b"s3cret-webhook", key.strip())


def test_the_environment_wins_as_a_whole(tmp_path: Path, key: str) -> None:
    credentials.store(tmp_path, app(key))
    other = pem()
    config = load_config({APP_ID: "9", PRIVATE_KEY: other, WEBHOOK_SECRET: "env"}, API, data_dir=tmp_path)
    assert (config.app_id, config.webhook_secret, config.private_key.strip()) == (9, b"env", other.strip())
    # an id from the environment is never paired with the stored key of another App
    with pytest.raises(ConfigError, match=PRIVATE_KEY):
        load_config({APP_ID: "9"}, API, data_dir=tmp_path)


def test_an_app_registered_elsewhere_names_its_github(tmp_path: Path, key: str) -> None:
    credentials.store(tmp_path, app(key, "https://ghes.example.com/api/v3"))
    with pytest.raises(ConfigError, match=re.escape("give --github-url https://ghes.example.com/api/v3")):
        load_config({}, API, data_dir=tmp_path)
    assert load_config({}, "https://ghes.example.com/api/v3/", data_dir=tmp_path).app_id == 123


def test_nothing_anywhere_points_at_setup(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="memshelf-bot setup"):
        load_config({}, API, data_dir=tmp_path)


def test_a_stored_key_too_open_stops_serve_with_one_line(tmp_path: Path, key: str) -> None:
    credentials.store(tmp_path, app(key))
    os.chmod(tmp_path / credentials.SECRET_FILE, 0o640)
    with pytest.raises(ConfigError, match="chmod 600") as refused:
        load_config({}, API, data_dir=tmp_path)
    assert "\n" not in str(refused.value)
