"""The release: a tag, the published image and the released action.yml stay in step.

The rule (README, "Releasing"): pyproject.toml's version X.Y.Z, action.yml's
`image: docker://ghcr.io/<owner>/memshelf-bot:X.Y.Z` and the tag vX.Y.Z agree, checked here on
every commit and by `.github/scripts/release_check.py` in the release workflow before it
publishes; the base image every FROM names is pinned by digest in that workflow.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
OWNER = "memshelf"  # the owner in `uses: memshelf/memshelf-bot@v1`
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}$")


def _release_check() -> ModuleType:
    spec = importlib.util.spec_from_file_location("release_check", ROOT / ".github/scripts/release_check.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def release() -> dict[str, Any]:
    return yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text(encoding="utf-8"))


def _version() -> str:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]


def test_action_names_the_image_of_pyprojects_version() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"] == {"using": "docker", "image": f"docker://ghcr.io/{OWNER}/memshelf-bot:{_version()}"}


def test_the_check_accepts_the_matching_tag_and_names_both_images() -> None:
    outputs, problems = _release_check().check(f"v{_version()}", "MemShelf")
    major = _version().split(".")[0]
    assert problems == []
    assert outputs == {"version": _version(), "image": f"ghcr.io/memshelf/memshelf-bot:{_version()}",
                       "major": f"v{major}", "major_image": f"ghcr.io/memshelf/memshelf-bot:v{major}"}


@pytest.mark.parametrize("tag", ["v9.9.9", _version(), f"v{_version()}-rc1"])
def test_the_check_refuses_a_tag_other_than_the_version(tag: str) -> None:
    _, problems = _release_check().check(tag, OWNER)
    assert problems == [f"tag {tag!r} is not v{_version()}, the version in pyproject.toml"]


def test_the_check_refuses_an_action_yml_naming_another_image(tmp_path: Path) -> None:
    for name in ("pyproject.toml", "action.yml"):
        shutil.copy(ROOT / name, tmp_path / name)
    action = tmp_path / "action.yml"
    action.write_text(action.read_text(encoding="utf-8").replace(f":{_version()}", ":0.0.1"), encoding="utf-8")
    _, problems = _release_check().check(f"v{_version()}", OWNER, tmp_path)
    assert problems == [f"action.yml runs.image is 'docker://ghcr.io/{OWNER}/memshelf-bot:0.0.1', "
                        f"not 'docker://ghcr.io/{OWNER}/memshelf-bot:{_version()}'"]
    _, problems = _release_check().check(f"v{_version()}", "someone-else")  # a fork's release
    assert problems and "someone-else" in problems[0]


def test_the_check_runs_as_the_workflow_runs_it() -> None:
    script = str(ROOT / ".github/scripts/release_check.py")
    good = subprocess.run([sys.executable, script, f"v{_version()}", OWNER], capture_output=True, text=True,
                          check=False)
    assert good.returncode == 0 and f"image=ghcr.io/{OWNER}/memshelf-bot:{_version()}\n" in good.stdout
    bad = subprocess.run([sys.executable, script, "v0.0.0", OWNER], capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and bad.stdout == "" and "release refused: tag 'v0.0.0'" in bad.stderr


def test_release_workflow_passes_actionlint() -> None:
    exe = BIN / "actionlint"
    proc = subprocess.run([str(exe), "-no-color", ".github/workflows/release.yml"], cwd=ROOT, capture_output=True,
                          text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_release_runs_on_version_tags_only_and_checks_first(release: dict[str, Any]) -> None:
    on = release.get("on", release.get(True))
    assert on == {"push": {"tags": ["v[0-9]+.[0-9]+.[0-9]+"]}}
    assert release["permissions"] == {}
    job = release["jobs"]["image"]
    assert job["permissions"] == {"contents": "write", "packages": "write"}
    steps = job["steps"]
    assert steps[1]["run"].startswith("python3 .github/scripts/release_check.py \"$GITHUB_REF_NAME\"")
    build = next(s for s in steps if s.get("uses", "").startswith("docker/build-push-action@"))
    assert steps.index(build) > 1 and build["with"]["push"] is True
    assert build["with"]["tags"].strip().split("\n") == ["${{ steps.release.outputs.image }}",
                                             "${{ steps.release.outputs.major_image }}"]


def _from_images() -> list[str]:
    """The images (not earlier stages) the Dockerfile's FROM lines build on."""
    stages, images = set(), []
    for line in (ROOT / "Dockerfile").read_text(encoding="utf-8").splitlines():
        words = line.split()
        if words and words[0].upper() == "FROM":
            if words[1] not in stages:
                images.append(words[1])
            if len(words) == 4 and words[2].upper() == "AS":
                stages.add(words[3])
    return images


def test_every_base_image_is_pinned_by_digest_in_the_release(release: dict[str, Any]) -> None:
    images = _from_images()
    assert images and all("@" not in image and "$" not in image for image in images)  # the smoke script tags it
    contexts = dict(line.split("=", 1) for line in release["env"]["BASE_CONTEXT"].split())
    build = next(s for s in release["jobs"]["image"]["steps"] if s.get("uses", "").startswith("docker/build-push"))
    assert build["with"]["build-contexts"] == "${{ env.BASE_CONTEXT }}"
    for image in set(images):
        target = contexts.get(image, "")
        assert target.startswith(f"docker-image://{image}@sha256:") and DIGEST.search(target), image
