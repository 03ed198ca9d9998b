"""Files the bot leaves in the workspace for a later step (`.memshelf-bot/`): the SARIF file for
`upload-sarif`, a fork's sticky comment for the `workflow_run` workflow.

The workspace is the pull request's checkout, so `.memshelf-bot` may be whatever the PR put
there. A file is written only into a real directory, never through a symlink: each component is
opened relative to the one before with `O_NOFOLLOW` (no race between a check and the write), and
an existing entry of the file's name must be a regular file, which is then replaced atomically.
"""

from __future__ import annotations

import contextlib
import os
import stat
import uuid
from pathlib import Path

DIRECTORY = ".memshelf-bot"


class UnsafePath(OSError):
    """The workspace holds something at the path that the bot will not write through."""


def write(root: Path, name: str, text: str) -> str:
    """Write `text` to `<root>/.memshelf-bot/<name>` (created when absent); its workspace-relative
    path. Raises UnsafePath on a symlink or a non-directory on the way, OSError otherwise."""
    where = f"{DIRECTORY}/{name}"
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        with contextlib.suppress(FileExistsError):
            os.mkdir(DIRECTORY, 0o755, dir_fd=root_fd)
        if not stat.S_ISDIR(os.lstat(DIRECTORY, dir_fd=root_fd).st_mode):
            raise UnsafePath(f"{DIRECTORY} in the workspace is not a directory (a symlink or a file): "
                             f"{where} was not written")
        try:
            dir_fd = os.open(DIRECTORY, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=root_fd)
        except OSError as exc:  # replaced by a symlink or a file since the lstat
            raise UnsafePath(f"{DIRECTORY} in the workspace changed under the bot: {where} was not written") from exc
    finally:
        os.close(root_fd)
    try:
        try:
            mode = os.lstat(name, dir_fd=dir_fd).st_mode
        except FileNotFoundError:
            mode = None
        if mode is not None and not stat.S_ISREG(mode):
            raise UnsafePath(f"{where} in the workspace is not a regular file (a symlink or a directory): "
                             "not written")
        temporary = f".{name}.{uuid.uuid4().hex}"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temporary, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            os.unlink(temporary, dir_fd=dir_fd)
            raise
    finally:
        os.close(dir_fd)
    return where
