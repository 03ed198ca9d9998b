"""The App's credentials as `memshelf-bot setup` keeps them in the data directory, and read back
by `serve` and `worker` when the environment names no App.

Three files in a directory of mode 0700, each of mode 0600 and written atomically (a temporary
file beside it, flushed to disk, then renamed over): `app.json` (the id, slug and name, and the
API the App was registered on — nothing secret), `app-private-key.pem` and `app-webhook-secret`.
`app.json` is written last, so whoever finds it finds the other two. The OAuth client secret the
registration also returns is not kept: the bot never uses it.

Reading refuses what it should not trust: a symlink, a file others may read or write (a key
someone else could have read is a key to rotate), a malformed record.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

APP_FILE = "app.json"
KEY_FILE = "app-private-key.pem"
SECRET_FILE = "app-webhook-secret"
FILE_MODE = 0o600
DIR_MODE = 0o700
MAX_FILE = 64 * 1024  # a PEM key is ~1.7 KB; nothing legitimate here is bigger


class CredentialsError(ValueError):
    """One line saying what is wrong with the stored credentials."""


@dataclass(frozen=True, slots=True)
class StoredApp:
    """An App registered by `setup`: what `serve` and `worker` need, and where it was registered."""

    app_id: int
    slug: str
    name: str
    github_url: str
    private_key: str = field(repr=False)
    webhook_secret: str = field(repr=False)


def _write(directory: Path, name: str, text: str) -> None:
    """`directory/name` holds `text` (mode 0600) or, after a crash, what it held before."""
    temporary = directory / f".{name}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, FILE_MODE)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, directory / name)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def store(data_dir: Path, app: StoredApp) -> None:
    """Keep `app` in `data_dir` (created 0700; an existing one is narrowed to 0700)."""
    data_dir.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
    os.chmod(data_dir, DIR_MODE)
    _write(data_dir, KEY_FILE, app.private_key)
    _write(data_dir, SECRET_FILE, app.webhook_secret)
    record = {"id": app.app_id, "slug": app.slug, "name": app.name, "github_url": app.github_url}
    _write(data_dir, APP_FILE, json.dumps(record, indent=1) + "\n")
    directory = os.open(data_dir, os.O_RDONLY)
    try:
        os.fsync(directory)  # the renames themselves survive a crash
    finally:
        os.close(directory)


def stored(data_dir: Path) -> bool:
    """Whether `data_dir` holds an App (its `app.json`, a symlink included)."""
    return (data_dir / APP_FILE).is_symlink() or (data_dir / APP_FILE).exists()


def _read(data_dir: Path, name: str) -> str:
    path = data_dir / name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except OSError as exc:
        raise CredentialsError(f"{path} cannot be read ({type(exc).__name__}): run memshelf-bot setup again") from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise CredentialsError(f"{path} is not a regular file")
        if info.st_mode & 0o077:
            raise CredentialsError(f"{path} may be read or written by others (mode {stat.S_IMODE(info.st_mode):04o}): "
                                   f"chmod 600 it, and rotate the App's key if anyone else could have read it")
        data = handle.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise CredentialsError(f"{path} is larger than any credential")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise CredentialsError(f"{path} is not UTF-8 text") from None


def load(data_dir: Path) -> StoredApp | None:
    """The App stored in `data_dir`; None when none is; `CredentialsError` when it is unusable."""
    if not stored(data_dir):
        return None
    text = _read(data_dir, APP_FILE)
    try:
        record = json.loads(text)
    except ValueError:
        raise CredentialsError(f"{data_dir / APP_FILE} is not JSON") from None
    if not isinstance(record, dict):
        raise CredentialsError(f"{data_dir / APP_FILE} is not a JSON object")
    app_id, slug, name, url = (record.get(key) for key in ("id", "slug", "name", "github_url"))
    if type(app_id) is not int or app_id <= 0 or not all(isinstance(v, str) for v in (slug, name, url)):
        raise CredentialsError(f"{data_dir / APP_FILE} lacks the App's id, slug, name or github_url")
    return StoredApp(app_id, slug, name, url, _read(data_dir, KEY_FILE), _read(data_dir, SECRET_FILE))
