"""Shared fixtures. Kept small: builders live in shelfgen.py/shelfkit.py, oracles in refs.py."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from tests import refs

# every validate and render of the suite (in-process and in subprocesses) shares one throwaway
# episode cache, never the developer's own
_CACHE = tempfile.mkdtemp(prefix="memshelf-bot-test-cache-")
os.environ["MEMSHELF_BOT_CACHE_DIR"] = _CACHE
atexit.register(shutil.rmtree, _CACHE, True)


@pytest.fixture(scope="session")
def ref_venv() -> Path:
    """The reference tools' virtualenv interpreter; skips only when PyPI cannot be reached."""
    try:
        return refs.ref_python()
    except refs.RefsUnavailable as exc:
        pytest.skip(str(exc))


# The files that take longest (seconds of one worker, measured on 2 cores), started first: with
# `--dist loadfile` a file runs whole on one worker, so a long file handed out last is the suite's
# tail (xdist's own order, most tests first, handed out the one-test install check last).
LONGEST_FIRST = (
    "test_differential_validate.py",  # ~78 s: the reference tools over every mutation
    "test_flow_open_pr.py",  # ~68 s: agent pushes end to end on the sandbox
    "test_install.py",  # ~52 s: one fresh `pip install .[sandbox]`, then the demo
    "test_flow_pull_request.py",  # ~51 s: the 3,000-file pull request among them
    "test_app_scale.py",  # ~44 s: two servers and three workers on a real Redis
    "test_precommit.py",  # ~45 s: two `pre-commit try-repo` builds, one store for the render hook
    "test_fuzz.py",
    "test_flow_commands.py",
    "test_flow_render_race.py",
    "test_sandbox_app.py",
    "test_shelfgen.py",
    "test_flow_render_main.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that asks the reference tools (the `ref_venv` fixture, directly or through a
    module fixture) is a differential test: `slow`, out of the quick loop, always in CI. Then the
    longest files go first (./dev runs xdist with --no-loadscope-reorder, so this order holds)."""
    for item in items:
        if "ref_venv" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
