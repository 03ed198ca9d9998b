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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that asks the reference tools (the `ref_venv` fixture, directly or through a
    module fixture) is a differential test: `slow`, out of the quick loop, always in CI."""
    for item in items:
        if "ref_venv" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
