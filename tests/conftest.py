"""Shared fixtures. Kept small: builders live in shelfgen.py/shelfkit.py, oracles in refs.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import refs


@pytest.fixture(scope="session")
def ref_venv() -> Path:
    """The reference tools' virtualenv interpreter; skips only when PyPI cannot be reached."""
    try:
        return refs.ref_python()
    except refs.RefsUnavailable as exc:
        pytest.skip(str(exc))
