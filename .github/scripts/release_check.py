"""Refuse a release whose tag, pyproject version and action.yml image disagree.

A release is one commit carrying `version` in pyproject.toml and, in action.yml,
`image: docker://ghcr.io/<owner>/memshelf-bot:<version>`; the tag on it is `v<version>`. Given the
tag and the repository owner, this prints the image names to publish as `key=value` lines (for
$GITHUB_OUTPUT) or says on stderr what disagrees and exits 1. Standard library only: it runs on
the bare runner before anything is installed.
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
VERSION = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")
IMAGE_LINE = re.compile(r"^\s+image:\s*['\"]?([^'\"\s]+)['\"]?\s*$", re.MULTILINE)


def image_repository(owner: str) -> str:
    """GHCR names are lower case, whatever the owner's spelling."""
    return f"ghcr.io/{owner.lower()}/memshelf-bot"


def project_version(root: Path) -> str:
    return tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def action_image(root: Path) -> str | None:
    found = IMAGE_LINE.findall((root / "action.yml").read_text(encoding="utf-8"))
    return found[0] if len(found) == 1 else None


def check(tag: str, owner: str, root: Path = ROOT) -> tuple[dict[str, str], list[str]]:
    """The outputs to publish and the list of disagreements (empty: release)."""
    version = project_version(root)
    repository = image_repository(owner)
    problems = []
    match = VERSION.fullmatch(version)
    if match is None:
        problems.append(f"pyproject.toml version {version!r} is not MAJOR.MINOR.PATCH")
    if tag != f"v{version}":
        problems.append(f"tag {tag!r} is not v{version}, the version in pyproject.toml")
    expected = f"docker://{repository}:{version}"
    image = action_image(root)
    if image != expected:
        problems.append(f"action.yml runs.image is {image!r}, not {expected!r}")
    major = f"v{match.group(1)}" if match else ""
    outputs = {"version": version, "image": f"{repository}:{version}", "major": major,
               "major_image": f"{repository}:{major}"}
    return outputs, problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: release_check.py TAG OWNER", file=sys.stderr)
        return 2
    outputs, problems = check(*argv)
    for problem in problems:
        print(f"release refused: {problem}", file=sys.stderr)
    if problems:
        return 1
    for key, value in outputs.items():
        print(f"{key}={value}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
