"""The image's pins: markers are evaluated for the image's exact Pythons (redis needs
async-timeout below 3.11.3, and the smoke base runs 3.11.2), the extras the image carries are
pinned, and a requirement this environment lacks is an error that says what to install."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def pin() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pin_constraints", ROOT / "scripts" / "pin_constraints.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_markers_are_evaluated_for_the_images_full_python_versions(pin: ModuleType) -> None:
    assert pin._applies(Requirement('async-timeout>=4.0.3; python_full_version < "3.11.3"'), "")
    assert not pin._applies(Requirement('backport; python_full_version < "3.11.0"'), "")
    assert pin._applies(Requirement('hiredis; extra == "hiredis"'), "hiredis")
    assert not pin._applies(Requirement('hiredis; extra == "hiredis"'), "")


def test_the_committed_pins_carry_redis_and_what_it_needs_on_the_smoke_base() -> None:
    pins = dict(line.split("==") for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#"))
    assert {"redis", "async-timeout"} <= set(pins)


def test_a_requirement_missing_here_is_named_not_dropped(pin: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    real = pin.distribution

    def without_async_timeout(name: str):  # as on a Python where redis does not need it
        if pin.canonical(name) == "async-timeout":
            raise pin.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(pin, "distribution", without_async_timeout)
    with pytest.raises(pin.MissingHere, match=r"async-timeout>=4\.0\.3; python_full_version < \"3\.11\.3\" "
                                              r"\(for redis\)"):
        pin.runtime_pins()
