"""Shared fixtures and the suite's shape: the tiers (one directory each), and the order files run in.

Builders live in shelfgen.py/shelfkit.py, oracles in refs.py. tests/README.md says how it fits.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import tempfile
from collections import defaultdict
from pathlib import Path

import pytest

from tests import refs

TESTS = Path(__file__).resolve().parent
# A tier is the directory a test file sits in; its name is also the marker (`-m e2e`).
TIERS = ("unit", "flows", "e2e", "container")
DURATIONS = TESTS / "durations.json"

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


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--record-durations", action="store_true",
                     help="after the run, write each test file's seconds (setup+call+teardown, summed over "
                          "its tests) into tests/durations.json, which orders the files of later runs")


def _tier(path: Path) -> str | None:
    """The tier of a file under tests/, or None when it sits in no tier directory."""
    path = path.resolve()
    if not path.is_relative_to(TESTS):
        return None
    parts = path.relative_to(TESTS).parts
    return parts[0] if len(parts) > 1 and parts[0] in TIERS else None


class Untiered(pytest.File):
    """A test file outside every tier: collecting it fails, so a new file cannot go unclassified."""

    def collect(self):
        raise self.CollectError(
            f"{self.path.relative_to(TESTS.parent)} is in no tier: move it to tests/unit, tests/flows, "
            "tests/e2e or tests/container (tests/README.md says which holds what)")


def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    if module_path.resolve().is_relative_to(TESTS) and _tier(module_path) is None:
        return Untiered.from_parent(parent, path=module_path)
    return None


def _file_key(path: Path) -> str:
    """A file's key in tests/durations.json: its path under tests/ (a path elsewhere stays whole)."""
    path = path.resolve()
    return path.relative_to(TESTS).as_posix() if path.is_relative_to(TESTS) else path.as_posix()


def _recorded() -> dict[str, float]:
    return json.loads(DURATIONS.read_text(encoding="utf-8")) if DURATIONS.is_file() else {}


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects: the tier markers must be on the items
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Each test gets its tier's marker. Every test that asks the reference tools (the `ref_venv`
    fixture, directly or through a module fixture) is a differential test: `slow`, out of the quick
    loop, always in CI. Then the files go longest first by tests/durations.json: ./dev runs xdist with
    `--dist loadfile --no-loadscope-reorder`, so a file runs whole on one worker in this order, and a
    long file handed out last would be the suite's tail. A file not recorded yet goes first (its
    cost is unknown, and started early it cannot be the tail)."""
    for item in items:
        if tier := _tier(item.path):
            item.add_marker(tier)
        if "ref_venv" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)
    seconds = _recorded()
    items.sort(key=lambda item: -seconds.get(_file_key(item.path), float("inf")))


# This process's seconds per file (key: the path under tests/), summed from every test report.
_SPENT: defaultdict[str, float] = defaultdict(float)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Sums setup, call and teardown per file; under xdist the controller sees every worker's reports."""
    path = TESTS.parent / report.nodeid.split("::", 1)[0]
    _SPENT[_file_key(path)] += report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """With --record-durations, merges this run's seconds per file into tests/durations.json (on the
    controller only), dropping files that no longer exist."""
    config = session.config
    if not config.getoption("--record-durations") or hasattr(config, "workerinput"):
        return
    merged = {**_recorded(), **{key: round(spent, 2) for key, spent in _SPENT.items()}}
    kept = {key: merged[key] for key in sorted(merged, key=lambda k: -merged[k]) if (TESTS / key).is_file()}
    DURATIONS.write_text(json.dumps(kept, indent=1) + "\n", encoding="utf-8")
