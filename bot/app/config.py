"""The App's configuration from the environment, checked before anything listens.

A missing or malformed value is a `ConfigError` whose one-line message names the variable (the
CLI prints it and exits 2). The private key is held in a field that never reaches a repr, a log
line or the status page. When the environment names no App at all, the App `memshelf-bot setup`
stored in the data directory is used (see `credentials.py`); the environment wins as a whole, so
an id and a key never come from two different Apps.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric.rsa import RSAPrivateKey
from cryptography.hazmat.primitives.serialization import load_pem_private_key

from . import credentials
from .options import DEFAULT_GITHUB_URL

APP_ID = "MEMSHELF_BOT_APP_ID"
PRIVATE_KEY = "MEMSHELF_BOT_PRIVATE_KEY"
PRIVATE_KEY_FILE = "MEMSHELF_BOT_PRIVATE_KEY_FILE"
WEBHOOK_SECRET = "MEMSHELF_BOT_WEBHOOK_SECRET"
APP_VARIABLES = (APP_ID, PRIVATE_KEY, PRIVATE_KEY_FILE, WEBHOOK_SECRET)


class ConfigError(ValueError):
    """One line naming the variable that is missing or malformed."""


@dataclass(frozen=True, slots=True)
class AppConfig:
    app_id: int
    github_url: str
    private_key: str = field(repr=False)
    webhook_secret: bytes = field(repr=False, default=b"")


def _app_id(env: Mapping[str, str]) -> int:
    raw = env.get(APP_ID, "").strip()
    if not raw:
        raise ConfigError(f"{APP_ID} is not set: the App's numeric id from its settings page "
                          "(or register the App with `memshelf-bot setup`)")
    if not raw.isdigit() or int(raw) <= 0:
        raise ConfigError(f"{APP_ID} must be the App's numeric id (a positive integer)")
    return int(raw)


def _private_key(env: Mapping[str, str]) -> str:
    text = env.get(PRIVATE_KEY, "")
    path = env.get(PRIVATE_KEY_FILE, "").strip()
    if text.strip() and path:
        raise ConfigError(f"set one of {PRIVATE_KEY} and {PRIVATE_KEY_FILE}, not both")
    name = PRIVATE_KEY
    if path:
        name = PRIVATE_KEY_FILE
        try:
            text = Path(path).read_text(encoding="ascii")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{PRIVATE_KEY_FILE} names a file that cannot be read ({type(exc).__name__})") from None
    if not text.strip():
        raise ConfigError(f"{PRIVATE_KEY} (PEM text) or {PRIVATE_KEY_FILE} (its path) is not set")
    text = text.replace("\\n", "\n").strip() + "\n"  # a PEM pasted into one env line
    try:
        key = load_pem_private_key(text.encode("ascii"), password=None)
    except (ValueError, TypeError, UnicodeEncodeError):
        raise ConfigError(f"{name} is not an unencrypted PEM private key") from None
    if not isinstance(key, RSAPrivateKey):
        raise ConfigError(f"{name} is not an RSA private key (GitHub Apps sign with RS256)")
    return text


def _webhook_secret(env: Mapping[str, str]) -> bytes:
    raw = env.get(WEBHOOK_SECRET, "")
    if not raw.strip():
        raise ConfigError(f"{WEBHOOK_SECRET} is not set: the secret entered in the App's webhook settings")
    return raw.encode("utf-8")


def _github_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise ConfigError(f"--github-url must be an http(s) URL of GitHub's REST API, got {url!r}")
    return url.rstrip("/")


def _stored_env(data_dir: Path, github_url: str) -> dict[str, str] | None:
    """The stored App as the environment would name it; None when none is stored."""
    try:
        app = credentials.load(data_dir)
    except credentials.CredentialsError as exc:
        raise ConfigError(str(exc)) from None
    if app is None:
        return None
    if app.github_url.rstrip("/") != github_url:
        raise ConfigError(f"the App stored in {data_dir} was registered on {app.github_url}: "
                          f"give --github-url {app.github_url}")
    return {APP_ID: str(app.app_id), PRIVATE_KEY: app.private_key, WEBHOOK_SECRET: app.webhook_secret}


def load_config(env: Mapping[str, str], github_url: str = DEFAULT_GITHUB_URL, *,
                needs_webhook_secret: bool = True, data_dir: Path | None = None) -> AppConfig:
    """The App's settings; a worker needs no webhook secret (it never sees a request). Without
    any App variable in `env`, the App stored in `data_dir` (if any) stands in for them."""
    github_url = _github_url(github_url)
    if data_dir is not None and not any(env.get(name, "").strip() for name in APP_VARIABLES):
        env = _stored_env(data_dir, github_url) or env
    return AppConfig(
        app_id=_app_id(env),
        github_url=github_url,
        private_key=_private_key(env),
        webhook_secret=_webhook_secret(env) if needs_webhook_secret else b"",
    )
