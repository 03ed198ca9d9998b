#!/usr/bin/env python3
"""Write `constraints.txt`: the exact versions of memshelf-bot's runtime dependencies.

The Docker image installs the project with these pins, so the Action runs the same library
versions the test suite ran with. The pins are read from the environment this script runs in
(run it with `.venv/bin/python`): the transitive closure of the project's runtime requirements
and the extras the image carries, test extras excluded, environment markers evaluated for the
exact Pythons the image may have (`python_full_version` too: redis needs async-timeout below
3.11.3). A requirement the image needs that this environment lacks (it runs another Python) is
an error naming what to install here first, never a silently missing pin.

Usage: .venv/bin/python scripts/pin_constraints.py [--out FILE]
"""

from __future__ import annotations

import argparse
import re
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement

PROJECT = "memshelf-bot"
# the exact Pythons the image may have: Debian bookworm's 3.11.2 in the container smoke test's
# stand-in, and the lowest patch release python:3.12-slim may carry
IMAGE_PYTHONS = ("3.11.2", "3.12.0")
IMAGE_EXTRAS = {"redis"}  # the image runs `serve`/`worker --redis` too (scale-out)
DEFAULT_OUT = Path(__file__).resolve().parent.parent / "constraints.txt"
HEADER = """\
# Exact versions of memshelf-bot's runtime dependencies, installed into the Action image
# (Dockerfile: pip install -c constraints.txt). Generated from the project's virtualenv by
# scripts/pin_constraints.py; regenerate after changing dependencies in pyproject.toml.
"""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _applies(req: Requirement, extra: str) -> bool:
    """True if the requirement is needed, for this extra, on a Python the image may have."""
    if req.marker is None:
        return True
    return any(req.marker.evaluate({"python_version": ".".join(full.split(".")[:2]), "python_full_version": full,
                                    "extra": extra}) for full in IMAGE_PYTHONS)


class MissingHere(RuntimeError):
    """Requirements the image needs that this environment does not have installed."""


def runtime_pins(project: str = PROJECT) -> dict[str, str]:
    """Canonical name -> installed version for every runtime dependency, transitively.

    A requirement with extras (`pyjwt[crypto]`) pulls in the dependencies behind those extras.
    """
    pins: dict[str, str] = {}
    missing: dict[str, str] = {}
    walked: set[tuple[str, str]] = set()
    todo: list[tuple[str, set[str], str]] = [(project, set(IMAGE_EXTRAS), "")]
    while todo:
        name, extras, wanted = todo.pop()
        try:
            dist = distribution(name)
        except PackageNotFoundError:
            missing[canonical(name)] = wanted
            continue
        key = canonical(name)
        if key != canonical(project):
            pins[key] = dist.version
        for extra in extras | {""}:
            if (key, extra) in walked:
                continue
            walked.add((key, extra))
            for req in map(Requirement, dist.requires or []):
                if _applies(req, extra):
                    todo.append((req.name, set(req.extras), f"{req} (for {dist.metadata['Name']})"))
    if missing:
        raise MissingHere("the image needs what this environment lacks; install it here, then run again: "
                          + "; ".join(missing[name] or name for name in sorted(missing)))
    return pins


def render(pins: dict[str, str]) -> str:
    return HEADER + "".join(f"{name}=={pins[name]}\n" for name in sorted(pins))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args()
    try:
        pins = runtime_pins()
    except MissingHere as exc:
        print(f"pin_constraints: {exc}")
        return 1
    args.out.write_text(render(pins), encoding="utf-8")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
