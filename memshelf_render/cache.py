"""The per-episode cache: a run's cost follows what changed, not the size of the shelf.

Why: every render and validate used to parse and check every episode, though an episode's row
and findings depend only on its own bytes and on the rules' inputs. So each result is kept under
the episode's path and content hash (git's blob id: sha1 of `blob <len>\\0<bytes>`, the same id
`git ls-files -s` shows), in one file per (kind, inputs). The inputs digest covers
the tool's version and code, shelf.yml, .memshelf-bot.yml and the settings as loaded (overrides
included), POLICY.patterns and .docshelf.json: change any of them and every entry is a miss.
The shelf's location is no part of the key (its results do not depend on it): the Action and
the App render in a fresh worktree each time, at a new path; two shelves that share every input
share a file, and an entry of the other one is a miss by its blob id.

Like git's index, an entry also records the file's stat signature (size, mtime, ctime, inode,
device) when the file had settled (its mtime two seconds before the run began): a file whose
signature is unchanged is not read again. Any other file is read and hashed.

The uncached computation is the definition; this module only remembers its results. A file
that does not check out (magic, checksum, format, version, kind, inputs) is ignored, an
entry whose blob id differs from the file's is a miss, a value of the wrong shape is a miss; a
cache that cannot be read or written costs one warning (`warning`, printed by the command
layer) and never fails the run. Files are written to a temporary name in the same directory and
moved over (`os.replace`), so concurrent runs never see half a file; the directory is bounded
(`MAX_BYTES`), the least recently used files go first. Values are plain tuples of str, int, bool
and None in `marshal` form, after a sha256 check: nothing in the file names code to run.

Location: `MEMSHELF_BOT_CACHE_DIR`, else `$XDG_CACHE_HOME/memshelf-bot`, else
`~/.cache/memshelf-bot`.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import stat
import time
from collections.abc import Callable, Mapping, Sequence
from enum import Enum
from pathlib import Path
from typing import Any, TypeVar

from . import __version__, paths
from .episode import read_bytes
from .shelf import DOCSHELF, MANIFEST, SETTINGS, EpisodeRef, Shelf

CACHE_FORMAT = 1  # bump when an entry's layout changes
MAGIC = b"memshelf-bot episode cache\n"
MAX_BYTES = 256 * 1024 * 1024  # the whole directory; least recently used files are evicted
SUFFIX = ".mbc"
_VERSION = __version__.replace("-", "_")  # in the file names, between dashes
V = TypeVar("V")
SETTLE_NS = 2_000_000_000
Read = tuple[bytes, int]  # an episode's bytes and its size, as `Shelf.parse_episode` takes them
Signature = tuple[int, int, int, int, int]  # size, mtime_ns, ctime_ns, inode, device
Entry = tuple[bytes, Any, "Signature | None"]  # blob id, value, a stat signature that stands for the blob
Result = tuple[Any, "bytes | None", bool, "Signature | None"]  # value, blob id, computed now, signature


class Kind(Enum):
    """What an entry holds: a render's row (`records._rows_of`), validate's per-episode
    findings and summary, or a rendered piece of a derived file (`render.pieces`)."""

    ROWS = "rows"
    CHECKS = "checks"
    PIECES = "pieces"


def cache_dir(environ: Mapping[str, str] = os.environ) -> Path | None:
    """Where the cache lives (None when no home can be named)."""
    explicit = environ.get("MEMSHELF_BOT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = environ.get("XDG_CACHE_HOME")
    if base:
        return Path(base) / "memshelf-bot"
    try:
        return Path.home() / ".cache" / "memshelf-bot"
    except RuntimeError:
        return None


def blob_id(data: bytes) -> bytes:
    """git's object id of a blob with these bytes (20 bytes of sha1)."""
    import hashlib  # loaded by a cached run only (a --no-cache or --changed validate never needs it)

    h = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    h.update(data)
    return h.digest()


_CODE: list[bytes] = []


def _code_fingerprint() -> bytes:
    """The core's source files by name, size and mtime: a development tree whose code changed
    under one version number starts fresh too (about a hundred stats, once per process)."""
    import hashlib

    if not _CODE:
        h = hashlib.sha256()
        base = Path(__file__).parent
        for path in sorted(base.rglob("*.py")):
            with contextlib.suppress(OSError):
                st = path.stat()
                h.update(f"{path.relative_to(base)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
        _CODE.append(h.digest())
    return _CODE[0]


def inputs_digest(shelf: Shelf) -> str:
    """Everything besides an episode's own bytes that its row or findings depend on."""
    import hashlib

    h = hashlib.sha256(f"{CACHE_FORMAT}\0{__version__}\0".encode())
    h.update(_code_fingerprint())
    for rel in (MANIFEST, SETTINGS, shelf.patterns_path, DOCSHELF):
        data = shelf.read_bytes(rel)
        h.update(b"\1" if data is None else b"\2%d\0" % len(data) + data)
    h.update(repr(shelf.settings).encode())
    return h.hexdigest()


class EpisodeCache:
    """One run's access to the cache directory (None: `--no-cache`, nothing read or written).
    Keeps the first warning; a second problem in the same run says nothing more."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory
        self.warning: str | None = None

    @classmethod
    def from_env(cls) -> EpisodeCache:
        return cls(cache_dir())

    def warn(self, text: str) -> None:
        if self.warning is None:
            self.warning = f"episode cache ignored: {text}"

    def store(self, shelf: Shelf, kind: Kind) -> Store:
        return Store(self, shelf, kind)

    def table(self, shelf: Shelf, kind: Kind) -> Table:
        return Table(self, shelf, kind)

    def place(self, shelf: Shelf, kind: Kind) -> tuple[tuple, Path | None]:
        """The header a file of (kind, the shelf's inputs) carries, and its path."""
        import hashlib

        header = (CACHE_FORMAT, __version__, kind.value, inputs_digest(shelf))
        name = hashlib.sha256("\0".join(map(str, header)).encode()).hexdigest()[:40]
        return header, None if self.directory is None else self.directory / f"{kind.value}-{_VERSION}-{name}{SUFFIX}"

    def load(self, path: Path | None, header: tuple) -> dict | None:
        """The entries of the file at `path` when it is whole and was written for `header`; None
        when there is none (or it does not check out: then with a warning)."""
        if path is None:
            return None
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except FileNotFoundError:
            return None
        except NotADirectoryError:
            self.warn(f"{self.directory} is not a directory")
            return None
        except OSError as exc:
            self.warn(f"cannot read {path}: {exc.strerror}")
            return None
        entries = _decode_file(raw, header)
        if entries is None:
            self.warn(f"{path} is not a whole cache file of this version")
            return None
        with contextlib.suppress(OSError):
            os.utime(path)  # recently used: evicted last
        return entries

    def write(self, path: Path, data: bytes) -> None:
        """Put `data` at `path` whole (a temporary file moved over it), then bound the directory."""
        import tempfile

        directory = self.directory
        assert directory is not None
        tmp = None
        try:
            directory.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=SUFFIX, dir=directory)
            os.fchmod(fd, 0o644)  # the Action writes as the container's root; the runner saves it
            with open(fd, "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
            tmp = None
        except OSError as exc:
            self.warn(f"cannot write to {directory}: {exc.strerror or exc}")
            return
        finally:
            if tmp is not None:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
        _evict(directory, keep=path)


class Store:
    """The entries of one (kind, inputs): read once at construction; `save` writes
    what this run computed, for the episodes the shelf has now."""

    def __init__(self, cache: EpisodeCache, shelf: Shelf, kind: Kind) -> None:
        self.cache, self.kind = cache, kind
        self.header, self.path = cache.place(shelf, kind)
        # a file last modified SETTLE_NS before this run began cannot change unseen within the
        # same mtime: its stat signature may stand for its content next time (git's "racy" rule)
        self.settled = time.time_ns() - SETTLE_NS
        self.entries: dict[str, Entry] = self._load()

    def _load(self) -> dict[str, Entry]:
        entries = self.cache.load(self.path, self.header)
        if entries is None:
            return {}
        if not _per_path(entries):
            self.cache.warn(f"{self.path} is not a whole cache file of this version")
            return {}
        return entries

    def through(self, shelf: Shelf, refs: Sequence[EpisodeRef], work: Callable[[EpisodeRef, Read | None], V],
                decode: Callable[[Any], V | None]) -> list[Result]:
        """Per ref: (value, blob id or None when the file cannot be cached, computed now, the
        file's stat signature when it may be trusted next time). A cached value is taken when the
        entry's blob id is the file's (or its recorded signature is the file's, as git's index
        trusts an unchanged stat) and it decodes."""
        out: list[Result] = []
        entries, settled = self.entries, self.settled
        root = os.fspath(shelf.root)
        for ref in refs:
            entry = entries.get(ref.path)
            sig = _signature(root, ref)
            if entry is not None and sig is not None and entry[2] == sig:
                value = decode(entry[1])
                if value is not None:
                    out.append((value, entry[0], False, sig))
                    continue
            read = _read(shelf, ref)
            blob = None if read is None else blob_id(read[0])
            sig = sig if sig is not None and sig[1] < settled and read is not None and read[1] == sig[0] else None
            if blob is not None and entry is not None and entry[0] == blob:
                value = decode(entry[1])
                if value is not None:
                    out.append((value, blob, False, sig))
                    continue
            out.append((work(ref, read), blob, True, sig))
        return out

    def save(self, refs: Sequence[EpisodeRef], results: Sequence[Result], encode: Callable[[Any], Any]) -> None:
        """Keep this run's entries (the shelf's current episodes only); rewrite the file only
        when something changed."""
        if self.path is None:
            return
        fresh = False
        entries: dict[str, Entry] = {}
        for ref, (value, blob, computed, sig) in zip(refs, results, strict=True):
            if blob is None:
                continue
            if computed:
                fresh = True
                entries[ref.path] = (blob, encode(value), sig)
            else:
                old = self.entries[ref.path]
                fresh = fresh or old[2] != sig
                entries[ref.path] = (blob, old[1], sig)
        if not fresh and len(entries) == len(self.entries):
            return
        self.entries = entries
        self.cache.write(self.path, _encode_file(entries, self.header))


class Table:
    """Content-addressed values of one (kind, inputs): each key is a digest of everything its
    value is computed from, so an entry is right for any file or shelf that asks it.
    Read once at construction; `save` keeps what this run used or added (so the file follows the
    shelf and does not grow with its history), and rewrites the file only when that changed."""

    def __init__(self, cache: EpisodeCache, shelf: Shelf, kind: Kind) -> None:
        self.cache = cache
        self.header, self.path = cache.place(shelf, kind)
        entries = cache.load(self.path, self.header)
        if entries is not None and not _by_digest(entries):
            cache.warn(f"{self.path} is not a whole cache file of this version")
            entries = None
        self.entries: dict[bytes, Any] = entries or {}
        self.used: dict[bytes, Any] = {}
        self.fresh = False

    def get(self, key: bytes) -> Any:
        """The value kept under `key` (None when there is none); the caller checks its shape."""
        value = self.entries.get(key)
        if value is not None:
            self.used[key] = value
        return value

    def put(self, key: bytes, value: Any) -> None:
        self.used[key] = value
        self.fresh = True

    def save(self) -> None:
        if self.path is None or not (self.fresh or len(self.used) != len(self.entries)):
            return
        self.entries, self.used, self.fresh = self.used, {}, False
        self.cache.write(self.path, _encode_file(self.entries, self.header))


def _signature(root: str, ref: EpisodeRef) -> Signature | None:
    """(size, mtime, ctime, inode, device) of a regular file with a UTF-8 name under the shelf
    at `root`, else None. ctime cannot be set back by a user, so a content change kept at the
    same size and mtime still shows."""
    if paths.undecodable(ref.path):
        return None
    try:
        st = os.lstat(f"{root}/{ref.path}")
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _read(shelf: Shelf, ref: EpisodeRef) -> Read | None:
    """The whole file when it can be cached (a regular file under the size cap with a UTF-8
    name); None leaves the episode to the plain parse."""
    if paths.undecodable(ref.path):
        return None
    cap = shelf.settings.max_episode_bytes
    try:
        full = os.path.join(shelf.root, ref.path)
        if not stat.S_ISREG(os.lstat(full).st_mode):
            return None
        data, size = read_bytes(full, cap)
    except OSError:
        return None
    return (data, size) if size == len(data) <= cap else None


def _encode_file(entries: dict[str, Entry], header: tuple) -> bytes:
    import hashlib

    payload = marshal.dumps((header, entries))
    return MAGIC + hashlib.sha256(payload).digest() + payload


def _decode_file(raw: bytes, header: tuple) -> dict | None:
    """The entries, when the file is whole (its checksum holds) and was written for `header`."""
    import hashlib

    if not raw.startswith(MAGIC):
        return None
    digest, payload = raw[len(MAGIC):len(MAGIC) + 32], raw[len(MAGIC) + 32:]
    if hashlib.sha256(payload).digest() != digest:
        return None
    try:
        found, entries = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if found != header or type(entries) is not dict:
        return None
    return entries


def _per_path(entries: dict) -> bool:
    """A `Store`'s layout: path -> (blob id, value, stat signature or None)."""
    for key, entry in entries.items():
        if type(key) is not str or type(entry) is not tuple or len(entry) != 3 or type(entry[0]) is not bytes:
            return False
        sig = entry[2]
        if sig is not None and (type(sig) is not tuple or tuple(map(type, sig)) != _SIGNATURE):
            return False
    return True


_SIGNATURE = (int,) * 5


def _by_digest(entries: dict) -> bool:
    """A `Table`'s layout: 16-byte key -> a tuple (its shape is checked where it is used)."""
    return all(type(k) is bytes and len(k) == 16 and type(v) is tuple for k, v in entries.items())


def _evict(directory: Path, keep: Path) -> None:
    """Delete the files of other versions of the tool (a new version starts fresh), then the
    least recently used cache files until the directory is under MAX_BYTES (a temporary file a
    killed run left behind counts, and goes first once it is the oldest)."""
    try:
        with os.scandir(directory) as it:
            found = [(e.stat().st_mtime, e.stat().st_size, e.path) for e in it
                     if e.name.endswith(SUFFIX) and e.is_file(follow_symlinks=False)]
    except OSError:
        return
    mine = f"-{_VERSION}-"
    for _mtime, _size, path in [f for f in found if mine not in os.path.basename(f[2]) and ".tmp-" not in f[2]]:
        with contextlib.suppress(OSError):
            os.unlink(path)
    found = [f for f in found if mine in os.path.basename(f[2]) or ".tmp-" in f[2]]
    total = sum(size for _, size, _ in found)
    for _mtime, size, path in sorted(found):
        if total <= MAX_BYTES:
            break
        if path == str(keep):
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size
