"""Shelf-relative paths: the one place that turns a path the shelf names into a file under the root.

A path named by a shelf (docs root, category, config file, POLICY file, index or ledger) is
hostile: it may climb out with `..`, start at `/`, or pass through a symbolic link placed in the
pull request. `problem` checks such a path component by component with `lstat` (never following
a link); `read_regular` reads a file only when that check passes and the file is a regular file
(a FIFO or a device is refused before it is opened, so nothing can hang or have side effects).
"""

from __future__ import annotations

import os
import posixpath
import stat
from pathlib import Path

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)


def stem(path: str) -> str:
    """An episode's id as its file name gives it: `docs/topics/2026-01-05-x.md` -> `2026-01-05-x`."""
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name


def normalize(path: str) -> str:
    """A shelf-relative POSIX path without `./`, doubled or trailing slashes (backslashes read as
    slashes); a `..` that climbs out stays, for `parts_of` to refuse."""
    return posixpath.normpath(path.replace("\\", "/")).lstrip("/")


def undecodable(path: str) -> bool:
    """Whether a path holds bytes that are not UTF-8 (they arrive as lone surrogates)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def parts_of(rel: str) -> list[str] | None:
    """The components of a shelf-relative POSIX path, or None when it is empty, absolute, holds a
    NUL or a `..` component (`.` and empty components are dropped)."""
    if not rel or rel.startswith("/") or "\0" in rel:
        return None
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    return None if not parts or ".." in parts else parts


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words, for a message."""
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def lstat_inside(root: Path, rel: str) -> tuple[os.stat_result | None, str | None]:
    """`lstat` of `rel` under `root` after checking every parent: (its stat or None when it does
    not exist, why it may not be used or None). A parent that is a link or not a directory is a
    problem; the last component is returned as it is (the caller decides about links there)."""
    parts = parts_of(rel)
    if parts is None:
        return None, "is outside the shelf"
    current = root
    for i, part in enumerate(parts):
        current = current / part
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            return None, None
        except OSError as exc:
            return None, f"cannot be read: {exc.strerror}"
        if i == len(parts) - 1:
            return st, None
        where = "/".join(parts[: i + 1])
        if stat.S_ISLNK(st.st_mode):
            return None, f"lies under {where}, a symbolic link (not followed)"
        if not stat.S_ISDIR(st.st_mode):
            return None, f"lies under {where}, which is not a directory"
    return None, None


def problem(root: Path, rel: str) -> str | None:
    """Why `rel` may not be used as a path inside the shelf (outside it, or it or a parent is a
    symbolic link), or None. A path that does not exist has no problem."""
    st, why = lstat_inside(root, rel)
    if why is None and st is not None and stat.S_ISLNK(st.st_mode):
        return "is a symbolic link (not followed)"
    return why


def is_dir(root: Path, rel: str) -> bool:
    """Whether `rel` is a directory reached without following any link."""
    st, why = lstat_inside(root, rel)
    return why is None and st is not None and stat.S_ISDIR(st.st_mode)


def exists(root: Path, rel: str) -> bool:
    """Whether `rel` exists (as anything, a link included) below parents that are real directories."""
    st, why = lstat_inside(root, rel)
    return why is None and st is not None


def read_regular(root: Path, rel: str) -> tuple[bytes | None, str | None]:
    """(the bytes of `rel`, None) for a regular file reached without following a link; (None, None)
    when it does not exist; (None, why) when it is refused or unreadable."""
    st, why = lstat_inside(root, rel)
    if why is not None or st is None:
        return None, why
    if not stat.S_ISREG(st.st_mode):
        return None, f"is {kind_of(st.st_mode)}, not a regular file (not read)"
    try:
        fd = os.open(root / rel, _OPEN_FLAGS)
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):  # swapped since the lstat
            return None, f"is {kind_of(st.st_mode)}, not a regular file (not read)"
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks), None
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror}"
    finally:
        os.close(fd)


def first_link(root: Path, rel: str) -> str | None:
    """The shelf-relative path of the first component of `rel` that is a symbolic link, if any."""
    parts = parts_of(rel) or []
    current = root
    for i, part in enumerate(parts):
        current = current / part
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return "/".join(parts[: i + 1])
        except OSError:
            return None
    return None


def shelf_relative(root: Path, raw: str) -> str:
    """A path given on the command line (relative to the current directory or to the shelf, or
    absolute) as a shelf-relative POSIX path; returned as given when it lies outside the shelf."""
    candidate = Path(raw)
    if not candidate.is_absolute() and os.path.lexists(candidate):
        candidate = Path.cwd() / candidate
    if candidate.is_absolute():
        try:
            return Path(os.path.abspath(candidate)).relative_to(os.path.abspath(root)).as_posix()
        except ValueError:
            return raw
    return candidate.as_posix()
