"""Bringing derived files on disk to their desired bytes: atomically, never through a symlink.

A file is replaced by writing a temporary sibling and renaming it over the path, so a reader sees
the old bytes or the new ones, never half a file. A symlink at a derived path is replaced (or
removed) itself; its target is never written. A derived path below a symlinked or non-directory
parent is not touched at all and is reported as skipped. As a last line of defence, `sync`
writes or deletes only paths in the derived-path list it is given (never under `.git/`).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from .. import paths

_DEFAULT_MODE = 0o644


@dataclass
class Outcome:
    written: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    drifted: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class OnDisk:
    """What a path holds now: nothing, a regular file's bytes, or something else (link, dir)."""

    exists: bool
    data: bytes | None = None
    kind: str = "file"
    mode: int = _DEFAULT_MODE


def _blocked_parent(root: Path, rel: str) -> str | None:
    """Why the parents of `rel` cannot be written through, or None when they can."""
    parts = rel.split("/")
    if rel.startswith("/") or ".." in parts:
        return "outside the shelf"
    if any(p.casefold() == ".git" for p in parts):
        return "under .git/ (never written)"
    current = root
    for part in parts[:-1]:
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return f"{current.relative_to(root)} cannot be read: {exc.strerror}"
        if stat.S_ISLNK(st.st_mode):
            return f"{current.relative_to(root)} is a symbolic link (not followed)"
        if not stat.S_ISDIR(st.st_mode):
            return f"{current.relative_to(root)} is not a directory"
    return None


def on_disk(root: Path, rel: str) -> OnDisk:
    """What `rel` holds, looked at without following a link at any component (a path below a
    link or a non-directory is "unreachable")."""
    st, why = paths.lstat_inside(root, rel)
    if why is not None:
        return OnDisk(True, kind="unreachable path")
    if st is None:
        return OnDisk(False)
    if stat.S_ISLNK(st.st_mode):
        return OnDisk(True, kind="symlink")
    if not stat.S_ISREG(st.st_mode):
        return OnDisk(True, kind="directory" if stat.S_ISDIR(st.st_mode) else "special file")
    data, why = paths.read_regular(root, rel)
    if data is None:
        return OnDisk(True, kind="unreadable file")
    return OnDisk(True, data, mode=stat.S_IMODE(st.st_mode))


def write_atomic(root: Path, rel: str, data: bytes, mode: int = _DEFAULT_MODE) -> None:
    """Write via a temporary sibling and a rename; a symlink at `rel` is replaced, not followed."""
    target = root / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def sync(root: Path, files: dict[str, bytes | None], *, check: bool, derived: Collection[str]) -> Outcome:
    """Compare every derived path with its desired bytes (None = must be absent); unless `check`,
    write or delete what differs. A path not in `derived` (the shelf's derived-path list) is
    refused, whatever asked for it."""
    out = Outcome()
    allowed = {paths.normalize(p) for p in derived}
    for rel, want in files.items():
        blocked = _blocked_parent(root, rel)
        if blocked is None and paths.normalize(rel) not in allowed:
            blocked = "not a derived path (refused)"
        if blocked is not None:
            out.skipped.append((rel, blocked))
            continue
        have = on_disk(root, rel)
        if have.kind in ("directory", "special file", "unreadable file", "unreachable path"):
            out.skipped.append((rel, f"is a {have.kind}, not replaced"))
            continue
        same = (not have.exists) if want is None else (have.kind == "file" and have.data == want)
        if same:
            out.unchanged.append(rel)
        elif check:
            out.drifted.append(rel)
        else:
            try:
                if want is None:
                    os.unlink(root / rel)
                else:
                    write_atomic(root, rel, want, have.mode if have.exists else _DEFAULT_MODE)
            except OSError as exc:
                out.skipped.append((rel, f"could not be {'deleted' if want is None else 'written'}: {exc.strerror}"))
                continue
            (out.deleted if want is None else out.written).append(rel)
    return out
