"""Where a finding's path points for tools that read paths from the working directory."""

from __future__ import annotations

import os
from pathlib import Path


def workspace_path(root: Path, rel: str) -> str:
    """`rel` (shelf-relative) as seen from the current directory when the shelf lies inside it
    (GitHub annotations and SARIF want repository-relative paths); else shelf-relative."""
    base = Path(os.path.abspath(root))
    cwd = Path(os.getcwd())
    try:
        prefix = base.relative_to(cwd).as_posix()
    except ValueError:
        return rel
    return rel if prefix in ("", ".") else f"{prefix}/{rel}"
